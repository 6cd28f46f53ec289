"""The ``native`` engine: the ground model compiled into a layered decision diagram by a counting sweep.

How, for one game state:

1. ``model.ground`` applies the evidence that only rules placements out (misses, sinks, not-sunk);
   what is left is a :class:`~battlelog.model.ground.Problem`: one placement per ship from its domain, no
   overlap, every hit covered.
2. Ships that are interchangeable in that problem are merged into kinds, and the board is swept
   cell by cell in the raster order that suits the evidence (:func:`sweep_order`), building the
   layered model (:mod:`battlelog.engines.native.layered`) with the compiled kernel; where it pays, as two
   cases by the longest ship's orientation, each swept along that ship (:mod:`~battlelog.engines.native.turns`).
   Before any sweep the engine tries its shortcuts (a model it kept, an earlier state's listed layouts, a recount
   after added misses, ...), one rung after another of one ordered :mod:`~battlelog.engines.native.ladder`,
   each held to the plain sweep by tests/test_native_ladder.py; a new kind of evidence adds a rung there.
3. One backward pass counts, for every placement, the layouts that use it; cell marginals are sums
   of those counts. Everything is an exact integer until the final division.

Memory: every level's size is known before it is allocated. Over the budget (battlelog.engines.budget: 2 GB by
default, or the task's) the model keeps fewer segment starts and recomputes the others as it is read
(:mod:`~battlelog.engines.native.layered`); a problem that does not fit even so is split on a cell (layouts that
leave it empty, layouts that cover it; counts added), unless no level fits at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from battlelog.engines import budget, progress
from battlelog.engines.base import Engine, Marginals, layout_owners
from battlelog.engines.canonical import canonical_form
from battlelog.engines.native import ladder, tallied
from battlelog.engines.native.cases import case_counts
from battlelog.engines.native.counts import Counts, total
from battlelog.engines.native.draws import Drawn, Randomness, draw_layouts, draw_owners
from battlelog.engines.native.few import LISTING_BYTES, listed_counts
from battlelog.engines.native.ladder import COUNTS, DRAW, WEIGHTED, Ask
from battlelog.engines.native.layered import LayeredModel, sweep
from battlelog.engines.native.memory import Memory
from battlelog.engines.native.reuse import Listing, Listings
from battlelog.engines.native.tables import SweepTables, check_board_bits
from battlelog.engines.native.weights import Weighted, tracks_touching
from battlelog.engines.workspace import Workspace
from battlelog.errors import Inconsistent
from battlelog.model.ground import Problem, ground_problem
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.prior import FEATURES
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import IDENTITY, Symmetry


class NativeEngine(Engine):
    """Exact marginals, layout counts and samples from the compiled layered model.

    Every question climbs one :mod:`~.ladder` of shortcuts up to the plain sweep; what the shortcuts remember
    (:class:`~.memory.Memory`, ``memory``) is the last state's model (when it was not split), so that drawing
    layouts of the state just asked about costs no second compilation and a state a miss or two on is counted
    again on it (:mod:`~.misses`); the empty board's, while it takes at most a quarter of the budget, so that
    each game's first draws do not sweep it again; and recent states' listed layouts (``listings``), so that a
    state a few shots on is answered by filtering them (:mod:`~.reuse`; ``reuse=False``: never). Recent states'
    marginals and the empty boards on disk are the ``workspace``'s (None: its own); without a ``memory_budget``
    it uses the one in force at each call. Adding a rung: see :mod:`~.ladder`. Tallies (row and column counts): exact
    by :mod:`~.tallied` (listed under them, or counted as a puzzle; drawn from the listing).

    Priors (``state.config.prior``): the marginals and draws are the weighted posterior's (float64 passes over the same
    model: :mod:`~.weights`); ``models`` stays the exact number of consistent layouts. Two methods serve learning a
    prior: :meth:`feature_expectations` and :meth:`log_partition`. The uniform prior keeps the integer path.
    """

    name = "native"
    counts_models = True
    exact_ratios = True
    gives_placements = True
    samples = True
    samples_together = True
    weighs_priors = True
    weighs_tallies = True

    def __init__(
        self, memory_budget: int | None = None, workspace: Workspace | None = None, reuse: bool = True, turn: bool = True
    ) -> None:
        self._budget, self.reuse, self.turn = None if memory_budget is None else int(memory_budget), reuse, turn
        self.listings, self.workspace = Listings(), Workspace() if workspace is None else workspace
        self.memory = Memory()

    @property
    def memory_budget(self) -> int:
        """The bytes one call may use: the engine's own budget, else the budget in force now."""
        return budget.memory_budget(self._budget)

    @property
    def keeps_model(self) -> bool:
        """Whether the last count kept its swept model (a state a miss or two on is then counted off it)."""
        return self.memory.whole is not None

    @classmethod
    def check_board(cls, config: GameConfig) -> None:
        """Every state of a game on ``config`` must pack into the sweep's 64-bit frontier keys."""
        check_board_bits(config)

    # ----- marginals ------------------------------------------------------------------------------
    def marginals(self, state: GameState) -> Marginals:
        """Exact occupancy and placement marginals of ``state``, and its number of layouts (off a filtered listing first:
        cheaper than the canonical form the workspace's cache is keyed by)."""
        if not state.tallied and state.config.effective_prior.is_uniform and (reused := self.reused(state)) is not None:
            return listed_counts(state.rows, state.cols, state.ships, *reused.layouts).marginals()
        states, empty_boards = self.workspace.states, self.workspace.empty_boards
        canonical = canonical_form(state)  # the tallies are part of it
        cached = states.get(state, canonical)
        if cached is not None:
            return cached
        empty = not state.shots and not state.tallied
        stored = empty_boards.load(state.config) if empty else None
        if stored is not None:
            states.put(state, stored, canonical)
            return stored
        prior = state.config.effective_prior
        exact = lambda: self.counts(state).marginals() if prior.is_uniform else self.weighted(state).marginals()  # noqa: E731
        result = tallied.marginals(state, exact) if state.tallied else exact()
        states.put(state, result, canonical)
        if empty:
            empty_boards.save(state.config, result)
        return result

    def counts(self, state: GameState) -> Counts:
        """Exact integer counts of the layouts consistent with ``state`` (no cache of marginals involved), up the
        :mod:`~.ladder`: a state with few layouts is listed, far cheaper than a sweep; the others are swept, as two
        cases by the longest ship's orientation where that pays (:mod:`~.turns`; ``turn=False``: never)."""
        out = ladder.climb(Ask(self, state, COUNTS))
        assert isinstance(out, Counts)
        return out

    def weighted(self, state: GameState, tracked: bool = False) -> Weighted:
        """The weighted posterior of ``state`` under its prior (the uniform one too), up the :mod:`~.ladder`: by
        listing its layouts when they are few, else by weighing its layered models. ``tracked``: count touching
        pairs under ``allowed`` even without a touch weight (their expectation needs them), at the price of a larger model."""
        tracked = tracks_touching(state, tracked)
        ask = Ask(self, state, WEIGHTED, tracked)
        result = ladder.climb(ask)
        assert isinstance(result, Weighted)
        if result.models == 0:
            raise Inconsistent("no layout of the fleet fits all the answers")
        self.memory.weighed = (ask.weighed_key, result)
        return result

    def feature_expectations(self, state: GameState, features: tuple[str, ...] = FEATURES) -> np.ndarray:
        """E[f] for each f of ``features`` (of :data:`battlelog.rules.prior.FEATURES`, in that order) over the
        layouts consistent with ``state``, weighted by its prior, exact; E[touch] counts touching pairs (a far larger sweep)."""
        return self.weighted(state, tracked="touch" in features).features[[FEATURES.index(f) for f in features]].copy()

    def log_partition(self, state: GameState) -> float:
        """log of the sum of exp(theta . f) over the layouts consistent with ``state`` (ships named; for the
        uniform prior, log of ``models``)."""
        prior = state.config.effective_prior
        return math.log(self.counts(state).models) if prior.is_uniform else self.weighted(state).log_z

    def reused(self, state: GameState) -> Listing | None:
        """``state``'s layouts filtered from a remembered listing of an earlier state of its game, when one has
        layouts left (no grounding: :mod:`battlelog.engines.native.reuse`). A filtered listing with no layout left
        is not used: grounding says why none fits."""
        out = self.listings.extend(state) if self.reuse and self.memory_budget >= LISTING_BYTES else None
        return out if out is not None and len(out.chosen) else None

    def remember(self, listing: Listing) -> Listing:
        """``listing`` (of a state listed afresh), remembered for the states a few shots on unless ``reuse`` is off."""
        if self.reuse:
            self.listings.remember(listing)
        return listing

    def problem_counts(self, problem: Problem, order: Symmetry = IDENTITY) -> Counts:
        """Exact integer counts of a ground problem as given (its touch rule included), swept in ``order``."""
        self.memory.forget()
        counts, model = case_counts(self, problem, order)
        self.memory.whole = None if model is None else (("problem", problem), model)
        return total([counts])

    # ----- sampling -------------------------------------------------------------------------------
    def sample(self, state: GameState, count: int, rng: Randomness) -> list[tuple[Placement, ...]]:
        """``count`` layouts drawn independently from the posterior of ``state`` (uniform, or weighted by its prior): each
        walks the layered model, taking every transition in proportion to the layouts (their weight) through it; interchangeable
        ships are then named in a uniformly random order. A split state first draws its case, in proportion to its layouts.
        A state with tallies is drawn from its listed layouts (:func:`~.tallied.sample`)."""
        if state.tallied:
            return tallied.sample(ground_problem(state), state, count, rng)
        prior = state.config.effective_prior  # uniform: no touch weight, so _tracked is False
        return draw_layouts(self.drawn_from(state, tracks_touching(state)), count, rng, None if prior.is_uniform else prior)

    def sample_owners(self, state: GameState, count: int, rng: np.random.Generator) -> np.ndarray:
        """:meth:`sample`'s layouts (the same from the same generator) as ``owner[s, x]``, the ship on row-major cell x or -1."""
        if state.tallied:
            return layout_owners(state.config, self.sample(state, count, rng))
        prior = state.config.effective_prior
        return draw_owners(self.drawn_from(state, tracks_touching(state)), count, rng, None if prior.is_uniform else prior)

    def drawn_from(self, state: GameState, tracked: bool = False) -> Sequence[Drawn]:
        """The models draws of ``state`` walk, up the :mod:`~.ladder` (the one kept from the last call when it is this
        posterior's: a player that samples a state and then asks its marginals sweeps once; its recount; the empty
        board's; else new ones); ``tracked``: touching pairs counted."""
        out = ladder.climb(Ask(self, state, DRAW, tracked))
        assert isinstance(out, Sequence)
        return out

    # ----- compiling --------------------------------------------------------------------------------
    def compile_model(
        self, problem: Problem, order: Symmetry, depth: int, tracked: bool = False, limit: int | None = None
    ) -> LayeredModel:
        """The layered model of ``problem`` (a case of a split at ``depth`` > 0), with touching pairs when ``tracked``, under
        ``limit`` bytes (None: the budget)."""
        tables = SweepTables(problem, order, tracked=tracked)
        listener = progress.listener()
        what = problem.label() + (f" (case of a split, depth {depth})" if depth else "")
        report = None if listener is None else lambda done: listener(what, done)
        return sweep(tables, self.memory_budget if limit is None else limit, report)

    def close(self) -> None:
        self.memory.clear()
        self.listings.clear()
