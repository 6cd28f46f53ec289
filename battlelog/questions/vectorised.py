"""A checked program evaluated on every layout of a space at once, with numpy.

The layouts are ``idx[s]``: ship s's placement index in each layout (see :mod:`.space`). Most of a
question depends on one ship only (``(size Red)``, ``(coloredTiles Blue)``), so every value carries
a scope: constant, one ship (an array over that ship's placements, a few hundred entries), or full
(an array over the layouts). Values combine in the narrowest scope that holds them, and a one-ship
value becomes a full one by indexing with ``idx[s]``; a question about one ship is then answered by
the ship's placement weights without touching the layouts at all. The meaning of every primitive is
that of :mod:`.layout` (docs/questions.md), which the tests check this module against.

Array layout per type, after the scope's leading axis (none, placements, layouts): yes/no ``bool``;
number, colour, location (-1: none), orientation ``int64``; set of locations ``int16`` counts per
cell (a multiset); set of colours ``bool`` per colour (0 is Water); multisets of yes/no or numbers
a :class:`Bag` of (multiplicity, value) pairs, one per element mapped over. Values and scopes:
:mod:`.scoped`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import cast

import numpy as np

from battlelog.questions.language import Atom, Call, Node, Type
from battlelog.questions.scoped import CONST, DISJOINT, Bag, Space, Vec, const, pairwise, scope_of
from battlelog.questions.ship_functions import SHIP_FUNCTIONS
from battlelog.questions.space import H, V
from battlelog.questions.typecheck import Program

#: Operations on scalars alone: a DISJOINT operand among constants stays DISJOINT through them.
_SCALAR_OPS = frozenset({"==", ">", "<", "+", "-", "and", "or", "not", "rowL", "colL"})


def evaluate(program: Program, space: Space) -> Vec:
    """The answer of ``program`` on every layout of ``space``, in its narrowest scope."""
    value = _eval(program.tree, space, {})
    assert isinstance(value, Vec)
    return value


def _eval(node: Node, space: Space, env: dict[str, Vec]) -> Vec | Bag:
    if isinstance(node, Atom):
        return _atom(node, space, env)
    if node.op == "map":
        return _map(node, space, env)
    evaluated = [_eval(a, space, env) for a in node.args]
    if isinstance(evaluated[0], Bag):
        return _fold(node.op, evaluated[0], space)
    values = [v for v in evaluated if isinstance(v, Vec)]
    if node.op == "set":
        return _set(node, values, space)
    if node.op in SHIP_FUNCTIONS:
        return SHIP_FUNCTIONS[node.op](values, space)
    scopes = [v.scope for v in values]
    if node.op in _SCALAR_OPS and scopes.count(DISJOINT) == 1 and set(scopes) <= {CONST, DISJOINT}:
        return _through_disjoint(node.op, values, space)
    values = space.common(values)
    return Vec(scope_of(values), *_elementwise(node.op, values, space))


def _through_disjoint(op: str, values: list[Vec], space: Space) -> Vec:
    """``op`` of one DISJOINT value and constants: f(data) plus, per ship, f(data + term) - f(data),
    which is zero where the term is, so at most one term stays non-zero in any layout."""
    at = next(i for i, v in enumerate(values) if v.scope == DISJOINT)
    operand = values[at]

    def f(x: np.ndarray) -> np.ndarray:
        args = [Vec(CONST, x.astype(operand.data.dtype)) if i == at else v for i, v in enumerate(values)]
        return _elementwise(op, args, space)[0]

    base = np.asarray(f(operand.data))
    start = base.astype(np.int64)
    terms = tuple(f(operand.data.astype(np.int64) + t).astype(np.int64) - start for t in operand.terms)
    return Vec(DISJOINT, base, terms)


def _atom(atom: Atom, space: Space, env: dict[str, Vec]) -> Vec:
    if atom.kind == "variable":
        return env[atom.text]
    if atom.kind == "location":
        r, c = cast(tuple[int, int], atom.value)
        return const(r * space.cols + c)
    if atom.kind == "orientation":
        return const(H if atom.value == "H" else V)
    if atom.kind == "bool":
        return const(atom.value, bool)
    if atom.kind == "colors":
        return const(np.arange(space.ships + 1) > 0, bool)
    if atom.kind == "tiles":
        return const(np.ones(space.cells), np.int16)
    return const(atom.value)


def _elementwise(op: str, values: list[Vec], space: Space) -> tuple[np.ndarray]:
    d = [v.data for v in values]
    if op == "==":
        return (d[0] == d[1],)
    if op == ">":
        return (d[0] > d[1],)
    if op == "<":
        return (d[0] < d[1],)
    if op == "+":
        return (d[0].astype(np.int64) + d[1].astype(np.int64),)
    if op == "-":
        return (d[0].astype(np.int64) - d[1].astype(np.int64),)
    if op == "and":
        return (functools.reduce(np.logical_and, d),)
    if op == "or":
        return (functools.reduce(np.logical_or, d),)
    if op == "not":
        return (~d[0],)
    if op == "rowL":
        return (np.where(d[0] >= 0, d[0] // space.cols + 1, 0),)
    if op == "colL":
        return (np.where(d[0] >= 0, d[0] % space.cols + 1, 0),)
    if op in ("topleft", "bottomright"):
        present = d[0] > 0
        if op == "bottomright":
            present = present[..., ::-1]
        first = np.argmax(present, axis=-1)
        cell = first if op == "topleft" else space.cells - 1 - first
        return (np.asarray(np.where(present.any(axis=-1), cell, -1)),)
    if op == "setSize":
        return (np.asarray(np.sum(d[0], axis=-1, dtype=np.int64)),)
    if op == "isSubset":
        return (np.all(~(d[0] > 0) | (d[1] > 0), axis=-1),)
    return (_set_operation(op, d[0] > 0, d[1] > 0 if len(d) > 1 else None, d[0].dtype),)


_BIG = np.iinfo(np.int64).max


#: ``++``, ``setSize``, ``any``, ``all`` of a multiset: each element's term, how terms combine,
#: the same combination along a wide bag's element axis, and the value of no element.
_FOLDS: dict[str, tuple[Callable[..., np.ndarray], Callable[..., np.ndarray], Callable[..., np.ndarray], object]] = {
    "++": (lambda n, v: n.astype(np.int64) * v, np.add, np.sum, 0),
    "setSize": (lambda n, v: n.astype(np.int64), np.add, np.sum, 0),
    "any": (lambda n, v: (n > 0) & v, np.logical_or, np.any, False),
    "all": (lambda n, v: (n == 0) | v, np.logical_and, np.all, True),
    "least": (lambda n, v: np.where(n > 0, v, _BIG), np.minimum, np.min, _BIG),
    "most": (lambda n, v: np.where(n > 0, v, -_BIG), np.maximum, np.max, -_BIG),
}


def _fold(op: str, bag: Bag, space: Space) -> Vec:
    """``++``, ``any``, ``all``, ``===`` and ``setSize`` of a multiset, one element (or one wide
    pair) at a time."""
    if op == "===":
        least, most = _fold("least", bag, space), _fold("most", bag, space)
        return pairwise(space, [least, most], lambda lo, hi: (lo == _BIG) | (lo == hi))
    term, combine, along, identity = _FOLDS[op]

    def one(n: np.ndarray, v: np.ndarray) -> np.ndarray:
        return along(term(n, v), axis=-1) if bag.wide else term(n, v)

    terms = [pairwise(space, pair, one) for pair in bag.items]
    return functools.reduce(lambda a, b: pairwise(space, [a, b], combine), terms, const(identity, type(identity)))


def _set_operation(op: str, a: np.ndarray, b: np.ndarray | None, dtype: np.dtype) -> np.ndarray:
    """unique, union, intersection, setDifference: sets, so no element more than once."""
    if op == "unique" or b is None:
        out = a
    elif op == "union":
        out = a | b
    elif op == "intersection":
        out = a & b
    else:
        out = a & ~b
    return out if dtype == np.bool_ else out.astype(np.int16)


def _set(call: Call, values: list[Vec], space: Space) -> Vec:
    """(set ...): AllColors/AllTiles as they are; colours or locations as one-hot membership."""
    kind = call.args[0].type
    if kind in (Type.COLORS, Type.LOCATIONS):
        return values[0]
    width = space.ships + 1 if kind == Type.COLOR else space.cells
    values = space.common(values)
    member = np.zeros(1, dtype=bool)
    for v in values:
        member = member | (v.data[..., None] == np.arange(width))
    return Vec(scope_of(values), member if kind == Type.COLOR else member.astype(np.int16))


def _map(call: Call, space: Space, env: dict[str, Vec]) -> Vec | Bag:
    """(map (lambda v body) collection): the body once per element the collection may hold."""
    function, collection_node = call.args
    assert isinstance(function, Call) and isinstance(function.args[0], Atom)
    variable, body = function.args[0].text, function.args[1]
    collection = _eval(collection_node, space, env)
    assert isinstance(collection, Vec)
    width = collection.data.shape[-1]
    possible = np.flatnonzero(np.any(collection.data.reshape(-1, width) > 0, axis=0))
    if function.type != Type.LOCATION and len(possible) and _of_variable_alone(body, variable):
        values = _eval(body, space, {**env, variable: const(possible)})
        assert isinstance(values, Vec)
        return Bag(((Vec(collection.scope, collection.data[..., possible]), values),), wide=True)
    items = []
    for e in possible:
        value = _eval(body, space, {**env, variable: const(e)})
        assert isinstance(value, Vec)
        items.append((Vec(collection.scope, collection.data[..., e]), value))
    if function.type != Type.LOCATION:
        return Bag(tuple(items))
    cells = np.arange(space.cells)
    terms = [pairwise(space, pair, lambda n, v: (v[..., None] == cells) * n[..., None].astype(np.int16)) for pair in items]
    return functools.reduce(lambda a, b: pairwise(space, [a, b], np.add), terms, const(np.zeros(space.cells), np.int16))


def _of_variable_alone(node: Node, variable: str) -> bool:
    """``node`` is arithmetic and comparisons of ``variable`` and literals: it can take every element at once."""
    if isinstance(node, Atom):
        return node.kind not in ("variable", "colors", "tiles") or node.text == variable
    return node.op in _SCALAR_OPS and all(_of_variable_alone(arg, variable) for arg in node.args)
