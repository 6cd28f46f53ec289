"""The weighted passes over a layered model's levels, under one prior or two at once (:mod:`~.weights` reads them).

A pass walks a segment's levels forward (each state's scaled weighted ways from the root) or one level back (each
state's ways to the end, each placement's weighted share added up), calling the prior's kernel
(:mod:`~.weight_kernel`); values are divided by their largest at every level and the logs kept apart. Two priors, a
self-transposed board's prior and its flip (:mod:`~.turns`), go through the kernels' ``*_pair`` functions: each level
is read once for both, and each prior's sums are the same floats in the same order as in a pass of its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from battlelog.engines.native import jit
from battlelog.engines.native.layered import LayeredModel, Level

#: The most bytes of forward values a weighing keeps for its backward pass (those of the last segments); the others are
#: computed again a segment at a time on the way back. The touch weight's empty 10x10 board has 124 MB of them a prior
#: (15.5 million states) beside a 209 MB model: kept whole they were a third of its peak (docs/speed.md, "The touch
#: weight's empty board, again"). A model of fewer than 4 million states (2 million under two priors) keeps them all.
FORWARD_BYTES = 32 << 20

#: A pass's values under each prior weighed together, each with the log of the scale it is divided by.
Values = list[tuple[np.ndarray, float]]
#: A level's weights under one prior as the kernels read them (``Weigher.weights``): the table of ``3 * action + pairs``
#: divided by its largest, the log of that largest, and the touching pairs (empty when the sweep did not count them).
Weights = Callable[[Level, int], tuple[np.ndarray, float, np.ndarray]]


def kept_segments(model: LayeredModel, priors: int) -> set[int]:
    """The segments whose forward values a weighing under ``priors`` priors keeps: the last ones, within
    :data:`FORWARD_BYTES`; none when the model rebuilds its segments (their levels are not held either)."""
    if model.rebuilds:
        return set()
    keep, held = set(), 0
    for index in range(len(model.segments) - 1, -1, -1):
        held += 8 * priors * sum(level.states for level in model.segment_levels(model.segments[index]))
        if held > FORWARD_BYTES:
            break
        keep.add(index)
    return keep


def forward(weights: list[Weights], levels: list[Level], start: int, values: Values, every: bool = True) -> list[Values]:
    """The scaled forward values before each level of a segment and after it, under each weigher's prior (``every``
    false: those after it only, each level's dropped once the next one's are computed)."""
    out = [values]
    for offset, level in enumerate(levels):
        tables = [weigh(level, start + offset) for weigh in weights]
        pairs = tables[0][2]
        after = [np.zeros(_following(levels, offset)) for _ in weights]
        run = jit.weight_kernels(level.states)
        if len(weights) == 1:
            run.forward(values[0][0], level.first, level.child, level.action, pairs, tables[0][0], after[0])
        else:
            (a, _), (b, _) = values
            run.forward_pair(a, b, level.first, level.child, level.action, pairs, tables[0][0], tables[1][0], *after)
        values = []
        for (_, log), (_, top, _), next_values in zip(out[-1], tables, after):
            scale = float(next_values.max()) if len(next_values) else 1.0
            next_values /= scale  # in place: the same values as a new array, one array fewer a level
            values.append((next_values, log + top + math.log(scale)))
        if every:
            out.append(values)
        else:
            out = [values]
    return out


def _following(levels: list[Level], offset: int) -> int:
    """The states after level ``offset`` of a segment: the next level's, or (the last) one more than its largest child,
    as every next state is some transition's child."""
    if offset + 1 < len(levels):
        return levels[offset + 1].states
    child = levels[offset].child
    return int(child.max()) + 1 if len(child) else 0


def backward(
    weights: list[Weights], level: Level, j: int, before: Values, after: Values, log_z: list[float], uses: list[np.ndarray]
) -> Values:
    """One step back through level j under each weigher's prior: the scaled backward values before it from those after it
    (``after``) and the forward values before it (``before``), each placement's weighted share added to ``uses``."""
    tables = [weigh(level, j) for weigh in weights]
    pairs = tables[0][2]
    tallies = [np.zeros(len(used)) for used in uses]
    run = jit.weight_kernels(level.states)
    if len(weights) == 1:
        here = [run.backward(after[0][0], before[0][0], level.first, level.child, level.action, pairs, tables[0][0], tallies[0])]
    else:
        (fa, _), (fb, _) = before
        (ba, _), (bb, _) = after
        here = [np.empty(level.states), np.empty(level.states)]
        run.backward_pair(
            ba, bb, fa, fb, level.first, level.child, level.action, pairs, tables[0][0], tables[1][0], *tallies, *here
        )
    out = []
    for (_, log), (_, log_after), (_, top, _), tally, values, used, z in zip(before, after, tables, tallies, here, uses, log_z):
        used[:, j] = tally * math.exp(log + top + log_after - z)
        scale = float(values.max())
        values /= scale  # in place: one array fewer a level
        out.append((values, log_after + top + math.log(scale)))
    return out
