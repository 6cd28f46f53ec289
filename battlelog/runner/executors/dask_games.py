"""What the dask executor's client knows of each game it has submitted: which attempt it is, and what it
has heard of it (:mod:`battlelog.runner.executors.dask_cluster` decides from this what became of it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from battlelog.runner.task import GameTask, TaskResult


@dataclass(frozen=True)
class Attempt:
    """Which time a game is submitted: the first play (0) or the one after a lost worker (1), and its history."""

    number: int = 0
    retried: str | None = None  # why it is played again
    first_lost: str | None = None  # the worker lost under its first play
    requeued: int = 0  # times submitted again because its worker died before it started


#: A game's first play.
FIRST_ATTEMPT = Attempt()


@dataclass
class InFlight:
    """A game in flight: its task, which attempt this is, and what the client has heard of it."""

    task: GameTask
    key: str
    future: Any
    attempt: Attempt
    started: float | None = None  # the client's clock when its worker announced it
    worker: str | None = None  # the worker that announced it
    threads: int = 1  # how many games that worker plays at once
    done: bool = False
    result: TaskResult | None = None  # fetched from its worker once the game ended
    lost_at: float | None = None  # when its future failed because its worker died
    lost_worker: str | None = None


__all__ = ["FIRST_ATTEMPT", "Attempt", "InFlight"]
