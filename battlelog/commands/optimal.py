"""The exact optimum of a small instance, and beside it the exact expected score of each player.

The optimum is the smallest expected number of shots over all policies, on a layout drawn
uniformly, with the spec's answers (sunk announcements name the ship). It is found by branch and
bound over belief states (the layouts still consistent with the answers, and the hits), with the
board's symmetries; every figure is an exact fraction (printed rounded, and exactly with --json).
A player's expectation is exact too: every layout, and every way its ties can fall. Players whose
choice is random beyond ties (mc) have none and are marked.

Instances beyond what this machine solves in reasonable time are refused up front; --time-limit
stops a search that runs too long. Progress goes to stderr.

examples:
  battlelog optimal --size 4 --ships 3,2
  battlelog optimal --size 4 --ships 3,2,2 --players pdf,problog
  battlelog optimal --size 3 --ships 2 --json
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from battlelog.commands.common import add_board_arguments, config_from, parse_memory, parse_seconds
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError
from battlelog.optimum import search
from battlelog.optimum.solver import DEFAULT_MEMORY, Progress, Solver
from battlelog.players import PLAYERS, make_player
from battlelog.players.evaluate import NotExact, expected_shots
from battlelog.rules.config import GameConfig

#: Seconds between progress lines on stderr.
EVERY = 10.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_board_arguments(parser)
    parser.add_argument(
        "--players",
        default=",".join(name for name in PLAYERS if name != "optimal"),
        help="comma-separated players to evaluate exactly, or none (default: every registered player but optimal, "
        "whose expectation is the optimum)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON (fractions exactly as strings too)")
    parser.add_argument(
        "--memory", default=f"{DEFAULT_MEMORY >> 30}G", metavar="SIZE", help="memory for the table of solved states (default: 1G); less is never wrong, only slower, often much",
    )
    parser.add_argument("--time-limit", default="none", metavar="SECONDS", help="stop the search after this long (default: none)")


def run(args: argparse.Namespace) -> int:
    config = config_from(args)
    names = _players(args.players)
    memory = parse_memory(args.memory) or DEFAULT_MEMORY
    seconds = parse_seconds(args.time_limit)
    start = time.perf_counter()
    solver = Solver(config, memory=memory)
    optimum = solver.optimum(progress=_report_search(config), seconds=seconds)
    solved = time.perf_counter() - start
    values: dict[str, Fraction] = {}
    skipped: dict[str, str] = {}
    workspace = Workspace()  # shared by the walks: the players that score the posterior meet the same states
    try:
        for name in names:
            player = make_player(name, 0)
            player.use(workspace)
            try:
                values[name] = expected_shots(player, solver.layouts, progress=_report_walk(name), every=1000)
            except NotExact as exc:
                skipped[name] = str(exc)
            finally:
                player.close()
    finally:
        workspace.close()
    figures = {
        "size": config.size,
        "ships": list(config.ships),
        "layouts": len(solver.layouts),
        "optimal": float(optimum),
        "players": {name: float(value) for name, value in values.items()},
        "exact": {"optimal": str(optimum), **{name: str(value) for name, value in values.items()}},
        "not_exact": skipped,
        "solve_seconds": round(solved, 3),
        "search_nodes": int(solver.stats[search.NODES]),
        "states_stored": int(solver.stats[search.STORED]),
        "peak_memory_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
    }
    print(json.dumps(figures) if args.json else table(config, optimum, values, skipped, figures))
    return 0


def _players(text: str) -> list[str]:
    """The player names of --players, each registered (``none`` for none)."""
    if text.strip().lower() == "none":
        return []
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in PLAYERS:
            raise BattlelogError(f"unknown player {name!r}; choose from {', '.join(PLAYERS)}")
    return names


def _report_search(config: GameConfig) -> Callable[[Progress], None]:
    """A progress callback printing one line to stderr every EVERY seconds of search."""
    last = [0.0]

    def report(progress: Progress) -> None:
        if progress.seconds - last[0] < EVERY:
            return
        last[0] = progress.seconds
        best = f", best found {progress.root_best}" if progress.root_best else ""
        print(
            f"solving {config.label()}: {progress.seconds:.0f} s, {progress.nodes:,} nodes, {progress.stored:,} states "
            f"stored, first shot {progress.root_done}/{progress.root_total}{best}",
            file=sys.stderr,
            flush=True,
        )

    return report


def _report_walk(name: str) -> Callable[[int], None]:
    """A progress callback printing one line to stderr at most every EVERY seconds of evaluation."""
    start = time.perf_counter()
    last = [start]

    def report(states: int) -> None:
        now = time.perf_counter()
        if now - last[0] >= EVERY:
            last[0] = now
            print(f"evaluating {name}: {states:,} states, {now - start:.0f} s", file=sys.stderr, flush=True)

    return report


def table(config: GameConfig, optimum: Fraction, values: dict[str, Fraction], skipped: dict[str, str], figures: dict[str, Any]) -> str:
    """The optimum and each player's exact expectation with its gap, best first."""
    lines = [
        f"{config.label()}: {figures['layouts']:,} layouts; optimal play needs {float(optimum):.4f} shots on average "
        f"({optimum} exactly)",
        f"solved in {figures['solve_seconds']:.1f} s ({figures['search_nodes']:,} search nodes, {figures['states_stored']:,} states stored, peak memory {figures['peak_memory_mb']} MB)",
        "",
        f"{'player':<12} {'expected shots':>14} {'gap':>8}  exactly",
        f"{'optimal':<12} {float(optimum):>14.4f} {0:>+8.4f}  {optimum}",
    ]
    for name, value in sorted(values.items(), key=lambda item: item[1]):
        lines.append(f"{name:<12} {float(value):>14.4f} {float(value - optimum):>+8.4f}  {value}")
    for name in skipped:
        lines.append(f"{name:<12} {'not exact':>14}           chooses at random beyond its ties")
    return "\n".join(lines)
