"""The captain's exact belief: the posterior over named layouts given shots and noisy answers.

The captain knows the ships' lengths as a list, not which colour has which; ships may touch; a
shot shows water or the colour hit; a yes/no answer is wrong with chance ``noise``. The prior is
uniform over named layouts, so (docs/captain.md) the posterior is the questions package's: the
layouts that agree with the revealed tiles, each weighed 1 - noise or noise per answer it agrees or
disagrees with. That package lists named layouts, which is exact but bounded by a budget: the empty
8x8 board has 21,354,072 unnamed layouts of 5,4,3,2, times 24 colourings.

Before the space fits, the captain has answered nothing (it asks only once it can weigh a question)
and the board shows at most one hit. Such a state is the same evidence as plain hits and misses:
a first hit of some colour says only that a ship covers the tile, and colours are exchangeable, so
the cell marginals are the native engine's, which counts unnamed layouts exactly and fast. Once the
named space fits it is listed once, then narrowed by each shot and reweighed by each answer in place.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

import numpy as np

from battlelog.engines import make_engine
from battlelog.engines.base import Engine
from battlelog.errors import BudgetExceeded, StateError
from battlelog.questions.inference import AnswerDistribution, distribution
from battlelog.questions.scoped import Space
from battlelog.questions.space import DEFAULT_BUDGET, Fleet
from battlelog.questions.state import HIDDEN, WATER, Answered, QuestionState
from battlelog.questions.typecheck import Program
from battlelog.rules.answers import HIT, MISS
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import SILENT, Rules


@lru_cache(maxsize=1)
def native_engine() -> Engine:
    """One native engine per process, so that its caches stay warm from game to game."""
    return make_engine("native")


class Belief:
    """The posterior of one game as it goes: ``shoot`` and ``hear`` add evidence, ``cells`` and
    ``ask`` read it. ``budget`` bounds the named layouts listed (the questions package's)."""

    def __init__(
        self, rows: int, cols: int, names: tuple[str, ...], lengths: tuple[int, ...], noise: float,
        budget: int = DEFAULT_BUDGET,
    ) -> None:
        self.rows, self.cols, self.names, self.noise, self.budget = rows, cols, names, noise, budget
        self.lengths = tuple(sorted(lengths, reverse=True))
        self.fleet = Fleet(names, (tuple(sorted(set(lengths))),) * len(names), tuple(sorted(lengths)))
        self.board = np.full(rows * cols, HIDDEN, dtype=np.int64)
        self.answers: list[Answered] = []
        self._space: Space | None = None

    # --- evidence -----------------------------------------------------------------------------
    def shoot(self, cell: int, code: int) -> None:
        """A shot at ``cell`` showed ``code`` (0 water, i + 1 ship i)."""
        self.board[cell] = code
        if self._space is not None:
            self._space = _narrowed(self._space, cell, code)

    def hear(self, program: Program, given: bool) -> None:
        """The spotter answered ``program`` with ``given`` (wrong with chance ``noise``)."""
        answered = Answered(program.text, given)
        self.answers.append(answered)
        space = self.space()
        if space is None:
            raise StateError("an answer was heard before the named layouts could be listed: ask only when space() fits")
        # the questions package's own weighing of one answer (exact keep, or 1 - noise / noise)
        self._space = self.question_state()._observe(space, answered, len(self.answers))

    # --- reading ------------------------------------------------------------------------------
    def question_state(self) -> QuestionState:
        """This game's evidence as the questions package's state."""
        board = tuple(tuple(int(v) for v in self.board[r * self.cols : (r + 1) * self.cols]) for r in range(self.rows))
        return QuestionState(self.rows, self.cols, self.fleet, board, tuple(self.answers), self.noise)

    def space(self) -> Space | None:
        """The named layouts with their posterior weights, or None while there are more than ``budget``."""
        if self._space is None and self._may_fit():
            try:
                self._space = self.question_state().space(self.budget)
            except BudgetExceeded:
                return None
        return self._space

    def plain(self) -> bool:
        """Whether the evidence is the same as plain hits and misses: no answer and at most one hit."""
        return not self.answers and int(np.count_nonzero(self.board > WATER)) <= 1

    def cells(self) -> np.ndarray:
        """The probability that a ship covers each cell (``rows`` x ``cols``)."""
        space = self.space()
        if space is not None:
            return space_cells(space).reshape(self.rows, self.cols)
        if not self.plain():
            raise StateError(
                f"the exact belief needs the named layouts, more than {self.budget:,} of them: raise the budget"
            )
        return native_engine().marginals(self.game_state()).cells

    def ask(self, program: Program) -> AnswerDistribution:
        """The exact distribution of ``program``'s answer, with its EIG under the noise."""
        space = self.space()
        if space is None:
            raise StateError(f"questions are weighed on the named layouts, more than {self.budget:,} of them here")
        return distribution(program, space, self.noise)

    # --- the plain phase -----------------------------------------------------------------------
    def game_state(self) -> GameState:
        """The evidence as battlelog's plain game state (valid only while :meth:`plain`)."""
        state = GameState.empty(GameConfig(self.rows, self.lengths, Rules(sinks=SILENT), cols=self.cols))
        for cell in np.flatnonzero(self.board != HIDDEN):
            state = state.with_shot(int(cell) // self.cols, int(cell) % self.cols, HIT if self.board[cell] > WATER else MISS)
        return state

    def _may_fit(self) -> bool:
        """Whether listing may fit the budget: in the plain phase the named count is known from the
        native count (no need to start a listing that would be refused), elsewhere it is tried."""
        if not self.plain():
            return True
        models = native_engine().marginals(self.game_state()).models
        return models is None or named_count(models, self.lengths, self.board) <= self.budget


def named_count(ordered: int, lengths: tuple[int, ...], board: np.ndarray) -> int:
    """Named layouts of a plain state from the native engine's count of ordered ones (ship i of
    length ``lengths[i]``): unordered = ordered / prod(m_l!) over repeated lengths; then every
    colouring of the ships, the colour of a hit ship fixed when there is a hit."""
    repeats = math.prod(math.factorial(m) for m in Counter(lengths).values())
    free = len(lengths) - int(np.count_nonzero(board > WATER))
    return ordered // repeats * math.factorial(free)


def space_cells(space: Space) -> np.ndarray:
    """Each cell's posterior probability of a ship, from the ships' placement weights."""
    total = float(space.weights.sum())
    covered = sum(weights @ table.cells for weights, table in zip(space.ship_weights, space.tables))
    return np.asarray(covered, dtype=float) / total


def _narrowed(space: Space, cell: int, code: int) -> Space:
    """The layouts that agree with one more shot: no ship on ``cell`` (water), or ship ``code`` there."""
    covers = [table.cells[space.idx[s], cell] for s, table in enumerate(space.tables)]
    keep = ~np.any(covers, axis=0) if code == WATER else covers[code - 1]
    if not keep.any():
        raise StateError(f"no layout fits the shot at cell {cell}")
    return Space(space.tables, space.idx[:, keep], space.weights[keep])
