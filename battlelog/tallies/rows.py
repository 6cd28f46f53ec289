"""A tallies puzzle's rows: every filling of one row given the profile of the row above it, enumerated
once per (row, profile) and shared by every state of the counter (:mod:`battlelog.tallies.count`) that
reaches that profile, with the budget of steps the whole count may take."""

from __future__ import annotations

from collections.abc import Iterator

from battlelog.errors import BudgetExceeded
from battlelog.rules.variants import ALLOWED, NONE
from battlelog.tallies.puzzle import BOTTOM, LEFT, MIDDLE, RIGHT, SHIP, SINGLE, TOP, WATER, Puzzle

#: Per-column profile values: the cell above is water, a ship cell that does not continue down, or
#: (``OPEN + k - 1``) the k-th cell of a vertical ship that continues down.
EMPTY, CLOSED, OPEN = 0, 1, 2
#: Bits per length in a fleet code and per column in a tallies code (a field of the fleet code keeps a
#: guard bit, so that subtracting a row's finished ships shows an overdrawn length without a loop).
FIELD = 8
GUARD = 128

#: A row's filling: the profile it leaves, its ship cells as a bit mask, the ships it finishes (a fleet
#: code to subtract) and its pieces as a grid shows them.
Move = tuple[tuple[int, ...], int, int, str]


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


def over_budget(budget: int) -> BudgetExceeded:
    """The one-line refusal of a count that needs more than ``budget`` steps."""
    return BudgetExceeded(
        f"counting this puzzle needs more than {budget:,} steps (the counter's budget, --budget): "
        "give more tallies or hints, or a larger budget"
    )


class Rows:
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
            raise over_budget(self.budget)

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
