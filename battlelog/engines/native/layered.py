"""The compiled model: a layered graph of frontier states, built by a forward sweep, read by a backward one.

Level j holds the distinct frontier states before swept cell j; each transition out of a state
either starts no ship at cell j or starts one ship of some kind in some orientation. Every path
from the single state before the first cell to the single state after the last one is one layout
(counted once per kind, not per ship name), and no two paths give the same layout. Read over the
placement variables, the graph is a deterministic, decomposable decision diagram of the ground
model: the model compiled (:mod:`battlelog.engines.native.export` writes it out as an SDD).

- forward counts (``fwd``): the ways to reach each state; the last level's one state counts the layouts;
- backward counts: the ways to finish the board from each state;
- a transition's ``fwd x bwd`` counts the layouts that take it, so one backward pass gives, for every
  kind, orientation and start cell, the layouts with such a ship there: every placement's posterior.

Memory. The levels are grouped into segments of at most about sqrt(cells) levels, and the states
at the start of each segment are always kept. While the whole graph fits the budget every level is
kept too; when it would not, the sweep drops the levels it has built and goes on keeping only the
segment starts, and reading the model rebuilds one segment at a time from its start (a second
forward pass, the same states in the same order). The graph then needs the segment starts plus
one segment, instead of every level; a segment whose levels would not fit is ended early.

When even that would not fit, the sweep keeps fewer segment starts (:func:`_thin`: merging the two
segments with the fewest states between them) and the model is read in pieces of one or a few levels
whose starts are recomputed from the nearest start held before them (:meth:`LayeredModel._start_of`),
as in checkpointed reverse-mode differentiation: read backward, each start is dropped once passed and
a recomputation keeps, while the budget has room, the starts that halve the work left towards the
piece it is for. Reading forward needs no start (each piece begins where the last one ended). The
levels are the first pass's, so counts and draws are exactly those of the model that keeps them all;
the price is time (each level swept again about as many times as the halvings it falls under). A
level that does not fit even with the first start alone held is refused with
:class:`~battlelog.errors.FrontierTooWide`, which the engine does not split.

Counts are exact 64-bit integers: a level whose forward counts could overflow stops the sweep with
a one-line error instead of wrapping around.
"""

from __future__ import annotations

import ctypes
import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from battlelog.engines.budget import readable
from battlelog.engines.native import jit, packed
from battlelog.engines.native.packed import PackedLevel
from battlelog.engines.native.streams import Randomness, below
from battlelog.engines.native.tables import TRACKED, SweepTables
from battlelog.errors import BattlelogError, BudgetExceeded, FrontierTooWide

#: Forward counts stay below this, so that no sum of them can wrap around a signed 64-bit integer.
COUNT_LIMIT = float(2**62)
#: Working bytes per possible transition while a level is expanded whole (key, action, child index).
_AT_ONCE_BYTES = 8 + 1 + 4
#: Working bytes per transition while a level is expanded a slice at a time (action, child index).
_WORK_BYTES = 1 + 4
#: Working bytes per next-level state the merge has room for (key, forward count, two hash slots).
_STATE_BYTES = 8 + 8 + 2 * 4
#: States expanded and merged at a time (their child keys are held in a scratch buffer).
_SLICE = 1 << 14
#: glibc's mallopt parameter: the size from which a block is its own mapping, returned when freed.
_M_MMAP_THRESHOLD = -3
#: States expanded at a time when a level's transitions are counted before it is allocated.
_COUNT_SLICE = 1 << 16
#: Whether a sweep whose segment starts would not fit keeps fewer and recomputes the others (else it
#: raises, and the engine splits the problem): tests turn it off to exercise splitting.
RECOMPUTE = True
#: Whether levels that are not kept are packed where the budget has room (:mod:`~battlelog.engines.native.packed`),
#: so that reading the model unpacks them instead of sweeping again: tests turn it off to exercise rebuilding.
PACK = True
#: Whether a sweep that keeps the occupancy profile for a touch weight drops from its states' profiles the cells no later
#: transition reads once every ship is placed (:func:`weight_kernel.settle <battlelog.engines.native.weight_kernel.settle>`),
#: so that they merge: tests turn it off to compare with the profile kept whole.
SETTLE = True

SweepProgress = Callable[[float], None]


@dataclass(frozen=True)
class Level:
    """The states before one cell: their forward counts and their transitions (CSR: ``first[s]`` to ``first[s + 1]``)."""

    #: int64, one per state; None in the levels a touch weight's model keeps (:func:`_kept`), which only counting reads:
    #: :meth:`LayeredModel.levels` gives them back from the segment start (:func:`_counted`).
    fwd: np.ndarray | None
    first: np.ndarray  # int32, one per state and one more
    child: np.ndarray  # int32, the next level's state each transition leads to
    action: np.ndarray  # int8, 0 or 1 + 2 * kind + orientation
    #: int8, the touching pairs each transition completes: only when the sweep keeps the occupancy
    #: profile for a prior's touch weight (``tables.touch == TRACKED``), else None.
    touching: np.ndarray | None = None

    @property
    def states(self) -> int:
        return len(self.first) - 1

    @property
    def counts(self) -> np.ndarray:
        """The forward counts, which a level read through :meth:`LayeredModel.levels` always has."""
        if self.fwd is None:
            raise AssertionError("a level kept without its forward counts was read for them (read it through levels())")
        return self.fwd

    @property
    def nbytes(self) -> int:
        extra = 0 if self.touching is None else self.touching.nbytes
        own = 0 if self.fwd is None else self.fwd.nbytes
        return own + self.first.nbytes + self.child.nbytes + self.action.nbytes + extra


@dataclass(frozen=True)
class LevelSize:
    """One level's measured size, from which a recomputed model plans what it keeps."""

    states: int
    nbytes: int
    #: The most working memory building it again needs (the leaner way), its own arrays included.
    work: int
    next_states: int


@dataclass
class Segment:
    """Levels ``start`` to ``stop - 1``: the states at ``start`` (always kept; their keys only while the segment may be
    swept again, not once its levels are kept or packed), and the levels when kept."""

    start: int
    stop: int
    keys: np.ndarray
    fwd: np.ndarray
    levels: list[Level] | None = field(default=None)
    #: The most memory rebuilding it needs beyond the segment starts: its levels so far and one level's work.
    rebuild: int = 0
    #: False for a piece of a recomputed model whose start is not kept (``keys`` empty): see :func:`_pieces`.
    held: bool = True
    #: Its levels packed (:mod:`~battlelog.engines.native.packed`), when they are not kept: read back
    #: without sweeping again once they are all there. None: not packed (rebuilt from its start).
    packed: list[PackedLevel] | None = None

    @property
    def nbytes(self) -> int:
        levels = sum(level.nbytes for level in self.levels or ()) + sum(level.nbytes for level in self.packed or ())
        return self.keys.nbytes + self.fwd.nbytes + levels

    @property
    def unpacks(self) -> bool:
        """True when every level of the segment is packed, so that reading it sweeps nothing again."""
        return self.packed is not None and len(self.packed) == self.stop - self.start


class LayeredModel:
    """The forward sweep of a problem: its segments, and the number of (counted) layouts."""

    def __init__(
        self, tables: SweepTables, segments: list[Segment], paths: int, peak: int, budget: int,
        sizes: list[LevelSize] | None = None,
    ) -> None:
        self.tables = tables
        self.segments = segments
        #: Layouts with interchangeable ships not told apart (multiply by ``tables.multiplicity`` for all).
        self.paths = paths
        #: The most memory the sweep needed at once (the graph so far and one level's working arrays).
        self.peak = peak
        self.budget = budget
        #: What draws read, computed on the first: see :meth:`_backward`.
        self._drawing: tuple[list[np.ndarray], dict[int, list[np.ndarray]]] | None = None
        #: Each level's measured size, when segment starts are not all kept (the model recomputes them).
        self.sizes = sizes
        #: Starts recomputed on the way back and kept while the budget has room, by level.
        self._temps: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        #: The states after the piece last rebuilt (the next piece's start when reading forward).
        self._after: tuple[int, np.ndarray, np.ndarray] | None = None
        #: Where the piece last rebuilt ended: a piece starting there is read forward.
        self._last_stop = -1
        #: The most starts recomputed and kept at once (the depth of the halving; 0 without recomputation).
        self.most_temps = 0
        #: The segment starts the sweep kept and :meth:`release_starts` holds as recomputed ones.
        self._released: set[int] = set()
        #: Levels advanced again to recompute starts that were not kept.
        self.resweeps = 0

    @property
    def rebuilds(self) -> bool:
        """True when the levels were not all kept, so that reading the model sweeps again."""
        return any(segment.levels is None for segment in self.segments)

    @property
    def nbytes(self) -> int:
        return sum(segment.nbytes for segment in self.segments)

    def levels(self) -> Iterator[tuple[int, Level]]:
        """Every level with its index, first to last (rebuilding segments that were not kept)."""
        for segment in self.segments:
            for offset, level in enumerate(self._levels_of(segment)):
                yield segment.start + offset, level

    def segment_levels(self, segment: Segment) -> list[Level]:
        """One segment's levels, kept or rebuilt, for passes that walk the segments in their own order and read no
        forward counts (the weighted ones): kept levels come as they are, maybe without them (:func:`_kept`)."""
        return segment.levels if segment.levels is not None else self._levels_of(segment)

    def uses(self, progress: SweepProgress | None = None) -> np.ndarray:
        """``out[k, o, j]``: counted layouts in which a ship of kind k starts at swept cell j in orientation o."""
        tables = self.tables
        out = np.zeros((tables.cell_count, 2 * len(tables.kinds)), dtype=np.int64)
        bwd = np.ones(1, dtype=np.int64) if self.paths else np.zeros(1, dtype=np.int64)
        every = every_action(len(tables.kinds))
        with jit.quiet():
            for done, segment in enumerate(reversed(self.segments)):
                if segment.levels is None and segment.unpacks and segment.held:  # read from its packed levels
                    bwd = _collect_packed(segment, bwd, out)
                else:
                    levels = self._levels_of(segment)
                    for j in range(segment.stop - 1, segment.start - 1, -1):
                        level = levels[j - segment.start]
                        bwd = jit.kernels(level.states).collect(
                            bwd, level.counts, level.first, level.child, level.action, every, out[j]
                        )
                    del level
                    levels = []  # dropped before the next segment is rebuilt: one segment's levels at a time
                if progress is not None and self.rebuilds:
                    progress((done + 1) / len(self.segments))
        uses: np.ndarray = out.T.reshape(len(tables.kinds), 2, tables.cell_count)
        return uses

    def draw(self, count: int, rng: Randomness) -> np.ndarray:
        """``count`` paths drawn uniformly among all paths: ``out[i, j]`` is the action path i takes at
        cell j. At every state a walker takes each transition with probability proportional to the ways
        to finish the board through it, drawn with exact integer arithmetic (``rng``: streams.py)."""
        if self.paths == 0:
            raise BattlelogError("there is no layout to draw from")
        ends, kept = self._backward()
        at = np.zeros(count, dtype=np.int64)
        out = np.zeros((count, self.tables.cell_count), dtype=np.int8)
        every = every_action(len(self.tables.kinds))
        with jit.quiet():
            for index, (segment, end) in enumerate(zip(self.segments, ends)):
                levels = self._levels_of(segment)
                bwd = kept[index] if index in kept else _backward_through(levels, end, len(self.tables.kinds))
                for offset, level in enumerate(levels):
                    run = jit.kernels(level.states)
                    taken = run.choose(
                        bwd[offset + 1], level.first, level.child, level.action, every, at, below(rng, bwd[offset][at])
                    )
                    out[:, segment.start + offset] = level.action[taken]
                    at = level.child[taken].astype(np.int64)
                levels, bwd = [], []  # dropped before the next segment is rebuilt
        return out

    # ----- internals ----------------------------------------------------------------------------------
    def _backward(self) -> tuple[list[np.ndarray], dict[int, list[np.ndarray]]]:
        """The backward counts after each segment (the last one's: the final state) and, by segment, every
        level's where the segment is kept and the budget has room (8 bytes a state): computed on the
        first draw, so that board after board drawn from one model walks forward only (the same draws)."""
        if self._drawing is None:
            ends, kept, held = [np.ones(1, dtype=np.int64)], {}, self.nbytes
            with jit.quiet():
                for index in range(len(self.segments) - 1, -1, -1):
                    segment = self.segments[index]
                    through = _backward_through(self._levels_of(segment), ends[-1], len(self.tables.kinds))
                    size = sum(b.nbytes for b in through)
                    if segment.levels is not None and held + size <= self.budget:
                        kept[index] = through
                        held += size
                    if index > 0:
                        ends.append(through[0])
            ends.reverse()
            self._drawing = (ends, kept)
        return self._drawing

    def _levels_of(self, segment: Segment) -> list[Level]:
        """The segment's levels with their forward counts: kept (counted again from the segment start when kept
        without them), or rebuilt from its start (the same states, in the same order)."""
        if segment.levels is not None:
            return _counted(segment.levels, segment.fwd, len(self.tables.kinds))
        if segment.unpacks and segment.held:
            return _unpacked(segment)
        levels: list[Level] = []
        with jit.quiet():
            keys, fwd = segment.keys, segment.fwd
            if not segment.held:
                keys, fwd = self._start_of(segment.start)
            held = self.nbytes + self._temp_bytes() + (0 if segment.held else fwd.nbytes)  # its keys: in the level's work
            for j in range(segment.start, segment.stop):
                distinct = None if self.sizes is None else self.sizes[j].next_states
                level, keys, fwd, _ = _advance(self.tables, keys, fwd, j, self.budget, held, distinct)
                levels.append(level)
                held += level.nbytes
        if self.sizes is not None and segment.start in (0, self._last_stop):  # read forward: keep where it ended
            self._after = (segment.stop, keys, fwd)
        self._last_stop = segment.stop
        return levels

    def release_starts(self) -> None:
        """Hold the segment starts after the first as recomputed ones: read backward, each is dropped
        once passed, and its room goes to starts that halve the segments before it. Reading forward
        needs none of them (each piece starts where the last one ended)."""
        for segment in self.segments[1:]:
            if segment.held:
                self._temps[segment.start] = (segment.keys, segment.fwd)
                segment.keys, segment.fwd = np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
                segment.held = False
                self._released.add(segment.start)

    def _temp_bytes(self) -> int:
        return sum(keys.nbytes + fwd.nbytes for keys, fwd in self._temps.values())

    def _start_of(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """The states before level j, a piece's start that is not kept: the states after the piece read
        last (reading forward), a start kept on the way back, or recomputed from the nearest kept start
        before it. Recomputing keeps, where the budget has room, the starts that halve the remaining work
        towards j (as in checkpointed reverse-mode differentiation): read backward, every level is then
        swept again about log2 of the levels between kept starts times, not their number."""
        after, self._after = self._after, None
        if after is not None and after[0] == j:
            return after[1], after[2]
        del after
        for t in [t for t in self._temps if t > j]:  # behind the walk back: never read again
            del self._temps[t]
        if j in self._temps:
            return self._temps.pop(j)
        sizes = self.sizes
        assert sizes is not None  # only a recomputed model has pieces whose start is not kept
        kept = {segment.start: (segment.keys, segment.fwd) for segment in self.segments if segment.held and segment.start <= j}
        c = max(set(kept) | set(self._temps))
        end = next(segment.stop for segment in self.segments if segment.start == j)
        need = max([_piece_need(sizes, j, end)] + [8 * sizes[i].states + sizes[i].work for i in range(c, j)])
        for t in sorted(self._temps):  # make room for this piece, the farthest back first
            if t == c or self.nbytes + self._temp_bytes() + need <= self.budget:
                break
            del self._temps[t]
        keys, fwd = kept[c] if c in kept else self._temps[c]
        targets = _halvings(sizes, c, j, {segment.start for segment in self.segments})
        for i in range(c, j):
            held = self.nbytes + self._temp_bytes() + (0 if i in self._temps or i in kept else fwd.nbytes)
            level, keys, fwd, _ = _advance(self.tables, keys, fwd, i, self.budget, held, sizes[i].next_states)
            del level  # not held while the next level is built
            self.resweeps += 1
            if i + 1 in targets and self.nbytes + self._temp_bytes() + keys.nbytes + fwd.nbytes + need <= self.budget:
                self._temps[i + 1] = (keys, fwd)
                self.most_temps = max(self.most_temps, len(self._temps.keys() - self._released))
        return keys, fwd


def _kept(tables: SweepTables, level: Level) -> Level:
    """A level as the model keeps it: a touch weight's without its forward counts (8 bytes a state, a third of the
    empty 10x10 board's model), which no weighing reads and :func:`_counted` gives back to the counting that does."""
    return replace(level, fwd=None) if tables.touch == TRACKED else level


def _counted(levels: list[Level], fwd: np.ndarray, kinds: int) -> list[Level]:
    """``levels`` with their forward counts, those missing counted again from ``fwd``, the counts before the first
    (the merge's sums, in another order: the same integers)."""
    if all(level.fwd is not None for level in levels):
        return levels
    out: list[Level] = []
    every = every_action(kinds)
    with jit.quiet():
        for level in levels:
            out.append(replace(level, fwd=fwd))
            following = int(level.child.max()) + 1 if len(level.child) else 0  # every next state is some transition's child
            fwd = jit.kernels(level.states).forward_allowed(fwd, level.first, level.child, level.action, every, following)
    return out


def _unpacked(segment: Segment) -> list[Level]:
    """A segment's levels from their packed form and its start's forward counts: the levels a rebuild gives."""
    levels: list[Level] = []
    fwd = segment.fwd
    for level in segment.packed or ():
        first, child, action, next_fwd = packed.unpack(level, fwd)
        levels.append(Level(fwd, first, child, action))
        fwd = next_fwd
    return levels


def _collect_packed(segment: Segment, bwd: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The backward counts before a segment read from its packed levels, from those after it, adding each
    level's placements to ``out`` (as ``uses`` does from a segment's levels): the levels' arrays are never
    written, only their forward counts (8 bytes a state, where the levels take 12 and 5 a transition)."""
    levels = segment.packed or []
    fwds = [segment.fwd]
    for level in levels[:-1]:
        fwds.append(packed.forward(level, fwds[-1]))
    for offset in range(len(levels) - 1, -1, -1):
        bwd = packed.collect(levels[offset], fwds.pop(), bwd, out[segment.start + offset])
    return bwd


def _pack_levels(tables: SweepTables, segments: list[Segment], budget: int, after: int) -> None:
    """Pack the kept levels of every segment (the sweep stops keeping them): each segment's levels are
    dropped once packed, or left to be rebuilt when one of them cannot be packed within ``budget``.
    ``after``: the states after the last level kept."""
    sizes = [level.states for segment in segments for level in segment.levels or ()][1:] + [after]
    i = 0
    for segment in segments:
        levels, segment.levels = segment.levels or [], None
        segment.packed = [] if PACK and tables.touch != TRACKED else None
        for level in levels:
            _pack_into(
                segment, level, sizes[i], len(tables.kinds), budget,
                sum(s.nbytes for s in segments) + sum(lv.nbytes for lv in levels),
            )
            i += 1
        del levels


def _pack_into(segment: Segment, level: Level, next_states: int, kinds: int, budget: int, held: int) -> None:
    """Add ``level`` packed to ``segment``'s packed levels when it can be packed within ``budget`` with
    ``held`` bytes held; else the segment is not packed (it is rebuilt from its start when read)."""
    if segment.packed is None:
        return
    _return_freed_memory()  # packed levels live long among short-lived arrays: no fragmented heap
    one = None
    if held + packed.packed_bytes(level.states, len(level.child), next_states) <= budget:
        one = packed.pack(level.first, level.child, level.action, next_states, kinds)
    if one is None:
        segment.packed = None
    else:
        segment.packed.append(one)


def _unpack_last(segments: list[Segment]) -> bool:
    """Drop the packed levels of the last segment that has any (it is then rebuilt when read); False when none has."""
    for segment in reversed(segments):
        if segment.packed:
            segment.packed = None
            return True
    return False


def every_action(kinds: int) -> np.ndarray:
    """The mask of :func:`kernel.collect <battlelog.engines.native.kernel.collect>` and ``choose`` that allows every
    transition of a sweep of ``kinds`` kinds of ship (action 0, no placement, and two orientations a kind)."""
    return np.ones(1 + 2 * kinds, dtype=np.bool_)


def _backward_through(levels: list[Level], end: np.ndarray, kinds: int) -> list[np.ndarray]:
    """Backward counts of every level of a segment (and of the states after it), from those after it."""
    scratch = np.zeros(2 * kinds, dtype=np.int64)  # collect's per-placement tallies, not needed here
    every, out = every_action(kinds), [end]
    for level in reversed(levels):
        run = jit.kernels(level.states)
        out.append(run.collect(out[-1], level.counts, level.first, level.child, level.action, every, scratch))
    out.reverse()
    return out


def sweep(tables: SweepTables, budget: int, progress: SweepProgress | None = None, keep_levels: bool = True) -> LayeredModel:
    """Build the layered model of ``tables``'s problem within ``budget`` bytes, or raise BudgetExceeded.

    Each level's size is known before its arrays are allocated: the transitions out of ``n`` states
    are at most ``n * (1 + 2 * kinds)``, or counted exactly first when that bound would not fit, and
    the hash merge is sized from the exact count. With ``keep_levels`` false, only segment starts are
    kept from the first level on. Otherwise, the first time keeping every level would exceed the
    budget, the levels kept so far are dropped and the sweep keeps segment starts only. A rebuild
    recreates exactly the levels of the first pass, so from then on each level is checked as if the
    earlier levels of its segment were held. A level that does not fit even so makes the sweep keep
    fewer segment starts and recompute the others when the model is read (:func:`_thin`,
    :meth:`LayeredModel._start_of`); when even the first start alone leaves no room, it raises
    BudgetExceeded (not narrowable: a split narrows the frontier only near its cell).
    """
    length = math.isqrt(tables.cell_count - 1) + 1
    keys = np.array([tables.root], dtype=np.uint64)
    fwd = np.ones(1, dtype=np.int64)
    segments: list[Segment] = []
    sizes: list[LevelSize] = []
    held = peak = in_segment = reserve = 0
    recompute = repack = False

    def new_packed() -> list[PackedLevel] | None:  # a segment's levels are packed while they are not kept
        return [] if PACK and tables.touch != TRACKED and not keep_levels and not recompute else None

    with jit.quiet():
        for j in range(tables.cell_count):
            if not segments or j == segments[-1].stop:
                segments.append(
                    Segment(j, min(j + length, tables.cell_count), keys, fwd, [] if keep_levels else None, packed=new_packed())
                )
                held += keys.nbytes + fwd.nbytes
                in_segment = 0
            while True:
                if repack:
                    _pack_levels(tables, segments, budget, len(keys))
                    held, repack = sum(segment.nbytes for segment in segments), False
                current = 0 if segments[-1].start == j else keys.nbytes + fwd.nbytes
                try:
                    level, next_keys, next_fwd, work = _advance(
                        tables, keys, fwd, j, budget, held + (current if recompute else in_segment)
                    )
                    break
                except BudgetExceeded as exc:
                    if keep_levels:  # drop every level (packed where there is room): keep segment starts only
                        keep_levels = False
                        in_segment = sum(size.nbytes for size in sizes[segments[-1].start :])  # as rebuilt: counts and all
                        repack = True  # out of the handler, once the failed attempt's arrays are freed
                    elif not recompute and _unpack_last(segments):  # packed levels make room for the sweep first
                        held = sum(segment.nbytes for segment in segments)
                    elif in_segment and not recompute:  # end the segment here: a rebuild then holds fewer levels at once
                        segments[-1].stop = j
                        segments.append(Segment(j, min(j + length, tables.cell_count), keys, fwd, None, packed=new_packed()))
                        held += keys.nbytes + fwd.nbytes
                        in_segment = 0
                    elif RECOMPUTE and _thin(segments, sizes, j):  # keep fewer starts, recompute the others
                        recompute = True  # no segment is packed any more (they were all unpacked first)
                        held = sum(segment.nbytes for segment in segments)
                    elif RECOMPUTE:  # the first start alone and this level do not fit
                        raise FrontierTooWide(str(exc)) from None
                    else:
                        raise
            peak = max(peak, held + (current if recompute else in_segment) + work)
            # A rebuild takes the level a slice at a time if it must: count the cheaper way.
            lean = _lean_work(tables, len(keys), len(level.child), len(next_keys))
            sizes.append(
                LevelSize(
                    len(keys), level.nbytes, _rebuild_work(tables, len(keys), len(level.child), len(next_keys)), len(next_keys)
                )
            )
            segments[-1].rebuild = max(segments[-1].rebuild, in_segment + min(work, lean))
            if keep_levels:
                kept = _kept(tables, level)
                segments[-1].levels.append(kept)  # type: ignore[union-attr]
                held += kept.nbytes
            else:
                in_segment += level.nbytes
                if not recompute:
                    after = level.nbytes + next_keys.nbytes + next_fwd.nbytes
                    _pack_into(segments[-1], level, len(next_keys), len(tables.kinds), budget, held + after)
                    held = sum(segment.nbytes for segment in segments)
            if recompute:  # keep room to read back the widest level swept so far
                reserve = max(reserve, _piece_need(sizes, j, j + 1))
                while held + reserve > budget and _thin(segments, sizes, j + 1):
                    held = sum(segment.nbytes for segment in segments)
                if held + reserve > budget:
                    _check(tables, budget, held + reserve, j, len(keys), error=FrontierTooWide)
            keys, fwd = next_keys, next_fwd
            del level  # not held while the next level is built, unless kept
            if progress is not None:
                progress((j + 1) / tables.cell_count)
    if len(keys) > 1 or (len(keys) == 1 and keys[0] != 0):
        raise AssertionError("the sweep ended in a state with ships left to place")  # settled[] forbids it
    paths = int(fwd[0]) if len(fwd) else 0
    if not keep_levels and not recompute:  # reading rebuilds one segment at a time while every segment start is held
        rebuilt = _reading(segments)
        while rebuilt > budget and _unpack_last(segments):  # packed levels give way first
            rebuilt = _reading(segments)
        if rebuilt <= budget or not RECOMPUTE:
            for segment in segments:
                if segment.unpacks:  # read from its packed levels, never swept again: its start's keys are not needed
                    segment.keys = np.empty(0, dtype=np.uint64)
            worst = max(segments, key=lambda segment: segment.rebuild)
            peak = max(peak, _check(tables, budget, rebuilt, worst.stop - 1, len(worst.fwd)))
            return LayeredModel(tables, segments, paths, peak, budget)
        recompute = True  # a segment would not fit rebuilt: keep fewer starts, recompute the others
    if recompute:
        reserve = max(_piece_need(sizes, i, i + 1) for i in range(len(sizes)))
        while held + reserve > budget and _thin(segments, sizes, tables.cell_count):
            held = sum(segment.nbytes for segment in segments)
        widest = max(range(len(sizes)), key=lambda i: _piece_need(sizes, i, i + 1))
        _check(tables, budget, held + reserve, widest, sizes[widest].states, error=FrontierTooWide)
        model = LayeredModel(tables, _pieces(tables, segments, sizes, budget), paths, max(peak, held + reserve), budget, sizes)
        model.release_starts()
        return model
    for segment in segments:  # every level kept: no segment is swept again, and its start's keys are not needed
        segment.keys = np.empty(0, dtype=np.uint64)
    return LayeredModel(tables, segments, paths, peak, budget)


def _reading(segments: list[Segment]) -> int:
    """The most memory reading a model whose every segment start is held needs: the starts (but the keys
    of the segments read from their packed levels), the packed levels and one segment's rebuild."""
    held = sum(segment.nbytes - (segment.keys.nbytes if segment.unpacks else 0) for segment in segments)
    return max(held + segment.rebuild for segment in segments)


def _thin(segments: list[Segment], sizes: list[LevelSize], j: int) -> bool:
    """Drop the segment start (not the first) whose two segments together hold the fewest states swept
    so far (the cheapest span to recompute), merging them; False when only the first start is left."""
    if len(segments) < 2:
        return False
    spans = [sum(size.states for size in sizes[segment.start : min(segment.stop, j)]) for segment in segments]
    i = min(range(1, len(segments)), key=lambda i: (spans[i - 1] + spans[i], -segments[i].nbytes))
    segments[i - 1].stop = segments[i].stop
    del segments[i]
    return True


def _piece_need(sizes: list[LevelSize], a: int, b: int) -> int:
    """The most memory reading levels a to b - 1 backward needs beyond the kept starts: rebuilding them
    from the states before a (their levels so far, one level's work and its states) while the backward
    counts after them are held, then those before each level."""
    held = most = 0
    for size in sizes[a:b]:
        most = max(most, held + size.work + 8 * size.states)  # the states' forward counts; their keys: in the work
        held += size.nbytes
    return max(most, held + 8 * sizes[a].states) + 8 * sizes[b - 1].next_states


def _pieces(tables: SweepTables, segments: list[Segment], sizes: list[LevelSize], budget: int) -> list[Segment]:
    """A recomputed model's segments cut into pieces that are read one at a time: as long as half the
    room the kept starts leave allows (the other half for starts recomputed on the way back), at least
    one level; only each segment's first piece has its start kept."""
    free = budget - sum(segment.nbytes for segment in segments)
    pieces: list[Segment] = []
    none = (np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64))
    for segment in segments:
        a = segment.start
        while a < segment.stop:
            b = a + 1
            while b < segment.stop and _piece_need(sizes, a, b + 1) <= free // 2:
                b += 1
            _check(tables, budget, budget - free + _piece_need(sizes, a, b), b - 1, sizes[a].states)
            keys, fwd = (segment.keys, segment.fwd) if a == segment.start else none
            pieces.append(Segment(a, b, keys, fwd, None, held=a == segment.start))
            a = b
    return pieces


def _halvings(sizes: list[LevelSize], c: int, j: int, starts: set[int]) -> set[int]:
    """The piece starts between c and j that halve, one after another, the states left to sweep towards j."""
    out: set[int] = set()
    lo = c
    while True:
        between = [m for m in starts if lo < m < j]
        if not between:
            return out
        weight = [size.states for size in sizes]
        m = min(between, key=lambda m: abs(sum(weight[lo:m]) - sum(weight[m:j])))
        out.add(m)
        lo = m


def _advance(
    tables: SweepTables, keys: np.ndarray, fwd: np.ndarray, j: int, budget: int | None, held: int, distinct: int | None = None
) -> tuple[Level, np.ndarray, np.ndarray, int]:
    """One level: the transitions out of ``keys`` at cell j, the next states and their forward counts,
    and the most working memory this needed beyond ``held`` (checked against ``budget`` before each allocation).

    The level is expanded whole and merged at once when that fits the budget (the fastest way), else
    a slice at a time (:func:`_advance_in_slices`: far less memory, the same level). ``distinct``: the
    next level's states when known (a level swept again), so that its merge is sized to them; ``held``
    then leaves out ``keys``, which the work counts when the level is taken a slice at a time.
    """
    total = float(fwd.sum())
    if total * (1 + 2 * len(tables.kinds)) >= COUNT_LIMIT:
        raise BattlelogError(
            f"the layouts of {tables.problem.label()} are too many to count exactly in 64 bits "
            f"(over {total:.3g} partial layouts at cell {j + 1})"
        )
    try:
        return _advance_at_once(tables, keys, fwd, j, budget, held + (0 if distinct is None else keys.nbytes))
    except BudgetExceeded:
        pass  # out of the handler first, so that the failed attempt's arrays are freed
    return _advance_in_slices(tables, keys, fwd, j, budget, held, distinct)


def _advance_at_once(
    tables: SweepTables, keys: np.ndarray, fwd: np.ndarray, j: int, budget: int | None, held: int
) -> tuple[Level, np.ndarray, np.ndarray, int]:
    """:func:`_advance` with the whole level expanded, then merged at once (``_AT_ONCE_BYTES`` a transition)."""
    bound = len(keys) * (1 + 2 * len(tables.kinds))
    run = jit.kernels(len(keys))
    per = _AT_ONCE_BYTES + _pair_bytes(tables)
    try:
        _check(tables, budget, held + per * bound + 4 * len(keys), j, len(keys))
    except BudgetExceeded:  # the worst case does not fit: count the transitions, and allocate for those
        bound = _transitions(tables, keys, j, run)
        _check(tables, budget, held + per * bound + 4 * len(keys), j, len(keys), bound)
    out_keys, out_action, out_pairs, first = (
        np.empty(bound, dtype=np.uint64),
        np.empty(bound, dtype=np.int8),
        np.empty(bound * _pair_bytes(tables), dtype=np.int8),
        np.empty(len(keys) + 1, dtype=np.int32),
    )
    written = _expand(tables, keys, j, run, out_keys, out_action, out_pairs, first)
    table_bits = max(1, (2 * written).bit_length())
    work = per * bound + 4 * len(keys) + 4 * (1 << table_bits) + 24 * written
    _check(tables, budget, held + work, j, len(keys), written)
    table = np.full(1 << table_bits, -1, dtype=np.int32)
    child = np.empty(written, dtype=np.int32)
    next_keys, next_fwd = run.merge(fwd, first, out_keys[:written], table, table_bits, child)
    action = out_action[:written].copy()
    pairs = out_pairs[:written].copy() if tables.touch == TRACKED else None
    return Level(fwd, first, child, action, pairs), next_keys, next_fwd, work


def _pair_bytes(tables: SweepTables) -> int:
    """Bytes a transition's touching pairs take: 1 when the sweep keeps them for a prior's touch weight, else 0."""
    return 1 if tables.touch == TRACKED else 0


def _advance_in_slices(
    tables: SweepTables, keys: np.ndarray, fwd: np.ndarray, j: int, budget: int | None, held: int, distinct: int | None = None
) -> tuple[Level, np.ndarray, np.ndarray, int]:
    """:func:`_advance` a slice at a time: :data:`_SLICE` states are expanded into a small scratch buffer
    and their child keys inserted into one hash table of the next level's states, grown as they come
    (:func:`kernel.insert <battlelog.engines.native.kernel.insert>`). The level's child keys are never
    all held, and no array is sized by its transitions but the level's own (``_WORK_BYTES`` each).
    Inserted in order, the slices give the states in the order of the one-shot merge.
    """
    _return_freed_memory()
    n, most = len(keys), 1 + 2 * len(tables.kinds)
    step = min(n, _SLICE)
    run = jit.kernels(n)
    bound = _transitions(tables, keys, j, run)  # exact: the level's arrays are allocated once, at their size
    fixed = _fixed_work(tables, n, bound)
    capacity = max(16, n + n // 4, min(step * most, bound))  # next-level states the merge has room for
    if distinct is not None:  # known (a level swept again): room for them and one slice, never grown
        capacity = _known_capacity(n, bound, distinct, most)
    work = _check(tables, budget, held + fixed + _STATE_BYTES * capacity, j, n, bound) - held
    action, child, first = np.empty(bound, dtype=np.int8), np.empty(bound, dtype=np.int32), np.empty(n + 1, dtype=np.int32)
    pairs = np.empty(bound * _pair_bytes(tables), dtype=np.int8)
    out_keys = np.empty(step * most, dtype=np.uint64)
    table = np.full(2 * capacity, -1, dtype=np.int32)
    states, states_fwd = np.empty(capacity, dtype=np.uint64), np.empty(capacity, dtype=np.int64)
    written = distinct = 0  # the next states found so far
    first[0] = 0
    for s in range(0, n, step):
        e = min(n, s + step)
        if distinct + min((e - s) * most, bound - written) > capacity:  # grow before the slice could fill it
            old, capacity = capacity, max(capacity + capacity // 4, distinct + (e - s) * most)
            work = max(work, _check(tables, budget, held + fixed + _STATE_BYTES * capacity + 16 * old, j, n, bound) - held)
            del table
            states, states_fwd = _grown(states, distinct, capacity), _grown(states_fwd, distinct, capacity)
            table = np.full(2 * capacity, -1, dtype=np.int32)
            run.rehash(states, distinct, table)
        at = pairs[written * _pair_bytes(tables) :]
        added = _expand(tables, keys[s:e], j, run, out_keys, action[written:], at, first[s : e + 1])
        distinct = int(run.insert(fwd[s:e], first[s : e + 1], out_keys, table, states, states_fwd, distinct, child[written:]))
        first[s : e + 1] += written
        written += added
    del table, out_keys
    states.resize(distinct, refcheck=False)  # in place: no view of them is left
    states_fwd.resize(distinct, refcheck=False)
    return Level(fwd, first, child, action, pairs if tables.touch == TRACKED else None), states, states_fwd, work


@functools.cache
def _return_freed_memory() -> None:
    """Have the C allocator give arrays of 1 MB and more back to the system as soon as they are freed.

    By default glibc raises that threshold up to 32 MB as large blocks are freed, and the arrays below
    it then stay in the process's heap, fragmented: under a tight budget the process's resident memory
    outgrew the arrays it held by 100-200 MB (10x10 5,4,3,3,2 under 90 MB). Process-wide, set once,
    when a level first has to be taken in slices; nothing happens off glibc.
    """
    try:
        ctypes.CDLL("libc.so.6").mallopt(_M_MMAP_THRESHOLD, 1 << 20)
    except (OSError, AttributeError):
        pass


def _lean_work(tables: SweepTables, states: int, transitions: int, distinct: int) -> int:
    """The most working memory :func:`_advance_in_slices` can need for a level of ``states`` states,
    ``transitions`` transitions and ``distinct`` next states (its table grows to at most 1.25 times
    the next states and one slice's worth, and holds the old arrays while it grows)."""
    most = 1 + 2 * len(tables.kinds)
    step = min(states, _SLICE)
    room = distinct + step * most
    return (
        _fixed_work(tables, states, transitions)
        + _STATE_BYTES * max(16, states + states // 4, min(step * most, transitions), room + room // 4)
        + 16 * room
    )


def _known_capacity(states: int, transitions: int, distinct: int, most: int) -> int:
    """The merge's room when the next level's ``distinct`` states are known: them and one slice's worth."""
    return max(16, distinct + min(min(states, _SLICE) * most, transitions))


def _rebuild_work(tables: SweepTables, states: int, transitions: int, distinct: int) -> int:
    """What :func:`_advance_in_slices` needs for a level swept again (its next states known: no growth)."""
    most = 1 + 2 * len(tables.kinds)
    return _fixed_work(tables, states, transitions) + _STATE_BYTES * _known_capacity(states, transitions, distinct, most)


def _fixed_work(tables: SweepTables, states: int, transitions: int) -> int:
    """What :func:`_advance_in_slices` holds whatever the next level: the level's arrays, the states
    it expands (not always a segment start's, so not always charged with the segments) and the
    scratch of one slice's keys."""
    most = 1 + 2 * len(tables.kinds)
    step = min(states, _SLICE)
    return (_WORK_BYTES + _pair_bytes(tables)) * transitions + 4 * (states + 1) + 8 * states + step * (8 * most + 4) + 8


def _grown(values: np.ndarray, used: int, size: int) -> np.ndarray:
    """``values[:used]`` at the start of a new array of ``size``."""
    out = np.empty(size, dtype=values.dtype)
    out[:used] = values[:used]
    return out


def _expand(
    tables: SweepTables, keys: np.ndarray, j: int, run: Any, out_keys: np.ndarray, out_action: np.ndarray,
    out_pairs: np.ndarray, first: np.ndarray,
) -> int:  # fmt: skip
    written = int(run.expand(
        keys, j, tables.cols, tables.field_bits, tables.lengths, tables.count_shift, tables.count_mask, tables.starts,
        tables.required, tables.settled[j + 1], tables.touch, tables.profile_bits, out_keys, out_action, out_pairs, first,
    ))  # fmt: skip
    if tables.touch == TRACKED and SETTLE:  # the profile kept for a touch weight: only what is read again (weight_kernel.settle)
        jit.weight_kernels(len(keys)).settle(
            out_keys[:written], j, tables.cols, tables.field_bits, tables.profile_shift, tables.profile_bits, tables.count_shift,
            tables.count_mask,
        )  # fmt: skip
    return written


def _transitions(tables: SweepTables, keys: np.ndarray, j: int, run: Any) -> int:
    """How many transitions leave ``keys`` at cell j, expanded a slice at a time into a small scratch
    buffer (when a level's worst case, every state taking every action, would not fit)."""
    most = _COUNT_SLICE * (1 + 2 * len(tables.kinds))
    scratch = (
        np.empty(most, dtype=np.uint64), np.empty(most, dtype=np.int8), np.empty(most * _pair_bytes(tables), dtype=np.int8),
        np.empty(_COUNT_SLICE + 1, dtype=np.int32),
    )  # fmt: skip
    return sum(_expand(tables, keys[s : s + _COUNT_SLICE], j, run, *scratch) for s in range(0, len(keys), _COUNT_SLICE))


def _check(
    tables: SweepTables,
    budget: int | None,
    needed: int,
    cell: int,
    states: int,
    transitions: int | None = None,
    error: type[BudgetExceeded] = BudgetExceeded,
) -> int:
    """``needed``, after raising ``error`` if that would outgrow ``budget`` (or 32-bit indices:
    ``transitions``, when known, else the most that ``states`` can have)."""
    most = states * (1 + 2 * len(tables.kinds)) if transitions is None else transitions
    if (budget is not None and needed > budget) or most >= 2**31:
        raise error(
            f"the compiled model of {tables.problem.label()} needs more than {readable(needed)} "
            f"by cell {cell + 1} of {tables.cell_count} ({states:,} states)"
        )
    return needed
