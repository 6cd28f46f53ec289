"""The local executor's worker process: it limits its own memory once, then plays game after game.

Runs in a spawned Python (:mod:`battlelog.runner.executors.local` starts it and reads what it sends):
it asks Linux to kill it with its parent, caps its address space, says whether it can live under the
limit, and then plays every task it is sent in one workspace, sending each result back.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import resource
import signal
from multiprocessing.connection import Connection

from battlelog.engines.workspace import Workspace
from battlelog.runner.procmem import status_bytes
from battlelog.runner.task import run_task

#: Messages from a worker to the parent.
READY, UNFIT, DONE = "ready", "unfit", "done"

_PR_SET_PDEATHSIG = 1


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
    used = status_bytes("VmSize")
    if used is not None and used >= limit:
        return (
            f"the memory limit of {limit / 2**20:.0f} MB is below the {used / 2**20:.0f} MB of address space "
            "a worker takes before playing (Python and its libraries)"
        )
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    return None


def serve(conn: Connection, memory_limit: int | None) -> None:
    """A worker's life: set the limits, say it is ready, then play games until told to stop, all in
    one workspace (engines and their caches kept from game to game, bounded)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with_parent()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # an abort under the memory limit must not dump GBs
    unfit = _limit_memory(memory_limit) if memory_limit is not None else None
    if unfit is not None:
        conn.send((UNFIT, unfit))
        return
    conn.send((READY, os.getpid()))
    workspace = Workspace()
    try:
        while True:
            try:
                task = conn.recv()
            except EOFError:  # the parent is gone
                return
            if task is None:
                return
            conn.send((DONE, run_task(task, workspace=workspace)))
    finally:
        workspace.close()
