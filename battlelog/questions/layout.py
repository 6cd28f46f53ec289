"""A checked program evaluated on one layout, plainly: the reference meaning of every primitive.

This evaluator walks the tree once per layout with Python values and is slow; it is the semantics
of docs/questions.md written as code, checked by hand-computed answers, and the tests' yardstick for
the vectorised evaluator that answers questions about millions of layouts at once.

Values: yes/no ``bool``; number ``int``; colour ``int`` (0 Water, i the fleet's i-th ship);
location ``int`` (row-major cell index, -1 for none); orientation H, V or NO_ORIENTATION; a set of
colours a ``frozenset``; a set of locations a :class:`collections.Counter` (a multiset: ``map``
keeps repeats, the set operations do not); a multiset of yes/no or numbers a ``list``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

from battlelog.questions.language import Atom, Call, Node, Type
from battlelog.questions.space import NO_ORIENTATION, H, V
from battlelog.questions.typecheck import Program


@dataclass(frozen=True)
class ShipAt:
    """One ship's place: its length, first cell (row-major) and the step to its next cell."""

    length: int
    start: int
    step: int

    def cells(self) -> list[int]:
        return [self.start + i * self.step for i in range(self.length)]

    @property
    def orientation(self) -> int:
        if self.length == 1:
            return NO_ORIENTATION
        return H if self.step == 1 else V


@dataclass(frozen=True)
class Layout:
    """Where every ship of a fleet lies on a ``rows`` x ``cols`` board (ships in fleet order)."""

    rows: int
    cols: int
    ships: tuple[ShipAt, ...]

    @cached_property
    def board(self) -> list[int]:
        """The colour of every cell: 0 Water, i + 1 the i-th ship."""
        out = [0] * (self.rows * self.cols)
        for i, ship in enumerate(self.ships):
            for cell in ship.cells():
                out[cell] = i + 1
        return out


def evaluate(program: Program, layout: Layout) -> Any:
    """The answer ``program`` gives on ``layout``."""
    return _eval(program.tree, layout, {})


def _ship(layout: Layout, colour: int) -> ShipAt | None:
    return layout.ships[colour - 1] if colour > 0 else None


def _touch(layout: Layout, a: int, b: int) -> bool:
    first, second = _ship(layout, a), _ship(layout, b)
    if first is None or second is None:
        return False
    cols = layout.cols
    others = {(c // cols, c % cols) for c in second.cells()}
    for cell in first.cells():
        r, c = divmod(cell, cols)
        if others & {(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)}:
            return True
    return False


def _tiles(layout: Layout, colour: int) -> Counter[int]:
    return Counter(cell for cell, value in enumerate(layout.board) if value == colour)


def _set(values: Sequence[Any], types: Sequence[Type | None]) -> Any:
    """AllColors or AllTiles as they are; colours as a set; locations as a set (none left out)."""
    if types[0] in (Type.COLORS, Type.LOCATIONS):
        return values[0]
    if types[0] == Type.COLOR:
        return frozenset(values)
    return Counter(set(v for v in values if v >= 0))


def _eval(node: Node, layout: Layout, env: dict[str, Any]) -> Any:
    if isinstance(node, Atom):
        return _atom(node, layout, env)
    op, args = node.op, node.args
    if op == "map":
        return _map(node, layout, env)
    if op == "and":
        return all(_eval(a, layout, env) for a in args)
    if op == "or":
        return any(_eval(a, layout, env) for a in args)
    values = [_eval(a, layout, env) for a in args]
    if op == "set":
        return _set(values, [a.type for a in args])
    return _apply(op, values, layout)


def _atom(atom: Atom, layout: Layout, env: dict[str, Any]) -> Any:
    if atom.kind == "variable":
        return env[atom.text]
    if atom.kind == "location":
        r, c = cast(tuple[int, int], atom.value)
        return r * layout.cols + c
    if atom.kind == "orientation":
        return H if atom.value == "H" else V
    if atom.kind == "colors":
        return frozenset(range(1, len(layout.ships) + 1))
    if atom.kind == "tiles":
        return Counter(range(layout.rows * layout.cols))
    return atom.value


def _map(call: Call, layout: Layout, env: dict[str, Any]) -> Any:
    function, collection = call.args
    assert isinstance(function, Call)
    variable, body = function.args
    assert isinstance(variable, Atom)
    items = _eval(collection, layout, env)
    elements = sorted(items) if isinstance(items, frozenset) else sorted(items.elements())
    results = [_eval(body, layout, {**env, variable.text: item}) for item in elements]
    if function.type == Type.LOCATION:
        return Counter(r for r in results if r >= 0)
    return results


def _apply(op: str, values: list[Any], layout: Layout) -> Any:
    a = values[0]
    b: Any = values[1] if len(values) > 1 else None
    cols = layout.cols
    if op == "==":
        return a == b
    if op == "===":
        return len(set(a)) <= 1
    if op == ">":
        return a > b
    if op == "<":
        return a < b
    if op == "+":
        return int(a) + int(b)
    if op == "-":
        return int(a) - int(b)
    if op == "++":
        return sum(int(v) for v in a)
    if op == "not":
        return not a
    if op == "rowL":
        return 0 if a < 0 else a // cols + 1
    if op == "colL":
        return 0 if a < 0 else a % cols + 1
    if op == "color":
        return 0 if a < 0 else layout.board[a]
    if op == "orient":
        ship = _ship(layout, a)
        return NO_ORIENTATION if ship is None else ship.orientation
    if op == "size":
        ship = _ship(layout, a)
        return 0 if ship is None else ship.length
    if op == "touch":
        return _touch(layout, a, b)
    if op == "coloredTiles":
        return _tiles(layout, a)
    if op == "any":
        return any(a)
    if op == "all":
        return all(a)
    if op == "topleft":
        return min(a.elements()) if a else -1
    if op == "bottomright":
        return max(a.elements()) if a else -1
    if op == "setSize":
        return sum(a.values()) if isinstance(a, Counter) else len(a)
    if op == "isSubset":
        return set(a) <= set(b)
    if op == "unique":
        return Counter(set(a))
    if op in ("union", "intersection", "setDifference"):
        left, right = set(a), set(b)
        joined = left | right if op == "union" else left & right if op == "intersection" else left - right
        return frozenset(joined) if isinstance(a, frozenset) else Counter(joined)
    raise AssertionError(f"no primitive {op}")
