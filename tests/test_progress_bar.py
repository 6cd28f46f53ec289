"""The command line's progress bar for long engine calls: shown only once a call has taken a while."""

from __future__ import annotations

import io

import pytest

from battlelog.views.progress_bar import DelayedBar


class Terminal(io.StringIO):
    """A stream that says it is a terminal, so that tqdm draws on it."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [100.0]
    monkeypatch.setattr("battlelog.views.progress_bar.time.monotonic", lambda: now[0])
    return now


def test_a_quick_call_draws_nothing_and_a_slow_one_draws_a_bar(clock: list[float]) -> None:
    out = Terminal()
    bar = DelayedBar(out, delay=1.0)
    for fraction in (0.1, 0.5, 1.0):
        clock[0] += 0.2
        bar("10x10 5,4,3,3,2", fraction)
    assert out.getvalue() == ""
    for fraction in (0.1, 0.5, 0.9, 1.0):  # the same board again: a new call, timed from its own start
        clock[0] += 0.6
        bar("10x10 5,4,3,3,2", fraction)
    drawn = out.getvalue()
    assert "10x10 5,4,3,3,2" in drawn and "90%" in drawn


def test_nothing_is_drawn_where_standard_error_is_not_a_terminal(clock: list[float]) -> None:
    out = io.StringIO()
    bar = DelayedBar(out, delay=0.0)
    for fraction in (0.2, 0.6, 1.0):
        clock[0] += 5
        bar("15x15 5,4,3,3,2", fraction)
    assert out.getvalue() == ""


def test_work_an_engine_cannot_measure_shows_its_time_until_it_ends() -> None:
    import time

    from battlelog.engines import progress

    out = Terminal()
    bar = DelayedBar(out, delay=0.05)
    with progress.listening(bar), progress.busy("problog engine, 10x10 5,4,3,3,2"):
        deadline = time.monotonic() + 30
        while "working" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)  # the engine is busy; the line must appear without any report from it
    assert "problog engine, 10x10 5,4,3,3,2: working, 00:0" in out.getvalue()
    shown = out.getvalue()
    time.sleep(0.2)
    assert out.getvalue() == shown  # the work ended: its line stopped with it


def test_quick_unmeasured_work_draws_nothing() -> None:
    from battlelog.engines import progress

    out = Terminal()
    with progress.listening(DelayedBar(out, delay=5.0)), progress.busy("problog engine, 4x4 3,2"):
        pass
    assert out.getvalue() == ""
