"""What the rollout player costs on 10x10 5,4,3,3,2 (docs/rollout.md): its kernel's time per simulated
move, and its moves and whole games against the targets (median move <= 1 s, a game <= 60 s).

The kernel row plays every candidate's rollouts from the empty board against layouts drawn exactly
from the posterior, as one move does (numba's kernels compiled beforehand, untimed). The game rows
play seeded boards of the training seed (101, never a reported experiment's) one after another in
one workspace, as an experiment's worker does; the first game pays for the engine's caches.

``--against DIR`` compares whole games with another checkout's code (DIR, e.g. made by ``git worktree add
/tmp/base <commit>``), game by game in turn, and says whether the two played the same shots
(experiments/ab_games.py).

usage:
  python experiments/bench_rollout.py                          # 3 games, default options, ~1 minute
  python experiments/bench_rollout.py --games 5 --players 'rollout,rollout[samples=1000]'
  python experiments/bench_rollout.py --against /tmp/base --games 10 --seed 101
Prints a Markdown table to stdout.
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
from battlelog.players import make_player
from battlelog.players.rollout import RolloutPlayer
from battlelog.report.markdown import duration, markdown_table
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

BOARD = GameConfig(10, (5, 4, 3, 3, 2))
SEED = 101


def kernel_row(spec: str, workspace: Workspace) -> list[str]:
    """Microseconds per simulated move: one move's rollouts from the empty board (its candidates
    against its samples), timed after a first untimed call."""
    from battlelog.players.rollout_kernel import rollouts  # here: a worker of --against imports another checkout
    from battlelog.players.rollout_tables import start_of, tables, truths

    player = make_player(spec, 0)
    assert isinstance(player, RolloutPlayer)
    state = GameState.empty(BOARD)
    engine = workspace.engine(player.engine)
    owners, lefts = truths(state, engine.sample_owners(state, player.samples, np.random.default_rng(SEED)))
    ranked = np.argsort(-engine.marginals(state).cells.ravel(), kind="stable")[: player.candidates_count + 1]
    shots = np.zeros((len(ranked), len(owners)), dtype=np.int64)
    board, start = tables(BOARD), start_of(state)
    rollouts(board, start, owners, lefts, ranked.astype(np.int64), shots)
    begin = time.perf_counter()
    rollouts(board, start, owners, lefts, ranked.astype(np.int64), shots)
    elapsed = time.perf_counter() - begin
    moves = int(shots.sum())
    return [spec, "kernel: one move's rollouts, empty board",
            f"{len(ranked)} x {len(owners)} games, {moves:,} moves in {duration(elapsed)}",
            f"{elapsed / moves * 1e6:.2f} us", "", "", ""]  # fmt: skip


def game_rows(spec: str, games: int, workspace: Workspace) -> list[str]:
    """Moves and games of ``spec`` on the training seed's first boards."""
    moves: list[float] = []
    seconds: list[float] = []
    scores: list[int] = []
    for game in range(games):
        player = make_player(spec, game_seeds(SEED, game)[1])
        player.use(workspace)
        result = play_game(BOARD, layout_for(BOARD, SEED, game), player)
        moves += result.move_seconds
        seconds.append(result.seconds)
        scores.append(result.score)
    return [spec, f"{games} games, seed {SEED}", f"mean {statistics.fmean(scores):.1f} shots", "",
            duration(statistics.median(moves)), duration(max(moves)), duration(statistics.fmean(seconds))]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="rollout", help="rollout configurations, comma-separated outside brackets")
    parser.add_argument("--games", type=int, default=3, help="10x10 games per configuration")
    parser.add_argument(
        "--against", metavar="DIR", help="compare whole games with the code of another checkout (one configuration)"
    )
    parser.add_argument("--seed", type=int, default=SEED, help="with --against: the boards' and players' seed (default: 101)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        ab_games.serve(args.players, args.seed, BOARD)
        return
    if args.against:
        command = [sys.executable, __file__, "--serve", "--players", args.players, "--seed", str(args.seed)]
        title = f"10x10 5,4,3,3,2, {args.players}, boards and player seeds of seed {args.seed}"
        ab_games.against(args.against, command, title, args.games)
        return
    specs = _split(args.players)
    workspace = Workspace()
    play_game(BOARD, layout_for(BOARD, SEED, 10_000), make_player("rollout[samples=20,candidates=2]", 0))  # compile, untimed
    rows = []
    for spec in specs:
        rows.append(kernel_row(spec, workspace))
        rows.append(game_rows(spec, args.games, workspace))
    workspace.close()
    print(machine_header("The rollout player on 10x10 5,4,3,3,2"))
    print(markdown_table(["player", "what", "work", "per simulated move", "median move", "slowest move", "mean game"], rows))


def _split(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


if __name__ == "__main__":
    main()
