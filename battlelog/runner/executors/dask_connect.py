"""Reaching a dask cluster: battlelog's own LocalCluster, or a running scheduler checked to suit it.

A scheduler that re-runs a task whose worker died would replay games that ran out of memory, so
battlelog's own cluster sets ``allowed-failures`` to 0 and a scheduler given by address must have
been started with it; every worker must also run the same battlelog as the client.
"""

from __future__ import annotations

import logging
from typing import Any

from battlelog.errors import BattlelogError
from battlelog.runner.executors.dask_worker import battlelog_version
from battlelog.runner.task import one_line

#: The scheduler setting battlelog needs, as an environment variable for ``dask scheduler``.
ALLOWED_FAILURES_ENV = "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=0"


def import_distributed() -> Any:
    """dask.distributed, or the one line that says how to install it."""
    try:
        import distributed
    except ImportError:
        raise BattlelogError("the dask executor needs dask.distributed: pip install 'battlelog[dask]'") from None
    return distributed


def local_cluster(workers: int, memory_bytes: int | None) -> tuple[Any, Any]:
    """A cluster of ``workers`` one-thread processes on this machine, each under ``memory_bytes``, and its client."""
    distributed = import_distributed()
    import dask

    # The cluster drops a worker slot for good when no worker of that name is there 15 s after one was
    # removed (dask's "lost-worker-timeout", read when it happens), even while that worker's nanny is
    # restarting it: under load, with games that take workers down, every slot went that way. Here the
    # nannies restart workers themselves, and the executor stops a run left with none (its own wait).
    dask.config.set({"distributed.deploy.lost-worker-timeout": "1 day"})
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_bytes or 0,
            dashboard_address=":0",  # any free port: two experiments at once must not fight over 8787
            silence_logs=logging.CRITICAL,
        )
    return cluster, distributed.Client(cluster)


def connect(address: str) -> Any:
    """A client of the running cluster at ``address``, checked to leave retries to battlelog."""
    distributed = import_distributed()
    import dask

    try:
        client = distributed.Client(address, timeout=10)
    except Exception as exc:  # noqa: BLE001 - any failure to connect is one line for the user
        raise BattlelogError(f"cannot reach a dask scheduler at {address} ({one_line(exc)})") from None
    try:
        allowed = client.run_on_scheduler(dask.config.get, "distributed.scheduler.allowed-failures")
        if allowed != 0:
            raise BattlelogError(
                f"the dask scheduler at {address} plays a task again when its worker dies (allowed-failures {allowed}); "
                f"battlelog decides that itself, so start the scheduler as `{ALLOWED_FAILURES_ENV} dask scheduler`"
            )
        mine = battlelog_version()
        for worker, version in client.run(battlelog_version).items():
            if version != mine:
                raise BattlelogError(
                    f"dask worker {worker} runs battlelog {version}, not {mine}: install the same on every worker"
                )
    except BattlelogError:
        client.close()
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. a worker without battlelog installed
        client.close()
        raise BattlelogError(f"the dask cluster at {address} cannot play battlelog games ({one_line(exc)})") from None
    return client
