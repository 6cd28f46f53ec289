"""The empty board under a touch prior against the uniform one, each in a cold process (issue 37).

Each measurement is a child process of its own with an empty cache folder (``BATTLELOG_CACHE_DIR``: no stored empty
board; numba's kernels cached as installed) that asks the native engine for the empty board's marginals, as a user's
first command does (``Workspace().engine("native").marginals``): the time of that call, the process's CPU time in it
and its peak resident memory. A second child then asks the same on the cache folder the first one filled (the empty
board's marginals on disk, keyed by the prior). Rows are interleaved (every prior and checkout once per round), so
that a shared machine's load falls on all alike; each cell gives the median of the rounds and their range.

``--before DIR`` runs the same children on another checkout (``git worktree add DIR COMMIT`` or ``git archive``):
the before and after of a change in one table.

usage:
  python experiments/bench_touch_prior.py --rounds 3
  python experiments/bench_touch_prior.py --rounds 3 --before /tmp/before --prior touch=-1 --prior edge=0.5,touch=0.5
Prints a Markdown table to stdout.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_engines import answer_child, run_child
from machine import machine_header

from battlelog.report.markdown import duration, markdown_table, megabytes

SCRIPT = str(Path(__file__).resolve())


def child(task: dict[str, Any]) -> dict[str, Any]:
    """The empty board's marginals under ``task["prior"]`` in this process: the call's time and CPU time."""
    from battlelog.engines.workspace import Workspace
    from battlelog.rules.config import GameConfig, parse_ships
    from battlelog.rules.prior import Prior
    from battlelog.rules.state import GameState

    config = GameConfig(task["size"], parse_ships(task["ships"])).with_prior(
        Prior.parse(task["prior"]) if task["prior"] else Prior()
    )
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    marginals = Workspace().engine("native").marginals(GameState.empty(config))
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {"seconds": seconds, "cpu": cpu, "models": marginals.models, "sum": float(marginals.cells.sum())}


def spread(values: list[float], show: Any) -> str:
    """The median and, for more than one value, the range: ``1.23 s (1.20-1.31 s)``."""
    if not values:
        return "-"
    middle = show(statistics.median(values))
    return middle if len(values) == 1 else f"{middle} ({show(min(values))}-{show(max(values))})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10, help="the board's side (default: 10)")
    parser.add_argument("--ships", default="5,4,3,3,2", help="the fleet (default: 5,4,3,3,2)")
    parser.add_argument("--prior", action="append", help="a prior to measure beside the uniform one (repeatable; default: "
                        "edge=0.8,vertical=-0.3,touch=-0.5 and touch=-0.5)")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=3, help="measurements of each row, interleaved (default: 3)")
    parser.add_argument("--before", help="another checkout to measure the same way (its code on PYTHONPATH)")
    parser.add_argument("--time-limit", type=float, default=600, help="seconds per child (default: 600)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return answer_child(args.child, child)
    print(machine_header("The empty board under a touch prior, cold", argv))
    priors = ["", *(args.prior or ["edge=0.8,vertical=-0.3,touch=-0.5", "touch=-0.5"])]
    here = str(Path(SCRIPT).parent.parent)
    checkouts = [("before", str(Path(args.before).resolve()))] if args.before else []
    checkouts.append(("after" if args.before else "this checkout", here))
    base = {"size": args.size, "ships": args.ships}
    for _, code in checkouts:  # warm numba's cache of every kernel the rows load, for each checkout
        for prior in priors:
            with tempfile.TemporaryDirectory(prefix="battlelog-bench-") as cache:
                run_child({**base, "prior": prior}, args.time_limit, SCRIPT, _env(code, cache))
    seen: dict[tuple[str, str], dict[str, list[float]]] = {}
    for _ in range(args.rounds):
        for label, code in checkouts:
            for prior in priors:
                with tempfile.TemporaryDirectory(prefix="battlelog-bench-") as cache:
                    cold = run_child({**base, "prior": prior}, args.time_limit, SCRIPT, _env(code, cache))
                    warm = run_child({**base, "prior": prior}, args.time_limit, SCRIPT, _env(code, cache))  # the board on disk
                row = seen.setdefault((label, prior), {"seconds": [], "cpu": [], "peak": [], "disk": [], "disk peak": []})
                for name, result in (("", cold), ("disk", warm)):
                    if "seconds" not in result:
                        print(f"  {label} {prior or 'uniform'}: {result.get('status')}", file=sys.stderr)
                        continue
                    if name:
                        row["disk"].append(result["seconds"])
                        row["disk peak"].append(result["peak"])
                    else:
                        row["seconds"].append(result["seconds"])
                        row["cpu"].append(result["cpu"])
                        row["peak"].append(result["peak"])
        print("  round done", file=sys.stderr, flush=True)
    rows = []
    for (label, prior), row in seen.items():
        uniform = seen[(label, "")]
        ratio = (
            statistics.median(row["seconds"]) / statistics.median(uniform["seconds"])
            if row["seconds"] and uniform["seconds"]
            else None
        )
        memory = statistics.median(row["peak"]) / statistics.median(uniform["peak"]) if row["peak"] and uniform["peak"] else None
        rows.append([label, prior or "uniform", spread(row["seconds"], duration), spread(row["cpu"], duration),
                     spread(row["peak"], megabytes), "-" if ratio is None else f"{ratio:.2f}x, {memory:.2f}x",
                     spread(row["disk"], duration), spread(row["disk peak"], megabytes)])  # fmt: skip
    header = ["code", "prior", "empty board, cold process", "its CPU", "its peak", "against uniform (time, peak)",
              "second process (board on disk)", "its peak"]  # fmt: skip
    print(markdown_table(header, rows))
    print(
        f"\n{args.size}x{args.size} {args.ships}; median of {args.rounds} interleaved rounds (range in brackets), each a process "
        "of its own with an empty cache folder; the second process reads the first one's cache folder.\n"
    )
    return 0


def _env(code: str, cache: str) -> dict[str, str]:
    """A child's environment: ``code`` first on the path, ``cache`` as its cache folder."""
    return {**os.environ, "PYTHONPATH": code, "BATTLELOG_CACHE_DIR": cache}


if __name__ == "__main__":
    sys.exit(main())
