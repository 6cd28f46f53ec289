"""What the rollout player costs on 10x10 5,4,3,3,2 (docs/rollout.md): its kernel's time per simulated
move, and its moves and whole games against the targets (median move <= 1 s, a game <= 60 s).

The kernel row plays every candidate's rollouts from the empty board against layouts drawn exactly
from the posterior, as one move does (numba's kernels compiled beforehand, untimed). The game rows
play seeded boards of the training seed (101, never a reported experiment's) one after another in
one workspace, as an experiment's worker does; the first game pays for the engine's caches.

``--against DIR`` compares whole games with another checkout's code (DIR, e.g. made by ``git worktree add
/tmp/base <commit>``): the same boards and player seeds played by two long-lived worker processes, one
importing battlelog from this checkout and one from DIR, each warmed by an untimed game, game by game in
turn (ABBA, so that a drift in the machine's load falls on both): seconds a game, the load average when
each game started, and whether the two played the same shots (a change meant to be pure speed must).

usage:
  python experiments/bench_rollout.py                          # 3 games, default options, ~1 minute
  python experiments/bench_rollout.py --games 5 --players 'rollout,rollout[samples=1000]'
  python experiments/bench_rollout.py --against /tmp/base --games 10 --seed 101
Prints a Markdown table to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

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
    return [spec, "kernel: one move's rollouts, empty board", f"{len(ranked)} x {len(owners)} games, {moves:,} moves in {duration(elapsed)}",
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


def serve(spec: str, seed: int) -> None:
    """A worker of ``--against``: plays the games named on stdin (one index a line) in one workspace and
    answers each with a JSON line: its shots, seconds, and the load average when it started."""
    workspace = Workspace()
    warm = make_player(spec, 0)
    warm.use(workspace)
    play_game(BOARD, layout_for(BOARD, SEED, 10_000), warm)  # compiles, fills the engine's caches: untimed
    print(json.dumps({"ready": sys.modules["battlelog"].__file__}), flush=True)
    for line in sys.stdin:
        game = int(line)
        player = make_player(spec, game_seeds(seed, game)[1])
        player.use(workspace)
        load = os.getloadavg()[0]
        result = play_game(BOARD, layout_for(BOARD, seed, game), player)
        shots = [[shot.row, shot.col] for shot in result.state.shots]
        print(json.dumps({"shots": shots, "seconds": result.seconds, "median": statistics.median(result.move_seconds), "load": load}), flush=True)


def against(other: str, spec: str, seed: int, games: int) -> None:
    """Whole games of ``spec`` by this checkout's code and by ``other``'s, in turn (ABBA)."""
    here = str(Path(__file__).resolve().parents[1])
    workers: dict[str, subprocess.Popen[str]] = {}
    for name, root in (("this", here), ("other", other)):
        command = [sys.executable, __file__, "--serve", "--players", spec, "--seed", str(seed)]
        workers[name] = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/",
                                         env={**os.environ, "PYTHONPATH": root})  # fmt: skip
        print(f"{name}: battlelog from {_answer(workers[name])['ready']}", file=sys.stderr)
    rows, same = [], 0
    for game in range(games):
        played = {}
        for name in ("this", "other") if game % 2 else ("other", "this"):
            worker = workers[name]
            assert worker.stdin is not None
            worker.stdin.write(f"{game}\n")
            worker.stdin.flush()
            played[name] = _answer(worker)
        this, that = played["this"], played["other"]
        same += this["shots"] == that["shots"]
        rows.append([str(game), f"{that['seconds']:.2f} s", f"{this['seconds']:.2f} s", f"{that['seconds'] / this['seconds']:.2f}x",
                     duration(that["median"]), duration(this["median"]), f"{that['load']:.1f} / {this['load']:.1f}",
                     "yes" if this["shots"] == that["shots"] else "NO"])  # fmt: skip
    for worker in workers.values():
        worker.communicate()
    total = sum(float(row[1][:-2]) for row in rows), sum(float(row[2][:-2]) for row in rows)
    rows.append(["all", f"{total[0]:.1f} s", f"{total[1]:.1f} s", f"{total[0] / total[1]:.2f}x", "", "", "", f"{same}/{games}"])
    print(f"10x10 5,4,3,3,2, {spec}, boards and player seeds of seed {seed}; other: {other}\n")
    print(markdown_table(["game", "other", "this", "speed-up", "median move (other)", "median move (this)", "load (other / this)",
                          "same shots"], rows))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="rollout", help="rollout configurations, comma-separated outside brackets")
    parser.add_argument("--games", type=int, default=3, help="10x10 games per configuration")
    parser.add_argument("--against", metavar="DIR", help="compare whole games with the code of another checkout (one configuration)")
    parser.add_argument("--seed", type=int, default=SEED, help="with --against: the boards' and players' seed (default: 101)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.players, args.seed)
        return
    if args.against:
        against(args.against, args.players, args.seed, args.games)
        return
    specs = _split(args.players)
    workspace = Workspace()
    play_game(BOARD, layout_for(BOARD, SEED, 10_000), make_player("rollout[samples=20,candidates=2]", 0))  # compile, untimed
    rows = []
    for spec in specs:
        rows.append(kernel_row(spec, workspace))
        rows.append(game_rows(spec, args.games, workspace))
    workspace.close()
    print(f"10x10 5,4,3,3,2 on {platform.machine()}, {platform.python_version()}\n")
    print(markdown_table(["player", "what", "work", "per simulated move", "median move", "slowest move", "mean game"], rows))


def _answer(worker: subprocess.Popen[str]) -> dict[str, Any]:
    assert worker.stdout is not None
    answer: dict[str, Any] = json.loads(worker.stdout.readline())
    return answer


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
