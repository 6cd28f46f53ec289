"""Random consistent states whose posterior the oracle (tests/oracle.py) knows: what the engine tests
compare every engine against, on squares and rectangles, under every rule and prior.

A layout is drawn uniformly from the oracle's list, shot at until the game is over (a random unshot
cell, half of the time next to a hit, so that sinks and adjacent ships happen), answered by
battlelog's referee (whose answers must be the oracle's), and cut at a random shot. On boards too large
to list, :func:`random_states` draws the layout with battlelog's uniform sampler and plays it out the
same way (the oracle then finds the states' layouts by backtracking: ``oracle.consistent_layouts``).
"""

from __future__ import annotations

import os

import numpy as np

from battlelog.players.base import Player
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState, Shot
from battlelog.runner.loop import play_game

import oracle

Cell = tuple[int, int]

#: Whether the slow engines meet every random state (``BATTLELOG_EVERY_STATE=1``) rather than every k-th:
#: the problog engine grounds and compiles a program per state, tens of times slower than the others.
EVERY_STATE = os.environ.get("BATTLELOG_EVERY_STATE") == "1"


def hunt_cell(rng: np.random.Generator, rows: int, cols: int, hits: list[Cell], shot: set[Cell]) -> Cell:
    """A random unshot cell, half of the time next to a hit."""
    if hits and rng.random() < 0.5:
        near = sorted({(r + dr, c + dc) for r, c in hits for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
                       if 0 <= r + dr < rows and 0 <= c + dc < cols and (r + dr, c + dc) not in shot})  # fmt: skip
        if near:
            return near[int(rng.integers(len(near)))]
    free = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in shot]
    return free[int(rng.integers(len(free)))]


def oracle_state(config: GameConfig, table: oracle.Layouts, rng: np.random.Generator) -> tuple[GameState, np.ndarray]:
    """One random consistent state of ``config`` (whose board, fleet and touch rule are ``table``'s) and
    the oracle's posterior: the indices of the layouts in ``table`` that fit it."""
    sinks = config.rules.sinks
    k = int(rng.integers(len(table)))
    referee = Referee(config, tuple(Placement(i, *spot) for i, spot in enumerate(table.spots[k])))
    cells: list[Cell] = []
    answers: list[tuple[str, int | None]] = []
    while not referee.over:
        cell = hunt_cell(rng, config.rows, config.cols, [c for c, a in zip(cells, answers) if a[0] != "miss"], set(cells))
        cells.append(cell)
        answers.append(referee.shoot(*cell))
    assert answers == oracle.play(table, k, cells, sinks)
    stop = int(rng.integers(0, len(cells) + 1))
    state = GameState(config, tuple(Shot(*cell, *answer) for cell, answer in zip(cells[:stop], answers[:stop])))
    assert state.over == (stop == len(cells))
    chosen = oracle.posterior(table, list(zip(cells[:stop], answers[:stop])), sinks)
    assert k in chosen
    return state, chosen


def oracle_game(config: GameConfig, table: oracle.Layouts, rng: np.random.Generator) -> list[GameState]:
    """Every state of one game, the empty board first, on a layout drawn uniformly from ``table``, shot at as
    :func:`hunt_cell` shoots (half the time next to a hit) and answered by battlelog's referee."""
    k = int(rng.integers(len(table)))
    referee = Referee(config, tuple(Placement(i, *spot) for i, spot in enumerate(table.spots[k])))
    states = [GameState.empty(config)]
    while not referee.over:
        hits = [s.cell for s in states[-1].shots if s.result != "miss"]
        cell = hunt_cell(rng, config.rows, config.cols, hits, set(states[-1].shot_cells))
        states.append(states[-1].with_shot(*cell, *referee.shoot(*cell)))
    return states


class _ScriptedRandom(Player):
    """A player that fires uniformly random shots; used only to produce true answers for test states."""

    name = "scripted"

    def choose(self, state: GameState):
        cells = state.unshot
        return cells[int(self.rng.integers(len(cells)))]


def random_states(config: GameConfig, count: int, seed: int) -> list[GameState]:
    """Consistent mid-game states: a uniform layout, then a random number of random shots answered truly.

    Shots prefer neighbours of hits half of the time, so sinks and adjacent-ship situations are common.
    """
    from battlelog.rules.layouts import sample_layout

    rng = np.random.default_rng(seed)
    out: list[GameState] = []
    while len(out) < count:
        layout = sample_layout(config, rng)
        full = play_game(config, layout, _HuntyRandom(rng)).state
        stop = int(rng.integers(0, len(full.shots)))  # strictly before the end: the game is still on
        out.append(full.prefix(stop))
    return out


class _HuntyRandom(_ScriptedRandom):
    """Random shots, but half of the time next to an earlier hit: reaches sinks and adjacent ships."""

    def choose(self, state: GameState):
        if state.hits and self.rng.random() < 0.5:
            near = [
                (r + dr, c + dc)
                for r, c in sorted(state.hits)
                for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
                if 0 <= r + dr < state.rows and 0 <= c + dc < state.cols and (r + dr, c + dc) not in state.shot_cells
            ]
            if near:
                return near[int(self.rng.integers(len(near)))]
        return super().choose(state)
