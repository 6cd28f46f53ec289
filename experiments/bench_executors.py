"""How an experiment scales with its executor: games per second with 1 and 2 workers, and the client's cost.

For each way of running (local worker processes; `--executor dask`, a LocalCluster; and dask as on
a real cluster, a `dask scheduler` and `dask worker` processes on this machine), worker count and
player, one fresh experiment on the same boards, through run_experiment exactly as the command runs
it (journal with one fsync per game included, progress bar off). The executor is started before the
clock starts, so games/s is the steady rate; start-up is reported on its own. "client CPU" is the CPU
time of this process per game: for the local executor the parent's pipes and journal; for a
LocalCluster also its scheduler and nannies, which live in the client's process; with a separate
scheduler, the client's own cost.

usage:
  python experiments/bench_executors.py                          # pdf and problog on 6x6 4,3,3, both executors
  python experiments/bench_executors.py --size 8 --ships 5,4,3,3,2 --exact-games 100
Prints a Markdown table to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from machine import machine_header

from battlelog.report.markdown import markdown_table
from battlelog.rules.config import GameConfig, parse_ships
from battlelog.runner.executors import Limits, make_executor
from battlelog.runner.executors.base import Executor
from battlelog.runner.executors.dask_cluster import DaskExecutor
from battlelog.runner.executors.dask_connect import ALLOWED_FAILURES_ENV
from battlelog.runner.experiment import Experiment, RunReport, run_experiment


@dataclass(frozen=True)
class Measure:
    """One run: how long the executor took to start, the run's wall time and this process's CPU time, in seconds."""

    startup: float
    wall: float
    cpu: float
    report: RunReport


#: The ways of running compared: the two executors, and dask with its scheduler and workers in their own processes.
MODES = ("local", "dask", "dask-processes")
DASK = str(Path(sys.executable).parent / "dask")


@contextmanager
def dask_processes(workers: int) -> Iterator[str]:
    """A `dask scheduler` and ``workers`` one-thread `dask worker` processes on 127.0.0.1, as a cluster is run; its address."""
    with tempfile.TemporaryDirectory() as scratch:
        file = Path(scratch) / "scheduler.json"
        env = dict(os.environ, **dict([ALLOWED_FAILURES_ENV.split("=")]))
        quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True}
        started = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                     "--scheduler-file", str(file)], env=env, **quiet)]
        try:
            while not file.exists():
                time.sleep(0.05)
            address = json.loads(file.read_text())["address"]
            started += [subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--memory-limit", "4GiB", "--no-dashboard"],
                                         env=env, **quiet) for _ in range(workers)]
            yield address
        finally:
            for process in started:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait()


@contextmanager
def executor_for(mode: str, workers: int) -> Iterator[Executor]:
    """The executor of ``mode`` with ``workers`` workers (not started yet)."""
    limits = Limits(workers, 4 * 2**30, 600)
    if mode != "dask-processes":
        with make_executor(mode, limits) as executor:
            yield executor
        return
    with dask_processes(workers) as address, DaskExecutor(limits, scheduler=address) as executor:
        yield executor


def measure(mode: str, workers: int, experiment: Experiment) -> Measure:
    """Start the executor (and, for dask-processes, wait for its workers), then play the experiment under the clock."""
    with tempfile.TemporaryDirectory() as scratch, executor_for(mode, workers) as executor:
        start = time.perf_counter()
        executor.start()
        if isinstance(executor, DaskExecutor):
            executor.client.wait_for_workers(workers, timeout=120)
        startup = time.perf_counter() - start
        wall, cpu = time.perf_counter(), time.process_time()
        report = run_experiment(experiment, Path(scratch), executor, progress=False)
        return Measure(startup, time.perf_counter() - wall, time.process_time() - cpu, report)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=6, help="board size (default: 6)")
    parser.add_argument("--ships", default="4,3,3", help="fleet (default: 4,3,3, where the exact engine is fast)")
    parser.add_argument("--pdf-games", type=int, default=400, help="games of the pdf player per run (default: 400)")
    parser.add_argument("--exact-games", type=int, default=400, help="games of the exact player per run (default: 400)")
    parser.add_argument("--workers", default="1,2", help="worker counts to compare (default: 1,2)")
    parser.add_argument("--modes", default=",".join(MODES), help=f"ways of running to compare (default: {','.join(MODES)})")
    parser.add_argument("--seed", type=int, default=0, help="root seed of the boards (default: 0)")
    args = parser.parse_args(argv)
    config = GameConfig(args.size, parse_ships(args.ships))
    # problog on its default (native) engine
    runs: list[tuple[str, int, dict[str, Any]]] = [("pdf", args.pdf_games, {}), ("problog", args.exact_games, {})]

    rows = []
    for executor in args.modes.split(","):
        for workers in (int(w) for w in args.workers.split(",")):
            for player, games, options in runs:
                experiment = Experiment(config, (player,), games, args.seed, options)
                m = measure(executor, workers, experiment)
                if m.report.failed:
                    raise SystemExit(f"{executor} {workers} {player}: {m.report.failed} games failed; the rate would be wrong")
                rows.append([
                    executor, str(workers), player, str(games), f"{m.startup:.1f}", f"{m.wall:.2f}",
                    f"{games / m.wall:.1f}", f"{1000 * m.cpu / games:.2f}",
                ])  # fmt: skip
                print(f"  {executor} x{workers} {player}: {games / m.wall:.1f} games/s", file=sys.stderr, flush=True)

    print(machine_header(f"Executors on {config.label()}", argv, args.seed))
    header = ["run by", "workers", "player", "games", "start-up s", "wall s", "games/s", "client CPU ms/game"]
    print(markdown_table(header, rows, align="lrlrrrrr"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
