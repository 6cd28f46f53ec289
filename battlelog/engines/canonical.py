"""What a state's posterior depends on, up to the board's symmetries: the key of the engines' caches.

Two game states that are images of each other under a symmetry of the board have images of each
other as posteriors, so a cache keyed by a state's canonical form (the least of its eight images)
answers all eight at once.
"""

from __future__ import annotations

from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import IDENTITY, Symmetry, symmetries_of

PosteriorKey = tuple[object, ...]


def posterior_key(state: GameState, symmetry: Symmetry = IDENTITY) -> PosteriorKey:
    """What the posterior of the image of ``state`` under ``symmetry`` depends on, and nothing else.

    The rules, the misses, the hits, and for each sink the ship (-1 when sinks are unnamed), its cell
    and the hits up to that shot (the order of the other shots does not matter), as row-major cell
    indices. Equal keys mean equal posteriors.
    """
    rows, n = state.rows, state.cols
    image = symmetry.index_map(rows, n)

    def cells(of: frozenset[Cell]) -> tuple[int, ...]:
        return tuple(sorted(int(image[r * n + c]) for r, c in of))

    sinks = []
    for t in state.sunk_shots:
        shot = state.shots[t]
        ship = -1 if shot.ship is None else shot.ship
        sinks.append((ship, int(image[shot.row * n + shot.col]), cells(state.hits_after(t))))
    rules = state.config.rules
    return ((rows, n) if rows != n else n, state.ships, rules.touch, rules.sinks, cells(state.misses), cells(state.hits), tuple(sorted(sinks)))


def canonical_form(state: GameState) -> tuple[PosteriorKey, Symmetry]:
    """The least posterior key among the state's images under the board's symmetries (eight on a
    square, four on a rectangle), and a symmetry that maps the state to it."""
    return min(((posterior_key(state, s), s) for s in symmetries_of(state.rows, state.cols)), key=lambda pair: pair[0])


__all__ = ["PosteriorKey", "canonical_form", "posterior_key"]
