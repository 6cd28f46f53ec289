"""The counting kernel with some placements ruled out: one step forward (the step back is
:func:`kernel.collect <battlelog.engines.native.kernel.collect>`, which takes the same mask). Plain Python in numba's subset.

A kept layered model counts again for a state that only adds misses to the one it was built for
(:mod:`battlelog.engines.native.misses`): a miss rules out the placements that cover its cell, which are
transitions of known actions at known levels, so each level gets ``allowed[action]`` and the counts are
taken over the transitions it allows. As :mod:`battlelog.engines.native.kernel`, this module does not
import numba (:mod:`battlelog.engines.native.jit` compiles it).
"""

from __future__ import annotations

import numpy as np


def forward_allowed(
    fwd: np.ndarray, first: np.ndarray, child: np.ndarray, action: np.ndarray, allowed: np.ndarray, next_states: int
) -> np.ndarray:
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
