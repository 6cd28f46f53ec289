"""Exact cell marginals from the native engine's counts, for the states before the named layouts fit.

With no answer heard, colours are exchangeable, so the posterior over unnamed layouts is uniform over
those in which each shown colour's tiles lie in one ship and different colours in different ships
(docs/captain.md). Two such states come before the listing fits, and both reduce to plain counts:

- at most one hit: the plain state of hits and misses (``plain_counts``);
- two hits, a and b: of one colour, one ship covers both: the sum over that ship's placements p
  through a and b of the rest of the fleet's layouts with p's tiles as water; of two colours, the
  layouts covering both minus those (``two_hit_counts``).

Counts are of unordered layouts: the native engine counts ordered ones (ship i of length
``lengths[i]``), which is the unordered count times m! for each length repeated m times.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from battlelog.engines import make_engine
from battlelog.engines.base import Engine
from battlelog.errors import Inconsistent
from battlelog.questions.state import WATER
from battlelog.rules.answers import HIT, MISS
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import placement_starts
from battlelog.rules.state import GameState
from battlelog.rules.variants import SILENT, Rules


@lru_cache(maxsize=1)
def native_engine() -> Engine:
    """One native engine per process, so that its caches stay warm from game to game."""
    return make_engine("native")


@dataclass(frozen=True)
class Counts:
    """``layouts`` unordered layouts, ``covered[c]`` of them with a ship on cell c."""

    layouts: float
    covered: np.ndarray

    def cells(self) -> np.ndarray:
        return self.covered / self.layouts


def repeats(lengths: Sequence[int]) -> int:
    """Ordered layouts per unordered one: the product of m! over lengths repeated m times."""
    return math.prod(math.factorial(m) for m in Counter(lengths).values())


def native_counts(rows: int, cols: int, lengths: Sequence[int], misses: Sequence[int], hits: Sequence[int] = ()) -> Counts:
    """Unordered layouts of ``lengths`` with no ship on ``misses`` and a ship on every hit (none: zero)."""
    if not lengths:
        return Counts(float(not hits), np.zeros(rows * cols))
    state = GameState.empty(GameConfig(rows, tuple(sorted(lengths, reverse=True)), Rules(sinks=SILENT), cols=cols))
    for cell, result in [*((m, MISS) for m in misses), *((h, HIT) for h in hits)]:
        state = state.with_shot(int(cell) // cols, int(cell) % cols, result)
    try:
        marginals = native_engine().marginals(state)
    except Inconsistent:
        return Counts(0.0, np.zeros(rows * cols))
    layouts = (marginals.models or 0) / repeats(lengths)
    return Counts(layouts, marginals.cells.ravel() * layouts)


def plain_counts(rows: int, cols: int, lengths: Sequence[int], board: np.ndarray) -> Counts:
    """At most one hit: the plain state's counts."""
    return native_counts(rows, cols, lengths, np.flatnonzero(board == WATER).tolist(), np.flatnonzero(board > WATER).tolist())


def two_hit_counts(rows: int, cols: int, lengths: Sequence[int], board: np.ndarray) -> Counts:
    """Exactly two hits: one ship through both (one colour), or two ships (two colours)."""
    a, b = (int(c) for c in np.flatnonzero(board > WATER))
    misses = np.flatnonzero(board == WATER).tolist()
    same = _one_ship_through(rows, cols, lengths, misses, a, b)
    if board[a] == board[b]:
        return same
    both = native_counts(rows, cols, lengths, misses, (a, b))
    return Counts(both.layouts - same.layouts, both.covered - same.covered)


def _one_ship_through(rows: int, cols: int, lengths: Sequence[int], misses: Sequence[int], a: int, b: int) -> Counts:
    """Layouts whose one ship covers both a and b: each placement p of it through them, the rest of
    the fleet anywhere off p and the misses."""
    total, covered = 0.0, np.zeros(rows * cols)
    water = set(misses)
    for length in sorted(set(lengths)):
        rest = list(lengths)
        rest.remove(length)
        starts, steps = placement_starts(rows, cols, length)
        for start, step in zip(starts.tolist(), steps.tolist()):
            tiles = [start + i * step for i in range(length)]
            if a not in tiles or b not in tiles or water.intersection(tiles):
                continue
            counts = native_counts(rows, cols, rest, sorted(water.union(tiles)))
            total += counts.layouts
            covered += counts.covered
            covered[tiles] += counts.layouts
    return Counts(total, covered)


def evidence_counts(rows: int, cols: int, lengths: Sequence[int], board: np.ndarray) -> Counts | None:
    """The counts of a state with no answer and at most two hits; None for any other state."""
    shown = int(np.count_nonzero(board > WATER))
    if shown <= 1:
        return plain_counts(rows, cols, lengths, board)
    if shown == 2:
        return two_hit_counts(rows, cols, lengths, board)
    return None


def named_layouts(counts: Counts, names: int, board: np.ndarray) -> float:
    """Named layouts of such a state: each unordered one with its colourings, the shown colours fixed."""
    shown = len(set(int(v) for v in board[board > WATER]))
    return counts.layouts * math.factorial(names - shown)

