"""How many games per second the baseline players manage, alone and through the experiment runner.

In process: one core, the players' own speed (layouts are drawn before the clock starts).
Through the runner: `battlelog experiment`'s machinery with --workers processes, including worker
start-up, the pipes and one fsync per game, so the difference is the runner's overhead.

usage:
  python experiments/bench_baselines.py                      # 10x10 5,4,3,3,2, both tables
  python experiments/bench_baselines.py --games 100 --runner-games 0
Prints Markdown tables to stdout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from machine import machine_header

from battlelog.players import make_player
from battlelog.report.markdown import markdown_table
from battlelog.rules.config import GameConfig, parse_ships
from battlelog.runner.executors import Limits, available_cores
from battlelog.runner.executors.local import LocalExecutor
from battlelog.runner.experiment import Experiment, run_experiment
from battlelog.runner.loop import play_game
from battlelog.runner.records import load_results
from battlelog.runner.seeds import game_seeds, layout_for

BASELINES = ("random", "hunt-target", "pdf")


def in_process(config: GameConfig, player: str, games: int, seed: int) -> tuple[float, list[int], float]:
    """(wall seconds, scores, summed move seconds) of ``games`` games played one after another here."""
    layouts = [layout_for(config, seed, i) for i in range(games)]
    scores, thinking = [], 0.0
    start = time.perf_counter()
    for i, layout in enumerate(layouts):
        result = play_game(config, layout, make_player(player, game_seeds(seed, i)[1]))
        scores.append(result.score)
        thinking += result.seconds
    return time.perf_counter() - start, scores, thinking


def through_runner(config: GameConfig, player: str, games: int, seed: int, workers: int) -> tuple[float, list[int]]:
    """(wall seconds, scores) of one fresh `battlelog experiment` run for one player."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        start = time.perf_counter()
        with LocalExecutor(Limits(workers=workers)) as executor:
            run_experiment(Experiment(config, (player,), games, seed), out, executor, progress=False)
        wall = time.perf_counter() - start
        return wall, [r["score"] for r in load_results(out)[1]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10, help="board size (default: 10)")
    parser.add_argument("--ships", default="5,4,3,3,2", help="fleet (default: 5,4,3,3,2)")
    parser.add_argument("--games", type=int, default=200, help="games per player in process (default: 200)")
    parser.add_argument(
        "--runner-games", type=int, default=1000, help="games per player through the runner, 0 to skip (default: 1000)"
    )
    parser.add_argument("--workers", type=int, default=available_cores(), help="runner workers (default: all cores)")
    parser.add_argument("--seed", type=int, default=0, help="root seed of the boards (default: 0)")
    args = parser.parse_args(argv)
    config = GameConfig(args.size, parse_ships(args.ships))

    print(machine_header(f"Baseline speed on {config.label()}", argv, args.seed))
    print(f"## In process, one core, {args.games} games per player\n")
    rows = []
    for player in BASELINES:
        wall, scores, thinking = in_process(config, player, args.games, args.seed)
        rows.append([
            player, f"{args.games / wall:.1f}", f"{1000 * wall / args.games:.2f}",
            f"{1000 * thinking / sum(scores):.3f}", f"{statistics.mean(scores):.2f}",
        ])  # fmt: skip
    print(markdown_table(["player", "games/s", "ms/game", "ms/move (choose only)", "mean shots"], rows))

    if args.runner_games > 0:
        print(f"\n## Through the runner, {args.workers} workers, {args.runner_games} games per player\n")
        rows = []
        for player in BASELINES:
            wall, scores = through_runner(config, player, args.runner_games, args.seed, args.workers)
            rows.append([player, f"{len(scores) / wall:.1f}", f"{wall:.2f}", f"{statistics.mean(scores):.2f}"])
        print(markdown_table(["player", "games/s", "wall s (start-up included)", "mean shots"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
