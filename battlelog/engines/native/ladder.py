"""The native engine's shortcuts as one ladder: each rung answers a question about a state, or declines.

A question (:class:`Ask`) is one state and what is wanted of it: its exact ``COUNTS`` (uniform prior), its
``WEIGHTED`` posterior under its prior, or the models to ``DRAW`` layouts from. The engine climbs
:data:`LADDER` in order and takes the first answer; the last rung, the plain sweep (:class:`Sweep`), always
answers, and every other rung must give what it gives (integer counts and draws equal; weighted floats
equal to rounding, sums taken in another order): tests/test_native_ladder.py runs every rung against it on a
fixed set of states and rules, and checks that each rung answers some of them.

Order (cheapest first, each rung serving the wants it names):

=================  ======================  ==========================================================
rung               wants                   answers from
=================  ======================  ==========================================================
last-weighed       weighted                the posterior weighed last, when it is this one
kept-model         counts, weighted, draw  the models kept for this posterior (cases: not drawn from)
weighed-again      weighted                the kept models, a miss or two before, weighed again
filtered-listing   counts, weighted        an earlier state's listed layouts, filtered (reuse.py)
late-listing       counts, weighted        the layouts listed in compiled code (late.py)
few-listing        counts, weighted        the ground problem's layouts listed (few.py)
miss-recount       counts, draw            the kept model, a miss or two before, counted again
turned-recount     counts                  the kept case models, a miss or two before, counted again
empty-board-model  draw                    the empty board's model, kept for each game's first draws
turned-sweep       counts, weighted        two cases by the longest ship's orientation (turns.py)
sweep              counts, weighted, draw  the ground problem swept whole (split while over budget)
=================  ======================  ==========================================================

Under a prior the kept models are weighed again before any listing is tried, and uniform counts are
recounted only after: the order each was measured fastest in, kept as it was.

:class:`~battlelog.engines.native.memory.Memory` is the one owner of what the rungs remember between questions (the
last models, their state, the last recount, the last weighed posterior, the empty board's model); a sweep replaces it.

Tallies (row and column counts) are the one kind of evidence no rung sees: :func:`climb` hands a tallied state to
:mod:`~.tallied` before any rung, so no rung can answer it as if untallied (held to the oracle by
tests/test_tallies_evidence.py, since the plain sweep cannot be).

Adding a rung (a new kind of evidence, say an answered question): write a class with a
``name``, the ``wants`` it serves and ``answer(ask)`` returning the answer or None, put an instance in
:data:`LADDER` where its cost places it, and add states it answers to tests/test_native_ladder.py's
cases; the ladder test then holds it to the plain sweep and fails while it answers no state.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from functools import cached_property
from typing import Protocol

from battlelog.engines import budget
from battlelog.engines.canonical import PosteriorKey, model_key, posterior_key
from battlelog.engines.native import tallied
from battlelog.engines.native.cases import Compiler, case_counts, read_cases
from battlelog.engines.native.counts import Counts, total
from battlelog.engines.native.draws import Drawn
from battlelog.engines.native.few import LISTING_BYTES, few_layouts, listed_counts, listed_weighted
from battlelog.engines.native.late import late_listing
from battlelog.engines.native.layered import LayeredModel
from battlelog.engines.native.memory import Memory
from battlelog.engines.native.misses import weighted_recount
from battlelog.engines.native.reuse import Listing
from battlelog.engines.native.tables import check_problem_bits, sweep_order
from battlelog.engines.native.turns import CaseWeigher, turned_counts, turned_weighted
from battlelog.engines.native.weights import Weighted, weigher
from battlelog.errors import BattlelogError
from battlelog.model.ground import Problem, ground_problem
from battlelog.rules.state import GameState

#: What a question wants of its state.
COUNTS, WEIGHTED, DRAW = "counts", "weighted", "draw"
#: What a rung answers: the counts, the weighted posterior, or the models to draw from.
Answer = Counts | Weighted | Sequence[Drawn]


class Engine(Compiler, Protocol):
    """What the rungs need of the engine asked (:class:`~battlelog.engines.native.engine.NativeEngine`): its memory,
    its listings, whether it turns, and how it compiles one model (:class:`~.cases.Compiler`); the ladder reads and
    keeps the models."""

    memory: Memory
    turn: bool

    def reused(self, state: GameState) -> Listing | None: ...

    def remember(self, listing: Listing) -> Listing: ...


class Ask:
    """One question: ``state`` and what is ``want``-ed of it (``tracked``: touching pairs counted), asked of
    ``engine``; what several rungs need (the posterior's key, the ground problem) is made once, when first read."""

    def __init__(self, engine: Engine, state: GameState, want: str, tracked: bool = False) -> None:
        self.engine, self.state, self.want, self.tracked = engine, state, want, tracked
        self.memory, self.budget = engine.memory, engine.memory_budget
        self.prior = state.config.effective_prior

    @cached_property
    def key(self) -> PosteriorKey:
        """The key of the models that answer this question (the posterior's, with ``tracked``)."""
        return model_key(self.state, self.tracked)

    @cached_property
    def weighed_key(self) -> tuple[PosteriorKey, bool]:
        """The key the weighted posterior answering this question is remembered under (:attr:`Memory.weighed`)."""
        return posterior_key(self.state), self.tracked

    @cached_property
    def problem(self) -> Problem:
        """The state's ground problem (grounding raises the one-line error of a state no layout fits)."""
        return ground_problem(self.state)

    def listed(self, listing: Listing) -> Answer:
        """The answer from the state's layouts listed."""
        rows, cols, ships = self.state.rows, self.state.cols, self.state.ships
        if self.want == COUNTS:
            return total([listed_counts(rows, cols, ships, *listing.layouts)])
        return listed_weighted(rows, cols, ships, *listing.layouts, self.prior)

    def weigh(self, model: LayeredModel) -> Weighted:
        return weigher(model, self.prior).weighted()


class Rung(Protocol):
    """A shortcut: answers a question it serves (``want`` in ``wants``), or declines with None."""

    name: str
    wants: frozenset[str]

    def answer(self, ask: Ask) -> Answer | None: ...


class LastWeighed:
    name, wants = "last-weighed", frozenset({WEIGHTED})

    def answer(self, ask: Ask) -> Answer | None:
        weighed, key = ask.memory.weighed, ask.weighed_key[0]
        return weighed[1] if weighed is not None and weighed[0] in (ask.weighed_key, (key, True)) else None  # pairs serve none


class KeptModel:
    name, wants = "kept-model", frozenset({COUNTS, WEIGHTED, DRAW})

    def answer(self, ask: Ask) -> Answer | None:
        whole, cases = ask.memory.whole, ask.memory.cases
        if whole is not None and whole[0] == ask.key:
            if ask.want == COUNTS:
                return total([Counts.of(whole[1])])
            return ask.weigh(whole[1]) if ask.want == WEIGHTED else [whole[1]]
        if cases is None or cases.key != ask.key or ask.want == DRAW:  # draws come from one model of the whole state
            return None
        if ask.want == COUNTS:
            counts = cases.counts(ask.key)
            return None if counts is None else total([counts])
        return cases.weighted(ask.state, ask.tracked)  # a self-transposed state's one model weighed for both cases (turns.py)


class WeighedAgain:
    name, wants = "weighed-again", frozenset({WEIGHTED})

    def answer(self, ask: Ask) -> Answer | None:
        memory = ask.memory
        if memory.whole is not None:
            return None if memory.whole[0] == ask.key else weighted_recount(ask.state, memory.state, memory.whole, ask.tracked)
        if memory.cases is None or memory.cases.key == ask.key:
            return None
        return memory.cases.weighted(ask.state, ask.tracked)  # each case's model recounted (misses.py), transposed where it flips


class FilteredListing:
    name, wants = "filtered-listing", frozenset({COUNTS, WEIGHTED})

    def answer(self, ask: Ask) -> Answer | None:
        reused = ask.engine.reused(ask.state)
        return None if reused is None else ask.listed(reused)


class LateListing:
    name, wants = "late-listing", frozenset({COUNTS, WEIGHTED})

    def answer(self, ask: Ask) -> Answer | None:
        listed = late_listing(ask.state, ask.budget)  # None: too many layouts, or none (grounding says why)
        return None if listed is None else ask.listed(ask.engine.remember(listed))


class FewListing:
    name, wants = "few-listing", frozenset({COUNTS, WEIGHTED})

    def answer(self, ask: Ask) -> Answer | None:
        check_problem_bits(ask.problem, ask.tracked)  # the sweep's limit holds whichever way the problem is counted
        listed = few_layouts(ask.problem) if ask.budget >= LISTING_BYTES else None
        return None if listed is None else ask.listed(ask.engine.remember(Listing(ask.state, *listed)))


class MissRecount:
    name, wants = "miss-recount", frozenset({COUNTS, DRAW})

    def answer(self, ask: Ask) -> Answer | None:
        if ask.want == DRAW and ask.tracked:
            return None
        recount = ask.memory.recount(ask.state, ask.want == DRAW or ask.memory.draws, ask.budget)
        if recount is None:
            return None
        return [recount] if ask.want == DRAW else total([recount.counts])  # a recount draws as a sweep would


class TurnedRecount:
    name, wants = "turned-recount", frozenset({COUNTS})

    def answer(self, ask: Ask) -> Answer | None:
        turned = ask.memory.turned
        again = None if turned is None else turned.recount(ask.state, ask.budget)
        return None if again is None else total([again])


class EmptyBoardModel:
    name, wants = "empty-board-model", frozenset({DRAW})

    def answer(self, ask: Ask) -> Answer | None:
        memory = ask.memory
        if memory.board is None or memory.board[:2] != (ask.key, ask.budget):
            return None
        memory.whole, memory.state = (ask.key, memory.board[2]), ask.state
        return [memory.board[2]]


class TurnedSweep:
    name, wants = "turned-sweep", frozenset({COUNTS, WEIGHTED})

    def answer(self, ask: Ask) -> Answer | None:
        engine, memory, state = ask.engine, ask.memory, ask.state
        if not engine.turn or memory.draws:  # an engine that has drawn keeps one model of the whole state, to draw from as ever
            return None
        memory.forget(state)
        if ask.want == COUNTS:
            memory.turned = turned_counts(ask.problem, state, functools.partial(case_counts, engine), ask.budget)
            return None if memory.turned is None else total([memory.turned.counts])
        turned = turned_weighted(ask.problem, state, ask.tracked, self.weigher(ask), ask.budget)
        if turned is None:
            return None
        weighed, memory.cases = turned  # each case read and dropped before the next is compiled
        return weighed

    @staticmethod
    def weigher(ask: Ask) -> CaseWeigher:
        """How :func:`~.turns.turned_weighted` weighs a case: the engine's sweep (split over budget), read by its function."""
        return lambda case, order, limit, read: read_cases(ask.engine, case, order, read, ask.tracked, limit)


class Sweep:
    name, wants = "sweep", frozenset({COUNTS, WEIGHTED, DRAW})

    def answer(self, ask: Ask) -> Answer:
        engine, memory, state = ask.engine, ask.memory, ask.state
        order = sweep_order(state)
        memory.forget(state)  # free the last models before building the next ones
        if ask.want == DRAW:
            build = lambda part, depth: engine.compile_model(part, order, depth, ask.tracked)  # noqa: E731
            models = budget.split_until_it_fits(ask.problem, build, engine.name, ask.budget)
            memory.whole = (ask.key, models[0]) if len(models) == 1 else None
            if not state.shots and len(models) == 1 and models[0].nbytes <= ask.budget // 4:
                memory.board = (ask.key, ask.budget, models[0])
            return models
        if ask.want == COUNTS:
            counts, model = case_counts(engine, ask.problem, order)
            memory.whole = None if model is None else (ask.key, model)
            return total([counts])
        weighed, model = read_cases(engine, ask.problem, order, ask.weigh, ask.tracked)
        memory.whole = None if model is None else (ask.key, model)
        return weighed


#: The rungs in the order they are tried; the last always answers.
LADDER: tuple[Rung, ...] = (
    LastWeighed(), KeptModel(), WeighedAgain(), FilteredListing(), LateListing(), FewListing(),
    MissRecount(), TurnedRecount(), EmptyBoardModel(), TurnedSweep(), Sweep(),
)  # fmt: skip


def climb(ask: Ask, ladder: Sequence[Rung] = LADDER) -> Answer:
    """The first answer to ``ask`` up ``ladder``; a state with tallies never meets a rung (none sees tallies): it is
    listed under them (:mod:`~.tallied`)."""
    if ask.state.tallied:
        if ask.want == DRAW:  # NativeEngine.sample draws a tallied state's layouts from its listing (tallied.sample)
            raise BattlelogError("a state with tallies has no models to draw from: its layouts are drawn from their listing")
        return tallied.listed(ask.problem, ask.state, None if ask.want == COUNTS else ask.prior)
    if ask.want == DRAW:
        ask.memory.draws = True
    for rung in ladder:
        if ask.want in rung.wants and (out := rung.answer(ask)) is not None:
            return out
    raise AssertionError(f"no rung of the ladder answered {ask.want} (the last one, the sweep, always does)")
