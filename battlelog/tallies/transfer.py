"""The cell transfer: the counter for puzzles with tallies missing. It sweeps the board cell by cell in
reading order; the state after a cell is what the cells still to come need to know, packed into one
64-bit integer (:mod:`battlelog.tallies.transfer_kernel`): per column whether the frontier cell is water, a
ship cell that stops or an open vertical ship and its length so far; whether the cell above-left is ship
(for no contact); the open horizontal run; the current row's ship cells (when its tally is given); the
ships left of each length; and, only for columns whose tally is given, the cells they still need. A column
with no tally carries no counter, so the fewer tallies are given the smaller the state: that is where the
search (:mod:`battlelog.tallies.search`), whose pruning lives on the tallies, is weakest. The board is
transposed first when that makes the tallied columns' counters fewer (rows' tallies cost nothing: each row
is checked as it ends).

Each set of ships is one path (a cell's links to its neighbours are part of the move), so the count is
exact: int64 ways, with a float64 shadow that refuses a count that could overflow. Shares are forward
ways times backward completions over the moves that put a ship on a cell; one solution follows moves whose
target has completions. Every layer is kept for the backward pass; the budget counts states expanded, so
it bounds memory (16 bytes a state) as well as time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from battlelog.tallies.puzzle import BOTTOM, LEFT, MIDDLE, RIGHT, SHIP, SINGLE, TOP, WATER, Puzzle
from battlelog.tallies.rows import over_budget

#: Hint codes of the kernel.
_CODES = {WATER: 0, SHIP: 1, SINGLE: 2, TOP: 3, BOTTOM: 4, LEFT: 5, RIGHT: 6, MIDDLE: 7}
#: A piece seen across the diagonal: the transposed board's piece.
_TRANSPOSED = {TOP: LEFT, LEFT: TOP, BOTTOM: RIGHT, RIGHT: BOTTOM}
_LETTERS_TRANSPOSED = str.maketrans("tlbr", "ltrb")
#: Counts past this might have wrapped an int64 partial sum; such a puzzle goes to the row sweep.
_SAFE = float(2**62)
#: A layer of the sweep: sorted states, their ways (int64) and the same as floats.
Layer = tuple[np.ndarray, np.ndarray, np.ndarray]
_TOUCH = {"none": 0, "diagonal": 1, "allowed": 2}


@dataclass(frozen=True)
class Transferred:
    """The transfer's answer: solutions (sets of ships), shares, one solution as rows of letters
    (``None`` when there is none) and the states expanded."""

    solutions: int
    cells: list[list[float]]
    solution: list[str] | None
    steps: int


def transposed(p: Puzzle) -> Puzzle:
    """The same puzzle across the diagonal (rows become columns, pieces turn with it)."""
    hints = {(c, r): _TRANSPOSED.get(piece, piece) for (r, c), piece in p.hints.items()}
    return Puzzle(p.cols, p.rows, p.ships, p.col_counts, p.row_counts, hints, p.touch)


def _key_radices(p: Puzzle) -> list[int]:
    """The radices of a state's digits: frontier per column, above-left bit, run, row cells, fleet per
    length, need per tallied column."""
    longest = max(p.ships)
    fleet = [p.ships.count(length) + 1 for length in range(1, longest + 1)]
    needs = [t + 1 for t in p.col_counts if t is not None]
    return [longest + 1] * p.cols + [2, longest, p.cols + 1] + fleet + needs


def _states_bound(p: Puzzle) -> int:
    """How many distinct states the packing can name (it must fit an int64)."""
    return int(np.prod(np.array(_key_radices(p), dtype=object)))


class _Sweep:
    """The arrays the kernel reads, for a puzzle whose states fit an int64."""

    def __init__(self, p: Puzzle) -> None:
        self.p = p
        longest = max(p.ships)
        weight = 1
        self.wp = np.zeros(p.cols, dtype=np.int64)
        for c in range(p.cols):
            self.wp[c], weight = weight, weight * (longest + 1)
        wdg, weight = weight, weight * 2
        wrun, weight = weight, weight * longest
        wrow, weight = weight, weight * (p.cols + 1)
        self.wf = np.zeros(longest + 1, dtype=np.int64)
        self.rf = np.ones(longest + 1, dtype=np.int64)
        self.start = 0
        for length in range(1, longest + 1):
            n = p.ships.count(length)
            self.wf[length], self.rf[length] = weight, n + 1
            self.start += n * weight
            weight *= n + 1
        self.modulus = weight if any(t is not None for t in p.col_counts) else 0
        self.wc = np.zeros(p.cols, dtype=np.int64)
        self.rc = np.ones(p.cols, dtype=np.int64)
        for c, t in enumerate(p.col_counts):
            if t is not None:
                self.wc[c], self.rc[c] = weight, t + 1
                self.start += t * weight
                weight *= t + 1
        self.g = np.array([p.rows, p.cols, longest, _TOUCH[p.touch], wdg, wrun, wrow], dtype=np.int64)
        self.hint = np.array(
            [_CODES.get(p.hints.get((r, c), ""), -1) for r in range(p.rows) for c in range(p.cols)], dtype=np.int64
        )
        self.rowt = np.array([-1 if t is None else t for t in p.row_counts], dtype=np.int64)
        open_cell = [[p.hints.get((r, c)) != WATER for c in range(p.cols)] for r in range(p.rows)]
        self.rowroom = np.array([sum(line[c + 1 :]) for line in open_cell for c in range(p.cols)], dtype=np.int64)
        self.colroom = np.array(
            [sum(open_cell[i][c] for i in range(r + 1, p.rows)) for r in range(p.rows) for c in range(p.cols)], dtype=np.int64
        )

        self.bounds = np.array([self._bound(r, c, open_cell) for r in range(p.rows) for c in range(p.cols)], dtype=np.int64)

    def _bound(self, r: int, c: int, open_cell: list[list[bool]]) -> list[int]:
        """After cell (r, c): what the tallied rows below need, the open cells of untallied rows (this
        row's after c, when untallied, and those below) and of untallied columns (cells after this one)."""
        p = self.p
        below = range(r + 1, p.rows)
        need = sum(p.row_counts[i] or 0 for i in below)
        rows = sum(sum(open_cell[i]) for i in below if p.row_counts[i] is None)
        if p.row_counts[r] is None:
            rows += sum(open_cell[r][c + 1 :])
        cols = sum(open_cell[i][j] for j in range(p.cols) if p.col_counts[j] is None for i in below)
        cols += sum(open_cell[r][j] for j in range(c + 1, p.cols) if p.col_counts[j] is None)
        return [need, rows, cols]

    def args(self) -> tuple[np.ndarray, ...]:
        """The kernel's arrays after the cell."""
        return (
            self.g,
            self.wp,
            self.wf,
            self.rf,
            self.wc,
            self.rc,
            self.hint,
            self.rowt,
            self.rowroom,
            self.colroom,
            self.bounds,
        )

    def _layers(self, budget: int, alive: list[np.ndarray] | None, spent: int = 0) -> tuple[list[Layer], int] | None:
        """The forward layers (the states before each cell and after the last), each state with its ways;
        with ``alive``, only states whose digits but the columns' needs are alive there; and the states
        expanded, counted on from ``spent``. ``None`` when a count may overflow an int64."""
        from battlelog.tallies import transfer_kernel as kernel  # numba: loaded by a count, not by `--help`

        p = self.p
        keys = np.array([self.start], dtype=np.int64)
        counts = np.ones(1, dtype=np.int64)
        floats = np.ones(1, dtype=np.float64)
        layers = []
        steps = spent
        for cell in range(p.rows * p.cols):
            steps += len(keys)
            if steps > budget:
                raise over_budget(budget)
            layers.append((keys, counts, floats))
            keys, counts, floats = kernel.forward(keys, counts, floats, cell // p.cols, cell % p.cols, *self.args())
            if alive is not None:
                keys, counts, floats = kernel.keep(keys, counts, floats, alive[cell + 1], self.modulus)
            if len(floats) and floats.max() > _SAFE:
                return None
        layers.append((keys, counts, floats))
        return layers, steps

    def _completions(self, layers: list[Layer]) -> tuple[list[np.ndarray], np.ndarray]:
        """Each layer's completions (float64) and, per cell, the ways with a ship there."""
        from battlelog.tallies import transfer_kernel as kernel

        p = self.p
        later = kernel.finished(layers[-1][0], self.wf, self.rf, int(self.g[2]))
        dones = [later]
        ships = np.zeros(p.rows * p.cols)
        for cell in range(p.rows * p.cols - 1, -1, -1):
            before, _, fwd = layers[cell]
            later, ships[cell] = kernel.backward(
                before, layers[cell + 1][0], later, fwd, cell // p.cols, cell % p.cols, *self.args()
            )
            dones.append(later)
        dones.reverse()
        return dones, ships

    def alive(self, budget: int) -> tuple[list[np.ndarray], int] | None:
        """Per layer, the sorted states that the start reaches and that complete: with no column tallies,
        these are what a state of the full sweep less its columns' needs must be."""
        found = self._layers(budget, None)
        if found is None:
            return None
        layers, steps = found
        dones, _ = self._completions(layers)
        return [keys[done > 0] for (keys, _, _), done in zip(layers, dones)], steps

    def run(self, budget: int) -> Transferred | None:
        """Forward layers, then backward completions and shares; ``None`` when a count may overflow. With
        column tallies, the sweep without them first: its states that complete prune the full sweep."""
        alive, spent = None, 0
        if self.modulus:
            p = self.p
            free = Puzzle(p.rows, p.cols, p.ships, p.row_counts, (None,) * p.cols, p.hints, p.touch)
            found = _Sweep(free).alive(budget)
            if found is None:
                return None
            alive, spent = found
        forward = self._layers(budget, alive, spent)
        if forward is None:
            return None
        layers, steps = forward
        final_counts = layers[-1][1]
        dones, ships = self._completions(layers)
        total = sum(final_counts[dones[-1] > 0].tolist())  # Python ints: the sum of int64 ways is exact
        if total == 0:
            return Transferred(0, [], None, steps)
        shares = (ships / total).reshape(self.p.rows, self.p.cols).tolist()
        return Transferred(total, shares, self._one(layers, dones), steps)

    def _one(self, layers: list[Layer], dones: list[np.ndarray]) -> list[str]:
        """One solution: from the start, each cell's first move to a state with completions."""
        from battlelog.tallies import transfer_kernel as kernel

        p = self.p
        out = np.zeros((4, 3), dtype=np.int64)
        cand = np.zeros((4, 5), dtype=np.int64)
        key, letters = self.start, []
        for cell in range(p.rows * p.cols):
            after, done = layers[cell + 1][0], dones[cell + 1]
            m = kernel.expand(key, cell // p.cols, cell % p.cols, *self.args(), out, cand)
            for j in range(m):
                at = int(np.searchsorted(after, out[j, 0]))
                if at < len(after) and after[at] == out[j, 0] and done[at] > 0:
                    key = int(out[j, 0])
                    letters.append(kernel.LETTERS[out[j, 2]])
                    break
        return ["".join(letters[r * p.cols : (r + 1) * p.cols]) for r in range(p.rows)]


def transfer(p: Puzzle, budget: int) -> Transferred | None:
    """The puzzle counted by the transfer, on whichever side leaves fewer column counters; ``None`` when its
    states do not fit an int64 or its counts might overflow one (the caller sweeps rows instead)."""
    flipped = transposed(p)
    turn = _states_bound(flipped) < _states_bound(p)
    board = flipped if turn else p
    if _states_bound(board) >= 2**62:
        return None
    found = _Sweep(board).run(budget)
    if found is None or not turn or found.solutions == 0:
        return found
    cells = [list(line) for line in zip(*found.cells)]
    solution = None
    if found.solution is not None:
        solution = ["".join(line).translate(_LETTERS_TRANSPOSED) for line in zip(*found.solution)]
    return Transferred(found.solutions, cells, solution, found.steps)
