"""The native engine's ceiling: one empty board counted in a process of its own, its time and its peak.

Counts the empty board (``NativeEngine(memory_budget=...).counts``, no cache involved) and prints
a line: the layouts or the one-line refusal, the wall time, how many levels the sweep advanced (a
rebuilt model advances each level twice, a split state once per case) and how many of them were
taken a slice at a time, how many were read back from packed levels (a rebuilt model's levels packed
in the forward sweep, not swept again; a checkout without packing prints none), the most cases of a
split (its depth), the process's CPU time (user and system, every thread: under load, a steadier
figure than the wall time) and its peak resident memory (``ru_maxrss``, so run one board per process). Then, for a
model kept whole, its size and what counting it again for a miss would add (``misses.recount_bytes``).

usage:
  python experiments/bench_ceiling.py 10 5,4,4,3,3,3,2,2 --budget 1073741824
  python experiments/bench_ceiling.py 15 5,4,3,3,2
  python experiments/bench_ceiling.py 12x10 5,4,3,3,2 --touch none
"""

from __future__ import annotations

import argparse
import resource
import time
from typing import Any

from battlelog.engines.native import layered, misses
from battlelog.engines.native.engine import NativeEngine
from battlelog.errors import BattlelogError
from battlelog.rules.config import GameConfig, parse_ships
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("board", help="N for a square board, or ROWSxCOLS")
    parser.add_argument("ships", help="the fleet, e.g. 5,4,3,3,2")
    parser.add_argument("--budget", type=int, default=None, help="the engine's memory budget in bytes (default: the engine's)")
    parser.add_argument("--touch", default="allowed", choices=("allowed", "diagonal", "none"))
    parser.add_argument(
        "--unturned", action="store_true", help="sweep the whole board in one raster order (engines/native/turns.py off)"
    )
    args = parser.parse_args()
    rows, _, cols = args.board.partition("x")
    config = GameConfig(int(rows), parse_ships(args.ships), Rules(touch=args.touch), cols=int(cols or rows))

    seen = {"levels": 0, "slices": 0, "depth": 0, "unpacked": 0, "sweeps": 0}
    advance, in_slices, compile_ = layered._advance, layered._advance_in_slices, NativeEngine.compile_model

    def counted_advance(*a: Any) -> Any:
        seen["levels"] += 1
        return advance(*a)

    def counted_slices(*a: Any) -> Any:
        seen["slices"] += 1
        return in_slices(*a)

    def counted_compile(
        self: NativeEngine, problem: Any, order: Any, depth: int, tracked: bool = False, limit: Any = None
    ) -> Any:
        seen["depth"] = max(seen["depth"], depth)
        seen["sweeps"] += 1
        return compile_(self, problem, order, depth, tracked, limit)

    setattr(layered, "_advance", counted_advance)  # noqa: B010 - counting calls, not typing them
    setattr(layered, "_advance_in_slices", counted_slices)  # noqa: B010
    setattr(NativeEngine, "compile_model", counted_compile)  # noqa: B010
    unpacked = getattr(layered, "_unpacked", None)
    if unpacked is not None:

        def counted_unpacked(segment: Any) -> Any:
            levels = unpacked(segment)
            seen["unpacked"] += len(levels)
            return levels

        setattr(layered, "_unpacked", counted_unpacked)  # noqa: B010
    collect_packed = getattr(layered, "_collect_packed", None)
    if collect_packed is not None:

        def counted_collect(segment: Any, *a: Any) -> Any:
            seen["unpacked"] += len(segment.packed)
            return collect_packed(segment, *a)

        setattr(layered, "_collect_packed", counted_collect)  # noqa: B010
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_SELF)
    cpu_before = before.ru_utime + before.ru_stime
    engine = NativeEngine(memory_budget=args.budget, turn=not args.unturned)
    try:
        outcome = f"{engine.counts(GameState.empty(config)).models:,} layouts"
    except BattlelogError as exc:
        outcome = f"refused: {exc}"
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu_before
    print(
        f"{config.label()}{' unturned' if args.unturned else ''}: {outcome}; {time.perf_counter() - start:.1f} s "
        f"({cpu:.1f} s CPU), {seen['sweeps']} sweep{'s' * (seen['sweeps'] != 1)}, {seen['levels']} levels "
        f"({seen['slices']} in slices, {seen['unpacked']} read packed), split depth {seen['depth']}, "
        f"peak {usage.ru_maxrss / 1024:,.0f} MB"
    )
    kept = engine.memory.whole[1] if engine.memory.whole is not None else None  # the model kept for the next state's call
    turned = engine.memory.turned
    if turned is not None:
        models = {id(model): model for model, _ in turned.parts}.values()
        sizes = ", ".join(f"{model.nbytes / 1e6:,.0f} MB" for model in models)
        print(f"counted in two cases by the longest ship's orientation; case models kept for recounts: {sizes or 'none'}")
    if kept is not None and not kept.rebuilds:
        states = sum(level.states for _, level in kept.levels())
        recount = misses.recount_bytes(kept, drawing=False)
        verdict = (
            "counted again on it" if kept.nbytes + recount <= engine.memory_budget else "swept (model and recount would pass it)"
        )
        print(
            f"kept model: {kept.nbytes / 1e6:,.0f} MB, {states:,} states; a recount of a miss on it allocates "
            f"{recount / 1e6:,.0f} MB more ({misses.recount_bytes(kept, drawing=True) / 1e6:,.0f} MB to draw from); "
            f"under the budget of {engine.memory_budget / 1e6:,.0f} MB a state a miss on is {verdict}"
        )


if __name__ == "__main__":
    main()
