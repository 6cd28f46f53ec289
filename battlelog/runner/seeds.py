"""Where every game's randomness comes from: independent streams per game, spawned from one root seed.

Game i's board depends only on the root seed and i, so every player of an experiment meets the same
boards (paired comparisons), and a game can be replayed alone from its record.
"""

from __future__ import annotations

import numpy as np

from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.layouts import sample_layout


def game_seeds(seed: int, game: int) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """Independent seed streams for game ``game`` of an experiment: (layout, player).

    The layout stream depends only on the root seed and the game index, so every player of an
    experiment meets the same boards (paired comparisons).
    """
    return (
        np.random.SeedSequence(seed, spawn_key=(game, 0)),
        np.random.SeedSequence(seed, spawn_key=(game, 1)),
    )


def layout_for(config: GameConfig, seed: int, game: int) -> tuple[Placement, ...]:
    """The hidden layout of game ``game`` under root ``seed``: uniform over all valid layouts."""
    return sample_layout(config, np.random.default_rng(game_seeds(seed, game)[0]))
