"""A BattleshipQA true board: one line a row of W (water) or a ship's initial (R, G, P, O).

The captain is told the ships' lengths as a list, never which colour has which; the board file is
the truth the spotter sees. A ship's tiles must form one straight run, as a placement does.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from battlelog.errors import FileFormatError
from battlelog.jsonfile import read_text
from battlelog.questions.layout import Layout, ShipAt
from battlelog.questions.state import WATER, read_board

#: The four ships of BattleshipQA, in the order the captain's fleet lists them.
NAMES = ("Red", "Green", "Purple", "Orange")


@dataclass(frozen=True)
class TrueBoard:
    """The hidden layout of one game: ``codes[cell]`` 0 water or i + 1 for ship ``names[i]``."""

    name: str
    rows: int
    cols: int
    names: tuple[str, ...]
    codes: tuple[int, ...]

    @property
    def lengths(self) -> tuple[int, ...]:
        """Each named ship's length, in fleet order."""
        counts = np.bincount(np.array(self.codes), minlength=len(self.names) + 1)
        return tuple(int(n) for n in counts[1:])

    @property
    def ship_tiles(self) -> int:
        return sum(self.lengths)

    def layout(self) -> Layout:
        """The board as the questions package's reference evaluator reads a layout."""
        ships = []
        for colour in range(1, len(self.names) + 1):
            cells = [c for c, code in enumerate(self.codes) if code == colour]
            step = 1 if len(cells) == 1 or cells[1] - cells[0] == 1 else self.cols
            ships.append(ShipAt(len(cells), cells[0], step))
        return Layout(self.rows, self.cols, tuple(ships))


def read_true_board(path: str | Path) -> TrueBoard:
    """The board in ``path``: its ships are the colours of :data:`NAMES` it shows (all four on
    BattleshipQA's boards). A hidden tile, no ship, or a ship that is not one straight run is one line."""
    path = Path(path)
    lines = [line.strip() for line in read_text(path).splitlines() if line.strip()]
    grid = read_board(lines, NAMES, "named", str(path))
    rows, cols = len(grid), len(grid[0])
    codes = [code for row in grid for code in row]
    if any(code < WATER for code in codes):
        raise FileFormatError(f"{path}: a true board shows every tile: W or a ship's initial, not H or X")
    present = [colour for colour in range(1, len(NAMES) + 1) if colour in codes]
    if not present:
        raise FileFormatError(f"{path}: the board shows no ship")
    renumber = {WATER: WATER, **{colour: i for i, colour in enumerate(present, 1)}}
    names = tuple(NAMES[colour - 1] for colour in present)
    codes = [renumber[code] for code in codes]
    for colour, name in enumerate(names, 1):
        if not _straight([c for c, code in enumerate(codes) if code == colour], cols):
            raise FileFormatError(f"{path}: ship {name}'s tiles are not one straight run")
    return TrueBoard(path.name, rows, cols, names, tuple(codes))


def _straight(cells: list[int], cols: int) -> bool:
    """Whether sorted row-major cells are one horizontal or vertical run."""
    if len(cells) == 1:
        return True
    across = all(b - a == 1 for a, b in itertools.pairwise(cells)) and cells[0] // cols == cells[-1] // cols
    down = all(b - a == cols for a, b in itertools.pairwise(cells))
    return across or down
