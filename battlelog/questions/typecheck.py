"""Type-checking a parsed program against a fleet and a board: one line saying where when it does not type.

:func:`compile_program` gives each node its type against a fleet's ship names (``Blue`` in a fleet of
Red, Green, Purple and Orange is refused here, not at evaluation) and refuses a location off the
board; :mod:`.layout` evaluates a checked program on one layout, :mod:`.vectorised` on every layout
of a space.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from battlelog.questions.language import ANSWER_TYPES, MAPPED, Atom, Call, Node, ProgramError, Type, parse
from battlelog.wording import clip

#: The most evaluations of map bodies a program may ask for. People's programs ask for a few hundred
#: at most (390: a map over a ship's tiles inside one over the colours, on 8x8); each body may cost a
#: pass over every layout (millions), so three maps over every tile nested (262,144 bodies) would
#: run for hours.
MAX_MAP_BODIES = 1024


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
    _count_map_bodies(tree, {Type.LOCATIONS: rows * cols, Type.COLORS: len(names) + 1}, 1, [0])
    return Program(text, tree, kind, tuple(names))


def _count_map_bodies(node: Node, widths: dict[Type, int], times: int, total: list[int]) -> None:
    """Refuse maps nested so deep that their bodies would be evaluated more than :data:`MAX_MAP_BODIES`
    times: a map evaluates its body once per element its collection may hold (``widths``), each
    time the maps around it do (``times``); ``total`` is the running count."""
    if isinstance(node, Atom):
        return
    if node.op != "map":
        for arg in node.args:
            _count_map_bodies(arg, widths, times, total)
        return
    function, collection = node.args
    assert isinstance(function, Call) and collection.type is not None
    _count_map_bodies(collection, widths, times, total)
    times *= widths[collection.type]
    total[0] += times
    if total[0] > MAX_MAP_BODIES:
        raise _fail(node, f"the maps evaluate their bodies up to {total[0]:,} times, more than {MAX_MAP_BODIES:,}")
    _count_map_bodies(function.args[1], widths, times, total)


def _check_locations(node: Node, rows: int, cols: int) -> None:
    if isinstance(node, Call):
        for arg in node.args:
            _check_locations(arg, rows, cols)
    elif node.kind == "location":
        r, c = cast(tuple[int, int], node.value)
        if not (0 <= r < rows and 0 <= c < cols):
            raise ProgramError(f"column {node.column}: location {clip(node.text)} is off the {rows}x{cols} board")


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
