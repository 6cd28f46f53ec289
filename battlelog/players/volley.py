"""Choosing a whole volley (salvo) otherwise than by the k most probable cells: the greedy joint-entropy
volley.

The k most probable cells maximise the volley's expected hits (by linearity of expectation), but not
what the volley tells: two cells that are hit together or missed together in almost every layout
(two neighbours of a hit along the likely direction) answer nearly the same question twice. Batch
active learning meets the same problem and greedily maximises the joint entropy of the batch's
answers (BatchBALD, Kirsch et al., 2019); here: each next cell of the volley is the one that makes the
joint hit/miss pattern of the cells picked so far most uncertain, over layouts drawn exactly from the
posterior. Ties (a layout pinned down: every entropy 0) go to the most probable cell, then the
player's generator.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from battlelog.rules.aim import pick_tied, tied_best
from battlelog.rules.geometry import Cell, Placement
from battlelog.rules.state import GameState

#: Layouts drawn per volley to estimate the joint entropies.
VOLLEY_SAMPLES = 2000


def entropy_volley(
    state: GameState, cells: np.ndarray, layouts: Sequence[tuple[Placement, ...]], k: int, rng: np.random.Generator
) -> list[Cell]:
    """``k`` unshot cells picked greedily, each maximising the entropy (bits) of the joint hit/miss
    answers of the cells picked so far and itself, over ``layouts`` (draws from the posterior);
    ``cells``: the exact occupancy marginals, which break ties."""
    n = state.cols
    covered = np.zeros((len(layouts), state.rows * n), dtype=np.int64)
    for s, layout in enumerate(layouts):
        for placement in layout:
            for r, c in placement.cells:
                covered[s, r * n + c] = 1
    pattern = np.zeros(len(layouts), dtype=np.int64)  # which joint answer each layout gives so far
    left, picked = list(state.unshot), []
    for _ in range(min(k, len(left))):
        entropies = [_entropy(pattern * 2 + covered[:, r * n + c]) for r, c in left]
        tied = tied_best(left, entropies)
        cell = pick_tied(tied_best(tied, [float(cells[c]) for c in tied]), rng)
        picked.append(cell)
        left.remove(cell)
        pattern = np.unique(pattern * 2 + covered[:, cell[0] * n + cell[1]], return_inverse=True)[1].reshape(-1)
    return picked


def _entropy(codes: np.ndarray) -> float:
    """The entropy in bits of the empirical distribution of ``codes``."""
    counts = np.unique(codes, return_counts=True)[1]
    p = counts / codes.size
    return float(-(p * np.log2(p)).sum())
