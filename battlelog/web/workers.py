"""Engine calls in worker processes, so that the event loop never waits for the interpreter lock.

The engine's sweep is Python between its native steps: run on threads, it shares the lock with the
event loop, and 50 clients wait on one another's sweeps. :class:`ProcessPool` runs a call in one of a
few worker processes (started with ``spawn``, on first use), each with its own :class:`Workspace`
(engines, recent states, the empty boards on disk). A call is a module-level function
``fn(workspace, *args)`` whose arguments and answer are sent between processes (plain data).

Each worker has a pipe of its own, which the event loop writes a call to (pickled) and watches for its
answer (``add_reader``): no thread in the server stands between them, so a call costs the server its
pickling, two writes and a read, not the hand-offs of ``concurrent.futures``' two threads (docs/web.md,
"Load"). Calls wait in the server, in order, for a free worker. A worker that dies fails the call it
was running (503) and is replaced; one that died idle is replaced before it is sent a call.

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
import pickle
import signal
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection
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


def _answer(message: bytes) -> bytes:
    """The pickled answer to one pickled call ``(call, fn, args)``: ``(True, value)``, or ``(False,
    exception)``; an answer that cannot be pickled is sent as a RuntimeError naming what it was."""
    try:
        call, fn, args = pickle.loads(message)
        answer: tuple[bool, Any] = (True, _run(call, fn, args))
    except Exception as exc:  # noqa: BLE001 - every failure goes back to the caller, which answers it
        answer = (False, exc)
    try:
        return pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001
        what = type(answer[1]).__name__
        return pickle.dumps((False, RuntimeError(f"{what}: {answer[1]}" if not answer[0] else f"a {what} answer")))


def _serve(connection: Connection, slots: Any) -> None:
    """A worker process: answer the calls its pipe brings, one at a time, until the server closes it
    (an empty message, or the pipe's end). Ctrl-C is the server's to handle: the worker ignores it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _start(slots)
    while True:
        try:
            message = connection.recv_bytes()
        except EOFError:
            return
        if not message:
            return
        try:
            connection.send_bytes(_answer(message))
        except OSError:  # the server has gone: nobody to answer
            return


# ----- in the server ------------------------------------------------------------------------------
def died() -> WebError:
    """A call's worker process died (killed, out of memory): 503, try again."""
    return WebError("the engine's worker process died (out of memory?): try again", 503, retry_after=1)


@dataclass(eq=False)
class _Call:
    """A call waiting for a worker or running in one: its number, its pickled message, its answer."""

    number: int
    message: bytes
    answer: asyncio.Future[Any]


class _Process:
    """One worker process and the server's end of its pipe; ``call``: the call it runs, if any."""

    def __init__(self, context: Any, slots: Any) -> None:
        ours, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, slots), name="battlelog-worker", daemon=True)
        self.process.start()
        theirs.close()  # the worker's end lives in the worker only: its death is the pipe's end here
        self.connection: Connection = ours
        self.call: _Call | None = None

    def stop(self) -> None:
        """Ask the worker to stop once its call (if any) is done, and wait for it."""
        try:
            self.connection.send_bytes(b"")
        except OSError:
            pass  # dead already
        self.process.join(timeout=60)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


class ProcessPool:
    """``workers`` processes; :meth:`call` awaits ``fn(workspace, *args)`` on one of them."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._context = multiprocessing.get_context("spawn")  # no fork of a threaded server
        self._slots = self._context.RawArray("d", _FIELDS * SLOTS)
        #: The worker processes, None until they are started (on first use).
        self._pool: list[_Process] | None = None
        self._waiting: deque[_Call] = deque()
        self._calls = itertools.count(1)
        #: Calls submitted and not finished (read on the event loop).
        self.running = 0

    def _processes(self) -> list[_Process]:
        if self._pool is None:
            self._pool = [_Process(self._context, self._slots) for _ in range(self.workers)]
        return self._pool

    def start(self) -> None:
        """Start the workers now (they import the engine and load its kernel: a second or two)."""
        self._processes()

    def _slot_of(self, call: int) -> int | None:
        """The start of ``call``'s slot while it runs, else None."""
        base = call % SLOTS * _FIELDS
        return base if self._slots[base] == call else None

    def _dispatch(self) -> None:
        """Send the waiting calls, in order, to the free workers (a worker found dead is replaced first)."""
        processes = self._processes()
        for k, worker in enumerate(processes):
            while worker.call is None and self._waiting:
                call = self._waiting.popleft()
                if not self._send(worker, call):  # the worker died while idle: a new one takes the call
                    worker.connection.close()
                    worker = processes[k] = _Process(self._context, self._slots)
                    if not self._send(worker, call):  # and dies at once: give up this call, not the server
                        self._settle(call, False, died())

    def _send(self, worker: _Process, call: _Call) -> bool:
        """Hand ``call`` to ``worker`` and watch its pipe for the answer; False when its pipe is broken."""
        try:
            worker.connection.send_bytes(call.message)
        except OSError:
            return False
        worker.call = call
        call.answer.get_loop().add_reader(worker.connection.fileno(), self._answered, worker)
        return True

    def _answered(self, worker: _Process) -> None:
        """``worker``'s pipe is readable: its call's answer, or its end (it died: 503, and a new one)."""
        call, worker.call = worker.call, None
        assert call is not None
        call.answer.get_loop().remove_reader(worker.connection.fileno())
        try:
            message = worker.connection.recv_bytes()
        except (EOFError, OSError):
            self._replace(worker)
            self._settle(call, False, died())
        else:
            try:
                ok, value = pickle.loads(message)
            except Exception as exc:  # noqa: BLE001 - e.g. an exception whose class cannot be rebuilt from its arguments
                ok, value = False, RuntimeError(f"the worker's answer could not be read ({type(exc).__name__}: {exc})")
            self._settle(call, ok, value)
        self._dispatch()

    @staticmethod
    def _settle(call: _Call, ok: bool, value: Any) -> None:
        """Give ``call`` its answer (``ok``) or its exception, unless its caller has gone (cancelled)."""
        if not call.answer.done():
            if ok:
                call.answer.set_result(value)
            else:
                call.answer.set_exception(value)

    def _replace(self, worker: _Process) -> None:
        """A new process in the place of the dead ``worker``."""
        worker.connection.close()
        worker.process.join(timeout=5)
        assert self._pool is not None
        self._pool[self._pool.index(worker)] = _Process(self._context, self._slots)

    async def call(self, fn: Callable[..., Result], *args: Any, job: Job | None = None) -> Result:
        """``fn(workspace, *args)`` in a worker; with a ``job``, its progress is copied to the job and the
        job's cancel stops the call at the engine's next report (:class:`Cancelled`)."""
        number = next(self._calls)
        message = pickle.dumps((number, fn, args), pickle.HIGHEST_PROTOCOL)
        call = _Call(number, message, asyncio.get_running_loop().create_future())
        self._waiting.append(call)
        self.running += 1
        try:
            self._dispatch()
            while job is not None and not call.answer.done():
                await asyncio.wait({call.answer}, timeout=POLL)
                base = self._slot_of(number)
                if job.cancelled:
                    if call in self._waiting:  # not sent yet: never starts
                        raise Cancelled
                    if base is not None:
                        self._slots[base + 2] = number
                elif base is not None:
                    fraction = self._slots[base + 1]
                    job.fraction = None if fraction < 0 else fraction
            return await call.answer
        finally:
            self.running -= 1
            if call in self._waiting:  # its caller gave up before a worker took it
                self._waiting.remove(call)

    def close(self) -> None:
        """Stop the workers (a running call finishes first)."""
        if self._pool is not None:
            for worker in self._pool:
                loop = None if worker.call is None else worker.call.answer.get_loop()
                if loop is not None and not loop.is_closed():
                    loop.remove_reader(worker.connection.fileno())
                worker.stop()
            self._pool = None
        self._waiting.clear()
