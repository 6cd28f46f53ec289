"""A game's fixed part: the board, the ordered fleet and the rules, validated so that a fleet that cannot
be laid out under the rules never reaches a game; and fleets as people write them (``5,4,3,3,2``)."""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from battlelog.digits import whole_number
from battlelog.errors import FileFormatError, FleetError
from battlelog.rules.geometry import Cell, Placement, ship_placements
from battlelog.rules.prior import UNIFORM, Prior, check_prior
from battlelog.rules.variants import ALLOWED, STANDARD_RULES, Rules
from battlelog.wording import ECHO_LIMIT, clip, count_noun, number_text


@dataclass(frozen=True)
class GameConfig:
    """A board of ``rows`` x ``cols`` cells, an ordered fleet of ship lengths, the rules and the prior
    over layouts: the fixed part of every game.

    ``GameConfig(10, ships)`` is the square 10x10 board (``cols`` defaults to ``rows``);
    ``GameConfig(12, ships, cols=10)`` has 12 rows (lettered A..L) of 10 columns. ``size`` names the
    side of a square board only. Constructing one validates it, so a fleet that cannot be laid out
    under the rules never reaches a game. Two configurations are equal only when their rules are too.
    ``prior`` (:class:`Prior`, uniform by default) weighs the legal layouts: it is the shooter's belief
    about the hider, part of the posterior as the rules are.
    """

    rows: int
    ships: tuple[int, ...]
    rules: Rules = STANDARD_RULES
    cols: int = None  # type: ignore[assignment]  # None means square: set to ``rows`` on construction
    prior: Prior = UNIFORM

    def __post_init__(self) -> None:
        object.__setattr__(self, "ships", tuple(int(s) for s in self.ships))
        if self.cols is None:
            object.__setattr__(self, "cols", self.rows)
        if not isinstance(self.rules, Rules):
            raise FleetError(f"rules must be a Rules object, got {clip(repr(self.rules))}")
        if not isinstance(self.prior, Prior):
            raise FleetError(f"prior must be a Prior object, got {clip(repr(self.prior))}")
        square = self.cols == self.rows
        for what, value in (("board size" if square else "rows", self.rows), ("columns", self.cols)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
                raise FleetError(f"{what} must be a positive whole number, got {clip(repr(value))}")
        object.__setattr__(self, "rows", int(self.rows))
        object.__setattr__(self, "cols", int(self.cols))
        if self.rows > 26:
            what = f"board size {number_text(self.rows)}" if square else f"{number_text(self.rows)} rows"
            raise FleetError(f"{what} is too large: rows are lettered A..Z, so at most 26")
        if self.cols > 26:
            raise FleetError(f"{number_text(self.cols)} columns is too many: boards are at most 26 wide")
        if not self.ships:
            raise FleetError("the fleet is empty: give at least one ship length")
        for i, length in enumerate(self.ships):
            if length < 1:
                raise FleetError(f"ship {i} has length {number_text(length)}: lengths must be at least 1")
            if length > max(self.rows, self.cols):
                raise FleetError(f"ship {i} of length {number_text(length)} does not fit on a {self.shape} board")
        if sum(self.ships) > self.cell_count:
            raise FleetError(
                f"fleet {fleet_text(self.ships)} has {number_text(sum(self.ships))} ship cells, "
                f"more than the {self.cell_count} cells of a {self.shape} board"
            )
        check_prior(self.prior, self.rows, self.cols, self.ships)
        if find_layout(self) is None:
            under = f" with {self.rules.text()}" if self.rules.touch != ALLOWED else ""
            raise FleetError(f"fleet {fleet_text(self.ships)} cannot be laid out on a {self.shape} board{under}")

    @property
    def size(self) -> int:
        """The side of a square board; a rectangular board has none (use ``rows`` and ``cols``)."""
        if self.rows != self.cols:
            raise FleetError(f"the {self.shape} board is not square: it has rows and columns, not one size")
        return self.rows

    @property
    def square(self) -> bool:
        """True for an N x N board."""
        return self.rows == self.cols

    @property
    def shape(self) -> str:
        """The board as ``12x10`` (rows x columns)."""
        return f"{self.rows}x{self.cols}"

    @property
    def cell_count(self) -> int:
        """Number of cells on the board (M in the spec)."""
        return self.rows * self.cols

    @property
    def ship_cells(self) -> int:
        """Total length of the fleet (K in the spec): also the best possible score."""
        return sum(self.ships)

    @property
    def posterior(self) -> GameConfig:
        """This configuration as far as the posterior depends on it: the rules without their salvo
        (:attr:`Rules.posterior`) and the prior without a ``touch`` weight where ships never meet along
        a side. What caches of posteriors are keyed by, so that neither makes them miss."""
        prior = self.effective_prior
        if not self.rules.is_salvo and prior == self.prior:
            return self
        out = copy.copy(self)  # already validated: the fleet fits under the same touch rule
        object.__setattr__(out, "rules", self.rules.posterior)
        object.__setattr__(out, "prior", prior)
        return out

    @property
    def effective_prior(self) -> Prior:
        """The prior as it weighs this board's layouts: under ``diagonal`` and ``none`` no two ships meet
        along a side, so the ``touch`` weight is dropped."""
        return self.prior if self.rules.touch == ALLOWED or not self.prior.touch else self.prior.without_touch()

    def with_prior(self, prior: Prior) -> GameConfig:
        """The same board, fleet and rules under another prior (a player's belief)."""
        check_prior(prior, self.rows, self.cols, self.ships)
        out = copy.copy(self)
        object.__setattr__(out, "prior", prior)
        return out

    def placements(self, ship: int) -> tuple[Placement, ...]:
        """Every canonical placement of ship ``ship``, horizontal ones first, row-major within each."""
        return ship_placements(self.rows, self.cols, ship, self.ships[ship])

    def board_json(self) -> dict[str, int]:
        """The board as the JSON formats write it: ``{"size": N}`` for a square board (so old files
        stay byte-identical), ``{"rows": R, "cols": C}`` otherwise."""
        return {"size": self.rows} if self.square else {"rows": self.rows, "cols": self.cols}

    def label(self) -> str:
        """A short name such as ``5x5 3,3,2`` or ``12x10 5,4,3,3,2`` (rows x columns) for tables and file
        names; rules other than the standard ones follow in brackets:
        ``10x10 5,4,3,3,2 (no contact, sinks unnamed)``; a prior other than the uniform one follows too:
        ``10x10 5,4,3,3,2 (prior edge=0.8)``."""
        name = f"{self.shape} {fleet_text(self.ships)}"
        notes = [self.rules.text()] if not self.rules.is_default else []
        notes += [f"prior {self.prior.text()}"] if not self.prior.is_uniform else []
        return f"{name} ({', '.join(notes)})" if notes else name


def board_from_json(data: Mapping[str, Any], source: str) -> tuple[int, int]:
    """``(rows, cols)`` from a JSON object holding either ``size`` or both ``rows`` and ``cols``;
    anything else (both forms, one of rows/cols alone, not whole numbers) is a one-line FileFormatError."""
    has = [key for key in ("size", "rows", "cols") if key in data]
    if has not in (["size"], ["rows", "cols"]):
        got = f"got {', '.join(has)}" if has else "got neither"
        raise FileFormatError(f"{source}: give the board as either size or both rows and cols, {got}")
    for key in has:
        value = data[key]
        if not isinstance(value, int) or isinstance(value, bool):
            raise FileFormatError(f"{source}: {key} must be a whole number, got {clip(repr(value))}")
    return (data["size"], data["size"]) if has == ["size"] else (data["rows"], data["cols"])


@functools.lru_cache(maxsize=256)  # every state read builds its config: the search once per configuration
def find_layout(config: GameConfig, node_limit: int = 200_000) -> tuple[Placement, ...] | None:
    """Some layout of the fleet legal under the configuration's touch rule, or None if there is none.

    Depth-first search that fills the board in row-major order: the first free cell is either left
    empty or covered by an unused ship placed with its canonical cell there (a cell that a placed
    ship keeps out under the touch rule is not free). Ships of equal length are
    interchangeable for existence, so only one of each length is tried at each step. Returns None also
    when the search exceeds ``node_limit`` steps without success, which in practice only happens for
    fleets packed so tightly that they are almost certainly impossible.
    """
    n, width = config.rows, config.cols
    rules = config.rules
    # How many placed ships keep each cell out (their own cells, and their neighbours under the touch rule).
    blocked = [[0] * width for _ in range(n)]
    remaining = sorted(config.ships, reverse=True)
    free_cells_needed = sum(remaining)
    steps = 0
    chosen: list[tuple[int, int, int, bool]] = []

    def fits(r: int, c: int, length: int, horizontal: bool) -> bool:
        if horizontal:
            return c + length <= width and not any(blocked[r][c + k] for k in range(length))
        return r + length <= n and not any(blocked[r + k][c] for k in range(length))

    def zone(r: int, c: int, length: int, horizontal: bool) -> frozenset[Cell]:
        return rules.keep_out(Placement(0, length, r, c, horizontal), n, width)

    def mark(r: int, c: int, length: int, horizontal: bool, value: bool) -> None:
        for rr, cc in zone(r, c, length, horizontal):
            blocked[rr][cc] += 1 if value else -1

    def search(pos: int, cells_left: int) -> bool:
        nonlocal steps
        steps += 1
        if not remaining:
            return True
        if steps > node_limit or n * width - pos < cells_left:
            return False
        r, c = divmod(pos, width)
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
    lengths = [whole_number(part) for part in str(text).split(",")]
    if None in lengths:  # ASCII digits only (battlelog.digits): "٣,٢" is not read as 3,2
        raise FleetError(f"fleet {clip(text)!r} is not a comma-separated list of ship lengths such as 5,4,3,3,2")
    return tuple(length for length in lengths if length is not None)


def format_ships(ships: Sequence[int]) -> str:
    """The fleet as ``5,4,3,3,2``."""
    return ",".join(str(s) for s in ships)


def fleet_text(ships: Sequence[int]) -> str:
    """The fleet as messages and titles name it: ``5,4,3,3,2``, or by its size when that would not
    fit on a line: ``(1000 ships, 3000 cells)``."""
    text = format_ships(ships)
    return text if len(text) <= ECHO_LIMIT else f"({count_noun(len(ships), 'ship')}, {count_noun(sum(ships), 'cell')})"
