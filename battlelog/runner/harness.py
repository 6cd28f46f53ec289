"""Play one game: a referee with a hidden layout, a player, and the loop between them.

Also the game as a unit of work (:class:`GameTask`) that any worker, a local process or a cluster
node, can run with :func:`run_task`: everything that decides the game travels inside the task
(player, options, board, seed, layout and the engine's memory budget), so the same task gives the
same game wherever it runs, and a failure comes back as a status with a one-line message.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from importlib import import_module
from typing import Any

import numpy as np

from battlelog.engines.budget import task_budget
from battlelog.errors import BattlelogError
from battlelog.players import PLAYERS, make_player
from battlelog.players.base import Player
from battlelog.rules.game import GameConfig, Placement, Referee, cell_name, sample_layout
from battlelog.rules.state import GameState
from battlelog.runner.procmem import megabytes, peak_bytes, reset_peak

#: What became of a game; every status but OK is a failed game.
OK, MEMORY, TIMEOUT, ERROR = "ok", "memory", "timeout", "error"
STATUSES = (OK, MEMORY, TIMEOUT, ERROR)


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


# ----- the game as a task for a worker -----------------------------------------------------------
@dataclass(frozen=True)
class GameTask:
    """One game for a worker: who plays (a player spec and its options) on which board, and with how
    much memory for the engine (bytes; None: the engine's own default)."""

    player: str
    options: dict[str, Any]
    config: GameConfig
    seed: int
    game: int
    layout: tuple[Placement, ...]
    budget: int | None = None


@dataclass(frozen=True)
class TaskResult:
    """How a task ended: a status, the game (when OK) or a one-line message, seconds and peak memory (MB)."""

    status: str
    value: dict[str, Any] | None = None
    message: str | None = None
    seconds: float = 0.0
    peak_mb: float | None = None


def player_factory(spec: str) -> Callable[..., Player]:
    """The callable that builds player ``spec`` (see :func:`player_class`) from ``(seed, **options)``."""
    return partial(make_player, spec) if spec in PLAYERS else player_class(spec)


def player_class(spec: str) -> type[Player]:
    """The Player subclass ``spec`` names.

    ``spec`` is a registered name (``pdf``) or ``module:Class`` naming your own Player subclass; the
    module must be importable (on sys.path / PYTHONPATH) in the workers too. This keeps test-only
    and experimental players out of the production registry. Anything else is a one-line error
    here, before any game is played.
    """
    if spec in PLAYERS:
        return PLAYERS[spec]
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise BattlelogError(
            f"unknown player {spec!r}; choose from {', '.join(PLAYERS)} or give module:Class of your own player"
        )
    try:
        module = import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - the user's module may fail in any way while importing
        raise BattlelogError(f"player {spec!r}: cannot import {module_name!r} ({type(exc).__name__}: {exc})") from None
    cls = getattr(module, attribute, None)
    if cls is None:
        raise BattlelogError(f"player {spec!r}: module {module_name!r} has no class or function {attribute!r}")
    if not (isinstance(cls, type) and issubclass(cls, Player)):
        raise BattlelogError(f"player {spec!r}: {attribute} is not a Player subclass (see battlelog.players.base)")
    if inspect.isabstract(cls):
        raise BattlelogError(f"player {spec!r}: {attribute} is abstract (it does not implement choose)")
    return cls


def play_task(task: GameTask) -> dict[str, Any]:
    """Play one game under the task's engine budget: build the player for this game, play, close the player."""
    with task_budget(task.budget):
        player = player_factory(task.player)(game_seeds(task.seed, task.game)[1], **task.options)
        try:
            result = play_game(task.config, task.layout, player)
        finally:
            player.close()
    return {
        "score": result.score,
        "shots": [shot.to_json() for shot in result.state.shots],
        "seconds": result.seconds,
        "move_median_s": float(np.median(result.move_seconds)),
        "move_max_s": float(max(result.move_seconds)),
    }


def one_line(exc: BaseException) -> str:
    """``Type: message`` on one line, as game records store errors."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def exit_status(exc: SystemExit) -> int:
    """The status a process would exit with for ``exc``, as Python decides it (None 0, a message 1)."""
    if exc.code is None:
        return 0
    return exc.code if isinstance(exc.code, int) else 1


def run_task(task: GameTask, measure_peak: bool = True) -> TaskResult:
    """Play the task's game, turning any failure into a status (the experiment goes on).

    ``measure_peak``: reset and read this process's memory high-water mark around the game (only
    meaningful when no other game runs in the same process at the same time).
    """
    exact = reset_peak() if measure_peak else False
    start = time.perf_counter()
    try:
        value, status, message = play_task(task), OK, None
    except MemoryError as exc:
        value, status, message = None, MEMORY, one_line(exc) + " (out of memory)"
    except SystemExit as exc:  # sys.exit() in a player ends the game, not the worker
        value, status, message = None, ERROR, f"the game's code exited with status {exit_status(exc)}"
    except Exception as exc:  # noqa: BLE001 - a failing game is recorded, and the experiment goes on
        value, status, message = None, ERROR, one_line(exc)
    seconds = time.perf_counter() - start
    return TaskResult(status, value, message, seconds, megabytes(peak_bytes(exact)) if measure_peak else None)
