"""The board's geometry: cells and their names, canonical placements, and cells as bit masks.

Below everything else: the rules, the engines, the players and the optimum all speak of cells and
placements in these terms, so there is one definition of each.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from battlelog.errors import ShotError
from battlelog.wording import clip

Cell = tuple[int, int]


@dataclass(frozen=True)
class Placement:
    """One ship lying on the board, named by its canonical cell (leftmost or topmost) and orientation."""

    ship: int
    length: int
    row: int
    col: int
    horizontal: bool

    @cached_property
    def cells(self) -> tuple[Cell, ...]:
        """The cells the ship covers, from the canonical cell on."""
        if self.horizontal:
            return tuple((self.row, self.col + k) for k in range(self.length))
        return tuple((self.row + k, self.col) for k in range(self.length))

    @classmethod
    def from_cells(cls, ship: int, cells: Iterable[Cell]) -> Placement:
        """The placement of ``ship`` that covers exactly ``cells`` (consecutive cells of one row or
        column, in any order), named by its canonical cell."""
        ordered = sorted(cells)
        horizontal = len(ordered) == 1 or ordered[0][0] == ordered[-1][0]
        return cls(ship, len(ordered), ordered[0][0], ordered[0][1], horizontal)

    @property
    def orientation(self) -> str:
        """``"h"`` or ``"v"``, as the ProbLog model names orientations."""
        return "h" if self.horizontal else "v"


@lru_cache(maxsize=1024)
def ship_placements(rows: int, cols: int, ship: int, length: int) -> tuple[Placement, ...]:
    """Canonical placements of one ship on a ``rows`` x ``cols`` board; a ship of length 1 has one
    placement per cell, not two. A ship longer than one side has only the other orientation.

    Cached: layouts are sampled and states grounded thousands of times per experiment.
    """
    out = [
        Placement(ship, length, r, c, True) for r in range(rows) for c in range(cols - length + 1)
    ]
    if length > 1:
        out += [Placement(ship, length, r, c, False) for r in range(rows - length + 1) for c in range(cols)]
    return tuple(out)


@lru_cache(maxsize=64)
def placement_matrix(rows: int, cols: int, length: int) -> np.ndarray:
    """One 0/1 row per canonical placement of a ship of ``length`` (``ship_placements`` order): the
    row-major cells it covers. Counting placements per cell is then one matrix product."""
    starts, step = placement_starts(rows, cols, length)
    out = np.zeros((len(starts), rows * cols), dtype=np.int64)
    out[np.arange(len(starts))[:, None], starts[:, None] + step[:, None] * np.arange(length)] = 1
    out.setflags(write=False)
    return out


def placement_starts(rows: int, cols: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Per canonical placement of a ship of ``length`` (``ship_placements`` order): the row-major
    index of its canonical cell, and the step to its next cell (1 horizontal, ``cols`` vertical).
    Arrays, so that per-placement tables are built without a Python object per placement."""
    horizontal = (np.arange(rows)[:, None] * cols + np.arange(max(0, cols - length + 1))).ravel()
    vertical = (np.arange(max(0, rows - length + 1))[:, None] * cols + np.arange(cols)).ravel() if length > 1 else horizontal[:0]
    steps = np.concatenate([np.ones(len(horizontal), dtype=np.int64), np.full(len(vertical), cols, dtype=np.int64)])
    return np.concatenate([horizontal, vertical]).astype(np.int64), steps


def cell_index(cell: Cell, cols: int) -> int:
    """The row-major index of a cell on a board ``cols`` wide: its bit in a mask."""
    return cell[0] * cols + cell[1]


def cells_mask(cells: Iterable[Cell], cols: int) -> int:
    """A set of cells as one integer with bit ``r * cols + c`` set for each (any board size)."""
    mask = 0
    for cell in cells:
        mask |= 1 << cell_index(cell, cols)
    return mask


def mask_words(mask: int, words: int) -> np.ndarray:
    """A mask as ``words`` 64-bit words, least significant first: what vectorised kernels compare."""
    return np.array([(mask >> (64 * k)) & 0xFFFFFFFFFFFFFFFF for k in range(words)], dtype=np.uint64)


def cell_name(cell: Cell) -> str:
    """A cell as people name it: row letter then column number from 1 (``(2, 6)`` is ``C7``)."""
    return f"{string.ascii_uppercase[cell[0]]}{cell[1] + 1}"


def parse_cell(text: str, rows: int, cols: int | None = None) -> Cell:
    """A cell named as people name it (``C7``, ``c7``, ``C 7``) on a ``rows`` x ``cols`` board (square
    when ``cols`` is omitted); anything else is a ShotError."""
    cols = rows if cols is None else cols
    match = re.fullmatch(r"\s*([A-Za-z])\s*([0-9]{1,2})\s*", text)  # ASCII digits only: C٧ is not C7
    letters = string.ascii_uppercase[:rows]
    if match is None or match[1].upper() not in letters or not 1 <= int(match[2]) <= cols:
        raise ShotError(
            f"{clip(repr(text.strip()))} is not a cell of the {rows}x{cols} board "
            f"(rows A..{letters[-1]}, columns 1..{cols}, e.g. C3)"
        )
    return (letters.index(match[1].upper()), int(match[2]) - 1)
