"""The ProbLog player: shoot the cell with the highest exact occupancy marginal."""

from __future__ import annotations

import numpy as np

from battlelog.engines import Marginals
from battlelog.players.base import masked
from battlelog.players.posterior import PosteriorPlayer
from battlelog.rules.state import GameState


class ExactPlayer(PosteriorPlayer):
    """Bayes-optimal one-step player: the most probable unshot cell under the posterior over layouts."""

    name = "problog"

    def posterior(self, state: GameState) -> tuple[Marginals, np.ndarray]:
        """The marginals; the score of a cell is its exact occupancy marginal."""
        marginals = self._engine.marginals(state)
        return marginals, masked(marginals.cells, state)
