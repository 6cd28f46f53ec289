"""What a player sees of a game: the shots fired and their answers, and the game-state JSON format.

A :class:`GameState` never holds the hidden layout. Its constructor checks every rule that can be
checked without inference (cells on the board, no repeats, well-formed answers, each ship sunk at
most once, nothing after the last sink); whether some layout satisfies all the answers is a question
for the engines (see :func:`battlelog.engines.base.locate_fault`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from battlelog.errors import FileFormatError, FleetError, StateError
from battlelog.files import write_text
from battlelog.jsonfile import check_keys, read_json
from battlelog.rules.answers import HIT, MISS, RESULTS, SUNK
from battlelog.rules.config import GameConfig, fleet_text
from battlelog.rules.geometry import Cell, cell_name
from battlelog.wording import clip, count_noun

#: The keys of the game-state format, and of each shot in it.
STATE_KEYS, SHOT_KEYS = ("size", "ships", "shots"), ("row", "col", "result", "ship")


@dataclass(frozen=True)
class Shot:
    """One shot and its answer; ``ship`` is the index of the ship sunk, only when ``result == "sunk"``."""

    row: int
    col: int
    result: str
    ship: int | None = None

    @property
    def cell(self) -> Cell:
        return (self.row, self.col)

    @property
    def is_hit(self) -> bool:
        """Hits and sinks both count as hits."""
        return self.result != MISS

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"row": self.row, "col": self.col, "result": self.result}
        if self.result == SUNK:
            out["ship"] = self.ship
        return out


@dataclass
class _Tally:
    """What validating the next shot needs to know about the shots before it."""

    seen: dict[Cell, int] = field(default_factory=dict)
    sunk: dict[int, int] = field(default_factory=dict)
    hits: int = 0

    def copy(self) -> _Tally:
        return _Tally(dict(self.seen), dict(self.sunk), self.hits)

    def admit(self, config: GameConfig, t: int, shot: Shot) -> None:
        """Check shot number ``t`` (0-based) against the rules and the shots before it, then record it."""
        n, fleet = config.size, config.ships
        where = f"shot {t + 1}"
        if len(self.sunk) == len(fleet):
            raise StateError(f"{where} ({cell_name(shot.cell)}) comes after every ship was already sunk")
        if not (0 <= shot.row < n and 0 <= shot.col < n):
            raise StateError(f"{where} at row {shot.row}, column {shot.col} is off the {n}x{n} board")
        if shot.cell in self.seen:
            raise StateError(f"{where} repeats cell {cell_name(shot.cell)}, already shot at shot {self.seen[shot.cell] + 1}")
        if shot.result not in RESULTS:
            raise StateError(f"{where} has result {clip(repr(shot.result))}; expected one of {', '.join(RESULTS)}")
        if shot.result == SUNK:
            if shot.ship is None:
                raise StateError(
                    f"{where} ({cell_name(shot.cell)}) is a sunk answer without a ship index: "
                    f"say which of ships 0..{len(fleet) - 1} (fleet {fleet_text(fleet)}) it sank"
                )
            if not (0 <= shot.ship < len(fleet)):
                raise StateError(
                    f"{where} sinks ship {shot.ship!r}, but the fleet {fleet_text(fleet)} has ships 0..{len(fleet) - 1}"
                )
            if shot.ship in self.sunk:
                raise StateError(f"{where} sinks ship {shot.ship} again (already sunk at shot {self.sunk[shot.ship] + 1})")
        elif shot.ship is not None:
            raise StateError(f"{where} is a {shot.result} but names ship {shot.ship}; only a sunk answer names a ship")
        hits = self.hits + shot.is_hit
        if hits > config.ship_cells:
            raise StateError(f"{where} is hit number {hits}, more than the {config.ship_cells} ship cells of the fleet")
        if shot.result == SUNK and fleet[shot.ship] > hits:  # type: ignore[index]
            raise StateError(f"{where} sinks ship {shot.ship} of length {fleet[shot.ship]} after only {count_noun(hits, 'hit')}")  # type: ignore[index]
        self.seen[shot.cell] = t
        if shot.result == SUNK:
            self.sunk[shot.ship] = t  # type: ignore[index]
        self.hits = hits


@dataclass(frozen=True)
class GameState:
    """A board configuration and the shots fired so far, in order."""

    config: GameConfig
    shots: tuple[Shot, ...] = field(default=())
    _tally: _Tally = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "shots", tuple(self.shots))
        tally = _Tally()
        for t, shot in enumerate(self.shots):
            tally.admit(self.config, t, shot)
        object.__setattr__(self, "_tally", tally)

    # ----- building states -------------------------------------------------------------------
    @classmethod
    def empty(cls, config: GameConfig) -> GameState:
        return cls(config, ())

    def with_shot(self, row: int, col: int, result: str, ship: int | None = None) -> GameState:
        """This state plus one more shot, validated like any state but checking only the new shot.

        Games grow one shot at a time; re-checking the whole history at every move would make a game
        quadratic in its length.
        """
        shot = Shot(row, col, result, ship)
        tally = self._tally.copy()
        tally.admit(self.config, len(self.shots), shot)
        state = object.__new__(GameState)
        object.__setattr__(state, "config", self.config)
        object.__setattr__(state, "shots", self.shots + (shot,))
        object.__setattr__(state, "_tally", tally)
        return state

    def prefix(self, count: int) -> GameState:
        """The state after the first ``count`` shots."""
        return GameState(self.config, self.shots[:count])

    # ----- what the shots say ----------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.config.size

    @property
    def ships(self) -> tuple[int, ...]:
        return self.config.ships

    @cached_property
    def shot_cells(self) -> frozenset[Cell]:
        return frozenset(s.cell for s in self.shots)

    @cached_property
    def misses(self) -> frozenset[Cell]:
        return frozenset(s.cell for s in self.shots if s.result == MISS)

    @cached_property
    def hits(self) -> frozenset[Cell]:
        """H_T: every hit cell so far (sinks included)."""
        return frozenset(s.cell for s in self.shots if s.is_hit)

    def hits_after(self, t: int) -> frozenset[Cell]:
        """H_t: the hit cells after shot index ``t`` (0-based, inclusive)."""
        return frozenset(s.cell for s in self.shots[: t + 1] if s.is_hit)

    @cached_property
    def sinks(self) -> tuple[tuple[int, int, Cell], ...]:
        """``(ship, shot index, cell)`` for every sunk announcement, in order."""
        return tuple((s.ship, t, s.cell) for t, s in enumerate(self.shots) if s.result == SUNK)  # type: ignore[misc]

    @cached_property
    def afloat(self) -> tuple[int, ...]:
        """Indices of the ships not announced sunk."""
        sunk = {ship for ship, _, _ in self.sinks}
        return tuple(i for i in range(len(self.ships)) if i not in sunk)

    @property
    def over(self) -> bool:
        """True once every ship has been announced sunk."""
        return not self.afloat

    @cached_property
    def unshot(self) -> tuple[Cell, ...]:
        """Cells not shot yet, row-major."""
        n = self.size
        return tuple((r, c) for r in range(n) for c in range(n) if (r, c) not in self.shot_cells)

    # ----- JSON ------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The spec's game-state format."""
        return {"size": self.size, "ships": list(self.ships), "shots": [s.to_json() for s in self.shots]}

    @classmethod
    def from_json(cls, data: Any, source: str = "game state") -> GameState:
        """Read the spec's game-state format; anything malformed is a one-line FileFormatError."""
        if not isinstance(data, dict):
            raise FileFormatError(f"{source}: expected a JSON object with size, ships and shots")
        check_keys(data, STATE_KEYS, source)
        for key in ("size", "ships"):
            if key not in data:
                raise FileFormatError(f"{source}: missing key {key!r}")
        size, ships = data["size"], data["ships"]
        if not isinstance(size, int) or isinstance(size, bool):
            raise FileFormatError(f"{source}: size must be a whole number, got {clip(repr(size))}")
        if not isinstance(ships, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in ships):
            raise FileFormatError(f"{source}: ships must be a list of whole numbers, got {clip(repr(ships))}")
        raw_shots = data.get("shots", [])
        if not isinstance(raw_shots, list):
            raise FileFormatError(f"{source}: shots must be a list")
        shots = []
        for t, raw in enumerate(raw_shots):
            if isinstance(raw, dict):
                check_keys(raw, SHOT_KEYS, f"{source}: shot {t + 1}")
            if not isinstance(raw, dict) or not {"row", "col", "result"} <= raw.keys():
                raise FileFormatError(f"{source}: shot {t + 1} must be an object with row, col and result")
            row, col, result, ship = raw["row"], raw["col"], raw["result"], raw.get("ship")
            for name, value in (("row", row), ("col", col)) + ((("ship", ship),) if ship is not None else ()):
                if not isinstance(value, int) or isinstance(value, bool):
                    raise FileFormatError(f"{source}: shot {t + 1} has {name} {clip(repr(value))}, not a whole number")
            shots.append(Shot(row, col, result, ship))
        return cls(GameConfig(size, tuple(ships)), tuple(shots))

    @classmethod
    def load(cls, path: str | Path) -> GameState:
        """Read a game-state JSON file."""
        path = Path(path)
        data = read_json(path)
        try:
            return cls.from_json(data, source=str(path))
        except (StateError, FleetError) as exc:  # what the file says breaks the rules: name the file too
            raise type(exc)(f"{path}: {exc}") from None

    def dump(self, path: str | Path) -> None:
        """Write the state as JSON, whole: a crash mid-write leaves the previous file whole."""
        write_text(path, json.dumps(self.to_json()) + "\n")

__all__ = ["HIT", "MISS", "SUNK", "GameState", "Shot"]
