"""A problem's layered model read under the memory budget: compiled whole, or split into cases (:mod:`~.budget`)
while one would exceed it, each case read and dropped before the next is compiled. The ladder's sweeps read
through here; the engine only compiles one model (:class:`Compiler`)."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import ClassVar, Protocol, TypeVar

from battlelog.engines import budget
from battlelog.engines.native.counts import Counts
from battlelog.engines.native.layered import LayeredModel
from battlelog.engines.native.weights import Weighted
from battlelog.model.ground import Problem
from battlelog.rules.symmetry import Symmetry

Read = TypeVar("Read", Counts, Weighted)  # what a model is read for; either adds up over the cases of a split


class Compiler(Protocol):
    """What reading needs of the engine: its name (for the split's error), its budget and how it compiles one model."""

    name: ClassVar[str]

    @property
    def memory_budget(self) -> int: ...

    def compile_model(
        self, problem: Problem, order: Symmetry, depth: int, tracked: bool = False, limit: int | None = None
    ) -> LayeredModel: ...


def read_cases(
    engine: Compiler,
    problem: Problem,
    order: Symmetry,
    read: Callable[[LayeredModel], Read],
    tracked: bool = False,
    limit: int | None = None,
) -> tuple[Read, LayeredModel | None]:
    """``read`` of the model of ``problem`` swept in ``order`` under ``limit`` bytes (None: the budget), summed over cases
    while one would exceed it; and the model, when not split (to keep)."""
    whole: list[LayeredModel] = []

    def build(part: Problem, depth: int) -> Read:
        model = engine.compile_model(part, order, depth, tracked, limit)
        whole.extend([model] if depth == 0 else [])
        return read(model)

    parts = budget.split_until_it_fits(problem, build, engine.name, engine.memory_budget if limit is None else limit)
    return functools.reduce(operator.add, parts), whole[0] if whole else None


def case_counts(
    engine: Compiler, problem: Problem, order: Symmetry, limit: int | None = None
) -> tuple[Counts, LayeredModel | None]:
    """The counts of ``problem`` (maybe none) swept in ``order`` (:func:`read_cases`), and its model when not split."""
    return read_cases(engine, problem, order, Counts.of, limit=limit)
