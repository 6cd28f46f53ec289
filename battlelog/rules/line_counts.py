"""Tallies, the number of ship cells in a row or a column (issue 40), as a game state holds them: checked for form only
(whether the rest of the state allows them is for the engines to say)."""

from __future__ import annotations

from typing import Any

from battlelog.errors import StateError
from battlelog.wording import clip

#: A line's tallies: per row (or column), its number of ship cells, or None where not given.
Tallies = tuple[int | None, ...]


def check_tallies(counts: Any, lines: int, length: int, name: str) -> Tallies | None:
    """``counts`` as a state holds them: a tuple of ``lines`` entries, each None or a whole number 0..``length``, and
    None when no entry is given (a list of nulls says nothing). Anything else is a one-line StateError."""
    if counts is None:
        return None
    if not isinstance(counts, (list, tuple)) or len(counts) != lines:
        raise StateError(f"{name} must be a list of {lines} entries (null or a whole number), got {clip(repr(counts))}")
    for k, value in enumerate(counts):
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= length:
            raise StateError(f"{name}[{k}] is {clip(repr(value))}: a tally is null or a whole number from 0 to {length}")
    out = tuple(counts)
    return out if any(value is not None for value in out) else None


__all__ = ["Tallies", "check_tallies"]
