"""What the rollout kernel reads, built from the rules: placement tables per ship length, a game state as
the base policy's knowledge, and layouts as truths (the kernel: :mod:`battlelog.players.rollout_kernel`).

Kept apart from the kernel so that building them needs no numba, and from the player so that tests
and the benchmark build the same arrays the player does.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from battlelog.bits import words_for
from battlelog.engines.native.few import few_layouts
from battlelog.errors import Inconsistent
from battlelog.model.ground import ground_problem
from battlelog.optimum.layouts import SINK_MODES
from battlelog.players.knowledge import afloat_lengths, sunk_cells
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, Placement, ship_placements
from battlelog.rules.state import GameState
from battlelog.rules.variants import ALLOWED, Rules

#: How much more a placement counts for each unresolved hit it passes through (pdf's TARGET_WEIGHT),
#: by the number of such hits (a ship passes through at most 26); the sums are pdf's, in float64.
POWERS = np.array([100.0**k for k in range(27)], dtype=np.float64)

def words_of(config: GameConfig) -> int:
    """64-bit words of a mask of the board's cells."""
    return words_for(config.cell_count)


def mask_of(cells: frozenset[Cell] | set[Cell], config: GameConfig) -> np.ndarray:
    """``cells`` as a mask of the board's words."""
    out = np.zeros(words_of(config), dtype=np.uint64)
    for r, c in cells:
        x = r * config.cols + c
        out[x >> 6] |= np.uint64(1) << np.uint64(x & 63)
    return out


@lru_cache(maxsize=32)
def _tables(rows: int, cols: int, ships: tuple[int, ...], touch: str, sinks: str) -> tuple[Any, ...]:
    lengths = sorted(set(ships))
    placements = [ship_placements(rows, cols, 0, length) for length in lengths]
    most = max(len(p) for p in placements)
    words = words_for(rows * cols)
    masks = np.zeros((len(lengths), most, words), dtype=np.uint64)
    halos = np.zeros((len(lengths), most, words), dtype=np.uint64)
    cells = np.full((len(lengths), most, max(lengths)), -1, dtype=np.int64)
    over: list[list[int]] = [[] for _ in range(rows * cols)]
    near: list[list[int]] = [[] for _ in range(rows * cols)]
    rules = Rules(touch=touch)
    for j, options in enumerate(placements):
        for p, placement in enumerate(options):
            for k, (r, c) in enumerate(placement.cells):
                x = r * cols + c
                cells[j, p, k] = x
                masks[j, p, x >> 6] |= np.uint64(1) << np.uint64(x & 63)
                over[x].append(j * most + p)
            for r, c in rules.keep_out(placement, rows, cols) - set(placement.cells):
                x = r * cols + c
                halos[j, p, x >> 6] |= np.uint64(1) << np.uint64(x & 63)
                near[x].append(j * most + p)
    counts = np.array([len(p) for p in placements], dtype=np.int64)
    fleet_index = np.array([lengths.index(length) for length in ships], dtype=np.int64)
    exact = exact_sums([(len(p), ships.count(length), length) for p, length in zip(placements, lengths)])
    return (masks, cells, counts, halos, np.array(lengths, dtype=np.int64), fleet_index, touch != ALLOWED,
            SINK_MODES[sinks], rows * cols, POWERS, exact, _padded(over), _padded(near), cells.reshape(len(lengths) * most, -1),
            masks.reshape(len(lengths) * most, words), np.repeat(np.arange(len(lengths), dtype=np.int64), most))  # fmt: skip


def exact_sums(kinds: list[tuple[int, int, int]]) -> bool:
    """Whether the base policy's scores are exact in float64 whatever the order of their terms: true when
    the powers are exact and the sum of every (placements, ships, length) kind's placements at their
    heaviest (all its ships afloat, every cell an open hit) stays below 2^53, so that every weight and
    every partial sum of weights is an integer float64 represents exactly."""
    longest = max(length for _, _, length in kinds)
    if longest >= len(POWERS) or any(POWERS[k] != 100**k for k in range(longest + 1)):
        return False
    return sum(count * ships * 100**length for count, ships, length in kinds) < 2**53


def _padded(lists: list[list[int]]) -> np.ndarray:
    """Lists of whole numbers as the rows of one array, -1 after each list's end."""
    out = np.full((len(lists), max(1, *(len(row) for row in lists))), -1, dtype=np.int64)
    for i, row in enumerate(lists):
        out[i, : len(row)] = row
    return out


def tables(config: GameConfig) -> tuple[Any, ...]:
    """The kernel's tables of ``config``: per distinct ship length (ascending) every placement's mask,
    cells and halo (the cells the touch rule keeps other ships off, beyond its own), the rules, whether
    the density's sums are exact (:func:`exact_sums`: it is then kept up to date, not recounted), per cell
    the placements over it and those whose halo holds it, and by placement number (``length * most +
    placement``) its cells, its mask and its length (no division in the kernel's inner loops)."""
    return _tables(config.rows, config.cols, config.ships, config.rules.touch, config.rules.sinks)


def start_of(state: GameState) -> tuple[np.ndarray, ...]:
    """The base policy's knowledge of ``state``: blocked (misses and cells certainly of sunk ships),
    hits, open hits (the other hits), shot cells, and the ships afloat per distinct length."""
    config = state.config
    resolved = sunk_cells(state)
    lengths = sorted(set(config.ships))
    afloat = np.zeros(len(lengths), dtype=np.int64)
    for length in afloat_lengths(state):
        afloat[lengths.index(length)] += 1
    return (mask_of(state.misses | resolved, config), mask_of(state.hits, config), mask_of(state.hits - resolved, config),
            mask_of(state.shot_cells, config), afloat)  # fmt: skip


def truths(state: GameState, owners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Layouts given as ``owner[s, x]`` (the ship on cell x, or -1: :func:`battlelog.engines.base.layout_owners`)
    as the kernel's truths: ``owners`` and ``left[s, i]``, ship i's cells not hit in ``state``."""
    unhit = np.ones(state.config.cell_count, dtype=np.bool_)
    unhit[[r * state.cols + c for r, c in state.hits]] = False
    left = np.zeros((len(owners), len(state.ships)), dtype=np.int64)
    for ship in range(len(state.ships)):
        left[:, ship] = ((owners == ship) & unhit).sum(axis=1)
    return owners, left


def listed_layouts(state: GameState) -> list[tuple[Placement, ...]] | None:
    """Every layout consistent with ``state`` (uniform prior), or None when there are too many to list
    cheaply (:func:`battlelog.engines.native.few.few_layouts`)."""
    try:
        problem = ground_problem(state)
    except Inconsistent:
        return []
    listed = few_layouts(problem)
    if listed is None:
        return None
    order, _, chosen = listed
    rows, cols = state.rows, state.cols
    options = [ship_placements(rows, cols, ship, length) for ship, length in enumerate(state.ships)]
    out = []
    for row in chosen:
        layout: list[Placement] = [options[0][0]] * len(order)
        for column, ship in enumerate(order):
            layout[ship] = options[ship][int(row[column])]
        out.append(tuple(layout))
    return out
