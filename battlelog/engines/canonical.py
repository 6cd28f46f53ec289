"""What a state's posterior depends on, up to the board's symmetries: the key of the engines' caches.

Two game states that are images of each other under a symmetry of the board have images of each
other as posteriors, so a cache keyed by a state's canonical form (the least of its eight images)
answers all eight at once; under a prior that weighs vertical ships, the four that do not transpose.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from battlelog.rules.state import GameState
from battlelog.rules.symmetry import IDENTITY, Symmetry, symmetries_of

PosteriorKey = tuple[object, ...]


def posterior_key(state: GameState, symmetry: Symmetry = IDENTITY) -> PosteriorKey:
    """What the posterior of the image of ``state`` under ``symmetry`` depends on, and nothing else.

    The rules, the prior (when not uniform: ``GameConfig.effective_prior``), the misses, the hits, and for each sink the ship (-1
    when sinks are unnamed), its cell
    and the hits up to that shot (the order of the other shots does not matter), as row-major cell
    indices; and the tallies given, each as its line's image (see :func:`_tally_keys`). Equal keys mean equal posteriors.
    """
    return _keys(state, symmetry.index_map(state.rows, state.cols)[None, :])[0]


def canonical_form(state: GameState) -> tuple[PosteriorKey, Symmetry]:
    """The least posterior key among the state's images under the symmetries that keep its posterior's
    form (:func:`prior_symmetries`), and a symmetry that maps the state to it."""
    symmetries = prior_symmetries(state)
    keys = _keys(state, _all_index_maps(state.rows, state.cols)[: len(symmetries)])
    return min(zip(keys, symmetries), key=lambda pair: pair[0])


def prior_symmetries(state: GameState) -> tuple[Symmetry, ...]:
    """The board's symmetries (eight on a square, four on a rectangle) under which the prior is the same:
    ``edge`` and ``touch`` are kept by all eight, ``vertical`` only by the four that do not transpose (a
    transpose turns vertical ships into horizontal ones). The non-transposing four come first."""
    symmetries = symmetries_of(state.rows, state.cols)
    return symmetries[:4] if state.config.effective_prior.vertical else symmetries


def model_key(state: GameState, tracked: bool = False) -> PosteriorKey:
    """What a model of ``state`` swept as it is (not under a symmetry) depends on: its posterior key without
    the prior. A sweep does not depend on the prior's weights (they are weighed in passes over the model),
    so one model serves every prior on the same shots; ``tracked``: one that counts touching pairs."""
    key = _keys(state, IDENTITY.index_map(state.rows, state.cols)[None, :], weighed=False)[0]
    return (*key, "tracked") if tracked else key


def maps_to_itself(state: GameState, symmetry: Symmetry) -> bool:
    """Whether ``symmetry`` maps the evidence of ``state`` (its prior aside) to itself, so that it maps the state's
    layouts onto themselves: the empty board, or shots placed symmetrically. A few array operations."""
    if symmetry.transpose and state.rows != state.cols:
        return False
    own, image = _keys(
        state, np.stack([IDENTITY.index_map(state.rows, state.cols), symmetry.index_map(state.rows, state.cols)]), weighed=False
    )
    return own == image


def _keys(state: GameState, images: np.ndarray, weighed: bool = True) -> list[PosteriorKey]:
    """The posterior keys of the state's images under the index maps ``images`` (one row each), all
    at once: a state is read once, and each image costs a few array operations. ``weighed=False``: without
    the prior."""
    rows, n = state.rows, state.cols

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
    prior = state.config.effective_prior
    weights = () if prior.is_uniform or not weighed else (prior.theta,)
    head = ((rows, n) if rows != n else n, state.ships, rules.touch, rules.sinks, *weights)
    misses = cells([r * n + c for r, c in state.misses])
    hit_cells = cells(hits)
    tallies = _tally_keys(state, images)
    return [
        (*head, misses[i], hit_cells[i], tuple(sorted((ship, at[i], inside[i]) for ship, at, inside in sinks)), *tallies[i])
        for i in range(len(images))
    ]


def _tally_keys(state: GameState, images: np.ndarray) -> list[tuple[object, ...]]:
    """Per image, the tallies given as ``("tallies", lines)``, ``lines`` the sorted ``("row" or "col", image line,
    count)``; nothing without tallies, so an untallied state's key is as it was. A row stays a row unless the image
    transposes (then cell 1, right of cell 0, lands in another row; a board of one column has no transpose), and its
    image line is the one holding its first cell's image (every symmetry keeps the width, or the board is square)."""
    if not state.tallied:
        return [()] * len(images)
    n = state.cols
    lines = [("row", r * n, count) for r, count in enumerate(state.row_counts or ()) if count is not None]
    lines += [("col", c, count) for c, count in enumerate(state.col_counts or ()) if count is not None]
    out: list[tuple[object, ...]] = []
    for image in images:
        turned = n > 1 and image[1] // n != image[0] // n
        keyed = []
        for kind, first, count in lines:
            if turned:
                kind = "col" if kind == "row" else "row"
            at = int(image[first])
            keyed.append((kind, at // n if kind == "row" else at % n, count))
        out.append(("tallies", tuple(sorted(keyed))))
    return out


@lru_cache(maxsize=64)
def _all_index_maps(rows: int, cols: int) -> np.ndarray:
    """The board's symmetries' index maps as the rows of one array, in ``symmetries_of`` order."""
    out = np.stack([s.index_map(rows, cols) for s in symmetries_of(rows, cols)])
    out.setflags(write=False)
    return out


__all__ = ["PosteriorKey", "canonical_form", "maps_to_itself", "model_key", "posterior_key", "prior_symmetries"]
