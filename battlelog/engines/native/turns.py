"""Counting a problem as two cases by its longest ship's orientation, each swept along that ship.

Before each cell a raster sweep's frontier says, for every column, how much of a vertical ship is still
ahead of it, and the longer the ship, the more such states there are; a horizontal ship leaves one run in
the current row. So a problem whose longest ship (the fleet's only one of that length) may lie either way
is counted as two: that ship horizontal, swept row by row, and that ship vertical, swept column by column
(the board's image under a transpose, where the ship lies along the sweep again). The two cases share no
layout and together have all of them, so their counts add up, exactly. A problem its transpose maps to
itself (the empty square board) counts the first case only: the second is its image.

Measured (docs/speed.md, "Turned sweeps"; ``python experiments/bench_turns.py``): the empty boards with
5,4,3,3,2, warm, 10x10 in 0.09 s instead of 0.51 s, 12x12 in 0.27 s instead of 2.41 s, 15x15 in 1.2 s instead of
25.6 s; whole games 1.6-12x faster. A small sweep pays its per-level cost twice, so states whose whole sweep takes
under about 15 ms lose a few milliseconds. On a rectangle the column-by-column sweep has the wider frontier; it
pays while the sides differ by little (12x10: the empty board 0.31 s instead of 0.68 s) and not on long boards
(8x12: 0.18 s against 0.16 s, games 0.9x; ``bench_turns.py --max-skew 4``), so those are not turned.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from battlelog.engines.canonical import maps_to_itself
from battlelog.engines.native import misses
from battlelog.engines.native.counts import Counts
from battlelog.engines.native.layered import LayeredModel
from battlelog.engines.native.tables import fits_key, sweep_order
from battlelog.model.ground import Problem
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import SYMMETRIES, Symmetry

#: The most two sides may differ for a rectangle to be turned (its turned case sweeps the wider side).
MAX_SKEW = 2
#: The plain transpose, (r, c) -> (c, r).
TRANSPOSE = Symmetry(True, False, False)


def turning_ship(problem: Problem, tracked: bool = False) -> int | None:
    """The ship a count of ``problem`` is turned on: the fleet's only ship of its longest length (2 or more),
    when its placements lie both ways, the board is near square and both cases' frontiers fit 64-bit keys (with the
    occupancy profile a prior's touch weight keeps, when ``tracked``); else None."""
    longest = max(problem.ships)
    if longest < 2 or problem.ships.count(longest) > 1 or abs(problem.rows - problem.cols) > MAX_SKEW:
        return None
    ship = problem.ships.index(longest)
    if len({p.horizontal for p in problem.domains[ship]}) < 2:
        return None
    return ship if fits_key(problem, max(problem.rows, problem.cols), tracked) else None


#: What a case is read for: its counts, or its weighted posterior under a prior.
Read = TypeVar("Read")
#: Reads a case (a problem, in a raster order, under a budget in bytes): what it is read for, and its model when not split.
CaseReader = Callable[[Problem, Symmetry, int], tuple[Read, LayeredModel | None]]


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


def turned_cases(problem: Problem, state: GameState, tracked: bool = False) -> list[tuple[Problem, Symmetry]] | None:
    """The two cases of ``problem`` (ground from ``state``), the turning ship across and then along the columns, each
    with the raster order (of those that sweep it along) that meets the state's evidence earliest; None when it is
    not turned (:func:`turning_ship`; ``tracked``: swept with the occupancy profile)."""
    ship = turning_ship(problem, tracked)
    if ship is None:
        return None
    domain = problem.domains[ship]
    out = []
    for across in (True, False):
        case = replace(problem, domains=_with(problem.domains, ship, tuple(p for p in domain if p.horizontal == across)))
        out.append((case, sweep_order(state, [s for s in SYMMETRIES if s.transpose != across])))
    return out


def turned_counts(problem: Problem, state: GameState, count: CaseReader[Counts], budget: int) -> Turned | None:
    """The counts of ``problem`` (ground from ``state``) as the sum of its two cases (:func:`turned_cases`), each
    counted by ``count(case, order, limit)`` (:func:`read_cases`); None when it is not turned. A self-transposed
    problem counts its first case only, and keeps its model for both cases' recounts."""
    cases = turned_cases(problem, state)
    if cases is None:
        return None
    if maps_to_itself(state, TRANSPOSE):
        (across,), kept = read_cases(cases[:1], count, budget)
        return Turned(state, across + transposed(across, state), tuple((model, flip) for model in kept for flip in (False, True)))
    (across, down), kept = read_cases(cases, count, budget)
    return Turned(state, across + down, tuple((model, False) for model in kept))


def read_cases(cases: list[tuple[Problem, Symmetry]], read: CaseReader[Read], budget: int) -> tuple[list[Read], tuple[LayeredModel, ...]]:
    """Each case read by ``read(case, order, limit)``, and the models kept to read again (all or none): the first
    while it takes at most half of ``budget`` bytes, the next ones while none is rebuilt, each case read under
    what the models kept before it leave of ``budget``."""
    parts: list[Read] = []
    kept: list[LayeredModel] = []
    limit = budget
    for case, order in cases:
        part, model = read(case, order, limit)
        parts.append(part)
        if model is not None and not model.rebuilds and len(kept) == len(parts) - 1 and (kept or model.nbytes <= budget // 2):
            kept.append(model)
            limit -= model.nbytes
    return parts, tuple(kept) if len(kept) == len(cases) else ()


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
