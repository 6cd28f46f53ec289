"""Runs the weighted search (:mod:`battlelog.optimum.weighted`) on one instance and weighting, with the
symmetries that keep the weights, and answers the optimal shot of any belief state from its table."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from battlelog.errors import BattlelogError
from battlelog.optimum import DEFAULT_MEMORY, search
from battlelog.optimum.group import Symmetries
from battlelog.optimum.layouts import SINK_MODES, LayoutTable
from battlelog.optimum.table import KeyShape
from battlelog.optimum.weighted import TOTAL_LIMIT, weighed_key, wsearch


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
        shape = KeyShape.of(config, memory)
        self._offsets, self._words, self.capacity = shape.offsets, shape.words, shape.capacity
        self.table = shape.first_table()
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


__all__ = ["WeightedSolver", "keeping", "layout_images"]
