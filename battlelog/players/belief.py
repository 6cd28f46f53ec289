"""A player's belief about the hider: the prior it computes the posterior with (the ``belief`` option).

``uniform`` (the default) computes with the game state's own prior (uniform in experiments); a preset, a
prior text or a prior file (:mod:`battlelog.rules.hiders`) replaces it: the player asks its engine about
``state.config.with_prior(belief)``. ``hider`` and ``learn`` are resolved by the experiment into a prior
before the player is built (:mod:`battlelog.runner.beliefs`); outside an experiment they are refused when
the player is asked to move.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from battlelog.engines import DEFAULT_ENGINE, Engine, Marginals, engine_class
from battlelog.engines.base import check_prior_support
from battlelog.errors import BattlelogError
from battlelog.players.base import Player, Seed
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.hiders import BELIEF_WORDS, LEARN, belief_prior, canonical_belief
from battlelog.rules.prior import FEATURES, Prior, features_text, parse_features
from battlelog.rules.state import GameState

#: The option's name and default.
BELIEF, DEFAULT_BELIEF = "belief", "uniform"
#: The option naming the weights ``belief=learn`` fits (the others stay 0), and its default: all of them.
LEARNT, ALL_FEATURES = "features", "all"


def canonical_option(key: str, value: Any) -> Any:
    """``belief`` in its one spelling (:func:`battlelog.rules.hiders.canonical_belief`), ``features`` in its
    (``edge+vertical``); other options as given."""
    if key == BELIEF and isinstance(value, str):
        return canonical_belief(value)
    if key == LEARNT and isinstance(value, str):
        return features_text(parse_features(value))
    return value


def check_learnt(belief: str, features: str) -> None:
    """``features`` names what ``belief=learn`` fits: with another belief it would mean nothing."""
    if parse_features(features) != FEATURES and belief != LEARN:
        raise BattlelogError(f"features={features} says what belief=learn fits; this player's belief is {belief}")


def check_belief(engine: str, config: GameConfig, belief: str) -> None:
    """Refuse, before any game, a belief the engine cannot compute with (it does not weigh priors)."""
    if belief == LEARN:
        if not engine_class(engine).weighs_priors:
            raise BattlelogError(f"belief=learn: the {engine} engine does not weigh priors yet")
    elif belief not in BELIEF_WORDS and belief != DEFAULT_BELIEF:
        check_prior_support(engine_class(engine), config.with_prior(belief_prior(belief)))


def prior_of(belief: str) -> Prior | None:
    """The prior of a belief that is one by itself; None for ``hider`` and ``learn`` (not resolved yet)."""
    return None if belief in BELIEF_WORDS else belief_prior(belief)


class Believing(Engine):
    """An engine asked about every state under the belief's prior instead of the state's own."""

    def __init__(self, inner: Engine, belief: str, prior: Prior | None) -> None:
        self.inner, self.belief, self.prior = inner, belief, prior
        self.name = inner.name  # type: ignore[misc]
        self.counts_models, self.gives_placements, self.samples = inner.counts_models, inner.gives_placements, inner.samples  # type: ignore[misc]

    def believed(self, state: GameState) -> GameState:
        """``state`` under the belief's prior (same shots, same rules)."""
        if self.prior is None:
            raise BattlelogError(f"belief={self.belief} is known only inside an experiment (battlelog experiment), not here")
        out = copy.copy(state)
        object.__setattr__(out, "config", state.config.with_prior(self.prior))
        return out

    def marginals(self, state: GameState) -> Marginals:
        return self.inner.marginals(self.believed(state))

    def sample(self, state: GameState, count: int, rng: np.random.Generator) -> list[tuple[Placement, ...]]:
        return self.inner.sample(self.believed(state), count, rng)


def believing(engine: Engine, belief: str, prior: Prior | None) -> Engine:
    """``engine`` itself under the default belief, else the engine that computes under the belief's prior
    (``prior``: :func:`prior_of` the belief, worked out once by the player)."""
    return engine if belief == DEFAULT_BELIEF else Believing(engine, belief, prior)


class BelievingPlayer(Player):
    """A player that asks an engine under a belief: its options ``engine`` and ``belief``, checked before
    the first game, and the engine it asks (its workspace's engine of that name, under the belief)."""

    @classmethod
    def canonical_option(cls, key: str, value: Any) -> Any:
        return canonical_option(key, value)

    @classmethod
    def check_board(cls, config: GameConfig, engine: str = DEFAULT_ENGINE, belief: str = DEFAULT_BELIEF, **options: Any) -> None:
        """A board its engine cannot count, or a belief it cannot weigh, is refused before the first game."""
        engine_class(engine).check_board(config)
        check_belief(engine, config, belief)

    def __init__(
        self, seed: Seed = None, engine: str = DEFAULT_ENGINE, belief: str = DEFAULT_BELIEF, features: str = ALL_FEATURES
    ) -> None:
        super().__init__(seed)
        engine_class(engine)  # an unknown name is refused here, before any game
        check_learnt(belief, features)
        self.engine = engine
        self.belief, self.belief_prior = belief, prior_of(belief)

    @property
    def _engine(self) -> Engine:
        return believing(self.workspace.engine(self.engine), self.belief, self.belief_prior)


__all__ = [
    "ALL_FEATURES", "BELIEF", "DEFAULT_BELIEF", "LEARNT", "Believing", "BelievingPlayer", "believing", "canonical_option",
    "check_belief", "check_learnt", "prior_of",
]
