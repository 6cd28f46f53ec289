"""The referee: holds the hidden layout and answers shots by the rules; knows nothing of who is shooting."""

from __future__ import annotations

from dataclasses import dataclass

from battlelog.errors import ShotError
from battlelog.rules.answers import HIT, MISS, SUNK
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, Placement, cell_name
from battlelog.rules.variants import NAMED, SILENT


@dataclass
class Referee:
    """Holds the hidden layout and answers shots by the rules; knows nothing of who is shooting."""

    config: GameConfig
    layout: tuple[Placement, ...]

    def __post_init__(self) -> None:
        self._owner = {cell: p.ship for p in self.layout for cell in p.cells}
        self._left = {p.ship: set(p.cells) for p in self.layout}
        self._shot: set[Cell] = set()

    def shoot(self, row: int, col: int) -> tuple[str, int | None]:
        """Answer a shot: ``("miss", None)``, ``("hit", None)``, or on a ship's last unhit cell what the
        sink rule says: ``("sunk", ship)`` (named), ``("sunk", None)`` (unnamed), ``("hit", None)`` (silent)."""
        if not (0 <= row < self.config.rows and 0 <= col < self.config.cols):
            raise ShotError(f"shot at row {row}, column {col} is off the {self.config.shape} board")
        if (row, col) in self._shot:
            raise ShotError(f"cell {cell_name((row, col))} was already shot")
        if self.over:
            raise ShotError("the game is over: every ship has been sunk")
        self._shot.add((row, col))
        ship = self._owner.get((row, col))
        if ship is None:
            return MISS, None
        self._left[ship].discard((row, col))
        if self._left[ship] or self.config.rules.sinks == SILENT:
            return HIT, None
        return SUNK, (ship if self.config.rules.sinks == NAMED else None)

    @property
    def over(self) -> bool:
        """True once every ship cell has been hit."""
        return not any(self._left.values())
