"""How long the native engine takes on game states with tallies (issue 40's targets), and which of its two ways does it.

The standard game: 10x10, fleet 5,4,3,3,2, touching allowed, sinks named; a layout drawn uniformly (``sample_layout``),
then ``--given`` of its 20 row and column tallies kept at random (20: all), no shots. Each state is asked of a fresh
native engine (``NativeEngine().marginals``: exact cells and the number of layouts, what ``battlelog marginals``
prints), timed whole; and, to choose between the engine's two ways (battlelog/engines/native/tallied.py), the listing
alone (``tallied_layouts``: None when it gives up) and the puzzle counter alone (``puzzle_marginals``). The counter's
compiled code is loaded before the timing (numba caches it on disk).

usage:
  python experiments/bench_tallies_evidence.py                       # 20 and 10 tallies, 5 layouts each
  python experiments/bench_tallies_evidence.py --given 20 --given 15 --states 3 --seed 7
Prints a Markdown table to stdout: per number of tallies, the median and max time of each way and the layouts' range.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
from machine import machine_header

from battlelog.engines.native import tallied
from battlelog.engines.native.engine import NativeEngine
from battlelog.errors import BudgetExceeded
from battlelog.model.ground import ground_problem
from battlelog.report.markdown import duration, markdown_table
from battlelog.rules.config import GameConfig
from battlelog.rules.layouts import sample_layout
from battlelog.rules.state import GameState

CONFIG = GameConfig(10, (5, 4, 3, 3, 2))


def tallied_state(rng: np.random.Generator, given: int) -> GameState:
    """The empty board of :data:`CONFIG` with ``given`` of a uniform layout's 20 tallies, chosen at random."""
    covered = np.zeros((CONFIG.rows, CONFIG.cols), dtype=np.int64)
    for placement in sample_layout(CONFIG, rng):
        for cell in placement.cells:
            covered[cell] = 1
    lines = [int(v) for v in covered.sum(axis=1)] + [int(v) for v in covered.sum(axis=0)]
    keep = set(rng.choice(len(lines), size=given, replace=False).tolist())
    kept = [v if k in keep else None for k, v in enumerate(lines)]
    return GameState(CONFIG, row_counts=tuple(kept[: CONFIG.rows]), col_counts=tuple(kept[CONFIG.rows :]))


def timed(what: Callable[..., object], *args: object) -> tuple[float, object]:
    """Seconds taken by ``what(*args)`` and what it returned (the BudgetExceeded it raised, if it did)."""
    start = time.perf_counter()
    try:
        out = what(*args)
    except BudgetExceeded as exc:
        out = exc
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--given", type=int, action="append", help="tallies kept of 20 (repeatable; default 20 and 10)")
    parser.add_argument("--states", type=int, default=5, help="layouts per number of tallies")
    parser.add_argument("--seed", type=int, default=40)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    tallied.puzzle_marginals(tallied_state(np.random.default_rng(0), 20))  # load the counter's compiled code
    rows = []
    for given in args.given or [20, 10]:
        engine_times, listing_times, counter_times, models, gave_up = [], [], [], [], 0
        for _ in range(args.states):
            state = tallied_state(rng, given)
            seconds, result = timed(NativeEngine().marginals, state)
            engine_times.append(seconds)
            models.append(getattr(result, "models", None))
            seconds, listed = timed(lambda s: tallied.tallied_layouts(ground_problem(s), s), state)
            listing_times.append(seconds)
            gave_up += listed is None
            counter_times.append(timed(tallied.puzzle_marginals, state)[0])
        known = [m for m in models if m is not None]
        rows.append(
            [
                str(given),
                f"{duration(statistics.median(engine_times))} / {duration(max(engine_times))}",
                f"{duration(statistics.median(listing_times))} / {duration(max(listing_times))} ({gave_up} gave up)",
                f"{duration(statistics.median(counter_times))} / {duration(max(counter_times))}",
                f"{min(known):,} .. {max(known):,}" if known else "over budget",
            ]
        )
    print(machine_header("Tallies as evidence: the native engine on the standard game", seed=args.seed))
    print(f"10x10, fleet 5,4,3,3,2, touching allowed, no shots; {args.states} uniform layouts per row, seed {args.seed}\n")
    header = ["tallies", "engine (median / max)", "listing alone", "puzzle counter alone", "layouts"]
    print(markdown_table(header, rows))


if __name__ == "__main__":
    main()
