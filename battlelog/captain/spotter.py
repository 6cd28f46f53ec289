"""The spotter: answers a yes/no program on the true board, wrong with chance ``noise``.

Its draws are fixed in advance per game (one uniform number per question the game may ask), so that
every captain playing the same game meets the same noise: its k-th answer is flipped whenever the
k-th draw is below ``noise``, whatever the question. Captains are then compared on paired games.
The truth comes from the questions package's reference evaluator, not the vectorised one the
captain's belief uses.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from battlelog.captain.boards import TrueBoard
from battlelog.questions.layout import evaluate
from battlelog.questions.typecheck import Program


@dataclass(frozen=True)
class Reply:
    """What the spotter saw and what it said."""

    true_answer: bool
    given_answer: bool


class Spotter:
    """Answers up to ``len(draws)`` questions on ``board``, the k-th flipped when ``draws[k] < noise``."""

    def __init__(self, board: TrueBoard, noise: float, draws: np.ndarray) -> None:
        self.board = board
        self.noise = noise
        self.draws = draws
        self.layout = board.layout()
        self.asked = 0

    def shoot(self, cell: int) -> int:
        """The tile's code: 0 water, i + 1 ship i (shots are always answered truthfully)."""
        return self.board.codes[cell]

    def answer(self, program: Program) -> Reply:
        """The program's true answer on the board and the answer given (the next draw decides a flip)."""
        truth = bool(evaluate(program, self.layout))
        flipped = bool(self.draws[self.asked] < self.noise)
        self.asked += 1
        return Reply(truth, truth != flipped)
