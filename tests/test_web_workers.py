"""The server's worker processes: an error is carried back with its status, and a worker that dies
fails its call in one line and is replaced without stopping the server; calls wait their turn in
order, one cancelled before its turn never runs, and a worker that died idle is replaced unnoticed."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from battlelog.engines.workspace import Workspace
from battlelog.web.jobs import Cancelled, Job
from battlelog.web.requests import WebError
from battlelog.web.workers import ProcessPool


def pid(_workspace: Workspace, tag: int) -> tuple[int, int]:
    """The worker's process id, and ``tag``."""
    return os.getpid(), tag


def refuse(_workspace: Workspace, status: int) -> None:
    raise WebError("refused in the worker", status)


def die(_workspace: Workspace) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_an_error_in_a_worker_reaches_the_caller_with_its_status_and_the_worker_goes_on() -> None:
    pool = ProcessPool(1)
    try:
        with pytest.raises(WebError, match="refused in the worker") as refused:
            asyncio.run(pool.call(refuse, 409))
        assert refused.value.status == 409
        assert asyncio.run(pool.call(pid, 7))[1] == 7
    finally:
        pool.close()


def test_a_worker_that_dies_fails_its_calls_in_one_line_and_is_replaced() -> None:
    pool = ProcessPool(1)

    async def dying() -> tuple[int, int]:
        first = await pool.call(pid, 1)
        with pytest.raises(WebError, match="worker process died") as died:
            await pool.call(die)
        assert died.value.status == 503
        second = await pool.call(pid, 2)
        assert second[1] == 2
        return first[0], second[0]

    try:
        before, after = asyncio.run(dying())
        assert before != after  # a new worker process answered
    finally:
        pool.close()


def pause(_workspace: Workspace, seconds: float, tag: int) -> int:
    time.sleep(seconds)
    return tag


def record(_workspace: Workspace, path: str, tag: int) -> int:
    """Append ``tag`` to the file ``path`` (which calls ran), and return it."""
    with open(path, "a") as handle:
        handle.write(f"{tag}\n")
    return tag


class Unpicklable(Exception):
    def __init__(self) -> None:
        super().__init__("cannot cross the pipe")
        self.handle = threading.Lock()  # no pickle for a lock


def refuse_unpicklably(_workspace: Workspace) -> None:
    raise Unpicklable


def test_calls_beyond_the_workers_wait_in_order_and_are_all_answered() -> None:
    pool = ProcessPool(2)

    async def many() -> list[tuple[int, int]]:
        calls = [asyncio.ensure_future(pool.call(pid, tag)) for tag in range(7)]
        await asyncio.sleep(0)
        assert pool.running == 7
        return await asyncio.gather(*calls)

    try:
        answers = asyncio.run(many())
        assert [tag for _, tag in answers] == list(range(7))
        assert len({worker for worker, _ in answers}) <= 2 and pool.running == 0
    finally:
        pool.close()


def test_a_worker_that_died_idle_is_replaced_before_its_next_call() -> None:
    pool = ProcessPool(1)
    try:
        first, _ = asyncio.run(pool.call(pid, 1))
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while pool._pool is not None and pool._pool[0].process.is_alive():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        second, tag = asyncio.run(pool.call(pid, 2))  # not a 503: no call was running when it died
        assert tag == 2 and second != first
    finally:
        pool.close()


def test_a_call_cancelled_while_it_waits_for_a_worker_never_runs(tmp_path: Path) -> None:
    pool = ProcessPool(1)
    ran = tmp_path / "ran"

    async def cancelled_waiting() -> None:
        busy = asyncio.ensure_future(pool.call(pause, 1.0, 0))
        job = Job()
        waiting = asyncio.ensure_future(pool.call(record, str(ran), 1, job=job))
        await asyncio.sleep(0.2)
        job.cancelled = True
        with pytest.raises(Cancelled):
            await waiting
        gone = asyncio.ensure_future(pool.call(record, str(ran), 2))
        await asyncio.sleep(0.1)
        gone.cancel()  # its caller gives up before a worker takes it
        assert await busy == 0
        assert await pool.call(record, str(ran), 3) == 3

    try:
        asyncio.run(cancelled_waiting())
        assert ran.read_text().split() == ["3"] and pool.running == 0
    finally:
        pool.close()


def test_an_error_that_cannot_cross_the_pipe_arrives_as_its_text() -> None:
    pool = ProcessPool(1)
    try:
        with pytest.raises(RuntimeError, match="Unpicklable: cannot cross the pipe"):
            asyncio.run(pool.call(refuse_unpicklably))
        assert asyncio.run(pool.call(pid, 3))[1] == 3
    finally:
        pool.close()


class Unrebuildable(Exception):
    def __init__(self, first: str, second: str) -> None:
        super().__init__(f"{first} {second}")  # pickled with one argument: cannot be rebuilt from it


def refuse_unrebuildably(_workspace: Workspace) -> None:
    raise Unrebuildable("made", "twice")


def lock(_workspace: Workspace) -> object:
    return threading.Lock()


@pytest.mark.parametrize(
    ("fn", "words"),
    [(refuse_unrebuildably, "the worker's answer could not be read"), (lock, "a lock answer")],
)
def test_an_answer_that_cannot_be_rebuilt_is_an_error_and_the_worker_goes_on(fn: Callable[..., object], words: str) -> None:
    pool = ProcessPool(1)
    try:
        with pytest.raises(RuntimeError, match=words):
            asyncio.run(pool.call(fn))
        assert asyncio.run(pool.call(pid, 4))[1] == 4
    finally:
        pool.close()
