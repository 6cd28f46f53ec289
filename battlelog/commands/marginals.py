"""Show the exact occupancy marginal of every cell of a game state: the chance a ship covers it.

Reads a game-state JSON file (the spec's format), or takes --size and --ships for the empty
board. Prints a heat map (rows A.., columns 1..; o miss, X hit, # the hit that sank a ship),
coloured when the output is a terminal, or with --json the spec's marginals format. A state that
no layout satisfies is reported in one line naming the first shot at fault.

examples:
  battlelog marginals state.json                       # heat map with the default engine
  battlelog marginals state.json --engine problog --json > marginals.json
  battlelog marginals --size 5 --ships 3,3,2           # the empty board
  battlelog marginals state.json --no-color | less
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from battlelog.commands.common import add_state_arguments, state_from
from battlelog.display import heatmap_text
from battlelog.engines import DEFAULT_ENGINE, ENGINES, Engine, Inconsistent, Marginals, locate_fault, make_engine
from battlelog.game import cell_name
from battlelog.state import GameState

HELP = "show the chance that a ship covers each cell of a game state"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_state_arguments(parser)
    parser.add_argument(
        "--engine",
        choices=sorted(ENGINES),
        default=DEFAULT_ENGINE,
        help=f"exact inference engine (default: {DEFAULT_ENGINE}); all engines give the same marginals",
    )
    parser.add_argument(
        "--json", action="store_true", help='print {"size", "models", "cells"} as JSON instead of a heat map'
    )
    parser.add_argument(
        "--no-color", action="store_true", help="no colours in the heat map (default: colour on a terminal)"
    )


def run(args: argparse.Namespace) -> int:
    state = state_from(args)
    engine = make_engine(args.engine)  # outside the timing: the first use imports the engine's libraries
    try:
        start = time.perf_counter()
        marginals = solve(state, engine)
        seconds = time.perf_counter() - start
    finally:
        engine.close()
    if args.json:
        print(json.dumps(marginals.to_json()))
    else:
        print(report(state, marginals, args.engine, seconds, color=sys.stdout.isatty() and not args.no_color))
    return 0


def solve(state: GameState, engine: Engine) -> Marginals:
    """The engine's marginals; a contradictory state becomes the error naming the first shot at fault."""
    try:
        return engine.marginals(state)
    except Inconsistent:
        raise locate_fault(state, engine) from None


def report(state: GameState, marginals: Marginals, engine: str, seconds: float, color: bool) -> str:
    """Title, heat map and a line naming the most likely unshot cell(s)."""
    lines = [
        f"{state.config.label()} after {len(state.shots)} shot(s): chance (%) that a ship covers each cell "
        f"(engine {engine}, {seconds:.2f} s)",
        heatmap_text(marginals.cells, state, color=color),
        "o miss, X hit, # the hit that sank a ship",
    ]
    if marginals.models is not None:
        lines.append(f"{marginals.models} layouts fit the answers")
    if state.unshot and not state.over:
        values = np.array([marginals.cells[cell] for cell in state.unshot])
        best = [cell_name(cell) for cell, v in zip(state.unshot, values) if v >= values.max() - 1e-12]
        lines.append(f"most likely: {', '.join(best)} ({100 * values.max():.1f}%)")
    return "\n".join(lines)
