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

import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from battlelog.engines.canonical import PosteriorKey, maps_to_itself, model_key
from battlelog.engines.native import misses
from battlelog.engines.native.counts import Counts
from battlelog.engines.native.layered import LayeredModel
from battlelog.engines.native.tables import fits_key, sweep_order
from battlelog.engines.native.weights import Weighted, weighed_together, weigher
from battlelog.model.ground import Problem
from battlelog.rules.prior import Prior
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
#: Weighs a case (a problem, in a raster order, under a budget in bytes) by reading each model swept of it with the
#: given function (its cases' posteriors mixed, when split): the posterior, and the model when not split.
CaseWeigher = Callable[[Problem, Symmetry, int, Callable[[LayeredModel], Weighted]], tuple[Weighted, LayeredModel | None]]


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
        if (
            cells is None
            or sum({id(m): m.nbytes for m in models}.values()) + max(misses.recount_bytes(m, False) for m in models) > budget
        ):
            return None
        parts = []
        for model, flip in self.parts:
            counts = misses.Recount(model, [(c, r) for r, c in cells] if flip else cells, False).counts
            parts.append(transposed(counts, state) if flip else counts)
        return parts[0] + parts[1]


@dataclass(frozen=True)
class WeighedCases:
    """A state weighed as two cases, and the case models kept to weigh it again under another prior, or a state a miss
    or two on, without a sweep.

    ``key``: the models' key (:func:`~battlelog.engines.canonical.model_key`, touching pairs counted or not);
    ``parts``: each kept model and whether it stands for the transposed case (a self-transposed state keeps one model
    for both: the second case is the first weighed under the opposite vertical weight, transposed, see
    :func:`transposed_weighted`); empty when the models were not kept (split, rebuilt, or too large).
    """

    key: PosteriorKey
    state: GameState
    parts: tuple[tuple[LayeredModel, bool], ...]

    def counts(self, key: PosteriorKey) -> Counts | None:
        """The integer counts of the state weighed, when its models are kept under ``key``; else None."""
        if key != self.key or not self.parts:
            return None
        parts = [transposed(Counts.of(model), self.state) if flip else Counts.of(model) for model, flip in self.parts]
        return functools.reduce(operator.add, parts)

    def weighted(self, state: GameState, tracked: bool) -> Weighted | None:
        """The weighted posterior of ``state`` under its prior, read from the kept models: the state weighed (another prior
        on the same shots) or one a miss or two on (:func:`~battlelog.engines.native.misses.weighted_recount`); else None."""
        if not self.parts:
            return None
        prior, same = state.config.effective_prior, model_key(state, tracked) == self.key
        parts = []
        for model, flip in self.parts:
            if same:
                part: Weighted | None = weigher(model, flipped(prior) if flip else prior).weighted()
            else:
                part = misses.weighted_recount(state, self.state, (self.key, model), tracked, flip)
            if part is None:
                return None
            parts.append(transposed_weighted(part, state, prior.vertical) if flip else part)
        return functools.reduce(operator.add, parts)


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


def turned_weighted(
    problem: Problem, state: GameState, tracked: bool, weigh: CaseWeigher, budget: int
) -> tuple[Weighted, WeighedCases] | None:
    """The weighted posterior of ``problem`` (ground from ``state``) under ``state``'s prior as the mixture of its two
    cases (:func:`turned_cases`; ``tracked``: touching pairs counted), each weighed by ``weigh(case, order, limit, read)``,
    and the cases kept to weigh again; None when it is not turned.

    A self-transposed problem sweeps its first case only and weighs that one model twice, in one pass
    (:func:`~battlelog.engines.native.weights.weighed_together`): under the prior, and under the prior with the opposite
    vertical weight for the second case (its transpose, :func:`transposed_weighted`); once when the prior has no vertical
    weight. One sweep and one model instead of two (the empty board)."""
    cases = turned_cases(problem, state, tracked)
    if cases is None:
        return None
    prior, key = state.config.effective_prior, model_key(state, tracked)
    if maps_to_itself(state, TRANSPOSE):

        def both(model: LayeredModel) -> Weighted:
            if flipped(prior) == prior:
                across = down = weigher(model, prior).weighted()
            else:  # one pass over the levels carrying both priors
                across, down = weighed_together([weigher(model, prior), weigher(model, flipped(prior))])
            return across + transposed_weighted(down, state, prior.vertical)

        (weighed,), kept = read_cases(cases[:1], lambda case, order, limit: weigh(case, order, limit, both), budget)
        return weighed, WeighedCases(key, state, tuple((model, flip) for model in kept for flip in (False, True)))
    read = lambda case, order, limit: weigh(case, order, limit, lambda model: weigher(model, prior).weighted())  # noqa: E731
    parts, kept = read_cases(cases, read, budget)
    return functools.reduce(operator.add, parts), WeighedCases(key, state, tuple((model, False) for model in kept))


def read_cases(
    cases: list[tuple[Problem, Symmetry]], read: CaseReader[Read], budget: int
) -> tuple[list[Read], tuple[LayeredModel, ...]]:
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
    return Counts(counts.models, counts.cells.T.copy(), _transposed_placements(counts.placements, state))


def flipped(prior: Prior) -> Prior:
    """``prior`` with the opposite vertical weight: what a layout's transpose weighs under ``prior``, but for a constant."""
    return replace(prior, vertical=-prior.vertical)


def transposed_weighted(weighed: Weighted, state: GameState, vertical: float) -> Weighted:
    """The weighted posterior of the transpose of a problem on ``state``'s square board under a prior of vertical weight
    ``vertical``, from the problem's posterior ``weighed`` under that prior :func:`flipped`.

    A transpose keeps a layout's edge cells and touching pairs and turns its n ships of length 2 or more: v vertical
    become n - v. So its weight under the prior is exp(vertical x n) times the layout's under the flipped prior: the
    same mixture, transposed, with E[vertical] reflected to n - E and log Z shifted by vertical x n."""
    if weighed.models == 0:
        return weighed
    n = sum(length >= 2 for length in state.config.ships)
    edge, down, touch = weighed.features
    return Weighted(
        weighed.models, weighed.log_z + vertical * n, weighed.cells.T.copy(), _transposed_placements(weighed.placements, state),
        np.array([edge, n - down, touch]),
    )  # fmt: skip


def _transposed_placements(placements: tuple[np.ndarray, ...], state: GameState) -> tuple[np.ndarray, ...]:
    """Per ship, values over its placements moved to their transposes' places (``state``'s board square)."""
    out = []
    for ship, values in enumerate(placements):
        moved = np.empty_like(values)
        moved[TRANSPOSE.placement_order(state.config, ship)] = values
        out.append(moved)
    return tuple(out)


def _with(domains: tuple[tuple, ...], ship: int, domain: tuple) -> tuple[tuple, ...]:
    """``domains`` with ``ship``'s replaced by ``domain``."""
    return (*domains[:ship], domain, *domains[ship + 1 :])
