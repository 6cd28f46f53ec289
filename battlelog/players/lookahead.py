"""The lookahead player: the shot that misses least over the next two shots, on the exact posterior."""

from __future__ import annotations

import numpy as np

from battlelog.engines import DEFAULT_ENGINE, Marginals, engine_class
from battlelog.engines.remainder import remainder
from battlelog.errors import BattlelogError
from battlelog.players.base import Seed, masked
from battlelog.players.belief import ALL_FEATURES, DEFAULT_BELIEF
from battlelog.players.posterior import PosteriorPlayer
from battlelog.rules.aim import best_cells
from battlelog.rules.answers import HIT_CODE, MISS_CODE, decode_answer
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState
from battlelog.rules.variants import NAMED


class LookaheadPlayer(PosteriorPlayer):
    """Shoots the cell that maximises the exact expected hits of the next two shots, the second one
    greedy: ``P(hit at c) + sum over answers a of P(a at c) * max_j P(hit at j | a)``, where a runs
    over the answers the sink rule gives (:meth:`Marginals.answers`: miss, hit and "sunk ship i"
    under ``named``, "sunk" under ``unnamed``, only miss and hit under ``silent``) and a shot that
    ends the game counts as a second hit (no miss is left to make). The score is the number of shots, which is the ship cells plus
    the misses, so this is greedy with a one-shot horizon pushed to two.

    Only the ``width`` most probable cells are looked past (each costs one posterior per possible
    answer); the rest keep their one-shot value, which no candidate's two-shot value falls below.
    The time per move is bounded by not looking past states with more than ``max_layouts``
    consistent layouts (early in large games, where posteriors cost most and the board is wide
    open): there it plays greedy. Both bounds are counts, so a game depends only on its seed.

    Where the engine's marginals are exact ratios of counts (``Engine.exact_ratios``, uniform belief),
    the miss after a candidate is not computed but read off the state's counts minus the other
    answers' (:func:`battlelog.engines.remainder.remainder`): the same figures, one posterior fewer a
    candidate (kept for the next move, whose state it is when that cell is shot and missed).
    """

    name = "lookahead"

    def __init__(
        self, seed: Seed = None, engine: str = DEFAULT_ENGINE, width: int = 4, max_layouts: int = 10**8,
        belief: str = DEFAULT_BELIEF, features: str = ALL_FEATURES,
    ) -> None:
        for option, value in (("width", width), ("max_layouts", max_layouts)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise BattlelogError(f"player lookahead needs a whole number {option} of at least 1, got {value!r}")
        super().__init__(seed, engine, belief, features)
        if not engine_class(engine).counts_models:
            raise BattlelogError(f"player lookahead needs an engine that counts layouts; {engine!r} does not")
        self.width = width
        self.max_layouts = max_layouts
        #: The misses derived last move (not computed by the engine), for the state the game moves on to.
        self._derived: dict[GameState, Marginals] = {}

    def posterior(self, state: GameState) -> tuple[Marginals, np.ndarray]:
        """The marginals; the score of a cell is its two-shot expected hits for the ``width`` most
        probable cells, its one-shot value (the marginal) elsewhere."""
        derived, self._derived = self._derived, {}
        marginals = derived.get(state) or self._engine.marginals(state)
        values = masked(marginals.cells, state)
        if marginals.models is None or marginals.models > self.max_layouts:
            return marginals, values
        cells = state.unshot
        answers = marginals.answers(state)
        exact = (
            engine_class(self.engine).exact_ratios and self.belief == DEFAULT_BELIEF and state.config.effective_prior.is_uniform
        )
        for cell in best_cells(cells, marginals.cells, self.width):  # the rule every player ranks cells by
            values[cell] = self.two_shots(state, cell, answers[cell], marginals.models, marginals if exact else None)
        return marginals, values

    def two_shots(self, state: GameState, cell: Cell, answers: np.ndarray, models: int, whole: Marginals | None = None) -> float:
        """Expected hits of a shot at ``cell`` and the greedy shot after it (``answers``: the
        probability of each answer at ``cell``; ``models``: the consistent layouts, so that an
        answer no layout gives, left at a rounding error above 0, is told from one that some give;
        ``whole``: the state's own marginals, from which the miss is derived when they are exact ratios)."""
        value = float(answers[HIT_CODE:].sum())
        named = state.config.rules.sinks == NAMED
        possible = [int(a) for a in np.flatnonzero(answers > 0.5 / models)]
        after = {a: state.with_shot(*cell, *decode_answer(a, named)) for a in possible}
        derive = whole is not None and MISS_CODE in possible and len(possible) > 1
        seconds = {
            a: self._engine.marginals(nxt)
            for a, nxt in after.items()
            if not (a == MISS_CODE and derive) and (derive or not nxt.over)
        }
        if derive:
            assert whole is not None
            miss = remainder(whole, list(seconds.values()))
            seconds[MISS_CODE] = miss if miss is not None else self._engine.marginals(after[MISS_CODE])
            self._derived[after[MISS_CODE]] = seconds[MISS_CODE]  # the next move's state, if this cell is shot and misses
        for answer in possible:  # in code order, as the sum has always been taken
            nxt = after[answer]
            best = 1.0 if nxt.over else float(np.nanmax(masked(seconds[answer].cells, nxt)))
            value += float(answers[answer]) * best
        return value
