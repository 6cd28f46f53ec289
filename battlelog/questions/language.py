"""Rothe, Lake & Gureckis's question language: its types and reading a program.

A program is a LISP-like expression such as ``(== (size Red) 3)``. :func:`parse` reads it into a
tree of :class:`Call` and :class:`Atom` nodes, each remembering the column it starts at, so that
every error is one line saying where; :mod:`.typecheck` then gives each node its type. The
semantics are written down in docs/questions.md.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from battlelog.digits import whole_number
from battlelog.errors import BattlelogError
from battlelog.wording import clip


class ProgramError(BattlelogError):
    """A program that does not read or does not type: the message says where."""


class Type(Enum):
    """The types of values: five kinds an answer can have, and four kinds of collection."""

    BOOL = "yes/no"
    NUMBER = "number"
    COLOR = "colour"
    LOCATION = "location"
    ORIENTATION = "orientation"
    COLORS = "set of colours"
    LOCATIONS = "set of locations"
    BOOLS = "multiset of yes/no"
    NUMBERS = "multiset of numbers"


#: The types a whole program may have: the kinds of answer.
ANSWER_TYPES = (Type.BOOL, Type.NUMBER, Type.COLOR, Type.LOCATION, Type.ORIENTATION)
#: What ``map`` makes of a lambda body's type.
MAPPED = {Type.BOOL: Type.BOOLS, Type.NUMBER: Type.NUMBERS, Type.LOCATION: Type.LOCATIONS}
#: Every function of the language and how many arguments it takes (min, max; None: no upper bound).
ARITY: dict[str, tuple[int, int | None]] = {
    "==": (2, 2), "===": (1, 1), ">": (2, 2), "<": (2, 2), "+": (2, 2), "-": (2, 2), "++": (1, 1),
    "and": (2, None), "or": (2, None), "not": (1, 1), "rowL": (1, 1), "colL": (1, 1),
    "color": (1, 1), "orient": (1, 1), "touch": (2, 2), "size": (1, 1), "coloredTiles": (1, 1),
    "any": (1, 1), "all": (1, 1), "map": (2, 2), "set": (1, None), "topleft": (1, 1),
    "bottomright": (1, 1), "setSize": (1, 1), "isSubset": (2, 2), "setDifference": (2, 2),
    "union": (2, 2), "intersection": (2, 2), "unique": (1, 1), "lambda": (2, 2),
}  # fmt: skip

#: The deepest nesting read: the evaluators recurse once per level.
MAX_DEPTH = 64
#: The longest program read, in characters (people's are a few hundred).
MAX_CHARACTERS = 100_000
#: The largest number literal: numbers here count tiles and ships, and with :data:`MAX_CHARACTERS`
#: no sum of literals comes near the 64-bit integers the evaluators compute with.
MAX_NUMBER = 1_000_000
_TOKEN = re.compile(r"\(|\)|[^\s()]+")
# Digits are ASCII 0-9 only, as battlelog.digits reads them: an Arabic-Indic 3 is not a number here.
_VARIABLE = re.compile(r"[xy][0-9]+")
_NUMBER = re.compile(r"[0-9]+")
_DASHED = re.compile(r"([0-9]+)-([0-9]+)")  # 3-4: row 3, column 4, counted from 1
_ROW_FIRST = re.compile(r"([0-9]+)([A-Z])")  # 6D: row 6, column D (Rothe's boards: rows numbered)
_LETTER_FIRST = re.compile(r"([A-Z])([0-9]+)")  # C2: row C, column 2 (Grand's boards: rows lettered)


@dataclass
class Atom:
    """A literal or a variable; ``kind`` is bool, number, location, orientation, name, colors,
    tiles or variable, and ``value`` its value (a name is resolved to a colour by :func:`check`)."""

    kind: str
    value: object
    text: str
    column: int
    type: Type | None = None


@dataclass
class Call:
    """``(op arg ...)``: a function applied to its arguments."""

    op: str
    args: list[Node]
    column: int
    type: Type | None = None
    extra: dict[str, object] = field(default_factory=dict)


Node = Atom | Call


def location_of(text: str) -> tuple[int, int] | None:
    """``(row, column)`` counted from 0 of a location written ``3-4``, ``6D`` or ``C2``; None if it is none."""
    if match := _DASHED.fullmatch(text):
        return _counted(match[1]) - 1, _counted(match[2]) - 1
    if match := _ROW_FIRST.fullmatch(text):
        return _counted(match[1]) - 1, ord(match[2]) - ord("A")
    if match := _LETTER_FIRST.fullmatch(text):
        return ord(match[1]) - ord("A"), _counted(match[2]) - 1
    return None


def _counted(digits: str) -> int:
    """A row or column number; one of more digits than Python converts is off every board all the same."""
    value = whole_number(digits)
    return sys.maxsize if value is None else value


def read_atom(text: str, column: int) -> Atom:
    """The literal or variable a token spells."""
    if text in ("TRUE", "FALSE"):
        return Atom("bool", text == "TRUE", text, column)
    if text in ("H", "V"):
        return Atom("orientation", text, text, column)
    if text == "AllColors":
        return Atom("colors", None, text, column)
    if text == "AllTiles":
        return Atom("tiles", None, text, column)
    if _VARIABLE.fullmatch(text):
        return Atom("variable", text, text, column)
    if _NUMBER.fullmatch(text):
        value = whole_number(text)
        if value is None or value > MAX_NUMBER:
            raise ProgramError(f"column {column}: number {clip(text)} is larger than {MAX_NUMBER:,}")
        return Atom("number", value, text, column)
    if (cell := location_of(text)) is not None:
        return Atom("location", cell, text, column)
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", text) and text not in ARITY:
        return Atom("name", text, text, column)
    raise ProgramError(f"column {column}: {clip(repr(text))} is not a literal, a ship's name or a variable")


def parse(program: str) -> Node:
    """The tree of ``program``; anything that does not read is one line naming the column."""
    if len(program) > MAX_CHARACTERS:
        raise ProgramError(f"the program has {len(program):,} characters, more than {MAX_CHARACTERS:,}")
    tokens = [(m.group(), m.start() + 1) for m in _TOKEN.finditer(program)]
    if not tokens:
        raise ProgramError("the program is empty")
    depth = 0
    for text, column in tokens:
        depth += (text == "(") - (text == ")")
        if depth > MAX_DEPTH:
            raise ProgramError(f"column {column}: nested more than {MAX_DEPTH} deep")
    node, end = _parse_at(tokens, 0)
    if end < len(tokens):
        text, column = tokens[end]
        raise ProgramError(f"column {column}: {clip(repr(text))} after the end of the program")
    return node


def _parse_at(tokens: Sequence[tuple[str, int]], i: int) -> tuple[Node, int]:
    """The node starting at token ``i`` and the index after it."""
    text, column = tokens[i]
    if text == ")":
        raise ProgramError(f"column {column}: ')' closes nothing")
    if text != "(":
        return read_atom(text, column), i + 1
    if i + 1 >= len(tokens):
        raise ProgramError(f"column {column}: '(' is never closed")
    op, op_column = tokens[i + 1]
    if op in "()":
        raise ProgramError(f"column {op_column}: expected a function's name after '(', got {op!r}")
    if op not in ARITY:
        raise ProgramError(f"column {op_column}: unknown function {clip(repr(op))}")
    args: list[Node] = []
    j = i + 2
    while True:
        if j >= len(tokens):
            raise ProgramError(f"column {column}: '(' is never closed")
        if tokens[j][0] == ")":
            break
        arg, j = _parse_at(tokens, j)
        args.append(arg)
    low, high = ARITY[op]
    if len(args) < low or (high is not None and len(args) > high):
        wanted = f"{low}" if low == high else f"at least {low}"
        raise ProgramError(f"column {column}: {op} takes {wanted} argument{'s' if high != 1 else ''}, got {len(args)}")
    return Call(op, args, column), j + 1
