"""Errors that users can cause, each carrying a one-line message.

The command line prints ``str(error)`` of any :class:`BattlelogError` and exits with status 2,
so every message must name what is wrong and fit on one line.
"""

from __future__ import annotations


class BattlelogError(ValueError):
    """Bad input or an impossible request; the message is shown to the user as is."""


class FleetError(BattlelogError):
    """A fleet that cannot be laid out on its board (or is malformed)."""


class RulesError(BattlelogError):
    """A rule variant battlelog does not know (a touch or sink rule name), or rules written wrongly."""


class ShotError(BattlelogError):
    """A shot that the rules forbid: off the board, repeated, or after the game ended."""


class StateError(BattlelogError):
    """A game state whose answers contradict each other or the rules."""


class Inconsistent(StateError):
    """No layout satisfies the evidence of a state (raised by the model stage and the engines; the
    error people see names the shot at fault, see :func:`battlelog.engines.base.locate_fault`)."""


class FileFormatError(BattlelogError):
    """A file that is not valid JSON or does not follow the spec's format."""


class BudgetExceeded(BattlelogError):
    """An engine would need more memory or time than it was allowed."""


class FrontierTooWide(BudgetExceeded):
    """An engine's budget cannot hold the few levels it must have at once, even recomputing the rest:
    splitting the problem on a cell would narrow its frontier only near that cell, so it is not tried."""


class WriteError(BattlelogError):
    """A file that cannot be written where it was asked for (no such folder, a folder, read-only)."""
