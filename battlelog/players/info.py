"""The information player: the shot whose answer is the most uncertain under the exact posterior."""

from __future__ import annotations

import numpy as np

from battlelog.engines import Marginals
from battlelog.players.base import masked
from battlelog.players.posterior import PosteriorPlayer
from battlelog.rules.state import GameState


def answer_entropy(answers: np.ndarray) -> np.ndarray:
    """The entropy in bits of each cell's answer, from :meth:`Marginals.answers`'s probabilities
    (N x N x answers): the answers the sink rule gives, miss, hit and "sunk ship i" under ``named``
    (2 + ships), miss, hit and "sunk" under ``unnamed`` (3), miss and hit under ``silent`` (2)."""
    logs = np.log2(answers, out=np.zeros_like(answers), where=answers > 0)
    entropy: np.ndarray = np.maximum(-(answers * logs).sum(axis=2), 0.0)
    return entropy


class InfoPlayer(PosteriorPlayer):
    """Shoots the unshot cell with the largest expected information, the entropy of its answer;
    among equal ones the most probable hit (:class:`PosteriorPlayer`)."""

    name = "info"

    def posterior(self, state: GameState) -> tuple[Marginals, np.ndarray]:
        """The marginals; the score of a cell is the entropy (bits) of its answer."""
        marginals = self._engine.marginals(state)
        return marginals, masked(answer_entropy(marginals.answers(state)), state)
