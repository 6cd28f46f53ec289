"""Load on `battlelog serve`: many concurrent clients advising standard 10x10 games, as the page does.

Starts `battlelog serve --port 0` in a child process (on 127.0.0.1 only), then runs CLIENTS clients
at once for SECONDS: each draws a hidden layout, asks POST /api/marginals with the game so far, answers
the suggested shot as a referee would, and starts a new game when every ship is sunk. Every answer must
be 200 with a suggestion on an unshot cell (or none once the game is over); any other answer counts as
an error. The loop is bounded in time and stops by itself; only the loopback address is used.

The clock starts once the server has answered the empty board once (it computes it at start).
Prints the requests, errors, throughput and the latency percentiles of an advice request, apart for the
empty board (the first request of a game) and after the first shot (issue 19's target: p95 <= 250 ms).

usage:
  python experiments/bench_web.py                          # 50 clients for 60 s
  python experiments/bench_web.py --clients 10 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time

import httpx
import numpy as np

from battlelog.rules.config import GameConfig
from battlelog.rules.layouts import sample_layout
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState

CONFIG = GameConfig(10, (5, 4, 3, 3, 2))


class Tally:
    """Latencies (seconds) of the empty board and of later states, and the errors seen."""

    def __init__(self) -> None:
        self.first: list[float] = []
        self.later: list[float] = []
        self.errors: list[str] = []
        self.games = 0


async def client(http: httpx.AsyncClient, url: str, seed: int, until: float, tally: Tally) -> None:
    """Advise games one after another until the clock passes ``until``."""
    rng = np.random.default_rng(seed)
    while time.monotonic() < until:
        referee = Referee(CONFIG, sample_layout(CONFIG, rng))
        state = GameState.empty(CONFIG)
        while time.monotonic() < until:
            start = time.perf_counter()
            try:
                answer = await http.post(f"{url}api/marginals", json=state.to_json())
            except httpx.HTTPError as exc:
                tally.errors.append(f"{type(exc).__name__}: {exc}")
                return
            (tally.later if state.shots else tally.first).append(time.perf_counter() - start)
            if answer.status_code != 200:
                tally.errors.append(f"{answer.status_code}: {answer.text[:200]}")
                return
            suggest = answer.json()["suggest"]
            if suggest is None:
                if not state.over:
                    tally.errors.append("no suggestion before the end of the game")
                tally.games += 1
                break
            cell = (suggest["row"], suggest["col"])
            if cell in state.shot_cells:
                tally.errors.append(f"suggested {cell}, already shot")
                return
            state = state.with_shot(*cell, *referee.shoot(*cell))


def ready(url: str) -> None:
    """Wait until the server answers the empty board (it computes it at start, loading the engine's kernel)."""
    empty = GameState.empty(CONFIG).to_json()
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.post(f"{url}api/marginals", json=empty, timeout=60).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit("bench_web: the server did not answer within 120 s")
        time.sleep(0.2)


def percentiles(values: list[float]) -> str:
    if not values:
        return "no request"
    p50, p95, p99 = (1000 * float(np.percentile(values, q)) for q in (50, 95, 99))
    return f"{len(values):6d} requests  p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  p99 {p99:7.1f} ms  max {1000 * max(values):7.1f} ms"


async def load(url: str, clients: int, seconds: float) -> Tally:
    tally = Tally()
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(limits=limits, timeout=60) as http:
        until = time.monotonic() + seconds
        await asyncio.gather(*(client(http, url, seed, until, tally) for seed in range(clients)))
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2, help="the server's engine threads (serve --workers)")
    args = parser.parse_args()
    argv = [sys.executable, "-m", "battlelog.cli", "serve", "--port", "0", "--workers", str(args.workers)]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if not line.startswith("battlelog: serving on "):
            print(f"bench_web: the server did not start: {line!r}", file=sys.stderr)
            return 1
        url = line.split()[3]
        ready(url)
        began = time.perf_counter()
        tally = asyncio.run(load(url, args.clients, args.seconds))
        took = time.perf_counter() - began
    finally:
        server.terminate()
        server.wait(timeout=30)
    total = len(tally.first) + len(tally.later)
    print(f"{args.clients} clients for {args.seconds:g} s against `battlelog serve --workers {args.workers}` on {CONFIG.label()}:")
    print(f"{total} advice requests ({total / took:.0f}/s), {tally.games} games finished, {len(tally.errors)} errors")
    print(f"  empty board:          {percentiles(tally.first)}")
    print(f"  after the first shot: {percentiles(tally.later)}")
    for error in tally.errors[:5]:
        print(f"  error: {error}")
    return 1 if tally.errors else 0


if __name__ == "__main__":
    sys.exit(main())
