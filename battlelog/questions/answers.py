"""Answers as JSON: what a question's answer looks like to people and in files, read back strictly.

Yes/no answers are ``true``/``false``, numbers integers, colours a ship's name or ``"Water"``,
orientations ``"H"``/``"V"``, locations ``"r-c"`` counted from 1; a location or orientation that
does not exist (the top-left of an empty set, the orientation of Water) is ``null``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from battlelog.questions.language import ProgramError, Type, location_of
from battlelog.questions.space import NO_ORIENTATION, H, V
from battlelog.wording import clip


def answer_to_json(value: Any, kind: Type, names: Sequence[str], cols: int) -> Any:
    """The JSON form of an evaluator's value of type ``kind``."""
    value = int(value)
    if kind == Type.BOOL:
        return bool(value)
    if kind == Type.NUMBER:
        return value
    if kind == Type.COLOR:
        return "Water" if value == 0 else names[value - 1]
    if kind == Type.ORIENTATION:
        return {H: "H", V: "V"}.get(value)
    return None if value < 0 else f"{value // cols + 1}-{value % cols + 1}"


def answer_from_json(value: Any, kind: Type, names: Sequence[str], rows: int, cols: int) -> Any:
    """The evaluator's value of a recorded answer; an answer of the wrong type is one line."""
    if kind == Type.BOOL and isinstance(value, bool):
        return value
    if kind == Type.NUMBER and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind == Type.COLOR and isinstance(value, str) and (value == "Water" or value in names):
        return 0 if value == "Water" else names.index(value) + 1
    if kind == Type.ORIENTATION and value in ("H", "V", None):
        return {"H": H, "V": V, None: NO_ORIENTATION}[value]
    if kind == Type.LOCATION and value is None:
        return -1
    cell = location_of(value) if kind == Type.LOCATION and isinstance(value, str) else None
    if cell is not None and 0 <= cell[0] < rows and 0 <= cell[1] < cols:
        return cell[0] * cols + cell[1]
    wanted = {
        Type.BOOL: "true or false", Type.NUMBER: "a whole number", Type.COLOR: f"one of {', '.join(names)} or Water",
        Type.ORIENTATION: '"H", "V" or null', Type.LOCATION: 'a location on the board such as "3-4", or null',
    }[kind]  # fmt: skip
    raise ProgramError(f"the question's answer is a {kind.value}: {wanted}, got {clip(repr(value))}")
