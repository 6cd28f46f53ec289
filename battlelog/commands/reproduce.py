"""Reproduce the BattleLog paper's Table 1 with confidence intervals, paired tests and plots.

Runs every configuration of the paper's table (4x4 3,2,2; 5x5 3,2; 5x5 3,3,2; 6x6 4,3,3; 6x6 5,5,4;
7x7 5,5,4) with random, hunt-target, pdf and problog on the same boards, through the experiment
runner: interrupt it at any time and run the same command again to resume. Writes, in OUT:
results.md/.csv (mean [95% CI] beside the paper's number), paired.csv (problog - pdf and
pdf - hunt-target on the same boards, with CI and significance), plots/*.png (score distribution
and CDF per configuration, means vs. the paper) and report.md (all of it with the command and seed).

example:
  battlelog reproduce --quick --out results/quick
  battlelog reproduce --out results/full --games 1000 --seed 0
  battlelog reproduce --out results/small --config 4:3,2,2 --config 5:3,2 --games 200
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import TYPE_CHECKING

from battlelog.commands.boards import output_path, whole
from battlelog.commands.common import add_engine_argument, add_executor_arguments, add_limit_arguments, executor_from
from battlelog.digits import whole_number
from battlelog.engines import DEFAULT_ENGINE
from battlelog.errors import BattlelogError
from battlelog.rules.config import GameConfig, parse_ships
from battlelog.wording import clip

if TYPE_CHECKING:
    from battlelog.report.paper import PaperRow

#: Games per cell with --quick.
QUICK_GAMES = 100



def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="output directory (one experiment per configuration inside)")
    parser.add_argument("--games", type=whole, default=1000, help="games per configuration and player (default: 1000)")
    parser.add_argument(
        "--quick", action="store_true", help=f"a small version: {QUICK_GAMES} games per cell (overrides --games)"
    )
    parser.add_argument("--seed", type=whole, default=0, help="root seed of every board and player (default: 0)")
    parser.add_argument(
        "--config",
        action="append",
        metavar="SIZE:SHIPS",
        help="only this configuration of the paper's table, e.g. 5:3,3,2 (repeatable, each played once; default: all six)",
    )
    add_limit_arguments(parser)
    add_executor_arguments(parser)
    add_engine_argument(parser, default=DEFAULT_ENGINE)


def _rows(specs: list[str] | None) -> list[PaperRow]:
    """The paper's rows, or the ones named by --config SIZE:SHIPS (in the order given, each once)."""
    from battlelog.report.paper import paper_table

    table = paper_table()
    if not specs:
        return table
    by_config = {row.config: row for row in table}
    rows: list[PaperRow] = []
    for spec in specs:
        size, _, ships = spec.partition(":")
        board = whole_number(size)  # ASCII digits only: "²" passes str.isdigit but is no size
        if board is None or not ships:
            raise BattlelogError(f"--config {clip(spec)!r} is not SIZE:SHIPS such as 5:3,3,2")
        config = GameConfig(board, parse_ships(ships))
        if config not in by_config:
            known = ", ".join(f"{r.config.size}:{','.join(map(str, r.config.ships))}" for r in table)
            raise BattlelogError(f"--config {spec} is not in the paper's table ({known})")
        if by_config[config] not in rows:
            rows.append(by_config[config])
    return rows


def _command(args: argparse.Namespace) -> str:
    """The command line that reproduces this run, for the report."""
    words = ["battlelog", "reproduce", "--out", args.out]
    words += ["--quick"] if args.quick else ["--games", str(args.games)]
    words += ["--seed", str(args.seed), "--engine", args.engine]
    for spec in dict.fromkeys(args.config or []):
        words += ["--config", spec]
    return " ".join(shlex.quote(w) for w in words)


def run(args: argparse.Namespace) -> int:
    from battlelog.report.paper_files import results_markdown
    from battlelog.report.reproduce import reproduce

    out = output_path(args.out, "--out")
    games = QUICK_GAMES if args.quick else args.games
    if games < 2:
        raise BattlelogError(f"--games must be at least 2 for confidence intervals, got {games}")
    rows = _rows(args.config)
    executor = executor_from(args)
    command = _command(args)
    try:
        with executor:
            result = reproduce(out, games, args.seed, executor, args.engine, rows, command)
    except KeyboardInterrupt:
        print("battlelog: interrupted; finished games are kept: run the same command again to resume", file=sys.stderr)
        return 130
    print(results_markdown(result))
    print(f"\nreport: {out / 'report.md'}  (tables: results.md, results.csv, paired.csv; figures: plots/)")
    return 0
