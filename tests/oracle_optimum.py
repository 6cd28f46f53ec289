"""The exact optimum by exhaustive recursion over the oracle's layouts (tests/oracle.py): Bellman's
equation over every shot history, trying every unshot cell a layout still alive covers and splitting the
layouts by the answer each gives under the sink rule. No bounds, no symmetries, no answer codes, nothing
of battlelog.optimum.

Three facts keep the recursion small and cheap without changing its value. A shot at a cell no live layout
covers is a certain miss: it costs a shot and leaves the live layouts as they were, so it is never the best
and is not tried (every cell is still tried as a first shot, see :func:`brute_first_shots`). A layout's
answers depend only on which of its own cells were shot, so a state is memoised on the live layouts and the
shot cells they cover, not on the whole history: states that differ only in their misses share one entry.
And the recursion adds up whole numbers, not fractions: with the weights scaled to integers, a state's
total weight times its expected shots still to fire is its weight (the next shot, fired on every layout)
plus the least sum over a shot's answers of the same figure of each answer's state.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from functools import cache

import oracle


def _bellman(
    size: int, ships: tuple[int, ...], touch: str, sinks: str, weights: tuple[Fraction, ...]
) -> Callable[[int, int], Fraction]:
    """``after(alive, x)``: the expected shots of the best policy that fires x first on the empty board, layout
    k of ``oracle.layouts`` weighing ``weights[k]`` (not normalised) and alive when bit k of ``alive`` is set."""
    masks = oracle.layout_masks(oracle.layouts(size, ships, touch), size)
    everything = [sum(layout) for layout in masks]
    scale = math.lcm(*(w.denominator for w in weights))
    weight = [int(w * scale) for w in weights]

    @cache
    def live(alive: int) -> tuple[list[int], int, int]:
        """The live layouts of ``alive``, the cells they cover and their total weight."""
        members = [k for k in range(len(masks)) if alive >> k & 1]
        union = 0
        for k in members:
            union |= everything[k]
        return members, union, sum(weight[k] for k in members)

    def fire(shot: int, alive: int, bit: int) -> int:
        """The sum over the answers to a shot at ``bit`` of each answer's state's :func:`cost`."""
        groups: dict[str, int] = {}
        for k in live(alive)[0]:
            answer = oracle.mask_answer(masks[k], shot, bit, sinks)
            groups[answer] = groups.get(answer, 0) | 1 << k
        return sum(cost((shot | bit) & live(group)[1], group) for group in groups.values())

    @cache
    def cost(shot: int, alive: int) -> int:
        """Total weight of ``alive`` times the expected shots still to fire (``shot``: the cells shot that they cover)."""
        _, union, total = live(alive)
        open_cells = union & ~shot
        if open_cells == 0:
            return 0
        return total + min(fire(shot, alive, 1 << x) for x in range(size * size) if open_cells >> x & 1)

    def after(alive: int, x: int) -> Fraction:
        total = live(alive)[2]
        return Fraction(total + fire(0, alive, 1 << x), total)

    return after


@cache
def brute_first_shots(size: int, ships: tuple[int, ...], touch: str, sinks: str) -> tuple[Fraction, ...]:
    """The smallest expected number of shots over the policies that start with cell x, for every cell x
    (cells as bits r * size + c of plain integers), every layout equally likely."""
    count = len(oracle.layouts(size, ships, touch))
    after = _bellman(size, ships, touch, sinks, (Fraction(1),) * count)
    return tuple(after((1 << count) - 1, x) for x in range(size * size))


def brute_optimum(size: int, ships: tuple[int, ...], touch: str, sinks: str) -> Fraction:
    """The smallest expected number of shots over all policies."""
    return min(brute_first_shots(size, ships, touch, sinks))


def brute_weighted_optimum(size: int, ships: tuple[int, ...], touch: str, sinks: str, weights: tuple[Fraction, ...]) -> Fraction:
    """The smallest expected number of shots over all policies when layout k of ``oracle.layouts`` has
    weight ``weights[k]`` (not normalised; a layout of weight 0 never occurs)."""
    after = _bellman(size, ships, touch, sinks, weights)
    alive = sum(1 << k for k in range(len(weights)) if weights[k] > 0)
    return min(after(alive, x) for x in range(size * size))
