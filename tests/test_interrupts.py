"""A Ctrl-C that lands in a destructor is swallowed by Python ("Exception ignored in ..."); a run notices it
all the same (the race behind an interrupted dask run that went on to the end)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from battlelog.runner.interrupts import interrupts_remembered


@pytest.fixture
def python_handler() -> Iterator[None]:
    """Python's own Ctrl-C handler for the test, whatever the runner was started with (a job started in the
    background by a shell without job control inherits SIGINT ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class _InterruptedWhileCollected:
    """An object whose destructor is running when Ctrl-C arrives."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # the handler runs here, and its KeyboardInterrupt dies with the destructor


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.usefixtures("python_handler")
def test_an_interrupt_a_destructor_swallowed_is_raised_again() -> None:
    with interrupts_remembered() as ask_again:
        _InterruptedWhileCollected()  # collected at once: the interrupt is swallowed, the code goes on
        swallowed = True
        with pytest.raises(KeyboardInterrupt):
            ask_again()
    assert swallowed
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Python's own handler back


@pytest.mark.usefixtures("python_handler")
def test_without_an_interrupt_nothing_is_raised() -> None:
    with interrupts_remembered() as ask_again:
        ask_again()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_caller_that_ignores_ctrl_c_keeps_ignoring_it() -> None:
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupts_remembered() as ask_again:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            ask_again()  # nothing was seen: nothing to raise
    finally:
        signal.signal(signal.SIGINT, previous)
