"""Show the exact occupancy marginal of every cell of a game state: the chance a ship covers it.

Reads a game-state JSON file (format: docs/formats.md), or takes --size and --ships for the empty
board. Prints a heat map (rows A.., columns 1..; o miss, X hit, # the hit that sank a ship),
coloured on a terminal unless NO_COLOR is set, or with --json the marginals format of
docs/formats.md. A state that no layout satisfies is reported in one line naming the first shot at
fault.

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

from battlelog.commands.boards import add_engine_argument, add_state_arguments, state_from
from battlelog.engines import DEFAULT_ENGINE, Marginals
from battlelog.engines.solve import solve
from battlelog.engines.workspace import Workspace
from battlelog.rules.geometry import cell_name
from battlelog.rules.state import GameState
from battlelog.views.display import HEAT_LEGEND, TALLY_LEGEND, heatmap_text, layouts_line, most_likely, use_color
from battlelog.wording import count_noun


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_state_arguments(parser)
    add_engine_argument(parser, DEFAULT_ENGINE, what="that computes the marginals")
    parser.add_argument(
        "--json",
        action="store_true",
        help='print {"rows", "cols", "models", "cells"} (and "size" on a square board) as JSON instead of a heat map',
    )
    parser.add_argument(
        "--no-color",
        action="store_true",
        help="no colours in the heat map (default: colour on a terminal unless NO_COLOR is set)",
    )


def run(args: argparse.Namespace) -> int:
    state = state_from(args)
    workspace = Workspace()
    try:
        engine = workspace.engine(args.engine)  # outside the timing: the first use imports the engine's libraries
        start = time.perf_counter()
        marginals = solve(state, engine, args.state)
        seconds = time.perf_counter() - start
    finally:
        workspace.close()
    if args.json:
        print(json.dumps(marginals.to_json()))
    else:
        print(report(state, marginals, args.engine, seconds, color=use_color(sys.stdout, args.no_color)))
    return 0


def report(state: GameState, marginals: Marginals, engine: str, seconds: float, color: bool) -> str:
    """Title, heat map and a line naming the most likely unshot cell(s)."""
    lines = [
        f"{state.config.label()} after {count_noun(len(state.shots), 'shot')}: chance (%) that a ship covers each cell "
        f"(engine {engine}, {seconds:.2f} s)",
        heatmap_text(marginals.cells, state, color=color),
        HEAT_LEGEND,
    ]
    if state.tallied:
        lines.append(TALLY_LEGEND)
    if marginals.models is not None:
        lines.append(layouts_line(marginals.models, "the answers and the tallies" if state.tallied else "the answers"))
    best = most_likely(state, marginals.cells)
    if best:
        lines.append(f"most likely: {', '.join(map(cell_name, best))} ({100 * marginals.cells[best[0]]:.1f}%)")
    return "\n".join(lines)
