"""The exact optimum of a small instance, and beside it the exact expected score of each player.

The optimum is the smallest expected number of shots over all policies, on a layout drawn
uniformly from those legal under the touch rule (--touch), with the answers the sink rule gives
(--sinks; by default the spec's: sunk announcements name the ship). It is found by branch and
bound over belief states (the layouts still consistent with the answers, and the hits), with the
board's symmetries; every figure is an exact fraction (printed rounded, and exactly with --json).
By default only the optimum is computed; --players adds the exact expectation of each player named
(with options, as NAME[key=value,...]): every layout, and every way its ties can fall. Players whose
choice is random beyond ties (mc) have none and are marked. A player's walk can take far longer than
the optimum: players that hunt at random (hunt-target, parity) branch on every cell they may shoot,
and a warning says so before such a walk starts on a larger instance. The solver's peak memory and
the walks' are reported apart.

Instances beyond what this machine solves in reasonable time are refused up front; --time-limit
stops a search that runs too long, and with --table FILE what it solved is kept and the next run with
the same FILE goes on from there. --split FILE solves the first shot's children apart (in --workers
processes, which take in each other's tables every 10 minutes), keeping each one's exact total in FILE
as it finishes (a run with the same FILE goes on with the others), and prints every first shot's exact
value beside the optimum; with --decide, a first shot is searched only until it is proven unable to
beat the best one found (its value then printed as a lower bound). Progress goes to stderr.

--prior solves under another prior than the uniform one (the best response to a hider who lays out the
fleet so): a log-linear prior as elsewhere (edge=0.8, a preset, a prior file; its weights are rounded to
integers, and the optimum, exact for them, is printed with a bound on how far the prior's own can lie), or
a file of explicit layout weights, JSON lines {"layout": [...], "weight": w}, layouts as game records write
them, w a number or "p/q" (exact; an unlisted layout weighs 0). See docs/duel.md.

examples:
  battlelog optimal --size 4 --ships 3,2
  battlelog optimal --size 4 --ships 3,2,2 --players pdf,problog,mc[samples=50]
  battlelog optimal --size 3 --ships 2 --json
  battlelog optimal --size 4 --ships 3,2,2 --touch none --sinks silent --players problog
  battlelog optimal --size 5 --ships 3,2 --table 5x5-3,2.table --time-limit 3600   (run again to go on)
  battlelog optimal --size 4 --ships 3,2,2 --split 4x4-3,2,2.json                   (run again to go on)
  battlelog optimal --size 5 --ships 3,2 --split 5x5-3,2.json --decide --workers 2
  battlelog optimal --size 4 --ships 3,2 --prior edge=-1
  battlelog optimal --size 4 --ships 3,2 --prior weights.jsonl --json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from battlelog.commands.boards import add_board_arguments, config_from, output_path, whole
from battlelog.commands.common import parse_memory, parse_seconds
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError
from battlelog.files import check_regular
from battlelog.optimum import DEFAULT_MEMORY
from battlelog.players import PLAYERS, make_player
from battlelog.players.spec import PlayerSpec, parse_players

if TYPE_CHECKING:
    from battlelog.optimum.layouts import LayoutTable
    from battlelog.optimum.solver import Solver
    from battlelog.rules.config import GameConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_board_arguments(parser)
    parser.add_argument(
        "--players",
        default="none",
        metavar="LIST",
        help=f"comma-separated players to evaluate exactly, each one of {', '.join(PLAYERS)} with options as "
        "NAME[key=value,...] if you like (default: none, the optimum alone)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON (fractions exactly as strings too)")
    parser.add_argument(
        "--prior", default=None, metavar="SPEC|FILE", dest="layout_prior",
        help="solve under this prior: edge=0.8,touch=-1, a preset, a prior file, or a file of explicit layout weights "
        "(JSON lines {\"layout\": [...], \"weight\": w}); default: uniform",
    )  # fmt: skip
    parser.add_argument(
        "--memory",
        default=f"{DEFAULT_MEMORY >> 30}G",
        metavar="SIZE",
        help="memory for the table of solved states (default: 1G); less is never wrong, only slower, often much",
    )
    parser.add_argument("--time-limit", default="none", metavar="SECONDS", help="stop the search after this long (default: none)")
    parser.add_argument(
        "--table", default=None, metavar="FILE",
        help="keep the table of solved states in FILE: read back when it exists, so that a search stopped by "
        "--time-limit, Ctrl-C or a TERM signal goes on where it stopped; written every 10 minutes and at the end",
    )  # fmt: skip
    parser.add_argument(
        "--split", default=None, metavar="FILE",
        help="solve each first shot's children apart, in --workers processes (each with --memory), keeping every "
        "child's exact total in FILE as it finishes: a run with the same FILE goes on with the rest",
    )  # fmt: skip
    parser.add_argument("--workers", default=None, type=whole, metavar="N",
                        help="processes for --split, each with --memory for its table (default: 1)")  # fmt: skip
    parser.add_argument(
        "--decide", action="store_true",
        help="with --split: search each first shot only until it cannot beat the best one solved, so that the "
        "optimum is decided but a first shot ruled out gets a lower bound instead of its value",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from battlelog.players.evaluate import NotExact, expected_shots, long_walk
    from battlelog.report.optimum import optimum_table
    from battlelog.runner.procmem import megabytes, peak_bytes, reset_peak
    from battlelog.views.optimum_progress import walk_progress

    config = config_from(args)
    if config.rules.is_salvo:
        raise BattlelogError(f"optimal solves games of one shot a turn, not {config.rules.text()}")
    specs = _players(args.players)
    memory = parse_memory(args.memory) or DEFAULT_MEMORY
    if args.layout_prior is not None:  # read here, not by config_from: it may be a file of layout weights
        return _under_prior(config, args, specs, memory)
    seconds = parse_seconds(args.time_limit)
    exact = reset_peak()
    start = time.perf_counter()
    if args.split is not None:
        if args.table is not None:
            raise BattlelogError("--table and --split keep different things: give one of them")
        optimum, layouts, searched = _split(config, args, memory, seconds)
    else:
        if args.workers is not None:
            raise BattlelogError("--workers is for --split (a whole search is one process)")
        if args.decide:
            raise BattlelogError("--decide is for --split (a whole search decides the optimum anyway)")
        optimum, layouts, searched = _whole(config, args, memory, seconds)
    solved, solve_peak = time.perf_counter() - start, peak_bytes(exact)
    values: dict[str, Fraction] = {}
    skipped: dict[str, str] = {}
    exact = reset_peak()
    start = time.perf_counter()
    workspace = Workspace()  # shared by the walks: the players that score the posterior meet the same states
    try:
        for spec in specs:
            if spec.label == "optimal":  # the optimal player's expectation is the optimum: nothing to walk
                values[spec.label] = optimum
                continue
            player = make_player(spec.label, 0)
            player.use(workspace)
            if long_walk(player, layouts):
                print(f"battlelog: warning: {spec.label}'s exact walk on {config.label()} may take minutes and much more memory "
                      "than the optimum (it hunts at random; see docs/optimum.md)", file=sys.stderr, flush=True)  # fmt: skip
            try:
                values[spec.label] = expected_shots(player, layouts, progress=walk_progress(spec.label), every=1000)
            except NotExact as exc:
                skipped[spec.label] = str(exc)
            finally:
                player.close()
    finally:
        workspace.close()
    walked = any(spec.label != "optimal" for spec in specs)
    walks_peak = peak_bytes(exact)
    figures = {
        **config.board_json(),
        "ships": list(config.ships),
        "rules": config.rules.to_json(),
        "layouts": len(layouts),
        "optimal": float(optimum),
        "players": {name: float(value) for name, value in values.items()},
        "exact": {"optimal": str(optimum), **{name: str(value) for name, value in values.items()}},
        "not_exact": skipped,
        "solve_seconds": round(solved, 3),
        **searched,
        "solve_peak_mb": megabytes(solve_peak),
        "walks_seconds": round(time.perf_counter() - start, 3) if walked else None,
        "walks_peak_mb": megabytes(walks_peak) if walked else None,
        # ru_maxrss alone is not the process's peak: resetting the high-water mark before the walks lowers it.
        "peak_memory_mb": max(solve_peak, walks_peak, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024) // 2**20,
    }
    print(json.dumps(figures) if args.json else optimum_table(config, optimum, values, skipped, figures))
    return 0


def _under_prior(config: GameConfig, args: argparse.Namespace, specs: list[PlayerSpec], memory: int) -> int:
    """--prior: the optimum under a log-linear prior or explicit layout weights (battlelog.optimum.weights)."""
    from battlelog.optimum.layouts import solvable_layouts
    from battlelog.optimum.prior_solver import WeightedSolver
    from battlelog.optimum.weights import weights_named

    uniform_only = {"--players": specs, "--split": args.split, "--table": args.table, "--decide": args.decide,
                    "--workers": args.workers}  # fmt: skip
    for flag, given in {**uniform_only, "--time-limit": args.time_limit != "none"}.items():
        if given:
            raise BattlelogError(f"--prior solves the optimum alone: {flag} is for the uniform prior")
    weighted, named = weights_named(solvable_layouts(config), args.layout_prior)
    start = time.perf_counter()
    solver = WeightedSolver(weighted.layouts, weighted.weights, memory)
    optimum = solver.optimum()
    figures = {**config.board_json(), "ships": list(config.ships), "rules": config.rules.to_json(), "prior": named,
               "layouts": len(weighted.layouts), "optimal": float(optimum), "exact": {"optimal": str(optimum)},
               "tolerance": weighted.tolerance, "solve_seconds": round(time.perf_counter() - start, 3),
               "search_nodes": int(solver.stats[0]), "symmetries": len(solver.symmetries)}  # fmt: skip
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"{config.label()} under prior {named}: {len(weighted.layouts):,} layouts of positive weight; optimal play needs "
          f"{float(optimum):.4f} shots on average ({optimum} exactly" + (")" if weighted.exact else
          f" for the weights rounded to integers; the prior's own optimum within {weighted.tolerance:.1e})"))  # fmt: skip
    print(f"solved in {figures['solve_seconds']:.1f} s ({figures['search_nodes']:,} search nodes, "
          f"{len(solver.symmetries)} symmetries keep the weights)")  # fmt: skip
    return 0


def _whole(
    config: GameConfig, args: argparse.Namespace, memory: int, seconds: float | None
) -> tuple[Fraction, LayoutTable, dict[str, Any]]:
    """One search from the empty board (kept in --table if given): the optimum, the layouts, what it did."""
    from battlelog.optimum import search
    from battlelog.optimum.solver import WINDOWED, Solver
    from battlelog.views.optimum_progress import search_progress

    table = _table_file(args.table)
    solver = Solver(config, memory=memory, settings=WINDOWED, table_file=table)
    if table is not None and solver.earlier:
        _resuming(table, solver)
    # With a table, a TERM stops the search as Ctrl-C does, so that the table is written; only while it runs.
    before = signal.signal(signal.SIGTERM, signal.default_int_handler) if table is not None else None
    try:
        optimum = solver.optimum(progress=search_progress(config), seconds=seconds)
    finally:
        if before is not None:
            signal.signal(signal.SIGTERM, before)
        if solver.unsaved is not None:
            print(f"battlelog: warning: {solver.unsaved}", file=sys.stderr, flush=True)
    stats = solver.stats
    searched = {
        "search_nodes": int(stats[search.NODES]),
        "earlier_searches": solver.earlier or None,
        "states_stored": int(stats[search.STORED]),
    }
    return optimum, solver.layouts, searched


def _split(
    config: GameConfig, args: argparse.Namespace, memory: int, seconds: float | None
) -> tuple[Fraction, LayoutTable, dict[str, Any]]:
    """The first shot's children solved apart (:mod:`battlelog.optimum.split`), kept in --split."""
    from battlelog.optimum.split import solve_split

    workers = 1 if args.workers is None else args.workers
    if workers < 1:
        raise BattlelogError(f"--workers {workers}: give at least 1")
    path = _writable(args.split, "--split")
    # A TERM stops the wait as Ctrl-C does: the processes are stopped, the children solved are in the file.
    before = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        result = solve_split(
            config, path, workers, memory, seconds, said=lambda line: print(line, file=sys.stderr, flush=True), decide=args.decide
        )
    finally:
        signal.signal(signal.SIGTERM, before)
    first = {f"{s.cell[0]},{s.cell[1]}": {"shots": float(s.value), "exact": str(s.value), "lower_bound": not s.exact}
             for s in result.first_shots}  # fmt: skip
    searched = {"search_nodes": result.nodes, "search_seconds": round(result.seconds, 1), "earlier_searches": None,
                "states_stored": None, "first_shots": first}  # fmt: skip
    return result.optimum, result.layouts, searched


def _table_file(text: str | None) -> Path | None:
    """--table as a path the search can write to, or None."""
    return None if text is None else _writable(text, "--table")


def _writable(text: str, flag: str) -> Path:
    """A file the search can write to, checked now rather than after hours of search."""
    path = output_path(text, flag)
    folder = path.parent
    if path.is_dir():
        raise BattlelogError(f"{flag} {path} is a folder: give the name of a file")
    check_regular(path)  # read back on the next run: never a device or a FIFO
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise BattlelogError(f"{flag} {path}: cannot write in {folder} (no such folder, or not writable)")
    return path


def _resuming(path: Path, solver: Solver) -> None:
    """Say on stderr what the table read back holds."""
    from battlelog.optimum import search

    earlier, stats = solver.earlier, solver.stats
    print(
        f"resuming from {path}: {int(stats[search.STORED]):,} states ({int(stats[search.EXACT_STORED]):,} solved), "
        f"{earlier.get('nodes', 0):,} nodes in {earlier.get('seconds', 0):,.0f} s over {earlier.get('runs', 0)} earlier run(s)",
        file=sys.stderr,
        flush=True,
    )


def _players(text: str) -> list[PlayerSpec]:
    """The players of --players (``none`` for none)."""
    return [] if text.strip().lower() == "none" else parse_players(text)
