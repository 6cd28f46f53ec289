"""A late state's layouts listed in one compiled pass: grounding and listing without Python objects.

On a late state the engine's time went to Python, not counting: pruning each ship's placements by the
answers (:func:`battlelog.model.ground.ground`, sets and Placement objects) and listing the layouts
(:func:`battlelog.engines.native.few.few_layouts`, a few numpy calls per ship), about 0.3 ms of a
0.5 ms call on 10x10 (docs/speed.md). Here both run in numba over arrays made once per board: each
ship's placements as cell lists and packed masks, and the state as three arrays over the cells (the
misses, the time of each hit, the ship each sink named). The tests are ground's, placement by
placement (a placement covers no miss; under ``named`` or ``unnamed`` the sinks among its hits are
exactly its last hit when all its cells are hit, none otherwise, and under ``named`` it covers every
sink naming its ship), and the listing is few_layouts' (ships fewest placements first, each joining a
partial layout when it covers no cell the earlier ones block, the same order and the same give-up
bound, ``few.PAIR_LIMIT``, read at each call), so the result is the same listing, array for array (tests/test_native_late.py).

The engine uses it first on boards whose states all pass the sweep's key check unmerged, once the process
has loaded numba (:mod:`.jit`: a one-shot command on a small board never does, and lists in numpy); when it
gives up (too many layouts) or finds none, the engine grounds the state the slow way, which sweeps, or says
in one line why no layout fits. The loop itself is :mod:`.late_kernel`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from battlelog.bits import SINK_CODES
from battlelog.engines.native import few, jit
from battlelog.engines.native.few import LISTING_BYTES, _masks
from battlelog.engines.native.reuse import Listing, fits_unmerged
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import placement_matrix
from battlelog.rules.state import GameState


@lru_cache(maxsize=64)
def _board(config: GameConfig) -> tuple[np.ndarray, ...]:
    """Per ship, its canonical placements one after another (``start[i]`` to ``start[i + 1]``): each as its
    cell numbers (padded with -1), the cells it covers and the cells it blocks for other ships, packed."""
    rows, n = config.rows, config.cols
    cells, masks, halos, start = [], [], [], [0]
    longest = max(config.ships)
    for length in config.ships:
        matrix = placement_matrix(rows, n, length).astype(bool)
        listed = np.full((len(matrix), longest), -1, dtype=np.int64)
        for k, row in enumerate(matrix):
            on = np.flatnonzero(row)
            listed[k, : len(on)] = on
        mask, halo = _masks(rows, n, length, config.rules.touch)
        cells.append(listed)
        masks.append(mask)
        halos.append(halo)
        start.append(start[-1] + len(matrix))
    out = np.concatenate(cells), np.concatenate(masks), np.concatenate(halos), np.array(start, dtype=np.int64)
    for array in out:
        array.setflags(write=False)
    return out


def _evidence(state: GameState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The state over its cells: 1 on a miss; the shot number of each hit (-1 elsewhere); the ship a sink
    named, or 0 for an unnamed sink (-1 elsewhere)."""
    n = state.cols
    miss = np.zeros(state.rows * n, dtype=np.int8)
    hit_at = np.full(state.rows * n, -1, dtype=np.int64)
    sunk = np.full(state.rows * n, -1, dtype=np.int64)
    sinks = set(state.sunk_shots)
    for t, shot in enumerate(state.shots):
        x = shot.row * n + shot.col
        if not shot.is_hit:
            miss[x] = 1
            continue
        hit_at[x] = t
        if t in sinks:
            sunk[x] = shot.ship if shot.ship is not None else 0
    return miss, hit_at, sunk


def late_layouts(state: GameState, load: bool = True) -> tuple[list[int], np.ndarray, np.ndarray] | None:
    """What :func:`~battlelog.engines.native.few.few_layouts` gives for ``state``'s ground problem (the order
    the ships were placed in, each layout's covered cells packed, its placements), or None when the
    listing gives up or no layout fits (then the state must be grounded the slow way), or when the process
    runs interpreted and ``load`` is false (loading numba costs more than listing in numpy: :mod:`.jit`)."""
    lister = jit.late_lister(load)
    if lister is None:
        return None
    cells, masks, halos, start = _board(state.config)
    miss, hit_at, sunk = _evidence(state)
    order, covered, chosen = lister(
        cells, masks, halos, start, miss, hit_at, sunk, SINK_CODES[state.config.rules.sinks], few.PAIR_LIMIT
    )
    if len(order) == 0 or len(chosen) == 0:
        return None
    return [int(ship) for ship in order], covered, chosen


def late_listing(state: GameState, memory_budget: int) -> Listing | None:
    """``state``'s layouts listed by :func:`late_layouts`, for the engine: None where it cannot list them (too
    many, none, an engine given less than a listing may need) or where the sweep's key check must see the
    state's own ground problem (boards at the sweep's limit: :func:`~battlelog.engines.native.reuse.fits_unmerged`)."""
    if memory_budget < LISTING_BYTES or not fits_unmerged(state.config):
        return None
    listed = late_layouts(state, load=False)
    return None if listed is None else Listing(state, *listed)
