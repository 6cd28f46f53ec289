"""A kept model counted again for a state that only adds misses to its own: a few times cheaper than a sweep.

A miss rules out the layouts that cover its cell: the placements that cover it, which are transitions
of known actions at known levels of the model of the state before it. Counting that model's paths over
the transitions left (one pass forward, one back; no keys, no hashing) gives exactly the integer counts
that a sweep of the new state gives, so every figure the engine reports stays the same bit for bit. The
model is not changed, nor kept as the new state's: a draw from the new state still comes from a model
of its own, so that draws stay what they were (and an engine that draws does not count again at all:
the sweep a draw needs answers the counts too).

Under a prior the same model is weighed again (:func:`weighted_recount`): the transitions that cover a
miss weigh 0, the float passes weigh exactly the layouts left, and one integer pass forward counts them.

Each miss adds dead paths to the old model while a sweep of the new state prunes them, so past
:data:`MOST_MISSES` misses a sweep is cheaper again (docs/speed.md).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import replace

import numpy as np

from battlelog.engines.canonical import PosteriorKey, model_key, posterior_key
from battlelog.engines.native import jit
from battlelog.engines.native.counts import Counts
from battlelog.engines.native.layered import LayeredModel, Level
from battlelog.engines.native.streams import Randomness, below
from battlelog.engines.native.tables import HORIZONTAL, VERTICAL, SweepTables, kinds_of, sweep_order
from battlelog.engines.native.weights import MaskedWeigher, Weighted
from battlelog.errors import BattlelogError
from battlelog.model.ground import ground_problem
from battlelog.rules.answers import MISS
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState

#: The most misses after a kept model's state that it is counted again for (measured on 10x10 greedy
#: games: 1.2-2.4x faster than a sweep with two misses early in a game, up to 5x later; a third miss
#: early lost to the sweep).
MOST_MISSES = 2


def added_misses(base: GameState, state: GameState) -> list[Cell] | None:
    """The cells of the misses ``state`` adds to ``base`` (1 to :data:`MOST_MISSES`), when it adds nothing
    else and has the same board, fleet, rules and prior; else None."""
    n = len(base.shots)
    if state.config != base.config or state.pending or base.pending or state.shots[:n] != base.shots:
        return None
    added = state.shots[n:]
    if not 1 <= len(added) <= MOST_MISSES or any(shot.result != MISS for shot in added):
        return None
    return [shot.cell for shot in added]


def recount_for(
    state: GameState, base: GameState | None, kept: tuple[PosteriorKey, LayeredModel] | None, drawing: bool, budget: int
) -> Recount | None:
    """``kept`` (a posterior's key and its model) read again for ``state``, when it is ``base``'s model with every
    level kept and ``state`` adds only a miss or two to ``base`` under the uniform prior, and, when ``drawing``,
    draws from it are those of a sweep of ``state`` (:func:`draws_alike`); else None. Also None when the model and
    the recount's arrays together would pass ``budget`` (bytes): a sweep of ``state`` frees the model first."""
    if not state.config.effective_prior.is_uniform or base is None:
        return None
    cells = _misses_on_kept(state, base, kept, posterior_key(base))
    if kept is None or cells is None or (drawing and not draws_alike(state, kept[1].tables)):
        return None
    if kept[1].nbytes + recount_bytes(kept[1], drawing) > budget:
        return None
    return Recount(kept[1], cells, drawing)


def recount_bytes(model: LayeredModel, drawing: bool) -> int:
    """What a :class:`Recount` of ``model`` allocates beside it: a forward count per state of every level while it
    counts, and a backward count per state of every level kept for its draws when ``drawing`` (else those of two
    levels at a time)."""
    sizes = [level.states for _, level in model.levels()]
    backward = sum(sizes) if drawing else 2 * max(sizes)
    return 8 * (sum(sizes) + backward) + 8 * model.tables.cell_count * (1 + 2 * len(model.tables.kinds))


def weighted_recount(
    state: GameState, base: GameState | None, kept: tuple[PosteriorKey, LayeredModel] | None, tracked: bool, flip: bool = False
) -> Weighted | None:
    """The weighted posterior of ``state`` read from ``kept`` (``base``'s model, swept with touching pairs counted
    when ``tracked``, every level kept) when ``state`` adds only a miss or two to ``base``: the transitions that
    cover a miss weigh 0, so the passes over the model weigh exactly the layouts left; ``models`` is the
    exact integer count of the paths left. Else None. Weighted figures are floats, equal to a sweep's to rounding.
    ``flip``: the misses transposed and the prior's vertical weight negated, for the transposed case of a
    self-transposed ``base`` (:func:`~battlelog.engines.native.turns.transposed_weighted` turns the result back)."""
    cells = None if base is None else _misses_on_kept(state, base, kept, model_key(base, tracked))
    if kept is None or cells is None:
        return None
    prior = state.config.effective_prior
    if flip:
        cells, prior = [(c, r) for r, c in cells], replace(prior, vertical=-prior.vertical)
    allowed = _allowed(kept[1].tables, cells)
    model = kept[1]  # every level kept (_misses_on_kept): read as kept, maybe without forward counts (layered._kept)
    paths = _paths_left([level for segment in model.segments for level in model.segment_levels(segment)], allowed)
    return MaskedWeigher(kept[1], prior, allowed, paths).weighted()


def _misses_on_kept(
    state: GameState, base: GameState, kept: tuple[PosteriorKey, LayeredModel] | None, key: PosteriorKey
) -> list[Cell] | None:
    """The misses ``state`` adds to ``base`` (:func:`added_misses`) when ``kept`` is the model of ``base`` under
    ``key`` with every level kept (what a recount reads again); else None."""
    if kept is None or kept[1].rebuilds or kept[0] != key:
        return None
    return added_misses(base, state)


def draws_alike(state: GameState, tables: SweepTables) -> bool:
    """Whether a model with ``tables`` draws as a sweep of ``state`` would: the same order and the same kinds
    (:class:`Recount`)."""
    return sweep_order(state) == tables.symmetry and [k.ships for k in kinds_of(ground_problem(state))] == [
        k.ships for k in tables.kinds
    ]


class Recount:
    """A kept model read again without the transitions that cover some misses: its counts, and draws from it.

    Draws walk the model as :meth:`LayeredModel.draw` does, over the transitions left. Every path of a
    model is a sequence of actions, one per swept cell, and a state's transitions are in the order of their
    actions; so where a sweep of the new state goes in the same order with the same kinds,
    the layouts before and after any state are the same in both models, as are their counts, and the same
    generator draws the same layouts from either (:func:`draws_alike`): draws stay what they were.
    """

    def __init__(self, model: LayeredModel, cells: list[Cell], drawing: bool) -> None:
        self.tables = model.tables
        self.allowed = _allowed(self.tables, cells)
        self.levels = [level for _, level in model.levels()]
        fwd = _forward_left(self.levels, self.allowed)
        self.paths = int(fwd[-1][0])
        with jit.quiet():
            out = np.zeros((self.tables.cell_count, self.allowed.shape[1] - 1), dtype=np.int64)
            bwd = [np.ones(1, dtype=np.int64)]  # after each level, last first; reversed below
            for j in range(len(self.levels) - 1, -1, -1):
                level = self.levels[j]
                run = jit.kernels(level.states)
                bwd.append(run.collect(bwd[-1], fwd[j], level.first, level.child, level.action, self.allowed[j], out[j]))
                fwd[j] = fwd[j][:0]  # read for the last time
                if not drawing:
                    del bwd[:-1]  # only draws read the others (recount_bytes)
        #: The backward counts before each level and after the last, when built for draws; else None.
        self.bwd: list[np.ndarray] | None = bwd[::-1] if drawing else None
        self.counts = Counts.of_uses(self.tables, out.T.reshape(len(self.tables.kinds), 2, self.tables.cell_count), self.paths)

    def draw(self, count: int, rng: Randomness) -> np.ndarray:
        """``count`` paths drawn uniformly among those left, as :meth:`LayeredModel.draw` draws them."""
        if self.paths == 0:
            raise BattlelogError("there is no layout to draw from")
        if self.bwd is None:
            raise RuntimeError("a recount built for counts only was asked for draws")
        at = np.zeros(count, dtype=np.int64)
        out = np.zeros((count, self.tables.cell_count), dtype=np.int8)
        with jit.quiet():
            for j, level in enumerate(self.levels):
                run = jit.kernels(level.states)
                draws = below(rng, self.bwd[j][at])
                taken = run.choose(self.bwd[j + 1], level.first, level.child, level.action, self.allowed[j], at, draws)
                out[:, j] = level.action[taken]
                at = level.child[taken].astype(np.int64)
        return out


def _forward_left(levels: list[Level], allowed: np.ndarray) -> list[np.ndarray]:
    """The forward counts before each level and after the last, over the transitions ``allowed`` (the last: the paths left)."""
    return [_root(), *_forward_steps(levels, allowed)]


def _paths_left(levels: list[Level], allowed: np.ndarray) -> int:
    """The number of paths over the transitions ``allowed``, holding two levels' forward counts at a time."""
    (last,) = deque(_forward_steps(levels, allowed), maxlen=1)
    return int(last[0])


def _forward_steps(levels: list[Level], allowed: np.ndarray) -> Iterator[np.ndarray]:
    """The forward counts after each level in turn, over the transitions ``allowed``."""
    fwd = _root()
    with jit.quiet():
        for j, level in enumerate(levels):
            following = levels[j + 1].states if j + 1 < len(levels) else 1
            fwd = jit.kernels(level.states).forward_allowed(fwd, level.first, level.child, level.action, allowed[j], following)
            yield fwd


def _root() -> np.ndarray:
    """The forward counts before a model's first level: its one root state, reached one way."""
    return np.ones(1, dtype=np.int64)


def _allowed(tables: SweepTables, cells: list[Cell]) -> np.ndarray:
    """``allowed[j, a]``: whether action ``a`` at swept cell j covers none of ``cells`` (action 0 starts no ship)."""
    allowed = np.ones((tables.cell_count, 1 + 2 * len(tables.kinds)), dtype=np.bool_)
    targets = np.array([row * tables.problem.cols + col for row, col in cells])
    for k in range(len(tables.kinds)):
        for orientation in (HORIZONTAL, VERTICAL):
            covered = tables.covered_cells(k, orientation)  # original cell of the t-th cell of each swept start
            allowed[np.isin(covered, targets).any(axis=0), 1 + 2 * k + orientation] = False
    return allowed
