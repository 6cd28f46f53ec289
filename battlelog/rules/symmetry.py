"""The eight symmetries of a square board (rotations and reflections), acting on cells, boards and states.

They map layouts to layouts and answers to answers, so the image of a state has the image of its
posterior: an engine may sweep a board in any of eight raster orders (sweeping the image of a state
in plain row-major order is the same thing), a cache can answer all eight images of a state at once
(:mod:`battlelog.engines.canonical`), and the optimum solver stores one state of each orbit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, Placement, ship_placements
from battlelog.rules.state import GameState, Shot


@dataclass(frozen=True)
class Symmetry:
    """``(r, c)`` is transposed first (when ``transpose``), then its row and/or column reversed."""

    transpose: bool
    flip_rows: bool
    flip_cols: bool

    def cell(self, cell: Cell, size: int) -> Cell:
        """The image of ``cell`` on a ``size`` x ``size`` board."""
        r, c = (cell[1], cell[0]) if self.transpose else cell
        return (size - 1 - r if self.flip_rows else r, size - 1 - c if self.flip_cols else c)

    @cached_property
    def inverse(self) -> Symmetry:
        """The symmetry that undoes this one (flips commute; a transpose swaps which axis is flipped)."""
        if not self.transpose:
            return self
        return Symmetry(True, self.flip_cols, self.flip_rows)

    def index_map(self, size: int) -> np.ndarray:
        """``out[k]``: the row-major index of the image of the cell with row-major index ``k``."""
        return _index_map(self, size)

    def board(self, values: np.ndarray) -> np.ndarray:
        """The N x N array ``out`` with ``out[image of x] = values[x]`` for every cell x."""
        n = values.shape[0]
        out = np.empty_like(values)
        out.reshape(n * n, *values.shape[2:])[self.index_map(n)] = values.reshape(n * n, *values.shape[2:])
        return out

    def placement(self, placement: Placement, size: int) -> Placement:
        """The image of a placement, named again by its canonical (first row-major) cell."""
        return Placement.from_cells(placement.ship, (self.cell(cell, size) for cell in placement.cells))

    def state(self, state: GameState) -> GameState:
        """The image of a game state: every shot moved, in the same order, with the same answer."""
        n = state.size
        shots = tuple(Shot(*self.cell(s.cell, n), s.result, s.ship) for s in state.shots)
        return GameState(state.config, shots)

    def placement_order(self, config: GameConfig, ship: int) -> np.ndarray:
        """``out[k]``: the index, in ``config.placements(ship)``, of the image of placement ``k``."""
        return _placement_order(self, config.size, ship, config.ships[ship])


#: All eight, the identity first.
SYMMETRIES: tuple[Symmetry, ...] = tuple(
    Symmetry(t, fr, fc) for t in (False, True) for fr in (False, True) for fc in (False, True)
)
IDENTITY = SYMMETRIES[0]


@lru_cache(maxsize=256)
def _index_map(symmetry: Symmetry, size: int) -> np.ndarray:
    out = np.empty(size * size, dtype=np.int64)
    for r in range(size):
        for c in range(size):
            image = symmetry.cell((r, c), size)
            out[r * size + c] = image[0] * size + image[1]
    out.setflags(write=False)
    return out


@lru_cache(maxsize=1024)
def _placement_order(symmetry: Symmetry, size: int, ship: int, length: int) -> np.ndarray:
    placements = ship_placements(size, ship, length)
    where = {p: k for k, p in enumerate(placements)}
    out = np.array([where[symmetry.placement(p, size)] for p in placements], dtype=np.int64)
    out.setflags(write=False)
    return out


__all__ = ["IDENTITY", "SYMMETRIES", "Symmetry"]
