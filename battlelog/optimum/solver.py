"""The exact optimum of a small instance and the policy that reaches it.

:class:`Solver` enumerates the layouts, runs the compiled branch-and-bound search
(:mod:`battlelog.optimum.search`) in a thread so that a caller can watch its progress and stop it,
and keeps the table of solved belief states, from which :meth:`Solver.best_shot` reads the optimal
shot of any game state (searching again only where the table has no answer).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from battlelog.errors import BattlelogError, BudgetExceeded, WriteError
from battlelog.optimum import DEFAULT_MEMORY, saved, search
from battlelog.optimum.group import Symmetries
from battlelog.optimum.layouts import SINK_MODES, SOLVABLE_CELLS, SOLVABLE_LAYOUTS, solvable_layouts
from battlelog.optimum.table import FIRST_CAPACITY, KeyShape, StateTable
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, cells_mask
from battlelog.rules.state import GameState


@dataclass(frozen=True)
class SearchProgress:
    """What the search has done so far, as the progress callback sees it."""

    seconds: float
    nodes: int
    stored: int
    evicted: int
    root_done: int
    root_total: int
    #: The best total found at the root so far (an upper bound on the optimum's total), or None.
    root_best: int | None
    #: The root's total is proven at least this (from a window that failed), or None.
    root_lower: int | None = None


@dataclass(frozen=True)
class Settings:
    """What the search may use: each device can be switched off to measure what it buys."""

    symmetries: bool = True
    #: ``search.BOUND_MISSES``, ``search.BOUND_ONE_STEP`` or ``search.BOUND_CELLS``.
    bound: int = search.BOUND_MISSES
    #: ``search.ORDER_BOUND`` or ``search.ORDER_BOARD``.
    order: int = search.ORDER_BOUND
    #: States of at least this many layouts get greedy's exact total as the search window
    #: (``search.policy_total``); 0 = never. Off by default: it changes which of several optimal shots
    #: the table keeps, hence the ``optimal`` player's games; the optimum itself is the same.
    upper: int = 0
    #: 0: one search with an open window. Otherwise the root is searched with windows that widen by
    #: ``step`` shots per layout's thousand (the total rises by ``step * layouts / 1000``) from its
    #: lower bound until the value falls inside: each failed window leaves its lower bounds stored, and
    #: a tight window prunes far more than an open one.
    step: int = 0


#: What `battlelog optimal` searches with: the ship bound, greedy's window on states of 20 layouts or
#: more, and a root window widening by 0.05 shots (measured in docs/optimum.md, "The paper's boards").
WINDOWED = Settings(bound=search.BOUND_SHIPS, upper=20, step=50)

#: Seconds between two saves of a table kept in a file (each stops the search, writes, and searches again).
SAVE_EVERY = 600.0


class Solver:
    """The optimal policy of one instance (uniform prior over the layouts legal under the touch rule,
    answers as the sink rule words them)."""

    def __init__(
        self,
        config: GameConfig,
        memory: int = DEFAULT_MEMORY,
        settings: Settings = Settings(),
        max_layouts: int = SOLVABLE_LAYOUTS,
        max_cells: int = SOLVABLE_CELLS,
        table_file: Path | None = None,
        save_every: float = SAVE_EVERY,
        after_save: Callable[[Solver], None] | None = None,
    ) -> None:
        self.config = config
        self.layouts = solvable_layouts(config, max_layouts, max_cells)
        self.symmetries = Symmetries.of(config, settings.symmetries)
        self.settings = settings
        shape = KeyShape.of(config, memory)
        self._offsets, self._words, self.capacity = shape.offsets, shape.words, shape.capacity
        self.table = shape.first_table()
        self.stats = np.zeros(search.STATS, dtype=np.int64)
        self._options = np.array(
            [settings.bound, settings.order, SINK_MODES[config.rules.sinks], settings.upper], dtype=np.int64
        )
        self._lock = threading.Lock()
        #: Where the table is kept between runs (None: nowhere), and what the runs before this one did; what
        #: to do after each periodic save (the split search takes in its other processes' tables then).
        self.table_file, self.save_every, self.after_save = table_file, save_every, after_save
        self.earlier: dict[str, float] = {}
        #: Why the table could not be written, once a write failed (None: every write so far succeeded).
        self.unsaved: str | None = None
        if table_file is not None and table_file.exists():
            self._read(table_file)

    # ----- searching ---------------------------------------------------------------------------
    def total(
        self,
        layouts: np.ndarray,
        hits: int,
        progress: Callable[[SearchProgress], None] | None = None,
        every: float = 1.0,
        seconds: float | None = None,
        below: int | None = None,
    ) -> int:
        """T(layouts, hits): the optimal number of shots still to fire, summed over ``layouts``; with ``below``,
        T if it is below that, else a proven lower bound of at least ``below`` (the search stops there: enough
        to rule out a first shot that another beats, at a fraction of the cost).

        The search runs in a thread (compiled, it holds no lock of Python's), so that ``progress`` can
        be called about every ``every`` seconds. Past ``seconds``, or on Ctrl-C, the search is told to
        stop: a BudgetExceeded error, or the KeyboardInterrupt again. With a :attr:`table_file` the table is
        written there every :attr:`save_every` seconds and when the search returns, however it returns.
        """
        start = time.perf_counter()
        try:
            value = self._run(layouts, hits, start, progress, every, seconds, below)
        finally:  # the search has returned: whatever stopped it, what it solved is kept
            if self.table_file is not None:
                self.save(time.perf_counter() - start)
        if value == search.STOPPED:
            reached = self._progress(time.perf_counter() - start)
            best, proven = reached.root_best, reached.root_lower
            found = f"; the best policy found so far needs {best / len(layouts):.4f} shots" if best else ""
            found += f"; the optimum is proven at least {proven}/{len(layouts)} = {proven / len(layouts):.4f}" if proven else ""
            saved = self.table_file is not None and self.unsaved is None
            kept = f"; what it solved is kept in {self.table_file}" if saved else ""
            when = f"after {seconds:g} s" if seconds is not None else "when told to"
            raise BudgetExceeded(f"{self.config.label()}: the search stopped {when}{found}{kept}")
        return value

    def _run(self, layouts: np.ndarray, hits: int, start: float, progress: Callable[[SearchProgress], None] | None,
             every: float, seconds: float | None, below: int | None = None) -> int:  # fmt: skip
        """The search in its thread, watched: grown, saved and stopped when it is time."""
        saved_at = start
        with self._lock, ThreadPoolExecutor(1) as pool:
            future = pool.submit(self._search, layouts, hits, below)
            try:
                while True:
                    try:
                        value = future.result(timeout=every)
                        why = self.stats[search.STOP]
                        if value != search.STOPPED or why not in (search.STOP_TO_GROW, search.STOP_TO_SAVE):
                            return int(value)
                        if why == search.STOP_TO_GROW:
                            self.table = self.table.grown(self.stats)  # and search again: the entries are kept
                        else:
                            self.save(time.perf_counter() - start)
                            if self.after_save is not None:
                                self.after_save(self)
                            saved_at = time.perf_counter()
                        future = pool.submit(self._search, layouts, hits, below)
                    except FutureTimeout:
                        now = time.perf_counter()
                        if progress is not None:
                            progress(self._progress(now - start))
                        if seconds is not None and now - start > seconds:
                            self.stats[search.STOP] = search.STOP_ASKED
                        elif self.table_file is not None and self.unsaved is None and now - saved_at > self.save_every:
                            self.stats[search.STOP] = search.STOP_TO_SAVE
            except KeyboardInterrupt:
                self.stats[search.STOP] = search.STOP_ASKED
                future.result()
                raise

    # ----- keeping the table in a file ----------------------------------------------------------
    def _identity(self) -> dict[str, object]:
        return saved.identity(self.config.label(), len(self.layouts), self._words, len(self.symmetries.ships))

    def _read(self, path: Path) -> None:
        """Start from the table in ``path`` (see :mod:`battlelog.optimum.saved`)."""
        entries, self.earlier = saved.load(path, self._identity())
        size = min(FIRST_CAPACITY, self.capacity)
        while 3 * size < 4 * len(entries[0]) + 4 and size < self.capacity:
            size *= 2
        self.table = StateTable.empty(size, self._words)
        search.rehash(entries, self.table.arrays, self.stats)

    def save(self, seconds: float) -> None:
        """Write the table to :attr:`table_file`, with the nodes and seconds of every search into it so far
        (``seconds``: this run's). A write that fails (a full disk, say) does not stop the search: it is said
        in :attr:`unsaved` and no later write is tried."""
        if self.table_file is None or self.unsaved is not None:
            return
        before = self.earlier
        progress: dict[str, float] = {
            "runs": before.get("runs", 0) + 1,
            "nodes": before.get("nodes", 0) + int(self.stats[search.NODES]),
            "seconds": round(before.get("seconds", 0.0) + seconds, 1),
        }
        try:
            saved.save(self.table_file, self.table.arrays, self._identity(), progress)
        except WriteError as exc:
            self.unsaved = f"{exc}; the search went on without its table"

    def absorb(self, path: Path) -> None:
        """Take in the entries of another search's table file of the same instance and code (an exact total
        stays exact, a lower bound rises; see ``search.absorb``); a file that cannot be read is skipped."""
        try:
            entries, _ = saved.load(path, self._identity())
        except BattlelogError:
            return
        while 3 * len(self.table) < 4 * (int(self.stats[search.STORED]) + len(entries[0])) and len(self.table) < self.capacity:
            self.table = self.table.grown(self.stats)
        search.absorb(entries, self.table.arrays, self.stats)

    def _search(self, layouts: np.ndarray, hits: int, below: int | None = None) -> int:
        t = self.layouts
        self.stats[search.STOP] = search.RUNNING
        self.stats[search.MAY_GROW] = len(self.table) < self.capacity
        rise = max(1, self.settings.step * len(layouts) // 1000)
        beta = 1 if self.settings.step else search.INFINITE  # the first window returns the root's lower bound
        beta = beta if below is None else below  # asked whether T < below: one window says exactly that
        while True:
            value = int(
                search.search(
                    layouts.astype(np.int32), np.uint64(hits), beta, 0, t.ship_masks, t.owner, t.placement,
                    t.union, self.symmetries.cells, self.symmetries.ships, self.symmetries.placements, self._offsets,
                    self._words, self.config.ship_cells, self.table.arrays, self.stats, self._options,
                )
            )
            if value == search.STOPPED or value < beta:
                return value
            self.stats[search.ROOT_LOWER] = value
            if below is not None:
                return value  # proven at least ``below``: as far as the caller asked
            beta = value + rise  # value is a lower bound at least beta: widen past it

    def _progress(self, seconds: float) -> SearchProgress:
        s = self.stats
        return SearchProgress(
            seconds,
            int(s[search.NODES]),
            int(s[search.STORED]),
            int(s[search.EVICTED]),
            int(s[search.ROOT_DONE]),
            int(s[search.ROOT_TOTAL]),
            int(s[search.ROOT_BEST]) or None,
            int(s[search.ROOT_LOWER]) or None,
        )

    def optimum(self, progress: Callable[[SearchProgress], None] | None = None, seconds: float | None = None) -> Fraction:
        """The smallest expected number of shots over all policies, from the empty board."""
        everything = np.arange(len(self.layouts), dtype=np.int32)
        return Fraction(self.total(everything, 0, progress, seconds=seconds), len(self.layouts))

    # ----- playing -----------------------------------------------------------------------------
    def best_shot(self, state: GameState) -> Cell:
        """An optimal shot in ``state`` (the game must not be over)."""
        if state.over:
            raise BattlelogError("the game is over: there is no shot to choose")
        layouts = self.layouts.consistent(state)
        if len(layouts) == 0:
            raise BattlelogError("contradictory state: no layout fits the answers")
        hits = cells_mask(state.hits, state.cols)
        if len(layouts) == 1:  # the layout is known: shoot its first unhit cell
            rest = int(self.layouts.union[layouts[0]]) & ~hits
            return divmod((rest & -rest).bit_length() - 1, state.cols)
        self.total(layouts, hits)
        t = self.layouts
        key, g, _ = search.canonical_key(
            layouts, np.uint64(hits), t.placement, t.ship_masks, self.symmetries.cells, self.symmetries.ships,
            self.symmetries.placements, self._offsets, self._words,
        )
        slot = search.find_slot(self.table.keys, self.table.flags, key)
        if slot < 0 or self.table.flags[slot] != search.EXACT:  # evicted by the search just run: cannot happen
            raise BattlelogError("the solved policy lost this state; give the solver more memory")
        return self.symmetries.preimage(g, int(self.table.actions[slot]), state.cols)
