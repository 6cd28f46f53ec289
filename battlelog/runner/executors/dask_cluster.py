"""The dask executor: the same game tasks, played on a dask.distributed cluster.

The client (this process) submits each game as a task and keeps everything that must not be lost
or repeated: it alone writes the journal, and it decides what became of every game. A worker plays
a game in its own process, under the memory budget that travels inside the task, and announces the
start of each game (an event: which worker, so the client can time the game and knows where it ran);
what runs on the worker is :mod:`battlelog.runner.executors.dask_worker`.

What can happen to a game (it ends; it passes the time limit; its worker is restarted for memory,
lost mid-game, lost before it started, or lost after the game ended but before its result was
fetched; the cluster is left with no worker) and what the client records for each: docs/cluster.md,
"Failures, decided by the client", and the methods below. The client leaves retries to itself, so
the scheduler must not re-run tasks (``allowed-failures`` 0: battlelog's LocalCluster sets it, and a
scheduler given by address without it is refused).
"""

from __future__ import annotations

import itertools
import queue
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from battlelog.errors import BattlelogError
from battlelog.runner.executors import Limits
from battlelog.runner.executors.base import Executor
from battlelog.runner.executors.dask_connect import connect, local_cluster
from battlelog.runner.executors.dask_games import FIRST_ATTEMPT, Attempt, InFlight
from battlelog.runner.executors.dask_worker import START_TOPIC, play_on_worker
from battlelog.runner.task import ERROR, MEMORY, TIMEOUT, GameTask, Outcome, TaskResult, one_line

#: The event a nanny logs when it restarts its worker for memory: {"worker": address, "rss": bytes, ...}.
MEMORY_TOPIC = "worker-restart-memory"
#: Seconds the client waits, after a worker died under a game, for its nanny's word that it was memory.
MEMORY_WORD_WAIT = 1.0
#: How often a game may be queued again because its worker died before the game started (a worker plays
#: one game and may hold the next; dying for the one it plays, it takes the next with it). Only a cluster
#: whose workers die before every game reaches this.
MAX_REQUEUES = 10
#: The longest the client blocks without looking at deadlines and the cluster's size.
_TICK = 1.0
#: Longest wait for the results of games that have ended (small records, normally milliseconds away)...
FETCH_WAIT = 10.0
#: ... cut short by the next game's time limit, down to this.
MIN_FETCH_WAIT = 0.5


class DaskExecutor(Executor):
    """Games on a dask.distributed cluster: the one at ``scheduler``, or a LocalCluster of ``limits.workers`` processes."""

    #: Seconds a cluster of our own may have no worker before the run stops (a nanny's restart takes seconds).
    no_worker_wait: float = 60.0
    #: Seconds to wait for the results of ended games before taking them as lost (:data:`FETCH_WAIT`).
    fetch_wait: float = FETCH_WAIT

    def __init__(self, limits: Limits, scheduler: str | None = None) -> None:
        super().__init__(limits)
        self.scheduler = scheduler
        self._client: Any = None
        self._cluster: Any = None
        self._events: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._memory_kills: dict[str, int] = {}  # worker address -> resident bytes when its nanny restarted it
        self._overdue: dict[str, Any] = {}  # key -> future of a game recorded as a timeout that may still run
        self._threads = 0
        self._threads_checked = 0.0
        self._workerless_since: float | None = None

    @property
    def client(self) -> Any:
        """The ``distributed.Client`` once started (for its dashboard link, or to watch the cluster), else None."""
        return self._client

    # ----- starting and stopping ---------------------------------------------------------------
    def start(self, count: int | None = None) -> None:
        if self._client is not None:
            return
        if self.scheduler is None:
            workers = self.limits.workers if count is None else min(count, self.limits.workers)
            self._cluster, self._client = local_cluster(workers, self.limits.memory_bytes)
        else:
            self._client = connect(self.scheduler)
        self._client.subscribe_topic(START_TOPIC, lambda event: self._events.put(("start", event[1])))
        self._client.subscribe_topic(MEMORY_TOPIC, lambda event: self._events.put(("memory", event[1])))

    def close(self) -> None:
        if self._client is not None:
            for topic in (START_TOPIC, MEMORY_TOPIC):
                self._client.unsubscribe_topic(topic)
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None

    def describe(self) -> str:
        if self.scheduler is not None:
            return f"the dask cluster at {self.scheduler}"
        count = self.limits.workers
        return f"a local dask cluster of {count} worker process{'es' if count > 1 else ''}"

    # ----- playing -----------------------------------------------------------------------------
    def run(self, tasks: Iterable[GameTask]) -> Iterator[Outcome]:
        source = iter(tasks)
        ahead = list(itertools.islice(source, self.limits.workers))  # no more workers than games to play
        if not ahead:
            return
        source = itertools.chain(ahead, source)
        self.start(len(ahead))
        games: dict[str, InFlight] = {}
        try:
            while True:
                while len(games) < self._window():
                    task = next(source, None)
                    if task is None:
                        break
                    self._submit(games, task)
                if not games:
                    break
                self._listen(games)
                yield from self._settle(games)
                self._check_workers()
        finally:  # games abandoned (Ctrl-C, an error) and overdue ones: nothing more of them is wanted
            self._client.cancel([game.future for game in games.values()] + list(self._overdue.values()))
            self._overdue.clear()

    def _window(self) -> int:
        """How many games to keep submitted: twice the cluster's threads (at least 4), so no worker waits for the client."""
        now = time.monotonic()
        if now - self._threads_checked > 5:
            self._threads = sum(self._client.nthreads().values())
            self._threads_checked = now
        return max(4, 2 * self._threads)

    def _check_workers(self) -> None:
        """Stop, in one line, a run on a cluster of our own that has had no worker for ``no_worker_wait`` seconds."""
        now = time.monotonic()
        if self.scheduler is not None or self._threads > 0:  # a cluster given by address may scale from none
            self._workerless_since = None
        elif self._workerless_since is None:
            self._workerless_since = now
        elif now - self._workerless_since > self.no_worker_wait:
            text = (
                f"the local dask cluster has had no worker for {self.no_worker_wait:g} s "
                "(its worker processes died and none was restarted)"
            )
            raise BattlelogError(f"{text}; the games finished so far are recorded: run the same command again to play the rest")

    def _submit(self, games: dict[str, InFlight], task: GameTask, attempt: Attempt = FIRST_ATTEMPT) -> None:
        key = f"battlelog-game-{task.game}-{task.player}-{attempt.number}-{uuid.uuid4().hex[:12]}"
        future = self._client.submit(play_on_worker, task, self.limits.time_seconds, key=key, pure=False, retries=0)
        games[key] = InFlight(task, key, future, attempt)
        future.add_done_callback(lambda f: self._events.put(("done", f.key)))

    def _listen(self, games: dict[str, InFlight]) -> None:
        """Wait for news (until the next deadline at most), then take in all that has arrived."""
        try:
            news = [self._events.get(timeout=self._until_next_deadline(games))]
        except queue.Empty:
            return
        while not self._events.empty():
            news.append(self._events.get())
        for kind, payload in news:
            if kind == "memory":
                self._memory_kills[str(payload.get("worker"))] = int(payload.get("rss", 0))
            elif kind == "start" and payload.get("key") in games:
                game = games[payload["key"]]
                game.started, game.worker, game.threads = (
                    time.monotonic(),
                    str(payload.get("worker")),
                    int(payload.get("threads", 1)),
                )
            elif kind == "done" and payload in games:
                games[payload].done = True
            elif kind == "done" and payload in self._overdue:
                self._overdue.pop(payload).release()

    def _until_next_deadline(self, games: dict[str, InFlight]) -> float:
        now = time.monotonic()
        waits = [g.lost_at + MEMORY_WORD_WAIT - now for g in games.values() if g.lost_at is not None]
        return max(0.0, min([_TICK, *waits, *self._time_left(games)]))

    def _time_left(self, games: dict[str, InFlight]) -> list[float]:
        """Seconds until each running game reaches the time limit (none without one)."""
        limit, now = self.limits.time_seconds, time.monotonic()
        return [] if limit is None else [g.started + limit - now for g in games.values() if g.started is not None]

    def _settle(self, games: dict[str, InFlight]) -> Iterator[Outcome]:
        """Yield the outcome of every game whose fate is known now, and submit again the games to play again."""
        self._fetch_results(games)
        now = time.monotonic()
        for key, game in list(games.items()):
            verdict = self._verdict(game, now)
            if verdict is None:
                continue
            del games[key]
            if isinstance(verdict, Attempt):
                self._submit(games, game.task, verdict)
            else:
                yield verdict

    def _fetch_results(self, games: dict[str, InFlight]) -> None:
        """Fetch the results of every game that ended, in one round trip (one per game would hold the client up).
        Bounded, and given up on a result that vanished meanwhile (its worker left: the scheduler replays the
        game, or gives up with ``KilledWorker``): such a game is no longer "finished", and is found lost."""
        from distributed.scheduler import KilledWorker

        ready = [g for g in games.values() if g.done and g.result is None and g.future.status == "finished"]
        if not ready:
            return
        client, futures = self._client, [g.future for g in ready]
        try:
            wait = max(MIN_FETCH_WAIT, min([self.fetch_wait, *self._time_left(games)]))  # the time limits still hold
            results = client.sync(lambda: client.gather(futures, asynchronous=True), callback_timeout=wait)
        except (TimeoutError, KilledWorker):
            return
        for game, result in zip(ready, results):
            game.result = result
            game.future.release()

    def _verdict(self, game: InFlight, now: float) -> Outcome | Attempt | None:
        """What to do with ``game`` now: record an outcome, play it again, or wait (None)."""
        limit = self.limits.time_seconds
        if game.done and game.lost_at is None:
            finished = self._finished(game, now)
            if finished is not None:
                return finished
        if game.lost_at is not None:
            return self._lost(game, now)
        if game.started is not None and limit is not None and now - game.started >= limit:
            # Held until its worker ends it, so that the scheduler sends that worker nothing meanwhile.
            self._overdue[game.key] = game.future
            text = f"no result within the time limit of {limit:g} s"
            return Outcome(game.task, TaskResult(TIMEOUT, message=text, seconds=now - game.started), game.attempt.retried)
        return None

    def _finished(self, game: InFlight, now: float) -> Outcome | None:
        """The outcome of a game whose future is done; None while its result is on the way, or when its worker
        died (then it is marked lost, see :meth:`_lost`)."""
        from distributed.scheduler import KilledWorker

        if game.result is not None:
            return Outcome(game.task, game.result, game.attempt.retried)
        future = game.future
        if future.status == "finished":  # its result is fetched with the next batch
            return None
        error = future.exception() if future.status == "error" else None
        if error is None or isinstance(error, KilledWorker):  # cancelled by the cluster, or its worker died
            game.lost_at = now
            game.lost_worker = None if error is None else error.last_worker.address
            return None
        return Outcome(
            game.task, TaskResult(ERROR, message=one_line(error), seconds=self._seconds(game, now)), game.attempt.retried
        )

    def _lost(self, game: InFlight, now: float) -> Outcome | Attempt | None:
        """The verdict on a game whose worker died under it; None while the nanny may still say it was memory."""
        assert game.lost_at is not None
        ran_there = game.started is not None and game.worker == game.lost_worker
        # A worker playing several games at once does not say which one took the memory: each is played
        # again once, and the one that takes a worker down twice is the memory failure.
        alone = game.threads == 1 or game.attempt.number == 1
        if ran_there and alone and game.lost_worker in self._memory_kills:
            rss = self._memory_kills[game.lost_worker] / 2**20
            text = f"the cluster restarted worker {game.lost_worker} for memory while it played this game ({rss:.0f} MB resident)"
            return Outcome(game.task, TaskResult(MEMORY, message=text, seconds=self._seconds(game, now)), game.attempt.retried)
        if now < game.lost_at + MEMORY_WORD_WAIT:
            return None
        attempt = game.attempt
        if not ran_there:  # it was only queued on the worker that died
            if attempt.requeued < MAX_REQUEUES:
                return replace(attempt, requeued=attempt.requeued + 1)
            text = f"its workers died {attempt.requeued + 1} times before it could start"
            return Outcome(game.task, TaskResult(ERROR, message=text), attempt.retried)
        if attempt.number == 0:
            how = "restarted for memory" if game.lost_worker in self._memory_kills else "lost"
            why = f"worker {game.lost_worker} was {how} while it played this game; played again on another worker"
            return Attempt(1, why, game.lost_worker)
        text = f"the worker playing it was lost twice ({attempt.first_lost}, then {game.lost_worker}): not played a third time"
        return Outcome(game.task, TaskResult(ERROR, message=text, seconds=self._seconds(game, now)), game.attempt.retried)

    @staticmethod
    def _seconds(game: InFlight, now: float) -> float:
        """How long the game ran on its worker: until now, or until its worker was found dead."""
        return 0.0 if game.started is None else (game.lost_at or now) - game.started


__all__ = ["DaskExecutor"]
