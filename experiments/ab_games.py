"""Whole games of one player by this checkout's code and by another's, in turn: speed-ups meant to be pure.

Used by ``bench_rollout.py --against`` and ``bench_players.py --against``. The same boards and player
seeds are played by two long-lived worker processes, one importing battlelog from this checkout and one
from DIR (e.g. made by ``git worktree add /tmp/base <commit>``), each warmed by an untimed game, game
by game in turn (ABBA, so that a drift in the machine's load falls on both). Printed: seconds a game,
the median move, the load average when each game started, and whether the two played the same shots
(a change meant to be pure speed must).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from battlelog.engines.workspace import Workspace
from battlelog.players import make_player
from battlelog.report.markdown import duration, markdown_table
from battlelog.rules.config import GameConfig
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

#: The board the warm-up game is drawn from: a seed no reported experiment uses.
WARM_SEED = 101


def serve(spec: str, seed: int, board: GameConfig) -> None:
    """A worker: plays the games named on stdin (one index a line) in one workspace and answers each with
    a JSON line: its shots, seconds, median move, and the load average when it started."""
    workspace = Workspace()
    warm = make_player(spec, 0)
    warm.use(workspace)
    play_game(board, layout_for(board, WARM_SEED, 10_000), warm)  # compiles, fills the engine's caches: untimed
    print(json.dumps({"ready": sys.modules["battlelog"].__file__}), flush=True)
    for line in sys.stdin:
        game = int(line)
        player = make_player(spec, game_seeds(seed, game)[1])
        player.use(workspace)
        load = os.getloadavg()[0]
        result = play_game(board, layout_for(board, seed, game), player)
        shots = [[shot.row, shot.col] for shot in result.state.shots]
        print(
            json.dumps(
                {"shots": shots, "seconds": result.seconds, "median": statistics.median(result.move_seconds), "load": load}
            ),
            flush=True,
        )


def against(other: str, worker_command: list[str], title: str, games: int) -> None:
    """Games 0 to ``games - 1`` by this checkout's code and by ``other``'s, in turn (ABBA); each side runs
    ``worker_command`` (a script invocation that ends in :func:`serve`) with battlelog imported from its checkout."""
    here = str(Path(__file__).resolve().parents[1])
    workers: dict[str, subprocess.Popen[str]] = {}
    for name, root in (("this", here), ("other", other)):
        workers[name] = subprocess.Popen(worker_command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/",
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
        rows.append([str(game), f"{that['seconds']:.2f} s", f"{this['seconds']:.2f} s",
                     f"{that['seconds'] / this['seconds']:.2f}x", duration(that["median"]), duration(this["median"]),
                     f"{that['load']:.1f} / {this['load']:.1f}",
                     "yes" if this["shots"] == that["shots"] else "NO"])  # fmt: skip
    for worker in workers.values():
        worker.communicate()
    total = sum(float(row[1][:-2]) for row in rows), sum(float(row[2][:-2]) for row in rows)
    rows.append(["all", f"{total[0]:.1f} s", f"{total[1]:.1f} s", f"{total[0] / total[1]:.2f}x", "", "", "", f"{same}/{games}"])
    print(f"{title}; other: {other}\n")
    print(markdown_table(["game", "other", "this", "speed-up", "median move (other)", "median move (this)", "load (other / this)",
                          "same shots"], rows))  # fmt: skip


def _answer(worker: subprocess.Popen[str]) -> dict[str, Any]:
    assert worker.stdout is not None
    answer: dict[str, Any] = json.loads(worker.stdout.readline())
    return answer
