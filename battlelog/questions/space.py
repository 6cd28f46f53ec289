"""The hypothesis space of a question-asking game: named ships, each placed somewhere, all disjoint.

A fleet here is named ships whose lengths may be unknown: each ship has a list of possible lengths,
and ``lengths`` may say that the ships' lengths are a given multiset in an order nobody knows. One
ship's possible placements (every length it may have, both orientations) are a :class:`ShipTable`
of arrays; a layout is one placement per ship, pairwise disjoint, and the evidence of a revealed
board keeps each ship to the placements that agree with it. :func:`enumerate_layouts` lists the
layouts as one array of placement indices per ship, extending partial layouts a ship at a time with
64-bit cell masks (numpy, in chunks), the most constrained ship first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from battlelog.errors import BudgetExceeded
from battlelog.rules.geometry import placement_starts

#: Orientation codes in every table and answer: horizontal, vertical, none (Water, a ship of length 1).
H, V, NO_ORIENTATION = 0, 1, 2
#: The most layouts (or partial layouts) listed at once: some 300 MB of arrays for four ships.
DEFAULT_BUDGET = 12_000_000
#: Cells of partial layouts times placements compared in one numpy step.
_CHUNK = 1 << 22


@dataclass(frozen=True)
class Fleet:
    """Named ships; ``options[i]`` the lengths ship i may have; ``multiset``, when given, the lengths
    the ships have between them (each ship one of them, in an unknown order); ``prior`` ``layouts``
    (every layout equally likely) or ``sizes`` (every assignment of lengths equally likely, then
    every layout given it: Rothe et al.'s prior)."""

    names: tuple[str, ...]
    options: tuple[tuple[int, ...], ...]
    multiset: tuple[int, ...] | None = None
    prior: str = "layouts"


@dataclass(frozen=True)
class ShipTable:
    """Every placement one ship may take on a ``rows`` x ``cols`` board, as arrays: its length, first
    cell (row-major, the top-left in reading order), step to the next cell and covered cells."""

    rows: int
    cols: int
    length: np.ndarray
    start: np.ndarray
    step: np.ndarray

    @classmethod
    def build(cls, rows: int, cols: int, lengths: Sequence[int]) -> ShipTable:
        starts, steps, sizes = [], [], []
        for length in sorted(set(lengths)):
            start, step = placement_starts(rows, cols, length)
            starts.append(start)
            steps.append(step)
            sizes.append(np.full(len(start), length, dtype=np.int64))
        return cls(rows, cols, np.concatenate(sizes), np.concatenate(starts), np.concatenate(steps))

    def __len__(self) -> int:
        return len(self.length)

    @cached_property
    def cells(self) -> np.ndarray:
        """``cells[p, c]``: placement p covers cell c (bool)."""
        out = np.zeros((len(self), self.rows * self.cols), dtype=bool)
        for offset in range(int(self.length.max(initial=0))):
            live = np.flatnonzero(self.length > offset)
            out[live, self.start[live] + offset * self.step[live]] = True
        return out

    @cached_property
    def mask(self) -> np.ndarray:
        """Each placement's cells as bits of one unsigned 64-bit word (boards of at most 64 cells)."""
        weights = np.left_shift(np.uint64(1), np.arange(self.rows * self.cols, dtype=np.uint64))
        return np.bitwise_or.reduce(np.where(self.cells, weights, np.uint64(0)), axis=1)

    @cached_property
    def orientation(self) -> np.ndarray:
        """H, V, or NO_ORIENTATION for a ship of length 1."""
        out = np.where(self.step == 1, H, V)
        return np.where(self.length == 1, NO_ORIENTATION, out)

    @cached_property
    def last(self) -> np.ndarray:
        """The last cell in reading order (the bottom-right)."""
        return self.start + (self.length - 1) * self.step


def tables_for(rows: int, cols: int, fleet: Fleet) -> tuple[ShipTable, ...]:
    """One table per ship of the fleet."""
    return tuple(ShipTable.build(rows, cols, lengths) for lengths in fleet.options)


@dataclass(frozen=True)
class LengthBound:
    """The ``lengths`` multiset as a bound on partial layouts: how many ships of each length."""

    values: np.ndarray  # the distinct lengths
    available: np.ndarray  # how many ships have each

    @classmethod
    def of(cls, multiset: Sequence[int]) -> LengthBound:
        counts = Counter(multiset)
        values = np.array(sorted(counts), dtype=np.int64)
        return cls(values, np.array([counts[v] for v in values], dtype=np.int64))

    def column(self, lengths: np.ndarray) -> np.ndarray:
        """The index of each length among ``values``."""
        return np.searchsorted(self.values, lengths)


def _extend(
    rows: np.ndarray,
    union: np.ndarray,
    used: np.ndarray | None,
    masks: np.ndarray,
    columns: np.ndarray | None,
    bound: LengthBound | None,
    budget: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Partial layouts extended by one more ship's candidate placements (``masks``), disjointly;
    refused as soon as there are more than ``budget``."""
    step = max(1, _CHUNK // max(1, len(masks)))
    out_rows, out_union, out_used = [], [], []
    listed = 0
    for lo in range(0, len(rows), step):
        part = slice(lo, lo + step)
        fits = (union[part, None] & masks[None, :]) == 0
        if bound is not None and used is not None and columns is not None:
            fits &= used[part][:, columns] < bound.available[columns][None, :]
        i, j = np.nonzero(fits)
        i += lo
        listed += len(i)
        if listed > budget:
            raise BudgetExceeded(
                f"more than {budget:,} partial layouts to list (the question engine enumerates layouts): "
                "reveal more of the board or answer more questions first"
            )
        out_rows.append(np.column_stack([rows[i], j.astype(np.int32)]))
        out_union.append(union[i] | masks[j])
        if used is not None and columns is not None:
            grown = used[i].copy()
            grown[np.arange(len(i)), columns[j]] += 1
            out_used.append(grown)
    width = rows.shape[1] + 1
    new_rows = np.concatenate(out_rows) if out_rows else np.zeros((0, width), dtype=np.int32)
    new_union = np.concatenate(out_union) if out_union else np.zeros(0, dtype=np.uint64)
    new_used = (np.concatenate(out_used) if out_used else used[:0]) if used is not None else None
    return new_rows, new_union, new_used


def enumerate_layouts(
    tables: Sequence[ShipTable],
    allowed: Sequence[np.ndarray],
    cover: int = 0,
    multiset: Sequence[int] | None = None,
    budget: int = DEFAULT_BUDGET,
) -> np.ndarray:
    """Every layout as a ``(ships, layouts)`` array of placement indices: ship i at one of its
    ``allowed[i]`` placements, no two overlapping, every cell of the ``cover`` mask covered, and the
    ships' lengths the ``multiset`` when one is given. More than ``budget`` layouts at once is refused."""
    candidates = [np.flatnonzero(a) for a in allowed]
    order = sorted(range(len(tables)), key=lambda s: len(candidates[s]))
    bound = LengthBound.of(multiset) if multiset is not None else None
    rows = np.zeros((1, 0), dtype=np.int32)
    union = np.zeros(1, dtype=np.uint64)
    used = np.zeros((1, len(bound.values)), dtype=np.int16) if bound is not None else None
    for ship in order:
        chosen = candidates[ship]
        columns = bound.column(tables[ship].length[chosen]) if bound is not None else None
        rows, union, used = _extend(rows, union, used, tables[ship].mask[chosen], columns, bound, budget)
    if cover:
        keep = (union & np.uint64(cover)) == np.uint64(cover)
        rows = rows[keep]
    out = np.empty((len(tables), len(rows)), dtype=np.int32)
    for position, ship in enumerate(order):
        out[ship] = candidates[ship][rows[:, position]]
    return out


def count_layouts(tables: Sequence[ShipTable], allowed: Sequence[np.ndarray], budget: int = DEFAULT_BUDGET) -> int:
    """How many disjoint layouts there are (no cover, no multiset): the last ship is counted, not listed."""
    candidates = [np.flatnonzero(a) for a in allowed]
    order = sorted(range(len(tables)), key=lambda s: len(candidates[s]))
    if not order:
        return 1
    layouts = enumerate_layouts([tables[s] for s in order[:-1]], [allowed[s] for s in order[:-1]], budget=budget)
    union = np.zeros(layouts.shape[1], dtype=np.uint64)
    for position, ship in enumerate(order[:-1]):
        union |= tables[ship].mask[layouts[position]]
    last = tables[order[-1]].mask[candidates[order[-1]]]
    total = 0
    step = max(1, _CHUNK // max(1, len(last)))
    for lo in range(0, len(union), step):
        total += int(np.count_nonzero((union[lo : lo + step, None] & last[None, :]) == 0))
    return total


def agreeing(table: ShipTable, codes: np.ndarray, colour: int) -> np.ndarray:
    """The placements of ship ``colour`` that agree with a revealed board (``codes`` per cell: 0
    water, i the i-th ship's tile, negative hidden or an unnamed hit): on no water, on no other
    ship's tile, on every tile revealed as its own."""
    blocked = (codes == 0) | ((codes > 0) & (codes != colour))
    ok = ~np.any(table.cells & blocked, axis=1)
    own = codes == colour
    return ok & (np.sum(table.cells & own, axis=1) == int(own.sum()))


@lru_cache(maxsize=256)
def _empty_board_count(rows: int, cols: int, lengths: tuple[int, ...]) -> int:
    """Layouts of ships of these lengths on the empty board (the same for every order of them)."""
    tables = [ShipTable.build(rows, cols, [length]) for length in lengths]
    return count_layouts(tables, [np.ones(len(t), dtype=bool) for t in tables])


def prior_weights(prior: str, tables: Sequence[ShipTable], idx: np.ndarray) -> np.ndarray:
    """1 per layout, or under the ``sizes`` prior 1 / (layouts of its length assignment on the empty board)."""
    if prior == "layouts" or idx.shape[1] == 0:
        return np.ones(idx.shape[1])
    lengths = np.stack([t.length[idx[s]] for s, t in enumerate(tables)], axis=1)
    assignments, inverse = np.unique(lengths, axis=0, return_inverse=True)
    counts = np.array([_empty_board_count(tables[0].rows, tables[0].cols, tuple(sorted(int(v) for v in a))) for a in assignments])
    return 1.0 / counts[inverse.ravel()]
