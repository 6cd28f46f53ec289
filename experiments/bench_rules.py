"""The native engine under the touch rules: the empty board and whole greedy games, each in a cold child.

Every row runs in a process of its own with an empty cache folder (numba's compiled kernel is cached
on disk like any installed program's: run once first to warm it), so a time is a first move's or a
first game's as a new process meets it, and the peak is that child's VmHWM, interpreter included.
Boards of the games are drawn as an experiment draws them (rejection under ``allowed``, the native
engine's exact sampler under ``diagonal`` and ``none``) in this process, as an experiment draws them
in its parent process: a worker's peak never includes the sampler's model. The first game of
a child is reported apart (it pays for loading numba's kernel, under ``allowed``, and for an empty
board nothing remembers); the mean is over the games after it, as an experiment's worker plays them.

usage:
  python experiments/bench_rules.py                 # about five minutes on 2 cores
  python experiments/bench_rules.py --games 3 --configs 10:5,4,3,3,2 --touch none
  python experiments/bench_rules.py --configs 12x10:5,4,3,3,2,8x12:5,4,3,3,2   # rectangles (rows x columns)
Prints a Markdown table to stdout; issue 17's targets are in its last column.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from typing import Any

from bench_engines import answer_child, parse_configs, run_child

from battlelog.report.markdown import duration, markdown_table, megabytes
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.seeds import layouts_for

SCRIPT = __file__
CONFIGS = "10:5,4,3,3,2,10:4,3,3,2,2,2,1,1,1,1,12:5,4,3,3,2,12x10:5,4,3,3,2,8x12:5,4,3,3,2"
#: Issue 17's targets: (rows, cols, fleet, touch) -> (empty board s, whole game s, peak bytes).
TARGETS = {
    (10, 10, (5, 4, 3, 3, 2), "none"): (2.0, 5.0, 1e9),
    (10, 10, (4, 3, 3, 2, 2, 2, 1, 1, 1, 1), "none"): (10.0, 60.0, None),
}


def child(task: dict[str, Any]) -> dict[str, Any]:
    """One measurement: the empty board, or ``games`` greedy games in one workspace."""
    from battlelog.engines.workspace import Workspace
    from battlelog.players import make_player
    from battlelog.rules.geometry import Placement
    from battlelog.runner.loop import play_game
    from battlelog.runner.seeds import game_seeds

    config = GameConfig(task["rows"], tuple(task["ships"]), Rules(touch=task["touch"]), cols=task["cols"])
    workspace = Workspace()
    if task["task"] == "empty":
        start = time.perf_counter()
        marginals = workspace.engine("native").marginals(GameState.empty(config))
        return {"seconds": time.perf_counter() - start, "models": marginals.models}
    layouts = [tuple(Placement(*fields) for fields in layout) for layout in task["layouts"]]
    seconds = []
    for game, layout in enumerate(layouts):
        player = make_player("problog", game_seeds(task["seed"], game)[1])
        player.use(workspace)
        start = time.perf_counter()
        play_game(config, layout, player)
        seconds.append(time.perf_counter() - start)
    rest = seconds[1:]
    return {"first": seconds[0], "seconds": sum(rest) / len(rest), "slowest": max(rest)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", default=CONFIGS, help=f"boards as SIZE:SHIPS or ROWSxCOLS:SHIPS,... (default {CONFIGS})")
    parser.add_argument("--touch", default="allowed,diagonal,none", help="touch rules to measure (comma-separated)")
    parser.add_argument(
        "--games", type=int, default=3, help="greedy games per row after the first, one after another in one process"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=float, default=300.0, help="seconds before a child is stopped")
    args = parser.parse_args()
    rows = []
    for config in parse_configs(args.configs):
        for touch in args.touch.split(","):
            base = {"rows": config.rows, "cols": config.cols, "ships": list(config.ships), "touch": touch}
            empty = run_child({**base, "task": "empty"}, args.limit, SCRIPT)
            # Drawn here, as an experiment draws its boards in the parent process: a worker never holds the sampler's model.
            ruled = GameConfig(config.rows, config.ships, Rules(touch=touch), cols=config.cols)
            layouts = [
                [dataclasses.astuple(p) for p in layout] for layout in layouts_for(ruled, args.seed, range(args.games + 1))
            ]
            games = run_child(
                {**base, "task": "games", "games": args.games, "seed": args.seed, "layouts": layouts},
                args.limit * args.games,
                SCRIPT,
            )
            target = TARGETS.get((config.rows, config.cols, config.ships, touch))
            rows.append([
                config.label(), touch,
                f"{empty['models']:,}" if "models" in empty else empty["status"],
                duration(empty["seconds"]) if "seconds" in empty else "-",
                megabytes(empty["peak"]) if "peak" in empty else "-",
                duration(games["first"]) if "first" in games else games.get("status", "-"),
                duration(games["seconds"]) if "seconds" in games else "-",
                duration(games["slowest"]) if "slowest" in games else "-",
                megabytes(games["peak"]) if "peak" in games else "-",
                "-" if target is None
                else f"empty <= {target[0]:g} s, game <= {target[1]:g} s"
                + (f", peak <= {target[2] / 1e9:g} GB" if target[2] else ""),
            ])  # fmt: skip
    print(markdown_table(
        ["board", "touch", "layouts (empty)", "empty board", "peak", "first greedy game", f"then (mean of {args.games})",
         "slowest", "peak", "target"],
        rows, align="llrrrrrrrl",
    ))  # fmt: skip


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        sys.exit(answer_child(sys.argv[2], child))
    main()
