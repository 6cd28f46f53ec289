"""Brute-force reference: enumerate every layout and check the spec's evidence literally.

Deliberately independent of battlelog.model.ground (no pruning, no shared helpers beyond the board's
placements), so that engines are checked against the spec and not against themselves.
"""

from __future__ import annotations

from itertools import product

import numpy as np

from battlelog.players.base import Player
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement, ship_placements
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState
from battlelog.runner.loop import play_game


def all_layouts(config: GameConfig) -> list[tuple[Placement, ...]]:
    """Every valid layout (one placement per ship, no two ships sharing a cell)."""
    options = [ship_placements(config.rows, config.cols, i, length) for i, length in enumerate(config.ships)]
    out = []
    for combo in product(*options):
        cells = [c for p in combo for c in p.cells]
        if len(cells) == len(set(cells)):
            out.append(combo)
    return out


def consistent(layout: tuple[Placement, ...], state: GameState) -> bool:
    """Does the layout satisfy every piece of evidence of the spec for this state?"""
    covered = {c for p in layout for c in p.cells}
    hits_so_far: set = set()
    for shot in state.shots:
        if shot.result == "miss":
            if shot.cell in covered:
                return False
            continue
        if shot.cell not in covered:
            return False
        hits_so_far.add(shot.cell)
        if shot.result == "sunk":
            assert shot.ship is not None  # GameState checks that a sunk answer names its ship
            cells = set(layout[shot.ship].cells)
            if shot.cell not in cells or not cells <= hits_so_far:
                return False
    sunk = {s.ship for s in state.shots if s.result == "sunk"}
    for ship, p in enumerate(layout):
        if ship not in sunk and set(p.cells) <= hits_so_far:
            return False
    return True


def consistent_layouts(state: GameState) -> list[tuple[Placement, ...]]:
    """Every layout consistent with ``state``, by backtracking: feasible on any board late in a game.

    Each ship's candidates are filtered by the spec's per-ship evidence read literally (no miss
    covered; a sunk ship inside the hits up to its sinking shot and through that shot's cell; a ship
    afloat not inside all the hits); ships are tried fewest candidates first, a branch is abandoned
    when an uncovered hit can no longer be covered, and every complete layout is checked against the
    whole state with :func:`consistent`.
    """
    config, misses, hits = state.config, state.misses, state.hits
    sunk = {s.ship: (t, s.cell) for t, s in enumerate(state.shots) if s.result == "sunk"}
    options = []
    for ship, length in enumerate(config.ships):
        candidates = []
        for p in ship_placements(config.rows, config.cols, ship, length):
            cells = set(p.cells)
            if cells & misses:
                continue
            if ship in sunk:
                t, cell = sunk[ship]
                if cell not in cells or not cells <= {s.cell for s in state.shots[: t + 1] if s.result != "miss"}:
                    continue
            elif cells <= hits:
                continue
            candidates.append(p)
        options.append(candidates)
    order = sorted(range(len(options)), key=lambda i: len(options[i]))
    found: list[tuple[Placement, ...]] = []
    chosen: list[Placement | None] = [None] * len(options)

    def extend(k: int, covered: set) -> None:
        if k == len(order):
            layout = tuple(p for p in chosen if p is not None)
            if consistent(layout, state):
                found.append(layout)
            return
        rest = order[k:]
        for hit in hits - covered:
            if not any(hit in p.cells and covered.isdisjoint(p.cells) for i in rest for p in options[i]):
                return
        for p in options[order[k]]:
            if covered.isdisjoint(p.cells):
                chosen[order[k]] = p
                extend(k + 1, covered | set(p.cells))
        chosen[order[k]] = None

    extend(0, set())
    return found


def brute_marginals(state: GameState, layouts: list | None = None) -> tuple[np.ndarray, int]:
    """Occupancy marginals and the number of consistent layouts (raises if there are none)."""
    counts = np.zeros((state.rows, state.cols))
    models = 0
    for layout in layouts if layouts is not None else all_layouts(state.config):
        if consistent(layout, state):
            models += 1
            for p in layout:
                for r, c in p.cells:
                    counts[r, c] += 1
    if models == 0:
        raise ValueError("no consistent layout")
    return counts / models, models


def brute_placements(state: GameState, layouts: list) -> tuple[np.ndarray, ...]:
    """Per ship, the posterior probability of each of its canonical placements (config.placements order)."""
    config = state.config
    index = [{p: k for k, p in enumerate(config.placements(i))} for i in range(len(config.ships))]
    counts = [np.zeros(len(config.placements(i))) for i in range(len(config.ships))]
    models = 0
    for layout in layouts:
        if consistent(layout, state):
            models += 1
            for i, p in enumerate(layout):
                counts[i][index[i][p]] += 1
    if models == 0:
        raise ValueError("no consistent layout")
    return tuple(c / models for c in counts)


def brute_answers(state: GameState, layouts: list) -> np.ndarray:
    """``out[r, c, a]``: the share of consistent layouts in which a shot at (r, c) gets answer ``a``
    (0 miss, 1 hit, 2 + i sunk ship i), found by asking a referee of each layout."""
    ships = len(state.ships)
    out = np.zeros((state.rows, state.cols, 2 + ships))
    models = 0
    for layout in layouts:
        if not consistent(layout, state):
            continue
        models += 1
        for cell in state.unshot:
            referee = Referee(state.config, layout)
            for shot in state.shots:
                referee.shoot(*shot.cell)
            answer, ship = referee.shoot(*cell)
            if answer == "sunk":
                assert ship is not None  # a referee names the ship it sinks
                out[cell][2 + ship] += 1
            else:
                out[cell][0 if answer == "miss" else 1] += 1
    return out / models


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
