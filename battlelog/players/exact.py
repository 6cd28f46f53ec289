"""The ProbLog player: shoot the cell with the highest exact occupancy marginal."""

from __future__ import annotations

import numpy as np

from battlelog.engines import DEFAULT_ENGINE, Marginals, engine_class
from battlelog.errors import BattlelogError
from battlelog.players.base import Seed, masked
from battlelog.players.belief import ALL_FEATURES, DEFAULT_BELIEF
from battlelog.players.posterior import PosteriorPlayer
from battlelog.players.volley import VOLLEY_SAMPLES, entropy_volley
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState

#: How the player chooses a volley under salvo: the k most probable cells, or the greedy joint entropy.
VOLLEYS = ("top", "entropy")


class ExactPlayer(PosteriorPlayer):
    """Bayes-optimal one-step player: the most probable unshot cell under the posterior over layouts.

    Under salvo (``volley``): ``top``, the k most probable cells (the most expected hits), or
    ``entropy``, the greedy joint-entropy volley of :mod:`battlelog.players.volley`.
    """

    name = "problog"

    def __init__(
        self, seed: Seed = None, engine: str = DEFAULT_ENGINE, volley: str = "top", belief: str = DEFAULT_BELIEF,
        features: str = ALL_FEATURES,
    ) -> None:  # fmt: skip
        super().__init__(seed, engine, belief, features)
        if volley not in VOLLEYS:
            raise BattlelogError(f"player problog: volley={volley} is not one of {', '.join(VOLLEYS)}")
        if volley == "entropy" and not engine_class(engine).samples:
            raise BattlelogError(f"player problog[volley=entropy] draws layouts; the {engine} engine does not")
        self.volley = volley

    def choose_volley(self, state: GameState, k: int) -> list[Cell]:
        if self.volley == "top":
            return super().choose_volley(state, k)
        layouts = self._engine.sample(state, VOLLEY_SAMPLES, self.rng)
        return entropy_volley(state, self._engine.marginals(state).cells, layouts, k, self.rng)

    def posterior(self, state: GameState) -> tuple[Marginals, np.ndarray]:
        """The marginals; the score of a cell is its exact occupancy marginal."""
        marginals = self._engine.marginals(state)
        return marginals, masked(marginals.cells, state)
