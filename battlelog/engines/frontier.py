"""The ground model as a reduced ordered decision diagram, built by a frontier sweep over placements.

Why a sweep: conjoining the constraints one by one (as ProbLog does) builds intermediate diagrams far
larger than the result. Here the placements are decided one at a time, in the order in which a
row-by-row sweep of the board reaches their first cell, and after each decision a state summarises
all that the rest of the board needs to know about the decisions so far:

- ``used``: the ships already placed (each ship takes exactly one placement);
- ``occupied``: the cells they cover that a later placement could still cover (later placements of
  ships not yet placed may not overlap them, and a covered hit cell is remembered as explained);
- under a touch rule other than ``allowed``, also ``blocked``: the cells next to a placed ship (its
  halo: side neighbours for ``diagonal``, all eight neighbours for ``none``) that a later placement
  could still cover and must not. The halo is kept apart from the covered cells because only a
  covered hit cell is explained: a hit cell that is blocked and not covered can never be.

A state dies when a ship that is not placed has no placement left in the order, or when a required
(hit) cell is neither covered nor coverable any more. Decision sequences that reach the same state
have the same future, so merging equal states level by level gives the ordered decision diagram of
the model; a backward pass then reduces it (equal nodes merged, dead nodes removed). Each level is
one vectorised numpy step over all its states, and the node count is known before any SDD node
exists, which is what lets the caller check a memory budget up front.

Every placement variable is tested on every path (a placement that can no longer be chosen is a
node whose true branch is False), so the number of paths to True is exactly the number of layouts.

Under a prior with a ``touch`` weight (``weigh_touch``) a layout's weight depends on pairs of ships,
so each chosen branch is labelled with the number of side pairs it adds between the new ship and the
ships already placed (each touching pair is counted once, when the later of its two ships is
placed); the states then also keep the covered cells next to a later placement, and nodes are equal
only with equal labels. The sdd engine turns the labels into weighted literals (engines/sdd_build.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from battlelog.bits import CONTACT, WORD, words_for
from battlelog.errors import BattlelogError, BudgetExceeded
from battlelog.model.ground import Problem
from battlelog.rules.geometry import Cell, Placement, cells_mask, mask_words
from battlelog.rules.symmetry import Symmetry

#: Child references in :class:`Diagram` levels besides node indices (which are >= 0).
FALSE, TRUE = -1, -2

#: Diagrams smaller than this are not worth sweeping again in another direction.
COMPARE_ABOVE = 20_000


#: The four directions a row-by-row sweep can cross the board in, as the symmetries that map a cell
#: to the cell it takes in a plain top-to-bottom, left-to-right sweep of the mapped board. They are
#: symmetries of the square board (on a rectangle the transposed sweeps cross its image, a transposed
#: rectangle: a sweep only orders the placements, so any order counts right), and every touch rule
#: is invariant under them (a transpose or a flip maps side neighbours to side neighbours and
#: diagonal neighbours to diagonal neighbours), so every direction counts the same layouts under
#: every rule.
DIRECTIONS: dict[str, Symmetry] = {
    "down": Symmetry(False, False, False),
    "right": Symmetry(True, False, False),
    "up": Symmetry(False, True, True),
    "left": Symmetry(True, True, True),
}


def sweep_key(direction: str, rows: int, cols: int) -> Callable[[Placement], tuple[Cell, int, bool]]:
    """Order placements by their first cell in the sweep's direction, then by ship.

    A placement is decided when the sweep reaches its first cell, so the frontier only spans the
    rows (in the sweep's direction) that one ship can reach beyond the current cell.
    """
    move = DIRECTIONS[direction]
    return lambda p: (min(move.cell(cell, rows, cols) for cell in p.cells), p.ship, p.horizontal)


@dataclass(frozen=True)
class Diagram:
    """A reduced ordered decision diagram over ``placements`` (variable ``i`` decides placement ``i``).

    ``levels[i] = (high, low)``: for every node testing placement ``i``, the child taken when the
    placement is chosen and when it is not, each an index into level ``i + 1``'s nodes or
    :data:`FALSE` / :data:`TRUE`. ``root`` is a node index at level 0, or FALSE / TRUE.
    ``states`` is how many frontier states the sweep kept (its own memory use).
    """

    placements: tuple[Placement, ...]
    levels: tuple[tuple[np.ndarray, np.ndarray], ...]
    root: int
    states: int
    #: Under ``weigh_touch``, per level the label of every node's chosen branch: the side pairs it adds
    #: between the placement and the ships placed before it (0 where the branch is False); else None.
    labels: tuple[np.ndarray, ...] | None = None

    @property
    def nodes(self) -> int:
        return sum(len(high) for high, _ in self.levels)


def check_fleet_size(ships: int) -> None:
    """Refuse a fleet whose set of placed ships does not fit the sweep's one 64-bit word."""
    if ships > WORD:
        raise BattlelogError(f"the sdd engine handles fleets of at most {WORD} ships, not {ships}")


class _Board:
    """The sweep's constant tables: cell sets as rows of 64-bit words, ship sets as bits of one word."""

    def __init__(self, problem: Problem, placements: list[Placement]) -> None:
        ships = len(problem.ships)
        check_fleet_size(ships)
        self.cols = problem.cols
        self.shifts = np.arange(ships, dtype=np.uint64)
        self.words = words_for(problem.rows * problem.cols)
        m = len(placements)
        self.ship = np.array([p.ship for p in placements], dtype=np.int64)
        self.mask = np.zeros((m, self.words), dtype=np.uint64)
        for i, p in enumerate(placements):
            self.mask[i] = self.mask_of(p.cells)
        hits = self.mask_of(problem.required)
        # reach[j, s]: the cells that placements j, j+1, ... of ship s cover.
        self.reach = np.zeros((m + 1, ships, self.words), dtype=np.uint64)
        for j in range(m - 1, -1, -1):
            self.reach[j] = self.reach[j + 1]
            self.reach[j, self.ship[j]] |= self.mask[j]
        # A hit cell stays in the state while any later placement could still cover it (so a covered
        # hit is remembered as explained) and is checked once more when it leaves that reach.
        self.keep = hits & np.bitwise_or.reduce(self.reach, axis=1)
        self.watch = np.concatenate([hits[None, :], self.keep[:-1]])
        # need[j]: the ships with no placement at j or later, which must already be placed.
        last = np.full(ships, -1)
        for i, s in enumerate(self.ship):
            last[s] = i
        self.need = np.array([sum(1 << s for s in range(ships) if last[s] < j) for j in range(m + 1)], dtype=np.uint64)

    def mask_of(self, cells: tuple[Cell, ...] | frozenset[Cell]) -> np.ndarray:
        """A set of cells as a row of 64-bit words (bit ``r * cols + c``)."""
        return mask_words(cells_mask(cells, self.cols), self.words)

    @property
    def state_words(self) -> int:
        """Words per state besides ``used``: its occupied cells."""
        return self.words

    def expand(self, used: np.ndarray, occupied: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deciding placement ``i``: which states may choose it, and the children of all states, those
        that skip it first (in state order), then those that choose it."""
        bit = np.uint64(1) << np.uint64(self.ship[i])
        free = ((used & bit) == 0) & ~np.any(occupied & self.mask[i], axis=1)
        return free, np.concatenate([used, used[free] | bit]), np.concatenate([occupied, occupied[free] | self.mask[i]])

    def free_reach(self, used: np.ndarray, j: int, table: np.ndarray | None = None) -> np.ndarray:
        """Per state, the cells that placements ``j``, ``j+1``, ... of the ships it has not placed cover
        (or, given ``table``, the cells that table lists for them)."""
        free = (used[:, None] >> self.shifts) & np.uint64(1) == 0
        table = self.reach if table is None else table
        reach: np.ndarray = np.bitwise_or.reduce(np.where(free[:, :, None], table[j], np.uint64(0)), axis=1)
        return reach

    def labels(self, occupied: np.ndarray, i: int) -> np.ndarray | None:
        """The labels of choosing placement ``i`` from states with these cells: none on a plain sweep."""
        return None

    def settle(self, used: np.ndarray, occupied: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Which states are alive before placement ``j``, and their occupied cells cut to what matters."""
        reach = self.free_reach(used, j)
        alive = (self.need[j] & ~used) == 0
        alive &= ~np.any(self.watch[j] & ~occupied & ~reach, axis=1)
        return alive, occupied & (reach | self.keep[j])


def halo(placement: Placement, touch: str, rows: int, cols: int) -> frozenset[Cell]:
    """The cells that no other ship may cover once ``placement`` is chosen, besides its own."""
    own = set(placement.cells)
    return frozenset(
        (r + dr, c + dc)
        for r, c in placement.cells
        for dr, dc in CONTACT[touch]
        if 0 <= r + dr < rows and 0 <= c + dc < cols and (r + dr, c + dc) not in own
    )


class _ApartBoard(_Board):
    """The sweep's tables under a touch rule that keeps ships apart: a state's cell words are its
    occupied cells followed by its blocked cells (see the module's docstring).

    Checking each later placement against the halos of the earlier ones is enough: two ships touch
    exactly when either one's cells meet the other's halo (both neighbour relations are symmetric).
    """

    def __init__(self, problem: Problem, placements: list[Placement]) -> None:
        super().__init__(problem, placements)
        self.halo = np.zeros_like(self.mask)
        for i, p in enumerate(placements):
            self.halo[i] = self.mask_of(halo(p, problem.touch, problem.rows, problem.cols))
        self.hits = self.mask_of(problem.required)

    @property
    def state_words(self) -> int:
        """Words per state besides ``used``: its occupied cells, then its blocked cells."""
        return 2 * self.words

    def expand(self, used: np.ndarray, cells: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        w = self.words
        occupied, blocked = cells[:, :w], cells[:, w:]
        bit = np.uint64(1) << np.uint64(self.ship[i])
        free = ((used & bit) == 0) & ~np.any((occupied | blocked) & self.mask[i], axis=1)
        chosen = np.hstack([occupied[free] | self.mask[i], blocked[free] | self.halo[i]])
        return free, np.concatenate([used, used[free] | bit]), np.concatenate([cells, chosen])

    def settle(self, used: np.ndarray, cells: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`_Board.settle`, and a state dies when a hit cell is blocked but not covered.

        The cut keeps as covered only the hit cells that must be remembered as explained; every other
        cell a later placement may not cover (covered or in a halo) is one blocked cell, so that
        states with the same future merge.
        """
        w = self.words
        occupied, blocked = cells[:, :w], cells[:, w:]
        reach = self.free_reach(used, j)
        alive = (self.need[j] & ~used) == 0
        alive &= ~np.any(self.watch[j] & ~occupied & ~reach, axis=1)
        alive &= ~np.any(self.hits & blocked & ~occupied, axis=1)
        explained = occupied & self.keep[j]
        return alive, np.hstack([explained, (occupied | blocked) & reach & ~explained])


class _TouchBoard(_Board):
    """The standard sweep's tables, labelling each choice with the side pairs it adds (a prior's touch).

    A cell of another ship next to placement ``i`` is side-adjacent to exactly one of its cells (ships
    are straight), so the pairs added are the covered cells among ``i``'s side neighbours; to count them
    a state keeps the covered cells on or next to any later placement of a ship it has not placed.
    """

    def __init__(self, problem: Problem, placements: list[Placement]) -> None:
        super().__init__(problem, placements)
        self.sides = np.zeros_like(self.mask)
        for i, p in enumerate(placements):
            self.sides[i] = self.mask_of(halo(p, "diagonal", problem.rows, problem.cols))
        # near[j, s]: the cells that placements j, j+1, ... of ship s cover or are side neighbours of.
        self.near = np.zeros_like(self.reach)
        for j in range(len(placements) - 1, -1, -1):
            self.near[j] = self.near[j + 1]
            self.near[j, self.ship[j]] |= self.mask[j] | self.sides[j]

    def settle(self, used: np.ndarray, occupied: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
        alive, _ = super().settle(used, occupied, j)
        return alive, occupied & (self.free_reach(used, j, self.near) | self.keep[j])

    def labels(self, occupied: np.ndarray, i: int) -> np.ndarray:
        touching = np.ascontiguousarray(occupied & self.sides[i])  # bits counted portably (np.bitwise_count needs numpy 2)
        return np.unpackbits(touching.view(np.uint8), axis=1).sum(axis=1, dtype=np.int64)


def _board(problem: Problem, placements: list[Placement], weigh_touch: bool = False) -> _Board:
    """The standard sweep's tables (labelled under ``weigh_touch``), or the touch rules' (a Problem's
    rule is one of CONTACT: it checks)."""
    if problem.touch != "allowed":
        return _ApartBoard(problem, placements)  # no two ships meet along a side: a touch weight weighs nothing
    return _TouchBoard(problem, placements) if weigh_touch else _Board(problem, placements)


def _unique_states(used: np.ndarray, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (used, cells) rows (a state's cell words) and, for every input row, the index of its distinct row."""
    order = np.lexsort([cells[:, w] for w in range(cells.shape[1])] + [used])
    u, o = used[order], cells[order]
    starts = np.ones(len(u), dtype=bool)
    starts[1:] = (u[1:] != u[:-1]) | np.any(o[1:] != o[:-1], axis=1)
    inverse = np.empty(len(u), dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    return u[starts], o[starts], inverse


def sweep_diagram(problem: Problem, direction: str = "down", max_states: int | None = None, weigh_touch: bool = False) -> Diagram:
    """The reduced diagram of ``problem`` over its placements in the order of a sweep in ``direction``,
    its chosen branches labelled with the side pairs they add under ``weigh_touch`` (and ``allowed``).

    Raises :class:`BudgetExceeded` as soon as the sweep has kept more than ``max_states`` states.
    """
    placements = sorted((p for domain in problem.domains for p in domain), key=sweep_key(direction, problem.rows, problem.cols))
    board = _board(problem, placements, weigh_touch)
    used = np.zeros(1, dtype=np.uint64)
    alive, cells = board.settle(used, np.zeros((1, board.state_words), dtype=np.uint64), 0)
    if not alive[0]:
        return Diagram(tuple(placements), (), FALSE, 1)
    forward: list[tuple[np.ndarray, np.ndarray]] = []
    labelled: list[np.ndarray] = []
    kept = 1
    for i in range(len(placements)):
        free, child_used, child_cells = board.expand(used, cells, i)
        label = board.labels(cells[free], i)
        if label is not None:
            labelled.append(np.zeros(len(free), dtype=np.int64))
            labelled[-1][free] = label
        alive, child_cells = board.settle(child_used, child_cells, i + 1)
        used, cells, inverse = _unique_states(child_used[alive], child_cells[alive])
        child = np.full(len(child_used), FALSE, dtype=np.int32)
        child[alive] = inverse
        high = np.full(len(free), FALSE, dtype=np.int32)
        high[free] = child[len(free):]
        forward.append((high, child[: len(free)]))
        if not len(used):
            return Diagram(tuple(placements), (), FALSE, kept)
        kept += len(used)
        if max_states is not None and kept > max_states:
            raise BudgetExceeded(
                f"the frontier sweep of {problem.label()} needs more than {max_states:,} states "
                f"(stopped at placement {i + 1} of {len(placements)})"
            )
    # Every state that survives the last placement has placed the whole fleet: it is True.
    value = np.full(len(used), TRUE, dtype=np.int64)
    levels: list[tuple[np.ndarray, np.ndarray]] = []
    labels: list[np.ndarray] = []
    for i in range(len(forward) - 1, -1, -1):
        high, low = forward[i]
        value, level, label = _reduce(value, high, low, labelled[i] if labelled else None)
        levels.append(level)
        labels.append(label)
    levels.reverse()
    labels.reverse()
    return Diagram(tuple(placements), tuple(levels), int(value[0]), kept, tuple(labels) if labelled else None)


def _reduce(
    value: np.ndarray, high: np.ndarray, low: np.ndarray, label: np.ndarray | None = None
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray], np.ndarray]:
    """One backward step: the level's distinct live nodes (with their chosen branches' labels, all 0
    when unlabelled), and the node (or FALSE) of every state."""
    h = np.where(high >= 0, value[np.maximum(high, 0)], FALSE)
    lo = np.where(low >= 0, value[np.maximum(low, 0)], FALSE)
    live = (h != FALSE) | (lo != FALSE)
    # Child references are >= -2 and below 2**31: a pair packs into one int64 key.
    key = ((h[live] + 2) << 32) | (lo[live] + 2)
    out = np.full(len(h), FALSE, dtype=np.int64)
    if label is None:
        distinct, inverse = np.unique(key, return_inverse=True)
        labels = np.zeros(len(distinct), dtype=np.int64)
    else:  # a chosen branch that is False adds nothing: its label is 0
        rows, inverse = np.unique(np.column_stack([key, np.where(h[live] == FALSE, 0, label[live])]), axis=0, return_inverse=True)
        distinct, labels = rows[:, 0], rows[:, 1]
    out[live] = inverse.reshape(-1)
    return out, (((distinct >> 32) - 2).astype(np.int32), ((distinct & 0xFFFFFFFF) - 2).astype(np.int32)), labels


View = tuple[tuple[frozenset[frozenset[Cell]], ...], frozenset[Cell]]


def seen_from(problem: Problem, direction: str) -> View:
    """The problem as a sweep in ``direction`` sees it: equal views give equal diagrams."""
    move = DIRECTIONS[direction]

    def cells(of: Iterable[Cell]) -> frozenset[Cell]:
        return frozenset(move.cell(cell, problem.rows, problem.cols) for cell in of)

    return (
        tuple(frozenset(cells(p.cells) for p in domain) for domain in problem.domains),
        cells(problem.required),
    )


def smallest_diagram(problem: Problem, max_states: int | None = None, weigh_touch: bool = False) -> Diagram:
    """The smallest of the diagrams swept in the four directions.

    Evidence is rarely symmetric, and the diagram of a mid-game state can be half as large swept
    across the board as down it; sweeping costs a small fraction of materialising the result in
    pysdd. Directions that see the same problem (an empty board sees it from all four) are swept
    once, a sweep is abandoned once it keeps twice the states of the best one so far, and a diagram
    below COMPARE_ABOVE nodes is taken as it is (materialising it costs less than another sweep).
    """
    best: Diagram | None = None
    first_error: BudgetExceeded | None = None
    seen: set[View] = set()
    for direction in DIRECTIONS:
        view = seen_from(problem, direction)
        if view in seen:
            continue
        seen.add(view)
        cap = max_states
        if best is not None:
            cap = 2 * best.states if cap is None else min(cap, 2 * best.states)
        try:
            diagram = sweep_diagram(problem, direction, cap, weigh_touch)
        except BudgetExceeded as exc:
            first_error = first_error or exc
            continue
        if best is None or diagram.nodes < best.nodes:
            best = diagram
        if best.nodes < COMPARE_ABOVE:
            break
    if best is None:
        assert first_error is not None
        raise first_error
    return best
