"""The posterior of the layouts left over: one answer's marginals from the parent's and the other answers'.

The answers to a shot split the layouts of the state it is fired in into disjoint parts (a miss, a
hit, each sink), so every integer count of the parent (layouts, layouts covering a cell) is the sum
of its parts' counts. Where an engine's marginals are integer counts over the number of layouts,
correctly rounded (``Engine.exact_ratios``, under the uniform prior), the counts are read back from
the marginals exactly while they stay below :data:`READ_BACK_LIMIT`, and one part's marginals follow
from the others' by subtraction: bit for bit what the engine would give for it, without its sweep.
The lookahead player takes the miss (the part that prunes least) this way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from battlelog.engines.base import Marginals

#: Below this many layouts, ``rint(p * models)`` gives back the integer count behind a correctly rounded
#: ratio ``p`` exactly (its error is at most about ``models * 2**-52``, well under a half).
READ_BACK_LIMIT = 2**50


def remainder(whole: Marginals, parts: Sequence[Marginals]) -> Marginals | None:
    """The marginals and count of the layouts of ``whole`` that are in none of ``parts`` (disjoint
    subsets of them), divided as the native engine divides (:func:`battlelog.engines.native.counts._ratio`):
    cells, and placements where every one gives them. None where a count cannot be read back or no
    layout is left. Parts that are not disjoint subsets of ``whole`` (counts that go negative or past
    the layouts left) raise ValueError: the answer would be wrong, not merely unavailable."""
    if whole.models is None or any(part.models is None for part in parts):
        return None
    models = whole.models - sum(int(part.models or 0) for part in parts)
    if models < 0:
        raise ValueError("the parts are not disjoint subsets of the whole: they hold more layouts")
    if models == 0:
        return None
    cells = _left(whole.cells, whole.models, [(part.cells, part.models) for part in parts], models)
    if cells is None:
        return None
    placements: list[np.ndarray] | None = None
    if whole.placements is not None and all(part.placements is not None for part in parts):
        placements = []
        for ship, values in enumerate(whole.placements):
            left = _left(
                values, whole.models, [(part.placements[ship], part.models) for part in parts if part.placements is not None],
                models,
            )
            if left is None:
                return None
            placements.append(left)
    return Marginals(cells, models, None if placements is None else tuple(placements))


def _left(whole: np.ndarray, whole_models: int, parts: list[tuple[np.ndarray, int | None]], models: int) -> np.ndarray | None:
    """One array of probabilities of the ``models`` layouts left over: the whole's counts minus the parts' (each
    array with its number of layouts), over ``models``; None where a count cannot be read back."""
    total = _read_back(whole, whole_models)
    if total is None:
        return None
    for values, part_models in parts:
        counts = _read_back(values, part_models)
        if counts is None:
            return None
        total = total - counts
    if total.size and (int(total.min()) < 0 or int(total.max()) > models):
        raise ValueError("the parts are not disjoint subsets of the whole: their counts exceed it")
    return total / models


def _read_back(values: np.ndarray, models: int | None) -> np.ndarray | None:
    """``values * models`` as exact integers, when ``values`` are correctly rounded ratios of counts over ``models``."""
    if models is None or not 0 < models < READ_BACK_LIMIT:
        return None
    return np.rint(values * models).astype(np.int64)
