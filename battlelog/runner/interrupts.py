"""Ctrl-C that is never lost. Python turns SIGINT into a KeyboardInterrupt at the next bytecode of the main
thread; when that bytecode belongs to a destructor (a dask future collected mid-run, say), Python prints
"Exception ignored in ..." and carries on, and the run would go on to the end as if no one had pressed
Ctrl-C. Here the interrupt is also remembered, and the run's loop asks again after every game."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def interrupts_remembered() -> Iterator[Callable[[], None]]:
    """Within: SIGINT raises KeyboardInterrupt as usual and is remembered; the function given raises it
    again if one was seen. Outside the main thread, or where Ctrl-C is not Python's (ignored, or a handler
    of the caller's own), nothing changes and the function given does nothing."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield lambda: None
        return
    seen = threading.Event()

    def remember(signum: int, frame: FrameType | None) -> None:
        seen.set()
        raise KeyboardInterrupt

    def ask_again() -> None:
        if seen.is_set():
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, remember)
    try:
        yield ask_again
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
