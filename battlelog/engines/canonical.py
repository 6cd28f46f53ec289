"""What a state's posterior depends on, up to the board's symmetries: the key of the engines' caches.

Two game states that are images of each other under a symmetry of the board have images of each
other as posteriors, so a cache keyed by a state's canonical form (the least of its eight images)
answers all eight at once.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from battlelog.rules.state import GameState
from battlelog.rules.symmetry import IDENTITY, SYMMETRIES, Symmetry

PosteriorKey = tuple[object, ...]


def posterior_key(state: GameState, symmetry: Symmetry = IDENTITY) -> PosteriorKey:
    """What the posterior of the image of ``state`` under ``symmetry`` depends on, and nothing else.

    The rules, the misses, the hits, and for each sink the ship (-1 when sinks are unnamed), its cell
    and the hits up to that shot (the order of the other shots does not matter), as row-major cell
    indices. Equal keys mean equal posteriors.
    """
    return _keys(state, symmetry.index_map(state.size)[None, :])[0]


def canonical_form(state: GameState) -> tuple[PosteriorKey, Symmetry]:
    """The least posterior key among the state's eight images, and a symmetry that maps the state to it."""
    keys = _keys(state, _all_index_maps(state.size))
    return min(zip(keys, SYMMETRIES), key=lambda pair: pair[0])


def _keys(state: GameState, images: np.ndarray) -> list[PosteriorKey]:
    """The posterior keys of the state's images under the index maps ``images`` (one row each), all
    at once: a state is read once, and each image costs a few array operations."""
    n = state.size

    def cells(of: list[int]) -> list[tuple[int, ...]]:
        return [tuple(row) for row in np.sort(images[:, of], axis=1).tolist()]

    sinks = []
    hits: list[int] = []
    sunk = set(state.sunk_shots)
    for t, shot in enumerate(state.shots):
        if shot.is_hit:
            hits.append(shot.row * n + shot.col)
        if t in sunk:
            ship = -1 if shot.ship is None else shot.ship
            sinks.append((ship, images[:, shot.row * n + shot.col].tolist(), cells(list(hits))))
    rules = state.config.rules
    head = (n, state.ships, rules.touch, rules.sinks)
    misses = cells([r * n + c for r, c in state.misses])
    hit_cells = cells(hits)
    return [
        (*head, misses[i], hit_cells[i], tuple(sorted((ship, at[i], inside[i]) for ship, at, inside in sinks)))
        for i in range(len(images))
    ]


@lru_cache(maxsize=64)
def _all_index_maps(size: int) -> np.ndarray:
    """The eight symmetries' index maps as the rows of one array, in ``SYMMETRIES`` order."""
    out = np.stack([s.index_map(size) for s in SYMMETRIES])
    out.setflags(write=False)
    return out


__all__ = ["PosteriorKey", "canonical_form", "posterior_key"]
