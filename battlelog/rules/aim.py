"""The cells a shooter picks by a score: the best one, the best k, and the one tie rule of both.

The players, the advice (terminal and browser) and the replays all rank unshot cells by a score, most
often the occupancy marginal; they must agree on what a tie is and how it is broken, or the advice would
name a cell the player never shoots. Scores within :data:`TIE_TOLERANCE` (relative) of the best tie: exact
marginals of symmetric cells can differ in the last bits of a float, and those must not decide a shot.
Among tied cells a player draws one with its generator; the advice, which draws nothing, takes the first
in the order the cells come in (reading order for a state's unshot cells). The k best cells are picked
one at a time, each the best of those left by that rule: under salvo, a volley chosen before any answer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState

#: Scores within this relative distance of the best are ties.
TIE_TOLERANCE = 1e-12


def tied_best(cells: Sequence[Cell], scores: Sequence[float]) -> list[Cell]:
    """The cells whose score ties for the best (within TIE_TOLERANCE), in the given order."""
    values = np.asarray(scores, dtype=float)
    best = values.max()
    return [cells[int(i)] for i in np.flatnonzero(values >= best - TIE_TOLERANCE * max(1.0, abs(best)))]


def pick_tied(tied: Sequence[Cell], rng: np.random.Generator | None) -> Cell:
    """One of ``tied``: drawn uniformly by ``rng`` (no draw when there is only one), the first without one."""
    return tied[int(rng.integers(len(tied)))] if rng is not None and len(tied) > 1 else tied[0]


def pick_best(cells: Sequence[Cell], scores: Sequence[float], rng: np.random.Generator | None) -> Cell:
    """The highest-scoring cell, a tie broken by :func:`pick_tied`."""
    return pick_tied(tied_best(cells, scores), rng)


def best_cells(cells: Sequence[Cell], values: np.ndarray, k: int, rng: np.random.Generator | None = None) -> list[Cell]:
    """The ``k`` cells of ``cells`` of highest ``values`` (indexed by cell), best first: each in turn the
    best of those left, a tie broken by :func:`pick_tied` (``rng`` None: the first in ``cells``' order)."""
    left = list(cells)
    picked: list[Cell] = []
    for _ in range(min(k, len(left))):
        cell = pick_best(left, [float(values[c]) for c in left], rng)
        picked.append(cell)
        left.remove(cell)
    return picked


def volley_start(state: GameState) -> int:
    """Under salvo, the index of the first shot of the volley under way (``len(state.shots)`` when the
    next shot starts a new one)."""
    volley = state.next_volley()[0]
    start = len(state.shots)
    while start > 0 and state.shots[start - 1].volley == volley:
        start -= 1
    return start


def volley_cells(state: GameState, before: np.ndarray) -> list[Cell]:
    """Under salvo, the cells still to fire in the volley under way (a new one when none is): the best
    unshot cells by ``before``, the marginals from before the volley's first answer (the state's own when
    it starts a new volley), best first, ties in reading order; none once the game is over."""
    return [] if state.over else best_cells(state.unshot, before, state.next_volley()[1])


__all__ = ["TIE_TOLERANCE", "best_cells", "pick_best", "pick_tied", "tied_best", "volley_cells", "volley_start"]
