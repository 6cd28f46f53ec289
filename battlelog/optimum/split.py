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
span sittings.
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
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell

if TYPE_CHECKING:
    from battlelog.optimum.layouts import LayoutTable

#: Seconds between two progress lines of a piece still searching.
PROGRESS_EVERY = 300.0
#: Seconds between two writes of a process's table (each followed by taking in the other processes').
SHARE_EVERY = 600.0


@dataclass(frozen=True)
class SplitResult:
    """The optimum's total over the layouts, and each first shot's."""

    layouts: LayoutTable
    total: int
    #: Each first shot's class representative and its exact expected shots, best first.
    first_shots: list[tuple[Cell, Fraction]]
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
) -> SplitResult:
    """The optimum of ``config`` from its first shot's children, solved in ``workers`` processes (each with
    ``memory`` for its table) and kept in ``record``; past ``seconds``, a BudgetExceeded error after the
    pieces finished so far were written. ``said`` gets a line per piece solved, and one every ``every``
    seconds for each piece still searching. Each process writes its table beside ``record`` every
    ``share_every`` seconds and takes in the others' (:class:`Crew`); a run stopped leaves them there, to
    start warm, and a run that solves every piece removes them."""
    from battlelog.optimum.solver import Solver

    solver = Solver(config, memory=1 << 20)  # for its layouts and symmetries only
    pieces, cols = first_shot_pieces(solver), config.cols
    kept = SplitRecord(record, config, len(solver.layouts))
    todo = [i for i, p in enumerate(pieces) if p.name(cols) not in kept.solved]
    if todo:
        said(f"{config.label()}: {len(pieces)} pieces (a first shot and its answer), {len(pieces) - len(todo)} solved in "
             f"{record} before, {len(todo)} to search in {min(workers, len(todo))} process(es)")  # fmt: skip
    start = time.perf_counter()
    tables = tuple(record.with_name(f".{record.name}.{k}.table") for k in range(min(workers, len(todo))))
    crew = Crew(config, memory, every, share_every, tables)
    if todo and workers == 1:
        run_here(crew, pieces, todo, kept, start, seconds, said)
    elif todo:
        run_processes(crew, pieces, todo, kept, start, seconds, said)
    for path in record.parent.glob(f".{record.name}.*.table"):  # every piece is solved: the tables served their turn
        path.unlink(missing_ok=True)
    totals: dict[int, int] = {}
    for piece in pieces:
        totals[piece.shot] = totals.get(piece.shot, len(solver.layouts)) + kept.solved[piece.name(cols)].total
    best = min(totals.values())
    shots = sorted(((divmod(x, cols), Fraction(v, len(solver.layouts))) for x, v in totals.items()), key=lambda s: (s[1], s[0]))
    return SplitResult(
        solver.layouts, best, shots, sum(s.seconds for s in kept.solved.values()), sum(s.nodes for s in kept.solved.values())
    )
