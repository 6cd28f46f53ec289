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

from dataclasses import dataclass
from functools import cache

import numpy as np

from battlelog.bits import WORD, words_for
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


def _words(mask: int, words: int) -> list[int]:
    """A Python int mask as 64-bit words, low word first."""
    return [(mask >> (WORD * w)) & 0xFFFFFFFFFFFFFFFF for w in range(words)]


class Search:
    """The search over placements, run by the compiled kernel (:mod:`battlelog.tallies.search_kernel`);
    ``count`` is the number of solutions, ``chosen`` how many of them hold each placement, ``first`` one
    solution's placements, ``steps`` the nodes visited."""

    def __init__(self, puzzle: Puzzle, budget: int) -> None:
        self.p = puzzle
        self.budget = budget
        self.all = placements(puzzle)
        self.count = self.steps = 0
        self.chosen: list[int] = []
        self.first: list[int] | None = None

    def run(self) -> bool:
        """Search from the whole board (every cell free but water hints, revealed ship cells required);
        False when the budget ran out first."""
        from battlelog.tallies import search_kernel as kernel  # numba: loaded by a count, not by `--help`

        p = self.p
        words = words_for(p.rows * p.cols)
        kinds = sorted(set(p.ships), reverse=True)
        n = len(self.all)
        masks = np.array([_words(x.mask, words) for x in self.all], dtype=np.uint64).reshape(n, words)
        halos = np.array([_words(x.halo, words) for x in self.all], dtype=np.uint64).reshape(n, words)
        kind = np.array([kinds.index(x.length) for x in self.all], dtype=np.int64)
        shares = [x.rows + tuple((p.rows + i, k) for i, k in x.cols) for x in self.all]
        width = max((len(x) for x in shares), default=1)
        lines_i = np.zeros((n, width), dtype=np.int64)
        lines_n = np.zeros((n, width), dtype=np.int64)
        for k, share in enumerate(shares):
            for s, (i, cells) in enumerate(share):
                lines_i[k, s], lines_n[k, s] = i, cells
        lines_k = np.array([len(x) for x in shares], dtype=np.int64)
        full = (1 << p.cols) - 1
        column = sum(1 << (r * p.cols) for r in range(p.rows))
        lines = [(full << (r * p.cols), r) for r in range(p.rows) if p.row_counts[r] is not None]
        lines += [(column << c, p.rows + c) for c in range(p.cols) if p.col_counts[c] is not None]
        lmask = np.array([_words(m, words) for m, _ in lines], dtype=np.uint64).reshape(len(lines), words)
        lidx = np.array([i for _, i in lines], dtype=np.int64)
        need = np.array([_UNBOUNDED if t is None else t for t in (*p.row_counts, *p.col_counts)], dtype=np.int64)
        fleet = np.array([p.ships.count(length) for length in kinds], dtype=np.int64)
        free = (1 << (p.rows * p.cols)) - 1
        required = 0
        for (r, c), piece in p.hints.items():
            if piece == WATER:
                free &= ~(1 << (r * p.cols + c))
            else:
                required |= 1 << (r * p.cols + c)
        free_words = np.array(_words(free, words), dtype=np.uint64)
        required_words = np.array(_words(required, words), dtype=np.uint64)
        chosen = np.zeros(n, dtype=np.int64)
        stack = np.zeros(len(p.ships), dtype=np.int64)
        first = np.zeros(len(p.ships), dtype=np.int64)
        out = np.array([0, 0, self.budget, 0, 0], dtype=np.int64)
        if kernel.settle(free_words, required_words, need, lmask, lidx):
            kernel.node(free_words, required_words, np.arange(n, dtype=np.int64), n, len(p.ships), 0, masks, halos,
                        kind, lines_i, lines_n, lines_k, need, fleet, np.full(len(kinds), -1, dtype=np.int64), lmask,
                        lidx, stack, chosen, first, out)  # fmt: skip
        self.count, self.steps = int(out[0]), int(out[1])
        self.chosen = [int(x) for x in chosen]
        self.first = [int(x) for x in first] if out[4] else None
        return not out[3]

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
