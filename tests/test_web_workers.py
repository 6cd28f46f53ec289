"""The server's worker processes: an error is carried back with its status, and a worker that dies
fails its call in one line and is replaced without stopping the server."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from battlelog.engines.workspace import Workspace
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
