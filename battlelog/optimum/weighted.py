"""The exact optimum when the layouts are not equally likely: branch and bound over belief states, weighed.

The uniform search (:mod:`battlelog.optimum.search`) sums shots over the layouts of a belief state; here
each layout l carries a positive integer weight w_l and the search sums w_l x shots, so that

    T(C, H) = 0                                   when every ship cell is hit,
    T(C, H) = W(C) + min_x  sum_a T(C_a, H_a)     otherwise, W(C) the weight of C,

and the expected number of shots is T / W(all layouts), an exact fraction: weights are integers and
totals int64 (a total that could pass 2**62 is refused before the search). The same belief states, key and
answers as the uniform search (the key, the hits and each ship's placements still possible, determines C
among any fixed set of layouts, so a table per weighting is sound; but a ship that is over stays in the key,
see :func:`weighed_key`), the same window and star1 cut; the
lower bound is the weighed form of the uniform one: every layout of C still needs its remaining hits, and
while every shot so far has missed, after k misses at most the k largest covered weights are ruled out.
Symmetries are used only where they keep every weight (the subgroup of the board's symmetries and
relabellings that maps each layout to one of equal weight), so a prior that favours edges keeps all 8 and
one that favours a corner keeps the two reflections through it.

:class:`battlelog.optimum.prior_solver.WeightedSolver` runs it; :mod:`battlelog.optimum.policy` reads the
optimal policy back from its table as a complete policy tree.
"""

from __future__ import annotations

import numpy as np

from battlelog.bits import SINKS_NAMED, SINKS_SILENT
from battlelog.engines.compiled import njit
from battlelog.optimum import search
from battlelog.rules.answers import HIT_CODE, MISS_CODE, SUNK_CODE

#: Totals are int64: a weighting whose largest possible total passes this is refused.
TOTAL_LIMIT = 1 << 62


@njit(cache=True)
def _add_cells(cells, counts, weight):
    """Add ``weight`` to ``counts[x]`` for every bit x set in ``cells``."""
    while cells:
        low = cells & (~cells + np.uint64(1))
        counts[search.popcount(low - np.uint64(1))] += weight
        cells ^= low


@njit(cache=True)
def _weighed_cover(layouts, hits, union, weights, n_cells):
    """The weight of the layouts of ``layouts`` that cover each cell not yet hit."""
    cover = np.zeros(n_cells, dtype=np.int64)
    for lay in layouts:
        _add_cells(union[lay] & ~hits, cover, weights[lay])
    return cover


@njit(cache=True)
def _weighed_lower(weight, remaining, cover):
    """A lower bound on T of a state of total ``weight`` with ``remaining`` unhit ship cells (see the module)."""
    if remaining == 0:
        return 0
    return weight * remaining + search._hunt_misses(cover, weight)


@njit(cache=True)
def weighed_key(layouts, hits, placement, cell_perm, ship_perm, plc_perm, offsets, words):
    """The smallest packed key of (C, H) over the symmetry group, the element reaching it, and the state's
    stabiliser: ``search.canonical_key`` without leaving out the ships that are over. Under weights where a
    sunk ship lay changes the weights of the layouts left (a weight need not be a product over ships), so two
    states that differ only there need not have the same value."""
    groups, ships = ship_perm.shape
    most = plc_perm.shape[2]
    present = np.zeros((ships, most), dtype=np.bool_)
    for lay in layouts:
        for i in range(ships):
            present[i, placement[lay, i]] = True
    packed = np.zeros((groups, words), dtype=np.uint64)
    n_cells = cell_perm.shape[1]
    for g in range(groups):
        for x in range(n_cells):
            if (hits >> np.uint64(x)) & np.uint64(1):
                b = cell_perm[g, x]
                packed[g, b >> 6] |= np.uint64(1) << np.uint64(b & 63)
        for i in range(ships):
            base = offsets[ship_perm[g, i]]
            for k in range(most):
                if present[i, k]:
                    b = base + plc_perm[g, i, k]
                    packed[g, b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    best = 0
    for g in range(1, groups):
        for w in range(words):
            if packed[g, w] != packed[best, w]:
                if packed[g, w] < packed[best, w]:
                    best = g
                break
    stabiliser = np.zeros(groups, dtype=np.bool_)
    for g in range(groups):
        same = True
        for w in range(words):
            if packed[g, w] != packed[0, w]:
                same = False
                break
        stabiliser[g] = same
    return packed[best].copy(), best, stabiliser


@njit(cache=True, nogil=True)
def _wsearch(
    layouts, hits, beta, weights, ship_masks, owner, placement, union, cell_perm, ship_perm, plc_perm,
    offsets, words, fleet_cells, table, stats, sinks,
):  # fmt: skip
    """T(layouts, hits) if it is below ``beta``, else a lower bound of at least ``beta``."""
    n = layouts.shape[0]
    remaining = fleet_cells - search.popcount(hits)
    if remaining == 0:
        return 0
    weight = 0
    for lay in layouts:
        weight += weights[lay]
    if n == 1:
        return weight * remaining
    stats[search.NODES] += 1
    start = stats[search.NODES]
    key, g, stabiliser = weighed_key(layouts, hits, placement, cell_perm, ship_perm, plc_perm, offsets, words)
    keys, values, flags = table[0], table[1], table[2]
    slot = search.find_slot(keys, flags, key)
    known = 0
    if slot >= 0:
        if flags[slot] == search.EXACT:
            return values[slot]
        known = values[slot]
    if stats[search.STOP]:
        return search.STOPPED
    n_cells = owner.shape[1]
    ships = ship_masks.shape[1]
    counts = search._cover(layouts, hits, union, n_cells)
    forced = search._forced_cell(layouts, hits, counts, ship_masks, owner, sinks)
    if forced >= 0:  # a shot every layout answers alike tells nothing: take it now (search._forced_cell)
        value = _wsearch(
            layouts, hits | (np.uint64(1) << np.uint64(forced)), beta - weight, weights, ship_masks, owner, placement,
            union, cell_perm, ship_perm, plc_perm, offsets, words, fleet_cells, table, stats, sinks,
        )  # fmt: skip
        if value == search.STOPPED:
            return search.STOPPED
        value += weight
        exact = value < beta
        flag = search.EXACT if exact else search.LOWER
        search.store(table, stats, key, value, flag, cell_perm[g, forced] if exact else -1, stats[search.NODES] - start + 1)
        return value
    cover = _weighed_cover(layouts, hits, union, weights, n_cells)
    lower = max(known, _weighed_lower(weight, remaining, cover))
    if lower >= beta:
        search.store(table, stats, key, lower, search.LOWER, -1, 1)
        return lower

    cells = search.orbit_cells(counts, stabiliser, cell_perm)
    count = cells.shape[0]

    kinds = ships + 2
    answer = np.empty((count, n), dtype=np.int8)
    sizes = np.zeros((count, kinds), dtype=np.int64)
    child_weight = np.zeros((count, kinds), dtype=np.int64)
    child_lower = np.zeros((count, kinds), dtype=np.int64)
    action_lower = np.zeros(count, dtype=np.int64)
    child_cover = np.zeros((kinds, n_cells), dtype=np.int64)
    for a in range(count):
        x = cells[a]
        bit = np.uint64(1) << np.uint64(x)
        child_cover[:, :] = 0
        for j in range(n):
            lay = layouts[j]
            ship = owner[lay, x]
            if ship < 0:
                kind = MISS_CODE
                after = hits
            else:
                after = hits | bit
                kind = HIT_CODE
                if (ship_masks[lay, ship] & ~after) == 0 and sinks != SINKS_SILENT:
                    kind = SUNK_CODE + (ship if sinks == SINKS_NAMED else 0)
            answer[a, j] = kind
            sizes[a, kind] += 1
            child_weight[a, kind] += weights[lay]
            _add_cells(union[lay] & ~after, child_cover[kind], weights[lay])
        total = weight
        for kind in range(kinds):
            if sizes[a, kind]:
                left = remaining if kind == MISS_CODE else remaining - 1
                child_lower[a, kind] = _weighed_lower(child_weight[a, kind], left, child_cover[kind])
                total += child_lower[a, kind]
        action_lower[a] = total

    order = np.argsort(action_lower, kind="mergesort")
    best = beta
    best_cell = -1
    floor = search.INFINITE
    for a in order:
        if action_lower[a] >= best:
            floor = min(floor, action_lower[a])
            break
        x = cells[a]
        bit = np.uint64(1) << np.uint64(x)
        running = action_lower[a]
        complete = True
        for kind in np.argsort(-child_weight[a], kind="mergesort"):
            size = sizes[a, kind]
            if size == 0:
                continue
            child = search._child(layouts, answer[a], kind, size)
            after = hits if kind == MISS_CODE else hits | bit
            running -= child_lower[a, kind]
            value = _wsearch(
                child, after, best - running, weights, ship_masks, owner, placement, union, cell_perm, ship_perm,
                plc_perm, offsets, words, fleet_cells, table, stats, sinks,
            )  # fmt: skip
            if value == search.STOPPED:
                return search.STOPPED
            running += value
            if running >= best:
                complete = False
                break
        if complete:
            best = running
            best_cell = x
        else:
            floor = min(floor, running)
    if best_cell >= 0:
        search.store(table, stats, key, best, search.EXACT, cell_perm[g, best_cell], stats[search.NODES] - start + 1)
        return best
    floor = max(floor, lower)
    search.store(table, stats, key, floor, search.LOWER, -1, stats[search.NODES] - start + 1)
    return floor


@njit(cache=True, nogil=True)
def wsearch(
    layouts, hits, beta, weights, ship_masks, owner, placement, union, cell_perm, ship_perm, plc_perm,
    offsets, words, fleet_cells, table, stats, sinks,
):  # fmt: skip
    """:func:`_wsearch`, entered with one signature (numba caches a recursive function whose outer call's
    types differ from its recursive calls' badly: see the end of :mod:`battlelog.optimum.search`)."""
    return _wsearch(
        layouts.astype(np.int32), np.uint64(hits), np.int64(beta), weights.astype(np.int64), ship_masks, owner, placement,
        union, cell_perm, ship_perm, plc_perm, offsets, words, np.int64(fleet_cells), table, stats, np.int64(sinks),
    )  # fmt: skip


__all__ = ["TOTAL_LIMIT", "weighed_key", "wsearch"]
