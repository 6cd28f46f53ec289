"""The counting kernel with some placements ruled out: one step forward, one step back. Plain Python in numba's subset.

A kept layered model counts again for a state that only adds misses to the one it was built for
(:mod:`battlelog.engines.native.misses`): a miss rules out the placements that cover its cell, which are
transitions of known actions at known levels, so each level gets ``allowed[action]`` and the counts are
taken over the transitions it allows. As :mod:`battlelog.engines.native.kernel`, this module does not
import numba (:mod:`battlelog.engines.native.jit` compiles it).
"""

from __future__ import annotations

import numpy as np


def forward_allowed(fwd: np.ndarray, first: np.ndarray, child: np.ndarray, action: np.ndarray, allowed: np.ndarray, next_states: int) -> np.ndarray:
    """The next level's forward counts over the transitions whose action is ``allowed``."""
    out = np.zeros(next_states, dtype=np.int64)
    for s in range(fwd.shape[0]):
        count = fwd[s]
        if count == 0:
            continue
        for t in range(first[s], first[s + 1]):
            if allowed[action[t]]:
                out[child[t]] += count
    return out


def collect_allowed(
    child_bwd: np.ndarray, fwd: np.ndarray, first: np.ndarray, child: np.ndarray, action: np.ndarray, allowed: np.ndarray, uses: np.ndarray
) -> np.ndarray:
    """:func:`kernel.collect <battlelog.engines.native.kernel.collect>` over the transitions whose action is ``allowed``."""
    states = first.shape[0] - 1
    bwd = np.zeros(states, dtype=np.int64)
    for s in range(states):
        total = np.int64(0)
        count = fwd[s]
        for t in range(first[s], first[s + 1]):
            a = action[t]
            if not allowed[a]:
                continue
            ways = child_bwd[child[t]]
            total += ways
            if a > 0:
                uses[a - 1] += count * ways
        bwd[s] = total
    return bwd


def choose_allowed(
    bwd_here: np.ndarray, child_bwd: np.ndarray, first: np.ndarray, child: np.ndarray, action: np.ndarray, allowed: np.ndarray,
    at: np.ndarray, draws: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """:func:`kernel.choose <battlelog.engines.native.kernel.choose>` over the transitions whose action is ``allowed``
    (``bwd_here`` and ``child_bwd``: the backward counts over those transitions)."""
    out = np.empty(at.shape[0], dtype=np.int64)
    for i in range(at.shape[0]):
        s = at[i]
        left = draws[i]
        t = first[s]
        while True:
            ways = child_bwd[child[t]] if allowed[action[t]] else np.int64(0)
            if left < ways:
                break
            left -= ways
            t += 1
        out[i] = t
    return out
