"""The rules of Battleship: board, fleet, canonical placements, uniform layouts and the referee.

Nothing here knows about players or engines. See docs/rules.md for the rules themselves.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from battlelog.errors import FleetError, ShotError

Cell = tuple[int, int]

MISS, HIT, SUNK = "miss", "hit", "sunk"
RESULTS = (MISS, HIT, SUNK)

#: An answer as a small integer, as answer probabilities and exact walks index them: miss, a hit
#: that sinks nothing, and ``SUNK_CODE + i`` for "sunk ship i".
MISS_CODE, HIT_CODE, SUNK_CODE = 0, 1, 2


def decode_answer(code: int) -> tuple[str, int | None]:
    """The answer and sunk ship (or None) of an answer code, as ``GameState.with_shot`` takes them."""
    if code == MISS_CODE:
        return MISS, None
    if code == HIT_CODE:
        return HIT, None
    return SUNK, code - SUNK_CODE


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

    @property
    def orientation(self) -> str:
        """``"h"`` or ``"v"``, as the ProbLog model names orientations."""
        return "h" if self.horizontal else "v"


@dataclass(frozen=True)
class GameConfig:
    """A board size and an ordered fleet of ship lengths: the fixed part of every game.

    Constructing one validates it, so a fleet that cannot be laid out never reaches a game.
    """

    size: int
    ships: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "ships", tuple(int(s) for s in self.ships))
        if not isinstance(self.size, (int, np.integer)) or self.size < 1:
            raise FleetError(f"board size must be a positive whole number, got {self.size!r}")
        if self.size > 26:
            raise FleetError(f"board size {self.size} is too large: rows are lettered A..Z, so at most 26")
        if not self.ships:
            raise FleetError("the fleet is empty: give at least one ship length")
        for i, length in enumerate(self.ships):
            if length < 1:
                raise FleetError(f"ship {i} has length {length}: lengths must be at least 1")
            if length > self.size:
                raise FleetError(f"ship {i} of length {length} does not fit on a {self.size}x{self.size} board")
        if sum(self.ships) > self.size * self.size:
            raise FleetError(
                f"fleet {format_ships(self.ships)} has {sum(self.ships)} ship cells, "
                f"more than the {self.size * self.size} cells of a {self.size}x{self.size} board"
            )
        if find_layout(self) is None:
            raise FleetError(f"fleet {format_ships(self.ships)} cannot be laid out on a {self.size}x{self.size} board")

    @property
    def cells(self) -> int:
        """Number of cells on the board (M in the spec)."""
        return self.size * self.size

    @property
    def ship_cells(self) -> int:
        """Total length of the fleet (K in the spec): also the best possible score."""
        return sum(self.ships)

    def placements(self, ship: int) -> tuple[Placement, ...]:
        """Every canonical placement of ship ``ship``, horizontal ones first, row-major within each."""
        return ship_placements(self.size, ship, self.ships[ship])

    def label(self) -> str:
        """A short name such as ``5x5 3,3,2`` for tables and file names."""
        return f"{self.size}x{self.size} {format_ships(self.ships)}"


@lru_cache(maxsize=1024)
def ship_placements(size: int, ship: int, length: int) -> tuple[Placement, ...]:
    """Canonical placements of one ship; a ship of length 1 has one placement per cell, not two.

    Cached: layouts are sampled and states grounded thousands of times per experiment.
    """
    out = [
        Placement(ship, length, r, c, True) for r in range(size) for c in range(size - length + 1)
    ]
    if length > 1:
        out += [Placement(ship, length, r, c, False) for r in range(size - length + 1) for c in range(size)]
    return tuple(out)


def find_layout(config: GameConfig, node_limit: int = 200_000) -> tuple[Placement, ...] | None:
    """Some valid layout of the fleet, or None if there is none.

    Depth-first search that fills the board in row-major order: the first free cell is either left
    empty or covered by an unused ship placed with its canonical cell there. Ships of equal length are
    interchangeable for existence, so only one of each length is tried at each step. Returns None also
    when the search exceeds ``node_limit`` steps without success, which in practice only happens for
    fleets packed so tightly that they are almost certainly impossible.
    """
    n = config.size
    occupied = [[False] * n for _ in range(n)]
    remaining = sorted(config.ships, reverse=True)
    free_cells_needed = sum(remaining)
    steps = 0
    chosen: list[tuple[int, int, int, bool]] = []

    def fits(r: int, c: int, length: int, horizontal: bool) -> bool:
        if horizontal:
            return c + length <= n and not any(occupied[r][c + k] for k in range(length))
        return r + length <= n and not any(occupied[r + k][c] for k in range(length))

    def mark(r: int, c: int, length: int, horizontal: bool, value: bool) -> None:
        for k in range(length):
            if horizontal:
                occupied[r][c + k] = value
            else:
                occupied[r + k][c] = value

    def search(pos: int, cells_left: int) -> bool:
        nonlocal steps
        steps += 1
        if not remaining:
            return True
        if steps > node_limit or n * n - pos < cells_left:
            return False
        r, c = divmod(pos, n)
        if occupied[r][c]:
            return search(pos + 1, cells_left)
        for length in sorted(set(remaining), reverse=True):
            for horizontal in ((True, False) if length > 1 else (True,)):
                if fits(r, c, length, horizontal):
                    mark(r, c, length, horizontal, True)
                    remaining.remove(length)
                    chosen.append((r, c, length, horizontal))
                    if search(pos + 1, cells_left - length):
                        return True
                    chosen.pop()
                    remaining.append(length)
                    remaining.sort(reverse=True)
                    mark(r, c, length, horizontal, False)
        return search(pos + 1, cells_left)

    if not search(0, free_cells_needed):
        return None
    # Give the found ships back their indices in the fleet (any assignment of equal lengths will do).
    unused = list(enumerate(config.ships))
    layout: list[Placement | None] = [None] * len(config.ships)
    for r, c, length, horizontal in chosen:
        k = next(j for j, (_, other) in enumerate(unused) if other == length)
        ship, _ = unused.pop(k)
        layout[ship] = Placement(ship, length, r, c, horizontal)
    return tuple(p for p in layout if p is not None)


def sample_layout(config: GameConfig, rng: np.random.Generator, max_tries: int = 1_000_000) -> tuple[Placement, ...]:
    """A layout drawn uniformly from all valid layouts, by rejection.

    Each ship's placement is drawn uniformly from its canonical placements and the whole layout is
    rejected on any overlap; stopping at the first overlap only saves work, it does not bias the draw.
    Placing ships one by one in the room left would NOT be uniform (see the spec).
    """
    options = [config.placements(i) for i in range(len(config.ships))]
    for _ in range(max_tries):
        taken: set[Cell] = set()
        layout: list[Placement] = []
        for ship_options in options:
            p = ship_options[int(rng.integers(len(ship_options)))]
            if taken.intersection(p.cells):
                break
            taken.update(p.cells)
            layout.append(p)
        else:
            return tuple(layout)
    raise FleetError(
        f"fleet {format_ships(config.ships)} on a {config.size}x{config.size} board is packed so tightly "
        f"that uniform sampling found no layout in {max_tries} tries"
    )


def layouts_overlap(layout: Sequence[Placement]) -> bool:
    """True if two ships of the layout share a cell."""
    cells = [cell for p in layout for cell in p.cells]
    return len(cells) != len(set(cells))


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
        """Answer a shot: ``("miss", None)``, ``("hit", None)`` or ``("sunk", ship)``."""
        n = self.config.size
        if not (0 <= row < n and 0 <= col < n):
            raise ShotError(f"shot at row {row}, column {col} is off the {n}x{n} board")
        if (row, col) in self._shot:
            raise ShotError(f"cell {cell_name((row, col))} was already shot")
        if self.over:
            raise ShotError("the game is over: every ship has been sunk")
        self._shot.add((row, col))
        ship = self._owner.get((row, col))
        if ship is None:
            return MISS, None
        self._left[ship].discard((row, col))
        return (SUNK, ship) if not self._left[ship] else (HIT, None)

    @property
    def over(self) -> bool:
        """True once every ship cell has been hit."""
        return not any(self._left.values())


def parse_ships(text: str) -> tuple[int, ...]:
    """Parse a fleet such as ``"5,4,3,3,2"``; a malformed one is a one-line error."""
    parts = [p.strip() for p in str(text).split(",")]
    try:
        ships = tuple(int(p) for p in parts)
    except ValueError:
        raise FleetError(f"fleet {text!r} is not a comma-separated list of ship lengths such as 5,4,3,3,2") from None
    return ships


def format_ships(ships: Sequence[int]) -> str:
    """The fleet as ``5,4,3,3,2``."""
    return ",".join(str(s) for s in ships)


def cell_name(cell: Cell) -> str:
    """A cell as people name it: row letter then column number from 1 (``(2, 6)`` is ``C7``)."""
    return f"{string.ascii_uppercase[cell[0]]}{cell[1] + 1}"


def parse_cell(text: str, size: int) -> Cell:
    """A cell named as people name it (``C7``, ``c7``, ``C 7``) on an N x N board; anything else is a ShotError."""
    match = re.fullmatch(r"\s*([A-Za-z])\s*(\d{1,2})\s*", text)
    rows = string.ascii_uppercase[:size]
    if match is None or match[1].upper() not in rows or not 1 <= int(match[2]) <= size:
        raise ShotError(f"{text.strip()!r} is not a cell of the {size}x{size} board (rows A..{rows[-1]}, columns 1..{size}, e.g. C3)")
    return (rows.index(match[1].upper()), int(match[2]) - 1)


def iter_cells(size: int) -> Iterator[Cell]:
    """All cells of a board in row-major order."""
    for r in range(size):
        for c in range(size):
            yield (r, c)
