"""Values in scopes over a space of layouts: what the vectorised evaluator computes with.

The layouts are ``idx[s]``: ship s's placement index in each layout (see :mod:`.space`). Every value
carries a scope: constant, one ship (an array over that ship's placements, a few hundred entries),
full (an array over the layouts), or a disjoint sum of one-ship terms. Values combine in the
narrowest scope that holds them; a one-ship value becomes a full one by indexing with ``idx[s]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from battlelog.questions.space import ShipTable

CONST, FULL, DISJOINT = -2, -1, -3


@dataclass(frozen=True)
class Vec:
    """A value in a scope: CONST, FULL, a ship's index, or DISJOINT: ``data`` plus one term per ship
    (``terms[s][p]`` for ship s at placement p) of which at most one is non-zero in any layout, as
    ``(color 3-4)`` is (one ship at most covers a cell). A DISJOINT value's distribution needs only
    the ships' placement weights."""

    scope: int
    data: np.ndarray
    terms: tuple[np.ndarray, ...] = ()


@dataclass(frozen=True)
class Bag:
    """A multiset of yes/no or numbers that ``map`` made: one (multiplicity, value) pair per element
    mapped over, each a :class:`Vec` in its own scope (folded pairwise, never stacked). A ``wide``
    bag has one pair whose arrays end in an axis of elements: a body that depends on the mapped
    variable alone, evaluated for all elements at once."""

    items: tuple[tuple[Vec, Vec], ...]
    wide: bool = False


class Space:
    """The layouts a question is asked about, with their weights (unnormalised)."""

    def __init__(self, tables: Sequence[ShipTable], idx: np.ndarray, weights: np.ndarray) -> None:
        self.tables = tuple(tables)
        self.idx = idx
        self.weights = weights
        self.rows, self.cols = tables[0].rows, tables[0].cols
        self.cells = self.rows * self.cols

    @property
    def ships(self) -> int:
        return len(self.tables)

    @property
    def size(self) -> int:
        return self.idx.shape[1]

    @cached_property
    def ship_weights(self) -> tuple[np.ndarray, ...]:
        """Per ship, the total weight of the layouts that place it at each of its placements."""
        return tuple(np.bincount(self.idx[s], self.weights, minlength=len(t)) for s, t in enumerate(self.tables))

    @cached_property
    def neighbours(self) -> tuple[np.ndarray, ...]:
        """Per ship and placement, the mask of cells side by side with one of its cells."""
        cols, cells = self.cols, self.cells
        board = np.uint64((1 << cells) - 1) if cells < 64 else np.uint64(2**64 - 1)
        left_col = np.uint64(sum(1 << (r * cols) for r in range(self.rows)))
        right_col = np.uint64(sum(1 << (r * cols + cols - 1) for r in range(self.rows)))
        out = []
        for table in self.tables:
            m = table.mask
            spread = ((m & ~right_col) << np.uint64(1)) | ((m & ~left_col) >> np.uint64(1))
            spread |= (m << np.uint64(cols)) | (m >> np.uint64(cols))
            out.append(spread & board)
        return tuple(out)

    def touch_table(self, a: int, b: int) -> np.ndarray:
        """``[p, q]``: ship a at placement p touches ship b at placement q (for a == b, the diagonal)."""
        near = self.neighbours[a]
        if a == b:
            return (near & self.tables[a].mask) != 0
        return (near[:, None] & self.tables[b].mask[None, :]) != 0

    def lift(self, value: Vec, scope: int) -> Vec:
        """``value`` in a wider ``scope`` (a ship's scope or FULL)."""
        if value.scope == scope:
            return value
        if value.scope == DISJOINT:
            assert scope == FULL, "a disjoint sum widens to the full scope only"
            total = np.full(self.size, value.data, dtype=np.int64)
            for s, term in enumerate(value.terms):
                total += term[self.idx[s]]
            return Vec(FULL, total.astype(value.data.dtype))
        if value.scope == CONST:
            lead = self.size if scope == FULL else len(self.tables[scope])
            return Vec(scope, np.broadcast_to(value.data, (lead, *value.data.shape)))
        assert scope == FULL, "a one-ship value only widens to the full scope"
        return Vec(FULL, value.data[self.idx[value.scope]])

    def common(self, values: Sequence[Vec]) -> list[Vec]:
        """``values`` in one scope: the narrowest that holds them all (constants stay broadcastable)."""
        values = [self.lift(v, FULL) if v.scope == DISJOINT else v for v in values]
        scopes = {v.scope for v in values} - {CONST}
        if not scopes:
            return list(values)
        scope = scopes.pop() if len(scopes) == 1 else FULL
        return [v if v.scope in (CONST, scope) else self.lift(v, scope) for v in values]


def const(value: object, dtype: type = np.int64) -> Vec:
    return Vec(CONST, np.asarray(value, dtype=dtype))


def lift_full(value: Vec, space: Space) -> np.ndarray:
    """A scalar value's array over every layout of ``space``."""
    return np.broadcast_to(space.lift(value, FULL).data, (space.size,))


def scope_of(values: Sequence[Vec]) -> int:
    scopes = {v.scope for v in values} - {CONST}
    return CONST if not scopes else scopes.pop() if len(scopes) == 1 else FULL


def pairwise(space: Space, values: Sequence[Vec], combine: Callable[..., np.ndarray]) -> Vec:
    """``combine`` of the values' arrays in their common scope."""
    values = space.common(values)
    return Vec(scope_of(values), combine(*(v.data for v in values)))
