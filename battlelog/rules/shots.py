"""One shot and its answer, and the checks each next shot of a game must pass under the rules.

:class:`_Tally` is what :class:`~battlelog.rules.state.GameState` keeps of the shots so far so that a
new shot is checked without re-reading the game: on the board, not a repeat, an answer the sink rule
allows (a named sink names a ship not sunk before; an unnamed one names none; a silent game has no
sunk answers), no more hits than ship cells, and nothing after the end of the game. Under salvo each
shot names its volley: volleys are numbered from 0 in order, none has more shots than the rules give
it (k, or the ships afloat when it starts under salvo by ships; never more than the cells left), and
a volley is full before the next one starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from battlelog.errors import StateError
from battlelog.rules.answers import MISS, RESULTS, SUNK
from battlelog.rules.config import GameConfig, fleet_text
from battlelog.rules.geometry import Cell, cell_name
from battlelog.rules.variants import SILENT, UNNAMED
from battlelog.wording import clip, count_noun


@dataclass(frozen=True)
class Shot:
    """One shot and its answer; ``ship`` is the index of the ship sunk, only when ``result == "sunk"``
    and sinks are named (an unnamed sink has none); ``volley`` the volley it belongs to (from 0), only
    under salvo."""

    row: int
    col: int
    result: str
    ship: int | None = None
    volley: int | None = None

    @property
    def cell(self) -> Cell:
        return (self.row, self.col)

    @property
    def is_hit(self) -> bool:
        """Hits and sinks both count as hits."""
        return self.result != MISS

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"row": self.row, "col": self.col, "result": self.result}
        if self.result == SUNK and self.ship is not None:
            out["ship"] = self.ship
        if self.volley is not None:
            out["volley"] = self.volley
        return out


@dataclass
class _Tally:
    """What validating the next shot needs to know about the shots before it."""

    seen: dict[Cell, int] = field(default_factory=dict)
    sunk: dict[int, int] = field(default_factory=dict)
    sinks: int = 0
    hits: int = 0
    #: Under salvo: the current volley (-1 before the first), its shots so far and the shots it may have.
    volley: int = -1
    in_volley: int = 0
    volley_size: int = 0

    def copy(self) -> _Tally:
        return _Tally(dict(self.seen), dict(self.sunk), self.sinks, self.hits, self.volley, self.in_volley, self.volley_size)

    def over(self, config: GameConfig) -> bool:
        """Every ship announced sunk (``named``, ``unnamed``), or every ship cell hit (``silent``)."""
        if config.rules.sinks == SILENT:
            return self.hits == config.ship_cells
        return self.sinks == len(config.ships)

    def admit(self, config: GameConfig, t: int, shot: Shot) -> None:
        """Check shot number ``t`` (0-based) against the rules and the shots before it, then record it."""
        rows, cols, fleet, sinks = config.rows, config.cols, config.ships, config.rules.sinks
        where = f"shot {t + 1}"
        if self.over(config):
            done = "every ship cell was already hit" if sinks == SILENT else "every ship was already sunk"
            raise StateError(f"{where} ({cell_name(shot.cell)}) comes after {done}")
        self._check_volley(config, where, shot)
        if not (0 <= shot.row < rows and 0 <= shot.col < cols):
            raise StateError(f"{where} at row {shot.row}, column {shot.col} is off the {config.shape} board")
        if shot.cell in self.seen:
            raise StateError(f"{where} repeats cell {cell_name(shot.cell)}, already shot at shot {self.seen[shot.cell] + 1}")
        if shot.result not in RESULTS:
            raise StateError(f"{where} has result {clip(repr(shot.result))}; expected one of {', '.join(RESULTS)}")
        if shot.result == SUNK:
            self._check_sink(config, where, shot)
        elif shot.ship is not None:
            raise StateError(f"{where} is a {shot.result} but names ship {shot.ship}; only a sunk answer names a ship")
        hits = self.hits + shot.is_hit
        if hits > config.ship_cells:
            raise StateError(f"{where} is hit number {hits}, more than the {config.ship_cells} ship cells of the fleet")
        if shot.result == SUNK and shot.ship is not None and fleet[shot.ship] > hits:
            raise StateError(f"{where} sinks ship {shot.ship} of length {fleet[shot.ship]} after only {count_noun(hits, 'hit')}")
        if shot.result == SUNK and sinks == UNNAMED and sum(sorted(fleet)[: self.sinks + 1]) > hits:
            shortest = sum(sorted(fleet)[: self.sinks + 1])
            raise StateError(
                f"{where} is sink number {self.sinks + 1}, but the {self.sinks + 1} shortest ships of fleet "
                f"{fleet_text(fleet)} have {shortest} cells and there are only {count_noun(hits, 'hit')}"
            )
        self.seen[shot.cell] = t
        if shot.result == SUNK:
            self.sinks += 1
            if shot.ship is not None:
                self.sunk[shot.ship] = t
        self.hits = hits
        if shot.volley is not None:
            self.in_volley += 1

    def _check_volley(self, config: GameConfig, where: str, shot: Shot) -> None:
        """Under salvo a shot names its volley: the current one while it has shots left, else the next
        one (the current one full); without salvo it names none. Starting a volley sets its size."""
        rules, v = config.rules, shot.volley
        if not rules.is_salvo:
            if v is not None:
                raise StateError(f"{where} names volley {clip(repr(v))}, but the game has no salvo (one shot a turn)")
            return
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise StateError(f"{where} must name its volley (a whole number from 0) under {rules.text()}, got {clip(repr(v))}")
        if v == self.volley:
            if self.in_volley >= self.volley_size:
                # (never fewer than k for want of cells: with every cell shot, every ship cell is hit)
                raise StateError(
                    f"{where} is shot {self.in_volley + 1} of volley {v}, which may have only {self.volley_size} under "
                    f"{rules.text()}"
                )
            return
        if v != self.volley + 1:
            expected = "0" if self.volley < 0 else f"{self.volley} or {self.volley + 1}"
            raise StateError(f"{where} is in volley {v}, expected volley {expected}: volleys are numbered from 0 in order")
        if self.volley >= 0 and self.in_volley < self.volley_size:
            raise StateError(
                f"{where} starts volley {v}, but volley {self.volley} has only {self.in_volley} of its {self.volley_size} shots"
            )
        self.volley_size = self.next_volley_size(config)
        self.volley, self.in_volley = v, 0

    def next_volley_size(self, config: GameConfig) -> int:
        """The shots of a volley begun now: k under the salvo rule (under ``ships``, the ships not
        announced sunk), never more than the cells left."""
        return min(config.rules.volley_size(len(config.ships) - self.sinks), config.cell_count - len(self.seen))

    def _check_sink(self, config: GameConfig, where: str, shot: Shot) -> None:
        """A sunk answer must be what the sink rule allows: naming a ship not sunk before under ``named``,
        naming none under ``unnamed``; under ``silent`` there are no sunk answers."""
        fleet, sinks = config.ships, config.rules.sinks
        if sinks == SILENT:
            raise StateError(
                f"{where} ({cell_name(shot.cell)}) is answered sunk, but sinks are silent: every hit is answered hit"
            )
        if sinks == UNNAMED:
            if shot.ship is not None:
                raise StateError(
                    f"{where} ({cell_name(shot.cell)}) names ship {shot.ship}, but sinks are unnamed: "
                    'a sinking shot is {"result": "sunk"} with no ship'
                )
            return
        if shot.ship is None:
            raise StateError(
                f"{where} ({cell_name(shot.cell)}) is a sunk answer without a ship index: "
                f"say which of ships 0..{len(fleet) - 1} (fleet {fleet_text(fleet)}) it sank"
            )
        if not (0 <= shot.ship < len(fleet)):
            raise StateError(f"{where} sinks ship {shot.ship!r}, but the fleet {fleet_text(fleet)} has ships 0..{len(fleet) - 1}")
        if shot.ship in self.sunk:
            raise StateError(f"{where} sinks ship {shot.ship} again (already sunk at shot {self.sunk[shot.ship] + 1})")
