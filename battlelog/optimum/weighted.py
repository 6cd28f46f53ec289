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

:class:`WeightedSolver` runs it and reads the optimal policy back from its table as a complete policy
tree (:mod:`battlelog.optimum.policy`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from battlelog.engines.compiled import njit
from battlelog.errors import BattlelogError
from battlelog.optimum import DEFAULT_MEMORY, search
from battlelog.optimum.group import Symmetries
from battlelog.optimum.layouts import SINK_MODES, SINKS_NAMED, SINKS_SILENT, LayoutTable
from battlelog.optimum.table import FIRST_CAPACITY, StateTable
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

    cells = np.empty(n_cells, dtype=np.int64)
    count = 0
    for x in range(n_cells):
        if counts[x] == 0:
            continue
        representative = True
        for h in range(stabiliser.shape[0]):
            if stabiliser[h] and cell_perm[h, x] < x:
                representative = False
                break
        if representative:
            cells[count] = x
            count += 1
    cells = cells[:count]

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


# ----- symmetries that keep the weights ------------------------------------------------------------------
def layout_images(layouts: LayoutTable, symmetries: Symmetries) -> np.ndarray:
    """``images[g, lay]``: the index of the image of layout l under element g, or -1 when the table lacks it
    (every element maps the legal layouts onto themselves, docs/optimum.md, but a table may hold some only)."""
    index = {tuple(int(k) for k in row): lay for lay, row in enumerate(layouts.placement)}
    ships = layouts.placement.shape[1]
    images = np.empty((len(symmetries), len(layouts)), dtype=np.int64)
    for g in range(len(symmetries)):
        for lay, row in enumerate(layouts.placement):
            moved = [0] * ships
            for i in range(ships):
                moved[int(symmetries.ships[g, i])] = int(symmetries.placements[g, i, int(row[i])])
            images[g, lay] = index.get(tuple(moved), -1)
    return images


def keeping(symmetries: Symmetries, images: np.ndarray, weights: np.ndarray) -> Symmetries:
    """The elements of ``symmetries`` that map every layout of the table to one of the table of the same weight
    (a subgroup; the identity, element 0, always)."""
    keep = [g for g in range(len(symmetries)) if (images[g] >= 0).all() and np.array_equal(weights[images[g]], weights)]
    return Symmetries(symmetries.cells[keep], symmetries.inverse_cells[keep], symmetries.ships[keep], symmetries.placements[keep])


# ----- the solver ------------------------------------------------------------------------------------------
class WeightedSolver:
    """The optimal policy of one instance under integer layout weights (none negative, not all 0). A layout of
    weight 0 never counts, but stays in the belief states, so the policy read back still answers it."""

    def __init__(
        self, layouts: LayoutTable, weights: np.ndarray, memory: int = DEFAULT_MEMORY, symmetries: Symmetries | None = None
    ) -> None:
        config = layouts.config
        weights = np.asarray(weights, dtype=np.int64)
        if weights.shape != (len(layouts),) or (weights < 0).any() or not weights.any():
            raise BattlelogError("every layout needs an integer weight, none negative and not all 0")
        if int(weights.sum()) * config.ship_cells * config.cell_count >= TOTAL_LIMIT:
            raise BattlelogError(
                f"{config.label()}: the weights are too fine for exact int64 totals (their sum {int(weights.sum()):,})"
            )
        self.layouts, self.weights, self.config = layouts, weights, config
        full = Symmetries.of(config) if symmetries is None else symmetries
        self.symmetries = keeping(full, layout_images(layouts, full), weights)
        counts = [len(config.placements(i)) for i in range(len(config.ships))]
        self._offsets = np.cumsum([config.cell_count, *counts[:-1]]).astype(np.int64)
        self._words = -(-(config.cell_count + sum(counts)) // 64)
        self.capacity = 1 << max(10, (memory // StateTable.entry_bytes(self._words)).bit_length() - 1)
        self.table = StateTable.empty(min(FIRST_CAPACITY, self.capacity), self._words)
        self.stats = np.zeros(search.STATS, dtype=np.int64)
        self._sinks = SINK_MODES[config.rules.sinks]

    def total(self, layouts: np.ndarray, hits: int) -> int:
        """T(layouts, hits): the weighed total of the shots still to fire, exact (the table grows as needed)."""
        t, s = self.layouts, self.symmetries
        while True:
            self.stats[search.STOP] = search.RUNNING
            self.stats[search.MAY_GROW] = len(self.table) < self.capacity
            value = int(
                wsearch(
                    layouts, hits, search.INFINITE, self.weights, t.ship_masks, t.owner, t.placement, t.union, s.cells, s.ships,
                    s.placements, self._offsets, self._words, self.config.ship_cells, self.table.arrays, self.stats, self._sinks,
                )
            )  # fmt: skip
            if value != search.STOPPED:
                return value
            self.table = self.table.grown(self.stats)

    def optimum(self) -> Fraction:
        """The smallest expected number of shots over all policies, from the empty board, under the weights."""
        return Fraction(self.total(np.arange(len(self.layouts), dtype=np.int32), 0), int(self.weights.sum()))

    def best_cell(self, layouts: np.ndarray, hits: int) -> int:
        """An optimal shot (a cell number) in the belief state (``layouts``, ``hits``), the game not over."""
        t, s = self.layouts, self.symmetries
        if len(layouts) == 1:  # the layout is known: its first unhit cell
            rest = int(t.union[layouts[0]]) & ~hits
            return (rest & -rest).bit_length() - 1
        for _ in range(2):
            key, g, _ = weighed_key(
                layouts.astype(np.int32), np.uint64(hits), t.placement, s.cells, s.ships, s.placements, self._offsets, self._words
            )
            slot = search.find_slot(self.table.keys, self.table.flags, key)
            if slot >= 0 and self.table.flags[slot] == search.EXACT:
                return int(s.inverse_cells[g, int(self.table.actions[slot])])
            self.total(layouts, hits)  # not in the table (evicted, or never reached from the root): search it
        raise BattlelogError("the solved policy lost a state; give the solver more memory")


__all__ = ["TOTAL_LIMIT", "WeightedSolver", "keeping", "layout_images", "wsearch"]
