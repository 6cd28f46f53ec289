"""The constant tables one sweep reads, built in plain numpy from a ground problem.

The sweep visits the cells of the board in row-major order (of the board's image under a symmetry,
which is how the other raster orders are obtained; the image of an R x C board under a transpose is
C x R, and ``size`` below is the swept image's width, its number of columns). Before each cell, a frontier state says
all that the rest of the board needs to know about the placements decided so far, packed into one
64-bit key:

- ``ext[c]`` for every column c (``field_bits`` bits each, at bit ``field_bits * c``): how many cells
  of column c, from the next one the sweep will visit, are covered by a vertical ship started above;
- ``hrem`` (at bit ``field_bits * size``): how many cells of the current row, from the next one, are
  covered by the horizontal ship started to the left;
- under the touch rules ``diagonal`` and ``none``, and when a prior weighs touching ships under
  ``allowed`` (:data:`TRACKED`: the profile is kept, nothing is forbidden), the occupancy profile (``profile_bits`` bits
  at ``profile_shift``): a shift register of the last cells swept, bit i set when cell ``j - 1 - i``
  is covered. Bit 0 is the cell to the left of cell j, bit ``size - 2`` the cell above-right,
  ``size - 1`` the cell above, ``size`` the cell above-left (kept under ``none`` only, the one rule
  that reads it: ``size + 1`` bits, ``size`` under ``diagonal``, none at all when ships may touch, so
  the standard game's key is unchanged);
- for every kind of ship, how many of its ships are still to place (``count_bits[k]`` bits at
  ``count_shift[k]``).

That is the set of covered cells ahead of the sweep, run-length coded: a ship covers consecutive
cells, so what lies ahead of the frontier in one column (or in the current row) is one run. A
*kind* is a set of ships of equal length with the same allowed placements (afloat ships of equal
length, typically): they are interchangeable, so the sweep counts how many of them are placed,
not which, and counts are multiplied back by the factorials of the kinds' sizes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from math import factorial

import numpy as np

from battlelog.errors import BattlelogError
from battlelog.model.ground import Problem
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import placement_starts
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import SYMMETRIES, Symmetry

#: Orientations as the kernel numbers them (action ``1 + 2 * kind + orientation``).
HORIZONTAL, VERTICAL = 0, 1

#: The touch rules as the kernel numbers them.
TOUCH_CODES = {"allowed": 0, "diagonal": 1, "none": 2}
#: The kernel's code for ``allowed`` with the occupancy profile kept (as under ``diagonal``) but nothing
#: forbidden: a prior's ``touch`` weight reads, at each covered cell, whether its left and upper
#: neighbours are covered (:mod:`battlelog.engines.native.weights`).
TRACKED = 3


@dataclass(frozen=True)
class Kind:
    """Interchangeable ships: the same length and the same allowed placements."""

    length: int
    ships: tuple[int, ...]
    placements: frozenset[tuple[int, int, bool]]  # (row, col, horizontal) of the allowed placements


def kinds_of(problem: Problem, merge: bool = True) -> tuple[Kind, ...]:
    """The problem's ships grouped into kinds, longest first (ships in fleet order within a kind).

    With ``merge`` false every ship is a kind of its own: the sweep then tells ships apart, as a
    diagram over named placement variables must.
    """
    groups: dict[tuple[int, frozenset[tuple[int, int, bool]], int], list[int]] = {}
    for ship, domain in enumerate(problem.domains):
        allowed = frozenset((p.row, p.col, p.horizontal) for p in domain)
        groups.setdefault((problem.ships[ship], allowed, -1 if merge else ship), []).append(ship)
    kinds = [Kind(length, tuple(ships), allowed) for (length, allowed, _), ships in groups.items()]
    return tuple(sorted(kinds, key=lambda k: (-k.length, k.ships)))


def key_fields(longest: int, kind_sizes: Sequence[int]) -> tuple[int, list[int]]:
    """The bits of one ext / hrem field (enough for the longest ship's length minus one) and of each
    kind's count of ships still to place (enough for the kind's size)."""
    return max(1, (longest - 1).bit_length()), [size.bit_length() for size in kind_sizes]


def profile_bits(touch: str, size: int, tracked: bool = False) -> int:
    """Bits of the occupancy profile: the cells from the one to the left back to the one above (and
    above-left too under ``none``); none when ships may touch, unless ``tracked`` (a prior weighs touching)."""
    return size if tracked and touch == "allowed" else (0, size, size + 1)[TOUCH_CODES[touch]]


def check_key_bits(what: str, size: int, field_bits: int, count_bits: Sequence[int], touch: str, tracked: bool = False) -> int:
    """The bits of a frontier key (``size + 1`` fields, the touch rule's profile and the counts); a
    one-line error past 64."""
    profile = profile_bits(touch, size, tracked)
    key_bits = field_bits * (size + 1) + profile + sum(count_bits)
    if key_bits > 64:
        weighed = " kept for the prior's touch feature" if tracked and touch == "allowed" else ""
        occupancy = f", {profile} bits of occupancy for touch {touch}{weighed}" if profile else ""
        raise BattlelogError(
            f"the native engine packs a frontier state into 64 bits, and {what} needs {key_bits} "
            f"({size + 1} fields of {field_bits} bits{occupancy} and {sum(count_bits)} bits of ship counts)"
        )
    return key_bits


def sweep_orders(rows: int, cols: int) -> tuple[Symmetry, ...]:
    """The raster orders a board is swept in: all eight on a square; on a rectangle the four whose
    image is as narrow as the board can be (a frontier holds one field per swept column)."""
    return SYMMETRIES if rows == cols else tuple(s for s in SYMMETRIES if s.transpose == (cols > rows))


def sweep_order(state: GameState, orders: Sequence[Symmetry] | None = None) -> Symmetry:
    """The raster order to sweep ``state`` in (of ``orders``, else :func:`sweep_orders`): the one that meets its hits
    (or, with none, its shots) earliest.

    Evidence behind the frontier has already pruned the states; evidence ahead of it has not, so
    states that will die there are carried until then. Measured on 100 states of 10x10 games
    (experiments/bench_native.py --orders), this choice does within 2% of the best of the eight
    orders in total work, against 9% for always sweeping row-major, and its worst case is 3.3x the
    best state count instead of 5.1x.
    """
    cells = state.hits or state.shot_cells
    orders = sweep_orders(state.rows, state.cols) if orders is None else orders
    if not cells:
        return orders[0]
    rows, cols = state.rows, state.cols
    flat = [r * cols + c for r, c in cells]
    return min(orders, key=lambda s: float(np.mean(s.index_map(rows, cols)[flat])))


def check_board_bits(config: GameConfig) -> None:
    """Refuse a board some state of whose games would not fit a 64-bit key, before any game.

    The worst state has every ship a kind of its own (kinds split as ships are sunk, and an exported
    diagram never merges them): one count bit per ship, against ``bit_length(k) <= k`` for k merged ones.
    """
    field_bits, count_bits = key_fields(max(config.ships), [1] * len(config.ships))
    tracked = bool(config.effective_prior.touch)  # a touch weight under ``allowed`` keeps the occupancy profile
    check_key_bits(
        f"a game on {config.label()}", min(config.rows, config.cols), field_bits, count_bits, config.rules.touch, tracked
    )


def check_problem_bits(problem: Problem, tracked: bool = False) -> None:
    """The one-line error :class:`SweepTables` gives for a problem whose frontier would not fit 64 bits,
    without building the tables (cheap when even unmerged ships fit, as they do on every usual board)."""
    width = min(problem.rows, problem.cols)  # the sweep runs across the narrower side
    if not fits_key(problem, width, tracked):
        kinds = kinds_of(problem)
        field_bits, count_bits = key_fields(max(kind.length for kind in kinds), [len(kind.ships) for kind in kinds])
        check_key_bits(problem.label(), width, field_bits, count_bits, problem.touch, tracked)


def fits_key(problem: Problem, width: int, tracked: bool = False) -> bool:
    """Whether a sweep of ``problem`` with ``width`` columns keeps its frontier in 64-bit keys (cheap when even
    unmerged ships fit, as they do on every usual board; ``tracked``: with a prior's occupancy profile)."""

    def bits(longest: int, sizes: list[int]) -> int:
        field_bits, count_bits = key_fields(longest, sizes)
        return field_bits * (width + 1) + profile_bits(problem.touch, width, tracked) + sum(count_bits)

    if bits(max(problem.ships), [1] * len(problem.ships)) <= 64:
        return True
    kinds = kinds_of(problem)
    return bits(max(kind.length for kind in kinds), [len(kind.ships) for kind in kinds]) <= 64


#: ``SweepTables.placement_index`` by (rows, columns, ship length, symmetry): a few dozen entries in a process.
_PLACEMENT_INDEX: dict[tuple[int, int, int, Symmetry], tuple[np.ndarray, np.ndarray]] = {}


class SweepTables:
    """Everything the kernel reads about one problem swept in row-major order of its image under ``symmetry``.

    ``tracked``: under ``allowed``, keep the occupancy profile all the same (kernel code :data:`TRACKED`),
    for a prior that weighs touching ships; the layouts are the same, only more states are told apart.
    """

    def __init__(self, problem: Problem, symmetry: Symmetry, merge_kinds: bool = True, tracked: bool = False) -> None:
        self.problem = problem
        self.symmetry = symmetry
        #: The swept image's rows and columns (swapped under a transpose): the kernel's width is ``cols``.
        self.rows, self.cols = symmetry.shape(problem.rows, problem.cols)
        n = self.cols
        self.kinds = kinds_of(problem, merge_kinds)
        self.cell_count = problem.rows * problem.cols
        #: Bits of one ext / hrem field, and of each kind's count of ships still to place.
        self.field_bits, count_bits = key_fields(
            max(kind.length for kind in self.kinds), [len(kind.ships) for kind in self.kinds]
        )
        self.key_bits = check_key_bits(problem.label(), n, self.field_bits, count_bits, problem.touch, tracked)
        self.lengths = np.array([kind.length for kind in self.kinds], dtype=np.int64)
        self.touch = TRACKED if tracked and problem.touch == "allowed" else TOUCH_CODES[problem.touch]
        self.profile_bits = profile_bits(problem.touch, n, tracked)
        self.profile_shift = self.field_bits * (n + 1)
        self.count_bits = np.array(count_bits, dtype=np.int64)
        self.count_shift = self.profile_shift + self.profile_bits + np.concatenate([[0], np.cumsum(self.count_bits)[:-1]])
        self.count_mask = ((np.uint64(1) << self.count_bits.astype(np.uint64)) - np.uint64(1)).astype(np.uint64)

        image = symmetry.index_map(problem.rows, problem.cols)  # original row-major index -> swept index
        #: starts[k, o, j]: kind k may start a placement of orientation o at swept cell j.
        self.starts = np.zeros((len(self.kinds), 2, self.cell_count), dtype=np.bool_)
        for k, kind in enumerate(self.kinds):
            start, orientation = self._swept_starts(kind, image)
            self.starts[k, orientation, start] = True
        #: required[j]: swept cell j is a hit, so some ship must cover it.
        self.required = np.zeros(self.cell_count, dtype=np.bool_)
        for r, c in problem.required:
            self.required[image[r * problem.cols + c]] = True
        #: settled[j]: the count fields that must be zero before cell j (kinds with no start at j or later).
        self.settled = np.zeros(self.cell_count + 1, dtype=np.uint64)
        for k in range(len(self.kinds)):
            starts = np.flatnonzero(self.starts[k].any(axis=0))
            last = int(starts[-1]) if len(starts) else -1
            self.settled[last + 1 :] |= self.count_mask[k] << np.uint64(self.count_shift[k])
        #: The state before the first cell: nothing placed, every ship still to place.
        self.root = int(sum(len(kind.ships) << int(self.count_shift[k]) for k, kind in enumerate(self.kinds)))
        self._covered: dict[tuple[int, int], np.ndarray] = {}

    def _swept_starts(self, kind: Kind, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(first swept cell, orientation in the image) of every placement of ``kind``."""
        spots = np.array(sorted(kind.placements), dtype=np.int64).reshape(-1, 3)  # (row, col, horizontal)
        first = spots[:, 0] * self.problem.cols + spots[:, 1]
        return self._swept(
            first, first + (kind.length - 1) * np.where(spots[:, 2] == 1, 1, self.problem.cols), kind.length, image
        )

    def _swept(self, first: np.ndarray, last: np.ndarray, length: int, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(first swept cell, orientation in the image) of the placements from original cell ``first`` to ``last``, on
        arrays (a Python object per placement cost about 1.5 ms a table on 10x10, as much as a small state's sweep)."""
        ends = np.sort(np.stack([image[first], image[last]]), axis=0)  # each placement's first and last swept cells
        across = (ends[0] // self.cols == ends[1] // self.cols) | (length == 1)
        return ends[0], np.where(across, HORIZONTAL, VERTICAL)

    @cached_property
    def multiplicity(self) -> int:
        """Layouts per counted layout: the orders in which a kind's interchangeable ships can be named."""
        out = 1
        for kind in self.kinds:
            out *= factorial(len(kind.ships))
        return out

    def covered_cells(self, kind: int, orientation: int) -> np.ndarray:
        """``out[t, j]``: the original row-major index of the t-th cell of the placement of ``kind`` in
        ``orientation`` that starts at swept cell j (or -1 where no such placement fits the board).
        Kept once computed: every draw names its ships with it."""
        if (kind, orientation) in self._covered:
            return self._covered[kind, orientation]
        n, length = self.cols, int(self.lengths[kind])
        step = 1 if orientation == HORIZONTAL else n
        original = self.symmetry.inverse.index_map(self.rows, self.cols)
        swept = np.arange(self.cell_count)[None, :] + step * np.arange(length)[:, None]
        fits = (swept[-1] < self.cell_count) & ((swept[-1] // n == swept[0] // n) if orientation == HORIZONTAL else True)
        out = np.where(fits[None, :], original[np.minimum(swept, self.cell_count - 1)], -1)
        out.setflags(write=False)
        self._covered[kind, orientation] = out
        return out

    def placement_index(self, ship: int) -> tuple[np.ndarray, np.ndarray]:
        """For each of ``ship``'s canonical placements (config order): its (orientation, swept start),
        so that a per-(kind, orientation, start) table can be read per placement."""
        rows, cols = self.problem.rows, self.problem.cols
        key = (rows, cols, self.problem.ships[ship], self.symmetry)  # geometry only: the same for every state
        if key not in _PLACEMENT_INDEX:
            length = self.problem.ships[ship]
            first, step = placement_starts(rows, cols, length)  # ship_placements' order
            start, orientation = self._swept(first, first + step * (length - 1), length, self.symmetry.index_map(rows, cols))
            index = orientation.astype(np.int64), start.astype(np.int64)
            for array in index:
                array.setflags(write=False)
            _PLACEMENT_INDEX[key] = index
        return _PLACEMENT_INDEX[key]

    def kind_of(self, ship: int) -> int:
        """The index of the kind ``ship`` belongs to."""
        return next(k for k, kind in enumerate(self.kinds) if ship in kind.ships)
