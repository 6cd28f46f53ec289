"""The counts of a problem with few layouts, by listing them: the native engine's fast path on late states.

A late state has a handful of consistent layouts (tens to hundreds), yet a sweep still visits every
cell of the board, paying a fixed cost per level (about 20 us in Python and numba's dispatch: 2 ms on
10x10). Listing the layouts directly costs a few numpy operations per ship instead.

The listing places one ship after another, fewest placements first, as rows of bit masks: a partial
layout is the cells its ships cover and the cells they block (covered, plus the neighbours the touch
rule forbids to other ships: none under ``allowed``, the side neighbours under ``diagonal``, all eight
under ``none``; contact is symmetric, so testing each new placement against what the earlier ones
block is enough). A placement joins a partial layout when it covers no blocked cell; at the end the
layouts that leave a required cell uncovered are dropped. Ships are told apart, so every layout is
listed once per naming, as the counts are. Under a prior each listed layout is weighed by its own
features (:func:`few_weighted`).

The bound is the work itself: before each ship, the number of (partial layout, placement) pairs to
test is known, and past :data:`PAIR_LIMIT` the listing gives up (returns None) so that the engine
sweeps instead; giving up costs at most that much work, a fraction of the sweep it falls back to.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from battlelog.bits import halos, pack_rows, words_for
from battlelog.engines.native.counts import Counts
from battlelog.engines.native.weights import Weighted
from battlelog.model.ground import Problem
from battlelog.rules.geometry import Placement, placement_matrix
from battlelog.rules.prior import Prior

#: Most (partial layout, placement) pairs tested for one ship before giving up to the sweep.
PAIR_LIMIT = 1 << 15
#: More than a listing ever needs: a few arrays of one row per pair (masks of up to four 64-bit words,
#: up to ten ships' choices); an engine given less than this sweeps.
LISTING_BYTES = 16 * 2**20


def few_counts(problem: Problem) -> Counts | None:
    """The problem's exact counts by listing its layouts, or None when they are too many to list cheaply."""
    listed = few_layouts(problem)
    return None if listed is None else listed_counts(problem.rows, problem.cols, problem.ships, *listed)


def few_layouts(problem: Problem) -> tuple[list[int], np.ndarray, np.ndarray] | None:
    """The problem's layouts listed (or None when they are too many to list cheaply): the order the ships
    were placed in, and per layout its covered cells (packed) and the canonical placement index of each
    ship in that order."""
    rows, n = problem.rows, problem.cols
    words = words_for(rows * n)
    order = sorted(range(len(problem.ships)), key=lambda ship: len(problem.domains[ship]))
    covered = np.zeros((1, words), dtype=np.uint64)
    blocked = np.zeros((1, words), dtype=np.uint64)
    chosen = np.zeros((1, 0), dtype=np.int64)
    for ship in order:
        length = problem.ships[ship]
        index = np.array([_canonical_index(p, rows, n) for p in problem.domains[ship]], dtype=np.int64)
        if len(covered) * len(index) > PAIR_LIMIT:
            return None
        cells, halo = _masks(rows, n, length, problem.touch)
        cells, halo = cells[index], halo[index]
        fits = ~(blocked[:, None, :] & cells[None, :, :]).any(axis=2)
        partial, placement = np.nonzero(fits)
        covered = covered[partial] | cells[placement]
        blocked = blocked[partial] | halo[placement]
        chosen = np.concatenate([chosen[partial], index[placement, None]], axis=1)
    if problem.required:
        bits = np.zeros((1, rows * n), dtype=np.uint8)
        bits[0, [r * n + c for r, c in problem.required]] = 1
        required = pack_rows(bits)[0]
        keep = ((covered & required) == required).all(axis=1)
        covered, chosen = covered[keep], chosen[keep]
    return order, covered, chosen


def few_weighted(problem: Problem, prior: Prior) -> Weighted | None:
    """The problem's weighted posterior under ``prior`` by listing its layouts (each weighed literally by
    its features), or None when they are too many to list cheaply."""
    listed = few_layouts(problem)
    return None if listed is None else listed_weighted(problem.rows, problem.cols, problem.ships, *listed, prior)


def listed_weighted(
    rows: int, n: int, ships: tuple[int, ...], order: list[int], covered: np.ndarray, chosen: np.ndarray, prior: Prior
) -> Weighted:
    """The weighted posterior under ``prior`` of listed layouts (as :func:`few_layouts` gives them) of a
    ``rows`` x ``n`` board and fleet ``ships``: each layout weighed literally by its features."""
    bits = np.unpackbits(covered.view(np.uint8), axis=1, bitorder="little")[:, : rows * n].astype(np.float64)
    features = listed_features(rows, n, ships, order, bits, chosen)
    if not len(chosen):
        placements = tuple(np.zeros(len(placement_matrix(rows, n, length))) for length in ships)
        return Weighted(0, -math.inf, np.zeros((rows, n)), placements, np.zeros(3))
    log_weight = features @ np.array(prior.theta)
    top = float(log_weight.max())
    weight = np.exp(log_weight - top)
    total = float(weight.sum())
    share = weight / total
    out: list[np.ndarray] = [np.empty(0)] * len(ships)
    for column, ship in enumerate(order):
        out[ship] = np.bincount(chosen[:, column], weights=share, minlength=len(placement_matrix(rows, n, ships[ship])))
    return Weighted(len(chosen), top + math.log(total), (share @ bits).reshape(rows, n), tuple(out), share @ features)


def listed_features(
    rows: int, n: int, ships: tuple[int, ...], order: list[int], bits: np.ndarray, chosen: np.ndarray
) -> np.ndarray:
    """Per listed layout (its cells ``bits`` unpacked, its placements ``chosen`` in ``order``), the prior's three features,
    literally: ship cells on the outer ring, vertical ships of length 2 or more, side pairs covered by two ships."""
    ring = np.zeros((rows, n))
    ring[0, :] = ring[-1, :] = ring[:, 0] = ring[:, -1] = 1
    owner = np.full((len(chosen), rows * n), -1, dtype=np.int64)
    vertical = np.zeros(len(chosen))
    for column, ship in enumerate(order):
        length = ships[ship]
        owner[placement_matrix(rows, n, length)[chosen[:, column]].astype(bool)] = column
        vertical += (length >= 2) & (chosen[:, column] >= rows * max(0, n - length + 1))  # vertical ones come last
    grid = owner.reshape(-1, rows, n)
    across = (grid[:, :, :-1] >= 0) & (grid[:, :, 1:] >= 0) & (grid[:, :, :-1] != grid[:, :, 1:])
    down = (grid[:, :-1, :] >= 0) & (grid[:, 1:, :] >= 0) & (grid[:, :-1, :] != grid[:, 1:, :])
    return np.stack([bits @ ring.ravel(), vertical, (across.sum(axis=(1, 2)) + down.sum(axis=(1, 2))).astype(float)], axis=1)


def listed_counts(rows: int, n: int, ships: tuple[int, ...], order: list[int], covered: np.ndarray, chosen: np.ndarray) -> Counts:
    """Counts of listed layouts (as :func:`few_layouts` gives them) of a ``rows`` x ``n`` board and fleet
    ``ships``: how many, per cell covered, per ship and canonical placement."""
    bits = np.unpackbits(covered.view(np.uint8), axis=1, bitorder="little")[:, : rows * n]
    cells = bits.sum(axis=0, dtype=np.int64).reshape(rows, n)
    placements: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * len(ships)
    for column, ship in enumerate(order):
        total = len(placement_matrix(rows, n, ships[ship]))
        placements[ship] = np.bincount(chosen[:, column], minlength=total).astype(np.int64)
    return Counts(len(chosen), cells, tuple(placements))


def _canonical_index(p: Placement, rows: int, n: int) -> int:
    """The index of ``p`` in ``ship_placements`` order on a ``rows`` x ``n`` board: horizontal ones first
    (none when the ship is longer than a row), row-major within each."""
    across = max(0, n - p.length + 1)
    return p.row * across + p.col if p.horizontal else rows * across + p.row * n + p.col


def cell_masks(rows: int, n: int, length: int) -> np.ndarray:
    """Per canonical placement of a ship of ``length`` on a ``rows`` x ``n`` board, the cells it covers, packed."""
    return _masks(rows, n, length, "allowed")[0]


@lru_cache(maxsize=256)
def _masks(rows: int, n: int, length: int, touch: str) -> tuple[np.ndarray, np.ndarray]:
    """Per canonical placement of a ship of ``length`` on a ``rows`` x ``n`` board: the cells it covers
    and the cells it blocks for other ships under ``touch``, packed."""
    cells = placement_matrix(rows, n, length).astype(bool)
    board = cells.reshape(-1, rows, n)
    packed = pack_rows(cells), pack_rows(halos(board, touch).reshape(len(cells), rows * n))
    for array in packed:
        array.setflags(write=False)
    return packed
