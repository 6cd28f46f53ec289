"""The optimum solved in pieces: the children of each first shot, searched apart in parallel processes
and kept in a file as each one finishes.

From the empty board, T = |L| + min_x sum_a T(L_a, H_a) (:mod:`battlelog.optimum.search`): the optimum
follows from the exact totals of the children (x, a) of one first shot x per class of the board's
symmetries (symmetric first shots have the same value). Each child is a search of its own, so N
processes solve N at once, and a child's exact total, once written, is never searched again: a split
search stopped (its time limit, Ctrl-C, the end of a sitting) loses only the children in progress,
and a run with the same file goes on with the others. A child's total is a fact of the game, not of
the code that found it, so the file is tied to the instance alone.

The price: a state met under two first shots is searched once in each process that meets it, and no
first shot is cut short by a better one (each child is solved exactly); what it buys is every first
shot's exact value beside the optimum, and both cores.
"""

from __future__ import annotations

import json
import multiprocessing
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from battlelog.errors import BattlelogError, BudgetExceeded
from battlelog.files import write_text
from battlelog.jsonfile import read_json
from battlelog.optimum import search
from battlelog.optimum.layouts import SINK_MODES
from battlelog.rules.answers import HIT_CODE, MISS_CODE, SUNK_CODE
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell

if TYPE_CHECKING:
    from battlelog.optimum.layouts import LayoutTable
    from battlelog.optimum.solver import SearchProgress, Solver

#: Bumped whenever what a file holds changes.
FORMAT = 1
#: Seconds between two progress lines of a piece still searching.
PROGRESS_EVERY = 300.0


@dataclass(frozen=True)
class Piece:
    """One child of the root: the layouts that answer ``answer`` (a search answer code) to a first shot at
    cell number ``shot``, with the hits that leaves."""

    shot: int
    answer: int
    layouts: np.ndarray
    hits: int

    def name(self, cols: int) -> str:
        """The piece's key in the file: its shot as row,col and its answer."""
        row, col = divmod(self.shot, cols)
        word = "miss" if self.answer == MISS_CODE else "hit" if self.answer == HIT_CODE else f"sunk{self.answer - SUNK_CODE}"
        return f"{row},{col} {word}"


def first_shot_pieces(solver: Solver) -> list[Piece]:
    """The children of one first shot per symmetry class (the lowest cell number of each class), for
    every cell some layout covers (a certain miss is never optimal), largest first."""
    t, config = solver.layouts, solver.config
    everything = np.arange(len(t), dtype=np.int32)
    kinds = len(config.ships) + SUNK_CODE
    pieces = []
    for x in range(config.cell_count):
        if int(solver.symmetries.cells[:, x].min()) != x or not (t.owner[:, x] >= 0).any():
            continue
        answer, sizes = np.empty(len(t), dtype=np.int8), np.zeros(kinds, dtype=np.int64)
        search._answers(everything, np.uint64(0), x, t.ship_masks, t.owner, SINK_MODES[config.rules.sinks], answer, sizes)
        for kind in np.flatnonzero(sizes):
            hits = 0 if kind == MISS_CODE else 1 << x
            pieces.append(Piece(x, int(kind), search._child(everything, answer, int(kind), int(sizes[kind])), hits))
    return sorted(pieces, key=lambda p: (-len(p.layouts), p.shot, p.answer))


@dataclass(frozen=True)
class Solved:
    """A piece's exact total and what its search cost."""

    total: int
    seconds: float
    nodes: int


class SplitRecord:
    """The file of solved pieces: one JSON object, rewritten whole after each piece (nothing solved is
    lost to a crash mid-write), tied to the instance it was made for."""

    def __init__(self, path: Path, config: GameConfig, n_layouts: int) -> None:
        self.path = path
        self.about = {"format": FORMAT, "instance": config.label(), "layouts": n_layouts}
        self.solved: dict[str, Solved] = {}
        if path.exists():
            self._read()

    def _read(self) -> None:
        data = read_json(self.path)
        if not isinstance(data, dict) or not isinstance(data.get("pieces"), dict):
            raise BattlelogError(f'{self.path}: not a record of a split search (no "pieces" object)')
        for key, want in self.about.items():
            if data.get(key) != want:
                raise BattlelogError(
                    f"{self.path}: a record for another {key} ({data.get(key)!r}, here {want!r}); delete it or name another file"
                )
        for name, entry in data["pieces"].items():
            values = [entry.get(k) if isinstance(entry, dict) else None for k in ("total", "seconds", "nodes")]
            if not (
                isinstance(values[0], int)
                and values[0] >= 0
                and isinstance(values[1], (int, float))
                and isinstance(values[2], int)
            ):
                raise BattlelogError(f'{self.path}: piece {name!r} is not {{"total": int >= 0, "seconds": number, "nodes": int}}')
            self.solved[name] = Solved(values[0], float(values[1]), values[2])

    def add(self, name: str, solved: Solved) -> None:
        """Record one more solved piece (the file is rewritten at once)."""
        self.solved[name] = solved
        pieces = {k: {"total": v.total, "seconds": round(v.seconds, 1), "nodes": v.nodes} for k, v in sorted(self.solved.items())}
        write_text(self.path, _dumps({**self.about, "pieces": pieces}))


def _dumps(data: dict[str, object]) -> str:
    return json.dumps(data, indent=1) + "\n"


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


def _solve(
    solver: Solver, piece: Piece, every: float, progress: Callable[[SearchProgress], None], seconds: float | None = None
) -> Solved:
    """One piece's exact total, searched by ``solver`` (whose table may already hold states it meets);
    ``progress`` is called about every ``every`` seconds."""
    start, nodes = time.perf_counter(), int(solver.stats[search.NODES])
    total = solver.total(piece.layouts, piece.hits, progress=_throttled(progress, every), every=min(every, 1.0), seconds=seconds)
    return Solved(total, time.perf_counter() - start, int(solver.stats[search.NODES]) - nodes)


def _throttled(progress: Callable[[SearchProgress], None], every: float) -> Callable[[SearchProgress], None]:
    """``progress``, called at most once every ``every`` seconds of the search."""
    due = [every]

    def call(reached: SearchProgress) -> None:
        if reached.seconds >= due[0]:
            due[0] = reached.seconds + every
            progress(reached)

    return call


def _worker(config: GameConfig, memory: int, every: float, tasks: multiprocessing.Queue, results: multiprocessing.Queue) -> None:
    """One process: a solver kept across its pieces (so that the states they share are searched once);
    it sends (piece, SearchProgress) now and then, and (piece, Solved) at the end of each."""
    from battlelog.optimum.solver import WINDOWED, Solver

    solver = Solver(config, memory=memory, settings=WINDOWED)
    pieces = first_shot_pieces(solver)
    while (index := tasks.get()) is not None:
        results.put((index, _solve(solver, pieces[index], every, lambda reached: results.put((index, reached)))))


def _said_progress(config: GameConfig, piece: Piece, said: Callable[[str], None], reached: SearchProgress) -> None:
    said(f"  first shot {piece.name(config.cols)}: still searching after {reached.seconds:,.0f} s, {reached.nodes:,} nodes, "
         f"{reached.stored:,} states stored")  # fmt: skip


def solve_split(
    config: GameConfig,
    record: Path,
    workers: int,
    memory: int,
    seconds: float | None = None,
    said: Callable[[str], None] = lambda line: None,
    every: float = PROGRESS_EVERY,
) -> SplitResult:
    """The optimum of ``config`` from its first shot's children, solved in ``workers`` processes (each with
    ``memory`` for its table) and kept in ``record``; past ``seconds``, a BudgetExceeded error after the
    pieces finished so far were written. ``said`` gets a line per piece solved, and one every ``every``
    seconds for each piece still searching."""
    from battlelog.optimum.solver import Solver

    solver = Solver(config, memory=1 << 20)  # for its layouts and symmetries only
    pieces, cols = first_shot_pieces(solver), config.cols
    kept = SplitRecord(record, config, len(solver.layouts))
    todo = [i for i, p in enumerate(pieces) if p.name(cols) not in kept.solved]
    if todo:
        said(f"{config.label()}: {len(pieces)} pieces (a first shot and its answer), {len(pieces) - len(todo)} solved in "
             f"{record} before, {len(todo)} to search in {min(workers, len(todo))} process(es)")  # fmt: skip
    start = time.perf_counter()
    if todo and workers == 1:
        _run_here(config, pieces, todo, kept, memory, (start, seconds, every), said)
    elif todo:
        _run(config, pieces, todo, kept, workers, memory, (start, seconds, every), said)
    totals: dict[int, int] = {}
    for piece in pieces:
        totals[piece.shot] = totals.get(piece.shot, len(solver.layouts)) + kept.solved[piece.name(cols)].total
    best = min(totals.values())
    shots = sorted(((divmod(x, cols), Fraction(v, len(solver.layouts))) for x, v in totals.items()), key=lambda s: (s[1], s[0]))
    return SplitResult(
        solver.layouts, best, shots, sum(s.seconds for s in kept.solved.values()), sum(s.nodes for s in kept.solved.values())
    )


#: When the split search started, its time limit (or None) and the seconds between progress lines.
Timing = tuple[float, float | None, float]


def _run_here(config: GameConfig, pieces: list[Piece], todo: list[int], kept: SplitRecord, memory: int,
              timing: Timing, said: Callable[[str], None]) -> None:  # fmt: skip
    """One worker: the pieces in this process, one after another, with one table."""
    from battlelog.optimum.solver import WINDOWED, Solver

    start, seconds, every = timing
    solver = Solver(config, memory=memory, settings=WINDOWED)
    for done, index in enumerate(todo, 1):
        left = None if seconds is None else max(0.0, seconds - (time.perf_counter() - start))
        piece = pieces[index]
        try:
            solved = _solve(solver, piece, every, partial(_said_progress, config, piece, said), left)
        except BudgetExceeded:
            raise _stopped(config, seconds or 0.0, kept, len(pieces)) from None
        _record(config, kept, pieces[index], solved, f"{done}/{len(todo)}", said)


def _stopped(config: GameConfig, seconds: float, kept: SplitRecord, pieces: int) -> BudgetExceeded:
    return BudgetExceeded(f"{config.label()}: the split search stopped after {seconds:g} s with "
                          f"{len(kept.solved)} of {pieces} pieces solved, kept in {kept.path}")  # fmt: skip


def _record(config: GameConfig, kept: SplitRecord, piece: Piece, solved: Solved, count: str, said: Callable[[str], None]) -> None:
    kept.add(piece.name(config.cols), solved)
    said(f"piece {count}: first shot {piece.name(config.cols)}, {len(piece.layouts)} layouts: "
         f"total {solved.total} in {solved.seconds:,.0f} s ({solved.nodes:,} nodes)")  # fmt: skip


def _run(config: GameConfig, pieces: list[Piece], todo: list[int], kept: SplitRecord, workers: int, memory: int,
         timing: Timing, said: Callable[[str], None]) -> None:  # fmt: skip
    """Hand the pieces to the processes and record each as it comes back; stop them all at the end."""
    start, seconds, every = timing
    context = multiprocessing.get_context("spawn")
    tasks, results = context.Queue(), context.Queue()
    for index in todo:
        tasks.put(index)
    crew = [
        context.Process(target=_worker, args=(config, memory, every, tasks, results), daemon=True)
        for _ in range(min(workers, len(todo)))
    ]
    for process in crew:
        tasks.put(None)
        process.start()
    try:
        for done in range(1, len(todo) + 1):
            while True:
                try:
                    index, solved = results.get(timeout=1.0)
                    if isinstance(solved, Solved):
                        break
                    _said_progress(config, pieces[index], said, solved)
                except queue.Empty:
                    if seconds is not None and time.perf_counter() - start > seconds:
                        raise _stopped(config, seconds, kept, len(pieces)) from None
                    if not any(p.is_alive() for p in crew):
                        raise BattlelogError(
                            f"{config.label()}: every search process ended before its pieces were solved (out of memory?)"
                        ) from None
            _record(config, kept, pieces[index], solved, f"{done}/{len(todo)}", said)
    finally:
        for process in crew:
            process.terminate()
            process.join()
