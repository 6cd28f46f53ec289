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
  battlelog bimaru puzzle.txt --single-hints      # which one revealed piece would make it unique
  battlelog bimaru --make --size 10 --seed 7      # a new puzzle: unique, with a minimal set of hints
  battlelog bimaru --make --size 8 --ships 4,3,2,2,1,1,1 --seed 7 --hints 3 --json

--make draws a layout uniformly (no contact), gives all its tallies and reveals pieces greedily (the cell the
solutions disagree on most) until the count is one, then drops each hint the puzzle can do without: the set
is minimal (none can be dropped), not proven the smallest; --hints K reveals K more true pieces at random.
"""

from __future__ import annotations

import argparse
import json

from battlelog.commands.boards import whole
from battlelog.errors import BattlelogError
from battlelog.jsonfile import named_file, read_text
from battlelog.rules.config import parse_ships
from battlelog.rules.variants import TOUCH_RULES
from battlelog.tallies.count import BUDGET, Count, solve
from battlelog.tallies.make import make, single_hints
from battlelog.tallies.puzzle import BIMARU_FLEET, LETTERS, Puzzle, read_puzzle
from battlelog.wording import count_noun

#: The text format's letter of each piece.
LETTER_OF = {piece: letter for letter, piece in LETTERS.items()}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("puzzle", nargs="?", help="the puzzle file (JSON or the ROW/COLUMN/HINT text format)")
    parser.add_argument("--count", action="store_true", help="print the exact number of solutions")
    parser.add_argument("--marginals", action="store_true", help="print each cell's share of the solutions")
    parser.add_argument(
        "--json", action="store_true", help='print {"solutions", "layouts", "unique", "solution", "cells"} as JSON'
    )
    parser.add_argument(
        "--ships", help="the fleet as comma-separated lengths, instead of the file's (text files: 4,3,3,2,2,2,1,1,1,1)"
    )
    parser.add_argument("--touch", choices=TOUCH_RULES, help="how ships may touch, instead of the file's (default none)")
    parser.add_argument("--single-hints", action="store_true", help="list each piece that, revealed alone, makes it unique")
    parser.add_argument("--make", action="store_true", help="make a puzzle instead of reading one (--size, --seed, --hints)")
    parser.add_argument("--size", type=whole, default=10, help="with --make: the board's side (default 10)")
    parser.add_argument("--seed", type=whole, default=0, help="with --make: the seed of the layout (default 0)")
    parser.add_argument("--hints", type=whole, default=0, help="with --make: true pieces to reveal beyond the minimal set")
    parser.add_argument("--budget", type=whole, default=BUDGET, help=f"the most steps the counter may take (default {BUDGET:,})")


def run(args: argparse.Namespace) -> int:
    ships = None if args.ships is None else parse_ships(args.ships)
    if args.make:
        made, _ = make(args.size, BIMARU_FLEET if ships is None else ships, args.seed, args.hints)
        print(json.dumps(made.to_json()) if args.json else as_text(made))
        return 0
    if args.puzzle is None:
        raise BattlelogError("give a puzzle file, or --make to make one")
    path = named_file(args.puzzle)
    puzzle = read_puzzle(read_text(path), ships, args.touch, str(path))
    result = solve(puzzle, marginals=args.marginals or args.json, budget=args.budget)
    if args.single_hints:
        found = [] if result.solutions == 1 else single_hints(puzzle)
        lines = [f"HINT {r} {c} {LETTER_OF[piece]}" for (r, c), piece in found]
        print("\n".join(lines) or ("already unique" if result.solutions == 1 else "no single hint makes it unique"))
        return 0
    print(json.dumps(to_json(result)) if args.json else report(puzzle, result, args.count, args.marginals))
    return 0


def as_text(puzzle: Puzzle) -> str:
    """A puzzle in the text format (ROW, COLUMN, the number of hints, HINT lines); the fleet is not part of
    it (give it with --ships when it is not the 10x10 Bimaru fleet)."""
    tallies = lambda counts: " ".join("?" if t is None else str(t) for t in counts)  # noqa: E731
    hints = [f"HINT {r} {c} {LETTER_OF[piece]}" for (r, c), piece in sorted(puzzle.hints.items())]
    return "\n".join([f"ROW {tallies(puzzle.row_counts)}", f"COLUMN {tallies(puzzle.col_counts)}", str(len(hints)), *hints])


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
