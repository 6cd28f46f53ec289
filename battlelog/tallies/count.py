"""The exact counter: how many layouts satisfy a tallies puzzle, each cell's share of them, and one of them.

First the cells every solution shares are deduced (:mod:`battlelog.tallies.propagate`). A puzzle with every
tally given then goes to the placement search (:mod:`battlelog.tallies.search`), whose solutions are few
enough to reach one by one; one with tallies missing to the compiled cell transfer
(:mod:`battlelog.tallies.transfer`), which shares work between solutions; and when the transfer's state does
not fit an int64 (boards much wider than 10) or its counts might overflow one, to the sweep below.

The sweep is a row-by-row transfer over the board. Between two rows the state says, per column, whether the cell above
is water, a ship cell that stops there, or a vertical ship still open (and how long it is so far); with it
go the column tallies still to fill and the fleet still to place. A row's fillings depend only on the row
and the per-column part, so they are enumerated once per (row, profile) and shared by every state with that
profile; the tallies and the fleet filter them (a row tally picks one popcount, a column whose tally is met
takes no more ship, one whose tally equals the rows left takes one in every row). States are memoised, so
two branches that reach the same residual subproblem (same profile, same tallies left, same fleet left)
count it once: the cache of a model counter, keyed by the canonical form of the residual problem.

Each layout is counted once as a set of ships (ships of equal length alike, as in Bimaru); the game's
convention, distinguishable ships, multiplies by the ways to name equal ships (``Count.layouts``), and the
per-cell shares are the same under both. A ship's piece links (which neighbour continues the same ship)
are part of a row's filling, so under ``touch: allowed`` two ships side by side are told apart from one
longer ship, and each set of ships is one filling.

Why this design and what it costs: docs/bimaru.md.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from math import factorial, prod

from battlelog.errors import Inconsistent
from battlelog.tallies.propagate import as_hints, deduce
from battlelog.tallies.puzzle import WATER, Puzzle
from battlelog.tallies.rows import EMPTY, FIELD, GUARD, OPEN, Rows, over_budget
from battlelog.tallies.search import Search
from battlelog.tallies.transfer import transfer

#: The most steps one count may take (a step: a cell tried while enumerating a row's fillings, or a filling
#: tried from a state). Each stored state and filling cost at least one, so this bounds memory too (about 240
#: bytes a step on a 26-wide board) and time (60,000-140,000 steps a second in pure Python; measured in
#: docs/bimaru.md). An empty 10x10 board with no tallies would need far more: it is refused in one line.
BUDGET = 5_000_000


@dataclass(frozen=True)
class Count:
    """What the counter finds: ``solutions`` (sets of ships, equal lengths alike), ``layouts`` (the
    game's count: ships distinguishable), per-cell shares (``None`` unless asked for) and one solution
    as rows of pieces (``.`` water, ``c`` single, ``t b l r m`` the parts of longer ships; ``None`` when
    there is none); ``steps``: the work it took, as the budget counts it."""

    solutions: int
    layouts: int
    cells: list[list[float]] | None
    solution: list[str] | None
    steps: int


class _Counter:
    """The memoised transfer: completions of each residual subproblem, and the edges between them."""

    def __init__(self, puzzle: Puzzle, budget: int) -> None:
        p = puzzle
        self.p = p
        self.rows = Rows(p, budget)
        self.by_length = sorted(p.lengths.items())
        self.tallied = [c for c in range(p.cols) if p.col_counts[c] is not None]
        self.guards = sum(GUARD << (FIELD * (length - 1)) for length, _ in self.by_length)
        # A row's ship cells as the amounts they take off the tallies code (by mask, filled as met).
        self.spread: dict[int, int] = {}
        self.untallied_cols = p.cols - len(self.tallied)
        # Cells the rows from r on must hold at least / may hold at most, by their tallies.
        self.row_low = [sum(t for t in p.row_counts[r:] if t is not None) for r in range(p.rows + 1)]
        self.row_high = [self.row_low[r] + p.cols * sum(t is None for t in p.row_counts[r:]) for r in range(p.rows + 1)]
        self._lines(p)
        self.memo: dict[tuple[int, tuple[int, ...], int, int], int] = {}
        self.edges: dict[tuple[int, tuple[int, ...], int, int], list[tuple[tuple[int, tuple[int, ...], int, int], int, str]]] = {}

    def _lines(self, p: Puzzle) -> None:
        """Per row, its cells not known to be water (a mask), and per column the cells not known to be
        water from each row on: a tallied column needing more than that is dead, one needing exactly
        that is ship in each of them."""
        free = [[p.hints.get((r, c)) != WATER for c in range(p.cols)] for r in range(p.rows)]
        self.open_cells = [sum(1 << c for c in range(p.cols) if line[c]) for line in free]
        self.room = [[sum(free[i][c] for i in range(r, p.rows)) for c in range(p.cols)] for r in range(p.rows + 1)]

    def start(self) -> tuple[int, tuple[int, ...], int, int]:
        """The state above the first row: no ship yet, every tally and every ship still to place."""
        cols_code = sum((self.p.col_counts[c] or 0) << (FIELD * c) for c in self.tallied)
        fleet = sum((GUARD + n) << (FIELD * (length - 1)) for length, n in self.by_length)
        return (0, (EMPTY,) * self.p.cols, cols_code, fleet)

    def _fleet_left(self, fleet: int) -> list[tuple[int, int]]:
        """(length, ships of it left) from a fleet code."""
        return [(length, ((fleet >> (FIELD * (length - 1))) & 0xFF) - GUARD) for length, _ in self.by_length]

    def _feasible(self, row: int, above: tuple[int, ...], cols_code: int, fleet: int) -> tuple[int, int, frozenset[int]] | None:
        """The columns that must stay water and those that must hold ship in this row, or ``None`` when
        the tallies or the fleet left cannot be met (cell budgets, open ships without a long enough ship)."""
        left = self._fleet_left(fleet)
        runs = sorted(s - OPEN + 1 for s in above if s >= OPEN)
        cells = sum(length * n for length, n in left) - sum(runs)
        if not self.row_low[row] <= cells <= self.row_high[row]:
            return None
        # An open ship of k cells so far needs a ship longer than k; the longest runs take the longest ships.
        longer = sorted((length for length, n in left for _ in range(n)), reverse=True)
        if len(runs) > len(longer) or any(k >= length for k, length in zip(reversed(runs), longer)):
            return None
        rows_left = self.p.rows - row
        room = self.room[row]
        water = full = col_sum = 0
        for c in self.tallied:
            v = (cols_code >> (FIELD * c)) & 0xFF
            col_sum += v
            if v == 0:
                water |= 1 << c
            elif v == room[c]:
                full |= (1 << c) & self.open_cells[row]
            elif v > room[c]:
                return None
        if not col_sum <= cells <= col_sum + self.untallied_cols * rows_left:
            return None
        return water, full, frozenset(length for length, n in left if n)

    def count(self, state: tuple[int, tuple[int, ...], int, int]) -> int:
        """The number of completions of ``state`` (memoised)."""
        found = self.memo.get(state)
        if found is not None:
            return found
        row, above, cols_code, fleet = state
        if row == self.p.rows:
            done = all(s < OPEN for s in above) and cols_code == 0 and all(n == 0 for _, n in self._fleet_left(fleet))
            self.memo[state] = int(done)
            return int(done)
        total = 0
        edges: list[tuple[tuple[int, tuple[int, ...], int, int], int, str]] = []
        bounds = self._feasible(row, above, cols_code, fleet)
        if bounds is not None:
            water, full, lengths = bounds
            guards, spread = self.guards, self.spread
            moves = self.rows.moves(row, above, water, full, lengths)
            self.rows.spend(len(moves))
            for profile, mask, debit, letters in moves:
                left = fleet - debit
                if left & guards != guards:
                    continue
                taken = spread.get(mask)
                if taken is None:
                    taken = spread[mask] = sum(1 << (FIELD * c) for c in self.tallied if mask >> c & 1)
                nxt = (row + 1, profile, cols_code - taken, left)
                n = self.count(nxt)
                if n:
                    total += n
                    edges.append((nxt, mask, letters))
        self.memo[state] = total
        self.edges[state] = edges
        return total

    def shares(self, start: tuple[int, tuple[int, ...], int, int], total: int) -> list[list[float]]:
        """Each cell's share of the solutions: forward counts times backward counts over the edges."""
        p = self.p
        forward: dict[tuple[int, tuple[int, ...], int, int], int] = {start: 1}
        weight: list[defaultdict[int, int]] = [defaultdict(int) for _ in range(p.rows)]
        for row in range(p.rows):
            nxt: dict[tuple[int, tuple[int, ...], int, int], int] = defaultdict(int)
            for state, ways in forward.items():
                for target, mask, _ in self.edges[state]:
                    nxt[target] += ways
                    weight[row][mask] += ways * self.memo[target]
            forward = nxt
        cells = [[0] * p.cols for _ in range(p.rows)]
        for row in range(p.rows):
            for mask, w in weight[row].items():
                while mask:
                    low = mask & -mask
                    cells[row][low.bit_length() - 1] += w
                    mask ^= low
        return [[v / total for v in line] for line in cells]

    def one(self, start: tuple[int, tuple[int, ...], int, int]) -> list[str]:
        """One solution's rows of pieces, following edges to states with completions."""
        state, out = start, []
        while state[0] < self.p.rows:
            state, _, letters = self.edges[state][0]
            out.append(letters)
        return out


def count(puzzle: Puzzle, marginals: bool = False, budget: int = BUDGET) -> Count:
    """The exact number of solutions of ``puzzle`` (and of the game's layouts), one solution, and with
    ``marginals`` each cell's share of the solutions. A puzzle with no solution gives 0 and ``None``;
    one that needs more than ``budget`` steps is a one-line BudgetExceeded. Cells every solution shares
    are deduced first (:mod:`battlelog.tallies.propagate`); a puzzle with every tally given is then
    searched placement by placement (:mod:`battlelog.tallies.search`), one with tallies missing swept
    cell by cell (:mod:`battlelog.tallies.transfer`), or row by row when the transfer cannot hold it."""
    grid = deduce(puzzle)
    if grid is None:
        return Count(0, 0, None, None, 0)
    known = _one_tally_filled(puzzle.with_hints(as_hints(puzzle, grid)))
    if known is None:
        return Count(0, 0, None, None, 0)
    names = prod(factorial(n) for n in Counter(puzzle.ships).values())
    if None not in known.row_counts and None not in known.col_counts:
        return _searched(known, marginals, budget, names)
    swept = transfer(known, budget)
    if swept is not None:
        if swept.solutions == 0:
            return Count(0, 0, None, None, swept.steps)
        return Count(swept.solutions, swept.solutions * names, swept.cells if marginals else None, swept.solution, swept.steps)
    counter = _Counter(known, budget)
    start = counter.start()
    total = counter.count(start)
    if total == 0:
        return Count(0, 0, None, None, counter.rows.steps)
    cells = counter.shares(start, total) if marginals else None
    return Count(total, total * names, cells, counter.one(start), counter.rows.steps)


def _one_tally_filled(puzzle: Puzzle) -> Puzzle | None:
    """The puzzle with a tally that is the only one missing of its rows (or columns) filled in: every
    solution has the fleet's cells, so it is what the others leave. ``None`` when that is out of its line."""
    p = puzzle
    lines = [list(p.row_counts), list(p.col_counts)]
    for counts, size in zip(lines, (p.cols, p.rows)):
        if counts.count(None) == 1:
            left = sum(p.ships) - sum(t for t in counts if t is not None)
            if not 0 <= left <= size:
                return None
            counts[counts.index(None)] = left
    return Puzzle(p.rows, p.cols, p.ships, tuple(lines[0]), tuple(lines[1]), p.hints, p.touch)


def _searched(puzzle: Puzzle, marginals: bool, budget: int, names: int) -> Count:
    """``count`` by the placement search, its nodes spent against the same budget."""
    search = Search(puzzle, budget)
    if not search.run():
        raise over_budget(budget)
    if search.count == 0:
        return Count(0, 0, None, None, search.steps)
    cells = search.shares() if marginals else None
    return Count(search.count, search.count * names, cells, search.solution(), search.steps)


def solve(puzzle: Puzzle, marginals: bool = False, budget: int = BUDGET) -> Count:
    """``count``, but a puzzle with no solution is an Inconsistent error (one line)."""
    result = count(puzzle, marginals, budget)
    if result.solutions == 0:
        raise Inconsistent("the puzzle has no solution: no layout of the fleet meets its tallies and hints")
    return result
