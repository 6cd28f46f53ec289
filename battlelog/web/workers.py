"""Engine calls in worker processes, so that the event loop never waits for the interpreter lock.

The engine's sweep is Python between its native steps: run on threads, it shares the lock with the
event loop, and 50 clients wait on one another's sweeps. :class:`ProcessPool` runs a call in one of a
few worker processes (started with ``spawn``, once, on first use), each with its own
:class:`Workspace` (engines, recent states, the empty boards on disk). A call is a module-level
function ``fn(workspace, *args)`` whose arguments and answer are sent between processes (plain data).

Progress and cancel cross the processes through a shared array of slots, call ``n`` in slot ``n %
SLOTS`` (far more slots than calls can run at once): the call running there, the fraction done, and
the call to cancel. The engine's progress listener (in the worker)
writes the fraction and raises :class:`Cancelled` at its next report once the slot names its call;
the awaiting coroutine copies the fraction to the request's :class:`Job` and marks the cancel.
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any, TypeVar

from battlelog.engines import progress
from battlelog.engines.workspace import Workspace
from battlelog.web.jobs import Cancelled, Job
from battlelog.web.requests import WebError

Result = TypeVar("Result")

#: A slot: the call running in it (0: none), the fraction done (< 0: unknown), the call to cancel.
_FIELDS = 3
#: How many slots (a call uses slot ``call % SLOTS``).
SLOTS = 1 << 14
#: How often (seconds) a watched call's progress is read and its cancel passed on.
POLL = 0.05

# ----- in the worker process ----------------------------------------------------------------------
class _Worker:
    """This worker process's shared slots and workspace (set by :func:`_start`)."""

    slots: Any = None
    workspace: Workspace | None = None


def _start(slots: Any) -> None:
    """A worker's initializer: keep the slots, make the workspace."""
    _Worker.slots, _Worker.workspace = slots, Workspace()


def _listen(call: int, what: str, fraction: float | None) -> None:
    base = call % SLOTS * _FIELDS
    if _Worker.slots[base + 2] == call:
        raise Cancelled
    _Worker.slots[base + 1] = -1.0 if fraction is None else fraction


def _run(call: int, fn: Callable[..., Result], args: tuple[Any, ...]) -> Result:
    slots, base = _Worker.slots, call % SLOTS * _FIELDS
    slots[base + 1] = -1.0
    slots[base] = call
    try:
        with progress.listening(partial(_listen, call)):
            return fn(_Worker.workspace, *args)
    finally:
        slots[base] = 0


# ----- in the server ------------------------------------------------------------------------------
class ProcessPool:
    """``workers`` processes; :meth:`call` awaits ``fn(workspace, *args)`` on one of them."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._context = multiprocessing.get_context("spawn")  # no fork of a threaded server
        self._slots = self._context.RawArray("d", _FIELDS * SLOTS)
        self._pool: ProcessPoolExecutor | None = None
        self._calls = itertools.count(1)
        #: Calls submitted and not finished (read on the event loop).
        self.running = 0

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=self._context, initializer=_start, initargs=(self._slots,))
        return self._pool

    def start(self) -> None:
        """Start the workers now (they import the engine and load its kernel: a second or two)."""
        pool = self._executor()
        for _ in range(self.workers):
            pool.submit(int)

    def _slot_of(self, call: int) -> int | None:
        """The start of ``call``'s slot while it runs, else None."""
        base = call % SLOTS * _FIELDS
        return base if self._slots[base] == call else None

    async def call(self, fn: Callable[..., Result], *args: Any, job: Job | None = None) -> Result:
        """``fn(workspace, *args)`` in a worker; with a ``job``, its progress is copied to the job and the
        job's cancel stops the call at the engine's next report (:class:`Cancelled`)."""
        call = next(self._calls)
        try:
            submitted = self._executor().submit(_run, call, fn, args)
        except (BrokenProcessPool, RuntimeError):
            self._pool = None  # a worker died (killed, out of memory): start afresh
            submitted = self._executor().submit(_run, call, fn, args)
        waiting = asyncio.wrap_future(submitted)
        self.running += 1
        try:
            while job is not None and not waiting.done():
                await asyncio.wait({waiting}, timeout=POLL)
                base = self._slot_of(call)
                if job.cancelled:
                    if submitted.cancel():
                        raise Cancelled
                    if base is not None:
                        self._slots[base + 2] = call
                elif base is not None:
                    fraction = self._slots[base + 1]
                    job.fraction = None if fraction < 0 else fraction
            try:
                return await waiting
            except BrokenProcessPool:
                self._pool = None
                raise WebError("the engine's worker process died (out of memory?): try again", 503, retry_after=1) from None
        finally:
            self.running -= 1

    def close(self) -> None:
        """Stop the workers (a running call finishes first)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
