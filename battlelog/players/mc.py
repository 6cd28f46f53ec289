"""The Monte Carlo player: marginals estimated from sampled layouts instead of computed exactly."""

from __future__ import annotations

import numpy as np

from battlelog.errors import BattlelogError
from battlelog.players.base import Player, Seed, masked
from battlelog.rules.aim import pick_best
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState

#: Sweeps of the chain discarded before the first sample of each move.
BURN_IN = 20


class MonteCarloPlayer(Player):
    """Shoots the unshot cell covered most often in ``samples`` layouts drawn by a Markov chain whose
    draws are uniform over the layouts consistent with the answers in the limit (battlelog.engines.chain).

    Its choice is random beyond ties (the estimate is), so it has no candidates and no exact
    expectation. It plays every rule: the chain's per-ship domains come from the same grounding as
    the engines' (the sink rule), and its moves keep ships apart as the touch rule says.
    """

    name = "mc"

    def __init__(self, seed: Seed = None, samples: int = 1000) -> None:
        super().__init__(seed)
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise BattlelogError(f"player mc needs a whole number of samples of at least 1, got {samples!r}")
        self.samples = samples

    def scores(self, state: GameState) -> np.ndarray:
        """The estimated occupancy marginal of every unshot cell (a fresh estimate at each call)."""
        from battlelog.engines.chain import LayoutChain  # numba: loaded when a game needs it, not by `--help`

        return masked(LayoutChain(state).occupancy(self.samples, BURN_IN, self.rng), state)

    def choose(self, state: GameState) -> Cell:
        values = self.scores(state)
        cells = state.unshot
        return pick_best(cells, [values[cell] for cell in cells], self.rng)
