"""What the players that score cells on the exact posterior share: the tie rule and the key (the engine
and the belief they ask come from :class:`~battlelog.players.belief.BelievingPlayer`)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Hashable

import numpy as np

from battlelog.engines import Marginals
from battlelog.players.base import ScoringPlayer
from battlelog.players.belief import BelievingPlayer
from battlelog.rules.aim import best_cells, tied_best
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState


class PosteriorPlayer(BelievingPlayer, ScoringPlayer):
    """Scores every unshot cell from the exact posterior of the state, and shoots the best.

    Among cells of equal score it keeps the most probable hits (then draws at random): a score that
    stops telling cells apart (information once the layout is pinned down) must not send the player
    sweeping the board around ships it already knows.

    ``engine`` names the engine; the player computes with its workspace's engine of that name, under
    the prior ``belief`` names (:mod:`battlelog.players.belief`).
    """

    @abstractmethod
    def posterior(self, state: GameState) -> tuple[Marginals, np.ndarray]:
        """The engine's marginals of ``state`` and this player's N x N scores (NaN on shot cells)."""

    def scores(self, state: GameState) -> np.ndarray:
        return self.posterior(state)[1]

    def choose_volley(self, state: GameState, k: int) -> list[Cell]:
        """Under salvo, the ``k`` most probable unshot cells (ties drawn by the player's generator),
        whatever the player's own score: by linearity they maximise the volley's expected hits."""
        return best_cells(state.unshot, self._engine.marginals(state).cells, k, self.rng)

    def candidates(self, state: GameState) -> list[Cell]:
        """The cells of best score; among those, the ones most likely to be hit."""
        marginals, values = self.posterior(state)
        cells = state.unshot
        best = tied_best(cells, [values[cell] for cell in cells])
        return tied_best(best, [marginals.cells[cell] for cell in best])

    def decision_key(self, state: GameState, possible: frozenset[Cell]) -> Hashable:
        """The hits: the scores are functions of the consistent layouts and the hits (a shot cell
        outside the hits has probability 0 whether shot or not, so it is never a candidate)."""
        return state.hits
