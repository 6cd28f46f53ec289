"""Worker processes that play games under a memory limit and a time limit.

Why long-lived workers: starting Python and importing the libraries costs about a second, and an
experiment plays thousands of games, so each worker is one spawned Python that limits its own
address space (RLIMIT_AS) once at start and then plays game after game. The parent enforces the
time limit: it kills a worker that overruns and starts a fresh one. A worker that runs out of
memory either raises MemoryError (the game is reported as failed and the worker is replaced, since
a library may be left in a bad state) or dies outright, killed by the OS or by a C library that
aborts on a failed malloc (pysdd does); either way the game failed with reason "memory".

Peak memory per game in a long-lived worker: writing 5 to /proc/self/clear_refs resets the
process's high-water mark (VmHWM) on Linux, so reading VmHWM after the game gives that game's peak
resident memory (interpreter and libraries included). Where that fails, ru_maxrss gives the peak
over the worker's whole life, an upper bound.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import resource
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from importlib import import_module
from multiprocessing.connection import Connection, wait
from typing import Any

import numpy as np

from battlelog.errors import BattlelogError
from battlelog.game import GameConfig, Placement
from battlelog.harness import game_seeds, play_game
from battlelog.players import PLAYERS, Player, make_player

#: Outcome statuses; every status but OK is a failed game.
OK, MEMORY, TIMEOUT, ERROR = "ok", "memory", "timeout", "error"
STATUSES = (OK, MEMORY, TIMEOUT, ERROR)

#: Messages from a worker to the parent.
_READY, _UNFIT, _DONE = "ready", "unfit", "done"

_PR_SET_PDEATHSIG = 1

#: Marks the end of the task stream.
_END = object()


# ----- what a worker runs ------------------------------------------------------------------------
@dataclass(frozen=True)
class GameTask:
    """One game for a worker: who plays (a player spec and its options) on which board."""

    player: str
    options: dict[str, Any]
    config: GameConfig
    seed: int
    game: int
    layout: tuple[Placement, ...]


def player_factory(spec: str) -> Callable[..., Player]:
    """The callable that builds player ``spec`` from ``(seed, **options)``.

    ``spec`` is a registered name (``pdf``) or ``module:attribute`` naming your own Player class or
    factory; the module must be importable (on sys.path / PYTHONPATH) in the workers too. This keeps
    test-only and experimental players out of the production registry.
    """
    if spec in PLAYERS:
        return partial(make_player, spec)
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise BattlelogError(
            f"unknown player {spec!r}; choose from {', '.join(PLAYERS)} or give module:Class of your own player"
        )
    try:
        module = import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - the user's module may fail in any way while importing
        raise BattlelogError(f"player {spec!r}: cannot import {module_name!r} ({type(exc).__name__}: {exc})") from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise BattlelogError(f"player {spec!r}: module {module_name!r} has no class or function {attribute!r}")
    return factory


def play_task(task: GameTask) -> dict[str, Any]:
    """Play one game (in a worker): build the player for this game, play, close the player."""
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


# ----- memory ------------------------------------------------------------------------------------
def _status_kb(key: str) -> int | None:
    """A ``kB`` field of /proc/self/status (Linux), or None."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def reset_peak_memory() -> bool:
    """Reset this process's resident-memory high-water mark; False where the OS does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        return True
    except OSError:
        return False


def peak_memory_mb(since_reset: bool) -> float:
    """Peak resident memory in MB: since the last reset, or else over the process's life."""
    if since_reset:
        hwm = _status_kb("VmHWM")
        if hwm is not None:
            return round(hwm / 1024, 1)
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


# ----- the worker process ------------------------------------------------------------------------
def _die_with_parent() -> None:
    """Ask Linux to kill this worker when the parent dies, so a killed experiment leaves no orphans.

    Elsewhere a worker still exits, but only when it next reads its closed pipe (after its game).
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:  # the parent died before prctl
        os._exit(1)


def _limit_memory(limit: int) -> str | None:
    """Cap the address space at ``limit`` bytes; the reason if this worker cannot live under it."""
    used_kb = _status_kb("VmSize")
    if used_kb is not None and used_kb * 1024 >= limit:
        return (
            f"the memory limit of {limit / 2**20:.0f} MB is below the {used_kb / 1024:.0f} MB of address space "
            "a worker takes before playing (Python and its libraries)"
        )
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    return None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _run_job(job: Callable[[Any], Any], task: Any) -> tuple[str, Any, str | None, float, float]:
    """Run one task, catching its failure: (status, value, message, seconds, peak MB)."""
    exact = reset_peak_memory()
    start = time.perf_counter()
    try:
        value, status, message = job(task), OK, None
    except MemoryError as exc:
        value, status, message = None, MEMORY, _one_line(exc) + " (out of memory)"
    except Exception as exc:  # noqa: BLE001 - a failing game is recorded, and the experiment goes on
        value, status, message = None, ERROR, _one_line(exc)
    return status, value, message, time.perf_counter() - start, peak_memory_mb(exact)


def _serve(conn: Connection, job: Callable[[Any], Any], memory_limit: int | None) -> None:
    """A worker's life: set the limits, say it is ready, then run tasks until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with_parent()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # an abort under the memory limit must not dump GBs
    unfit = _limit_memory(memory_limit) if memory_limit is not None else None
    if unfit is not None:
        conn.send((_UNFIT, unfit))
        return
    conn.send((_READY, os.getpid()))
    while True:
        try:
            task = conn.recv()
        except EOFError:  # the parent is gone
            return
        if task is None:
            return
        conn.send((_DONE, _run_job(job, task)))


# ----- the pool (in the parent) ------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """What became of one task: its status, the job's value when OK, else a one-line message."""

    task: Any
    status: str
    value: Any = None
    message: str | None = None
    seconds: float = 0.0
    peak_mb: float | None = None


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    since: float = field(default_factory=time.monotonic)  # start of the process, then of its current task
    ready: bool = False
    task: Any = None

    @property
    def busy(self) -> bool:
        return self.task is not None


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


class WorkerPool:
    """Runs ``job(task)`` for many tasks in ``size`` long-lived worker processes, under limits.

    ``job`` must be a module-level function (workers are spawned, so it is imported there, along
    with whatever the tasks need). Results come back as :class:`Outcome` in completion order.
    """

    def __init__(
        self,
        job: Callable[[Any], Any],
        size: int,
        memory_limit: int | None = None,
        time_limit: float | None = None,
        start_timeout: float = 120.0,
    ) -> None:
        if size < 1:
            raise BattlelogError(f"the number of workers must be at least 1, got {size}")
        self.job = job
        self.size = size
        self.memory_limit = memory_limit
        self.time_limit = time_limit
        self.start_timeout = start_timeout
        self._context = multiprocessing.get_context("spawn")

    def run(self, tasks: Iterable[Any]) -> Iterator[Outcome]:
        """Run every task; stops and kills the workers on exit, also on Ctrl-C or an early ``break``.

        Tasks are drawn from ``tasks`` only as workers become free, so it may be a lazy generator.
        """
        source = iter(tasks)
        task = next(source, _END)  # the next task to hand out
        crew: list[_Worker | None] = [self._start() for _ in range(self.size)] if task is not _END else []
        try:
            while task is not _END or any(w.busy for w in crew if w):
                for worker in crew:
                    if task is not _END and worker and worker.ready and not worker.busy:
                        try:
                            worker.conn.send(task)
                        except OSError:  # it died while idle: _check replaces it, the task waits
                            continue
                        worker.task, worker.since = task, time.monotonic()
                        task = next(source, _END)
                live = [w for w in crew if w]
                wait([w.conn for w in live] + [w.process.sentinel for w in live], timeout=self._timeout(live))
                for i, worker in enumerate(crew):
                    if worker is None:
                        continue
                    outcome, replace = self._check(worker)
                    if replace:
                        self._kill(worker)
                        crew[i] = self._start() if task is not _END else None
                    if outcome is not None:
                        yield outcome
        finally:
            for worker in crew:
                if worker is not None:
                    self._stop(worker)

    # ----- internals ---------------------------------------------------------------------------
    def _start(self) -> _Worker:
        ours, theirs = self._context.Pipe()
        process = self._context.Process(
            target=_serve, args=(theirs, self.job, self.memory_limit), name="battlelog-worker", daemon=True
        )
        process.start()
        theirs.close()
        return _Worker(process, ours)

    def _timeout(self, crew: list[_Worker]) -> float | None:
        """Seconds until the earliest deadline (a game's time limit or a worker's start)."""
        now = time.monotonic()
        deadlines = [w.since + self.start_timeout for w in crew if not w.ready]
        if self.time_limit is not None:
            deadlines += [w.since + self.time_limit for w in crew if w.busy]
        return max(0.0, min(deadlines) - now) if deadlines else None

    def _check(self, worker: _Worker) -> tuple[Outcome | None, bool]:
        """Handle whatever happened to ``worker``: (an outcome if its task ended, replace it?)."""
        now = time.monotonic()
        message = None
        if worker.conn.poll():
            try:
                message = worker.conn.recv()
            except (EOFError, OSError):  # died; handled below
                message = None
        if message is not None:
            kind, payload = message
            if kind == _UNFIT:
                raise BattlelogError(payload)
            if kind == _READY:
                worker.ready = True
                return None, False
            status, value, text, seconds, peak = payload
            task, worker.task = worker.task, None
            return Outcome(task, status, value, text, seconds, peak), status == MEMORY
        if not worker.process.is_alive():
            worker.process.join()
            if not worker.ready:
                raise BattlelogError(
                    f"a worker process stopped before it was ready ({_exit_text(worker.process.exitcode)})"
                )
            if not worker.busy:
                return None, True
            task, worker.task = worker.task, None
            died = f"the worker process died ({_exit_text(worker.process.exitcode)}), most likely out of memory"
            return Outcome(task, MEMORY, message=died, seconds=now - worker.since), True
        if not worker.ready and now - worker.since > self.start_timeout:
            raise BattlelogError(f"a worker process did not start within {self.start_timeout:g} s")
        if worker.busy and self.time_limit is not None and now - worker.since >= self.time_limit:
            task, worker.task = worker.task, None
            text = f"no result within the time limit of {self.time_limit:g} s"
            return Outcome(task, TIMEOUT, message=text, seconds=now - worker.since), True
        return None, False

    @staticmethod
    def _stop(worker: _Worker) -> None:
        """Let an idle worker exit on its own; kill one that is busy, starting or stuck."""
        if worker.process.is_alive() and worker.ready and not worker.busy:
            try:
                worker.conn.send(None)
            except OSError:
                pass
            worker.process.join(timeout=5)
        WorkerPool._kill(worker)

    @staticmethod
    def _kill(worker: _Worker) -> None:
        """End a worker now: it overran, died, or may be in a bad state after a MemoryError."""
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join()
        worker.conn.close()


def available_cores() -> int:
    """The cores this process may run on (what --workers defaults to)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


__all__ = [
    "ERROR",
    "MEMORY",
    "OK",
    "STATUSES",
    "TIMEOUT",
    "GameTask",
    "Outcome",
    "WorkerPool",
    "available_cores",
    "peak_memory_mb",
    "play_task",
    "player_factory",
    "reset_peak_memory",
]
