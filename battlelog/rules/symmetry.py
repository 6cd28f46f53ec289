"""The symmetries of a board, acting on cells, boards and states: a square board has eight (rotations
and reflections), a rectangle four (the identity, the two mirrors and the half turn: no transpose).

They map layouts to layouts and answers to answers, so the image of a state has the image of its
posterior: an engine may sweep a board in any of eight raster orders (sweeping the image of a state
in plain row-major order is the same thing), a cache can answer all the images of a state at once
(:mod:`battlelog.engines.canonical`), and the optimum solver stores one state of each orbit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, Placement, placement_starts
from battlelog.rules.line_counts import Tallies
from battlelog.rules.state import GameState, Shot


@dataclass(frozen=True)
class Symmetry:
    """``(r, c)`` is transposed first (when ``transpose``), then its row and/or column reversed."""

    transpose: bool
    flip_rows: bool
    flip_cols: bool

    def cell(self, cell: Cell, rows: int, cols: int | None = None) -> Cell:
        """The image of ``cell`` on a ``rows`` x ``cols`` board (square when ``cols`` is omitted); a
        transpose maps it to a ``cols`` x ``rows`` board."""
        cols = rows if cols is None else cols
        r, c = (cell[1], cell[0]) if self.transpose else cell
        rows, cols = (cols, rows) if self.transpose else (rows, cols)
        return (rows - 1 - r if self.flip_rows else r, cols - 1 - c if self.flip_cols else c)

    def shape(self, rows: int, cols: int) -> tuple[int, int]:
        """The shape of the image of a ``rows`` x ``cols`` board."""
        return (cols, rows) if self.transpose else (rows, cols)

    @cached_property
    def inverse(self) -> Symmetry:
        """The symmetry that undoes this one (flips commute; a transpose swaps which axis is flipped)."""
        if not self.transpose:
            return self
        return Symmetry(True, self.flip_cols, self.flip_rows)

    def index_map(self, rows: int, cols: int | None = None) -> np.ndarray:
        """``out[k]``: the row-major index (on the image board) of the image of the cell with row-major
        index ``k`` on a ``rows`` x ``cols`` board (square when ``cols`` is omitted)."""
        return _index_map(self, rows, rows if cols is None else cols)

    def board(self, values: np.ndarray) -> np.ndarray:
        """The image board: the R x C array ``values`` moved so that ``out[image of x] = values[x]``
        for every cell x (C x R under a transpose)."""
        rows, cols = values.shape[:2]
        out = np.empty((*self.shape(rows, cols), *values.shape[2:]), dtype=values.dtype)
        flat = values.reshape(rows * cols, *values.shape[2:])
        out.reshape(rows * cols, *values.shape[2:])[self.index_map(rows, cols)] = flat
        return out

    def placement(self, placement: Placement, rows: int, cols: int | None = None) -> Placement:
        """The image of a placement, named again by its canonical (first row-major) cell."""
        return Placement.from_cells(placement.ship, (self.cell(cell, rows, cols) for cell in placement.cells))

    def state(self, state: GameState) -> GameState:
        """The image of a game state: every shot moved, in the same order, with the same answer, and the tallies
        moved with their lines (on a rectangle only the symmetries that keep its shape apply: see :func:`symmetries_of`)."""
        rows, cols = state.rows, state.cols
        if self.transpose and rows != cols:
            raise ValueError(f"a transpose does not map the {rows}x{cols} board to itself")
        shots = tuple(Shot(*self.cell(s.cell, rows, cols), s.result, s.ship) for s in state.shots)
        row_counts, col_counts = self.tallies(state.row_counts, state.col_counts)
        return GameState(state.config, shots, row_counts=row_counts, col_counts=col_counts)

    def tallies(self, row_counts: Tallies | None, col_counts: Tallies | None) -> tuple[Tallies | None, Tallies | None]:
        """The image board's row and column tallies: a transpose swaps them, a flip reverses its axis's."""
        rows_image, cols_image = (col_counts, row_counts) if self.transpose else (row_counts, col_counts)
        if self.flip_rows and rows_image is not None:
            rows_image = rows_image[::-1]
        if self.flip_cols and cols_image is not None:
            cols_image = cols_image[::-1]
        return rows_image, cols_image

    def placement_order(self, config: GameConfig, ship: int) -> np.ndarray:
        """``out[k]``: the index, in ``config.placements(ship)``, of the image of placement ``k``."""
        return _placement_order(self, config.rows, config.cols, ship, config.ships[ship])


#: All eight, the identity first; the first four do not transpose, so they are a rectangle's symmetries.
SYMMETRIES: tuple[Symmetry, ...] = tuple(
    Symmetry(t, fr, fc) for t in (False, True) for fr in (False, True) for fc in (False, True)
)
IDENTITY = SYMMETRIES[0]


def symmetries_of(rows: int, cols: int) -> tuple[Symmetry, ...]:
    """The symmetries that map a ``rows`` x ``cols`` board to itself: all eight on a square, on a
    rectangle the four that do not transpose (identity, the two mirrors, the half turn)."""
    return SYMMETRIES if rows == cols else SYMMETRIES[:4]


@lru_cache(maxsize=256)
def _index_map(symmetry: Symmetry, rows: int, cols: int) -> np.ndarray:
    r, c = np.divmod(np.arange(rows * cols, dtype=np.int64), cols)  # what Symmetry.cell does, on arrays
    if symmetry.transpose:
        r, c = c, r
    image_rows, image_cols = symmetry.shape(rows, cols)
    if symmetry.flip_rows:
        r = image_rows - 1 - r
    if symmetry.flip_cols:
        c = image_cols - 1 - c
    out = r * image_cols + c
    out.setflags(write=False)
    return out


@lru_cache(maxsize=1024)
def _placement_order(symmetry: Symmetry, rows: int, cols: int, ship: int, length: int) -> np.ndarray:
    """Computed on arrays: the image of a placement is the segment between the images of its end cells,
    named by the smaller of the two (its canonical cell), and its index follows ``ship_placements``'
    order on the image board (the horizontal placements row by row, then the vertical ones)."""
    starts, step = placement_starts(rows, cols, length)
    cells = _index_map(symmetry, rows, cols)
    first, last = cells[starts], cells[starts + step * (length - 1)]
    start = np.minimum(first, last)
    image_rows, image_cols = symmetry.shape(rows, cols)
    r, c = start // image_cols, start % image_cols
    horizontal = (first // image_cols == last // image_cols) if length > 1 else np.ones(len(starts), dtype=bool)
    across = max(0, image_cols - length + 1)
    out = np.where(horizontal, r * across + c, image_rows * across + r * image_cols + c).astype(np.int64)
    out.setflags(write=False)
    return out


__all__ = ["IDENTITY", "SYMMETRIES", "Symmetry", "symmetries_of"]
