"""One game: a referee with a hidden layout, a player, and the loop between them.

The loop is a small pure function (as OpenSpiel's harness is): the player sees only the state, the
referee alone holds the layout, and every random draw belongs to the player's own generator.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from battlelog.players.base import Player
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement, cell_name
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState


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
