"""The optimum solved in pieces: the children of each first shot, searched apart and kept in a file as
each one finishes.

From the empty board, T = |L| + min_x sum_a T(L_a, H_a) (:mod:`battlelog.optimum.search`): the optimum
follows from the exact totals of the children (x, a) of one first shot x per class of the board's
symmetries (symmetric first shots have the same value): the pieces (:mod:`battlelog.optimum.pieces`).
Each piece is a search of its own and its exact total, once written, is never searched again: a split
search stopped (its time limit, Ctrl-C, the end of a sitting) loses only the pieces in progress, and a
run with the same file goes on with the others. A total is a fact of the game, not of the code that
found it, so the file is tied to the instance alone.

N processes search N pieces at once (:mod:`battlelog.optimum.crew`); the pieces share most of their
states, so each process writes its table beside the file now and then and takes in the others'. The
price against one whole search: no first shot is cut short by a better one (each piece is solved
exactly); what it buys is every first shot's exact value beside the optimum, and a search that can
span sittings. With ``decide`` the shots are cut short after all (:mod:`battlelog.optimum.plan`): a piece
is searched only until its first shot is proven unable to beat the best one, and keeps that bound instead
of its total.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from battlelog.optimum.crew import Crew, run_here, run_processes
from battlelog.optimum.pieces import SplitRecord, first_shot_pieces
from battlelog.optimum.plan import Plan, ShotValue
from battlelog.rules.config import GameConfig

if TYPE_CHECKING:
    from battlelog.optimum.layouts import LayoutTable

#: Seconds between two progress lines of a piece still searching.
PROGRESS_EVERY = 300.0
#: Seconds between two writes of a process's table (each followed by taking in the other processes').
SHARE_EVERY = 600.0


@dataclass(frozen=True)
class SplitResult:
    """The optimum's total over the layouts, and each first shot's value (exact, or a bound that rules it out)."""

    layouts: LayoutTable
    total: int
    #: Each first shot's class representative and its expected shots, best first.
    first_shots: list[ShotValue]
    seconds: float
    nodes: int

    @property
    def optimum(self) -> Fraction:
        return Fraction(self.total, len(self.layouts))


def solve_split(
    config: GameConfig,
    record: Path,
    workers: int,
    memory: int,
    seconds: float | None = None,
    said: Callable[[str], None] = lambda line: None,
    every: float = PROGRESS_EVERY,
    share_every: float = SHARE_EVERY,
    decide: bool = False,
) -> SplitResult:
    """The optimum of ``config`` from its first shot's children, solved in ``workers`` processes (each with
    ``memory`` for its table) and kept in ``record``; past ``seconds``, a BudgetExceeded error after the
    pieces finished so far were written. With ``decide``, each piece is searched only as far as deciding
    the optimum needs (:class:`~battlelog.optimum.plan.Plan`): first shots that cannot beat it get a proven
    lower bound instead of their value. ``said`` gets a line per piece searched, and one every ``every``
    seconds for each piece still searching. Each process writes its table beside ``record`` every
    ``share_every`` seconds and takes in the others' (:class:`Crew`); a run stopped leaves them there, to
    start warm, and a run that finishes removes them."""
    from battlelog.optimum.solver import Solver

    solver = Solver(config, memory=1 << 20)  # for its layouts and symmetries only
    pieces, n = first_shot_pieces(solver), len(solver.layouts)
    kept = SplitRecord(record, config, n)
    plan = Plan(pieces, kept, n, sum(config.ships), config.cols, decide)
    left = plan.left()
    if left:
        said(f"{config.label()}: {len(pieces)} pieces (a first shot and its answer), {len(kept.solved)} searched in "
             f"{record} before, {'at most ' if decide else ''}{left} to search in {min(workers, left)} process(es)")  # fmt: skip
        tables = tuple(record.with_name(f".{record.name}.{k}.table") for k in range(min(workers, left)))
        crew = Crew(config, memory, every, share_every, tables)
        (run_here if workers == 1 else run_processes)(crew, plan, time.perf_counter(), seconds, said)
    for path in record.parent.glob(f".{record.name}.*.table"):  # nothing is left to search: the tables served their turn
        path.unlink(missing_ok=True)
    best = plan.best()
    assert best is not None  # every first shot is solved, or out against one that is
    searched = kept.solved.values()
    return SplitResult(solver.layouts, best, plan.first_shots(), sum(s.seconds for s in searched), sum(s.nodes for s in searched))
