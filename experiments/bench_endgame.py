"""How long an optimal endgame takes against the layouts left, on states of real greedy games.

Plays greedy (`problog`) games on the board, and for every state of each game whose posterior holds at
most --max layouts lists the consistent layouts (battlelog.optimum.consistent) and solves the endgame
(battlelog.optimum.endgame), timing both. Prints a Markdown table by bucket of layouts left: how many
states, the median and the largest times, and how many could not be solved (cells beyond 64).
"not solved": the layouts cover more than 64 cells, or the search passed its node budget (the
player then plays greedy). Medians and maxima are over the solved states. The `endgame` player's
default threshold is read off this table.

usage:
  python experiments/bench_endgame.py                    # 10x10 5,4,3,3,2, 20 games, seed 0
  python experiments/bench_endgame.py --games 5 --max 3000
"""

from __future__ import annotations

import argparse
import statistics
import time

from battlelog.engines.native.engine import NativeEngine
from battlelog.optimum.consistent import consistent_layouts
from battlelog.optimum.endgame import MAX_NODES, solve_endgame
from battlelog.players import make_player
from battlelog.report.markdown import markdown_table
from battlelog.rules.config import GameConfig, parse_ships
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import layout_for

BUCKETS = (1, 2, 5, 10, 20, 50, 100, 300, 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--ships", default="5,4,3,3,2")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max", type=int, default=100, help="largest posterior solved (layouts)")
    parser.add_argument("--nodes", type=int, default=MAX_NODES, help="the search's budget in nodes")
    args = parser.parse_args()
    config = GameConfig(args.size, parse_ships(args.ships))
    engine = NativeEngine()
    rows: dict[int, list[tuple[float, float, int]]] = {}
    for game in range(args.games):
        player = make_player("problog", seed=game)
        state = play_game(config, layout_for(config, args.seed, game), player).state
        for t in range(len(state.shots)):
            now = state.prefix(t)
            models = engine.marginals(now).models or 0
            if models > args.max:
                continue
            start = time.perf_counter()
            found = consistent_layouts(now, args.max)
            listed = time.perf_counter() - start
            assert found is not None and len(found) == models, (len(found or ()), models)
            start = time.perf_counter()
            solved = solve_endgame(now, args.max, found, args.nodes)
            bucket = min(b for b in BUCKETS if b >= models)
            rows.setdefault(bucket, []).append((listed, time.perf_counter() - start, solved.nodes if solved else -1))
        player.close()
    table = []
    low = 1
    for bucket in sorted(rows):
        cases = rows[bucket]
        solve = [s for _, s, nodes in cases if nodes >= 0]
        table.append(
            [
                f"{low}-{bucket}" if low < bucket else f"{bucket}",
                str(len(cases)),
                f"{1000 * statistics.median(c[0] for c in cases):.1f}",
                f"{1000 * statistics.median(solve):.1f}" if solve else "-",
                f"{1000 * max(solve):.1f}" if solve else "-",
                f"{statistics.median(c[2] for c in cases if c[2] >= 0):.0f}" if solve else "-",
                str(sum(1 for c in cases if c[2] < 0)),
            ]
        )
        low = bucket + 1
    print(
        f"{config.label()}: {args.games} greedy games, seed {args.seed}, states with at most {args.max} layouts, "
        f"budget {args.nodes:,} nodes\n"
    )
    print(
        markdown_table(
            [
                "layouts",
                "states",
                "listing (ms, median)",
                "solve (ms, median)",
                "solve (ms, max)",
                "nodes (median)",
                "not solved",
            ],
            table,
        )
    )


if __name__ == "__main__":
    main()
