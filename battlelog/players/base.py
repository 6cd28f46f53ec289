"""The one interface every player implements, and the shared tie-breaking rule."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Sequence

import numpy as np

from battlelog.game import Cell
from battlelog.state import GameState

#: Scores within this relative distance of the best are ties (exact marginals of symmetric cells
#: can differ in the last bits of a float; those must not decide the shot).
TIE_TOLERANCE = 1e-12


class Player(ABC):
    """Chooses the next shot from what a player sees: the game state, never the hidden layout.

    Every random draw comes from ``self.rng``, a generator built from the ``seed`` given at
    construction, so a game is reproducible from its seed.
    """

    name: ClassVar[str]

    def __init__(self, seed: int | np.random.SeedSequence | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def choose(self, state: GameState) -> Cell:
        """The cell to shoot next; it must be on the board and not shot yet."""

    def close(self) -> None:
        """Release anything expensive the player holds (engines, caches)."""


def pick_best(cells: Sequence[Cell], scores: Sequence[float], rng: np.random.Generator) -> Cell:
    """The highest-scoring cell, ties (within TIE_TOLERANCE) broken uniformly at random by ``rng``."""
    values = np.asarray(scores, dtype=float)
    best = values.max()
    tied = np.flatnonzero(values >= best - TIE_TOLERANCE * max(1.0, abs(best)))
    return cells[int(tied[rng.integers(len(tied))])] if len(tied) > 1 else cells[int(tied[0])]


def pick_random(cells: Sequence[Cell], rng: np.random.Generator) -> Cell:
    """A cell drawn uniformly from ``cells``."""
    return cells[int(rng.integers(len(cells)))]
