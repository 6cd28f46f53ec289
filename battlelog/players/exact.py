"""The ProbLog player: shoot the cell with the highest exact occupancy marginal."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from battlelog.engines import DEFAULT_ENGINE, Engine, make_engine
from battlelog.game import Cell
from battlelog.players.base import ScoringPlayer, Seed, masked
from battlelog.state import GameState


class ExactPlayer(ScoringPlayer):
    """Bayes-optimal one-step player: the most probable unshot cell under the posterior over layouts."""

    name = "problog"

    def __init__(self, seed: Seed = None, engine: str = DEFAULT_ENGINE) -> None:
        super().__init__(seed)
        self.engine = engine
        self._engine: Engine = make_engine(engine)

    def scores(self, state: GameState) -> np.ndarray:
        """The exact occupancy marginal of every unshot cell."""
        return masked(self._engine.marginals(state).cells, state)

    def decision_key(self, state: GameState, possible: frozenset[Cell]) -> Hashable:
        """The hits: the marginals are those of the consistent layouts, and a shot cell outside the
        hits has marginal 0 whether shot or not, so it is never a candidate."""
        return state.hits

    def close(self) -> None:
        self._engine.close()
