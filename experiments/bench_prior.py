"""The native engine under a prior (issue 18) against its targets, with the uniform prior measured in the same run.

Every row runs in a child process of its own (peak memory is that child's VmHWM; an empty cache
folder, so nothing is read from disk; numba's kernel cached as installed), interleaved uniform /
prior so that a shared machine's load falls on both alike:

- the empty 10x10 5,4,3,3,2 board, cold: uniform, a prior without a touch weight (the same model,
  weighed), and one with a touch weight (the sweep keeps the occupancy profile: a larger model);
  then the same prior's ``feature_expectations`` and ``log_partition`` (the learning side);
- whole greedy games (the problog player: the most probable cell) from a cold start each.

Targets: the weighted empty board <= 2 s cold, a whole greedy game with a prior <= 5 s, peak <= 1 GB.

usage:
  python experiments/bench_prior.py                  # about 15 minutes on 2 cores (the touch weight's rows most of it)
  python experiments/bench_prior.py --games 3 --prior edge=0.8,vertical=-0.3,touch=-0.5
Prints Markdown tables to stdout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench_engines import answer_child, run_child
from machine import machine_header

from battlelog.players import make_player
from battlelog.report.markdown import duration, markdown_table, megabytes
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

SCRIPT = str(Path(__file__).resolve())
STANDARD = GameConfig(10, (5, 4, 3, 3, 2))


def child(task: dict[str, Any]) -> dict[str, Any]:
    """One measurement in this process: the empty board, the learning calls, or greedy games."""
    from battlelog.engines.native.engine import NativeEngine
    from battlelog.engines.workspace import Workspace

    config = STANDARD.with_prior(Prior.parse(task["prior"]) if task["prior"] else Prior())
    if task["task"] == "empty":
        start = time.perf_counter()
        marginals = Workspace().engine("native").marginals(GameState.empty(config))
        return {"seconds": time.perf_counter() - start, "models": marginals.models, "sum": float(marginals.cells.sum())}
    if task["task"] == "learning":
        engine = NativeEngine()
        start = time.perf_counter()
        features = engine.feature_expectations(GameState.empty(config))
        log_z = engine.log_partition(GameState.empty(config))
        return {"seconds": time.perf_counter() - start, "features": [float(f) for f in features], "log_z": log_z}
    totals, moves, scores = [], [], []
    for game in range(task["games"]):
        workspace = Workspace()  # cold: nothing remembered from the previous game (the cache folder is empty)
        player = make_player("problog", game_seeds(task["seed"], game)[1])
        player.use(workspace)
        result = play_game(config, layout_for(config, task["seed"], game), player)
        player.close()
        totals.append(result.seconds)
        moves += result.move_seconds
        scores.append(result.score)
    return {"totals": totals, "moves": moves, "scores": scores}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--prior", default="edge=0.8,vertical=-0.3", help="the prior without a touch weight (default: edge=0.8,vertical=-0.3)"
    )
    parser.add_argument(
        "--touch-prior",
        default="edge=0.8,vertical=-0.3,touch=-0.5",
        help="the prior with one (default: edge=0.8,vertical=-0.3,touch=-0.5)",
    )
    parser.add_argument("--games", type=int, default=3, help="greedy games per prior (default: 3)")
    parser.add_argument(
        "--touch-games", type=int, default=1, help="greedy games under the prior with a touch weight (default: 1; minutes each)"
    )
    parser.add_argument("--seed", type=int, default=1, help="root seed of the boards (default: 1)")
    parser.add_argument("--time-limit", type=float, default=600, help="seconds per child task (default: 600)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return answer_child(args.child, child)
    print(machine_header("The native engine under a prior", argv))
    priors = [("uniform", ""), (args.prior, args.prior), (args.touch_prior, args.touch_prior)]
    run_child({"task": "empty", "prior": ""}, args.time_limit, SCRIPT)  # warm numba's cache for the counting kernel
    run_child({"task": "empty", "prior": args.touch_prior}, args.time_limit, SCRIPT)  # and for the prior's kernel
    rows, worst = [], 0
    checks: list[tuple[str, float | None, float]] = []
    for label, prior in priors:
        cold = run_child({"task": "empty", "prior": prior}, args.time_limit, SCRIPT)
        learning = run_child({"task": "learning", "prior": prior}, args.time_limit, SCRIPT)
        count = args.touch_games if prior == args.touch_prior else args.games
        games = run_child({"task": "games", "prior": prior, "games": count, "seed": args.seed}, args.time_limit * count, SCRIPT)
        if "totals" in games:
            game = [duration(statistics.mean(games["totals"])), duration(max(games["totals"])),
                    duration(statistics.median(games["moves"])), duration(max(games["moves"])),
                    f"{statistics.mean(games['scores']):.1f}"]  # fmt: skip
        else:
            game = [games.get("status", "-"), "", "", "", ""]
        features = ", ".join(f"{f:.3f}" for f in learning.get("features", []))
        rows.append([label, cold.get("status") or duration(cold.get("seconds")), megabytes(cold.get("peak")),
                     learning.get("status") or f"{duration(learning.get('seconds'))} ({features})", *game,
                     megabytes(games.get("peak"))])  # fmt: skip
        worst = max(worst, cold.get("peak", 0), games.get("peak", 0))
        if prior == args.touch_prior:
            checks = [("weighted empty board cold <= 2 s", cold.get("seconds"), 2.0),
                      ("whole greedy game with a prior <= 5 s (mean)",
                       statistics.mean(games["totals"]) if "totals" in games else None, 5.0)]  # fmt: skip
        print(f"  {label}: done", file=sys.stderr, flush=True)
    header = ["prior", "empty 10x10 cold", "its peak", "E[edge, vertical, touch] + log Z (empty)", "greedy game: mean",
              "slowest game", "median move", "slowest move", "mean shots", "games' peak"]  # fmt: skip
    print(markdown_table(header, rows))
    print(
        f"\n{args.games} greedy games per prior ({args.touch_games} with the touch weight) from a cold start each (seed "
        f"{args.seed}); "
        "every row in its own processes.\n"
    )
    print("Targets (issue 18), for the prior with a touch weight:")
    for name, value, target in checks:
        print(f"- {name}: {duration(value)}: {'met' if value is not None and value <= target else 'MISSED'}")
    print(f"- peak memory <= 1 GB: {megabytes(worst)}: {'met' if 0 < worst <= 10**9 else 'MISSED'}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
