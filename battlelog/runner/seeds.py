"""Where every game's randomness comes from: independent streams per game, spawned from one root seed.

Game i's board depends only on the root seed and i, so every player of an experiment meets the same
boards (paired comparisons), and a game can be replayed alone from its record.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from battlelog.engines import DEFAULT_ENGINE, ENGINES, Engine
from battlelog.engines.fit import weighted_engine
from battlelog.engines.workspace import Workspace
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.hiders import Hider, LayoutHider
from battlelog.rules.layouts import sample_layout
from battlelog.rules.prior import UNIFORM
from battlelog.rules.state import GameState
from battlelog.rules.variants import ALLOWED

if TYPE_CHECKING:
    from battlelog.engines.native.engine import NativeEngine


#: Games whose layouts are drawn together where they are drawn at all (an experiment's next boards, the boards
#: ``belief=learn`` has not seen): a hider's model too large to keep is swept once a block, not once a board.
DRAWN_TOGETHER = 25


def game_seeds(seed: int, game: int) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """Independent seed streams for game ``game`` of an experiment: (layout, player).

    The layout stream depends only on the root seed and the game index, so every player of an
    experiment meets the same boards (paired comparisons).
    """
    return (
        np.random.SeedSequence(seed, spawn_key=(game, 0)),
        np.random.SeedSequence(seed, spawn_key=(game, 1)),
    )


def layout_for(config: GameConfig, seed: int, game: int, hider: Hider = UNIFORM) -> tuple[Placement, ...]:
    """The hidden layout of game ``game`` under root ``seed``: drawn from ``hider``'s prior over the layouts
    legal under the rules (uniform by default).

    Uniform, ships that may touch: whole-layout rejection sampling (the boards every experiment has always
    had). Under ``diagonal`` and ``none`` so few whole layouts are legal that rejection would take too long,
    and another hider weighs the layouts: the layout is then drawn exactly from the counted model, the
    engine's sampler on the empty board (weighted by the hider's prior). A distribution over layouts
    (:class:`~battlelog.rules.hiders.LayoutHider`) draws from its own list, exactly.
    """
    return layouts_for(config, seed, [game], hider)[0]


def layouts_for(config: GameConfig, seed: int, games: Sequence[int], hider: Hider = UNIFORM) -> list[tuple[Placement, ...]]:
    """:func:`layout_for` of each of ``games``, the same layouts, those drawn from a counted model drawn
    together (one walk through it: a model too large to keep is swept once, not once a board)."""
    rngs = [np.random.default_rng(game_seeds(seed, game)[0]) for game in games]
    if isinstance(hider, LayoutHider):
        return [hider.draw(rng) for rng in rngs]
    if hider.is_uniform:
        if config.rules.touch == ALLOWED:
            return [sample_layout(config, rng) for rng in rngs]
        return _sampler().sample_each(GameState.empty(config), rngs)
    return _weighted_sampler(ENGINES[DEFAULT_ENGINE]).sample_each(GameState.empty(config.with_prior(hider)), rngs)


@cache
def _sampler() -> NativeEngine:
    """One native engine per process (imported only when needed): it keeps the last empty board's model,
    so the boards of one experiment compile it once."""
    from battlelog.engines.native.engine import NativeEngine

    return NativeEngine()


@cache
def _weighted_sampler(registered: str) -> Engine:
    """One engine that weighs priors per process, the default one (``registered``: where the registry
    finds it, so that a test that puts another there gets its own)."""
    return weighted_engine(Workspace())
