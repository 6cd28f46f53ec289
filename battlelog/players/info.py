"""The information player: the shot whose answer is the most uncertain under the exact posterior."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from battlelog.engines import DEFAULT_ENGINE, Engine, Marginals, make_engine
from battlelog.game import Cell
from battlelog.players.base import ScoringPlayer, Seed, best_cells, masked
from battlelog.state import GameState


def answer_entropy(answers: np.ndarray) -> np.ndarray:
    """The entropy in bits of each cell's answer (miss, hit, or sunk ship i), from
    :meth:`Marginals.answers`'s probabilities (N x N x (2 + ships))."""
    logs = np.log2(answers, out=np.zeros_like(answers), where=answers > 0)
    return np.maximum(-(answers * logs).sum(axis=2), 0.0)


class InfoPlayer(ScoringPlayer):
    """Shoots the unshot cell with the largest expected information, the entropy of its answer.

    Among cells of equal entropy it prefers the most probable hit: once the answers pin the layout
    down every cell carries zero bits, and a rule that then shot at random would sweep the board
    around ships it already knows.
    """

    name = "info"

    def __init__(self, seed: Seed = None, engine: str = DEFAULT_ENGINE) -> None:
        super().__init__(seed)
        self.engine = engine
        self._engine: Engine = make_engine(engine)

    def _posterior(self, state: GameState) -> tuple[Marginals, np.ndarray]:
        marginals = self._engine.marginals(state)
        return marginals, masked(answer_entropy(marginals.answers(state)), state)

    def scores(self, state: GameState) -> np.ndarray:
        """The entropy (bits) of each unshot cell's answer."""
        return self._posterior(state)[1]

    def candidates(self, state: GameState) -> list[Cell]:
        """The cells of largest entropy; among those, the ones most likely to be hit."""
        marginals, entropy = self._posterior(state)
        cells = state.unshot
        informative = best_cells(cells, [entropy[cell] for cell in cells])
        return best_cells(informative, [marginals.cells[cell] for cell in informative])

    def decision_key(self, state: GameState, possible: frozenset[Cell]) -> Hashable:
        """The hits: the answers' probabilities are those of the consistent layouts, and a cell no
        layout covers carries no information and no hit, so whether it was shot does not matter."""
        return state.hits

    def close(self) -> None:
        self._engine.close()
