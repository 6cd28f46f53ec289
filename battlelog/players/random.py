"""The random player: every shot uniform among the cells not shot yet."""

from __future__ import annotations

from battlelog.game import Cell
from battlelog.players.base import Player, pick_random
from battlelog.state import GameState


class RandomPlayer(Player):
    """Ignores all information; its mean score is K(M+1)/(K+1) for K ship cells among M cells."""

    name = "random"

    def choose(self, state: GameState) -> Cell:
        return pick_random(state.unshot, self.rng)
