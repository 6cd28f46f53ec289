"""A kept model counted again for a state that only adds misses to its own: a few times cheaper than a sweep.

A miss rules out the layouts that cover its cell: the placements that cover it, which are transitions
of known actions at known levels of the model of the state before it. Counting that model's paths over
the transitions left (one pass forward, one back; no keys, no hashing) gives exactly the integer counts
that a sweep of the new state gives, so every figure the engine reports stays the same bit for bit. The
model is not changed, nor kept as the new state's: a draw from the new state still comes from a model
of its own, so that draws stay what they were (and an engine that draws does not count again at all:
the sweep a draw needs answers the counts too).

Each miss adds dead paths to the old model while a sweep of the new state prunes them, so past
:data:`MOST_MISSES` misses a sweep is cheaper again (docs/speed.md).
"""

from __future__ import annotations

import numpy as np

from battlelog.engines.native import jit
from battlelog.engines.native.counts import Counts
from battlelog.engines.native.layered import LayeredModel
from battlelog.engines.native.tables import HORIZONTAL, VERTICAL, SweepTables
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


def miss_base(state: GameState, bases: list[tuple[GameState, LayeredModel]]) -> tuple[LayeredModel, list[Cell]] | None:
    """The first of ``bases`` (a state and the model built for it) whose levels are all kept and to whose state
    ``state`` adds only misses (:func:`added_misses`), with those misses; None under a prior other than the uniform one."""
    if not state.config.effective_prior.is_uniform:
        return None
    for base, model in bases:
        if not model.rebuilds and (cells := added_misses(base, state)) is not None:
            return model, cells
    return None


def counts_with_misses(model: LayeredModel, cells: list[Cell]) -> Counts:
    """The counts of the layouts of ``model`` that cover none of ``cells`` (a model whose levels are all kept)."""
    tables = model.tables
    allowed = _allowed(tables, cells)
    levels = [level for _, level in model.levels()]
    fwd = [levels[0].fwd]
    with jit.quiet():
        for j, level in enumerate(levels):
            following = len(levels[j + 1].fwd) if j + 1 < len(levels) else 1
            run = jit.kernels(len(level.fwd))
            fwd.append(run.forward_allowed(fwd[j], level.first, level.child, level.action, allowed[j], following))
        paths = int(fwd[-1][0])
        out = np.zeros((tables.cell_count, allowed.shape[1] - 1), dtype=np.int64)
        bwd = np.ones(1, dtype=np.int64)
        for j in range(len(levels) - 1, -1, -1):
            level = levels[j]
            bwd = jit.kernels(len(level.fwd)).collect_allowed(bwd, fwd[j], level.first, level.child, level.action, allowed[j], out[j])
    uses = out.T.reshape(len(tables.kinds), 2, tables.cell_count)
    return Counts.of_uses(tables, uses, paths)


def _allowed(tables: SweepTables, cells: list[Cell]) -> np.ndarray:
    """``allowed[j, a]``: whether action ``a`` at swept cell j covers none of ``cells`` (action 0 starts no ship)."""
    allowed = np.ones((tables.cell_count, 1 + 2 * len(tables.kinds)), dtype=np.bool_)
    targets = np.array([row * tables.problem.cols + col for row, col in cells])
    for k in range(len(tables.kinds)):
        for orientation in (HORIZONTAL, VERTICAL):
            covered = tables.covered_cells(k, orientation)  # original cell of the t-th cell of each swept start
            allowed[np.isin(covered, targets).any(axis=0), 1 + 2 * k + orientation] = False
    return allowed
