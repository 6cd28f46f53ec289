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
from battlelog.optimum.pieces import Piece, Solved, first_shot_pieces
from battlelog.optimum.plan import Plan
from battlelog.rules.config import GameConfig

if TYPE_CHECKING:
    from battlelog.optimum.solver import SearchProgress, Solver


def _solve(
    solver: Solver,
    piece: Piece,
    every: float,
    progress: Callable[[SearchProgress], None],
    seconds: float | None = None,
    below: int | None = None,
) -> Solved:
    """One piece's exact total, or with ``below`` its total if under that and else a proven lower bound of
    at least ``below``, searched by ``solver`` (whose table may already hold states it meets); ``progress``
    is called about every ``every`` seconds."""
    start, nodes = time.perf_counter(), int(solver.stats[search.NODES])
    total = solver.total(
        piece.layouts, piece.hits, progress=_throttled(progress, every), every=min(every, 1.0), seconds=seconds, below=below
    )
    exact = below is None or total < below
    return Solved(total, time.perf_counter() - start, int(solver.stats[search.NODES]) - nodes, exact)


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
    """Process k: one solver kept across its pieces, each given as (piece, below); it sends (piece,
    SearchProgress) now and then, and (piece, Solved) at the end of each."""
    solver = crew.solver(k)
    pieces = first_shot_pieces(solver)
    while (task := tasks.get()) is not None:
        progress = partial(_send, results, task[0])
        results.put((task[0], _solve(solver, pieces[task[0]], crew.every, progress, below=task[1])))


def _send(results: multiprocessing.Queue, index: int, reached: SearchProgress) -> None:
    results.put((index, reached))


def _said_progress(config: GameConfig, piece: Piece, said: Callable[[str], None], reached: SearchProgress) -> None:
    said(f"  first shot {piece.name(config.cols)}: still searching after {reached.seconds:,.0f} s, {reached.nodes:,} nodes, "
         f"{reached.stored:,} states stored")  # fmt: skip


def run_here(crew: Crew, plan: Plan, start: float, seconds: float | None, said: Callable[[str], None]) -> None:
    """One process: the plan's pieces in this one, one after another, with one table."""
    config = crew.config
    solver = crew.solver(0)
    done = 0
    while (task := plan.next(set())) is not None:
        index, below = task
        left = None if seconds is None else max(0.0, seconds - (time.perf_counter() - start))
        piece = plan.pieces[index]
        try:
            solved = _solve(solver, piece, crew.every, partial(_said_progress, config, piece, said), left, below)
        except BudgetExceeded:
            raise _stopped(config, seconds or 0.0, plan) from None
        done += 1
        _record(config, plan, piece, solved, done, said)


def _stopped(config: GameConfig, seconds: float, plan: Plan) -> BudgetExceeded:
    kept = plan.kept
    return BudgetExceeded(f"{config.label()}: the split search stopped after {seconds:g} s with "
                          f"{len(kept.solved)} of {len(plan.pieces)} pieces searched, kept in {kept.path}")  # fmt: skip


def _record(config: GameConfig, plan: Plan, piece: Piece, solved: Solved, done: int, said: Callable[[str], None]) -> None:
    plan.kept.add(piece.name(config.cols), solved)
    found = f"total {solved.total}" if solved.exact else f"at least {solved.total} (its first shot cannot beat the best)"
    said(f"piece {done} ({plan.left()} left): first shot {piece.name(config.cols)}, {len(piece.layouts)} layouts: "
         f"{found} in {solved.seconds:,.0f} s ({solved.nodes:,} nodes)")  # fmt: skip


def run_processes(crew: Crew, plan: Plan, start: float, seconds: float | None, said: Callable[[str], None]) -> None:
    """Hand the plan's pieces to the processes one at a time as each finishes (so that each piece is searched
    under the best bound known when it starts) and record each as it comes back; stop them all at the end."""
    config = crew.config
    context = multiprocessing.get_context("spawn")
    tasks, results = context.Queue(), context.Queue()
    processes = [context.Process(target=_worker, args=(crew, k, tasks, results), daemon=True) for k in range(len(crew.tables))]
    busy: set[int] = set()

    def hand_out() -> None:
        while len(busy) < len(processes) and (task := plan.next(busy)) is not None:
            busy.add(task[0])
            tasks.put(task)

    hand_out()
    for process in processes:
        process.start()
    done = 0
    try:
        while busy:
            try:
                index, solved = results.get(timeout=1.0)
            except queue.Empty:
                if seconds is not None and time.perf_counter() - start > seconds:
                    raise _stopped(config, seconds, plan) from None
                if not any(p.is_alive() for p in processes):
                    raise BattlelogError(
                        f"{config.label()}: every search process ended before its pieces were solved (out of memory?)"
                    ) from None
                continue
            if not isinstance(solved, Solved):
                _said_progress(config, plan.pieces[index], said, solved)
                continue
            busy.discard(index)
            done += 1
            _record(config, plan, plan.pieces[index], solved, done, said)
            hand_out()
    finally:
        for process in processes:
            process.terminate()
            process.join()
