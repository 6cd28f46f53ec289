"""Experiments: every player plays the same boards, wherever the games run, and no finished game is lost.

This module only orchestrates: it turns an experiment into game tasks (game i's layout and player
stream depend only on the seed and i, see :mod:`battlelog.runner.seeds`), hands them to an executor
(:mod:`battlelog.runner.executors`: local processes or a cluster, the runner does not care which) and
appends each outcome to the journal as it arrives (:mod:`battlelog.runner.journal`). So a run on a cluster
gives the same games as a local run, and an interrupted run resumes where it stopped.

Running an experiment again skips every (player, game) pair already recorded, and more games or
another player extend it on the same boards. A failed game (status "memory", "timeout" or "error")
counts as recorded; :func:`retry_failed` replays the failed games, under new limits if wanted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from battlelog.engines import DEFAULT_ENGINE, engine_class
from battlelog.engines.base import check_prior_support
from battlelog.errors import BattlelogError
from battlelog.players import PLAYERS, check_player, make_player
from battlelog.players.spec import player_spec, spec_name
from battlelog.rules.config import GameConfig
from battlelog.rules.hiders import HIDER, Hider, LayoutHider, spec_text
from battlelog.rules.prior import UNIFORM, Prior
from battlelog.runner.beliefs import BELIEF
from battlelog.runner.executors.base import Executor
from battlelog.runner.interrupts import interrupts_remembered
from battlelog.runner.journal import Journal, open_journal
from battlelog.runner.records import game_record, manifest_config, manifest_hider, manifest_of, read_manifest
from battlelog.runner.seeds import DRAWN_TOGETHER, layout_for, layouts_for
from battlelog.runner.task import OK, GameTask


@dataclass(frozen=True)
class Experiment:
    """Who plays (player specs, with per-player options), where, how often, from which seed.

    Each player and its options become one configuration, named by its canonical spec text
    (:mod:`battlelog.players.spec`): ``players`` holds those names and ``options`` their options.
    ``hider``: the prior or distribution over layouts the boards are drawn from (``--hider``; uniform by default).
    """

    config: GameConfig
    players: tuple[str, ...]
    games: int
    seed: int
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    hider: Hider = UNIFORM

    def __post_init__(self) -> None:
        if not self.players:
            raise BattlelogError("no players given; choose from " + ", ".join(PLAYERS))
        for player in self.options:
            if player not in self.players:
                raise BattlelogError(f"options are given for player {player!r}, who is not playing")
        # each player becomes its configuration's canonical spec (problog[engine=native] is problog)
        specs = [player_spec(player, **self.options.get(player, {})) for player in self.players]
        labels = [spec.label for spec in specs]
        repeated = sorted({p for p in labels if labels.count(p) > 1})
        if repeated:
            raise BattlelogError(f"player {repeated[0]!r} is named twice")
        object.__setattr__(self, "players", tuple(labels))
        object.__setattr__(self, "options", {spec.label: dict(spec.options) for spec in specs})
        # a prior too strong for the board, or with no engine to draw with: one line now
        if isinstance(self.hider, Prior) and not self.hider.is_uniform:
            check_prior_support(engine_class(DEFAULT_ENGINE), self.config.with_prior(self.hider))
        for spec in specs:
            # a player that cannot play this board, or refuses its options, is a one-line error now, not a failure per game
            check_player(spec.name, self.config, {**spec.options, **_told(spec.options, self.hider)})
            make_player(spec.label).close()
        if self.games < 1:
            raise BattlelogError(f"the number of games must be at least 1, got {self.games}")
        if self.seed < 0:
            raise BattlelogError(f"the seed must be a non-negative whole number, got {self.seed}")

    def options_for(self, player: str) -> dict[str, Any]:
        return dict(self.options.get(player, {}))

    def manifest(self) -> dict[str, Any]:
        """What experiment.json stores: everything that decides the boards."""
        return manifest_of(self.config, self.seed, self.hider)


def _told(options: Mapping[str, Any], hider: Hider) -> dict[str, Any]:
    """``belief=hider`` as the prior it names in this experiment (what a player's check must see); refused in
    one line when the hider is a distribution over layouts, which no player's belief can be."""
    if options.get(BELIEF) != HIDER:
        return {}
    if isinstance(hider, LayoutHider):
        raise BattlelogError(
            f"belief=hider: the hider {hider.name} is a distribution over layouts, not a prior a player computes with"
        )
    return {BELIEF: spec_text(hider)}


@dataclass(frozen=True)
class RunReport:
    """What one run did: games found already recorded, games played now, and how many of those failed."""

    recorded_before: int
    played: int
    failed: int


def _check_options(records: list[dict[str, Any]], experiment: Experiment) -> None:
    """A player's recorded games must have been played with the options asked for now (records of
    older versions may spell a default out: ``problog`` with engine native). Options are JSON values
    already: a spec gives each the type of its parameter (whole, finite, text or true/false)."""
    for record in records:
        player = record["player"]
        if player in experiment.players:
            recorded = player_spec(spec_name(player), **record.get("options", {})).options
            if recorded != experiment.options_for(player):
                raise BattlelogError(
                    f"player {player}'s recorded games used options {record.get('options', {})}, "
                    f"not {experiment.options_for(player)}: use another output directory"
                )


def _tasks(experiment: Experiment, done: set[tuple[str, int]], budget: int | None) -> Iterator[GameTask]:
    """The games still to play, game by game (so a partial run has paired results); one layout per game,
    drawn :data:`DRAWN_TOGETHER` games at a time (the same layouts: one walk through a hider's model for each block)."""
    for start in range(0, experiment.games, DRAWN_TOGETHER):
        games = [
            g
            for g in range(start, min(start + DRAWN_TOGETHER, experiment.games))
            if any((p, g) not in done for p in experiment.players)
        ]
        for game, layout in zip(games, layouts_for(experiment.config, experiment.seed, games, experiment.hider)):
            for player in [p for p in experiment.players if (p, game) not in done]:
                yield GameTask(player, experiment.options_for(player), experiment.config, experiment.seed, game, layout, budget,
                               experiment.hider)  # fmt: skip


def _play(
    journal: Journal,
    tasks: Iterable[GameTask],
    total: int,
    executor: Executor,
    progress: bool,
    replaces: Mapping[tuple[str, int], Mapping[str, Any]] | None = None,
) -> tuple[int, int]:
    """Run ``tasks`` on ``executor``, journalling each game as it ends, under a progress bar: (played, failed)."""
    from tqdm import tqdm

    played = failed = 0
    with (
        interrupts_remembered() as ask_again,
        tqdm(total=total, desc="games", unit="game", file=sys.stderr, disable=None if progress else True) as bar,
    ):
        for outcome in executor.run(tasks):
            key = (outcome.task.player, outcome.task.game)
            journal.append(game_record(outcome, (replaces or {}).get(key)))
            ask_again()  # a Ctrl-C that a destructor swallowed (interrupts.py) stops the run here, the game kept
            played += 1
            failed += outcome.result.status != OK
            bar.update()
            if failed:
                bar.set_postfix(failed=failed, refresh=False)
    return played, failed


def run_experiment(
    experiment: Experiment, out: Path, executor: Executor, progress: bool = True, started: Callable[[], None] | None = None
) -> RunReport:
    """Play every (player, game) pair not yet recorded in ``out`` on ``executor``, appending each game as it ends.

    ``started`` is called once ``out`` is locked for this run and its records are read: a command's first
    line printed there is never printed by a run that another one, holding ``out``, refuses.
    On Ctrl-C the games in progress are abandoned, every finished game stays recorded, and
    KeyboardInterrupt propagates; running the same experiment again resumes.
    """
    with open_journal(out, experiment.manifest()) as journal:
        records = journal.records
        _check_options(records, experiment)
        if started is not None:
            started()
        done = {(r["player"], r["game"]) for r in records}
        # Counted, not listed: the pairs asked for may be far more than memory holds (the tasks are streamed).
        players = set(experiment.players)
        recorded = sum(1 for player, game in done if player in players and game < experiment.games)
        todo = len(players) * experiment.games - recorded
        played, failed = _play(journal, _tasks(experiment, done, executor.limits.engine_budget), todo, executor, progress)
        return RunReport(recorded, played, failed)


def retry_failed(out: Path, executor: Executor, progress: bool = True) -> RunReport:
    """Replay every failed game recorded in ``out`` (same board, player and options) on ``executor``.

    Each replay replaces its failure in the journal, also when it fails again (with the new reason);
    no game is lost or recorded twice, and an interrupted retry can simply be run again.
    """
    manifest = read_manifest(out)
    config, hider = manifest_config(manifest), manifest_hider(manifest)
    with open_journal(out, manifest) as journal:
        failed = [r for r in journal.records if r["status"] != OK]
        for player, options in {r["player"]: r.get("options", {}) for r in failed}.items():
            check_player(player, config, options)  # a player whose module is gone: one line before anything runs
        budget = executor.limits.engine_budget
        tasks = (
            GameTask(r["player"], r.get("options", {}), config, manifest["seed"], r["game"],
                     layout_for(config, manifest["seed"], r["game"], hider), budget, hider)
            for r in failed
        )  # fmt: skip
        replaces = {(r["player"], r["game"]): r for r in failed}
        played, still_failed = _play(journal, tasks, len(failed), executor, progress, replaces)
        return RunReport(len(journal.records) - played, played, still_failed)


__all__ = ["Experiment", "RunReport", "retry_failed", "run_experiment"]
