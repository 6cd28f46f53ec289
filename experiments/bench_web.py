"""Load on `battlelog serve`: many concurrent clients advising standard 10x10 games, as the page does.

Starts `battlelog serve --port 0` in a child process (on 127.0.0.1 only), then runs CLIENTS clients
at once for SECONDS: each draws a hidden layout, asks POST /api/marginals with the game so far, answers
the suggested shot as a referee would, and starts a new game when every ship is sunk. Every answer must
be 200 with a suggestion on an unshot cell (or none once the game is over); any other answer counts as
an error (as is no answer within a minute). The loop is bounded in time and stops by itself; only
loopback addresses are used (each client connects from its own, 127.0.0.2 and up, as people on their
own machines would: the server bounds one address's share of its engine queue). Each client holds one keep-alive connection and
speaks HTTP/1.1 itself, so that the clients take little of the cores they share with the server (docs/web.md, "Load").

The clock starts once the server has answered the empty board once (it computes it at start) and its
opening book is ready (read from the user's cache folder, or computed the first time: minutes).
Prints the requests, errors, throughput and the latency percentiles of an advice request, apart for the
empty board (the first request of a game) and after the first shot (issue 19's target: p95 <= 250 ms),
and how the server answered them (from the book, remembered, computed). With --think S a client waits
a random 0 to 2S seconds before each answer, as a person would (the default, 0, answers at once).

With --distinct N it measures instead what the server adds to the engine's own work (issue 37): N
distinct 10x10 mid-game states (seeded games of the hunt-target player, 20 to 35 shots in)
are computed twice, directly by the engine in --workers worker processes (the server's own call,
`advice_text`, in a spawned process pool: no HTTP, no event loop), and through `battlelog serve
--workers W --book 0` by --clients concurrent connections (every answer checked byte for byte against
the direct one), alternately --repeat times (each run its own N states, the order of the two ways
alternating; both ways first compute 40 states of another seed, uncounted). Its headline is the
server process's own processor time per request (its event loop's and its other threads', and of them
the kernel's, from /proc) against the engine's per state alone: both are processor time, so a machine
shared with other work changes them far less than the wall times, which it also prints with the
states a second and the ratios server/direct. Then it splits the server's own time per request: the
same requests' stages timed in this process (the body's JSON, the state's reading, the budget, the
answer's key, the whole ASGI app with the answers remembered, the app under the server's HTTP protocol
without a socket, a round trip to a worker process); what the served runs took beyond these is the
sockets' reads and writes and the event loop's wake-ups.

usage:
  python experiments/bench_web.py                          # 50 clients for 60 s
  python experiments/bench_web.py --clients 10 --seconds 10
  python experiments/bench_web.py --think 2                # people who take 2 s per answer on average
  python experiments/bench_web.py --distinct 100 --clients 8 --repeat 4   # the server's overhead
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2 as httpx
import numpy as np
import uvloop

from battlelog.engines import DEFAULT_ENGINE
from battlelog.engines.workspace import Workspace
from battlelog.jsonfile import parse_json
from battlelog.players import make_player
from battlelog.rules.config import GameConfig
from battlelog.rules.layouts import sample_layout
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState

CONFIG = GameConfig(10, (5, 4, 3, 3, 2))
#: The longest a client waits for an answer (seconds) before it counts an error.
TIMEOUT = 60.0
#: With --distinct: the states each way computes first, uncounted (see :func:`overhead`).
WARM_STATES = 40


class Tally:
    """Latencies (seconds) of the empty board and of later states, and the errors seen."""

    def __init__(self) -> None:
        self.first: list[float] = []
        self.later: list[float] = []
        self.errors: list[str] = []
        self.games = 0


class Connection:
    """One keep-alive HTTP/1.1 connection to the server, as a browser tab holds: a request's bytes out,
    the status and the body back, and nothing more, so that the clients' own work stays small beside
    the server's on the machine they share (an HTTP library's client took a third of a core here)."""

    def __init__(self, host: str, port: int, source: str | None = None) -> None:
        self.host, self.port, self.source = host, port, source
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        if self._streams is None:
            local = None if self.source is None else (self.source, 0)
            self._streams = await asyncio.open_connection(self.host, self.port, local_addr=local)
        reader, writer = self._streams
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        writer.write(head.encode() + body)
        answer = await reader.readuntil(b"\r\n\r\n")
        status = int(answer[9:12])
        length = next(int(line[15:]) for line in answer.lower().split(b"\r\n") if line.startswith(b"content-length:"))
        return status, await reader.readexactly(length)

    def close(self) -> None:
        if self._streams is not None:
            self._streams[1].close()


async def client(connection: Connection, seed: int, until: float, tally: Tally, think: float) -> None:
    """Advise games one after another until the clock passes ``until``: the game so far posted as the
    state JSON at every answer, as the page does."""
    rng = np.random.default_rng(seed)
    while time.monotonic() < until:
        referee = Referee(CONFIG, sample_layout(CONFIG, rng))
        shots: list[dict[str, Any]] = []
        shot: set[tuple[int, int]] = set()
        while time.monotonic() < until:
            body = json.dumps({"size": CONFIG.size, "ships": list(CONFIG.ships), "shots": shots}).encode()
            start = time.perf_counter()
            try:
                status, text = await asyncio.wait_for(connection.post("/api/marginals", body), TIMEOUT)
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError, StopIteration) as exc:
                tally.errors.append(f"{type(exc).__name__}: {exc}")
                return
            (tally.later if shots else tally.first).append(time.perf_counter() - start)
            if status != 200:
                tally.errors.append(f"{status}: {text[:200]!r}")
                return
            suggest = json.loads(text)["suggest"]
            if suggest is None:
                if not referee.over:
                    tally.errors.append("no suggestion before the end of the game")
                tally.games += 1
                break
            cell = (suggest["row"], suggest["col"])
            if cell in shot:
                tally.errors.append(f"suggested {cell}, already shot")
                return
            result, ship = referee.shoot(*cell)
            shot.add(cell)
            shots.append({"row": cell[0], "col": cell[1], "result": result} | ({} if ship is None else {"ship": ship}))
            if think:
                await asyncio.sleep(rng.uniform(0, 2 * think))


def ready(url: str) -> dict[str, Any]:
    """Wait until the server answers the empty board (it computes it at start, loading the engine's
    kernel) and its opening book is ready; its book's status."""
    empty = GameState.empty(CONFIG).to_json()
    deadline = time.monotonic() + 1800
    while True:
        try:
            if httpx.post(f"{url}api/marginals", json=empty, timeout=60).status_code == 200:
                book: dict[str, Any] = httpx.get(f"{url}api/options").json()["book"]
                if book.get("ready"):
                    return book
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit("bench_web: the server was not ready within 30 minutes")
        time.sleep(0.5)


def percentiles(values: list[float]) -> str:
    if not values:
        return "no request"
    p50, p95, p99 = (1000 * float(np.percentile(values, q)) for q in (50, 95, 99))
    return f"{len(values):6d} requests  p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  p99 {p99:7.1f} ms  max {1000 * max(values):7.1f} ms"


async def load(url: str, clients: int, seconds: float, think: float) -> Tally:
    tally = Tally()
    address = urlsplit(url)
    assert address.hostname is not None and address.port is not None
    # Each client from its own loopback address (127.0.0.2, ...: Linux answers the whole 127/8), as people
    # on their own machines: the server bounds each address's share of its engine queue.
    connections = [Connection(address.hostname, address.port, f"127.0.{2 + k // 250}.{2 + k % 250}") for k in range(clients)]
    until = time.monotonic() + seconds
    try:
        await asyncio.gather(*(client(connection, seed, until, tally, think) for seed, connection in enumerate(connections)))
    finally:
        for connection in connections:
            connection.close()
    return tally


# ----- --distinct: the server's overhead over the engine's own work --------------------------------
def distinct_states(count: int, seed: int = 37) -> list[bytes]:
    """``count`` distinct mid-game states, as the JSON bodies the page posts: seeded games of the
    hunt-target player (random shots until a hit, then its neighbours: hits in clusters, as in a game
    a person plays), each taken 20 to 35 shots in and answered by a referee."""
    rng = np.random.default_rng(seed)
    states: dict[bytes, None] = {}
    while len(states) < count:
        referee = Referee(CONFIG, sample_layout(CONFIG, rng))
        player = make_player("hunt-target", int(rng.integers(2**63)))
        player.new_game(CONFIG)
        state = GameState.empty(CONFIG)
        for _ in range(rng.integers(20, 36)):
            row, col = player.choose(state)
            result, ship = referee.shoot(row, col)
            state = state.with_shot(row, col, result, ship)
            if referee.over:
                break
        player.close()
        if not referee.over:
            states[json.dumps(state.to_json()).encode()] = None
    return list(states)


class _Direct:
    """A direct worker's workspace (set by :func:`_direct_start`)."""

    workspace: Workspace | None = None


def _direct_start() -> None:
    _Direct.workspace = Workspace()


def _direct_advice(body: bytes) -> bytes:
    """The server's own call on the state ``body`` names, read as any reader of a state reads it."""
    from battlelog.web.advise import advice_text

    assert _Direct.workspace is not None
    return advice_text(_Direct.workspace, DEFAULT_ENGINE, GameState.from_json(json.loads(body)))


def _sized(_workspace: Workspace, size: int, state: GameState) -> bytes:
    """A worker's call that does nothing with ``state`` and answers ``size`` bytes: the round trip alone."""
    return bytes(size)


def direct(states: list[bytes], pool: ProcessPoolExecutor) -> tuple[float, list[bytes]]:
    """The wall time of the engine's answers to ``states`` computed by ``pool``, and the answers."""
    start = time.perf_counter()
    answers = list(pool.map(_direct_advice, states))
    return time.perf_counter() - start, answers


async def served(url: str, states: list[bytes], clients: int) -> tuple[float, list[bytes]]:
    """The wall time of the server's answers to ``states``, asked by ``clients`` connections at once
    (each takes the next state not yet asked), and the answers; a refused state stops the run."""
    address = urlsplit(url)
    assert address.hostname is not None and address.port is not None
    answers: list[bytes] = [b""] * len(states)
    queue = iter(range(len(states)))

    async def ask(connection: Connection) -> None:
        for k in queue:
            status, answers[k] = await asyncio.wait_for(connection.post("/api/marginals", states[k]), TIMEOUT)
            if status != 200:
                raise SystemExit(f"bench_web: state {k} answered {status}: {answers[k][:200]!r}")

    connections = [Connection(address.hostname, address.port) for _ in range(clients)]
    start = time.perf_counter()
    try:
        await asyncio.gather(*(ask(connection) for connection in connections))
    finally:
        for connection in connections:
            connection.close()
    return time.perf_counter() - start, answers


def _stat_seconds(stat: Path, fields: slice = slice(11, 13)) -> float:
    """The processor time (seconds) of a /proc ``stat`` file's process or thread: user and system (the
    default), or the ``fields`` given (after the name: 11 is utime, 12 stime)."""
    values = stat.read_text().rsplit(")", 1)[1].split()[fields]
    return sum(map(int, values)) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    """The processor time (user and system, seconds) that the processes ``pids`` have used (Linux's /proc)."""
    return sum(_stat_seconds(Path(f"/proc/{pid}/stat")) for pid in pids)


def system_seconds(pid: int) -> float:
    """The processor time that the process ``pid`` has spent in the kernel (system time: its system calls)."""
    return _stat_seconds(Path(f"/proc/{pid}/stat"), slice(12, 13))


def loop_seconds(pid: int) -> float:
    """The processor time of the process ``pid``'s main thread: the server's event loop (the rest of its
    processor time is its other threads': the process pool's, which hand the calls to the workers)."""
    return _stat_seconds(Path(f"/proc/{pid}/task/{pid}/stat"))


def children(pid: int) -> list[int]:
    """The processes ``pid`` started that live now."""
    return [int(child) for task in Path(f"/proc/{pid}/task").iterdir() for child in (task / "children").read_text().split()]


@dataclass
class Run:
    """One run of ``--distinct``: its states, computed by the engine alone and through the server."""

    label: str
    states: int
    alone: float = 0.0  # wall seconds, the engine alone
    alone_cpu: float = 0.0  # processor seconds of its worker processes
    through: float = 0.0  # wall seconds, through the server
    through_cpu: float = 0.0  # processor seconds of the server's worker processes (prefetches included)
    loop: float = 0.0  # processor seconds of the server process's main thread (the event loop)
    threads: float = 0.0  # ... and of its other threads (the process pool's)
    system: float = 0.0  # of these, the server process's time in the kernel
    prefetched: int = 0
    load: float = 0.0  # the machine's load average (1 minute) at the end of the run

    def __add__(self, other: Run) -> Run:
        summed = {name: getattr(self, name) + getattr(other, name) for name in _SUMMED}
        return Run("all", self.states + other.states, **summed, load=max(self.load, other.load))

    @property
    def own_ms(self) -> float:
        """The server process's processor time per request (ms)."""
        return 1000 * (self.loop + self.threads) / self.states

    @property
    def engine_ms(self) -> float:
        """The engine's processor time per state, alone (ms)."""
        return 1000 * self.alone_cpu / self.states

    def row(self) -> str:
        n = self.states
        return (
            f"| {self.label} | {self.load:.1f} | {self.engine_ms:.1f} | {self.own_ms:.2f} ({1000 * self.loop / n:.2f} + "
            f"{1000 * self.threads / n:.2f}; kernel {1000 * self.system / n:.2f}) "
            f"| **{100 * self.own_ms / self.engine_ms:.1f}%** "
            f"| {self.alone:.2f} ({n / self.alone:.1f}) "
            f"| {self.through:.2f} ({n / self.through:.1f}), {1000 * self.through_cpu / n:.1f}, {self.prefetched} "
            f"| {self.through / self.alone:.3f} | {(self.through_cpu + self.loop + self.threads) / self.alone_cpu:.3f} |"
        )


_SUMMED = ("alone", "alone_cpu", "through", "through_cpu", "loop", "threads", "system", "prefetched")


def computed_count(url: str) -> int:
    """How many answers the server has computed so far (its requests' and its own, prefetches)."""
    return int(httpx.get(f"{url}api/options").json()["served"]["computed"])


def overhead(states: list[bytes], workers: int, clients: int, repeat: int) -> int:
    """Print the table of the engine's processor time per state alone against the server process's own
    per request (its event loop's and its other threads'), and of the wall and processor time of the
    engine's work directly and through the server; then the server's own time split by stage (:func:`stages`)."""
    # Both ways warmed on 40 states of another seed first: a fresh engine process is slower on its first
    # states of each fleet (its tables read in), which made the first run's engine alone 1.5 times slower.
    warm = [json.dumps(GameState.empty(CONFIG).to_json()).encode(), *distinct_states(max(workers, WARM_STATES), seed=1)]
    runs: list[Run] = []
    context = multiprocessing.get_context("spawn")
    with (
        ProcessPoolExecutor(workers, mp_context=context, initializer=_direct_start) as pool,
        serving(workers, 0) as (url, server),
    ):
        ready(url)
        asyncio.run(served(url, warm, workers))  # every engine worker started and its kernel loaded
        list(pool.map(_direct_advice, warm))
        mine, theirs = list(pool._processes), children(server)  # the pool's own processes and the server's, to time them
        for number in range(repeat):
            batch = states[number::repeat]  # each run its own states: neither side has seen them
            run = Run(f"{number + 1}", len(batch))
            for way in ("served", "direct") if number % 2 else ("direct", "served"):
                if way == "direct":
                    before = cpu_seconds(mine)
                    run.alone, expected = direct(batch, pool)
                    run.alone_cpu = cpu_seconds(mine) - before
                    continue
                engine, process, loop = cpu_seconds(theirs), cpu_seconds([server]), loop_seconds(server)
                system, asked = system_seconds(server), computed_count(url)
                run.through, answers = asyncio.run(served(url, batch, clients))
                run.through_cpu, run.loop = cpu_seconds(theirs) - engine, loop_seconds(server) - loop
                run.threads, run.system = cpu_seconds([server]) - process - run.loop, system_seconds(server) - system
                run.prefetched = computed_count(url) - asked - len(batch)
            mismatched = sum(a != b for a, b in zip(answers, expected, strict=True))
            if mismatched:
                raise SystemExit(f"bench_web: {mismatched} answers of the server differ from the engine's own")
            run.load = os.getloadavg()[0]
            runs.append(run)
    print(
        f"{len(states) // repeat} distinct 10x10 mid-game states a run, {workers} engine processes; the server asked by "
        f"{clients} connections at once. CPU: processor time used (the server's engine processes' include the states it "
        "computed ahead, prefetched); the server process's own, per request, is its event loop's + its other threads':"
    )
    print()
    print(
        "| run | load | engine alone: CPU ms/state | server process: CPU ms/request (loop + threads; kernel) | server / engine "
        "| engine alone: s (states/s) | through the server: s (states/s), engine CPU ms/state, prefetched "
        "| wall time server / alone | CPU server / alone |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for run in [*runs, sum(runs[1:], runs[0])]:
        print(run.row())
    total = sum(runs[1:], runs[0])
    print()
    print(split(stages(batch, expected), total.own_ms))
    return 0


# ----- --distinct: the server's own time per request, stage by stage ------------------------------
def request_scope(body: bytes) -> dict[str, Any]:
    """The ASGI scope of ``POST /api/marginals`` with ``body``, as uvicorn hands it to the app."""
    headers = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": "/api/marginals", "raw_path": b"/api/marginals", "query_string": b"", "root_path": "", "headers": headers,
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000), "state": {},
    }  # fmt: skip


async def asked_in_process(app: Any, body: bytes, answer: bytes) -> None:
    """One request through the ASGI app, in this process; its answer must be ``answer``."""
    messages: list[dict[str, Any]] = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop() if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(request_scope(body), receive, send)
    if sent[0]["status"] != 200 or sent[1]["body"] != answer:
        raise SystemExit(f"bench_web: the app in this process answered {sent[0]['status']}: {sent[1]['body'][:200]!r}")


class Captured(asyncio.Transport):
    """A connection's transport in this process: what the server writes is kept, nothing is sent."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += data

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


class OverHttp:
    """``battlelog serve``'s HTTP protocol (uvicorn's httptools protocol with the server's deadlines, on
    its configuration) on one kept-alive connection in this process: the request's bytes in, the
    answer's bytes out, no socket."""

    def __init__(self, app: Any) -> None:
        from uvicorn.server import ServerState

        from battlelog.web.connections import server_config

        config = server_config(app)
        config.load()
        protocol: Any = config.http_protocol_class  # battlelog.web.connections.GuardedProtocol, with the server's limits
        self.protocol = protocol(config=config, server_state=ServerState(), app_state={})
        self.transport = Captured()
        self.protocol.connection_made(self.transport)

    async def ask(self, body: bytes, answer: bytes) -> None:
        """One request; its answer's body must be ``answer``."""
        head = b"POST /api/marginals HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nContent-Type: application/json\r\n"
        self.transport.written.clear()
        self.protocol.data_received(head + b"Content-Length: %d\r\n\r\n" % len(body) + body)
        for _ in range(1000):
            if self.transport.written.endswith(answer):
                return
            await asyncio.sleep(0)
        raise SystemExit(f"bench_web: uvicorn in this process answered {bytes(self.transport.written[:200])!r}")

    def close(self) -> None:
        self.protocol.connection_lost(None)


def stages(bodies: list[bytes], answers: list[bytes], rounds: int = 7) -> dict[str, float]:
    """The processor time (ms a request; the least of ``rounds`` rounds over ``bodies``, the least
    disturbed by the machine's other work) of each of the server's stages, run in this process on the
    very requests: the strict JSON reader, the state's reader, the budget check, the answer's key, the
    call pickled for a worker, the ASGI app whole (Starlette's middlewares, routing, request and
    response, and the endpoint, which runs the stages before, with every answer remembered and every
    worker busy: nothing computed, nothing prefetched), the app under the server's HTTP protocol
    (:class:`OverHttp`), and a round trip to a worker process with a call that does nothing with the
    state and answers as many bytes (the server's side of it). On uvloop, the server's event loop."""
    from starlette.applications import Starlette

    from battlelog.web.advise import advice_text, answer_key
    from battlelog.web.app import create_app
    from battlelog.web.requests import game_state
    from battlelog.web.service import EngineService, check_budget
    from battlelog.web.workers import ProcessPool

    service = EngineService(workers=1)
    values = [parse_json(body, "request body") for body in bodies]
    states = [game_state(value) for value in values]
    for state, answer in zip(states, answers, strict=True):
        service._answers[answer_key(state, service)] = answer
    service.processes.running = service.workers  # every worker busy: the endpoint prefetches nothing
    app: Starlette = create_app(None, service, warm=False)

    def timed(step: Callable[[int], object]) -> float:
        best = float("inf")
        for _ in range(rounds):
            start = time.thread_time()
            for k in range(len(bodies)):
                step(k)
            best = min(best, time.thread_time() - start)
        return 1000 * best / len(bodies)

    async def whole(ask: Callable[[bytes, bytes], Awaitable[None]]) -> float:
        best = float("inf")
        for _ in range(rounds):
            start = time.thread_time()
            for body, answer in zip(bodies, answers, strict=True):
                await ask(body, answer)
            best = min(best, time.thread_time() - start)
        return 1000 * best / len(bodies)

    async def round_trips() -> float:
        pool = ProcessPool(1)
        try:
            await pool.call(_sized, 0, states[0])  # the worker started
            best = float("inf")
            for _ in range(rounds):
                start = time.thread_time()
                for state, answer in zip(states, answers, strict=True):
                    await pool.call(_sized, len(answer), state)
                best = min(best, time.thread_time() - start)
            return 1000 * best / len(states)
        finally:
            pool.close()

    async def through_http() -> float:
        http = OverHttp(app)
        try:
            return await whole(http.ask)
        finally:
            http.close()

    try:
        return {
            "json": timed(lambda k: parse_json(bodies[k], "request body")),
            "state": timed(lambda k: game_state(values[k])),
            "budget": timed(lambda k: check_budget(states[k].config, service.engine_name)),
            "key": timed(lambda k: answer_key(states[k], service)),
            "pickle": timed(lambda k: pickle.dumps((k, advice_text, (service.engine_name, states[k])), pickle.HIGHEST_PROTOCOL)),
            "pool": uvloop.run(round_trips()),
            "app": uvloop.run(whole(partial(asked_in_process, app))),
            "http": uvloop.run(through_http()),
        }
    finally:
        service.processes.running = 0
        service.close()


def split(costs: dict[str, float], own: float) -> str:
    """The table of the server process's ``own`` processor time per request (ms, measured in the served
    runs) split by the stages ``costs`` timed in this process (:func:`stages`); the rest is what only
    the running server does: uvicorn's HTTP, the event loop, the pipes to the workers."""
    inside = costs["json"] + costs["state"] + costs["budget"] + costs["key"]
    rows = [
        ("the body's JSON, read strictly (`parse_json`: a repeated key refused)", costs["json"]),
        ("the state, read and checked shot by shot (`GameState.from_json`)", costs["state"]),
        ("the board's budget (`check_budget`)", costs["budget"]),
        ("the answer's key, the state's JSON text (`answer_key`)", costs["key"]),
        ("the rest of the ASGI app: Starlette (middlewares, routing, request, response), the cache", costs["app"] - inside),
        ("HTTP: uvicorn's protocol and httptools (parsing the request, writing the answer's head)", costs["http"] - costs["app"]),
        ("the call pickled for its worker (`ProcessPool.call`)", costs["pickle"]),
        ("the rest of a round trip to a worker: the pipe written and watched, the answer read", costs["pool"] - costs["pickle"]),
        ("the rest: the sockets' reads and writes, the event loop's wake-ups", own - costs["http"] - costs["pool"]),
    ]
    lines = ["| the server's own time per request | ms | share |", "|---|---|---|"]
    lines += [f"| {what} | {ms:.3f} | {100 * ms / own:.0f}% |" for what, ms in rows]
    return "\n".join([*lines, f"| **all (the served runs, the process's processor time)** | **{own:.3f}** | 100% |"])


def worker_peaks(server: int) -> list[int]:
    """The peak resident memory (bytes) of each process the server started that lives now (Linux's /proc)."""
    peaks = []
    for task in Path(f"/proc/{server}/task").iterdir():
        for child in (task / "children").read_text().split():
            status = Path(f"/proc/{child}/status").read_text()
            peaks += [int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmHWM:")]
    return sorted(peaks, reverse=True)


@contextmanager
def serving(workers: int, book: int) -> Iterator[tuple[str, int]]:
    """`battlelog serve --port 0` in a child process on 127.0.0.1: its address and process id."""
    argv = [sys.executable, "-m", "battlelog.cli", "serve", "--port", "0", "--workers", str(workers), "--book", str(book)]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if not line.startswith("battlelog: serving on "):
            raise SystemExit(f"bench_web: the server did not start: {line!r}")
        yield line.split()[3], server.pid
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2, help="the server's engine processes (serve --workers)")
    parser.add_argument("--book", type=int, default=4000, help="the server's opening book (serve --book; default 4000)")
    parser.add_argument("--think", type=float, default=0.0, help="a client's mean pause before an answer (s; default 0)")
    parser.add_argument(
        "--distinct", type=int, default=0, metavar="N", help="measure the server's overhead on N distinct states instead"
    )
    parser.add_argument("--repeat", type=int, default=2, help="with --distinct: how many times each way (default 2)")
    args = parser.parse_args()
    if args.distinct:
        return overhead(distinct_states(args.distinct * args.repeat), args.workers, args.clients, args.repeat)
    with serving(args.workers, args.book) as (url, pid):
        waited = time.perf_counter()
        book = ready(url)
        waited = time.perf_counter() - waited
        before = httpx.get(f"{url}api/options").json()["served"]
        began = time.perf_counter()
        tally = asyncio.run(load(url, args.clients, args.seconds, args.think))
        took = time.perf_counter() - began
        after = httpx.get(f"{url}api/options").json()["served"]
        peaks = worker_peaks(pid)
    total = len(tally.first) + len(tally.later)
    think = f", thinking {args.think:g} s per answer on average" if args.think else ", answering at once"
    print(
        f"{args.clients} clients for {args.seconds:g} s against `battlelog serve --workers {args.workers} --book {args.book}` "
        f"on {CONFIG.label()}{think}:"
    )
    print(f"(the server was ready after {waited:.0f} s, its opening book {book['states']} states)")
    print(f"{total} advice requests ({total / took:.0f}/s), {tally.games} games finished, {len(tally.errors)} errors")
    print(f"  empty board:          {percentiles(tally.first)}")
    print(f"  after the first shot: {percentiles(tally.later)}")
    print("  answered: " + ", ".join(f"{after[how] - before[how]} {how}" for how in after))
    print("  peak resident memory of the server's worker processes: " + ", ".join(f"{peak / 2**20:.0f} MiB" for peak in peaks))
    for error in tally.errors[:5]:
        print(f"  error: {error}")
    return 1 if tally.errors else 0


if __name__ == "__main__":
    sys.exit(main())
