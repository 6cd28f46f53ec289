"""The ProbLog player: shoot the cell with the highest exact occupancy marginal."""

from __future__ import annotations

import numpy as np

from battlelog.engines import DEFAULT_ENGINE, Engine, make_engine
from battlelog.game import Cell
from battlelog.players.base import Player, pick_best
from battlelog.state import GameState


class ExactPlayer(Player):
    """Bayes-optimal one-step player: the most probable unshot cell under the posterior over layouts."""

    name = "problog"

    def __init__(self, seed: int | np.random.SeedSequence | None = None, engine: str = DEFAULT_ENGINE) -> None:
        super().__init__(seed)
        self.engine = engine
        self._engine: Engine = make_engine(engine)

    def choose(self, state: GameState) -> Cell:
        cells = state.unshot
        marginals = self._engine.marginals(state).cells
        return pick_best(cells, [marginals[cell] for cell in cells], self.rng)

    def close(self) -> None:
        self._engine.close()
