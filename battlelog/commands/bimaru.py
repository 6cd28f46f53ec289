"""Solve and count a Bimaru (battleship solitaire) puzzle exactly: row and column tallies, revealed pieces,
the fleet and the touch rule; print a solution, whether it is unique, the exact number of solutions and
each cell's share of them.

A puzzle is JSON ({"rows", "cols", "ships", "row_counts", "col_counts", "hints": [{"row", "col",
"piece"}], "touch"}; docs/bimaru.md) or the text format of public sets (a ROW line of tallies, a COLUMN
line, the number of hints, then HINT row col X lines, X one of W C T B L R M). Ships of equal length are
alike: a solution is a set of ships. No contact between ships unless the puzzle says otherwise.

The counter stops past a budget of steps (--budget, 5,000,000 by default: about a minute and up to
1.2 GB on a 26x26 board; docs/bimaru.md): a puzzle with too few tallies and hints to count in it is refused in one line.

examples:
  battlelog bimaru puzzle.txt                 # a solution, and whether it is unique
  battlelog bimaru puzzle.txt --count --marginals
  battlelog bimaru puzzle.json --json
  battlelog bimaru small.txt --ships 3,2,2,1 --touch diagonal
"""

from __future__ import annotations

import argparse
import json

from battlelog.commands.boards import whole
from battlelog.jsonfile import named_file, read_text
from battlelog.rules.config import parse_ships
from battlelog.rules.variants import TOUCH_RULES
from battlelog.tallies.count import BUDGET, Count, solve
from battlelog.tallies.puzzle import Puzzle, read_puzzle
from battlelog.wording import count_noun


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("puzzle", help="the puzzle file (JSON or the ROW/COLUMN/HINT text format)")
    parser.add_argument("--count", action="store_true", help="print the exact number of solutions")
    parser.add_argument("--marginals", action="store_true", help="print each cell's share of the solutions")
    parser.add_argument(
        "--json", action="store_true", help='print {"solutions", "layouts", "unique", "solution", "cells"} as JSON'
    )
    parser.add_argument(
        "--ships", help="the fleet as comma-separated lengths, instead of the file's (text files: 4,3,3,2,2,2,1,1,1,1)"
    )
    parser.add_argument("--touch", choices=TOUCH_RULES, help="how ships may touch, instead of the file's (default none)")
    parser.add_argument("--budget", type=whole, default=BUDGET, help=f"the most steps the counter may take (default {BUDGET:,})")


def run(args: argparse.Namespace) -> int:
    path = named_file(args.puzzle)
    ships = None if args.ships is None else parse_ships(args.ships)
    puzzle = read_puzzle(read_text(path), ships, args.touch, str(path))
    result = solve(puzzle, marginals=args.marginals or args.json, budget=args.budget)
    print(json.dumps(to_json(result)) if args.json else report(puzzle, result, args.count, args.marginals))
    return 0


def to_json(result: Count) -> dict[str, object]:
    """The output JSON: the counts, uniqueness, one solution (``#`` ship, ``.`` water) and the shares."""
    assert result.solution is not None
    return {
        "solutions": result.solutions,
        "layouts": result.layouts,
        "unique": result.solutions == 1,
        "solution": ["".join("." if ch == "." else "#" for ch in line) for line in result.solution],
        "cells": result.cells,
    }


def report(puzzle: Puzzle, result: Count, counted: bool, shares: bool) -> str:
    """The solution as a grid with the tallies beside it, then uniqueness, the count and the shares."""
    assert result.solution is not None
    lines = [f"{line}  {'?' if t is None else t}" for line, t in zip(result.solution, puzzle.row_counts)]
    lines.append("".join("?" if t is None else str(t) if t < 10 else "+" for t in puzzle.col_counts))
    lines.append("unique solution" if result.solutions == 1 else "not unique: more than one solution")
    if counted:
        lines.append(
            f"{count_noun(result.solutions, 'solution')} ({count_noun(result.layouts, 'layout')} with ships distinguishable)"
        )
    if shares and result.cells is not None:
        lines += [" ".join(f"{v:.3f}" for v in row) for row in result.cells]
    return "\n".join(lines)
