"""The rule variants a game is played under, as data: how ships may touch and how sinks are announced.

The names are an interface (the state JSON, the command line and tools outside battlelog use them):

- ``touch``: ``allowed`` (ships may touch, the standard rules), ``diagonal`` (ships may meet only at a
  corner, never along a side), ``none`` (no contact at all, not even at a corner);
- ``sinks``: ``named`` (miss / hit / sunk ship i, the standard rules), ``unnamed`` (miss / hit / sunk,
  without saying which ship), ``silent`` (miss / hit only: a ship's last cell is answered "hit").

The touch rule changes which layouts exist (and so the prior); the sink rule changes only what the
answers say. See docs/rules.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from battlelog.errors import RulesError
from battlelog.rules.geometry import Cell, Placement
from battlelog.wording import clip

ALLOWED, DIAGONAL, NONE = "allowed", "diagonal", "none"
NAMED, UNNAMED, SILENT = "named", "unnamed", "silent"
TOUCH_RULES = (ALLOWED, DIAGONAL, NONE)
SINK_RULES = (NAMED, UNNAMED, SILENT)

#: How labels and messages name a touch rule or a sink rule that is not the default.
_TOUCH_TEXT = {DIAGONAL: "corner contact only", NONE: "no contact"}
_SINKS_TEXT = {UNNAMED: "sinks unnamed", SILENT: "sinks silent"}


@dataclass(frozen=True)
class Rules:
    """How ships may touch and how sinks are announced; ``Rules()`` is the standard game."""

    touch: str = ALLOWED
    sinks: str = NAMED

    def __post_init__(self) -> None:
        for what, value, choices in (("touch", self.touch, TOUCH_RULES), ("sinks", self.sinks, SINK_RULES)):
            if not isinstance(value, str) or value not in choices:
                raise RulesError(f"unknown {what} rule {clip(repr(value))}; choose one of {', '.join(choices)}")

    @property
    def is_default(self) -> bool:
        """True for the standard rules (ships may touch, sinks named)."""
        return self.touch == ALLOWED and self.sinks == NAMED

    def text(self) -> str:
        """The rules that differ from the standard ones, as labels show them (``no contact, sinks unnamed``);
        empty for the standard rules."""
        parts = [_TOUCH_TEXT[self.touch]] if self.touch != ALLOWED else []
        parts += [_SINKS_TEXT[self.sinks]] if self.sinks != NAMED else []
        return ", ".join(parts)

    def to_json(self) -> dict[str, str]:
        return {"touch": self.touch, "sinks": self.sinks}

    @classmethod
    def from_json(cls, data: Any) -> Rules:
        """The state JSON's ``"rules"`` object (missing keys are the defaults); anything else is a RulesError."""
        if not isinstance(data, dict):
            raise RulesError(f"rules must be an object such as {{\"touch\": \"none\", \"sinks\": \"named\"}}, got {clip(repr(data))}")
        for key in data:
            if key not in ("touch", "sinks"):
                raise RulesError(f"unknown rules key {clip(repr(key))}; expected only 'touch' and 'sinks'")
        return cls(data.get("touch", ALLOWED), data.get("sinks", NAMED))

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
