"""The random player: every shot uniform among the cells not shot yet."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from battlelog.players.base import ScoringPlayer, masked, pick_random
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState


class RandomPlayer(ScoringPlayer):
    """Ignores all information; its mean score is K(M+1)/(K+1) for K ship cells among M cells.

    It is the baseline, so it ignores the rules too: under every touch and sink rule it draws
    uniformly among all unshot cells, even those the touch rule makes certainly empty.
    """

    name = "random"
    blind = True
    uniform_order = True

    def scores(self, state: GameState) -> np.ndarray:
        """Every unshot cell alike."""
        return masked(np.zeros((state.rows, state.cols)), state)

    def choose(self, state: GameState) -> Cell:
        return pick_random(state.unshot, self.rng)

    def decision_key(self, state: GameState, possible: frozenset[Cell]) -> Hashable:
        """The hits, and how many unshot cells no layout covers: those are all alike to a random draw
        (the other unshot cells follow from the layouts and the hits)."""
        return state.hits, sum(cell not in possible for cell in state.unshot)
