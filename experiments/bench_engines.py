"""How fast the exact engines are: ProbLog's stock pipeline (``problog``), ``sdd`` and ``native``.

For every configuration, each engine runs in its own child process (so that its peak memory is its
own and a time limit can stop it cleanly) on three tasks:

- first move: the marginals of the empty board (cold: nothing cached in the child);
- mid-game: the marginals of one state halfway through a game of the pdf player on the same board;
- game: whole games of the problog player using the engine (median and worst move, total time).

All engines compute the same marginals, so the problog player makes the same shots with any of
them: the games are the same games. Every child has an empty cache folder of its own
(BATTLELOG_CACHE_DIR), so no empty board is read from disk. The native engine's own targets (the
standard 10x10 game, larger boards) are in experiments/bench_native.py. Then, for the sdd engine
alone: whether reusing the previous move's SDD pays (every state of a few pdf games, compiled anew
against conditioned move to move), and how the empty board's compilation grows with the board
(prior size from the sweep alone, then the engine's whole first move).

usage:
  python experiments/bench_engines.py                                   # everything (long)
  python experiments/bench_engines.py --configs 5:3,3,2,7:5,5,4 --engines sdd --reuse "" --growth ""
  python experiments/bench_engines.py --configs 8:5,4,3,3,2 --engines sdd --time-limit sdd=3600
  python experiments/bench_engines.py --measure-bytes                   # calibrate the budget
Prints Markdown tables to stdout. Peak memory is the child's peak resident set (VmHWM, Linux: not
ru_maxrss, which Linux carries over from a large parent), interpreter and libraries included; the
"idle" row shows that part alone.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from machine import machine_header

from battlelog.engines import make_engine
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError
from battlelog.players import make_player
from battlelog.report.markdown import duration, markdown_table, megabytes
from battlelog.rules.config import GameConfig, format_ships
from battlelog.rules.state import GameState
from battlelog.runner.loop import play_game
from battlelog.runner.procmem import peak_bytes, reset_peak, status_bytes
from battlelog.runner.seeds import game_seeds, layout_for

#: The paper's Table 1 configurations, then the board the paper could not play.
TABLE = "4:3,2,2,5:3,2,5:3,3,2,6:4,3,3,6:5,5,4,7:5,5,4"
BIG = "8:5,4,3,3,2"
GROWTH = "6,7,8,9,10"
REUSE = f"{TABLE},6:5,4,3,3,2"
GROWTH_FLEET = (5, 4, 3, 3, 2)
#: Targets of the issue: (median move, whole game) on the paper's table; (median move, peak) on 8x8.
TABLE_TARGET = (0.050, 2.0)
BIG_TARGET = (2.0, 4 * 10**9)


# ----- what a child process measures --------------------------------------------------------------
def mid_game_state(config: GameConfig, seed: int) -> GameState:
    """Halfway through the pdf player's game on game 0's board: an engine-independent mid-game state."""
    full = play_game(config, layout_for(config, seed, 0), make_player("pdf", game_seeds(seed, 0)[1])).state
    return full.prefix(len(full.shots) // 2)


def timed_marginals(engine: str, state: GameState) -> dict[str, Any]:
    start = time.perf_counter()
    marginals = make_engine(engine).marginals(state)
    return {"seconds": time.perf_counter() - start, "models": marginals.models}


def games(engine: str, config: GameConfig, count: int, seed: int) -> dict[str, Any]:
    """``count`` games of the problog player on ``engine``, in one workspace as an experiment's worker plays them."""
    moves, totals, scores = [], [], []
    workspace = Workspace()
    for game in range(count):
        player = make_player("problog", game_seeds(seed, game)[1], engine=engine)
        player.use(workspace)
        result = play_game(config, layout_for(config, seed, game), player)
        player.close()
        moves += result.move_seconds
        totals.append(result.seconds)
        scores.append(result.score)
    return {"moves": moves, "totals": totals, "scores": scores}


def sweep_only(config: GameConfig) -> dict[str, Any]:
    """The empty board's diagram from the sweep alone (no pysdd), under the engine's state budget."""
    from battlelog.engines.budget import memory_budget
    from battlelog.engines.frontier import sweep_diagram
    from battlelog.engines.sdd_engine import BYTES_PER_STATE
    from battlelog.model.ground import Problem, ground

    start = time.perf_counter()
    diagram = sweep_diagram(Problem.from_model(ground(GameState.empty(config))), max_states=memory_budget() // BYTES_PER_STATE)
    return {"seconds": time.perf_counter() - start, "nodes": diagram.nodes, "states": diagram.states}


def measure_bytes(config: GameConfig, shots: int, seed: int) -> dict[str, Any]:
    """Resident bytes per kept sweep state and per SDD node (built and counted), for calibration."""
    from battlelog.engines.frontier import sweep_diagram
    from battlelog.engines.sdd_engine import Compiled
    from battlelog.model.ground import Problem, ground

    full = play_game(config, layout_for(config, seed, 0), make_player("pdf", game_seeds(seed, 0)[1])).state
    problem = Problem.from_model(ground(full.prefix(shots)))

    def restart_peak() -> int:
        gc.collect()
        reset_peak()  # Linux: VmHWM restarts from VmRSS
        return memory("VmRSS")

    base = restart_peak()
    diagram = sweep_diagram(problem)
    sweep_peak = memory("VmHWM") - base
    base = restart_peak()
    Compiled.from_diagram(diagram, problem).tally()
    count_peak = memory("VmHWM") - base
    return {"nodes": diagram.nodes, "states": diagram.states,
            "per_state": sweep_peak / diagram.states, "per_node": count_peak / diagram.nodes}  # fmt: skip


def memory(field: str) -> int:
    """A /proc/self/status memory field in bytes (this benchmark measures on Linux only)."""
    value = status_bytes(field)
    if value is None:
        raise RuntimeError(f"no {field} in /proc/self/status")
    return value


def child(task: dict[str, Any]) -> dict[str, Any]:
    """Run one task in this (child) process."""
    config = GameConfig(task["size"], tuple(task["ships"]))
    kind, seed = task["task"], task.get("seed", 0)
    engine: str = task.get("engine", "")  # absent only from the tasks that need no engine (sweep, bytes)
    if kind == "idle":
        make_engine(engine)
        return {}
    if kind == "first":
        return timed_marginals(engine, GameState.empty(config))
    if kind == "mid":
        state = mid_game_state(config, seed)
        return {**timed_marginals(engine, state), "shots": len(state.shots)}
    if kind == "game":
        return games(engine, config, task["games"], seed)
    if kind == "sweep":
        return sweep_only(config)
    if kind == "bytes":
        return measure_bytes(config, task["shots"], seed)
    raise ValueError(f"unknown task {kind}")


def answer_child(task: str, handler: Callable[[dict[str, Any]], dict[str, Any]]) -> int:
    """The child's side of :func:`run_child`: run the task, print its result (or why it stopped) and peak memory."""
    start = time.perf_counter()
    try:
        result = handler(json.loads(task))
    except BattlelogError as exc:
        result = {"status": f"stopped after {time.perf_counter() - start:.1f} s: {exc}"}
    print(json.dumps({**result, "peak": peak_bytes()}))
    return 0


# ----- the parent ---------------------------------------------------------------------------------
def run_child(task: dict[str, Any], limit: float, script: str = __file__, env: dict[str, str] | None = None) -> dict[str, Any]:
    """The task's result from ``script --child TASK`` in a new process, or {"status": ...} when it gave
    up, ran over budget or failed."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="battlelog-bench-") as cold:  # unless told otherwise: no stored empty boards
        try:
            done = subprocess.run(
                [sys.executable, script, "--child", json.dumps(task)], capture_output=True, text=True, timeout=limit,
                env={**os.environ, "BATTLELOG_CACHE_DIR": cold} if env is None else env,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return {"status": f"gave up at {limit:.0f} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"status": f"failed after {time.perf_counter() - start:.0f} s: {last[:120]}"}
    return json.loads(lines[-1])


def parse_configs(text: str) -> list[GameConfig]:
    """``4:3,2,2,5:3,2,12x10:5,4`` -> configurations (a size N, or rows x columns, before a colon)."""
    out, board, ships = [], None, []
    for token in text.split(","):
        if ":" in token:
            if board is not None:
                out.append(GameConfig(board[0], tuple(ships), cols=board[1]))
            head, tail = token.split(":")
            rows, _, cols = head.partition("x")
            board, ships = (int(rows), int(cols or rows)), [int(tail)]
        else:
            ships.append(int(token))
    if board is not None:
        out.append(GameConfig(board[0], tuple(ships), cols=board[1]))
    return out


def parse_limits(text: str, engines: list[str]) -> dict[str, float]:
    """``120`` (every engine) or ``problog=120,sdd=1200``."""
    if "=" not in text:
        return {engine: float(text) for engine in engines}
    limits = {name: float(value) for name, value in (part.split("=") for part in text.split(","))}
    missing = [engine for engine in engines if engine not in limits]
    if missing:
        raise SystemExit(f"--time-limit gives no limit for {', '.join(missing)}")
    return limits


def cell(result: dict[str, Any], key: str) -> str:
    """A time from a child's result, or why there is none."""
    return result.get("status") or duration(result.get(key))


def measure_config(config: GameConfig, engines: list[str], limits: dict[str, float], count: int, seed: int) -> dict[str, dict]:
    out = {}
    for engine in engines:
        base = {"size": config.size, "ships": list(config.ships), "engine": engine, "seed": seed}
        first = run_child({**base, "task": "first"}, limits[engine])
        mid = run_child({**base, "task": "mid"}, limits[engine])
        if "status" in first:
            game = {"status": "skipped (first move gave up)"}
        else:
            game = run_child({**base, "task": "game", "games": count}, limits[engine])
        out[engine] = {"first": first, "mid": mid, "game": game}
        print(f"  {config.label()} {engine}: done", file=sys.stderr, flush=True)
    return out


def engine_rows(config: GameConfig, results: dict[str, dict]) -> list[list[str]]:
    rows = []
    for engine, r in results.items():
        game = r["game"]
        if "moves" in game:
            moves = game["moves"]
            summary = [duration(statistics.median(moves)), duration(max(moves)), duration(statistics.mean(game["totals"])),
                       f"{statistics.mean(game['scores']):.1f}", megabytes(game["peak"])]  # fmt: skip
        else:
            summary = [game["status"], "", "", "", "-"]
        rows.append([
            config.label(), engine, cell(r["first"], "seconds"), megabytes(r["first"].get("peak")),
            cell(r["mid"], "seconds") + (f" ({r['mid']['shots']} shots)" if "shots" in r["mid"] else ""),
            *summary,
        ])  # fmt: skip
    return rows


def ratio(slow: dict[str, Any], fast: dict[str, Any], key: str) -> str:
    """How many times longer the slow engine took; a lower bound when it gave up, if that says anything."""
    if "status" in fast:
        return "-"
    if "status" in slow:
        if not slow["status"].startswith("gave up"):
            return "-"
        bound = float(slow["status"].split()[3]) / fast[key]
        return f"> {bound:,.0f}x" if bound >= 2 else "unknown (the slower engine gave up sooner)"
    value = slow[key] / fast[key]
    return f"{value:.2g}x" if value < 10 else f"{value:,.0f}x"


def ratio_rows(config: GameConfig, results: dict[str, dict], slow_engine: str, fast_engine: str) -> list[list[str]]:
    slow, fast = results[slow_engine], results[fast_engine]

    def game_key(r: dict[str, Any], what: str) -> dict[str, Any]:
        if "moves" not in r["game"]:
            return r["game"]
        value = statistics.median(r["game"]["moves"]) if what == "median" else statistics.mean(r["game"]["totals"])
        return {"value": value}

    return [[
        config.label(), f"{slow_engine} / {fast_engine}", ratio(slow["first"], fast["first"], "seconds"),
        ratio(slow["mid"], fast["mid"], "seconds"),
        ratio(game_key(slow, "median"), game_key(fast, "median"), "value"),
        ratio(game_key(slow, "total"), game_key(fast, "total"), "value"),
    ]]  # fmt: skip


def verdict(config: GameConfig, results: dict[str, Any], big: bool) -> str:
    """Whether the sdd engine meets the issue's target on this configuration, and by how much."""
    game = results["game"]
    if "moves" not in game:
        return f"{config.label()}: no complete game ({game['status']})"
    median = statistics.median(game["moves"])
    if big:
        target_median, target_peak = BIG_TARGET
        ok = median < target_median and game["peak"] < target_peak
        detail = f"median move {duration(median)} (target < 2 s), peak {megabytes(game['peak'])} (target < 4 GB)"
    else:
        target_median, target_game = TABLE_TARGET
        total = max(game["totals"])
        ok = median < target_median and total < target_game
        detail = f"median move {duration(median)} (target < 50 ms), slowest game {duration(total)} (target < 2 s)"
    return f"{config.label()}: {'met' if ok else 'MISSED'}: {detail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add = parser.add_argument
    add("--configs", default=f"{TABLE},{BIG}", help=f"size:fleet list (default: the paper's table and {BIG})")
    add("--engines", default="problog,sdd,native", help="engines to compare (default: problog,sdd,native)")
    add("--time-limit", default="problog=120,sdd=3600,native=600",
        help="seconds per task: one number, or engine=seconds pairs (default: problog=120,sdd=3600,native=600)")
    add("--games", type=int, default=1, help="whole games per engine and configuration (default: 1)")
    add("--seed", type=int, default=0, help="root seed of the boards (default: 0)")
    add("--reuse", default=REUSE,
        help="size:fleet list for the reuse table, '' to skip (default: the paper's table and 6:5,4,3,3,2)")
    add("--reuse-games", type=int, default=3, help="pdf games per configuration in the reuse table (default: 3)")
    add("--growth", default=GROWTH,
        help=f"board sizes for the growth table with {format_ships(GROWTH_FLEET)}, '' to skip (default: {GROWTH})")
    add("--growth-time-limit", type=float, default=900, help="seconds per growth task (default: 900)")
    add("--measure-bytes", action="store_true", help="only calibrate the sdd engine's bytes per node and per state")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return answer_child(args.child, child)

    print(machine_header("Exact engines: speed and memory", argv, args.seed))
    if args.measure_bytes:
        return calibrate(args.seed)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    limits = parse_limits(args.time_limit, engines)
    configs = parse_configs(args.configs) if args.configs else []
    if configs:
        print("Time limits per task: " + ", ".join(f"{e} {limits[e]:.0f} s" for e in engines) + "\n")
        idle = {e: run_child({"task": "idle", "engine": e, "size": 4, "ships": [2]}, 120).get("peak") for e in engines}
        header = ["board", "engine", "first move", "its peak", "mid-game move", "game: median move", "worst move",
                  "whole game", "shots", "game peak"]  # fmt: skip
        rows, ratios, verdicts = [], [], []
        for config in configs:
            results = measure_config(config, engines, limits, args.games, args.seed)
            rows += engine_rows(config, results)
            for slow, fast in (("problog", "sdd"), ("problog", "native"), ("sdd", "native")):
                if {slow, fast} <= results.keys():
                    ratios += ratio_rows(config, results, slow, fast)
            if "sdd" in results:
                verdicts.append(verdict(config, results["sdd"], big=config.label() not in _table_labels()))
        print(
            markdown_table(
                header, rows + [["(idle process)", e, "", megabytes(idle[e]), "", "", "", "", "", ""] for e in engines]
            )
        )
        if ratios:
            print("\n## Time ratios between engines (same states, same games)\n")
            print(markdown_table(["board", "ratio", "first move", "mid-game move", "game: median move", "whole game"], ratios))
        if verdicts:
            print("\n## Targets (sdd)\n")
            print("\n".join(f"- {line}" for line in verdicts))
    if args.reuse:
        reuse(parse_configs(args.reuse), args.reuse_games, args.seed)
    if args.growth:
        growth(args.growth, args.growth_time_limit)
    return 0


def _table_labels() -> set[str]:
    return {config.label() for config in parse_configs(TABLE)}


def reuse(configs: list[GameConfig], count: int, seed: int) -> None:
    """Every state after the first of ``count`` pdf games: a fresh engine per state, or one per game."""
    from battlelog.engines.sdd_engine import SddEngine
    from battlelog.model.ground import Problem, ground

    print(f"\n## Reuse across moves (sdd, in this process, {count} pdf games per board)\n")
    rows = []
    for config in configs:
        fresh, kept = [], []
        for game in range(count):
            full = play_game(config, layout_for(config, seed, game), make_player("pdf", game_seeds(seed, game)[1])).state
            states = [full.prefix(k) for k in range(1, len(full.shots))]
            for state in states:
                start = time.perf_counter()
                SddEngine().count(Problem.from_model(ground(state)))
                fresh.append(time.perf_counter() - start)
            engine = SddEngine()
            for state in states:
                start = time.perf_counter()
                engine.marginals(state)
                kept.append(time.perf_counter() - start)
        rows.append([
            config.label(), str(len(fresh)), duration(sum(fresh) / count), duration(statistics.median(fresh)),
            duration(sum(kept) / count), duration(statistics.median(kept)),
        ])  # fmt: skip
    print(
        markdown_table(
            ["board", "states", "compiled anew: per game", "median state", "conditioned: per game", "median state"], rows
        )
    )


def growth(sizes: str, limit: float) -> None:
    print(f"\n## Growth of the empty board's compilation with {format_ships(GROWTH_FLEET)} (sdd)\n")
    rows = []
    for size in (int(s) for s in sizes.split(",")):
        base = {"size": size, "ships": list(GROWTH_FLEET), "engine": "sdd"}
        swept = run_child({**base, "task": "sweep"}, limit)
        first = run_child({**base, "task": "first"}, limit)
        rows.append([
            f"{size}x{size}", swept.get("status") or f"{swept['nodes']:,}", f"{swept['states']:,}" if "states" in swept else "-",
            cell(swept, "seconds"), megabytes(swept.get("peak")),
            cell(first, "seconds"), megabytes(first.get("peak")),
            f"{first['models']:,}" if "models" in first else "-",
        ])  # fmt: skip
        print(f"  growth {size}x{size}: done", file=sys.stderr, flush=True)
    print(markdown_table(["board", "prior SDD nodes", "sweep states", "sweep time", "sweep peak", "first move (sdd engine)",
                 "its peak", "layouts"], rows))  # fmt: skip


def calibrate(seed: int) -> int:
    """Bytes per node and per state on states of growing size (what BYTES_PER_NODE/STATE come from)."""
    rows = []
    for size, ships, shots in ((7, (5, 5, 4), 0), (6, (5, 4, 3, 3, 2), 0), (8, (5, 4, 3, 3, 2), 8), (8, (5, 4, 3, 3, 2), 5)):
        task = {"task": "bytes", "size": size, "ships": list(ships), "shots": shots, "seed": seed}
        r = run_child(task, 900)
        label = f"{size}x{size} {format_ships(ships)} after {shots} shots"
        if "status" in r:
            rows.append([label, r["status"], "", "", ""])
        else:
            rows.append([label, f"{r['states']:,}", f"{r['nodes']:,}", f"{r['per_state']:.0f}", f"{r['per_node']:.0f}"])
    print(markdown_table(["state", "sweep states", "SDD nodes", "bytes per state", "bytes per node"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
