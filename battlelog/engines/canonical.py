"""What a state's posterior depends on, up to the board's symmetries: the key of the engines' caches.

Two game states that are images of each other under a symmetry of the board have images of each
other as posteriors, so a cache keyed by a state's canonical form (the least of its eight images)
answers all eight at once.
"""

from __future__ import annotations

from battlelog.model.ground import touch_rule
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import IDENTITY, SYMMETRIES, Symmetry

PosteriorKey = tuple[object, ...]


def posterior_key(state: GameState, symmetry: Symmetry = IDENTITY) -> PosteriorKey:
    """What the posterior of the image of ``state`` under ``symmetry`` depends on, and nothing else.

    The touch rule, the misses, the hits, and for each sink the ship, its cell and the hits up to
    that shot (the order of the other shots does not matter), as row-major cell indices. Equal keys
    mean equal posteriors. (Every touch rule is invariant under the board's symmetries, so the
    rule is part of the key as it is.)
    """
    n = state.size
    image = symmetry.index_map(n)

    def cells(of: frozenset[Cell]) -> tuple[int, ...]:
        return tuple(sorted(int(image[r * n + c]) for r, c in of))

    sinks = tuple(sorted((ship, int(image[cell[0] * n + cell[1]]), cells(state.hits_after(t))) for ship, t, cell in state.sinks))
    return (n, state.ships, touch_rule(state.config), cells(state.misses), cells(state.hits), sinks)


def canonical_form(state: GameState) -> tuple[PosteriorKey, Symmetry]:
    """The least posterior key among the state's eight images, and a symmetry that maps the state to it."""
    return min(((posterior_key(state, s), s) for s in SYMMETRIES), key=lambda pair: pair[0])


__all__ = ["PosteriorKey", "canonical_form", "posterior_key"]
