"""Rothe, Lake & Gureckis's question language: reading a program and checking its types.

A program is a LISP-like expression such as ``(== (size Red) 3)``. :func:`parse` reads it into a
tree of :class:`Call` and :class:`Atom` nodes, each remembering the column it starts at, so that
every error is one line saying where; :func:`check` gives each node its type against a fleet's ship
names (``Blue`` in a fleet of Red, Green, Purple and Orange is refused there, not at evaluation).
The semantics are written down in docs/questions.md; :mod:`battlelog.questions.layout` evaluates a
checked program on one layout, :mod:`battlelog.questions.vectorised` on every layout of a space.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import cast

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

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_VARIABLE = re.compile(r"[xy]\d+")
_NUMBER = re.compile(r"\d+")
_DASHED = re.compile(r"(\d+)-(\d+)")  # 3-4: row 3, column 4, counted from 1
_ROW_FIRST = re.compile(r"(\d+)([A-Z])")  # 6D: row 6, column D (Rothe's boards: rows numbered)
_LETTER_FIRST = re.compile(r"([A-Z])(\d+)")  # C2: row C, column 2 (Grand's boards: rows lettered)


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
        return int(match[1]) - 1, int(match[2]) - 1
    if match := _ROW_FIRST.fullmatch(text):
        return int(match[1]) - 1, ord(match[2]) - ord("A")
    if match := _LETTER_FIRST.fullmatch(text):
        return ord(match[1]) - ord("A"), int(match[2]) - 1
    return None


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
        return Atom("number", int(text), text, column)
    if (cell := location_of(text)) is not None:
        return Atom("location", cell, text, column)
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", text) and text not in ARITY:
        return Atom("name", text, text, column)
    raise ProgramError(f"column {column}: {clip(repr(text))} is not a literal, a ship's name or a variable")


def parse(program: str) -> Node:
    """The tree of ``program``; anything that does not read is one line naming the column."""
    tokens = [(m.group(), m.start() + 1) for m in _TOKEN.finditer(program)]
    if not tokens:
        raise ProgramError("the program is empty")
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


@dataclass(frozen=True)
class Program:
    """A program read and type-checked against a fleet's ship names: its tree and its answer's type."""

    text: str
    tree: Node
    type: Type
    names: tuple[str, ...]


def compile_program(text: str, names: Sequence[str], rows: int, cols: int) -> Program:
    """``text`` parsed and checked against the ship ``names`` (colour 1..k; 0 is Water) and a
    ``rows`` x ``cols`` board (a location off it is refused)."""
    tree = parse(text)
    _check_locations(tree, rows, cols)
    kind = check(tree, tuple(names), {})
    if kind not in ANSWER_TYPES:
        raise ProgramError(
            f"column 1: a program must give a yes/no, a number, a colour, a location or an orientation, not {_a(kind)}"
        )
    return Program(text, tree, kind, tuple(names))


def _check_locations(node: Node, rows: int, cols: int) -> None:
    if isinstance(node, Call):
        for arg in node.args:
            _check_locations(arg, rows, cols)
    elif node.kind == "location":
        r, c = cast(tuple[int, int], node.value)
        if not (0 <= r < rows and 0 <= c < cols):
            raise ProgramError(f"column {node.column}: location {node.text} is off the {rows}x{cols} board")


def _a(kind: Type) -> str:
    """The type's name with its article: a number, an orientation."""
    return f"{'an' if kind.value[0] in 'aeiou' else 'a'} {kind.value}"


def _fail(node: Node, message: str) -> ProgramError:
    return ProgramError(f"column {node.column}: {message}")


def check(node: Node, names: tuple[str, ...], scope: dict[str, Type]) -> Type:
    """Give ``node`` and its children their types; ``scope`` maps bound variables to their types."""
    node.type = _atom_type(node, names, scope) if isinstance(node, Atom) else _call_type(node, names, scope)
    return node.type


def _atom_type(atom: Atom, names: tuple[str, ...], scope: dict[str, Type]) -> Type:
    if atom.kind == "name":
        if atom.text == "Water":
            atom.value = 0
        elif atom.text in names:
            atom.value = names.index(atom.text) + 1
        else:
            raise _fail(atom, f"unknown ship {clip(repr(atom.text))}: the fleet is {', '.join(names)} (and Water)")
        return Type.COLOR
    if atom.kind == "variable":
        if atom.text not in scope:
            raise _fail(atom, f"variable {atom.text} is not bound by an enclosing (map (lambda {atom.text} ...) ...)")
        return scope[atom.text]
    return {
        "bool": Type.BOOL, "number": Type.NUMBER, "orientation": Type.ORIENTATION, "location": Type.LOCATION,
        "colors": Type.COLORS, "tiles": Type.LOCATIONS,
    }[atom.kind]  # fmt: skip


_SCALARS = {Type.BOOL, Type.NUMBER, Type.COLOR, Type.LOCATION, Type.ORIENTATION}
_COUNTABLE = {Type.BOOL, Type.NUMBER}
_SETS = {Type.COLORS, Type.LOCATIONS}
_MULTISETS = {Type.BOOLS, Type.NUMBERS}


def _expect(node: Node, kind: Type, allowed: set[Type], what: str) -> None:
    if kind not in allowed:
        raise _fail(node, f"{what}, got {_a(kind)}")


def _call_type(call: Call, names: tuple[str, ...], scope: dict[str, Type]) -> Type:
    op, args = call.op, call.args
    if op == "lambda":
        raise _fail(call, "lambda is only the first argument of map")
    if op == "map":
        return _map_type(call, names, scope)
    kinds = [check(arg, names, scope) for arg in args]
    unary = {
        "not": ({Type.BOOL}, Type.BOOL), "rowL": ({Type.LOCATION}, Type.NUMBER), "colL": ({Type.LOCATION}, Type.NUMBER),
        "color": ({Type.LOCATION}, Type.COLOR), "orient": ({Type.COLOR}, Type.ORIENTATION),
        "size": ({Type.COLOR}, Type.NUMBER), "coloredTiles": ({Type.COLOR}, Type.LOCATIONS),
        "any": ({Type.BOOLS}, Type.BOOL), "all": ({Type.BOOLS}, Type.BOOL), "++": (_MULTISETS, Type.NUMBER),
        "===": (_MULTISETS, Type.BOOL), "topleft": ({Type.LOCATIONS}, Type.LOCATION),
        "bottomright": ({Type.LOCATIONS}, Type.LOCATION), "setSize": (_SETS | _MULTISETS, Type.NUMBER),
        "unique": ({Type.LOCATIONS}, Type.LOCATIONS),
    }  # fmt: skip
    if op in unary:
        allowed, result = unary[op]
        _expect(args[0], kinds[0], allowed, f"{op} takes {' or '.join(sorted(_a(t) for t in allowed))}")
        return result
    if op in ("==", ">", "<"):
        allowed = _SCALARS if op == "==" else {Type.NUMBER}
        for arg, kind in zip(args, kinds):
            _expect(arg, kind, allowed, f"{op} compares {'values' if op == '==' else 'numbers'}")
        if kinds[0] != kinds[1]:
            raise _fail(args[1], f"{op} compares {_a(kinds[0])} with {_a(kinds[1])}")
        return Type.BOOL
    if op in ("+", "-"):
        for arg, kind in zip(args, kinds):
            _expect(arg, kind, _COUNTABLE, f"{op} adds numbers (a yes counts 1)")
        return Type.NUMBER
    if op in ("and", "or"):
        for arg, kind in zip(args, kinds):
            _expect(arg, kind, {Type.BOOL}, f"{op} takes yes/no values")
        return Type.BOOL
    if op == "touch":
        for arg, kind in zip(args, kinds):
            _expect(arg, kind, {Type.COLOR}, "touch takes two ships")
        return Type.BOOL
    if op in ("isSubset", "setDifference", "union", "intersection"):
        for arg, kind in zip(args, kinds):
            _expect(arg, kind, _SETS, f"{op} takes sets")
        if kinds[0] != kinds[1]:
            raise _fail(args[1], f"{op} takes two sets of one kind, got {_a(kinds[0])} and {_a(kinds[1])}")
        return Type.BOOL if op == "isSubset" else kinds[0]
    return _set_type(call, kinds)


def _set_type(call: Call, kinds: list[Type]) -> Type:
    """``(set ...)``: one whole set (AllColors, AllTiles), or colours, or locations."""
    if len(kinds) == 1 and kinds[0] in _SETS:
        return kinds[0]
    for arg, kind in zip(call.args, kinds):
        if kind != kinds[0] or kind not in (Type.COLOR, Type.LOCATION):
            raise _fail(
                arg,
                f"set takes one of AllColors or AllTiles, or colours, or locations; got {_a(kind)} among {kinds[0].value}s",
            )
    return Type.COLORS if kinds[0] == Type.COLOR else Type.LOCATIONS


def _map_type(call: Call, names: tuple[str, ...], scope: dict[str, Type]) -> Type:
    """``(map (lambda v body) set)``: x-variables range over colours, y-variables over locations."""
    function, collection = call.args
    if not (isinstance(function, Call) and function.op == "lambda"):
        raise _fail(function, "map's first argument must be (lambda variable body)")
    variable, body = function.args
    if not (isinstance(variable, Atom) and variable.kind == "variable"):
        raise _fail(variable, "lambda's first argument must be a variable such as x0 or y0")
    if variable.text in scope:
        raise _fail(variable, f"variable {variable.text} is already bound")
    kind = check(collection, names, scope)
    bound = Type.COLOR if variable.text.startswith("x") else Type.LOCATION
    wanted = Type.COLORS if bound == Type.COLOR else Type.LOCATIONS
    if kind != wanted:
        raise _fail(
            collection,
            f"{variable.text} ranges over a {wanted.value} (x-variables colours, y-variables locations), got {_a(kind)}",
        )
    variable.type = bound
    body_type = check(body, names, {**scope, variable.text: bound})
    if body_type not in MAPPED:
        raise _fail(body, f"a lambda's body must give a yes/no, a number or a location, got {_a(body_type)}")
    function.type = body_type
    return MAPPED[body_type]
