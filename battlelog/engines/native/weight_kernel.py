"""The prior's kernel: touching pairs per transition, and float64 passes over a layered model's levels.

Plain Python in numba's subset, like :mod:`battlelog.engines.native.kernel` (which it reads the key
layout of), run interpreted or compiled by :func:`battlelog.engines.native.jit.weight_kernels`.

A transition's weight ``weight[t]`` is exp of its share of theta . f(layout) (scaled per level by
the caller so that its largest is 1): a layout's weight is the product of its transitions'. The
passes are the integer ones of the counting kernel with a product by ``weight[t]`` added, in float64;
the caller rescales every level's values so that its largest is 1 and keeps the logarithms of the
scales apart, so nothing overflows or underflows however many levels are multiplied.
"""

from __future__ import annotations

import numpy as np


def touching(
    keys: np.ndarray, cell: int, cols: int, field_bits: int, profile_shift: int, profile_bits: int,
    first: np.ndarray, action: np.ndarray, out: np.ndarray,
) -> None:  # fmt: skip
    """``out[t]``: the pairs of side-adjacent cells covered by two different ships that transition t
    completes at ``cell``, read from its state's key (kept with the occupancy profile, ``TRACKED``).

    Of two side-adjacent cells the sweep meets one last, and counts the pair there, when it is covered:
    its left neighbour is another ship unless a horizontal ship goes on through both, its upper
    neighbour unless a vertical one does; a ship starting on the cell is another ship than both.
    """
    col = cell % cols
    one = np.uint64(1)
    field = np.uint64((1 << field_bits) - 1)
    col_shift = np.uint64(field_bits * col)
    run_shift = np.uint64(field_bits * cols)
    mask = np.uint64((1 << profile_bits) - 1)
    for s in range(keys.shape[0]):
        key = keys[s]
        below = (key >> col_shift) & field  # a vertical ship from above covers this cell
        along = (key >> run_shift) & field  # a horizontal ship from the left covers this cell
        profile = (key >> np.uint64(profile_shift)) & mask
        left = 1 if col > 0 and (profile & one) != 0 else 0
        above = 1 if ((profile >> np.uint64(cols - 1)) & one) != 0 else 0
        for t in range(first[s], first[s + 1]):
            if action[t] > 0:
                out[t] = left + above
            elif along > 0:
                out[t] = above
            elif below > 0:
                out[t] = left
            else:
                out[t] = 0


def forward(fwd: np.ndarray, first: np.ndarray, child: np.ndarray, weight: np.ndarray, out: np.ndarray) -> None:
    """One step forward: ``out[child[t]] += fwd[s] * weight[t]`` over every transition t of every state s."""
    for s in range(first.shape[0] - 1):
        here = fwd[s]
        for t in range(first[s], first[s + 1]):
            out[child[t]] += here * weight[t]


def backward(
    child_bwd: np.ndarray, fwd: np.ndarray, first: np.ndarray, child: np.ndarray, action: np.ndarray,
    weight: np.ndarray, pairs: np.ndarray, uses: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """One step back: each state's weighted ways to finish the board; ``uses[a - 1] += fwd * weight * bwd``
    per placement action a, and ``uses[-1]`` the same times the transition's touching ``pairs`` (empty:
    none counted)."""
    states = first.shape[0] - 1
    placements = uses.shape[0] - 1
    bwd = np.zeros(states, dtype=np.float64)
    for s in range(states):
        total = 0.0
        here = fwd[s]
        for t in range(first[s], first[s + 1]):
            ways = weight[t] * child_bwd[child[t]]
            total += ways
            if action[t] > 0:
                uses[action[t] - 1] += here * ways
            if pairs.shape[0] > 0 and pairs[t] > 0:
                uses[placements] += here * ways * pairs[t]
        bwd[s] = total
    return bwd


def choose(child_bwd: np.ndarray, first: np.ndarray, child: np.ndarray, weight: np.ndarray, at: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """For walkers at states ``at`` of one level, the transition each takes, with probability proportional
    to ``weight[t] * child_bwd[child[t]]`` (``draws[i]`` uniform in [0, 1))."""
    out = np.empty(at.shape[0], dtype=np.int64)
    for i in range(at.shape[0]):
        s = at[i]
        total = 0.0
        for t in range(first[s], first[s + 1]):
            total += weight[t] * child_bwd[child[t]]
        left = draws[i] * total
        chosen = -1
        for t in range(first[s], first[s + 1]):
            ways = weight[t] * child_bwd[child[t]]
            if ways > 0.0:
                chosen = t  # the last one with a future, should rounding carry ``left`` past the end
                if left < ways:
                    break
                left -= ways
        out[i] = chosen
    return out
