"""What every solution of a tallies puzzle shares, deduced before counting: cells that must be water and
cells that must hold ship, by the rules a Bimaru player uses (a line whose tally is met is water elsewhere;
a line with exactly as many open cells as it still needs is ship there; a revealed piece fixes the cell
its ship continues into; under the touch rules that forbid it, no ship touches another). Each rule only
states what holds in every solution, so the counter (:mod:`battlelog.tallies.count`) may take the fixed
cells as hints: the count is unchanged and its sweep meets far fewer dead ends.
"""

from __future__ import annotations

from battlelog.rules.variants import ALLOWED, NONE
from battlelog.tallies.puzzle import BOTTOM, LEFT, MIDDLE, RIGHT, SHIP, SINGLE, TOP, WATER, Puzzle

#: A cell's state while deducing.
OPEN, SEA, HULL = 0, 1, 2

#: Where a revealed piece's ship goes on (cells that are ship) and where it surely stops (cells that are
#: water: beyond its ends), as (row, col) offsets; the sides of an end or a single are water only when
#: ships may not touch along a side.
_ON = {TOP: ((1, 0),), BOTTOM: ((-1, 0),), LEFT: ((0, 1),), RIGHT: ((0, -1),)}
_END = {TOP: ((-1, 0),), BOTTOM: ((1, 0),), LEFT: ((0, -1),), RIGHT: ((0, 1),)}
_SIDES = {
    TOP: ((0, -1), (0, 1)),
    BOTTOM: ((0, -1), (0, 1)),
    LEFT: ((-1, 0), (1, 0)),
    RIGHT: ((-1, 0), (1, 0)),
    SINGLE: ((-1, 0), (1, 0), (0, -1), (0, 1)),
}
_DIAGONALS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


class Contradiction(Exception):
    """The puzzle has no solution: a deduction met a cell already known otherwise, or a line that
    cannot meet its tally."""


class Deduction:
    """The board of known cells, filled by the rules until none applies."""

    def __init__(self, puzzle: Puzzle) -> None:
        self.p = puzzle
        self.grid = [[OPEN] * puzzle.cols for _ in range(puzzle.rows)]
        self.changed = False

    def set(self, r: int, c: int, value: int) -> None:
        """Know cell (r, c); off the board, water is no news and ship is a contradiction."""
        if not (0 <= r < self.p.rows and 0 <= c < self.p.cols):
            if value == HULL:
                raise Contradiction
            return
        old = self.grid[r][c]
        if old == value:
            return
        if old != OPEN:
            raise Contradiction
        self.grid[r][c] = value
        self.changed = True

    def hints(self) -> None:
        """What the revealed pieces say about their cells and, by the touch rule, their neighbours."""
        touch = self.p.touch
        for (r, c), piece in self.p.hints.items():
            if piece == WATER:
                self.set(r, c, SEA)
                continue
            self.set(r, c, HULL)
            for dr, dc in _ON.get(piece, ()):
                self.set(r + dr, c + dc, HULL)
            if touch == ALLOWED:
                continue
            for dr, dc in _END.get(piece, ()) + _SIDES.get(piece, ()):
                self.set(r + dr, c + dc, SEA)
            if piece == MIDDLE and (r in (0, self.p.rows - 1)):
                self.set(r, c - 1, HULL)
                self.set(r, c + 1, HULL)
            if piece == MIDDLE and (c in (0, self.p.cols - 1)):
                self.set(r - 1, c, HULL)
                self.set(r + 1, c, HULL)

    def lines(self) -> None:
        """A line whose tally is met is water in its open cells; one that needs all its open cells has
        ship in them; one over its tally, or short of it, is a contradiction."""
        p, grid = self.p, self.grid
        for r, tally in enumerate(p.row_counts):
            if tally is not None:
                self._line(tally, [(r, c) for c in range(p.cols)], [grid[r][c] for c in range(p.cols)])
        for c, tally in enumerate(p.col_counts):
            if tally is not None:
                self._line(tally, [(r, c) for r in range(p.rows)], [grid[r][c] for r in range(p.rows)])

    def _line(self, tally: int, cells: list[tuple[int, int]], values: list[int]) -> None:
        """The line rule on one line of ``cells`` whose states are ``values``."""
        ships, empty = values.count(HULL), values.count(OPEN)
        if ships > tally or ships + empty < tally:
            raise Contradiction
        if empty and (ships == tally or ships + empty == tally):
            fill = SEA if ships == tally else HULL
            for (r, c), v in zip(cells, values):
                if v == OPEN:
                    self.set(r, c, fill)

    def contacts(self) -> None:
        """Under ``none`` a ship cell's diagonal neighbours are water; under ``none`` and ``diagonal`` a
        ship cell with a ship beside it along one axis has water along the other (ships are straight and
        may not touch along a side), and a run of ship cells as long as the longest ship ends in water."""
        p, grid = self.p, self.grid
        if p.touch == ALLOWED:
            return
        longest = max(p.ships)
        for r in range(p.rows):
            row = grid[r]
            for c in range(p.cols):
                if row[c] != HULL:
                    continue
                if p.touch == NONE:
                    for dr, dc in _DIAGONALS:
                        self.set(r + dr, c + dc, SEA)
                across = (c > 0 and row[c - 1] == HULL) or (c < p.cols - 1 and row[c + 1] == HULL)
                down = (r > 0 and grid[r - 1][c] == HULL) or (r < p.rows - 1 and grid[r + 1][c] == HULL)
                if across and down:
                    raise Contradiction
                if across:
                    self.set(r - 1, c, SEA)
                    self.set(r + 1, c, SEA)
                elif down:
                    self.set(r, c - 1, SEA)
                    self.set(r, c + 1, SEA)
                self._runs(r, c, longest)

    def _runs(self, r: int, c: int, longest: int) -> None:
        """A run of ship cells starting at (r, c) (rightwards or downwards) longer than the longest ship
        is a contradiction; one exactly as long has water at both ends."""
        grid = self.grid
        for dr, dc in ((0, 1), (1, 0)):
            if r - dr >= 0 and c - dc >= 0 and grid[r - dr][c - dc] == HULL:
                continue  # not the start of the run
            n = 0
            while r + n * dr < self.p.rows and c + n * dc < self.p.cols and grid[r + n * dr][c + n * dc] == HULL:
                n += 1
            if n > longest:
                raise Contradiction
            if n == longest:
                self.set(r - dr, c - dc, SEA)
                self.set(r + n * dr, c + n * dc, SEA)


def deduce(puzzle: Puzzle) -> list[list[int]] | None:
    """Each cell as OPEN, SEA (water in every solution) or HULL (ship in every solution), by the rules
    above applied until none changes a cell; ``None`` when they show that the puzzle has no solution."""
    d = Deduction(puzzle)
    try:
        d.hints()
        d.changed = True
        while d.changed:
            d.changed = False
            d.lines()
            d.contacts()
    except Contradiction:
        return None
    return d.grid


def as_hints(puzzle: Puzzle, grid: list[list[int]]) -> dict[tuple[int, int], str]:
    """The puzzle's hints with every deduced cell added: water, or ``ship`` where no piece was revealed."""
    hints = dict(puzzle.hints)
    for r, line in enumerate(grid):
        for c, v in enumerate(line):
            if v != OPEN and (r, c) not in hints:
                hints[(r, c)] = WATER if v == SEA else SHIP
    return hints
