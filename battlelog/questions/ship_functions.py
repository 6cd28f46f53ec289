"""The functions of the language that look at the board: ``color``, ``size``, ``orient``, ``touch``,
``coloredTiles``, evaluated on every layout of a space (see :mod:`.vectorised`).

A ship named by a constant gives a one-ship value (its placements' lengths, orientations, tiles); a
colour at a fixed tile a disjoint sum (at most one ship covers it); a colour that varies with the
layout is worked out per layout.
"""

from __future__ import annotations

import numpy as np

from battlelog.questions.scoped import CONST, DISJOINT, FULL, Space, Vec, const
from battlelog.questions.space import NO_ORIENTATION


def _colour_at(values: list[Vec], space: Space) -> Vec:
    """(color loc): 0 Water or the ship covering the cell; a location of none is Water."""
    location = values[0]
    if location.scope == CONST:
        cell = int(location.data)
        if cell < 0:
            return const(0)
        return Vec(
            DISJOINT,
            np.asarray(0, dtype=np.int64),
            tuple((s + 1) * t.cells[:, cell].astype(np.int64) for s, t in enumerate(space.tables)),
        )
    loc = space.lift(location, FULL).data
    safe = np.where(loc >= 0, loc, 0)
    out = np.zeros(space.size, dtype=np.int64)
    for s, table in enumerate(space.tables):
        covered = table.cells[space.idx[s], safe] & (loc >= 0)
        out += (s + 1) * covered
    return Vec(FULL, out)


def _per_ship(values: list[Vec], space: Space, column: str, water: int) -> Vec:
    """A property of the ship of a colour (its length, its orientation); ``water`` for Water."""
    colour = values[0]
    if colour.scope == CONST:
        c = int(colour.data)
        return const(water) if c == 0 else Vec(c - 1, getattr(space.tables[c - 1], column))
    colours = space.lift(colour, FULL).data
    out = np.full(space.size, water, dtype=np.int64)
    for s, table in enumerate(space.tables):
        out = np.where(colours == s + 1, getattr(table, column)[space.idx[s]], out)
    return Vec(FULL, out)


def _size(values: list[Vec], space: Space) -> Vec:
    return _per_ship(values, space, "length", 0)


def _orient(values: list[Vec], space: Space) -> Vec:
    return _per_ship(values, space, "orientation", NO_ORIENTATION)


def _touch(values: list[Vec], space: Space) -> Vec:
    """(touch a b): a tile of a side by side with a tile of b; never for Water."""
    a, b = values
    if a.scope == CONST and b.scope == CONST:
        s, t = int(a.data) - 1, int(b.data) - 1
        if s < 0 or t < 0:
            return const(False, bool)
        if s == t:
            return Vec(s, space.touch_table(s, s))
        return Vec(FULL, space.touch_table(s, t)[space.idx[s], space.idx[t]])
    first, second = (space.lift(v, FULL).data for v in (a, b))
    out = np.zeros(space.size, dtype=bool)
    for s in range(space.ships):
        for t in range(space.ships):
            pair = (first == s + 1) & (second == t + 1)
            if pair.any():
                table = space.touch_table(s, t)
                out |= pair & (table[space.idx[s]] if s == t else table[space.idx[s], space.idx[t]])
    return Vec(FULL, out)


def _coloured_tiles(values: list[Vec], space: Space) -> Vec:
    """(coloredTiles c): a ship's tiles, or for Water every tile no ship covers."""
    colour = values[0]
    if colour.scope == CONST and int(colour.data) > 0:
        s = int(colour.data) - 1
        return Vec(s, space.tables[s].cells.astype(np.int16))
    colours = np.broadcast_to(colour.data, (space.size,)) if colour.scope == CONST else space.lift(colour, FULL).data
    board = np.zeros((space.size, space.cells), dtype=np.uint8)
    for s, table in enumerate(space.tables):
        board |= table.cells[space.idx[s]].view(np.uint8) * np.uint8(s + 1)
    return Vec(FULL, (board == colours[:, None]).astype(np.int16))


SHIP_FUNCTIONS = {"color": _colour_at, "size": _size, "orient": _orient, "touch": _touch, "coloredTiles": _coloured_tiles}
