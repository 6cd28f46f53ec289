"""What a dask worker runs for battlelog: one game under a watchdog, announced to the client as it starts.

Only this module's functions travel to the workers (by reference: the workers import battlelog);
the client's side, and its verdicts on lost games, is :mod:`battlelog.runner.executors.dask_cluster`.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

from battlelog.engines.workspace import Workspace
from battlelog.runner.task import GameTask, TaskResult, run_task

#: The event a worker logs as it starts a game: {"key": task key, "worker": worker address}.
START_TOPIC = "battlelog-game-start"
#: Seconds past the time limit after which a worker still playing the game kills its own process.
KILL_GRACE = 2.0


def _kill_this_process() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _workspace(worker: Any) -> Workspace:
    """The workspace of the worker thread running this game, kept on the worker across the games the
    thread plays: one per thread, since an engine serves one game at a time (it goes with its thread)."""
    mine = worker.__dict__.setdefault("battlelog_workspaces", threading.local())
    if not hasattr(mine, "workspace"):
        mine.workspace = Workspace()
    workspace: Workspace = mine.workspace
    return workspace


def play_on_worker(task: GameTask, time_limit: float | None) -> TaskResult:
    """Play one game on a dask worker: announce it, play it under a watchdog, return how it ended.

    Peak memory is measured only when the worker runs one game at a time (one thread): threads
    share a process, and so its high-water mark.
    """
    from distributed import get_worker

    worker = get_worker()
    threads = worker.state.nthreads
    worker.log_event(START_TOPIC, {"key": str(worker.get_current_task()), "worker": worker.address, "threads": threads})
    watchdog = None
    if time_limit is not None:
        watchdog = threading.Timer(time_limit + KILL_GRACE, _kill_this_process)
        watchdog.daemon = True
        watchdog.start()
    try:
        return run_task(task, measure_peak=threads == 1, workspace=_workspace(worker))
    finally:
        if watchdog is not None:
            watchdog.cancel()


def battlelog_version() -> str:
    """The battlelog version a worker runs (it must import battlelog to answer at all)."""
    from battlelog import __version__

    return __version__


__all__ = ["KILL_GRACE", "START_TOPIC", "battlelog_version", "play_on_worker"]
