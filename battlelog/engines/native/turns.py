"""Counting a problem as two cases by its longest ship's orientation, each swept along that ship.

Before each cell a raster sweep's frontier says, for every column, how much of a vertical ship is still
ahead of it, and the longer the ship, the more such states there are; a horizontal ship leaves one run in
the current row. So a problem whose longest ship (the fleet's only one of that length) may lie either way
is counted as two: that ship horizontal, swept row by row, and that ship vertical, swept column by column
(the board's image under a transpose, where the ship lies along the sweep again). The two cases share no
layout and together have all of them, so their counts add up, exactly. A problem its transpose maps to
itself (the empty square board) counts the first case only: the second is its image.

Measured (docs/speed.md, "Turned sweeps"): the empty 10x10 board with 5,4,3,3,2 in 0.18 s instead of
0.51 s, 12x12 in 0.55 s instead of 2.6 s, 15x15 in a few seconds instead of 27. On a rectangle the
column-by-column sweep has the wider frontier; it pays while the sides differ by little (12x10: 0.33 s
instead of 1.08 s) and not on long boards (8x12: 0.20 s against 0.18 s), so those are not turned.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from battlelog.engines.native import misses
from battlelog.engines.native.counts import Counts
from battlelog.engines.native.layered import LayeredModel
from battlelog.engines.native.tables import key_fields, kinds_of, profile_bits, sweep_order
from battlelog.model.ground import Problem
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import SYMMETRIES, Symmetry

#: The most two sides may differ for a rectangle to be turned (its turned case sweeps the wider side).
MAX_SKEW = 2
#: The plain transpose, (r, c) -> (c, r).
TRANSPOSE = Symmetry(True, False, False)


def turning_ship(problem: Problem) -> int | None:
    """The ship a count of ``problem`` is turned on: the fleet's only ship of its longest length (2 or more),
    when its placements lie both ways, the board is near square and both cases' frontiers fit 64-bit keys; else None."""
    longest = max(problem.ships)
    if longest < 2 or problem.ships.count(longest) > 1 or abs(problem.rows - problem.cols) > MAX_SKEW:
        return None
    ship = problem.ships.index(longest)
    if len({p.horizontal for p in problem.domains[ship]}) < 2:
        return None
    kinds = kinds_of(problem)
    field_bits, count_bits = key_fields(longest, [len(kind.ships) for kind in kinds])
    width = max(problem.rows, problem.cols)
    if field_bits * (width + 1) + profile_bits(problem.touch, width) + sum(count_bits) > 64:
        return None
    return ship


#: Counts a case (a problem, in a raster order, under a budget in bytes): its counts, and its model when kept whole.
CaseCounter = Callable[[Problem, Symmetry, int], tuple[Counts, LayeredModel | None]]


@dataclass(frozen=True)
class Turned:
    """A state counted as two cases, and the case models kept to count a state a miss or two on without a sweep.

    ``parts``: each kept model and whether its counts are transposed (a self-transposed state keeps one model
    for both cases: the second case of a state a few misses on is the transpose of the first case of the
    state with those misses transposed); empty when the models were not kept (split, rebuilt, or too large).
    """

    state: GameState
    counts: Counts
    parts: tuple[tuple[LayeredModel, bool], ...]

    def recount(self, state: GameState, budget: int) -> Counts | None:
        """The counts of ``state``, when it adds only a miss or two to :attr:`state` and the models are kept
        (:class:`~battlelog.engines.native.misses.Recount` on each, within ``budget``); else None."""
        cells = misses.added_misses(self.state, state) if self.parts and state.config.effective_prior.is_uniform else None
        models = [model for model, _ in self.parts]
        if cells is None or sum({id(m): m.nbytes for m in models}.values()) + max(misses.recount_bytes(m, False) for m in models) > budget:
            return None
        parts = []
        for model, flip in self.parts:
            counts = misses.Recount(model, [(c, r) for r, c in cells] if flip else cells, False).counts
            parts.append(transposed(counts, state) if flip else counts)
        return parts[0] + parts[1]


def turned_counts(problem: Problem, state: GameState, count: CaseCounter, budget: int) -> Turned | None:
    """The counts of ``problem`` (ground from ``state``) as the sum of its two cases, each counted by
    ``count(case, order, budget)`` in the raster order (of those that sweep the case's ship along) that meets
    the state's evidence earliest; None when it is not turned (:func:`turning_ship`). The first case's model is
    kept for recounts while it takes at most half of ``budget``, and the second case is counted under the rest."""
    ship = turning_ship(problem)
    if ship is None:
        return None
    domain = problem.domains[ship]
    cases = [replace(problem, domains=_with(problem.domains, ship, tuple(p for p in domain if p.horizontal == across))) for across in (True, False)]
    across, first = count(cases[0], sweep_order(state, [s for s in SYMMETRIES if not s.transpose]), budget)
    first = first if first is not None and not first.rebuilds and first.nbytes <= budget // 2 else None
    if is_self_transposed(problem):
        return Turned(state, across + transposed(across, state), () if first is None else ((first, False), (first, True)))
    rest = budget - (0 if first is None else first.nbytes)
    down, second = count(cases[1], sweep_order(state, [s for s in SYMMETRIES if s.transpose]), rest)
    if first is None or second is None or second.rebuilds:
        return Turned(state, across + down, ())
    return Turned(state, across + down, ((first, False), (second, False)))


def is_self_transposed(problem: Problem) -> bool:
    """Whether the transpose maps ``problem`` to itself: a square board, its required cells and every ship's placements."""
    if problem.rows != problem.cols or problem.required != {(c, r) for r, c in problem.required}:
        return False
    n = problem.rows
    return all({TRANSPOSE.placement(p, n) for p in domain} == set(domain) for domain in problem.domains)


def transposed(counts: Counts, state: GameState) -> Counts:
    """The counts of the transpose of a problem on ``state``'s square board, from the problem's ``counts``."""
    placements = []
    for ship, values in enumerate(counts.placements):
        out = np.empty_like(values)
        out[TRANSPOSE.placement_order(state.config, ship)] = values
        placements.append(out)
    return Counts(counts.models, counts.cells.T.copy(), tuple(placements))


def _with(domains: tuple[tuple, ...], ship: int, domain: tuple) -> tuple[tuple, ...]:
    """``domains`` with ``ship``'s replaced by ``domain``."""
    return (*domains[:ship], domain, *domains[ship + 1 :])
