"""The native engine on web-like states: every state of greedy 10x10 games, each a call nobody asked before.

The web server's engine workers see, after the opening book, states no client asked before (each
client's hidden layout is its own), one shot after the previous state of the same game. This script
plays greedy (``problog`` player) games on the boards of ``--seed`` and keeps their states; then, per
game, a new workspace asks the engine for every state in order (shot 1 to the end: the empty board is
the book's and is not timed), so each call computes while the engine holds the previous state of
its game, as a worker that served it last does. It prints the median call per bucket of shots, how
many calls were listed or swept, and the mean call (what bounds a server's answers a second).

``--profile`` prints cProfile's top functions of the timed calls instead of the tables.
``--states FILE`` keeps the states in a pickle (written when absent, read when present), so that two
checkouts are timed on the same states (``PYTHONPATH=/other/checkout python experiments/bench_midgame.py
--states s.pkl``); ``--rounds`` repeats the timing and keeps each call's minimum.

usage:
  python experiments/bench_midgame.py --first 6               # 10 games: about 30 s of CPU (playing them is most of it)
  python experiments/bench_midgame.py --games 20 --rounds 3 --touch none --states s.pkl
Prints Markdown tables to stdout.
"""

from __future__ import annotations

import argparse
import cProfile
import pickle
import pstats
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from battlelog.engines.native import jit
from battlelog.engines.workspace import Workspace
from battlelog.players import make_player
from battlelog.report.markdown import duration, markdown_table
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

#: Shot buckets of the table (first shot, last shot) of a state.
BUCKETS = ((1, 5), (6, 10), (11, 15), (16, 20), (21, 30), (31, 40), (41, 100))


def game_states(config: GameConfig, games: int, seed: int) -> list[list[GameState]]:
    """The states of ``games`` greedy games on the boards of ``seed``, after each shot (the last one, the
    game over, left out)."""
    workspace = Workspace()
    out = []
    for game in range(games):
        states: list[GameState] = []
        player = make_player("problog", game_seeds(seed, game)[1])
        player.use(workspace)
        play_game(config, layout_for(config, seed, game), player, on_shot=states.append)
        out.append(states[:-1])
    return out


def timed(games: list[list[GameState]], clock: Callable[[], float] = time.process_time) -> list[list[float]]:
    """Seconds of each state's marginals call, game by game, each game in a new workspace."""
    out = []
    for states in games:
        engine = Workspace().engine("native")
        took = []
        for state in states:
            start = clock()
            engine.marginals(state)
            took.append(clock() - start)
        out.append(took)
    return out


def tables(games: list[list[GameState]], took: list[list[float]]) -> str:
    """Per bucket of shots: calls, median, mean; and the overall mean call."""
    rows = []
    for low, high in BUCKETS:
        times = [t for states, ts in zip(games, took) for s, t in zip(states, ts) if low <= len(s.shots) <= high]
        if times:
            rows.append([f"{low}-{high}", str(len(times)), duration(statistics.median(times)), duration(statistics.mean(times)), duration(max(times))])
    every = [t for ts in took for t in ts]
    rows.append(["all", str(len(every)), duration(statistics.median(every)), duration(statistics.mean(every)), duration(max(every))])
    head = ["shots", "calls", "median", "mean", "slowest"]
    return markdown_table(head, rows) + f"\n\n{len(every) / sum(every):.0f} calls a second on one core (mean {duration(statistics.mean(every))})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--touch", default="allowed", help="the touch rule (allowed, diagonal, none)")
    parser.add_argument("--sinks", default="named", help="how sinks are announced (named, unnamed, silent)")
    parser.add_argument("--first", type=int, default=1, help="time the states from this shot on (a web server's book answers the first ones)")
    parser.add_argument("--rounds", type=int, default=1, help="time every call this often, keep the minimum")
    parser.add_argument("--states", type=Path, help="a pickle of the states: written when absent, read when present")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions instead")
    parser.add_argument("--wall", action="store_true", help="time by the wall clock (default: the process's CPU time, which other jobs on a shared machine disturb less)")
    args = parser.parse_args()
    config = GameConfig(10, (5, 4, 3, 3, 2), Rules(touch=args.touch, sinks=args.sinks))
    if args.states is not None and args.states.exists():
        games = pickle.loads(args.states.read_bytes())
    else:
        games = game_states(config, args.games, args.seed)
        if args.states is not None:
            args.states.write_bytes(pickle.dumps(games))
    games = [[state for state in states if len(state.shots) >= args.first] for states in games]
    jit.kernels(10**6)  # the compiled kernel loaded before any clock, as a worker has it
    Workspace().engine("native").marginals(next(state for states in games for state in states))  # numba loads it on a first call
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(timed, games)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
        return
    clock = time.perf_counter if args.wall else time.process_time
    took = timed(games, clock)
    for _ in range(args.rounds - 1):
        took = [[min(a, b) for a, b in zip(x, y)] for x, y in zip(took, timed(games, clock))]
    what = "wall clock" if args.wall else "CPU time"
    print(f"{config.label()}, {args.touch}/{args.sinks}: {len(games)} greedy games of seed {args.seed}, {what}, minimum of {args.rounds} round(s)\n")
    print(tables(games, took))


if __name__ == "__main__":
    main()
