"""What the heuristic players know for certain from the shots, under any touch and sink rule.

These are cheap, sound deductions, not the posterior (the engines give that): every cell or ship
they name is certain, but they do not find everything that is certain.

- :func:`sunk_cells`: hit cells that certainly belong to a sunk ship;
- :func:`afloat_lengths`: the lengths of the ships not certainly sunk (one entry per ship);
- :func:`ruled_out`: unshot cells the touch rule makes certainly empty.
"""

from __future__ import annotations

from functools import lru_cache

from battlelog.rules.geometry import Cell, ship_placements
from battlelog.rules.state import GameState
from battlelog.rules.variants import ALLOWED, NAMED, NONE

#: The side neighbours of a cell, and the diagonal ones.
SIDES = ((-1, 0), (1, 0), (0, -1), (0, 1))
CORNERS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


def _sink_options(state: GameState, t: int) -> dict[int, list[frozenset[Cell]]]:
    """For the sink answered at shot ``t``: each length the sunk ship may have, with the cell sets
    of its possible placements (through the shot's cell, inside the hits of that time). Under
    ``named`` only the named ship's length; under ``unnamed`` every length of the fleet."""
    shot = state.shots[t]
    inside = state.hits_after(t)
    lengths = {state.ships[shot.ship]} if shot.ship is not None else set(state.ships)
    out: dict[int, list[frozenset[Cell]]] = {}
    for length in sorted(lengths):
        fits = [
            frozenset(p.cells)
            for p in ship_placements(state.rows, state.cols, 0, length)
            if shot.cell in p.cells and inside.issuperset(p.cells)
        ]
        if fits:
            out[length] = fits
    return out


def sunk_cells(state: GameState) -> set[Cell]:
    """Hit cells that certainly belong to a sunk ship.

    A ship sunk at shot t on cell x lies inside H_t through x; the cells common to every such
    placement (of the named ship's length, or under ``unnamed`` of any length in the fleet) are
    surely its own. Silent games announce no sink, so nothing is known sunk there.
    """
    out: set[Cell] = set()
    for t in state.sunk_shots:
        placements = [cells for fits in _sink_options(state, t).values() for cells in fits]
        if placements:
            out |= frozenset.intersection(*placements)
    return out


def afloat_lengths(state: GameState) -> tuple[int, ...]:
    """The lengths of the ships not certainly sunk, one entry per ship, in fleet order.

    - ``named``: the ships not announced sunk (:attr:`GameState.afloat`), exactly;
    - ``unnamed``: a sink is certainly of length L when no other length of the fleet fits inside
      the hits of its time through its cell; each such sink takes one ship of length L off the
      fleet. Sinks whose length is ambiguous take none (conservative: a ship is counted afloat
      unless it is certainly sunk);
    - ``silent``: every ship (no sink is announced, and which ships are all hit is not known).
    """
    if state.config.rules.sinks == NAMED:
        return tuple(state.ships[i] for i in state.afloat)
    sunk: dict[int, int] = {}
    for t in state.sunk_shots:
        options = _sink_options(state, t)
        if len(options) == 1:
            (length,) = options
            sunk[length] = sunk.get(length, 0) + 1
    out = []
    for length in state.ships:
        if sunk.get(length, 0) > 0:
            sunk[length] -= 1
        else:
            out.append(length)
    return tuple(out)


def ruled_out(state: GameState) -> frozenset[Cell]:
    """Unshot cells that the touch rule makes certainly empty (none under ``allowed``).

    A hit cell holds a ship and every ship is straight, so an unshot cell diagonally next to a hit
    holds, if anything, another ship meeting it at a corner: under ``none`` it is empty. An unshot
    cell next to a cell of a sunk ship is not of that ship (a sunk ship is all hit), so it would hold
    another ship touching it: empty under ``none`` (any of the eight neighbours) and under
    ``diagonal`` (a side neighbour).
    """
    touch = state.config.rules.touch
    if touch == ALLOWED:
        return frozenset()
    return _ruled_out(state.rows, state.cols, touch, state.hits, frozenset(sunk_cells(state)), state.shot_cells)


@lru_cache(maxsize=1 << 12)
def _ruled_out(
    rows: int, cols: int, touch: str, hits: frozenset[Cell], sunk: frozenset[Cell], shot: frozenset[Cell]
) -> frozenset[Cell]:
    out: set[Cell] = set()

    def add(cell: Cell, steps: tuple[tuple[int, int], ...]) -> None:
        for dr, dc in steps:
            r, c = cell[0] + dr, cell[1] + dc
            if 0 <= r < rows and 0 <= c < cols and (r, c) not in shot:
                out.add((r, c))

    for cell in hits if touch == NONE else ():
        add(cell, CORNERS)
    for cell in sunk:
        add(cell, SIDES + CORNERS if touch == NONE else SIDES)
    return frozenset(out)


__all__ = ["afloat_lengths", "ruled_out", "sunk_cells"]
