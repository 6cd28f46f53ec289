"""The exact counter: how many layouts satisfy a tallies puzzle, each cell's share of them, and one of them.

A row-by-row transfer over the board. Between two rows the state says, per column, whether the cell above
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
from collections.abc import Iterator
from dataclasses import dataclass
from math import factorial, prod

from battlelog.errors import BudgetExceeded, Inconsistent
from battlelog.rules.variants import ALLOWED, NONE
from battlelog.tallies.puzzle import BOTTOM, LEFT, MIDDLE, RIGHT, SHIP, SINGLE, TOP, WATER, Puzzle

#: Per-column profile values: the cell above is water, a ship cell that does not continue down, or
#: (``OPEN + k - 1``) the k-th cell of a vertical ship that continues down.
EMPTY, CLOSED, OPEN = 0, 1, 2
#: Bits per length in a fleet code and per column in a tallies code (a field of the fleet code keeps a
#: guard bit, so that subtracting a row's finished ships shows an overdrawn length without a loop).
FIELD = 8
GUARD = 128

#: The most steps one count may take (a step: a cell tried while enumerating a row's fillings, or a filling
#: tried from a state). Each stored state and filling cost at least one, so this bounds memory too (about 240
#: bytes a step on a 26-wide board) and time (60,000-140,000 steps a second in pure Python; measured in
#: docs/bimaru.md). An empty 10x10 board with no tallies would need far more: it is refused in one line.
BUDGET = 5_000_000

#: A row's filling: the profile it leaves, its ship cells as a bit mask, the ships it finishes (a fleet
#: code to subtract) and its pieces as a grid shows them.
Move = tuple[tuple[int, ...], int, int, str]


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


def _piece_ok(piece: str | None, up: bool, down: bool, left: bool, right: bool) -> bool:
    """Whether a ship cell with these links (neighbours of the same ship) shows as ``piece``."""
    if piece is None or piece == SHIP:
        return True
    return {
        WATER: False,
        SINGLE: not (up or down or left or right),
        TOP: down and not (up or left or right),
        BOTTOM: up and not (down or left or right),
        LEFT: right and not (up or down or left),
        RIGHT: left and not (up or down or right),
        MIDDLE: (left and right) or (up and down),
    }[piece]


def _letter(up: bool, down: bool, left: bool, right: bool) -> str:
    """The piece letter of a ship cell with these links."""
    if (up and down) or (left and right):
        return "m"
    return "t" if down else "b" if up else "l" if right else "r" if left else "c"


class _Rows:
    """The fillings of each row given the profile above it, enumerated once per (row, profile)."""

    def __init__(self, puzzle: Puzzle, budget: int) -> None:
        self.puzzle = puzzle
        self.budget = budget
        self.steps = 0
        self.lengths = set(puzzle.ships)
        self.longest = max(puzzle.ships)
        self.debit = {length: 1 << (FIELD * (length - 1)) for length in self.lengths}
        self.hints = [[puzzle.hints.get((r, c)) for c in range(puzzle.cols)] for r in range(puzzle.rows)]
        self.cache: dict[tuple[int, tuple[int, ...], int, int, frozenset[int]], list[Move]] = {}

    def spend(self, steps: int) -> None:
        """Count ``steps`` against the budget; past it, a one-line BudgetExceeded naming the budget."""
        self.steps += steps
        if self.steps > self.budget:
            raise BudgetExceeded(
                f"counting this puzzle needs more than {self.budget:,} steps (the counter's budget, --budget): "
                "give more tallies or hints, or a larger budget"
            )

    def moves(self, row: int, above: tuple[int, ...], water: int, full: int, lengths: frozenset[int]) -> list[Move]:
        """The fillings of ``row`` under profile ``above`` with the row's tally, no ship on ``water``
        columns, ship on every ``full`` column, and only ships of ``lengths`` finished."""
        key = (row, above, water, full, lengths)
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = list(self._fill(row, above, water, full, lengths))
        return found

    def _fill(self, row: int, above: tuple[int, ...], water: int, full: int, lengths: frozenset[int]) -> Iterator[Move]:
        """Every such filling of ``row``, cell by cell from the left (depth first), cut as soon as the
        row's tally can no longer be met."""
        p = self.puzzle
        tally = p.row_counts[row]
        cols, touch, last_row = p.cols, p.touch, row == p.rows - 1
        hints = self.hints[row]
        out: list[int] = []
        letters: list[str] = []

        def ship(c: int, up: bool, down: bool, left: bool, right: bool) -> bool:
            return _piece_ok(hints[c], up, down, left, right)

        def go(c: int, run: int, prev: bool, mask: int, debit: int, used: int) -> Iterator[Move]:
            self.spend(1)
            if tally is not None and not used <= tally <= used + cols - c:
                return
            if c == cols:
                if run == 0:
                    yield tuple(out), mask, debit, "".join(letters)
                return
            s = above[c]
            bit = 1 << c
            if (bit & full and hints[c] == WATER) or (bit & water and (s >= OPEN or run)):
                return
            clear = touch != NONE or ((c == 0 or above[c - 1] == EMPTY) and (c == cols - 1 or above[c + 1] == EMPTY))
            choices: list[tuple[int, int, int, str, int]] = []  # (profile out, run, debit, letter, occupied)
            if s >= OPEN:  # a vertical ship comes down into this cell
                k = s - OPEN + 2  # its length with this cell
                if run or (prev and touch != ALLOWED) or not clear:
                    return
                if k < self.longest and not last_row and ship(c, True, True, False, False):
                    choices.append((s + 1, 0, 0, "m", 1))
                if k in lengths and ship(c, True, False, False, False):
                    choices.append((CLOSED, 0, self.debit[k], "b", 1))
            elif run:  # a horizontal ship comes in from the left
                if (s == CLOSED and touch != ALLOWED) or not clear:
                    return
                k = run + 1
                if k < self.longest and c < cols - 1 and ship(c, False, False, True, True):
                    choices.append((CLOSED, k, 0, "m", 1))
                if k in lengths and ship(c, False, False, True, False):
                    choices.append((CLOSED, 0, self.debit[k], "r", 1))
            else:
                if (hints[c] is None or hints[c] == WATER) and not bit & full:
                    choices.append((EMPTY, 0, 0, ".", 0))
                if clear and not bit & water and (touch == ALLOWED or not (prev or s == CLOSED)):
                    if 1 in lengths and ship(c, False, False, False, False):
                        choices.append((CLOSED, 0, self.debit[1], "c", 1))
                    if self.longest > 1 and not last_row and ship(c, False, True, False, False):
                        choices.append((OPEN, 0, 0, "t", 1))
                    if self.longest > 1 and c < cols - 1 and ship(c, False, False, False, True):
                        choices.append((CLOSED, 1, 0, "l", 1))
            for profile, new_run, paid, letter, occupied in choices:
                out.append(profile)
                letters.append(letter)
                yield from go(c + 1, new_run, bool(occupied), mask | bit * occupied, debit + paid, used + occupied)
                out.pop()
                letters.pop()

        yield from go(0, 0, False, 0, 0, 0)


class _Counter:
    """The memoised transfer: completions of each residual subproblem, and the edges between them."""

    def __init__(self, puzzle: Puzzle, budget: int) -> None:
        p = puzzle
        self.p = p
        self.rows = _Rows(p, budget)
        self.by_length = sorted(p.lengths.items())
        self.tallied = [c for c in range(p.cols) if p.col_counts[c] is not None]
        self.guards = sum(GUARD << (FIELD * (length - 1)) for length, _ in self.by_length)
        # A row's ship cells as the amounts they take off the tallies code (by mask, filled as met).
        self.spread: dict[int, int] = {}
        self.untallied_cols = p.cols - len(self.tallied)
        # Cells the rows from r on must hold at least / may hold at most, by their tallies.
        self.row_low = [sum(t for t in p.row_counts[r:] if t is not None) for r in range(p.rows + 1)]
        self.row_high = [self.row_low[r] + p.cols * sum(t is None for t in p.row_counts[r:]) for r in range(p.rows + 1)]
        self.memo: dict[tuple[int, tuple[int, ...], int, int], int] = {}
        self.edges: dict[tuple[int, tuple[int, ...], int, int], list[tuple[tuple[int, tuple[int, ...], int, int], int, str]]] = {}

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
        water = full = col_sum = 0
        for c in self.tallied:
            v = (cols_code >> (FIELD * c)) & 0xFF
            col_sum += v
            if v == 0:
                water |= 1 << c
            elif v == rows_left:
                full |= 1 << c
            elif v > rows_left:
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
    one that needs more than ``budget`` steps is a one-line BudgetExceeded."""
    counter = _Counter(puzzle, budget)
    start = counter.start()
    total = counter.count(start)
    names = prod(factorial(n) for n in Counter(puzzle.ships).values())
    if total == 0:
        return Count(0, 0, None, None, counter.rows.steps)
    cells = counter.shares(start, total) if marginals else None
    return Count(total, total * names, cells, counter.one(start), counter.rows.steps)


def solve(puzzle: Puzzle, marginals: bool = False, budget: int = BUDGET) -> Count:
    """``count``, but a puzzle with no solution is an Inconsistent error (one line)."""
    result = count(puzzle, marginals, budget)
    if result.solutions == 0:
        raise Inconsistent("the puzzle has no solution: no layout of the fleet meets its tallies and hints")
    return result
