"""A prior over layouts on the layered model: weighted marginals, feature expectations, log partition, draws.

The prior weighs a layout by exp(theta . f) with f = (edge, vertical, touch)
(:mod:`battlelog.rules.prior`). Each feature is a sum over the model's transitions, so a layout's
weight is the product of its transitions' weights:

- ``edge`` and ``vertical`` belong to a placement, so to the transition that starts it: its ring cells
  (the ring is the same on the board and on its swept image) and whether it is vertical on the board
  (on the image it is vertical exactly when it is horizontal, if the sweep's symmetry transposes);
- ``touch`` pairs are counted at the later of their two cells (``Level.touching``, read from the
  occupancy profile the sweep keeps for them: :mod:`battlelog.engines.native.weight_kernel`).

The integer sweep is unchanged (its ``models`` stays the exact number of layouts); one float64 pass
forward and one back over its levels give every placement's weighted share, as the integer
``uses`` does for counts. Each level's values are divided by their largest and the logarithms of
those scales are added up apart, so a 15x15 board under a strong prior neither overflows nor
underflows; a transition's share is then a product of numbers at most 1 times exp of a sum of logs.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass

import numpy as np

from battlelog.engines.base import Marginals
from battlelog.engines.native import jit, passes
from battlelog.engines.native.layered import LayeredModel, Level
from battlelog.engines.native.streams import Randomness, uniform
from battlelog.engines.native.tables import TRACKED, VERTICAL, SweepTables
from battlelog.errors import Inconsistent
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState
from battlelog.rules.variants import ALLOWED

_NO_PAIRS = np.zeros(0, dtype=np.int8)


@dataclass(frozen=True)
class Weighted:
    """The weighted posterior of a problem: its layouts (``models``, unweighted, exact), the log of the sum
    of their weights, and per cell, per ship placement and per feature the weighted probability or mean."""

    models: int
    log_z: float
    cells: np.ndarray  # float64 (rows, cols)
    placements: tuple[np.ndarray, ...]  # per ship, over its canonical placements
    features: np.ndarray  # float64 (3,): E[edge], E[vertical], E[touch]

    def __add__(self, other: Weighted) -> Weighted:
        """The posterior of two problems that share no layout (the cases of a split), mixed by their weights."""
        if other.models == 0:
            return self
        if self.models == 0:
            return other
        top = max(self.log_z, other.log_z)
        a, b = math.exp(self.log_z - top), math.exp(other.log_z - top)
        a, b, log_z = a / (a + b), b / (a + b), top + math.log(a + b)
        return Weighted(
            self.models + other.models, log_z, a * self.cells + b * other.cells,
            tuple(a * x + b * y for x, y in zip(self.placements, other.placements)), a * self.features + b * other.features,
        )  # fmt: skip

    def marginals(self) -> Marginals:
        return Marginals(self.cells, self.models, self.placements)


def placement_log_weights(tables: SweepTables, prior: Prior) -> np.ndarray:
    """``out[a, j]``: theta's edge and vertical terms of the placement that action a starts at swept cell j
    (row 0, no start, is 0)."""
    ring = tables_ring(tables).ravel()
    out = np.zeros((1 + 2 * len(tables.kinds), tables.cell_count))
    for k, kind in enumerate(tables.kinds):
        for orientation in (0, VERTICAL):
            covered = tables.covered_cells(k, orientation)  # original cells, -1 where it does not fit
            fits = covered[0] >= 0
            edge = np.where(covered >= 0, ring[np.maximum(covered, 0)], 0).sum(axis=0)
            vertical = kind.length >= 2 and ((orientation == VERTICAL) != tables.symmetry.transpose)
            out[1 + 2 * k + orientation] = np.where(fits, prior.edge * edge + prior.vertical * vertical, 0.0)
    return out


class Weigher:
    """One model under one prior: every level's transition weights, the passes, and what draws read."""

    def __init__(self, model: LayeredModel, prior: Prior) -> None:
        self._model = weakref.ref(model)  # not a strong reference: :func:`weigher` keeps weighers by weak model keys
        self.prior = prior
        self.base = placement_log_weights(model.tables, prior)
        self.touch = prior.touch if model.tables.touch == TRACKED else 0.0
        self._ends: list[np.ndarray] | None = None
        self._log_weight = 0.0

    @property
    def model(self) -> LayeredModel:
        model = self._model()
        if model is None:
            raise ReferenceError("the layered model of this weigher is gone")
        return model

    @property
    def paths(self) -> int:
        """The model's paths this weigher weighs (one per layout up to naming interchangeable ships)."""
        return self.model.paths

    def weights(self, level: Level, j: int) -> tuple[np.ndarray, float, np.ndarray]:
        """Level j's weights as the kernel reads them: ``table[3 * action + pairs]`` divided by its largest,
        the log of that largest, and the transitions' touching pairs (empty when the sweep did not count them)."""
        log_table = self.base[:, j, None] + self.touch * np.arange(3.0)[None, :]
        top = float(log_table.max())
        return np.exp(log_table - top).ravel(), top, _NO_PAIRS if level.touching is None else level.touching

    def weighted(self) -> Weighted:
        """The weighted posterior of the model's problem (ships named, interchangeable ones alike)."""
        (out,) = weighed_together([self])
        return out

    def draw(self, count: int, rng: Randomness) -> np.ndarray:
        """``count`` paths drawn independently with probability proportional to their weights (``out[i, j]``:
        the action of path i at cell j), walking forward through each segment's weighted backward values."""
        model = self.model
        if model.paths == 0:
            raise Inconsistent("no layout of the fleet fits all the answers")
        ends = self._segment_ends()
        at = np.zeros(count, dtype=np.int64)
        out = np.zeros((count, model.tables.cell_count), dtype=np.int8)
        for segment, end in zip(model.segments, ends):
            levels = model.segment_levels(segment)
            through, _ = self._backward_through(levels, segment.start, end)
            for offset, level in enumerate(levels):
                table, _, pairs = self.weights(level, segment.start + offset)
                run = jit.weight_kernels(level.states)
                taken = run.choose(
                    through[offset + 1], level.first, level.child, level.action, pairs, table, at, uniform(rng, count)
                )
                out[:, segment.start + offset] = level.action[taken]
                at = level.child[taken].astype(np.int64)
        return out

    def _backward_through(self, levels: list[Level], start: int, end: np.ndarray) -> tuple[list[np.ndarray], float]:
        """Scaled weighted backward values before every level of a segment and after it, from those after it,
        and the log of the scale the first of them was divided by (relative to ``end``'s)."""
        out, log = [end], 0.0
        tally = np.zeros(2 * len(self.model.tables.kinds) + 1)  # backward's per-placement shares, not needed here
        for offset in range(len(levels) - 1, -1, -1):
            level = levels[offset]
            table, top, pairs = self.weights(level, start + offset)
            ignored = np.zeros(level.states)
            here = jit.weight_kernels(level.states).backward(
                out[-1], ignored, level.first, level.child, level.action, pairs, table, tally
            )
            scale = float(here.max())
            out.append(here / scale)
            log += top + math.log(scale)
        out.reverse()
        return out, log

    def log_weight(self) -> float:
        """log of the sum of the weights of the model's paths (one per layout up to naming interchangeable ships)."""
        self._segment_ends()
        return self._log_weight

    def _segment_ends(self) -> list[np.ndarray]:
        """The scaled backward values after each segment (the last: the final state), computed once."""
        if self._ends is None:
            ends, log = [np.ones(1)], 0.0
            for index in range(len(self.model.segments) - 1, -1, -1):
                segment = self.model.segments[index]
                before, scale = self._backward_through(self.model.segment_levels(segment), segment.start, ends[-1])
                ends.append(before[0])
                log += scale
            self._log_weight = log + math.log(float(ends[-1][0]))
            self._ends = ends[-2::-1]  # after each segment, first to last
        return self._ends


class MaskedWeigher(Weigher):
    """A model's weigher with some actions ruled out at each level (``allowed[j, a]`` False: weight 0), of which
    ``paths`` paths are left: a kept model read for a state that adds a miss or two (:mod:`~.misses`)."""

    def __init__(self, model: LayeredModel, prior: Prior, allowed: np.ndarray, paths: int) -> None:
        super().__init__(model, prior)
        self.allowed, self._paths = allowed, paths

    @property
    def paths(self) -> int:
        return self._paths

    def weights(self, level: Level, j: int) -> tuple[np.ndarray, float, np.ndarray]:
        table, top, pairs = super().weights(level, j)
        return (table.reshape(-1, 3) * self.allowed[j][:, None]).ravel(), top, pairs


def weighed_together(weighers: list[Weigher]) -> list[Weighted]:
    """The weighted posteriors of one model under one or two priors (``weighers``, of the same model and paths), read
    in one forward and one backward pass: two priors share every read of the levels (the kernels' ``*_pair``: on the
    widest level of the touch weight's empty 10x10 board about 1.3 times one pass, not 2), with the same sums in the same
    order (the same floats).

    The forward values before each level are kept for the backward pass within :data:`~.passes.FORWARD_BYTES` (those of
    the last segments, which it reads first) and computed again from their segment's start for the others, as for a
    model that rebuilds its segments (which keeps none)."""
    model, tables = weighers[0].model, weighers[0].model.tables
    if weighers[0].paths == 0:
        return [_none(tables) for _ in weighers]
    weights: list[passes.Weights] = [weigher.weights for weigher in weighers]
    keep = passes.kept_segments(model, len(weighers))
    starts: list[passes.Values] = [[(np.ones(1), 0.0) for _ in weighers]]
    kept: dict[int, list[passes.Values]] = {}
    for index, segment in enumerate(model.segments):  # forward: every segment start, and the log partition
        values = passes.forward(weights, model.segment_levels(segment), segment.start, starts[-1], index in keep)
        starts.append(values[-1])
        if index in keep:
            kept[index] = values
        del values
    log_z = [log + math.log(float(values[0])) for values, log in starts.pop()]
    uses = [np.zeros((2 * len(tables.kinds) + 1, tables.cell_count)) for _ in weighers]
    bwd: passes.Values = [(np.ones(1), 0.0) for _ in weighers]
    for index in range(len(model.segments) - 1, -1, -1):
        segment = model.segments[index]
        levels = model.segment_levels(segment)
        start = starts.pop()  # this segment's, read for the last time
        values = kept.pop(index) if index in kept else passes.forward(weights, levels, segment.start, start)
        del start
        values.pop()  # the values after the segment: the next one's start
        for offset in range(len(levels) - 1, -1, -1):
            bwd = passes.backward(weights, levels[offset], segment.start + offset, values.pop(), bwd, log_z, uses)
        del values, levels
    ring = tables_ring(tables)
    return [
        _read(tables, used, weigher.paths * tables.multiplicity, log + math.log(tables.multiplicity), ring)
        for weigher, used, log in zip(weighers, uses, log_z)
    ]


_WEIGHERS: weakref.WeakKeyDictionary[LayeredModel, dict[Prior, Weigher]] = weakref.WeakKeyDictionary()


def weigher(model: LayeredModel, prior: Prior) -> Weigher:
    """The model's weigher under ``prior``, kept as long as the model is (and no longer: a weigher holds its
    model weakly), so that draw after draw from one model computes its backward values once."""
    by_prior = _WEIGHERS.setdefault(model, {})
    if prior not in by_prior:
        by_prior[prior] = Weigher(model, prior)
    return by_prior[prior]


def tables_ring(tables: SweepTables) -> np.ndarray:
    """The board's outer ring as a 0/1 (rows, cols) array."""
    ring = np.zeros((tables.problem.rows, tables.problem.cols))
    ring[0, :] = ring[-1, :] = ring[:, 0] = ring[:, -1] = 1
    return ring


def _read(tables: SweepTables, uses: np.ndarray, models: int, log_z: float, ring: np.ndarray) -> Weighted:
    """Per-(action, swept cell) weighted shares (last row: touching pairs) read back onto the board, per ship."""
    rows, cols = tables.problem.rows, tables.problem.cols
    cells = np.zeros(rows * cols)
    vertical = 0.0
    for k, kind in enumerate(tables.kinds):
        for orientation in (0, VERTICAL):
            share = uses[2 * k + orientation]
            for row in tables.covered_cells(k, orientation):
                fits = row >= 0
                np.add.at(cells, row[fits], share[fits])
            if kind.length >= 2 and ((orientation == VERTICAL) != tables.symmetry.transpose):
                vertical += float(share.sum())
    placements = []
    for ship in range(len(tables.problem.ships)):
        k = tables.kind_of(ship)
        orientations, starts = tables.placement_index(ship)
        placements.append(uses[2 * k + orientations, starts] / len(tables.kinds[k].ships))
    board = cells.reshape(rows, cols)
    features = np.array([float((board * ring).sum()), vertical, float(uses[-1].sum())])
    return Weighted(models, log_z, board, tuple(placements), features)


def _none(tables: SweepTables) -> Weighted:
    """The weighted posterior of a problem with no layout."""
    rows, cols = tables.problem.rows, tables.problem.cols
    placements = tuple(np.zeros(len(tables.placement_index(ship)[0])) for ship in range(len(tables.problem.ships)))
    return Weighted(0, -math.inf, np.zeros((rows, cols)), placements, np.zeros(3))


def tracks_touching(state: GameState, asked: bool = False) -> bool:
    """Whether a model of ``state`` must count touching pairs: when asked (for E[touch]) or when its prior
    weighs them, and only where ships may meet along a side (elsewhere there are none to count)."""
    return (asked or bool(state.config.effective_prior.touch)) and state.config.rules.touch == ALLOWED
