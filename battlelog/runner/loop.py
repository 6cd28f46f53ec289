"""One game: a referee with a hidden layout, a player, and the loop between them.

The loop is a small pure function (as OpenSpiel's harness is): the player sees only the state, the
referee alone holds the layout, and every random draw belongs to the player's own generator.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from battlelog.errors import ShotError
from battlelog.players.base import Player
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, Placement, cell_name
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState


@dataclass
class GameResult:
    """The finished game: every shot with its answer, the score and how long each move took (under
    salvo a move is the choice of a whole volley)."""

    state: GameState
    move_seconds: list[float] = field(default_factory=list)

    @property
    def score(self) -> int:
        """Number of shots fired, or under salvo of volleys (lower is better)."""
        return self.state.volleys if self.state.config.rules.is_salvo else len(self.state.shots)

    @property
    def seconds(self) -> float:
        return float(sum(self.move_seconds))


def chosen_cell(choice: object, config: GameConfig) -> Cell:
    """A player's choice as a cell of two Python ints, or a :class:`ShotError` naming what is wrong.

    Players may answer with numpy integers (``np.unravel_index`` does); the game's record must hold
    plain ints, or it could not be written as JSON. A choice that is not two whole numbers on the
    board is the player's error: that game fails, the experiment goes on.
    """
    try:
        row, col = cast(Iterable[Any], choice)
        cell = (operator.index(row), operator.index(col))
    except (TypeError, ValueError):
        text = " ".join(repr(choice).split())
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise ShotError(f"the player chose {shown}, not a cell (two whole numbers: row, column)") from None
    if not (0 <= cell[0] < config.rows and 0 <= cell[1] < config.cols):
        raise ShotError(f"the player chose row {cell[0]}, column {cell[1]}: off the {config.shape} board")
    return cell


def play_game(
    config: GameConfig,
    layout: tuple[Placement, ...],
    player: Player,
    on_shot: Callable[[GameState], None] | None = None,
) -> GameResult:
    """Let ``player`` shoot at ``layout`` until every ship is sunk (under salvo: volley by volley)."""
    referee = Referee(config, layout)
    player.new_game(config)
    state = GameState.empty(config)
    result = GameResult(state)
    if config.rules.is_salvo:
        return _play_volleys(referee, player, result, on_shot)
    while not referee.over:
        start = time.perf_counter()
        choice = player.choose(state)
        result.move_seconds.append(time.perf_counter() - start)
        row, col = chosen_cell(choice, config)
        if (row, col) in state.shot_cells:
            raise ShotError(f"the player shot {cell_name((row, col))} twice")
        answer, ship = referee.shoot(row, col)
        state = state.with_shot(row, col, answer, ship)
        result.state = state
        if on_shot is not None:
            on_shot(state)
    return result


def chosen_volley(choice: object, state: GameState, k: int) -> list[Cell]:
    """A player's volley as ``k`` distinct unshot cells, or a :class:`ShotError` naming what is wrong."""
    try:
        cells = [chosen_cell(cell, state.config) for cell in cast(Iterable[Any], choice)]
    except TypeError:
        raise ShotError(f"the player chose a volley that is not a list of cells: {' '.join(repr(choice).split())[:60]}") from None
    if len(cells) != k:
        raise ShotError(f"the player chose a volley of {len(cells)} cells, not {k}")
    for i, cell in enumerate(cells):
        if cell in state.shot_cells or cell in cells[:i]:
            raise ShotError(f"the player shot {cell_name(cell)} twice")
    return cells


def _play_volleys(
    referee: Referee, player: Player, result: GameResult, on_shot: Callable[[GameState], None] | None
) -> GameResult:
    """The salvo game: each volley chosen whole (k cells from the rules and the sinks so far), then
    answered shot by shot; a volley stops at the last sink (its other shots are not fired)."""
    state = result.state
    while not referee.over:
        volley, k = state.next_volley()
        start = time.perf_counter()
        choice = player.choose_volley(state, k)
        result.move_seconds.append(time.perf_counter() - start)
        for row, col in chosen_volley(choice, state, k):
            answer, ship = referee.shoot(row, col)
            state = state.with_shot(row, col, answer, ship, volley)
            result.state = state
            if on_shot is not None:
                on_shot(state)
            if referee.over:
                break
    return result
