"""A game's fixed part: the board, the ordered fleet and the rules, validated so that a fleet that cannot
be laid out under the rules never reaches a game; and fleets as people write them (``5,4,3,3,2``)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from battlelog.errors import FleetError
from battlelog.rules.geometry import Cell, Placement, ship_placements
from battlelog.rules.variants import ALLOWED, STANDARD_RULES, Rules
from battlelog.wording import ECHO_LIMIT, clip, count_noun


@dataclass(frozen=True)
class GameConfig:
    """A board size, an ordered fleet of ship lengths and the rules: the fixed part of every game.

    Constructing one validates it, so a fleet that cannot be laid out under the rules never reaches a
    game. Two configurations are equal only when their rules are too.
    """

    size: int
    ships: tuple[int, ...]
    rules: Rules = STANDARD_RULES

    def __post_init__(self) -> None:
        object.__setattr__(self, "ships", tuple(int(s) for s in self.ships))
        if not isinstance(self.rules, Rules):
            raise FleetError(f"rules must be a Rules object, got {clip(repr(self.rules))}")
        if not isinstance(self.size, (int, np.integer)) or self.size < 1:
            raise FleetError(f"board size must be a positive whole number, got {clip(repr(self.size))}")
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
                f"fleet {fleet_text(self.ships)} has {sum(self.ships)} ship cells, "
                f"more than the {self.size * self.size} cells of a {self.size}x{self.size} board"
            )
        if find_layout(self) is None:
            under = f" with {self.rules.text()}" if self.rules.touch != ALLOWED else ""
            raise FleetError(f"fleet {fleet_text(self.ships)} cannot be laid out on a {self.size}x{self.size} board{under}")

    @property
    def cell_count(self) -> int:
        """Number of cells on the board (M in the spec)."""
        return self.size * self.size

    @property
    def ship_cells(self) -> int:
        """Total length of the fleet (K in the spec): also the best possible score."""
        return sum(self.ships)

    @property
    def posterior(self) -> GameConfig:
        """This configuration under the rules the posterior depends on (:attr:`Rules.posterior`: no
        salvo): what caches of posteriors are keyed by, so that salvo never makes them miss."""
        if not self.rules.is_salvo:
            return self
        out = copy.copy(self)  # already validated: the fleet fits under the same touch rule
        object.__setattr__(out, "rules", self.rules.posterior)
        return out

    def placements(self, ship: int) -> tuple[Placement, ...]:
        """Every canonical placement of ship ``ship``, horizontal ones first, row-major within each."""
        return ship_placements(self.size, ship, self.ships[ship])

    def label(self) -> str:
        """A short name such as ``5x5 3,3,2`` for tables and file names; rules other than the standard
        ones follow in brackets: ``10x10 5,4,3,3,2 (no contact, sinks unnamed)``."""
        name = f"{self.size}x{self.size} {fleet_text(self.ships)}"
        return name if self.rules.is_default else f"{name} ({self.rules.text()})"


def find_layout(config: GameConfig, node_limit: int = 200_000) -> tuple[Placement, ...] | None:
    """Some layout of the fleet legal under the configuration's touch rule, or None if there is none.

    Depth-first search that fills the board in row-major order: the first free cell is either left
    empty or covered by an unused ship placed with its canonical cell there (a cell that a placed
    ship keeps out under the touch rule is not free). Ships of equal length are
    interchangeable for existence, so only one of each length is tried at each step. Returns None also
    when the search exceeds ``node_limit`` steps without success, which in practice only happens for
    fleets packed so tightly that they are almost certainly impossible.
    """
    n = config.size
    rules = config.rules
    # How many placed ships keep each cell out (their own cells, and their neighbours under the touch rule).
    blocked = [[0] * n for _ in range(n)]
    remaining = sorted(config.ships, reverse=True)
    free_cells_needed = sum(remaining)
    steps = 0
    chosen: list[tuple[int, int, int, bool]] = []

    def fits(r: int, c: int, length: int, horizontal: bool) -> bool:
        if horizontal:
            return c + length <= n and not any(blocked[r][c + k] for k in range(length))
        return r + length <= n and not any(blocked[r + k][c] for k in range(length))

    def zone(r: int, c: int, length: int, horizontal: bool) -> frozenset[Cell]:
        return rules.keep_out(Placement(0, length, r, c, horizontal), n)

    def mark(r: int, c: int, length: int, horizontal: bool, value: bool) -> None:
        for rr, cc in zone(r, c, length, horizontal):
            blocked[rr][cc] += 1 if value else -1

    def search(pos: int, cells_left: int) -> bool:
        nonlocal steps
        steps += 1
        if not remaining:
            return True
        if steps > node_limit or n * n - pos < cells_left:
            return False
        r, c = divmod(pos, n)
        if blocked[r][c]:
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


def parse_ships(text: str) -> tuple[int, ...]:
    """Parse a fleet such as ``"5,4,3,3,2"``; a malformed one is a one-line error."""
    parts = [p.strip() for p in str(text).split(",")]
    try:
        ships = tuple(int(p) for p in parts)
    except ValueError:
        raise FleetError(f"fleet {clip(text)!r} is not a comma-separated list of ship lengths such as 5,4,3,3,2") from None
    return ships


def format_ships(ships: Sequence[int]) -> str:
    """The fleet as ``5,4,3,3,2``."""
    return ",".join(str(s) for s in ships)


def fleet_text(ships: Sequence[int]) -> str:
    """The fleet as messages and titles name it: ``5,4,3,3,2``, or by its size when that would not
    fit on a line: ``(1000 ships, 3000 cells)``."""
    text = format_ships(ships)
    return text if len(text) <= ECHO_LIMIT else f"({count_noun(len(ships), 'ship')}, {count_noun(sum(ships), 'cell')})"
