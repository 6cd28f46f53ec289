"""Progress lines of ``battlelog optimal`` on standard error: one every :data:`EVERY` seconds of a long phase."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from battlelog.rules.config import GameConfig

if TYPE_CHECKING:
    from battlelog.optimum.solver import SearchProgress

#: Seconds between progress lines.
EVERY = 10.0


def search_progress(config: GameConfig) -> Callable[[SearchProgress], None]:
    """A callback of the solver's search printing one line every EVERY seconds."""
    last = [0.0]

    def report(progress: SearchProgress) -> None:
        if progress.seconds - last[0] < EVERY:
            return
        last[0] = progress.seconds
        best = f", best found {progress.root_best}" if progress.root_best else ""
        best += f", proven at least {progress.root_lower}" if progress.root_lower else ""
        print(
            f"solving {config.label()}: {progress.seconds:.0f} s, {progress.nodes:,} nodes, {progress.stored:,} states "
            f"stored, first shot {progress.root_done}/{progress.root_total}{best}",
            file=sys.stderr,
            flush=True,
        )

    return report


def walk_progress(name: str) -> Callable[[int], None]:
    """A callback of a player's exact walk printing one line at most every EVERY seconds."""
    start = time.perf_counter()
    last = [start]

    def report(states: int) -> None:
        now = time.perf_counter()
        if now - last[0] >= EVERY:
            last[0] = now
            print(f"evaluating {name}: {states:,} states, {now - start:.0f} s", file=sys.stderr, flush=True)

    return report


__all__ = ["EVERY", "search_progress", "walk_progress"]
