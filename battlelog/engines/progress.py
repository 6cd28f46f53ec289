"""Progress of long engine calls, reported to whoever listens: a terminal bar, or no one.

Engines call :func:`report` as they go; a command that wants a bar wraps its engine calls in
:func:`listening`. Experiments do not listen, so their workers stay quiet move after move. The
listener is a context variable, like the memory budget, so threads keep theirs apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: Called with what is being done (``"10x10 5,4,3,3,2"``) and the fraction done, from 0 to 1, or
#: None when the work has started and its engine cannot tell how far it has got.
Listener = Callable[[str, float | None], None]

_listener: ContextVar[Listener | None] = ContextVar("battlelog_progress", default=None)


def listener() -> Listener | None:
    """The listener of the current context, if any (engines skip the bookkeeping when there is none)."""
    return _listener.get()


def report(what: str, fraction: float | None) -> None:
    """Tell the listener, if any, that ``fraction`` of ``what`` is done."""
    current = _listener.get()
    if current is not None:
        current(what, fraction)


@contextmanager
def busy(what: str) -> Iterator[None]:
    """The block is one piece of work whose progress cannot be measured (ProbLog's pipeline, pysdd):
    the listener hears when it starts and when it ends, so that a person still sees it working."""
    report(what, None)
    try:
        yield
    finally:
        report(what, 1.0)


@contextmanager
def listening(callback: Listener) -> Iterator[None]:
    """Within the block, engine progress goes to ``callback``."""
    token = _listener.set(callback)
    try:
        yield
    finally:
        _listener.reset(token)
