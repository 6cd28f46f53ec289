"""A Bimaru puzzle maker: a layout drawn uniformly, all its tallies, and few revealed pieces that make its
solution unique, proven by the exact count; and, for any puzzle, which single revealed piece would make it
unique.

The hints are found greedily, then thinned: while the puzzle has more than one solution, the true piece of
the cell whose share of the solutions is nearest one half is revealed (the cell the solutions disagree on
most); then each hint in turn is dropped if the puzzle stays unique without it. The result is minimal (no
hint can be taken away) but not proven minimum (a smaller set may exist): finding the smallest would mean
trying sets of hints, each a count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell
from battlelog.rules.layouts import sample_layout
from battlelog.rules.variants import NONE, Rules
from battlelog.tallies.count import count
from battlelog.tallies.puzzle import BOTTOM, LEFT, MIDDLE, PIECES, RIGHT, SHIP, SINGLE, TOP, WATER, Puzzle


def shown(cells: Sequence[Cell], cell: Cell) -> str:
    """How ``cell`` of a ship on ``cells`` (in order along the ship) shows on a Bimaru grid."""
    if len(cells) == 1:
        return SINGLE
    i = list(cells).index(cell)
    if 0 < i < len(cells) - 1:
        return MIDDLE
    if cells[0][0] == cells[-1][0]:
        return LEFT if i == 0 else RIGHT
    return TOP if i == 0 else BOTTOM


def truth(size: int, ships: Sequence[int], seed: int) -> dict[Cell, str]:
    """A layout of ``ships`` drawn uniformly on a ``size`` board under no contact, as the piece each
    cell shows (water where no ship is)."""
    layout = sample_layout(GameConfig(size, tuple(ships), Rules(touch=NONE)), np.random.default_rng(seed))
    pieces = {(r, c): WATER for r in range(size) for c in range(size)}
    for placed in layout:
        for cell in placed.cells:
            pieces[cell] = shown(placed.cells, cell)
    return pieces


def tallied(size: int, ships: Sequence[int], pieces: Mapping[Cell, str], hints: Mapping[Cell, str]) -> Puzzle:
    """The puzzle with every tally of the layout ``pieces`` and ``hints`` revealed."""
    rows = tuple(sum(pieces[(r, c)] != WATER for c in range(size)) for r in range(size))
    cols = tuple(sum(pieces[(r, c)] != WATER for r in range(size)) for c in range(size))
    return Puzzle(size, size, tuple(ships), rows, cols, dict(hints), NONE)


def make(size: int, ships: Sequence[int], seed: int, extra: int = 0) -> tuple[Puzzle, dict[Cell, str]]:
    """A puzzle with a unique solution and a minimal set of hints (see the module's docstring), then
    ``extra`` more true pieces at random cells (an easier puzzle); with the layout's pieces."""
    pieces = truth(size, ships, seed)
    hints: dict[Cell, str] = {}
    while True:
        result = count(tallied(size, ships, pieces, hints), marginals=True)
        if result.solutions == 1:
            break
        assert result.cells is not None  # counted with shares, and the layout itself is a solution
        cell = min(
            (c for c in pieces if c not in hints),
            key=lambda c: (abs(result.cells[c[0]][c[1]] - 0.5), c),  # type: ignore[index]
        )
        hints[cell] = pieces[cell]
    for cell in sorted(hints):
        fewer = {c: p for c, p in hints.items() if c != cell}
        if count(tallied(size, ships, pieces, fewer)).solutions == 1:
            hints = fewer
    rng = np.random.default_rng(seed)
    others = [c for c in sorted(pieces) if c not in hints]
    for k in rng.permutation(len(others))[: max(0, extra)]:
        hints[others[int(k)]] = pieces[others[int(k)]]
    return tallied(size, ships, pieces, hints), pieces


def single_hints(puzzle: Puzzle) -> list[tuple[Cell, str]]:
    """Every (cell, piece) not yet revealed that, revealed alone, leaves exactly one solution (for a puzzle
    with more than one: on a unique puzzle every true piece does)."""
    out = []
    for r in range(puzzle.rows):
        for c in range(puzzle.cols):
            if (r, c) in puzzle.hints:
                continue
            for piece in PIECES:
                if piece == SHIP:
                    continue
                if count(puzzle.with_hints({**puzzle.hints, (r, c): piece})).solutions == 1:
                    out.append(((r, c), piece))
    return out
