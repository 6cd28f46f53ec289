"""Time per move of every registered player, on 6x6 4,3,3 (a paper board) and 10x10 5,4,3,3,2.

Each player plays the same seeded boards one after another in this process, as an experiment's
worker does (the engine's caches warm up over the games, and the first game pays for them; numba's
kernel is cached on disk beforehand by one untimed game). The optimal player only plays boards it
can solve, so it is left out here (see `battlelog optimal`).

usage:
  python experiments/bench_players.py                    # 20 games on 6x6, 5 on 10x10, a few minutes
  python experiments/bench_players.py --players problog,lookahead --games 50 --large-games 10
  python experiments/bench_players.py --against /tmp/base --players lookahead --sinks silent --large-games 6
Prints a Markdown table to stdout.

``--against DIR`` plays one player's 10x10 games (``--large-games`` of them, under ``--touch`` and
``--sinks``) by this checkout's code and by another checkout's, in turn, and says whether the two
played the same shots (experiments/ab_games.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import ab_games
import numpy as np
from machine import machine_header

from battlelog.engines.workspace import Workspace
from battlelog.players import PLAYERS, make_player
from battlelog.report.markdown import duration, markdown_table
from battlelog.rules.config import GameConfig
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

BOARDS = (GameConfig(6, (4, 3, 3)), GameConfig(10, (5, 4, 3, 3, 2)))


def measure(config: GameConfig, name: str, games: int, seed: int) -> list[str]:
    """One table row: shots and time per move and per game of ``name`` over ``games`` boards, played in
    one workspace as an experiment's worker plays them."""
    moves: list[float] = []
    scores: list[int] = []
    workspace = Workspace()
    start = time.perf_counter()
    for game in range(games):
        player = make_player(name, game_seeds(seed, game)[1])
        player.use(workspace)
        try:
            result = play_game(config, layout_for(config, seed, game), player)
        finally:
            player.close()
        moves += result.move_seconds
        scores.append(result.score)
    elapsed = time.perf_counter() - start
    return [
        config.label(),
        name,
        str(games),
        f"{statistics.fmean(scores):.2f}",
        duration(statistics.median(moves)),
        duration(float(np.percentile(moves, 95))),
        duration(max(moves)),
        duration(elapsed / games),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--players", default=",".join(p for p in PLAYERS if p != "optimal"), help="players to time (default: all but optimal)"
    )
    parser.add_argument("--games", type=int, default=20, help="games per player on 6x6 (default: 20)")
    parser.add_argument("--large-games", type=int, default=5, help="games per player on 10x10 (default: 5)")
    parser.add_argument("--seed", type=int, default=1, help="root seed of the boards (default: 1)")
    parser.add_argument("--against", metavar="DIR", help="compare one player's 10x10 games with another checkout's code")
    parser.add_argument("--touch", default="allowed", choices=TOUCH_RULES, help="with --against: the touch rule")
    parser.add_argument("--sinks", default="named", choices=SINK_RULES, help="with --against: the sink rule")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    board = GameConfig(10, (5, 4, 3, 3, 2), Rules(touch=args.touch, sinks=args.sinks))
    if args.serve:
        ab_games.serve(args.players, args.seed, board)
        return 0
    if args.against:
        command = [sys.executable, __file__, "--serve", "--players", args.players, "--seed", str(args.seed),
                   "--touch", args.touch, "--sinks", args.sinks]  # fmt: skip
        ab_games.against(
            args.against, command, f"{board.label()}, {args.players}, boards and player seeds of seed {args.seed}",
            args.large_games,
        )
        return 0
    names = [p.strip() for p in args.players.split(",") if p.strip()]
    for config in BOARDS:  # compile and cache numba's kernels before any clock starts
        play_game(config, layout_for(config, 0, 0), make_player("problog", 0))
    rows = []
    for config, games in zip(BOARDS, (args.games, args.large_games)):
        for name in names:
            rows.append(measure(config, name, games, args.seed))
            print(f"  {config.label()} {name}: done", file=sys.stderr, flush=True)
    print(machine_header("Time per move of every player", None, args.seed))
    header = ["board", "player", "games", "mean shots", "median move", "95% of moves", "slowest move", "mean game"]
    print(markdown_table(header, rows, align="llrrrrrr"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
