"""The local executor: long-lived worker processes on this machine, each under a memory limit.

Why long-lived workers: starting Python and importing the libraries costs about a second, and an
experiment plays thousands of games, so each worker is one spawned Python that limits its own
address space (RLIMIT_AS) once at start and then plays game after game. The parent enforces the
time limit: it kills a worker that overruns and starts a fresh one. A worker that runs out of
memory under its address-space limit raises MemoryError (the game is reported as failed and the
worker is replaced, since a library may be left in a bad state) or dies of SIGABRT (a C library that
aborts on a failed malloc: pysdd does); either way the game failed with reason "memory". A worker
killed by SIGKILL was killed for memory only if the kernel's OOM killer counted a kill in this
cgroup meanwhile (:func:`battlelog.runner.procmem.oom_kills`): then "memory" too. Without that
trace it was killed from outside (``kill -9``, an administrator): the game is played again once by
a fresh worker and its record says why (``retried``), as the dask executor does with a lost worker;
killed a second time, it is an "error". A worker that exits by itself (``os._exit`` in a player) or
dies of another signal is an "error" naming its exit status or signal. Peak memory per game is the worker's high-water mark,
reset before each game (:mod:`battlelog.runner.procmem`).
"""

from __future__ import annotations

import itertools
import multiprocessing
import signal
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from battlelog.errors import BattlelogError
from battlelog.runner.executors import Limits
from battlelog.runner.executors.base import Executor
from battlelog.runner.executors.local_worker import READY, UNFIT, serve
from battlelog.runner.procmem import oom_kills
from battlelog.runner.task import ERROR, MEMORY, TIMEOUT, GameTask, Outcome, TaskResult

#: The longest single wait for a worker message (long time limits must not overflow poll()).
_MAX_WAIT = 3600.0

#: Marks the end of the task stream.
_END = object()


# ----- the pool (in the parent) ------------------------------------------------------------------
@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    since: float = field(default_factory=time.monotonic)  # start of the process, then of its current game
    ready: bool = False
    task: GameTask | None = None
    retried: str | None = None  # why its task is played a second time, else None
    oom_before: int | None = None  # the cgroup's OOM kill count when its game started

    @property
    def busy(self) -> bool:
        return self.task is not None


def _exit_text(code: int | None) -> str:
    """How a process ended, from its exit code: ``exit status 3`` or ``killed by SIGKILL``."""
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def death_status(code: int | None, oom_killed: bool = False) -> tuple[str | None, str]:
    """(status, message) of a game whose worker process ended with exit code ``code`` while playing it;
    status None when it was killed with no trace of a lack of memory (the game is played again once).

    ``oom_killed``: the kernel's OOM killer counted a kill in this cgroup while the game ran.
    """
    if code == -signal.SIGABRT:
        return MEMORY, f"the worker process was {_exit_text(code)}, most likely out of memory"
    if code == -signal.SIGKILL:
        if oom_killed:
            return MEMORY, f"the worker process was {_exit_text(code)} by the kernel's out-of-memory killer"
        return None, f"the worker process was {_exit_text(code)} with no trace of a lack of memory"
    if code is not None and code < 0:
        return ERROR, f"the worker process was {_exit_text(code)}"
    return ERROR, f"the worker process exited by itself with status {code}"


class WorkerPool:
    """``size`` long-lived worker processes that play game tasks under a memory and a time limit.

    Start it once and run many task streams through it; outcomes come back in completion order.
    """

    def __init__(
        self, size: int, memory_limit: int | None = None, time_limit: float | None = None, start_timeout: float = 120.0
    ) -> None:
        if size < 1:
            raise BattlelogError(f"the number of workers must be at least 1, got {size}")
        self.size = size
        self.memory_limit = memory_limit
        self.time_limit = time_limit
        self.start_timeout = start_timeout
        self._context = multiprocessing.get_context("spawn")
        self._crew: list[_Worker | None] = [None] * size
        self._replays: deque[tuple[GameTask, str]] = deque()  # games to play again, and why

    def start(self, count: int | None = None) -> None:
        """Start the missing workers among the first ``count`` (all by default) and wait until every one
        is ready (or refuses the memory limit)."""
        wanted = self.size if count is None else min(count, self.size)
        self._crew = [slot or (self._spawn() if i < wanted else None) for i, slot in enumerate(self._crew)]
        while not all(w.ready for w in self._live()):
            self._wait(self._live())
            for worker in self._live():
                self._check(worker)

    def run(self, tasks: Iterable[GameTask]) -> Iterator[Outcome]:
        """Play every task; on Ctrl-C or an early ``break`` the games in progress are abandoned (their workers killed).

        Tasks are drawn from ``tasks`` only as workers become free, so it may be a lazy generator.
        """
        source = iter(tasks)
        ahead = list(itertools.islice(source, self.size))  # no more workers than games to play
        if not ahead:
            return
        source = itertools.chain(ahead, source)
        task: Any = next(source)  # the next task to hand out
        self.start(len(ahead))
        self._replays.clear()
        finished = False
        try:
            while task is not _END or self._replays or any(w.busy for w in self._live()):
                for worker in self._live():
                    if (task is not _END or self._replays) and worker.ready and not worker.busy:
                        given, why = self._replays[0] if self._replays else (task, None)
                        try:
                            worker.conn.send(given)
                        except OSError:  # it died while idle: _check replaces it, the task waits
                            continue
                        worker.task, worker.retried, worker.since, worker.oom_before = given, why, time.monotonic(), oom_kills()
                        if why is None:
                            task = next(source, _END)
                        else:
                            self._replays.popleft()
                self._wait(self._live())
                for i, slot in enumerate(self._crew):
                    if slot is None:
                        continue
                    outcome, replace = self._check(slot)
                    if replace:
                        self._kill(slot)
                        self._crew[i] = self._spawn() if task is not _END or self._replays else None
                    if outcome is not None:
                        yield outcome
            finished = True
        finally:
            if not finished:  # abandoned: a busy worker is mid-game, and only killing it stops the game
                for i, slot in enumerate(self._crew):
                    if slot is not None and (slot.busy or not slot.ready):
                        self._kill(slot)
                        self._crew[i] = None

    def close(self) -> None:
        """Let idle workers exit on their own; kill any that is busy, starting or stuck."""
        for worker in self._live():
            if worker.process.is_alive() and worker.ready and not worker.busy:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
                worker.process.join(timeout=5)
            self._kill(worker)
        self._crew = [None] * self.size

    # ----- internals ---------------------------------------------------------------------------
    def _live(self) -> list[_Worker]:
        return [w for w in self._crew if w is not None]

    def _spawn(self) -> _Worker:
        ours, theirs = self._context.Pipe()
        process = self._context.Process(target=serve, args=(theirs, self.memory_limit), name="battlelog-worker", daemon=True)
        process.start()
        theirs.close()
        return _Worker(process, ours)

    def _wait(self, crew: list[_Worker]) -> None:
        """Until a worker says something or dies, or the earliest deadline (a game's time limit or a worker's start)."""
        now = time.monotonic()
        deadlines = [w.since + self.start_timeout for w in crew if not w.ready]
        if self.time_limit is not None:
            deadlines += [w.since + self.time_limit for w in crew if w.busy]
        timeout = min(_MAX_WAIT, max(0.0, min(deadlines) - now)) if deadlines else _MAX_WAIT
        wait([w.conn for w in crew] + [w.process.sentinel for w in crew], timeout=timeout)

    def _check(self, worker: _Worker) -> tuple[Outcome | None, bool]:
        """Handle whatever happened to ``worker``: (an outcome if its game ended, replace it?)."""
        now = time.monotonic()
        message = None
        if worker.conn.poll():
            try:
                message = worker.conn.recv()
            except (EOFError, OSError):  # died; handled below
                message = None
        if message is not None:
            kind, payload = message
            if kind == UNFIT:
                raise BattlelogError(payload)
            if kind == READY:
                worker.ready = True
                return None, False
            task, worker.task = worker.task, None
            assert task is not None
            return Outcome(task, payload, worker.retried), payload.status == MEMORY
        if not worker.process.is_alive():
            worker.process.join()
            code = worker.process.exitcode
            if not worker.ready:
                raise BattlelogError(f"a worker process stopped before it was ready ({_exit_text(code)})")
            if worker.task is None:
                return None, True
            task, worker.task = worker.task, None
            status, text = death_status(code, self._oom_since(worker))
            text += " while playing"
            if status is None and worker.retried is None:
                self._replays.append((task, f"{text}; played again by a fresh worker"))
                return None, True
            if status is None:
                status, text = ERROR, f"{text}, a second time: not played a third time"
            return Outcome(task, TaskResult(status, message=text, seconds=now - worker.since), worker.retried), True
        if not worker.ready and now - worker.since > self.start_timeout:
            raise BattlelogError(f"a worker process did not start within {self.start_timeout:g} s")
        if worker.task is not None and self.time_limit is not None and now - worker.since >= self.time_limit:
            task, worker.task = worker.task, None
            text = f"no result within the time limit of {self.time_limit:g} s"
            return Outcome(task, TaskResult(TIMEOUT, message=text, seconds=now - worker.since), worker.retried), True
        return None, False

    @staticmethod
    def _oom_since(worker: _Worker) -> bool:
        """Whether the kernel's OOM killer killed something in this cgroup since ``worker``'s game started."""
        now = oom_kills()
        return worker.oom_before is not None and now is not None and now > worker.oom_before

    @staticmethod
    def _kill(worker: _Worker) -> None:
        """End a worker now: it overran, died, or may be in a bad state after a MemoryError."""
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join()
        worker.conn.close()


class LocalExecutor(Executor):
    """``limits.workers`` processes on this machine, each under ``limits.memory_bytes`` of address space."""

    def __init__(self, limits: Limits) -> None:
        super().__init__(limits)
        self._pool = WorkerPool(limits.workers, limits.memory_bytes, limits.time_seconds)

    def start(self, count: int | None = None) -> None:
        self._pool.start(count)

    def run(self, tasks: Iterable[GameTask]) -> Iterator[Outcome]:
        return self._pool.run(tasks)

    def close(self) -> None:
        self._pool.close()

    def describe(self) -> str:
        count = self.limits.workers
        return f"{count} local worker process{'es' if count > 1 else ''}"


__all__ = ["LocalExecutor", "WorkerPool", "death_status"]
