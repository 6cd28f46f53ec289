"""The counter for puzzles with every tally given: a search over ship placements with the tallies as its
propagation, each solution reached once.

The board is a bit mask of cells. Each placement of a ship (a length, a first cell, across or down)
carries its cells, the halo its neighbours may not enter under the touch rule, and what it adds to each
row and column; placements that a revealed piece or a tally rules out are dropped before the search. A
node holds the cells still free to take ship, each line's tally still to fill and the fleet still to
place, and chooses one cell: a revealed ship cell not yet covered, else the first free cell of the line
with the least slack (free cells beyond its need). Its branches are the placements covering that cell,
and (when the line has slack) the cell as water, so that every set of ships is reached by exactly one
path: ships of equal length alike, as a Bimaru solution is a set of ships. After each step every line
is checked: a line that needs no more ship is water in its free cells, one that needs more than it has
free is a dead end.

With every tally given the lines cut the search so hard that a 10x10 puzzle with a unique solution takes
a few hundred nodes, and one with a thousand solutions a few tens of thousands, each found once (so the
count and each cell's share come from the solutions themselves). With tallies missing the solutions
run to millions: those go to the row sweep (:mod:`battlelog.tallies.count`), which shares work between
them. Why: docs/bimaru.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from battlelog.rules.variants import DIAGONAL, NONE
from battlelog.tallies.puzzle import BOTTOM, LEFT, MIDDLE, RIGHT, SHIP, SINGLE, TOP, WATER, Puzzle

#: The letter a ship's cell shows, by revealed piece.
SHOWN = {SINGLE: "c", TOP: "t", BOTTOM: "b", LEFT: "l", RIGHT: "r", MIDDLE: "m"}


@dataclass(frozen=True)
class Placement:
    """One ship on the board: its length, cells (mask), the cells other ships may not take because of
    it (its halo: neighbours by the touch rule), its share of each row and column, and its letters."""

    length: int
    mask: int
    halo: int
    rows: tuple[tuple[int, int], ...]
    cols: tuple[tuple[int, int], ...]
    letters: tuple[tuple[int, str], ...]


def _ship_cells(r: int, c: int, length: int, down: bool) -> list[tuple[int, int, str]]:
    """The cells of a ship from (r, c), with the letter each shows."""
    if length == 1:
        return [(r, c, "c")]
    ends = ("t", "b") if down else ("l", "r")
    return [(r + i * down, c + i * (not down), ends[0] if i == 0 else ends[1] if i == length - 1 else "m") for i in range(length)]


@cache
def board_placements(rows: int, cols: int, lengths: tuple[int, ...], touch: str) -> tuple[Placement, ...]:
    """Every placement of each of ``lengths`` (longest first) on a board, with halos by the touch rule;
    computed once per board and fleet, as puzzles of one set share them."""
    near = {NONE: [(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1)], DIAGONAL: [(-1, 0), (1, 0), (0, -1), (0, 1)]}
    steps = near.get(touch, [])
    out = []
    for length in lengths:
        for down in (False, True) if length > 1 else (False,):
            for r in range(rows - (length - 1) * down):
                for c in range(cols - (length - 1) * (not down)):
                    cells = _ship_cells(r, c, length, down)
                    spot = {(a, b) for a, b, _ in cells}
                    halo = {(a + x, b + y) for a, b in spot for x, y in steps} - spot
                    out.append(Placement(
                        length,
                        sum(1 << (a * cols + b) for a, b in spot),
                        sum(1 << (a * cols + b) for a, b in halo if 0 <= a < rows and 0 <= b < cols),
                        _shares([a for a, _, _ in cells]),
                        _shares([b for _, b, _ in cells]),
                        tuple((a * cols + b, letter) for a, b, letter in cells),
                    ))  # fmt: skip
    return tuple(out)


def placements(puzzle: Puzzle) -> list[Placement]:
    """Every placement of every length of the fleet that the revealed pieces and the tallies allow."""
    p = puzzle
    water = ships = 0
    pieces = {}
    for (r, c), piece in p.hints.items():
        bit = 1 << (r * p.cols + c)
        if piece == WATER:
            water |= bit
        else:
            ships |= bit
            if piece != SHIP:
                pieces[r * p.cols + c] = SHOWN[piece]
    shown = sum(1 << cell for cell in pieces)
    out = []
    for placed in board_placements(p.rows, p.cols, tuple(sorted(set(p.ships), reverse=True)), p.touch):
        if placed.mask & water or placed.halo & ships:
            continue
        if placed.mask & shown and any(pieces.get(cell, letter) != letter for cell, letter in placed.letters):
            continue
        if any(p.row_counts[i] is not None and n > p.row_counts[i] for i, n in placed.rows):  # type: ignore[operator]
            continue
        if any(p.col_counts[i] is not None and n > p.col_counts[i] for i, n in placed.cols):  # type: ignore[operator]
            continue
        out.append(placed)
    return out


def _shares(lines: list[int]) -> tuple[tuple[int, int], ...]:
    """(line, cells in it) for the lines a ship's cells lie on."""
    return tuple((i, lines.count(i)) for i in sorted(set(lines)))


#: The need of a line with no tally: never short, never met.
_UNBOUNDED = 1 << 30


class Search:
    """The search over placements; ``count`` is the number of solutions found, ``chosen`` how many of
    them hold each placement, ``first`` one solution's placements."""

    def __init__(self, puzzle: Puzzle, spend: Callable[[int], None]) -> None:
        p = self.p = puzzle
        self.spend = spend
        self.all = placements(puzzle)
        full = (1 << p.cols) - 1
        column = sum(1 << (r * p.cols) for r in range(p.rows))
        # lines as (mask, index into need): rows first, then columns
        self.lines = [(full << (r * p.cols), r) for r in range(p.rows) if p.row_counts[r] is not None]
        self.lines += [(column << c, p.rows + c) for c in range(p.cols) if p.col_counts[c] is not None]
        self.need = [_UNBOUNDED if t is None else t for t in (*p.row_counts, *p.col_counts)]
        self.masks = [x.mask for x in self.all]
        self.lengths = [x.length for x in self.all]
        self.shares_of = [x.rows + tuple((p.rows + i, n) for i, n in x.cols) for x in self.all]
        self.fleet = {length: p.ships.count(length) for length in set(p.ships)}
        self.left = len(p.ships)
        # the last placement taken of each length: the next ship of that length comes after it
        self.floor = dict.fromkeys(self.fleet, -1)
        self.count = 0
        self.chosen = [0] * len(self.all)
        self.stack: list[int] = []
        self.first: list[int] | None = None

    def run(self) -> None:
        """Search from the whole board: every cell free but water hints, revealed ship cells required."""
        p = self.p
        free = (1 << (p.rows * p.cols)) - 1
        required = 0
        for (r, c), piece in p.hints.items():
            if piece == WATER:
                free &= ~(1 << (r * p.cols + c))
            else:
                required |= 1 << (r * p.cols + c)
        settled = self._settle(free, required)
        if settled is not None:
            self._node(*settled, list(range(len(self.all))))

    def _settle(self, free: int, required: int) -> tuple[int, int] | None:
        """The lines' deductions until none applies: a line whose need is met loses its free cells, one
        that needs all of them requires them; ``None`` when a line needs more than it has free or a
        required cell is no longer free."""
        need, lines = self.need, self.lines
        changed = True
        while changed:
            changed = False
            for mask, i in lines:
                here = free & mask
                n = here.bit_count()
                want = need[i]
                if want > n:
                    return None
                if want == 0 and here:
                    free &= ~here
                    changed = True
                elif want == n and here & ~required:
                    required |= here
                    changed = True
        if required & ~free:
            return None
        return free, required

    def _node(self, free: int, required: int, alive: list[int]) -> None:
        """Every solution below this node. The placements still possible are narrowed from the parent's
        (``alive``): on free cells, within their lines' needs, of a length still in the fleet. A free
        cell none of them covers is water (and the lines are settled again); a required cell none covers,
        or a length with fewer placements than ships left, is a dead end. Then a cell is chosen and the
        branches are the placements covering it and water there when its line allows."""
        self.spend(1)
        if self.left == 0:
            if not required and all(self.need[i] == 0 for _, i in self.lines):
                self._found()
            return
        masks, lengths, shares, need, fleet = self.masks, self.lengths, self.shares_of, self.need, self.fleet
        floor = self.floor
        while True:
            alive = [
                k
                for k in alive
                if fleet[lengths[k]]
                and k > floor[lengths[k]]
                and masks[k] & free == masks[k]
                and all(need[i] >= n for i, n in shares[k])
            ]
            support = 0
            for k in alive:
                support |= masks[k]
            if required & ~support:
                return
            if free & ~support == 0:
                break
            settled = self._settle(free & support, required)
            if settled is None:
                return
            free, required = settled
        ways = dict.fromkeys(fleet, 0)
        for k in alive:
            ways[lengths[k]] += 1
        if any(ways[n] < left for n, left in fleet.items()):
            return
        length = min((n for n in fleet if fleet[n]), key=lambda n: (ways[n], -n))
        floor, stack = self.floor, self.stack
        below = floor[length]
        for k in alive:
            if lengths[k] != length:
                continue
            placed = self.all[k]
            self._take(placed, -1)
            stack.append(k)
            floor[length] = k
            settled = self._settle(free & ~(placed.mask | placed.halo), required & ~placed.mask)
            if settled is not None:
                self._node(*settled, alive)
            stack.pop()
            self._take(placed, 1)
        floor[length] = below

    def _take(self, placed: Placement, sign: int) -> None:
        """Place (``sign`` -1) or lift (+1) a ship: its lines' needs and its length's ships left."""
        need, rows = self.need, self.p.rows
        for i, n in placed.rows:
            need[i] += sign * n
        for i, n in placed.cols:
            need[rows + i] += sign * n
        self.fleet[placed.length] += sign
        self.left += sign

    def _choose(self, free: int, required: int) -> tuple[int, bool]:
        """The cell to branch on and whether water there is a branch: a required cell (no), else the first
        free cell of the line with the least slack, else the first free cell; -1 when none is free."""
        if required:
            return (required & -required).bit_length() - 1, False
        best, pick = _UNBOUNDED, 0
        need = self.need
        for mask, i in self.lines:
            want = need[i]
            if want:
                slack = (free & mask).bit_count() - want
                if slack < best:
                    best, pick = slack, free & mask
        if not pick:
            pick = free
        if not pick:
            return -1, False
        return (pick & -pick).bit_length() - 1, True

    def _found(self) -> None:
        """Record a solution: one more, and one more for each of its placements."""
        self.count += 1
        for k in self.stack:
            self.chosen[k] += 1
        if self.first is None:
            self.first = list(self.stack)

    def shares(self) -> list[list[float]]:
        """Each cell's share of the solutions found (exact integers, one division per cell)."""
        p = self.p
        cells = [0] * (p.rows * p.cols)
        for k, n in enumerate(self.chosen):
            if n:
                for cell, _ in self.all[k].letters:
                    cells[cell] += n
        return [[cells[r * p.cols + c] / self.count for c in range(p.cols)] for r in range(p.rows)]

    def solution(self) -> list[str] | None:
        """The first solution's rows of letters (``.`` water)."""
        if self.first is None:
            return None
        p = self.p
        grid = ["."] * (p.rows * p.cols)
        for k in self.first:
            for cell, letter in self.all[k].letters:
                grid[cell] = letter
        return ["".join(grid[r * p.cols : (r + 1) * p.cols]) for r in range(p.rows)]
