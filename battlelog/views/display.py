"""Text pictures of boards for the terminal: shots, and heat maps of marginals."""

from __future__ import annotations

import os
import string
from typing import TextIO

import numpy as np

from battlelog.rules.aim import tied_best
from battlelog.rules.answers import MISS, SUNK
from battlelog.rules.geometry import Cell, Placement
from battlelog.rules.state import GameState
from battlelog.wording import count_noun

#: What the marks of :func:`board_text` and :func:`heatmap_text` mean.
BOARD_LEGEND = "legend: . not shot, o miss, X hit, # sunk ship, s ship not hit yet"
HEAT_LEGEND = "o miss, X hit, # the hit that sank a ship"


def use_color(stream: TextIO, switched_off: bool = False) -> bool:
    """Colour only on a terminal, and never when switched off or NO_COLOR is set (https://no-color.org)."""
    return stream.isatty() and not switched_off and not os.environ.get("NO_COLOR")


def layouts_line(models: int, answers: str = "the answers") -> str:
    """``56 layouts fit the answers`` / ``1 layout fits the answers``."""
    return f"{count_noun(models, 'layout')} {'fits' if models == 1 else 'fit'} {answers}"


def most_likely(state: GameState, cells: np.ndarray) -> list[Cell]:
    """The unshot cells of highest marginal, row-major, tied by the players' rule (so the advice names
    exactly the cells the problog player draws from); empty once the game is over."""
    if state.over or not state.unshot:
        return []
    return tied_best(state.unshot, [float(cells[cell]) for cell in state.unshot])


def _header(cols: int, width: int) -> str:
    """Column numbers from 1, each right-aligned over cells ``width`` characters wide."""
    return "   " + "".join(f"{c + 1:>{width}}" for c in range(cols))


def board_text(state: GameState, layout: tuple[Placement, ...] | None = None) -> str:
    """The board as a player sees it: ``.`` unshot, ``o`` miss, ``X`` hit, ``#`` sunk ship cell.

    With ``layout``, unshot ship cells are shown as ``s`` (the referee's view).
    """
    rows, n = state.rows, state.cols
    grid = [["."] * n for _ in range(rows)]
    if layout is not None:
        for p in layout:
            for r, c in p.cells:
                grid[r][c] = "s"
    for shot in state.shots:
        grid[shot.row][shot.col] = "o" if shot.result == MISS else "X"
    if layout is not None:
        sunk = {p.ship for p in layout if state.hits.issuperset(p.cells)}  # under every sink rule, named or not
        for p in layout:
            if p.ship in sunk:
                for r, c in p.cells:
                    grid[r][c] = "#"
    width = len(str(n)) + 1  # one space between column numbers: 10 columns on, cells are 3 wide
    lines = [_header(n, width)]
    for r in range(rows):
        lines.append(f"{string.ascii_uppercase[r]:>2} " + "".join(f"{ch:>{width}}" for ch in grid[r]))
    return "\n".join(lines)


#: Background colours from cold to hot (xterm 256-colour palette).
_HEAT = (17, 19, 25, 31, 37, 71, 107, 143, 179, 173, 167, 160, 196)


#: What the numbers beside a tallied state's heat map are.
TALLY_LEGEND = "right of each row and below each column: its tally of ship cells (? not given)"


def _tally(count: int | None) -> str:
    return "?" if count is None else str(count)


def heatmap_text(cells: np.ndarray, state: GameState | None = None, color: bool = True) -> str:
    """Marginals as a grid of percentages, coloured from blue (0) to red (1); shots marked o / X; a state's row and
    column tallies (when it has them) beside the rows and below the columns, as a puzzle prints them."""
    rows, n = cells.shape
    shot = {s.cell: s for s in state.shots} if state is not None else {}
    row_counts = state.row_counts if state is not None else None
    col_counts = state.col_counts if state is not None else None
    lines = [_header(n, 6)]
    for r in range(rows):
        row = [f"{string.ascii_uppercase[r]:>2} "]
        for c in range(n):
            if (r, c) in shot:
                mark = "o" if shot[(r, c)].result == MISS else ("#" if shot[(r, c)].result == SUNK else "X")
                text = f"{mark:>5}"
            else:
                text = f"{100 * cells[r, c]:5.1f}"
            row.append(" ")
            if color and (r, c) not in shot:
                code = _HEAT[min(len(_HEAT) - 1, int(cells[r, c] * len(_HEAT)))]
                text = f"\x1b[48;5;{code}m\x1b[97m{text}\x1b[0m"
            row.append(text)
        if row_counts is not None:
            row.append(f"{_tally(row_counts[r]):>6}")
        lines.append("".join(row))
    if col_counts is not None:
        lines.append("   " + "".join(f"{_tally(count):>6}" for count in col_counts))
    return "\n".join(lines)
