"""Solve and count a Bimaru (battleship solitaire) puzzle exactly: row and column tallies, revealed pieces,
the fleet and the touch rule; print a solution, whether it is unique, the exact number of solutions and
each cell's share of them.

A puzzle is JSON ({"rows", "cols", "ships", "row_counts", "col_counts", "hints": [{"row", "col",
"piece"}], "touch"}; docs/bimaru.md) or the text format of public sets (a ROW line of tallies, a COLUMN
line, the number of hints, then HINT row col X lines, X one of W C T B L R M). Ships of equal length are
alike: a solution is a set of ships. No contact between ships unless the puzzle says otherwise.

examples:
  battlelog bimaru puzzle.txt                 # a solution, and whether it is unique
  battlelog bimaru puzzle.txt --count --marginals
  battlelog bimaru puzzle.json --json
"""

from __future__ import annotations

import argparse
import json

from battlelog.errors import FileFormatError
from battlelog.tallies.count import Count, solve
from battlelog.tallies.puzzle import Puzzle, read_puzzle


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("puzzle", help="the puzzle file (JSON or the ROW/COLUMN/HINT text format)")
    parser.add_argument("--count", action="store_true", help="print the exact number of solutions")
    parser.add_argument("--marginals", action="store_true", help="print each cell's share of the solutions")
    parser.add_argument("--json", action="store_true", help='print {"solutions", "layouts", "unique", "solution", "cells"} as JSON')


def run(args: argparse.Namespace) -> int:
    try:
        with open(args.puzzle, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise FileFormatError(f"cannot read the puzzle {args.puzzle}: {exc.strerror}") from None
    puzzle = read_puzzle(text)
    result = solve(puzzle, marginals=args.marginals or args.json)
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
        lines.append(f"{result.solutions} solutions ({result.layouts} layouts with ships distinguishable)")
    if shares and result.cells is not None:
        lines += [" ".join(f"{v:.3f}" for v in row) for row in result.cells]
    return "\n".join(lines)
