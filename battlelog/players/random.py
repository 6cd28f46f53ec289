"""The random player: every shot uniform among the cells not shot yet."""

from __future__ import annotations

import numpy as np

from battlelog.game import Cell
from battlelog.players.base import ScoringPlayer, masked, pick_random
from battlelog.state import GameState


class RandomPlayer(ScoringPlayer):
    """Ignores all information; its mean score is K(M+1)/(K+1) for K ship cells among M cells."""

    name = "random"

    def scores(self, state: GameState) -> np.ndarray:
        """Every unshot cell alike."""
        return masked(np.zeros((state.size, state.size)), state)

    def choose(self, state: GameState) -> Cell:
        return pick_random(state.unshot, self.rng)
