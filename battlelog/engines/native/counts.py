"""Exact integer counts of a problem's layouts, and the marginals they give.

Every probability the native engine reports is an integer count divided by the number of layouts,
rounded once. So the same state gives bit-identical marginals however it was computed: swept in
any direction, split into cases, or read from a cache under a symmetry.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from battlelog.engines.base import Marginals
from battlelog.engines.native.layered import LayeredModel
from battlelog.engines.native.tables import HORIZONTAL, VERTICAL, SweepTables
from battlelog.errors import Inconsistent
from battlelog.model.ground import Problem
from battlelog.rules.geometry import ship_placements

#: Below this, an int64 count converts to float64 exactly, so numpy's division is correctly rounded.
EXACT_FLOAT = 2**53


@dataclass(frozen=True)
class Counts:
    """Layouts (ships told apart) of a problem: how many (``models``, as Marginals says), and per cell covered, per ship and
    placement."""

    models: int
    cells: np.ndarray  # int64 (N, N): layouts in which a ship covers the cell
    placements: tuple[np.ndarray, ...]  # per ship, int64 over its canonical placements: layouts with it there

    @classmethod
    def of(cls, model: LayeredModel) -> Counts:
        """Read a layered model's counts back onto the original board, per ship name."""
        return cls.of_uses(model.tables, model.uses(), model.paths)

    @classmethod
    def of_uses(cls, tables: SweepTables, uses: np.ndarray, paths: int) -> Counts:
        """The counts from ``uses`` (counted layouts per kind, orientation and swept start: :meth:`LayeredModel.uses`)
        and ``paths`` (the counted layouts) of a model with ``tables``, per ship name on the original board."""
        if paths * tables.multiplicity >= 2**62:  # named counts may not fit 64 bits: use Python's integers
            uses = uses.astype(object)
        rows, cols = tables.problem.rows, tables.problem.cols
        cells = np.zeros(rows * cols, dtype=uses.dtype)
        for k in range(len(tables.kinds)):
            for orientation in (HORIZONTAL, VERTICAL):
                covered = tables.covered_cells(k, orientation)
                weights = uses[k, orientation]
                for row in covered:  # the t-th cell of every placement
                    fits = row >= 0
                    np.add.at(cells, row[fits], weights[fits])
        placements = []
        for ship in range(len(tables.problem.ships)):
            k = tables.kind_of(ship)
            orientations, starts = tables.placement_index(ship)
            # A kind of c ships: each names one of them, so ship `ship` lies there in 1/c of them.
            per_ship = uses[k, orientations, starts] * (tables.multiplicity // len(tables.kinds[k].ships))
            placements.append(per_ship)
        return cls(paths * tables.multiplicity, (cells * tables.multiplicity).reshape(rows, cols), tuple(placements))

    @classmethod
    def none(cls, problem: Problem) -> Counts:
        """The counts of a problem with no layout."""
        rows, cols, ships = problem.rows, problem.cols, problem.ships
        return cls(
            0,
            np.zeros((rows, cols), dtype=np.int64),
            tuple(np.zeros(len(ship_placements(rows, cols, i, length)), dtype=np.int64) for i, length in enumerate(ships)),
        )

    def __add__(self, other: Counts) -> Counts:
        """Counts of two problems that share no layout (the two cases of a split)."""
        return Counts(
            self.models + other.models,
            self.cells + other.cells,
            tuple(a + b for a, b in zip(self.placements, other.placements)),
        )

    def marginals(self) -> Marginals:
        """Each count divided by the number of layouts, correctly rounded."""
        return Marginals(
            _ratio(self.cells, self.models), self.models, tuple(_ratio(p, self.models) for p in self.placements)
        )


def _ratio(counts: np.ndarray, total: int) -> np.ndarray:
    """``counts / total`` rounded once (Python's integer division is correctly rounded at any size)."""
    if total < EXACT_FLOAT and (counts.size == 0 or int(counts.max()) < EXACT_FLOAT):
        return counts / total
    return np.array([int(c) / total for c in counts.ravel()]).reshape(counts.shape)


def total(parts: Sequence[Counts]) -> Counts:
    """The counts of a problem from those of its cases (a split's, a turned count's, or the one problem); an
    :class:`~battlelog.errors.Inconsistent` error when no layout fits."""
    counts: Counts = functools.reduce(operator.add, parts)
    if counts.models == 0:
        raise Inconsistent("no layout of the fleet fits all the answers")
    return counts
