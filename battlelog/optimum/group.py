"""The symmetries of an instance: the board's (a square's 8 rotations and reflections, a rectangle's 4), times the relabellings
of ships of equal length.

Both map layouts to layouts and answers to answers (a relabelling renames "sunk ship i"), and the
prior is uniform, so two belief states that one symmetry maps onto each other have the same optimal
value; the solver stores one of them. Element 0 is always the identity.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations, product

import numpy as np

from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell
from battlelog.rules.symmetry import SYMMETRIES, symmetries_of


def relabellings(ships: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every permutation of ship indices that maps each ship to one of the same length (identity first)."""
    classes: dict[int, list[int]] = {}
    for i, length in enumerate(ships):
        classes.setdefault(length, []).append(i)
    out = []
    for images in product(*(permutations(members) for members in classes.values())):
        sigma = [0] * len(ships)
        for members, image in zip(classes.values(), images):
            for i, j in zip(members, image):
                sigma[i] = j
        out.append(tuple(sigma))
    return out


@dataclass(frozen=True)
class Symmetries:
    """The group as tables: ``cells[g, x]`` is the image of cell x, ``ships[g, i]`` the image of ship i,
    ``placements[g, i, k]`` the index (in ``config.placements(ships[g, i])``) of the image of ship i's
    placement k, and ``inverse_cells[g]`` undoes ``cells[g]``."""

    cells: np.ndarray
    inverse_cells: np.ndarray
    ships: np.ndarray
    placements: np.ndarray

    @classmethod
    def of(cls, config: GameConfig, use: bool = True) -> Symmetries:
        """The symmetry tables of ``config``; with ``use=False`` only the identity (to measure what the
        symmetries buy)."""
        fleet = config.ships
        square = symmetries_of(config.rows, config.cols) if use else SYMMETRIES[:1]
        labels = relabellings(fleet) if use else [tuple(range(len(fleet)))]
        most = max(len(config.placements(i)) for i in range(len(fleet)))
        cells, inverse, ships, placements = [], [], [], []
        for symmetry in square:
            cell_map = symmetry.index_map(config.rows, config.cols)
            moved = []
            for i in range(len(fleet)):
                row = list(symmetry.placement_order(config, i))
                moved.append(row + [-1] * (most - len(row)))
            for sigma in labels:
                cells.append(cell_map)
                inverse.append(np.argsort(cell_map))
                ships.append(sigma)
                placements.append(moved)
        return cls(
            np.array(cells, dtype=np.int64),
            np.array(inverse, dtype=np.int64),
            np.array(ships, dtype=np.int64),
            np.array(placements, dtype=np.int64),
        )

    def __len__(self) -> int:
        return int(self.cells.shape[0])

    def cell(self, g: int, cell: Cell, cols: int) -> Cell:
        """The image of ``cell`` under element ``g`` (on a board ``cols`` wide)."""
        return divmod(int(self.cells[g, cell[0] * cols + cell[1]]), cols)

    def preimage(self, g: int, index: int, cols: int) -> Cell:
        """The cell that element ``g`` maps to cell number ``index`` (on a board ``cols`` wide)."""
        return divmod(int(self.inverse_cells[g, index]), cols)
