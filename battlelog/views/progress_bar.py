"""The command line's view of long engine calls: a bar on standard error, once a call has run a second.

Engines report through :mod:`battlelog.engines.progress`; this draws those reports. A call that
ends within :data:`DELAY` seconds shows nothing, and nothing is drawn when standard error is not a
terminal (tqdm's own rule), so scripts and logs stay clean. tqdm is imported only when a bar is due.
Work whose engine cannot measure it (``fraction`` None) gets a line with the time it has taken,
kept ticking by a thread of its own, since no report arrives while that engine works.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

#: Seconds an engine call runs before its bar appears.
DELAY = 1.0
#: Steps of a bar: it is redrawn when the whole percentage done changes, and only then.
STEPS = 100


class DelayedBar:
    """A progress listener: one bar per piece of work (``what``), shown once it has taken DELAY seconds."""

    def __init__(self, stream: TextIO | None = None, delay: float = DELAY) -> None:
        self.stream = stream
        self.delay = delay
        self._what: str | None = None
        self._since = self._last = 0.0
        self._bar: Any = None
        self._ticker: tuple[threading.Thread, threading.Event] | None = None

    def __call__(self, what: str, fraction: float | None) -> None:
        if fraction is None:
            self._tick_while_busy(what)
            return
        now = time.monotonic()
        if what != self._what or fraction < self._last:  # a new piece of work
            self.close()
            self._what, self._since = what, now
        self._last = fraction
        if self._bar is None:
            if fraction >= 1.0:
                self.close()
            if now - self._since < self.delay or fraction >= 1.0:
                return
            from tqdm import tqdm

            self._bar = tqdm(
                total=STEPS, desc=what, file=self.stream or sys.stderr, disable=None, leave=False, mininterval=0,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}",
            )  # fmt: skip
        step = int(fraction * STEPS)
        if step > self._bar.n:
            self._bar.update(step - self._bar.n)
        if fraction >= 1.0:
            self.close()

    def _tick_while_busy(self, what: str) -> None:
        """Start a thread that, once the work has taken ``delay`` seconds, shows how long it has run."""
        self.close()
        self._what, self._last = what, 0.0
        done = threading.Event()
        thread = threading.Thread(target=self._busy_line, args=(what, done), daemon=True)
        self._ticker = (thread, done)
        thread.start()

    def _busy_line(self, what: str, done: threading.Event) -> None:
        if done.wait(self.delay):
            return
        from tqdm import tqdm

        line = tqdm(desc=what, file=self.stream or sys.stderr, disable=None, leave=False, bar_format="{desc}: working, {elapsed}")
        while not done.wait(1.0):
            line.refresh()
        line.close()

    def close(self) -> None:
        if self._ticker is not None:
            thread, done = self._ticker
            done.set()
            thread.join()
            self._ticker = None
        if self._bar is not None:
            self._bar.close()
        self._bar = None
        self._what = None
