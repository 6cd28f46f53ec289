"""OR-Tools CP-SAT on a Bimaru puzzle, as a user would model it, for the benchmark's side by side
(experiments/bench_bimaru.py --set DIR --cpsat): a boolean per cell and per ship placement (the placements
of one length alike, so that its solutions are sets of ships as battlelog counts them), each cell ship
exactly when one placement covers it, the fleet's count per length, the tallies, no contact (a placement's
neighbours are water), and the revealed pieces (water, some ship, or the placements that show that piece
there). ortools is installed with pip when missing; it is never part of battlelog.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import time
from collections import Counter
from types import ModuleType

from battlelog.rules.variants import NONE
from battlelog.tallies.puzzle import SHIP, WATER, Puzzle
from battlelog.tallies.search import SHOWN, placements


def cp_model() -> ModuleType:
    """``ortools.sat.python.cp_model``, installed into this interpreter with pip first when missing."""
    try:
        return importlib.import_module("ortools.sat.python.cp_model")
    except ImportError:
        print("ortools missing: pip install ortools", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "ortools"], check=True)
        return importlib.import_module("ortools.sat.python.cp_model")


def build(cp: ModuleType, puzzle: Puzzle) -> object:
    """The CP-SAT model of ``puzzle`` (no contact only: the public sets' rule)."""
    if puzzle.touch != NONE:
        raise ValueError("the CP-SAT model is written for the no-contact rule")
    p = puzzle
    model = cp.CpModel()
    cell = [[model.NewBoolVar(f"x{r}_{c}") for c in range(p.cols)] for r in range(p.rows)]
    # every placement of every length, pieces and tallies not yet applied: the model states them itself
    free = Puzzle(p.rows, p.cols, p.ships, (None,) * p.rows, (None,) * p.cols, {}, p.touch)
    spots = placements(free)
    ship = [model.NewBoolVar(f"y{i}") for i in range(len(spots))]
    covering: dict[int, list[int]] = {}
    for i, spot in enumerate(spots):
        for k, _ in spot.letters:
            covering.setdefault(k, []).append(i)
        halo = spot.halo
        while halo:
            low = halo & -halo
            k = low.bit_length() - 1
            model.AddImplication(ship[i], cell[k // p.cols][k % p.cols].Not())
            halo ^= low
    for r in range(p.rows):
        for c in range(p.cols):
            model.Add(sum(ship[i] for i in covering.get(r * p.cols + c, [])) == cell[r][c])
    for length, n in Counter(p.ships).items():
        model.Add(sum(ship[i] for i, spot in enumerate(spots) if spot.length == length) == n)
    for r, t in enumerate(p.row_counts):
        if t is not None:
            model.Add(sum(cell[r]) == t)
    for c, t in enumerate(p.col_counts):
        if t is not None:
            model.Add(sum(cell[r][c] for r in range(p.rows)) == t)
    for (r, c), piece in p.hints.items():
        if piece == WATER:
            model.Add(cell[r][c] == 0)
        elif piece == SHIP:
            model.Add(cell[r][c] == 1)
        else:
            k = r * p.cols + c
            shows = [i for i in covering.get(k, []) if dict(spots[i].letters)[k] == SHOWN[piece]]
            model.Add(sum(ship[i] for i in shows) == 1)
    return model


def solve_one(cp: ModuleType, puzzle: Puzzle) -> float:
    """Seconds to build the model and find one solution (one worker, as battlelog uses one core)."""
    start = time.perf_counter()
    solver = cp.CpSolver()
    solver.parameters.num_workers = 1
    status = solver.Solve(build(cp, puzzle))
    if status not in (cp.OPTIMAL, cp.FEASIBLE):
        raise SystemExit("CP-SAT found no solution of a puzzle battlelog solved")
    return time.perf_counter() - start


def count_all(cp: ModuleType, puzzle: Puzzle, cap: float) -> tuple[int, float, bool]:
    """(solutions listed, seconds, whether the list is complete) when CP-SAT enumerates every solution
    within ``cap`` seconds."""
    start = time.perf_counter()
    solver = cp.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = cap
    seen = Counter[str]()

    class Tally(cp.CpSolverSolutionCallback):  # type: ignore[name-defined]
        def on_solution_callback(self) -> None:
            seen["n"] += 1

    status = solver.Solve(build(cp, puzzle), Tally())
    return seen["n"], time.perf_counter() - start, status == cp.OPTIMAL
