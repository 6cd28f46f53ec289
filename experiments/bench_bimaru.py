"""How long ``battlelog bimaru`` takes to solve and count a puzzle, by board size (docs/bimaru.md).

The puzzles are generated, so anyone can regenerate them from the seed: for each size, a layout of its
fleet drawn uniformly under the no-contact rule (``sample_layout``), all its row and column tallies, and
``--hints`` of its true pieces revealed at random cells (water or a ship's piece, as a Bimaru grid shows
it). Each is counted with its cell shares (``count(..., marginals=True)``: what ``battlelog bimaru
--count --marginals`` and ``--json`` compute) under the counter's step budget; a puzzle past the budget
is counted as such (its time is in the total, not in the median or max). Every puzzle has at least one
solution (its own layout); the check outside the timing is that the count finds it.

usage:
  python experiments/bench_bimaru.py                 # about a minute on 2 shared cores
  python experiments/bench_bimaru.py --puzzles 20 --hints 4 --seed 100 --budget 5000000
Prints a Markdown table to stdout (one row per size), the slowest puzzles after it, then the process's
peak memory.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from dataclasses import dataclass

import numpy as np
from machine import machine_header

from battlelog.errors import BudgetExceeded
from battlelog.report.markdown import duration, markdown_table
from battlelog.rules.config import GameConfig
from battlelog.rules.layouts import sample_layout
from battlelog.rules.variants import NONE, Rules
from battlelog.tallies.count import BUDGET, Count, count
from battlelog.tallies.puzzle import BIMARU_FLEET, BOTTOM, LEFT, MIDDLE, RIGHT, SINGLE, TOP, WATER, Puzzle

#: Board sizes and their fleets: the usual 10x10 Bimaru fleet, and smaller fleets on smaller boards.
SIZES = {6: (3, 2, 2, 1, 1), 8: (4, 3, 2, 2, 1, 1, 1), 10: BIMARU_FLEET}
#: The benchmark's step budget, a fifth of the command's, so that a run stays about a minute long.
QUICK = 1_000_000


@dataclass(frozen=True)
class Outcome:
    """One puzzle's run: its size and seed, the count (None past the budget) and the seconds it took."""

    size: int
    seed: int
    result: Count | None
    seconds: float


def shown_piece(cells: tuple[tuple[int, int], ...], cell: tuple[int, int]) -> str:
    """How ``cell`` of a ship on ``cells`` shows on a Bimaru grid."""
    if len(cells) == 1:
        return SINGLE
    i = cells.index(cell)
    if 0 < i < len(cells) - 1:
        return MIDDLE
    if cells[0][0] == cells[-1][0]:
        return LEFT if i == 0 else RIGHT
    return TOP if i == 0 else BOTTOM


def make_puzzle(size: int, ships: tuple[int, ...], hints: int, seed: int) -> Puzzle:
    """A puzzle from a uniform layout: every tally, and ``hints`` true pieces at distinct random cells."""
    rng = np.random.default_rng(seed)
    layout = sample_layout(GameConfig(size, ships, Rules(touch=NONE)), rng)
    pieces = {cell: shown_piece(p.cells, cell) for p in layout for cell in p.cells}
    rows = tuple(sum(r == i for r, _ in pieces) for i in range(size))
    cols = tuple(sum(c == i for _, c in pieces) for i in range(size))
    picked = rng.choice(size * size, size=hints, replace=False)
    revealed = {(int(k) // size, int(k) % size): pieces.get((int(k) // size, int(k) % size), WATER) for k in picked}
    return Puzzle(size, size, ships, rows, cols, revealed, NONE)


def run_one(size: int, seed: int, hints: int, budget: int) -> Outcome:
    """Count one generated puzzle with its shares; it must have a solution (its own layout)."""
    puzzle = make_puzzle(size, SIZES[size], hints, seed)
    start = time.perf_counter()
    try:
        result: Count | None = count(puzzle, marginals=True, budget=budget)
    except BudgetExceeded:
        result = None
    seconds = time.perf_counter() - start
    if result is not None and result.solutions < 1:
        raise SystemExit(f"size {size} seed {seed}: the counter found no solution of a puzzle made from a layout")
    return Outcome(size, seed, result, seconds)


def table(outcomes: list[Outcome], budget: int) -> str:
    """One row per size: puzzles, over the budget, unique, largest count, median/max time, steps and the
    counted puzzles' steps per second."""
    header = [
        "size",
        "fleet",
        "puzzles",
        f"over {budget:,} steps",
        "unique",
        "max solutions",
        "median",
        "max",
        "max steps",
        "steps/s",
        "total",
    ]
    rows = []
    for size in sorted({o.size for o in outcomes}):
        mine = [o for o in outcomes if o.size == size]
        done = [o.result for o in mine if o.result is not None]
        times = [o.seconds for o in mine if o.result is not None]
        rows.append([
            f"{size}x{size}",
            ",".join(map(str, SIZES[size])),
            str(len(mine)),
            str(len(mine) - len(done)),
            str(sum(r.solutions == 1 for r in done)),
            f"{max((r.solutions for r in done), default=0):,}",
            duration(statistics.median(times) if times else None),
            duration(max(times, default=None)),
            f"{max((r.steps for r in done), default=0):,}",
            f"{sum(r.steps for r in done) / sum(times):,.0f}" if times else "-",
            duration(sum(o.seconds for o in mine)),
        ])  # fmt: skip
    return markdown_table(header, rows, "llrrrrrrrrr")


def slowest(outcomes: list[Outcome], n: int = 5) -> str:
    """The ``n`` slowest puzzles with their counts and steps (size and seed regenerate each)."""
    rows = [[f"{o.size}x{o.size}", str(o.seed), "budget" if o.result is None else f"{o.result.solutions:,}",
             "-" if o.result is None else f"{o.result.steps:,}", duration(o.seconds)]
            for o in sorted(outcomes, key=lambda o: -o.seconds)[:n]]  # fmt: skip
    return markdown_table(["size", "seed", "solutions", "steps", "time"], rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--puzzles", type=int, default=8, help="puzzles per size (default 8)")
    parser.add_argument("--hints", type=int, default=8, help="true pieces revealed per puzzle (default 8)")
    parser.add_argument("--seed", type=int, default=1, help="the first puzzle's seed; puzzle i uses seed + i")
    parser.add_argument(
        "--budget", type=int, default=QUICK, help=f"the counter's step budget (default {QUICK:,}; the command's is {BUDGET:,})"
    )
    args = parser.parse_args()
    outcomes = []
    for size in SIZES:
        for i in range(args.puzzles):
            outcomes.append(run_one(size, args.seed + i, args.hints, args.budget))
            print(f"{size}x{size} seed {args.seed + i}: {duration(outcomes[-1].seconds)}", file=sys.stderr, flush=True)
    print(machine_header("Bimaru: generated puzzles solved and counted with shares, one process", seed=args.seed))
    print(table(outcomes, args.budget))
    print()
    print(slowest(outcomes))
    print(f"\npeak memory of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
