"""The processes of a split search (:mod:`battlelog.optimum.split`): each keeps one solver across the pieces
it takes, writes its table now and then and takes in the others', and reports progress and totals."""

from __future__ import annotations

import multiprocessing
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from battlelog.errors import BattlelogError, BudgetExceeded
from battlelog.optimum import search
from battlelog.optimum.pieces import Piece, Solved, SplitRecord, first_shot_pieces
from battlelog.rules.config import GameConfig

if TYPE_CHECKING:
    from battlelog.optimum.solver import SearchProgress, Solver


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


@dataclass(frozen=True)
class Crew:
    """How the pieces are searched: the processes' memory each, the seconds between progress lines and
    between two exchanges of tables, and each process's table file (process k keeps its table in
    ``tables[k]`` and takes in the others' after each of its saves: every entry is true of its state
    whichever process found it, so the states the pieces share are searched about once, not once a process)."""

    config: GameConfig
    memory: int
    every: float
    share_every: float
    tables: tuple[Path, ...]

    def solver(self, k: int) -> Solver:
        """Process k's solver, its table read back from its file when a run before left one (one from other code
        of the search is dropped), with the other processes' tables taken in."""
        from battlelog.optimum.solver import WINDOWED, Solver

        own, peers = self.tables[k], [path for i, path in enumerate(self.tables) if i != k]

        def made() -> Solver:
            return Solver(self.config, memory=self.memory, settings=WINDOWED, table_file=own, save_every=self.share_every,
                          after_save=lambda solver: _take_in(solver, peers))  # fmt: skip

        try:
            solver = made()
        except BattlelogError:  # a table of other code of the search, or damaged: only speed is lost
            own.unlink(missing_ok=True)
            solver = made()
        _take_in(solver, peers)
        return solver


def _take_in(solver: Solver, tables: list[Path]) -> None:
    for path in tables:
        if path.exists():
            solver.absorb(path)


def _worker(crew: Crew, k: int, tasks: multiprocessing.Queue, results: multiprocessing.Queue) -> None:
    """Process k: one solver kept across its pieces; it sends (piece, SearchProgress) now and then, and
    (piece, Solved) at the end of each."""
    solver = crew.solver(k)
    pieces = first_shot_pieces(solver)
    while (index := tasks.get()) is not None:
        results.put((index, _solve(solver, pieces[index], crew.every, lambda reached: results.put((index, reached)))))


def _said_progress(config: GameConfig, piece: Piece, said: Callable[[str], None], reached: SearchProgress) -> None:
    said(f"  first shot {piece.name(config.cols)}: still searching after {reached.seconds:,.0f} s, {reached.nodes:,} nodes, "
         f"{reached.stored:,} states stored")  # fmt: skip


def run_here(crew: Crew, pieces: list[Piece], todo: list[int], kept: SplitRecord, start: float, seconds: float | None,
              said: Callable[[str], None]) -> None:  # fmt: skip
    """One process: the pieces in this one, one after another, with one table."""
    config = crew.config
    solver = crew.solver(0)
    for done, index in enumerate(todo, 1):
        left = None if seconds is None else max(0.0, seconds - (time.perf_counter() - start))
        piece = pieces[index]
        try:
            solved = _solve(solver, piece, crew.every, partial(_said_progress, config, piece, said), left)
        except BudgetExceeded:
            raise _stopped(config, seconds or 0.0, kept, len(pieces)) from None
        _record(config, kept, piece, solved, f"{done}/{len(todo)}", said)


def _stopped(config: GameConfig, seconds: float, kept: SplitRecord, pieces: int) -> BudgetExceeded:
    return BudgetExceeded(f"{config.label()}: the split search stopped after {seconds:g} s with "
                          f"{len(kept.solved)} of {pieces} pieces solved, kept in {kept.path}")  # fmt: skip


def _record(config: GameConfig, kept: SplitRecord, piece: Piece, solved: Solved, count: str, said: Callable[[str], None]) -> None:
    kept.add(piece.name(config.cols), solved)
    said(f"piece {count}: first shot {piece.name(config.cols)}, {len(piece.layouts)} layouts: "
         f"total {solved.total} in {solved.seconds:,.0f} s ({solved.nodes:,} nodes)")  # fmt: skip


def run_processes(crew: Crew, pieces: list[Piece], todo: list[int], kept: SplitRecord, start: float, seconds: float | None,
         said: Callable[[str], None]) -> None:  # fmt: skip
    """Hand the pieces to the processes and record each as it comes back; stop them all at the end."""
    config = crew.config
    context = multiprocessing.get_context("spawn")
    tasks, results = context.Queue(), context.Queue()
    for index in todo:
        tasks.put(index)
    processes = [context.Process(target=_worker, args=(crew, k, tasks, results), daemon=True) for k in range(len(crew.tables))]
    for process in processes:
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
                    if not any(p.is_alive() for p in processes):
                        raise BattlelogError(
                            f"{config.label()}: every search process ended before its pieces were solved (out of memory?)"
                        ) from None
            _record(config, kept, pieces[index], solved, f"{done}/{len(todo)}", said)
    finally:
        for process in processes:
            process.terminate()
            process.join()
