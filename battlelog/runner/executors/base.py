"""The one interface between the experiment runner and whatever plays its games.

The shape is that of ``concurrent.futures``: hand over tasks, get outcomes back as games end. An
executor owns how games are isolated and limited; the runner owns the journal. So an executor
never writes a file, and the runner never knows whether a game ran in a local process or on a
cluster node.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from types import TracebackType

from battlelog.runner.executors import Limits
from battlelog.runner.task import GameTask, Outcome


class Executor(ABC):
    """Plays game tasks under :class:`Limits`; use it as a context manager so that it always shuts down."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @abstractmethod
    def start(self, count: int | None = None) -> None:
        """Bring the workers up (idempotent); :meth:`run` calls it, so calling it first only moves the wait.

        ``count``: start no more than this many of the workers the executor starts itself (:meth:`run`
        passes the number of games it has, up to ``limits.workers``, so 2 games never start 64 processes).
        """

    @abstractmethod
    def run(self, tasks: Iterable[GameTask]) -> Iterator[Outcome]:
        """Play every task once, yielding each outcome as its game ends (completion order).

        Tasks are drawn lazily, as workers can take them. Stopping early (Ctrl-C, ``break``) abandons
        the games in progress: none of them is yielded.
        """

    @abstractmethod
    def close(self) -> None:
        """Stop the workers this executor started (idempotent)."""

    @abstractmethod
    def describe(self) -> str:
        """Where the games run, for the command's first line (``2 local worker processes``)."""


__all__ = ["Executor"]
