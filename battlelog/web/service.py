"""Engine calls off the event loop: worker processes for advice, a few threads for the rest.

Advice (``/api/marginals``, the server's load) runs in worker processes (:mod:`battlelog.web.workers`,
:attr:`EngineService.processes`), so the event loop never waits for the interpreter lock. Games against
the computer and replays, whose players and games live in the server, run on worker threads
(:meth:`EngineService.run`). An engine serves one state at a time, so each worker owns one
:class:`Workspace`; the native engine's empty boards are shared on disk, which makes the first advice
on a standard board instant once :meth:`EngineService.warm` has run.

Answers are also remembered by the server as a whole (:meth:`EngineService.cached`): the advice is
deterministic, so the early states of everyone's games repeat (the first shot is always the same cell,
then a miss or a hit, ...), and those are the states that take the engine longest. A state asked by
several requests at once is computed once, the others wait for it. An opening book
(:mod:`battlelog.web.book`) adds the early states of the standard game, kept apart and never dropped.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import lru_cache
from typing import TypeVar

from battlelog.engines import DEFAULT_ENGINE, Engine, engine_class, progress
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.web.jobs import Job
from battlelog.web.requests import WebError
from battlelog.web.workers import ProcessPool

Result = TypeVar("Result")

#: The largest board the server computes (rows x cols cells): beyond it an exact answer may take minutes.
MAX_CELLS = 12 * 12
#: The most ships a fleet may have on the server.
MAX_SHIPS = 8
#: How many answers the server remembers (a 10x10 answer is some 2 kB of JSON).
ANSWERS = 8192
#: How many engine calls may run or wait at once, per worker; one more is answered 503 (:func:`busy`).
QUEUE_PER_WORKER = 32


def busy(reason: str, retry_after: int) -> WebError:
    """The engine's queue is full: 503, with the seconds after which to try again (``Retry-After``)."""
    return WebError(f"the server is busy: {reason}; try again in {retry_after} s", 503, retry_after)


class WorkQueue:
    """A bound on the engine calls running or waiting: a call past ``limit``, or past half of it for
    one client, is refused at once (:func:`busy`) rather than left to wait behind all the others;
    ``Retry-After`` is how long a call has lately taken from its entry to its answer. Used on the event
    loop only: needs no lock."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.per_client = max(1, limit // 2)
        self._owners: dict[str, int] = {}  # each client's calls running or waiting
        self._latency = 1.0  # seconds, a running mean

    @property
    def taken(self) -> int:
        """The calls running or waiting (at most ``limit``: a sum over a few clients)."""
        return sum(self._owners.values())

    @contextmanager
    def slot(self, owner: str) -> Iterator[None]:
        """A place in the queue for the time of the block, or :func:`busy`; ``owner``'s calls (a client
        address) count against its share too."""
        mine, taken = self._owners.get(owner, 0), self.taken
        if taken >= self.limit:
            raise busy(f"{taken} engine calls are running or waiting", max(1, math.ceil(self._latency)))
        if mine >= self.per_client:
            raise busy(f"{mine} of {owner}'s engine calls are running or waiting, its share", max(1, math.ceil(self._latency)))
        self._owners[owner] = mine + 1
        start = time.perf_counter()
        try:
            yield
        finally:
            self._owners[owner] -= 1
            if not self._owners[owner]:
                del self._owners[owner]
            self._latency += 0.2 * (time.perf_counter() - start - self._latency)


def check_budget(config: GameConfig, engine: str = DEFAULT_ENGINE) -> None:
    """Refuse in one line a board or fleet too large for the server's budget or the engine's."""
    _within_budget(config, engine)


@lru_cache(maxsize=1024)
def _within_budget(config: GameConfig, engine: str) -> bool:
    """:func:`check_budget`'s checks, each board and engine checked once (the answer does not change,
    and the engine's check costs a request some 50 us; a refusal raises, so it is never remembered)."""
    if config.cell_count > MAX_CELLS:  # cell_count, not size: a rectangular board is counted as well
        raise BattlelogError(
            f"{config.label()} has {config.cell_count} cells: the server computes at most {MAX_CELLS} (use the command line)"
        )
    if len(config.ships) > MAX_SHIPS:
        raise BattlelogError(f"a fleet of {len(config.ships)} ships is more than the server's {MAX_SHIPS}")
    engine_class(engine).check_board(config)
    return True


class EngineService:
    """Worker processes (:attr:`processes`) and threads (:meth:`run`), each with a Workspace, and the
    answers remembered."""

    def __init__(self, workers: int = 2, engine: str = DEFAULT_ENGINE, queue: int | None = None) -> None:
        self.engine_name = engine
        #: The engine calls that requests make (not the server's own: the opening book's, the prefetches), bounded.
        self.queue = WorkQueue(QUEUE_PER_WORKER * workers if queue is None else queue)
        self._local = threading.local()
        self._workspaces: list[Workspace] = []
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="battlelog-engine")
        self.processes = ProcessPool(workers)
        self._answers: OrderedDict[str, bytes] = OrderedDict()
        #: The opening book's answers (:mod:`battlelog.web.book`): never dropped.
        self.book: dict[str, bytes] = {}
        #: The states the engine refused while the book was computed (contradictions).
        self.book_refused: set[str] = set()
        #: The opening book's progress (:func:`battlelog.web.advise.keep_book`): none until one is kept.
        self.book_status: dict[str, object] = {"size": 0, "ready": True}
        #: How the answers were served: from the book, remembered, shared with a call in flight, computed.
        self.served = {"book": 0, "remembered": 0, "shared": 0, "computed": 0}
        self._flying: dict[str, asyncio.Future[bytes]] = {}
        self.workers = workers
        self._background: set[asyncio.Task[None]] = set()

    def _workspace(self) -> Workspace:
        workspace = getattr(self._local, "workspace", None)
        if workspace is None:
            workspace = self._local.workspace = Workspace()
            with self._lock:
                self._workspaces.append(workspace)
        return workspace

    def engine(self) -> Engine:
        """This worker thread's engine (call only from inside :meth:`run`)."""
        return self._workspace().engine(self.engine_name)

    async def run(self, call: Callable[[], Result], owner: str, job: Job | None = None) -> Result:
        """``call()`` on a worker thread for the client ``owner``, awaited without blocking the event loop
        (in :attr:`queue`, or refused when it or ``owner``'s share is full); with a ``job``, the engine's
        progress goes to it, and a cancelled job stops the call at its next report."""

        def watched() -> Result:
            if job is None:
                return call()
            job.listen("waiting", 0.0)  # cancelled while it waited for a thread: never starts
            with progress.listening(job.listen):
                return call()

        with self.queue.slot(owner):
            return await asyncio.get_running_loop().run_in_executor(self._pool, watched)

    @property
    def idle(self) -> bool:
        """Whether a worker process has nothing to do."""
        return self.processes.running < self.workers

    def prefetch(self, key: str, compute: Callable[[], Awaitable[bytes]]) -> None:
        """Compute ``key``'s answer in the background if a worker is idle (and it is not known yet):
        the answer a person will probably ask for next, ready by the time they have decided."""
        if not self.idle or self.known(key) or key in self._flying:
            return

        async def quietly() -> None:
            try:
                await self.cached(key, compute)
            except Exception:  # noqa: BLE001 - a guess that fails (a contradiction) is simply not kept
                pass

        task = asyncio.get_running_loop().create_task(quietly())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def cached(self, key: str, compute: Callable[[], Awaitable[bytes]]) -> bytes:
        """The answer remembered under ``key``, else ``compute()``'s (shared with the requests that ask
        for it meanwhile, and remembered unless it failed). Runs on the event loop, so needs no lock."""
        if key in self.book:
            self.served["book"] += 1
            return self.book[key]
        if key in self._answers:
            self.served["remembered"] += 1
            self._answers.move_to_end(key)
            return self._answers[key]
        if key in self._flying:
            self.served["shared"] += 1
            return await asyncio.shield(self._flying[key])
        self.served["computed"] += 1
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._flying[key] = future
        try:
            answer = await compute()
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody else waited
            raise
        finally:
            del self._flying[key]
        future.set_result(answer)
        self._answers[key] = answer
        while len(self._answers) > ANSWERS:
            self._answers.popitem(last=False)
        return answer

    def known(self, key: str) -> bool:
        """Whether ``key``'s answer is remembered (in the book or among the recent answers)."""
        return key in self.book or key in self._answers

    def warm(self, config: GameConfig) -> None:
        """Start the worker processes, and compute ``config``'s empty board in the background (kept on
        disk by the native engine), so the first advice on it is instant."""
        self.processes.start()
        self._pool.submit(lambda: self.engine().marginals(GameState.empty(config)))

    def close(self) -> None:
        """Stop the workers (a running call finishes first) and close every workspace."""
        self.processes.close()
        self._pool.shutdown(wait=True, cancel_futures=True)
        for workspace in self._workspaces:
            workspace.close()
