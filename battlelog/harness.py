"""Play one game: a referee with a hidden layout, a player, and the loop between them."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from battlelog.game import GameConfig, Placement, Referee, cell_name, sample_layout
from battlelog.players.base import Player
from battlelog.state import GameState


@dataclass
class GameResult:
    """The finished game: every shot with its answer, the score and how long each move took."""

    state: GameState
    move_seconds: list[float] = field(default_factory=list)

    @property
    def score(self) -> int:
        """Number of shots fired (lower is better)."""
        return len(self.state.shots)

    @property
    def seconds(self) -> float:
        return float(sum(self.move_seconds))


def game_seeds(seed: int, game: int) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """Independent seed streams for game ``game`` of an experiment: (layout, player).

    The layout stream depends only on the root seed and the game index, so every player of an
    experiment meets the same boards (paired comparisons).
    """
    return (
        np.random.SeedSequence(seed, spawn_key=(game, 0)),
        np.random.SeedSequence(seed, spawn_key=(game, 1)),
    )


def layout_for(config: GameConfig, seed: int, game: int) -> tuple[Placement, ...]:
    """The hidden layout of game ``game`` under root ``seed``: uniform over all valid layouts."""
    return sample_layout(config, np.random.default_rng(game_seeds(seed, game)[0]))


def play_game(
    config: GameConfig,
    layout: tuple[Placement, ...],
    player: Player,
    on_shot: Callable[[GameState], None] | None = None,
) -> GameResult:
    """Let ``player`` shoot at ``layout`` until every ship is sunk."""
    referee = Referee(config, layout)
    player.new_game(config)
    state = GameState.empty(config)
    result = GameResult(state)
    while not referee.over:
        start = time.perf_counter()
        row, col = player.choose(state)
        result.move_seconds.append(time.perf_counter() - start)
        if (row, col) in state.shot_cells:
            raise RuntimeError(f"player {player.name} shot {cell_name((row, col))} twice")
        answer, ship = referee.shoot(row, col)
        state = state.with_shot(row, col, answer, ship)
        result.state = state
        if on_shot is not None:
            on_shot(state)
    return result
