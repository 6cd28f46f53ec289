"""How long ``battlelog bimaru`` takes to solve and count a puzzle, by board size (docs/bimaru.md).

The puzzles are generated, so anyone can regenerate them from the seed: for each size, a layout of its
fleet drawn uniformly under the no-contact rule (``sample_layout``), all its row and column tallies, and
``--hints`` of its true pieces revealed at random cells (water or a ship's piece, as a Bimaru grid shows
it). Each is counted with its cell shares (``count(..., marginals=True)``: what ``battlelog bimaru
--count --marginals`` and ``--json`` compute) under the counter's step budget; a puzzle past the budget
is counted as such (its time is in the total, not in the median or max). Every puzzle has at least one
solution (its own layout); the check outside the timing is that the count finds it.

With ``--set DIR`` (repeatable) it runs a public set instead (experiments/bimaru_sets.py: a checkout of
goncalobarias/Bimaru-IA or cschuerc/BimaruSolver, docs/bimaru.md): every puzzle solved and counted with
its shares, its given solution checked to be one of the solutions (fixing every cell as that solution
has it leaves exactly one), and per set the puzzles, how many are unique, median and max time, and how
the counts are spread; with ``--cpsat`` the same puzzles on OR-Tools CP-SAT too (experiments/
bimaru_cpsat.py): time to one solution, and time to list every solution within ``--cap`` seconds each.

With ``--tallies`` it counts puzzles with only some tallies given instead: 10x10, the Bimaru fleet under
no contact, for k = 0, 1, ..., 20 tallies of a uniform layout kept at random (no hints), ``--puzzles``
each, under ``--budget``; and the standard game's fleet (5,4,3,3,2, touching allowed) with 10 and 20.

usage:
  python experiments/bench_bimaru.py                 # about a minute on 2 shared cores
  python experiments/bench_bimaru.py --tallies --puzzles 2 --budget 2000000
  python experiments/bench_bimaru.py --puzzles 20 --hints 4 --seed 100 --budget 5000000
  python experiments/bench_bimaru.py --set ../Bimaru-IA --set ../BimaruSolver --cpsat --cap 10
Prints Markdown tables to stdout (one row per size or per set), the slowest puzzles after them, then the
process's peak memory.
"""

from __future__ import annotations

import argparse
import gc
import resource
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import bimaru_cpsat
import bimaru_sets
import numpy as np
from machine import machine_header

from battlelog.errors import BudgetExceeded
from battlelog.report.markdown import duration, markdown_table
from battlelog.rules.config import GameConfig
from battlelog.rules.layouts import sample_layout
from battlelog.rules.variants import NONE, Rules
from battlelog.tallies.count import BUDGET, Count, count
from battlelog.tallies.puzzle import BIMARU_FLEET, BOTTOM, LEFT, MIDDLE, RIGHT, SHIP, SINGLE, TOP, WATER, Puzzle

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


@dataclass(frozen=True)
class Solved:
    """One public puzzle: its name, battlelog's count and seconds, and CP-SAT's (``None`` without
    --cpsat): seconds to one solution, solutions listed, seconds, whether the list was complete."""

    name: str
    result: Count
    seconds: float
    cpsat: tuple[float, int, float, bool] | None


def run_set(folder: Path, cpsat: bool, cap: float) -> list[Solved]:
    """Every puzzle of a public set, counted with its shares (timed), its given solution checked."""
    cp = bimaru_cpsat.cp_model() if cpsat else None
    out = []
    for named in bimaru_sets.load_set(folder):
        start = time.perf_counter()
        result = count(named.puzzle, marginals=True)
        seconds = time.perf_counter() - start
        if result.solutions < 1:
            raise SystemExit(f"{folder}/{named.name}: no solution found")
        if named.solution is not None:
            p = named.puzzle
            fixed = {(r, c): SHIP if (r, c) in named.solution else WATER for r in range(p.rows) for c in range(p.cols)}
            if count(p.with_hints({**fixed, **p.hints})).solutions != 1:
                raise SystemExit(f"{folder}/{named.name}: the given solution is not a solution")
        theirs = None
        if cp is not None:
            theirs = (bimaru_cpsat.solve_one(cp, named.puzzle), *bimaru_cpsat.count_all(cp, named.puzzle, cap))
            if theirs[3] and theirs[1] != result.solutions:
                raise SystemExit(f"{folder}/{named.name}: CP-SAT lists {theirs[1]}, battlelog counts {result.solutions}")
        out.append(Solved(named.name, result, seconds, theirs))
        print(f"{folder.name}/{named.name}: {result.solutions:,} in {duration(seconds)}", file=sys.stderr, flush=True)
    return out


def spread(counts: list[int]) -> str:
    """How many puzzles have 1, 2-9, 10-99, 100-999 and 1,000 or more solutions."""
    bins = [(1, 1), (2, 9), (10, 99), (100, 999), (1000, None)]
    shown = []
    for low, high in bins:
        label = f"{low:,}" if high == low else f"{low:,}+" if high is None else f"{low}-{high}"
        shown.append(f"{label}: {sum(low <= n and (high is None or n <= high) for n in counts)}")
    return ", ".join(shown)


def set_table(runs: dict[str, list[Solved]]) -> str:
    """One row per set: puzzles, unique, median/max time, the largest count and the counts' spread."""
    rows = []
    for name, solved in runs.items():
        times = [s.seconds for s in solved]
        counts = [s.result.solutions for s in solved]
        rows.append([name, str(len(solved)), str(counts.count(1)), duration(statistics.median(times)), duration(max(times)),
                     f"{max(counts):,}", f"{statistics.median(counts):g}", spread(counts)])  # fmt: skip
    return markdown_table(["set", "puzzles", "unique", "median", "max", "max solutions", "median solutions", "solutions"], rows)


def cpsat_table(runs: dict[str, list[Solved]], cap: float) -> str:
    """One row per set: battlelog's count beside CP-SAT's one solution and its full list, as medians,
    maxima and ratios (CP-SAT's time over battlelog's, median over the puzzles)."""
    rows = []
    for name, solved in runs.items():
        theirs = [s.cpsat for s in solved if s.cpsat is not None]
        if not theirs:
            continue
        ours = [s.seconds for s in solved]
        one = [t[0] for t in theirs]
        listed = [t[2] for t in theirs]
        rows.append([
            name,
            duration(statistics.median(ours)),
            duration(statistics.median(one)),
            f"{statistics.median(t[0] / s.seconds for t, s in zip(theirs, solved)):.1f}x",
            duration(statistics.median(listed)),
            duration(max(listed)),
            f"{statistics.median(t[2] / s.seconds for t, s in zip(theirs, solved)):.0f}x",
            f"{sum(not t[3] for t in theirs)}",
            duration(sum(ours)),
            duration(sum(one)),
            duration(sum(listed)),
        ])  # fmt: skip
    header = ["set", "battlelog count+shares", "CP-SAT one", "one / battlelog", "CP-SAT list all", "max",
              "all / battlelog", f"not listed in {cap:g} s", "battlelog total", "CP-SAT one total",
              "CP-SAT list total"]  # fmt: skip
    return markdown_table(header, rows)


def slowest_public(runs: dict[str, list[Solved]], n: int = 5) -> str:
    """The ``n`` slowest public puzzles for battlelog, with their counts."""
    every = [(name, s) for name, solved in runs.items() for s in solved]
    rows = [[name, s.name, f"{s.result.solutions:,}", f"{s.result.steps:,}", duration(s.seconds)]
            for name, s in sorted(every, key=lambda x: -x[1].seconds)[:n]]  # fmt: skip
    return markdown_table(["set", "puzzle", "solutions", "steps", "time"], rows)


def warm_up() -> float:
    """Seconds to load numba and the compiled search (once per process, from its disk cache), by counting a
    tiny puzzle before any timing."""
    start = time.perf_counter()
    count(Puzzle(3, 3, (1,), (1, 0, 0), (1, 0, 0)))
    return time.perf_counter() - start


def loaded(seconds: float) -> str:
    """The line that says how long the warm-up took."""
    return f"loading the compiled search (numba, from its disk cache) took {duration(seconds)} before the first puzzle\n"


def public(folders: list[Path], cpsat: bool, cap: float) -> None:
    """The public sets' tables."""
    warm = warm_up()
    runs = {folder.resolve().name: run_set(folder, cpsat, cap) for folder in folders}
    print(machine_header("Bimaru: public puzzle sets solved and counted with shares, one process"))
    print(loaded(warm))
    print(set_table(runs))
    if cpsat:
        print()
        print(cpsat_table(runs, cap))
    print()
    print(slowest_public(runs))


def partial(k: int, ships: tuple[int, ...], touch: str, seed: int) -> Puzzle:
    """A 10x10 puzzle from a uniform layout of ``ships`` under ``touch``: ``k`` of its 20 tallies, no hints."""
    rng = np.random.default_rng(seed)
    layout = sample_layout(GameConfig(10, ships, Rules(touch=touch)), rng)
    cells = [cell for p in layout for cell in p.cells]
    tallies = [sum(r == i for r, _ in cells) for i in range(10)] + [sum(c == i for _, c in cells) for i in range(10)]
    keep = set(rng.choice(20, size=k, replace=False).tolist())
    given = [t if i in keep else None for i, t in enumerate(tallies)]
    return Puzzle(10, 10, ships, tuple(given[:10]), tuple(given[10:]), {}, touch)


def tallies_table(puzzles: int, seed: int, budget: int) -> str:
    """Per number of tallies given (and the standard fleet with all 20): puzzles, counted within the
    budget, median and max time and count of those counted."""
    cases = [(k, BIMARU_FLEET, NONE) for k in range(21)] + [(k, (5, 4, 3, 3, 2), "allowed") for k in (10, 20)]
    rows = []
    for k, ships, touch in cases:
        done, times, counts = 0, [], []
        for i in range(puzzles):
            puzzle = partial(k, ships, touch, seed + i)  # drawing the layout (by rejection) is not timed
            gc.collect()  # the states of a count refused before are freed here, not inside the next timing
            start = time.perf_counter()
            try:
                counts.append(count(puzzle, marginals=True, budget=budget).solutions)
                done += 1
                times.append(time.perf_counter() - start)
            except BudgetExceeded:
                pass
            print(f"{k} tallies, {touch}, seed {seed + i}: {duration(time.perf_counter() - start)}", file=sys.stderr, flush=True)
        rows.append([",".join(map(str, ships)), touch, str(k), str(puzzles), str(done),
                     duration(statistics.median(times)) if times else "-", duration(max(times, default=None)),
                     f"{max(counts):,}" if counts else "-"])  # fmt: skip
    header = ["fleet", "touch", "tallies given", "puzzles", f"counted within {budget:,} steps", "median", "max", "max solutions"]
    return markdown_table(header, rows, "llrrrrrr")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--puzzles", type=int, default=8, help="puzzles per size (default 8)")
    parser.add_argument("--hints", type=int, default=8, help="true pieces revealed per puzzle (default 8)")
    parser.add_argument("--seed", type=int, default=1, help="the first puzzle's seed; puzzle i uses seed + i")
    parser.add_argument(
        "--budget", type=int, default=QUICK, help=f"the counter's step budget (default {QUICK:,}; the command's is {BUDGET:,})"
    )
    parser.add_argument("--set", type=Path, action="append", default=[], help="a checkout of a public set (repeatable)")
    parser.add_argument("--cpsat", action="store_true", help="with --set: OR-Tools CP-SAT beside it (pip-installed when missing)")
    parser.add_argument("--cap", type=float, default=10.0, help="with --cpsat: CP-SAT's seconds to list a puzzle's solutions")
    parser.add_argument("--tallies", action="store_true", help="count puzzles with some tallies given (0 to 20)")
    args = parser.parse_args()
    if args.tallies:
        warm = warm_up()
        table_text = tallies_table(args.puzzles, args.seed, args.budget)
        print(machine_header("Bimaru: 10x10 puzzles with some tallies given, counted with shares", seed=args.seed))
        print(loaded(warm))
        print(table_text)
        return 0
    if args.set:
        public(args.set, args.cpsat, args.cap)
        print(f"\npeak memory of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
        return 0
    warm = warm_up()
    outcomes = []
    for size in SIZES:
        for i in range(args.puzzles):
            outcomes.append(run_one(size, args.seed + i, args.hints, args.budget))
            print(f"{size}x{size} seed {args.seed + i}: {duration(outcomes[-1].seconds)}", file=sys.stderr, flush=True)
    print(machine_header("Bimaru: generated puzzles solved and counted with shares, one process", seed=args.seed))
    print(loaded(warm))
    print(table(outcomes, args.budget))
    print()
    print(slowest(outcomes))
    print(f"\npeak memory of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
