"""What a player sees of a game: the shots fired and their answers, and the game-state JSON format.

A :class:`GameState` never holds the hidden layout. Its constructor checks every rule that can be
checked without inference (cells on the board, no repeats, well-formed answers under the sink rule,
each ship sunk at most once, nothing after the end); whether some layout satisfies all the answers is
a question for the engines (see :func:`battlelog.engines.base.locate_fault`).

What the shots tell of the fleet depends on the sink rule (``config.rules.sinks``):

- ``named``: every sink names its ship, so :attr:`GameState.afloat` lists the ships not sunk;
- ``unnamed``: a sink says only that some ship went down, so which ships are afloat is not known
  (``afloat`` refuses); :attr:`GameState.sunk_count` counts the sinks;
- ``silent``: nothing is ever announced sunk, so neither is known (``sunk_count`` is 0).

:attr:`GameState.over` is true under ``named`` and ``unnamed`` once as many sinks were announced as
there are ships, and under ``silent`` once as many cells were hit as the fleet has ship cells.

Tallies (:attr:`GameState.row_counts`, :attr:`GameState.col_counts`) are evidence too: the number of ship cells in
a row or a column, ``None`` where not given (None as a whole: none given). Their form is checked here (one entry per
line, each a whole number from 0 to the line's length); a tally the shots contradict (fewer than the hits in its line)
is, like any contradiction, the engines' :class:`~battlelog.errors.Inconsistent`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from battlelog.errors import FileFormatError, FleetError, RulesError, StateError
from battlelog.files import write_text
from battlelog.jsonfile import check_keys, named_file, read_json
from battlelog.rules.answers import HIT, MISS, SUNK
from battlelog.rules.config import GameConfig, board_from_json
from battlelog.rules.geometry import Cell
from battlelog.rules.line_counts import Tallies, check_tallies
from battlelog.rules.prior import Prior
from battlelog.rules.shots import Shot, _Tally
from battlelog.rules.variants import NAMED, Rules
from battlelog.wording import clip

#: The keys of the game-state format, and of each shot in it.
STATE_KEYS, SHOT_KEYS = (
    ("size", "rows", "cols", "ships", "rules", "prior", "row_counts", "col_counts", "shots"),
    ("row", "col", "result", "ship", "volley"),
)
@dataclass(frozen=True)
class GameState:
    """A board configuration and the shots fired so far, in order.

    ``pending``: cells a player has already picked for the volley it is choosing, not yet fired (see
    :meth:`aiming`); empty in every state of a game. ``row_counts``, ``col_counts``: the tallies given (see the
    module's docstring), None when none is; a state with tallies is another posterior, so they are part of its
    equality and hash.
    """

    config: GameConfig
    shots: tuple[Shot, ...] = field(default=())
    pending: frozenset[Cell] = field(default=frozenset(), compare=False)
    row_counts: Tallies | None = None
    col_counts: Tallies | None = None
    _tally: _Tally = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "shots", tuple(self.shots))
        rows, cols = self.config.rows, self.config.cols
        object.__setattr__(self, "row_counts", check_tallies(self.row_counts, rows, cols, "row_counts"))
        object.__setattr__(self, "col_counts", check_tallies(self.col_counts, cols, rows, "col_counts"))
        tally = _Tally()
        for t, shot in enumerate(self.shots):
            tally.admit(self.config, t, shot)
        object.__setattr__(self, "_tally", tally)

    # ----- building states -------------------------------------------------------------------
    @classmethod
    def empty(cls, config: GameConfig) -> GameState:
        return cls(config, ())

    def with_shot(self, row: int, col: int, result: str, ship: int | None = None, volley: int | None = None) -> GameState:
        """This state plus one more shot, validated like any state but checking only the new shot.

        Games grow one shot at a time; re-checking the whole history at every move would make a game
        quadratic in its length.
        """
        shot = Shot(row, col, result, ship, volley)
        tally = self._tally.copy()
        tally.admit(self.config, len(self.shots), shot)
        state = object.__new__(GameState)
        object.__setattr__(state, "config", self.config)
        object.__setattr__(state, "shots", self.shots + (shot,))
        object.__setattr__(state, "pending", frozenset())
        object.__setattr__(state, "row_counts", self.row_counts)
        object.__setattr__(state, "col_counts", self.col_counts)
        object.__setattr__(state, "_tally", tally)
        return state

    def aiming(self, cells: frozenset[Cell] | set[Cell]) -> GameState:
        """This state while a volley is being chosen, with ``cells`` already picked for it: they count
        as shot (:attr:`shot_cells`, :attr:`unshot`) but have no answer (hits, misses and shots are
        unchanged), so a player that picks one cell at a time never picks one twice."""
        state = object.__new__(GameState)
        for name in ("config", "shots", "row_counts", "col_counts", "_tally"):
            object.__setattr__(state, name, getattr(self, name))
        object.__setattr__(state, "pending", frozenset(cells))
        return state

    def prefix(self, count: int) -> GameState:
        """The state after the first ``count`` shots (the tallies, given before any shot, kept)."""
        return GameState(self.config, self.shots[:count], row_counts=self.row_counts, col_counts=self.col_counts)

    def with_tallies(self, row_counts: Tallies | None, col_counts: Tallies | None) -> GameState:
        """This state's shots with these tallies (None: not given) instead of its own."""
        return GameState(self.config, self.shots, row_counts=row_counts, col_counts=col_counts)

    @property
    def tallied(self) -> bool:
        """Whether some row's or column's tally is given."""
        return self.row_counts is not None or self.col_counts is not None

    # ----- what the shots say ----------------------------------------------------------------
    @property
    def size(self) -> int:
        """The side of a square board (a FleetError on a rectangular one: use rows and cols)."""
        return self.config.size

    @property
    def rows(self) -> int:
        return self.config.rows

    @property
    def cols(self) -> int:
        return self.config.cols

    @property
    def ships(self) -> tuple[int, ...]:
        return self.config.ships

    @cached_property
    def shot_cells(self) -> frozenset[Cell]:
        """The cells shot, and those already picked for the volley being chosen (:attr:`pending`)."""
        return frozenset(s.cell for s in self.shots) | self.pending

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
        """``(ship, shot index, cell)`` for every sink that names its ship, in order: every sink under
        ``named``, none under ``unnamed`` and ``silent`` (see :attr:`sunk_shots`)."""
        return tuple((s.ship, t, s.cell) for t, s in enumerate(self.shots) if s.result == SUNK and s.ship is not None)

    @cached_property
    def sunk_shots(self) -> tuple[int, ...]:
        """Indices of the shots answered sunk, named or not."""
        return tuple(t for t, s in enumerate(self.shots) if s.result == SUNK)

    @property
    def sunk_count(self) -> int:
        """How many ships were announced sunk (always 0 under silent sinks, where none is announced)."""
        return self._tally.sinks

    @cached_property
    def afloat(self) -> tuple[int, ...]:
        """Indices of the ships not announced sunk. Only sinks that name their ship tell which ships
        are afloat, so under ``unnamed`` and ``silent`` sinks this is a StateError (use
        :attr:`sunk_count` and :attr:`over`)."""
        if self.config.rules.sinks != NAMED:
            raise StateError(f"sinks are {self.config.rules.sinks}, so which ships are afloat is not known")
        sunk = {ship for ship, _, _ in self.sinks}
        return tuple(i for i in range(len(self.ships)) if i not in sunk)

    @property
    def over(self) -> bool:
        """True once every ship has been announced sunk (sinks ``named`` or ``unnamed``), or every
        ship cell has been hit (sinks ``silent``)."""
        return self._tally.over(self.config)

    @property
    def volleys(self) -> int:
        """Volleys begun so far (the score of a finished salvo game); 0 without salvo."""
        return self._tally.volley + 1

    def volley_left(self) -> int:
        """Shots still to come in the current volley (0 when none is under way or without salvo)."""
        return self._tally.volley_size - self._tally.in_volley if self._tally.volley >= 0 else 0

    def next_volley(self) -> tuple[int, int]:
        """The volley the next shot belongs to and how many shots it has left: the current one while it
        has any, else a new one of k shots (k under the salvo rule, at most the cells left). (0, 1)
        without salvo: every shot is a volley of one."""
        rules = self.config.rules
        if not rules.is_salvo:
            return 0, 1
        if self.volley_left() > 0:
            return self._tally.volley, self.volley_left()
        return self._tally.volley + 1, self._tally.next_volley_size(self.config)

    @cached_property
    def unshot(self) -> tuple[Cell, ...]:
        """Cells not shot yet, row-major."""
        return tuple((r, c) for r in range(self.rows) for c in range(self.cols) if (r, c) not in self.shot_cells)

    # ----- JSON ------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The spec's game-state format; ``rules`` only when they are not the standard ones, ``prior``
        only when it is not uniform (so standard files stay as they were)."""
        out: dict[str, Any] = {**self.config.board_json(), "ships": list(self.ships)}
        if not self.config.rules.is_default:
            out["rules"] = self.config.rules.to_json()
        if not self.config.prior.is_uniform:
            out["prior"] = self.config.prior.to_json()
        for key, counts in (("row_counts", self.row_counts), ("col_counts", self.col_counts)):
            if counts is not None:
                out[key] = list(counts)
        out["shots"] = [s.to_json() for s in self.shots]
        return out

    @classmethod
    def from_json(cls, data: Any, source: str = "game state") -> GameState:
        """Read the spec's game-state format; anything malformed is a one-line FileFormatError (tallies too: the
        form of each, not whether the shots allow it)."""
        if not isinstance(data, dict):
            raise FileFormatError(f"{source}: expected a JSON object with size, ships and shots")
        check_keys(data, STATE_KEYS, source)
        for key in ("size", "ships"):
            if key not in data and (key != "size" or not {"rows", "cols"} & data.keys()):
                raise FileFormatError(f"{source}: missing key {key!r}")
        rows, cols = board_from_json(data, source)
        ships = data["ships"]
        if not isinstance(ships, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in ships):
            raise FileFormatError(f"{source}: ships must be a list of whole numbers, got {clip(repr(ships))}")
        try:
            rules = Rules.from_json(data.get("rules", {}))
            prior = Prior.from_json(data.get("prior", {}))
        except RulesError as exc:
            raise FileFormatError(f"{source}: {exc}") from None
        raw_shots = data.get("shots", [])
        if not isinstance(raw_shots, list):
            raise FileFormatError(f"{source}: shots must be a list")
        shots = []
        for t, raw in enumerate(raw_shots):
            if isinstance(raw, dict):
                check_keys(raw, SHOT_KEYS, f"{source}: shot {t + 1}")
            if not isinstance(raw, dict) or not {"row", "col", "result"} <= raw.keys():
                raise FileFormatError(f"{source}: shot {t + 1} must be an object with row, col and result")
            row, col, result, ship, volley = raw["row"], raw["col"], raw["result"], raw.get("ship"), raw.get("volley")
            optional = tuple((name, value) for name, value in (("ship", ship), ("volley", volley)) if value is not None)
            for name, value in (("row", row), ("col", col)) + optional:
                if not isinstance(value, int) or isinstance(value, bool):
                    raise FileFormatError(f"{source}: shot {t + 1} has {name} {clip(repr(value))}, not a whole number")
            shots.append(Shot(row, col, result, ship, volley))
        try:
            config = GameConfig(rows, tuple(ships), rules, cols=cols, prior=prior)
        except RulesError as exc:  # a prior too strong for the board
            raise FileFormatError(f"{source}: {exc}") from None
        try:
            row_counts = check_tallies(data.get("row_counts"), rows, cols, "row_counts")
            col_counts = check_tallies(data.get("col_counts"), cols, rows, "col_counts")
        except StateError as exc:
            raise FileFormatError(f"{source}: {exc}") from None
        return cls(config, tuple(shots), row_counts=row_counts, col_counts=col_counts)

    @classmethod
    def load(cls, path: str | Path) -> GameState:
        """Read a game-state JSON file."""
        path = named_file(path)
        data = read_json(path)
        try:
            return cls.from_json(data, source=str(path))
        except (StateError, FleetError) as exc:  # what the file says breaks the rules: name the file too
            raise type(exc)(f"{path}: {exc}") from None

    def dump(self, path: str | Path) -> None:
        """Write the state as JSON, whole (:func:`battlelog.files.replacing`: a link is written through,
        a crash leaves the previous file)."""
        write_text(path, json.dumps(self.to_json()) + "\n")

__all__ = ["HIT", "MISS", "SUNK", "GameState", "Shot"]
