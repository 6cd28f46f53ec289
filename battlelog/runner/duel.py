"""Duels: two seekers race on paired boards, shooting in turn, each told the other's progress before each shot.

Duels come in pairs on a pair of boards, boards 2k and 2k+1 of an experiment with the same seed
(:func:`battlelog.runner.seeds.layout_for`): in duel 2k the first player hunts board 2k and opens, the second
hunts board 2k+1; in duel 2k+1 they swap boards and the second opens. So each player hunts each board once
and opens once, and a pair's outcome turns on how they play, not on whose board was easier; and within a
duel the two fleets differ, so a side's progress says nothing of the board the other hunts. Each side's
player is built for its duel from a seed of that duel alone, so a duel is reproducible from the root seed
and its number, and a resumed run plays exactly the duels an uninterrupted one would have. Before each
choice a player is told the opponent's game against its fleet (:meth:`battlelog.players.base.Player.face`);
only ``racer`` uses it. A duel ends at the first fleet sunk: the side that sank it wins. Records:
:mod:`battlelog.runner.duel_records`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError, ShotError
from battlelog.players import Player, check_player, make_player
from battlelog.players.opponent import Opponent
from battlelog.players.spec import PlayerSpec
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement, cell_name
from battlelog.rules.layouts import placement_json
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState
from battlelog.runner.duel_records import DUEL_JOURNAL, boards, duel_manifest
from battlelog.runner.journal import open_journal
from battlelog.runner.loop import chosen_cell
from battlelog.runner.seeds import layout_for

#: A fleet: one placement per ship.
Layout = tuple[Placement, ...]


@dataclass(frozen=True)
class DuelRun:
    """What decides every duel: the board, the two players' configurations, how many duels, the root seed."""

    config: GameConfig
    specs: tuple[PlayerSpec, PlayerSpec]
    duels: int
    seed: int

    def __post_init__(self) -> None:
        if self.config.rules.is_salvo:
            raise BattlelogError("duels are played one shot a turn: salvo is not supported")
        if len(self.specs) != 2 or self.specs[0].label == self.specs[1].label:
            raise BattlelogError(f"a duel needs two different players, got {', '.join(self.players) or 'none'}")
        for side, spec in enumerate(self.specs):
            check_player(spec.name, self.config, spec.options)
            self.player(side, 0).close()  # options only the constructor checks are refused before any duel

    @property
    def players(self) -> tuple[str, str]:
        """The two players' canonical labels, the first opening the even duels."""
        return self.specs[0].label, self.specs[1].label

    def player(self, side: int, duel: int) -> Player:
        """Side ``side``'s player for duel ``duel``, seeded by that duel and side alone."""
        spec = self.specs[side]
        return make_player(spec.name, np.random.SeedSequence(self.seed, spawn_key=(duel, 1, side)), **spec.options)


def play_duel(config: GameConfig, targets: tuple[Layout, Layout], players: tuple[Player, Player],
              labels: tuple[str, str], first: int) -> dict[str, Any]:  # fmt: skip
    """Play one duel, side s hunting ``targets[s]`` (the other side's fleet), side ``first`` opening; its
    record (without ``game``)."""
    referees = (Referee(config, targets[0]), Referee(config, targets[1]))
    states = [GameState.empty(config), GameState.empty(config)]
    seconds = [0.0, 0.0]
    for player in players:
        player.new_game(config)
    side = first
    while True:
        player, state = players[side], states[side]
        player.face(Opponent(states[1 - side], labels[1 - side]))
        start = time.perf_counter()
        cell = chosen_cell(player.choose(state), config)
        seconds[side] += time.perf_counter() - start
        if cell in state.shot_cells:
            raise ShotError(f"{labels[side]} shot {cell_name(cell)} twice")
        states[side] = state.with_shot(*cell, *referees[side].shoot(*cell))
        if referees[side].over:
            break
        side = 1 - side
    return {
        "first": labels[first],
        "winner": labels[side],
        "shots": [[list(shot.cell) for shot in s.shots] for s in states],
        "seconds": seconds,
        "layouts": [[placement_json(p) for p in target] for target in targets],
    }


def duel_record(run: DuelRun, duel: int, workspace: Workspace) -> dict[str, Any]:
    """Duel ``duel`` of ``run``, played: its boards (:func:`boards`), its opener (the first player on even
    duels), its players."""
    players = (run.player(0, duel), run.player(1, duel))
    hunted = boards(duel)
    targets = (layout_for(run.config, run.seed, hunted[0]), layout_for(run.config, run.seed, hunted[1]))
    try:
        for player in players:
            player.use(workspace)
        record = play_duel(run.config, targets, players, run.players, duel % 2)
    finally:
        for player in players:
            player.close()
    return {"game": duel, "boards": list(hunted), **record}


def run_duels(run: DuelRun, out: Path, report: Callable[[dict[str, Any]], None] = lambda record: None) -> list[dict[str, Any]]:
    """Play the duels 0.. ``run.duels`` - 1 not recorded in ``out`` yet, each journalled as it ends; returns
    the records of those duels (a run may have recorded more, with a larger ``duels``)."""
    workspace = Workspace()
    try:
        with open_journal(out, duel_manifest(run.config, run.players, run.seed), DUEL_JOURNAL) as journal:
            done = {record["game"] for record in journal.records}
            for duel in range(run.duels):
                if duel not in done:
                    record = duel_record(run, duel, workspace)
                    journal.append(record)
                    report(record)
            return sorted((r for r in journal.records if r["game"] < run.duels), key=lambda r: r["game"])
    finally:
        workspace.close()


