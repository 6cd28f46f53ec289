"""A kept model counted again for a miss (battlelog/engines/native/misses.py) against a sweep of the state.

Plays greedy (`problog`) games on 10x10 5,4,3,3,2 and, at every miss whose state before it was swept, times
the counts of the state after it twice: an engine that has just counted the state before (so it counts
its kept model again) and a fresh engine (so it sweeps); both must agree, count for count. Also times the
state two misses on, where there is one. Numba's kernels are compiled beforehand (untimed); listing is
left to the engine, so late states with few layouts are listed by both and left out.

usage:
  python experiments/bench_misses.py                  # 5 games of seed 101
  python experiments/bench_misses.py --games 20 --seed 7
Prints a Markdown table to stdout: by shots fired before the miss, the states and the median times.
"""

from __future__ import annotations

import argparse
import statistics
import time

from battlelog import api
from battlelog.engines.native.engine import NativeEngine
from battlelog.report.markdown import duration, markdown_table

BANDS = ((1, 4), (5, 9), (10, 14), (15, 24), (25, 100))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seed", type=int, default=101, help="seed of the boards (default 101, a training seed)")
    args = parser.parse_args()
    api.play(10, "5,4,3,3,2", "problog", seed=0)  # compiles the kernels: untimed
    found: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for game in range(args.games):
        played = api.play(10, "5,4,3,3,2", "problog", seed=args.seed + 1000 * game).state
        for t in range(1, len(played.shots)):
            for extra in (1, 2):
                after = played.prefix(t + extra) if t + extra <= len(played.shots) else None
                if after is None or any(shot.result != "miss" for shot in played.shots[t : t + extra]):
                    break
                kept = NativeEngine(reuse=False)
                kept.counts(played.prefix(t))
                if not kept.keeps_model:  # the state before was listed or split, not swept: nothing to count again
                    break
                start = time.perf_counter()
                again = kept.counts(after)
                recount = time.perf_counter() - start
                fresh = NativeEngine(reuse=False)
                start = time.perf_counter()
                swept = fresh.counts(after)
                sweep = time.perf_counter() - start
                assert again.models == swept.models and (again.cells == swept.cells).all(), f"game {game}, shot {t + extra}"
                band = next(b for b in BANDS if b[0] <= t <= b[1])
                found.setdefault((band[0], extra), []).append((recount, sweep))
    rows = []
    for (low, extra), pairs in sorted(found.items()):
        high = next(b[1] for b in BANDS if b[0] == low)
        recount, sweep = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
        rows.append(
            [f"{low}-{high}", f"+{extra}", str(len(pairs)), duration(recount), duration(sweep), f"{sweep / recount:.1f}x"]
        )
    print(f"10x10 5,4,3,3,2, greedy games of seed {args.seed} (game i: seed {args.seed} + 1000 i), {args.games} games\n")
    print(markdown_table(["shots before", "misses on", "states", "counted again (median)", "swept (median)", "speed-up"], rows))


if __name__ == "__main__":
    main()
