"""The captain's exact belief: the posterior over named layouts given shots and noisy answers.

The captain knows the ships' lengths as a list, not which colour has which; ships may touch; a
shot shows water or the colour hit; a yes/no answer is wrong with chance ``noise``. The prior is
uniform over named layouts, so (docs/captain.md) the posterior is the questions package's: the
layouts that agree with the revealed tiles, each weighed 1 - noise or noise per answer it agrees or
disagrees with. That package lists named layouts, which is exact but bounded by a budget: the empty
8x8 board has 21,354,072 unnamed layouts of 5,4,3,2, times 24 colourings.

Before the listing fits, the captain has heard no answer (it asks only once it can weigh a
question) and, on the boards met, the board shows at most two hits: the cell marginals are then
plain counts of the native engine (:mod:`.counts`), which also say how many named layouts there
are, so the listing is started only when it fits. Once listed, the space is narrowed by each shot
and reweighed by each answer in place.
"""

from __future__ import annotations

import numpy as np

from battlelog.captain.counts import Counts, evidence_counts, named_layouts
from battlelog.errors import BudgetExceeded, StateError
from battlelog.questions.inference import AnswerDistribution, distribution
from battlelog.questions.scoped import Space
from battlelog.questions.space import DEFAULT_BUDGET, Fleet
from battlelog.questions.state import HIDDEN, WATER, Answered, QuestionState
from battlelog.questions.typecheck import Program


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
        self._counts: tuple[bytes, Counts | None] | None = None  # the board they were counted on, and the counts

    # --- evidence -----------------------------------------------------------------------------
    def shoot(self, cell: int, code: int) -> None:
        """A shot at ``cell`` showed ``code`` (0 water, i + 1 ship i)."""
        self.board[cell] = code
        if self._space is not None:
            self._space = _narrowed(self._space, cell, code)

    def hear(self, program: Program, given: bool) -> None:
        """The spotter answered ``program`` with ``given`` (wrong with chance ``noise``)."""
        space = self.space()  # listed (when it is listed here) from the evidence before this answer
        if space is None:
            raise StateError("an answer was heard before the named layouts could be listed: ask only when space() fits")
        answered = Answered(program.text, given)
        self.answers.append(answered)
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

    def counts(self) -> Counts | None:
        """The plain counts of a state with no answer and at most two hits (None for any other)."""
        if self.answers:
            return None
        key = self.board.tobytes()
        if self._counts is None or self._counts[0] != key:
            self._counts = (key, evidence_counts(self.rows, self.cols, self.lengths, self.board))
        return self._counts[1]

    def cells(self) -> np.ndarray:
        """The probability that a ship covers each cell (``rows`` x ``cols``)."""
        space = self.space()
        if space is not None:
            return space_cells(space).reshape(self.rows, self.cols)
        counts = self.counts()
        if counts is None:
            raise StateError(
                f"the exact belief needs the named layouts here, more than {self.budget:,} of them: raise the budget"
            )
        return counts.cells().reshape(self.rows, self.cols)

    def ask(self, program: Program) -> AnswerDistribution:
        """The exact distribution of ``program``'s answer, with its EIG under the noise."""
        space = self.space()
        if space is None:
            raise StateError(f"questions are weighed on the named layouts, more than {self.budget:,} of them here")
        return distribution(program, space, self.noise)

    def _may_fit(self) -> bool:
        """Whether listing may fit the budget: known from the plain counts where there are some (no
        listing is started that would be refused), tried elsewhere."""
        counts = self.counts()
        return counts is None or named_layouts(counts, len(self.names), self.board) <= self.budget


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
