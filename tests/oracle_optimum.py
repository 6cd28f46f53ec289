"""The exact optimum by exhaustive recursion over the oracle's layouts (tests/oracle.py): Bellman's
equation over every shot history, trying every unshot cell and splitting the layouts by the answer each
gives under the sink rule. No bounds, no symmetries, no answer codes, nothing of battlelog.optimum.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import oracle


@cache
def brute_first_shots(size: int, ships: tuple[int, ...], touch: str, sinks: str) -> tuple[Fraction, ...]:
    """The smallest expected number of shots over the policies that start with cell x, for every cell x
    (cells as bits r * size + c of plain integers)."""
    table = oracle.layouts(size, ships, touch)
    masks = oracle.layout_masks(table, size)
    everything = [sum(layout) for layout in masks]

    def answer(k: int, shot: int, bit: int) -> str:
        return oracle.mask_answer(masks[k], shot, bit, sinks)

    def after(shot: int, alive: frozenset[int], x: int) -> Fraction:
        """1 + the expected value of the states a shot at x leads to."""
        bit = 1 << x
        groups: dict[str, list[int]] = {}
        for k in alive:
            groups.setdefault(answer(k, shot, bit), []).append(k)
        return 1 + sum((Fraction(len(g), len(alive)) * value(shot | bit, frozenset(g)) for g in groups.values()), Fraction(0))

    @cache
    def value(shot: int, alive: frozenset[int]) -> Fraction:
        if all(everything[k] & ~shot == 0 for k in alive):
            return Fraction(0)
        return min(after(shot, alive, x) for x in range(size * size) if not shot & (1 << x))

    everyone = frozenset(range(len(table)))
    return tuple(after(0, everyone, x) for x in range(size * size))


def brute_optimum(size: int, ships: tuple[int, ...], touch: str, sinks: str) -> Fraction:
    """The smallest expected number of shots over all policies."""
    return min(brute_first_shots(size, ships, touch, sinks))


def brute_weighted_optimum(size: int, ships: tuple[int, ...], touch: str, sinks: str, weights: tuple[Fraction, ...]) -> Fraction:
    """The smallest expected number of shots over all policies when layout k of ``oracle.layouts`` has
    weight ``weights[k]`` (not normalised; a layout of weight 0 never occurs): Bellman's equation as above,
    each answer's branch weighed by its layouts' weight."""
    table = oracle.layouts(size, ships, touch)
    masks = oracle.layout_masks(table, size)
    everything = [sum(layout) for layout in masks]

    @cache
    def value(shot: int, alive: frozenset[int]) -> Fraction:
        if all(everything[k] & ~shot == 0 for k in alive):
            return Fraction(0)
        total = sum((weights[k] for k in alive), Fraction(0))
        best = None
        for x in range(size * size):
            bit = 1 << x
            if shot & bit:
                continue
            groups: dict[str, list[int]] = {}
            for k in alive:
                groups.setdefault(oracle.mask_answer(masks[k], shot, bit, sinks), []).append(k)
            after = 1 + sum((sum((weights[k] for k in g), Fraction(0)) / total * value(shot | bit, frozenset(g)) for g in groups.values()), Fraction(0))
            best = after if best is None or after < best else best
        assert best is not None
        return best

    return value(0, frozenset(k for k in range(len(table)) if weights[k] > 0))
