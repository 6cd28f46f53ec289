"""The Thompson player: one layout drawn exactly from the posterior decides where to look."""

from __future__ import annotations

import numpy as np

from battlelog.engines import DEFAULT_ENGINE, engine_class
from battlelog.errors import BattlelogError
from battlelog.players.base import Seed, masked
from battlelog.players.belief import ALL_FEATURES, DEFAULT_BELIEF, BelievingPlayer
from battlelog.rules.aim import best_cells, pick_best
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState


class ThompsonPlayer(BelievingPlayer):
    """Thompson sampling (the Bayesian-search article among the seeds): draw one layout uniformly
    from those consistent with the answers, and shoot a cell it covers.

    Under the drawn layout every unshot cell it covers is a hit, so the draw alone does not say which
    one: this player takes the most probable of them under the exact posterior (ties at random). The
    draw supplies the exploration (a cell is shot only as often as layouts that cover it are drawn),
    the posterior the order within the drawn layout. The draw is exact: top-down through the compiled
    diagram, each branch taken in proportion to its count (``Engine.sample``).
    """

    name = "thompson"

    def __init__(
        self, seed: Seed = None, engine: str = DEFAULT_ENGINE, belief: str = DEFAULT_BELIEF, features: str = ALL_FEATURES
    ) -> None:
        super().__init__(seed, engine, belief, features)
        if not engine_class(engine).samples:
            raise BattlelogError(f"player thompson needs an engine that samples layouts; {engine!r} does not")

    def scores(self, state: GameState) -> np.ndarray:
        """The exact occupancy marginal of the unshot cells a freshly drawn layout covers, 0 elsewhere
        (each call draws again, as each move does)."""
        (layout,) = self._engine.sample(state, 1, self.rng)
        covered = np.zeros((state.rows, state.cols), dtype=bool)
        for placement in layout:
            for cell in placement.cells:
                covered[cell] = True
        return masked(np.where(covered, self._engine.marginals(state).cells, 0.0), state)

    def choose_volley(self, state: GameState, k: int) -> list[Cell]:
        """Under salvo, as every exact player: the ``k`` most probable unshot cells (ties drawn by its
        generator), which maximise the volley's expected hits; no layout is drawn."""
        return best_cells(state.unshot, self._engine.marginals(state).cells, k, self.rng)

    def choose(self, state: GameState) -> Cell:
        values = self.scores(state)
        cells = [cell for cell in state.unshot if values[cell] > 0.0]
        return pick_best(cells, [values[cell] for cell in cells], self.rng)
