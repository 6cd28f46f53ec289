"""Where a draw's randomness comes from: one generator for every walker, or one generator per walker.

One generator draws ``count`` layouts together (``sample(state, count, rng)``). A generator per walker
draws, for each, exactly the layout that a draw of one layout from that generator alone would (the same
calls on it in the same order), but all in one walk through the model: an experiment's boards, each
from its game's own generator, are drawn together from a model that a single draw would sweep again.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: One generator for all walkers, or one per walker.
Randomness = np.random.Generator | Sequence[np.random.Generator]


def below(rng: Randomness, highs: np.ndarray) -> np.ndarray:
    """Per walker i a uniform integer in [0, highs[i]) (``rng.integers(0, highs)``, one walker's own alike)."""
    if isinstance(rng, np.random.Generator):
        return rng.integers(0, highs)
    return (
        np.concatenate([r.integers(0, highs[i : i + 1]) for i, r in enumerate(rng)]) if len(rng) else np.zeros(0, dtype=np.int64)
    )


def uniform(rng: Randomness, count: int) -> np.ndarray:
    """Per walker a uniform float in [0, 1) (``rng.random(count)``, one walker's own alike)."""
    if isinstance(rng, np.random.Generator):
        return rng.random(count)
    return np.concatenate([r.random(1) for r in rng]) if len(rng) else np.zeros(0)


def walker(rng: Randomness, i: int) -> np.random.Generator:
    """The generator walker i draws from."""
    return rng if isinstance(rng, np.random.Generator) else rng[i]
