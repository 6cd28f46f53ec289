"""The rule variants a game is played under, as data: how ships may touch, how sinks are announced and
how many shots make a turn.

The names are an interface (the state JSON, the command line and tools outside battlelog use them):

- ``touch``: ``allowed`` (ships may touch, the standard rules), ``diagonal`` (ships may meet only at a
  corner, never along a side), ``none`` (no contact at all, not even at a corner);
- ``sinks``: ``named`` (miss / hit / sunk ship i, the standard rules), ``unnamed`` (miss / hit / sunk,
  without saying which ship), ``silent`` (miss / hit only: a ship's last cell is answered "hit");
- ``salvo``: ``1`` (one shot a turn, the standard rules), a whole number K (a turn is a volley of K
  shots chosen before any answer) or ``ships`` (one shot per ship afloat when the volley starts).

The touch rule changes which layouts exist (and so the prior); the sink rule changes only what the
answers say; salvo changes neither (the answers of a volley are those of its shots fired one after
another), only when the shooter chooses and what the score counts. See docs/rules.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from battlelog.digits import whole_number
from battlelog.errors import RulesError
from battlelog.rules.geometry import Cell, Placement
from battlelog.wording import NUMBER_LIMIT, clip, number_text

ALLOWED, DIAGONAL, NONE = "allowed", "diagonal", "none"
NAMED, UNNAMED, SILENT = "named", "unnamed", "silent"
TOUCH_RULES = (ALLOWED, DIAGONAL, NONE)
SINK_RULES = (NAMED, UNNAMED, SILENT)
#: ``salvo`` by the fleet: one shot per ship still afloat at the start of the volley (Hasbro's rule).
SHIPS = "ships"
#: The most shots a volley may have: the cells of the largest board (26 x 26), so that no salvo is a
#: number of hundreds of digits echoed in every label.
MAX_SALVO = 26 * 26

#: How labels and messages name a touch rule or a sink rule that is not the default.
_TOUCH_TEXT = {DIAGONAL: "corner contact only", NONE: "no contact"}
_SINKS_TEXT = {UNNAMED: "sinks unnamed", SILENT: "sinks silent"}


def parse_salvo(value: Any) -> int | str:
    """A salvo as the command line or the state JSON gives it: a whole number >= 1 (``"5"`` or ``5``)
    or ``ships``; anything else (``0``, ``-1``, ``foo``) is a one-line RulesError."""
    number = whole_number(value) if isinstance(value, str) and re.fullmatch(r"[0-9]+", value.strip()) else None
    value = value if number is None else number
    if not _is_salvo(value):
        shown = number_text(value) if isinstance(value, int) else clip(repr(value), NUMBER_LIMIT)
        raise RulesError(f"unknown salvo {shown}; give a whole number of shots per volley from 1 to {MAX_SALVO}, or {SHIPS!r}")
    return value


def _is_salvo(value: Any) -> bool:
    """Whether ``value`` is a salvo as the rules hold it: ``ships`` or a whole number from 1 to
    :data:`MAX_SALVO` (not a bool)."""
    return value == SHIPS or (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_SALVO)


@dataclass(frozen=True)
class Rules:
    """How ships may touch, how sinks are announced and how many shots a turn has; ``Rules()`` is the
    standard game."""

    touch: str = ALLOWED
    sinks: str = NAMED
    salvo: int | str = 1

    def __post_init__(self) -> None:
        for what, value, choices in (("touch", self.touch, TOUCH_RULES), ("sinks", self.sinks, SINK_RULES)):
            if not isinstance(value, str) or value not in choices:
                raise RulesError(f"unknown {what} rule {clip(repr(value))}; choose one of {', '.join(choices)}")
        if not _is_salvo(self.salvo):
            raise RulesError(
                f"unknown salvo {clip(repr(self.salvo), NUMBER_LIMIT)}; give a whole number of shots per volley from 1 to "
                f"{MAX_SALVO}, or {SHIPS!r}"
            )
        if self.salvo == SHIPS and self.sinks == SILENT:
            raise RulesError(
                "salvo by ships needs sinks announced: under silent sinks the shooter could not know how many "
                "shots it has (the volley's size would reveal the sinks)"
            )

    @property
    def is_default(self) -> bool:
        """True for the standard rules (ships may touch, sinks named, one shot a turn)."""
        return self.touch == ALLOWED and self.sinks == NAMED and self.salvo == 1

    @property
    def is_salvo(self) -> bool:
        """True when a turn is a volley (any salvo but 1)."""
        return self.salvo != 1

    @property
    def posterior(self) -> Rules:
        """The rules the posterior depends on: these without the salvo (a volley's answers are those of
        its shots fired one after another), so caches of posteriors are keyed alike under any salvo."""
        return Rules(self.touch, self.sinks) if self.is_salvo else self

    def volley_size(self, ships_afloat: int) -> int:
        """Shots in a volley that starts with ``ships_afloat`` ships not yet sunk (before the cells left
        are counted): 1 without salvo, K under salvo K, the ships afloat under salvo by ships."""
        return ships_afloat if self.salvo == SHIPS else int(self.salvo)

    def text(self) -> str:
        """The rules that differ from the standard ones, as labels show them (``no contact, sinks unnamed,
        salvo 5``); empty for the standard rules."""
        parts = [_TOUCH_TEXT[self.touch]] if self.touch != ALLOWED else []
        parts += [_SINKS_TEXT[self.sinks]] if self.sinks != NAMED else []
        parts += [f"salvo {'by ships' if self.salvo == SHIPS else self.salvo}"] if self.is_salvo else []
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """``touch`` and ``sinks``, and ``salvo`` only when it is not 1 (so standard files stay as they were)."""
        out: dict[str, Any] = {"touch": self.touch, "sinks": self.sinks}
        if self.is_salvo:
            out["salvo"] = self.salvo
        return out

    @classmethod
    def from_json(cls, data: Any) -> Rules:
        """The state JSON's ``"rules"`` object (missing keys are the defaults); anything else is a RulesError."""
        if not isinstance(data, dict):
            raise RulesError(f'rules must be an object such as {{"touch": "none", "sinks": "named"}}, got {clip(repr(data))}')
        for key in data:
            if key not in ("touch", "sinks", "salvo"):
                raise RulesError(f"unknown rules key {clip(repr(key))}; expected only 'touch', 'sinks' and 'salvo'")
        return cls(data.get("touch", ALLOWED), data.get("sinks", NAMED), data.get("salvo", 1))

    def keep_out(self, placement: Placement, rows: int, cols: int | None = None) -> frozenset[Cell]:
        """The cells no other ship may cover when ``placement`` is on the board: its own cells, and
        under ``diagonal`` their side neighbours, under ``none`` all eight neighbours (on a ``rows`` x
        ``cols`` board, square when ``cols`` is omitted)."""
        cols = rows if cols is None else cols
        steps = {ALLOWED: (), DIAGONAL: ((0, 1), (1, 0), (0, -1), (-1, 0))}.get(
            self.touch, tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
        )
        out = set(placement.cells)
        for r, c in placement.cells:
            out.update((r + dr, c + dc) for dr, dc in steps if 0 <= r + dr < rows and 0 <= c + dc < cols)
        return frozenset(out)

    def legal(self, layout: tuple[Placement, ...] | list[Placement], rows: int, cols: int | None = None) -> bool:
        """True if no two ships of ``layout`` share a cell or touch in a way the touch rule forbids."""
        for i, p in enumerate(layout):
            zone = self.keep_out(p, rows, cols)
            if any(not zone.isdisjoint(q.cells) for q in layout[i + 1 :]):
                return False
        return True


#: The standard rules: ships may touch, sinks are named.
STANDARD_RULES = Rules()
