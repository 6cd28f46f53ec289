"""The game as a unit of work: a task any worker runs (a local process or a cluster node), and how it ended.

Everything that decides the game travels inside the task (player, options, board, seed, layout and
the engine's memory budget), so the same task gives the same game wherever it runs; a failure comes
back as a status with a one-line message, never as an exception that stops the experiment.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from battlelog.engines.budget import task_budget
from battlelog.engines.workspace import Workspace
from battlelog.players import make_player
from battlelog.players.spec import spec_name
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.hiders import Hider
from battlelog.rules.prior import UNIFORM
from battlelog.runner.beliefs import resolved_options
from battlelog.runner.loop import play_game
from battlelog.runner.procmem import megabytes, peak_bytes, reset_peak
from battlelog.runner.seeds import game_seeds

#: What became of a game; every status but OK is a failed game.
OK, MEMORY, TIMEOUT, ERROR = "ok", "memory", "timeout", "error"
STATUSES = (OK, MEMORY, TIMEOUT, ERROR)


@dataclass(frozen=True)
class GameTask:
    """One game for a worker: who plays (a player spec and its options) on which board, and with how
    much memory for the engine (bytes; None: the engine's own default); ``hider``: the prior (or
    distribution over layouts) the layout was drawn from (what ``belief=hider`` and ``belief=learn`` are resolved with)."""

    player: str
    options: dict[str, Any]
    config: GameConfig
    seed: int
    game: int
    layout: tuple[Placement, ...]
    budget: int | None = None
    hider: Hider = UNIFORM


@dataclass(frozen=True)
class TaskResult:
    """How a task ended: a status, the game (when OK) or a one-line message, seconds and peak memory (MB)."""

    status: str
    value: dict[str, Any] | None = None
    message: str | None = None
    seconds: float = 0.0
    peak_mb: float | None = None


@dataclass(frozen=True)
class Outcome:
    """What became of one task, and why it was played a second time if it was (else None)."""

    task: GameTask
    result: TaskResult
    retried: str | None = None


def play_task(task: GameTask, workspace: Workspace | None = None) -> dict[str, Any]:
    """Play one game under the task's engine budget: build the player for this game, play, close the player.

    ``workspace``: the worker's, kept across the games it plays (None: the player's own, for this game).
    """
    with task_budget(task.budget):
        options = resolved_options(task.options, task.config, task.seed, task.game, task.hider, workspace)
        player = make_player(spec_name(task.player), game_seeds(task.seed, task.game)[1], **options)
        if workspace is not None:
            player.use(workspace)
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


def run_task(task: GameTask, measure_peak: bool = True, workspace: Workspace | None = None) -> TaskResult:
    """Play the task's game, turning any failure into a status (the experiment goes on).

    ``measure_peak``: reset and read this process's memory high-water mark around the game (only
    meaningful when no other game runs in the same process at the same time). ``workspace``: as
    :func:`play_task` takes it.
    """
    exact = reset_peak() if measure_peak else False
    start = time.perf_counter()
    try:
        value, status, message = play_task(task, workspace), OK, None
    except MemoryError as exc:
        value, status, message = None, MEMORY, one_line(exc) + " (out of memory)"
    except SystemExit as exc:  # sys.exit() in a player ends the game, not the worker
        value, status, message = None, ERROR, f"the game's code exited with status {exit_status(exc)}"
    except Exception as exc:  # noqa: BLE001 - a failing game is recorded, and the experiment goes on
        value, status, message = None, ERROR, one_line(exc)
    seconds = time.perf_counter() - start
    return TaskResult(status, value, message, seconds, megabytes(peak_bytes(exact)) if measure_peak else None)
