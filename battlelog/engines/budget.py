"""How much memory one engine call may use: a default, the process's limit, or what a task says.

A compiling engine knows how much memory a model needs before it allocates it, and splits the work
or refuses it with a one-line error rather than letting the operating system kill the process. The
budget it checks against comes from, in order: the engine's own ``memory_budget`` argument; the
budget of the task being run (:func:`task_budget`, which an experiment sets around each game, so the
budget travels with the task to any worker, local or remote); half the process's address-space limit
when one is set (virtual memory runs well ahead of resident memory); else :data:`DEFAULT_BUDGET`.
"""

from __future__ import annotations

import resource
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, TypeVar

from battlelog.errors import BudgetExceeded, FrontierTooWide

if TYPE_CHECKING:
    from battlelog.model.ground import Problem

#: At most 2 ** MAX_SPLIT_DEPTH cases per state before an engine gives up.
MAX_SPLIT_DEPTH = 4

Result = TypeVar("Result")

#: The budget of one engine call when nothing else says otherwise.
DEFAULT_BUDGET = 2 * 10**9

#: The running task's budget. A context variable, not a global: a Dask worker runs tasks in threads.
_task_budget: ContextVar[int | None] = ContextVar("battlelog_task_budget", default=None)


def memory_budget(own: int | None = None) -> int:
    """The budget in bytes for an engine call made now: ``own`` (the engine's own) when given, else as
    the module's docstring says. Read at each call, so an engine kept across games follows each one's."""
    if own is not None:
        return own
    task = _task_budget.get()
    if task is not None:
        return task
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return DEFAULT_BUDGET if soft == resource.RLIM_INFINITY else min(DEFAULT_BUDGET, soft // 2)


@contextmanager
def task_budget(budget: int | None) -> Iterator[None]:
    """Within the block, engines built without an explicit budget use ``budget`` bytes (None: no change)."""
    token = _task_budget.set(int(budget)) if budget is not None else None
    try:
        yield
    finally:
        if token is not None:
            _task_budget.reset(token)


def readable(size: float) -> str:
    """A byte count for messages: ``512 kB``, ``3.2 GB``."""
    for unit in ("B", "kB", "MB"):
        if size < 1000:
            return f"{size:.0f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"


def split_until_it_fits(
    problem: Problem, build: Callable[[Problem, int], Result], engine: str, budget: int, depth: int = 0
) -> list[Result]:
    """``build(problem, depth)``, or, when that raises BudgetExceeded, the results of the problem's two
    halves split exactly on a cell (the layouts that leave it empty and those that cover it), recursively.

    Past :data:`MAX_SPLIT_DEPTH` levels of splitting the engine refuses with a one-line error naming
    its budget, and at once when the build says a split cannot help (:class:`FrontierTooWide`). The
    halves share no layout and together have all of them, so counts add up.
    """
    try:
        return [build(problem, depth)]
    except FrontierTooWide as exc:
        raise FrontierTooWide(
            f"{exc}: over the {engine} engine's memory budget of {readable(budget)}, even holding one level "
            "at a time and recomputing the others (not split: a split narrows the frontier only near its cell)"
        ) from None
    except BudgetExceeded as exc:
        failure = str(exc)
    # Split only once out of the except block: the exception's traceback holds the failed attempt's
    # frames, and with them everything it had built, until then.
    cell = problem.split_cell()
    if depth >= MAX_SPLIT_DEPTH or cell is None:
        raise BudgetExceeded(
            f"{failure}: over the {engine} engine's memory budget of {readable(budget)}, even split into {2**depth} cases"
        )
    empty, covered = problem.split(cell)
    return split_until_it_fits(empty, build, engine, budget, depth + 1) + split_until_it_fits(
        covered, build, engine, budget, depth + 1
    )
