"""The lookahead player: the shot that misses least over the next two shots, on the exact posterior."""

from __future__ import annotations

import numpy as np

from battlelog.engines import DEFAULT_ENGINE, Marginals, engine_class
from battlelog.errors import BattlelogError
from battlelog.players.base import Seed, masked
from battlelog.players.belief import DEFAULT_BELIEF
from battlelog.players.posterior import PosteriorPlayer
from battlelog.rules.answers import HIT_CODE, decode_answer
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState
from battlelog.rules.variants import NAMED


class LookaheadPlayer(PosteriorPlayer):
    """Shoots the cell that maximises the exact expected hits of the next two shots, the second one
    greedy: ``P(hit at c) + sum over answers a of P(a at c) * max_j P(hit at j | a)``, where a runs
    over the answers the sink rule gives (:meth:`Marginals.answers`: miss, hit and "sunk ship i"
    under ``named``, "sunk" under ``unnamed``, only miss and hit under ``silent``) and a shot that
    ends the game counts as a second hit (no miss is left to make). The score is the number of shots, which is the ship cells plus the misses, so
    this is greedy with a one-shot horizon pushed to two.

    Only the ``width`` most probable cells are looked past (each costs one posterior per possible
    answer); the rest keep their one-shot value, which no candidate's two-shot value falls below.
    The time per move is bounded by not looking past states with more than ``max_layouts``
    consistent layouts (early in large games, where posteriors cost most and the board is wide
    open): there it plays greedy. Both bounds are counts, so a game depends only on its seed.
    """

    name = "lookahead"

    def __init__(
        self, seed: Seed = None, engine: str = DEFAULT_ENGINE, width: int = 4, max_layouts: int = 10**8,
        belief: str = DEFAULT_BELIEF,
    ) -> None:
        for option, value in (("width", width), ("max_layouts", max_layouts)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise BattlelogError(f"player lookahead needs a whole number {option} of at least 1, got {value!r}")
        super().__init__(seed, engine, belief)
        if not engine_class(engine).counts_models:
            raise BattlelogError(f"player lookahead needs an engine that counts layouts; {engine!r} does not")
        self.width = width
        self.max_layouts = max_layouts

    def posterior(self, state: GameState) -> tuple[Marginals, np.ndarray]:
        """The marginals; the score of a cell is its two-shot expected hits for the ``width`` most
        probable cells, its one-shot value (the marginal) elsewhere."""
        marginals = self._engine.marginals(state)
        values = masked(marginals.cells, state)
        if marginals.models is None or marginals.models > self.max_layouts:
            return marginals, values
        cells = state.unshot
        order = sorted(range(len(cells)), key=lambda i: -marginals.cells[cells[i]])
        answers = marginals.answers(state)
        for i in order[: self.width]:
            values[cells[i]] = self.two_shots(state, cells[i], answers[cells[i]], marginals.models)
        return marginals, values

    def two_shots(self, state: GameState, cell: Cell, answers: np.ndarray, models: int) -> float:
        """Expected hits of a shot at ``cell`` and the greedy shot after it (``answers``: the
        probability of each answer at ``cell``; ``models``: the consistent layouts, so that an
        answer no layout gives, left at a rounding error above 0, is told from one that some give)."""
        value = float(answers[HIT_CODE:].sum())
        for answer in np.flatnonzero(answers > 0.5 / models):
            nxt = state.with_shot(*cell, *decode_answer(int(answer), state.config.rules.sinks == NAMED))
            if nxt.over:
                value += float(answers[answer])
                continue
            second = masked(self._engine.marginals(nxt).cells, nxt)
            value += float(answers[answer]) * float(np.nanmax(second))
        return value
