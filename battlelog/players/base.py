"""The one interface every player implements, and the shared tie-breaking rule."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from battlelog.game import Cell, GameConfig
from battlelog.state import GameState

#: Scores within this relative distance of the best are ties (exact marginals of symmetric cells
#: can differ in the last bits of a float; those must not decide the shot).
TIE_TOLERANCE = 1e-12

#: What a player may be seeded with: an integer, a seed sequence, or a generator it then owns.
Seed = int | np.random.SeedSequence | np.random.Generator | None


class Player(ABC):
    """Chooses the next shot from what a player sees: the game state, never the hidden layout.

    Every random draw comes from ``self.rng``, built from the ``seed`` given at construction (or
    the generator itself when one is given), so a game is reproducible from its seed.
    """

    name: ClassVar[str]

    def __init__(self, seed: Seed = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def new_game(self, config: GameConfig) -> None:
        """A new game starts on ``config``: forget whatever belonged to the previous one."""

    def scores(self, state: GameState) -> np.ndarray | None:
        """The N x N values this player maximises when it chooses (NaN on shot cells), or None.

        A replay or an advisor shows them to say why the player shoots where it does.
        """
        return None

    @abstractmethod
    def choose(self, state: GameState) -> Cell:
        """The cell to shoot next; it must be on the board and not shot yet."""

    def close(self) -> None:
        """Release anything expensive the player holds (engines, caches)."""


class ScoringPlayer(Player):
    """A player that shoots the unshot cell with the highest score, ties broken by its generator."""

    @abstractmethod
    def scores(self, state: GameState) -> np.ndarray:
        """The N x N scores of this state (NaN on shot cells)."""

    def choose(self, state: GameState) -> Cell:
        values = self.scores(state)
        cells = state.unshot
        return pick_best(cells, [values[cell] for cell in cells], self.rng)


def pick_best(cells: Sequence[Cell], scores: Sequence[float], rng: np.random.Generator) -> Cell:
    """The highest-scoring cell, ties (within TIE_TOLERANCE) broken uniformly at random by ``rng``."""
    tied = best_cells(cells, scores)
    return tied[int(rng.integers(len(tied)))] if len(tied) > 1 else tied[0]


def best_cells(cells: Sequence[Cell], scores: Sequence[float]) -> list[Cell]:
    """The cells whose score ties for the best (within TIE_TOLERANCE), in the given order."""
    values = np.asarray(scores, dtype=float)
    best = values.max()
    return [cells[int(i)] for i in np.flatnonzero(values >= best - TIE_TOLERANCE * max(1.0, abs(best)))]


def pick_random(cells: Sequence[Cell], rng: np.random.Generator) -> Cell:
    """A cell drawn uniformly from ``cells``."""
    return cells[int(rng.integers(len(cells)))]


def masked(values: np.ndarray, state: GameState) -> np.ndarray:
    """``values`` as float scores with the shot cells set to NaN (not candidates)."""
    out = np.array(values, dtype=float)
    for cell in state.shot_cells:
        out[cell] = np.nan
    return out
