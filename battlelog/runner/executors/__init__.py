"""Where an experiment's games run: the executor registry and the limits every executor honours.

An executor takes game tasks and gives back their outcomes as games end (see
:class:`battlelog.runner.executors.base.Executor`); the experiment runner never knows which one it talks
to. ``local`` is a pool of worker processes on this machine (no server); ``dask`` runs the same
tasks on a dask.distributed cluster. Executors import their libraries only when built, so this
module stays light enough for the command line to import.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from importlib import import_module
from typing import TYPE_CHECKING, Any

from battlelog.errors import BattlelogError

if TYPE_CHECKING:
    from battlelog.runner.executors.base import Executor

#: name -> "module:class"; the keys feed the command line's choices.
EXECUTORS: dict[str, str] = {
    "local": "battlelog.runner.executors.local:LocalExecutor",
    "dask": "battlelog.runner.executors.dask_cluster:DaskExecutor",
}
DEFAULT_EXECUTOR = "local"

#: The longest time limit accepted (a year): longer is a typo or a wish for none.
MAX_TIME_LIMIT = 365 * 24 * 3600.0
#: The largest memory limit accepted (1 PiB): larger is a typo or a wish for none.
MAX_MEMORY_LIMIT = 2**50


def available_cores() -> int:
    """The cores this process may run on (what --workers defaults to)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class Limits:
    """How games run: worker processes, memory limit per worker (bytes), time limit per game (s).

    The memory limit is enforced by the executor (an address-space limit on a local worker, the
    nanny's limit on a dask worker), and half of it, capped at the engines' default, is the budget an
    engine plans its memory around (:attr:`engine_budget`), sent along with every game.
    """

    workers: int = field(default_factory=available_cores)
    memory_bytes: int | None = 4 * 2**30
    time_seconds: float | None = 600.0

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise BattlelogError(f"the number of workers must be at least 1, got {self.workers}")
        if self.memory_bytes is not None and not 0 < self.memory_bytes <= MAX_MEMORY_LIMIT:
            raise BattlelogError(f"the memory limit must be positive and at most 1 PiB, got {self.memory_bytes} bytes")
        if self.time_seconds is not None and not 0 < self.time_seconds <= MAX_TIME_LIMIT:
            raise BattlelogError(f"the time limit must be positive and at most a year, got {self.time_seconds:g} s")

    @property
    def engine_budget(self) -> int | None:
        """The memory budget of an engine in one game (None: the engine's default, for no limit)."""
        from battlelog.engines.budget import DEFAULT_BUDGET

        return None if self.memory_bytes is None else min(DEFAULT_BUDGET, self.memory_bytes // 2)


def make_executor(name: str, limits: Limits, **options: Any) -> Executor:
    """Build the executor registered as ``name`` (nothing starts until it runs its first game)."""
    if name not in EXECUTORS:
        raise BattlelogError(f"unknown executor {name!r}; choose one of {', '.join(EXECUTORS)}")
    module, cls = EXECUTORS[name].split(":")
    executor: Executor = getattr(import_module(module), cls)(limits, **options)
    return executor


__all__ = ["DEFAULT_EXECUTOR", "EXECUTORS", "MAX_MEMORY_LIMIT", "MAX_TIME_LIMIT", "Limits", "available_cores", "make_executor"]
