"""The native engine against its targets: the standard 10x10 game, 8x8, the paper's boards, larger boards.

Every measurement runs in a child process of its own (peak memory is that child's VmHWM, the
interpreter and libraries included; a time limit stops it cleanly), with an empty cache folder
unless the row says the cache is used. numba's compiled kernel is cached on disk like any installed
program's; the "first run on a machine" row measures compiling it too.

Sections (all by default; each can be skipped):
- standard: 10x10 5,4,3,3,2: the empty board cold, from the disk cache and from memory; greedy
  (problog player) games each from a cold start, and games one after another in one process as an
  experiment's worker plays them; with the issue's targets and whether each is met.
- engines: every engine on the paper's boards and 8x8 5,4,3,3,2 (first move, a mid-game move, whole
  games), and the time ratios against ProbLog's stock pipeline and the pysdd path, where they finish.
- large: 12x12 and 15x15 with the standard fleet, 10x10 with 5,4,4,3,3,3,2,2: the empty board and
  two mid-game states, or the one-line refusal.
- orders: the sweep order the engine picks against the best and the worst of the eight.

usage:
  python experiments/bench_native.py                         # everything, about 15 minutes on 2 cores
  python experiments/bench_native.py --skip engines,large,orders --games 10
Prints Markdown tables to stdout.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from bench_engines import answer_child, engine_rows, measure_config, parse_configs, ratio_rows, run_child
from machine import machine_header

from battlelog.players import make_player
from battlelog.report.markdown import duration, markdown_table, megabytes
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

STANDARD = GameConfig(10, (5, 4, 3, 3, 2))
PAPER = "4:3,2,2,5:3,2,5:3,3,2,6:4,3,3,6:5,5,4,7:5,5,4"
LARGE = ((12, (5, 4, 3, 3, 2)), (15, (5, 4, 3, 3, 2)), (10, (5, 4, 4, 3, 3, 3, 2, 2)))
SCRIPT = str(Path(__file__).resolve())


# ----- what a child process measures -----------------------------------------------------------------
def empty_board(config: GameConfig, repeat: bool) -> dict[str, Any]:
    """The empty board's marginals, timed; with ``repeat``, a second call in the same workspace too."""
    from battlelog.engines import make_engine
    from battlelog.engines.workspace import Workspace

    workspace = Workspace()
    start = time.perf_counter()
    marginals = workspace.engine("native").marginals(GameState.empty(config))
    out: dict[str, Any] = {"seconds": time.perf_counter() - start, "models": marginals.models}
    if repeat:
        start = time.perf_counter()
        make_engine("native", workspace=workspace).marginals(GameState.empty(config))
        out["again"] = time.perf_counter() - start
    return out


def greedy_games(config: GameConfig, count: int, seed: int, cold: bool) -> dict[str, Any]:
    """``count`` games of the problog player in one workspace, as a worker plays them; ``cold``: a new
    workspace and an empty disk cache before each game."""
    from battlelog.engines.workspace import Workspace

    moves: list[float] = []
    totals, scores = [], []
    workspace = Workspace()
    for game in range(count):
        with tempfile.TemporaryDirectory(prefix="battlelog-bench-") as store:
            if cold:  # nothing remembered from the previous game, nothing stored on disk
                workspace = Workspace()
                os.environ["BATTLELOG_CACHE_DIR"] = store
            player = make_player("problog", game_seeds(seed, game)[1])
            player.use(workspace)
            result = play_game(config, layout_for(config, seed, game), player)
            player.close()
        moves += result.move_seconds
        totals.append(result.seconds)
        scores.append(result.score)
    return {"moves": moves, "totals": totals, "scores": scores}


def large_board(config: GameConfig, shots: int, seed: int) -> dict[str, Any]:
    """The marginals of a state ``shots`` shots into a pdf game (0: the empty board), with the model's shape."""
    from battlelog.engines.budget import memory_budget
    from battlelog.engines.native.layered import sweep
    from battlelog.engines.native.tables import SweepTables, sweep_order
    from battlelog.model.ground import Problem, ground

    state = GameState.empty(config)
    if shots:
        full = play_game(config, layout_for(config, seed, 0), make_player("pdf", game_seeds(seed, 0)[1])).state
        state = full.prefix(min(shots, len(full.shots) - 1))
    start = time.perf_counter()
    model = sweep(SweepTables(Problem.from_model(ground(state)), sweep_order(state)), memory_budget())
    sweep_seconds = time.perf_counter() - start
    model.uses()
    return {
        "seconds": time.perf_counter() - start, "sweep_seconds": sweep_seconds,
        "layouts": model.paths * model.tables.multiplicity, "states": sum(level.states for _, level in model.levels()),
        "widest": max(level.states for _, level in model.levels()), "rebuilt": model.rebuilds, "shots": len(state.shots),
    }  # fmt: skip


def sweep_orders(count: int, seed: int) -> dict[str, Any]:
    """Transitions of every state of ``count`` greedy 10x10 games (every third move up to 30), in all eight orders."""
    from battlelog.engines.native.layered import sweep
    from battlelog.engines.native.tables import SweepTables, sweep_order
    from battlelog.model.ground import Problem, ground
    from battlelog.rules.symmetry import SYMMETRIES

    chosen, best, worst, identity = [], [], [], []
    for game in range(count):
        full = play_game(STANDARD, layout_for(STANDARD, seed, game), make_player("problog", game_seeds(seed, game)[1])).state
        for k in range(2, min(len(full.shots), 30), 3):
            state = full.prefix(k)
            problem = Problem.from_model(ground(state))
            sizes = {s: sum(len(level.child) for _, level in sweep(SweepTables(problem, s), 2**32).levels()) for s in SYMMETRIES}
            chosen.append(sizes[sweep_order(state)])
            best.append(min(sizes.values()))
            worst.append(max(sizes.values()))
            identity.append(sizes[SYMMETRIES[0]])
    return {"chosen": chosen, "best": best, "worst": worst, "identity": identity}


def child(task: dict[str, Any]) -> dict[str, Any]:
    config = GameConfig(task["size"], tuple(task["ships"]))
    kind = task["task"]
    if kind == "empty":
        return empty_board(config, task.get("repeat", False))
    if kind == "games":
        return greedy_games(config, task["games"], task["seed"], task["cold"])
    if kind == "large":
        return large_board(config, task["shots"], task["seed"])
    if kind == "orders":
        return sweep_orders(task["games"], task["seed"])
    raise ValueError(f"unknown task {kind}")


# ----- the parent ------------------------------------------------------------------------------------
def standard_section(games: int, seed: int, limit: float) -> None:
    base = {"size": STANDARD.size, "ships": list(STANDARD.ships)}
    print("## The standard game: 10x10 with 5,4,3,3,2\n")
    with tempfile.TemporaryDirectory() as numba_cache, tempfile.TemporaryDirectory() as store:
        fresh = {**os.environ, "NUMBA_CACHE_DIR": numba_cache, "BATTLELOG_CACHE_DIR": store}
        first_ever = run_child({**base, "task": "empty"}, limit, SCRIPT, fresh)  # compiles the kernel, stores the board
        run_child({**base, "task": "empty"}, limit, SCRIPT)  # the machine's own numba cache, warmed
        cold = run_child({**base, "task": "empty", "repeat": True}, limit, SCRIPT)
        stored = run_child({**base, "task": "empty"}, limit, SCRIPT, fresh)  # reads the stored board
    cold_games = run_child({**base, "task": "games", "games": games, "seed": seed, "cold": True}, limit * games, SCRIPT)
    warm_games = run_child({**base, "task": "games", "games": games, "seed": seed, "cold": False}, limit * games, SCRIPT)
    rows = [
        ["empty board, first run on a machine (numba compiles the kernel)", _time(first_ever), megabytes(first_ever.get("peak"))],
        ["empty board, cold (nothing stored, kernel cached by numba)", _time(cold), megabytes(cold.get("peak"))],
        ["empty board, from the disk cache (new process)", _time(stored), megabytes(stored.get("peak"))],
        ["empty board, from memory (same process)", duration(cold.get("again")), ""],
    ]
    print(markdown_table(["what", "time", "process peak"], rows))
    if "models" in cold:
        print(f"\nlayouts of the empty board: {cold['models']:,}\n")
    header = [
        "greedy games (problog player)", "games", "mean shots", "median move", "slowest move", "mean game", "slowest game",
        "process peak",
    ]
    print(markdown_table(header, [_game_row("each from a cold start (caches emptied)", cold_games),
                         _game_row("one after another in one process (an experiment worker)", warm_games)]))  # fmt: skip
    print("\nTargets (issue 8):")
    checks = [("empty board cold <= 1.5 s", cold.get("seconds"), 1.5),
              ("empty board from the cache <= 50 ms", stored.get("seconds"), 0.05)]  # fmt: skip
    if "moves" in cold_games:
        checks += [("every move of a greedy game <= 2 s (cold games)", max(cold_games["moves"]), 2.0),
                   ("median move <= 20 ms (cold games)", statistics.median(cold_games["moves"]), 0.02),
                   ("whole game mean <= 5 s (cold games)", statistics.mean(cold_games["totals"]), 5.0)]  # fmt: skip
    for name, value, target in checks:
        print(f"- {name}: {duration(value)}: {'met' if value is not None and value <= target else 'MISSED'}")
    peak = max(cold_games.get("peak", 0), cold.get("peak", 0))
    print(f"- peak memory <= 1 GB: {megabytes(peak)}: {'met' if 0 < peak <= 10**9 else 'MISSED'}\n")


def _time(result: dict[str, Any]) -> str:
    return result.get("status") or duration(result.get("seconds"))


def _game_row(label: str, result: dict[str, Any]) -> list[str]:
    if "moves" not in result:
        return [label, result.get("status", "-"), "", "", "", "", "", ""]
    moves, totals = result["moves"], result["totals"]
    return [label, str(len(totals)), f"{statistics.mean(result['scores']):.1f}", duration(statistics.median(moves)),
            duration(max(moves)), duration(statistics.mean(totals)), duration(max(totals)),
            megabytes(result["peak"])]  # fmt: skip


def engines_section(games: int, seed: int) -> None:
    configs = parse_configs(PAPER) + [GameConfig(8, (5, 4, 3, 3, 2))]
    limits = {"problog": 120.0, "sdd": 3600.0, "native": 600.0}
    print("## Every engine on the paper's boards and 8x8 (the same states and games for each)\n")
    rows, ratios = [], []
    for config in configs:
        engines = ["problog", "sdd", "native"]
        results = measure_config(config, engines, limits, games, seed)
        rows += engine_rows(config, results)
        for slow, fast in (("problog", "native"), ("sdd", "native")):
            ratios += ratio_rows(config, results, slow, fast)
    header = ["board", "engine", "first move", "its peak", "mid-game move", "game: median move", "worst move",
              "whole game", "shots", "game peak"]  # fmt: skip
    print(markdown_table(header, rows))
    print("\nTime ratios (how many times longer the other engine takes than native):\n")
    print(markdown_table(["board", "ratio", "first move", "mid-game move", "game: median move", "whole game"], ratios))
    print()


def large_section(seed: int, limit: float) -> None:
    print("## Larger boards and fleets (default 2 GB budget)\n")
    rows = []
    for size, ships in LARGE:
        config = GameConfig(size, ships)
        for shots in (0, 10, 20):
            r = run_child({"size": size, "ships": list(ships), "task": "large", "shots": shots, "seed": seed}, limit, SCRIPT)
            label = f"{config.label()}, " + ("empty" if shots == 0 else f"{r.get('shots', shots)} shots")
            if "status" in r:
                rows.append([label, r["status"], "", "", "", "", ""])
            else:
                rows.append([label, f"{r['layouts']:,}", f"{r['states']:,}", f"{r['widest']:,}",
                             "rebuilt" if r["rebuilt"] else "kept", duration(r["seconds"]), megabytes(r["peak"])])  # fmt: skip
            print(f"  {label}: done", file=sys.stderr, flush=True)
    print(markdown_table(["state", "layouts", "states", "widest level", "levels", "time", "process peak"], rows))
    print()


def orders_section(games: int, seed: int, limit: float) -> None:
    r = run_child({"size": 10, "ships": [5, 4, 3, 3, 2], "task": "orders", "games": games, "seed": seed}, limit, SCRIPT)
    print("## Which raster order to sweep\n")
    if "status" in r:
        print(r["status"] + "\n")
        return
    best = np.array(r["best"], dtype=float)
    rows = [[name, f"{np.sum(r[key]) / best.sum():.3f}", f"{np.max(np.array(r[key]) / best):.2f}"]
            for name, key in (("the engine's choice (sweep from the hits)", "chosen"), ("always row-major", "identity"),
                              ("the worst of the eight", "worst"))]  # fmt: skip
    print(f"{len(best)} states of {games} greedy 10x10 games; transitions relative to the best of the eight orders:\n")
    print(markdown_table(["order", "total work / best", "worst state / best"], rows))
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20, help="greedy 10x10 games per row (default: 20)")
    parser.add_argument(
        "--engine-games", type=int, default=3, help="games per engine and board in the engines section (default: 3)"
    )
    parser.add_argument("--seed", type=int, default=1, help="root seed of the boards (default: 1)")
    parser.add_argument("--skip", default="", help="comma-separated sections to skip: standard, engines, large, orders")
    parser.add_argument("--time-limit", type=float, default=900, help="seconds per child task (default: 900)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return answer_child(args.child, child)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    print(machine_header("The native engine", argv, args.seed))
    if "standard" not in skip:
        standard_section(args.games, args.seed, args.time_limit)
    if "engines" not in skip:
        engines_section(args.engine_games, args.seed)
    if "large" not in skip:
        large_section(args.seed, args.time_limit)
    if "orders" not in skip:
        orders_section(10, 5, args.time_limit * 2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
