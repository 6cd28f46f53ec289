"""Captains, registered by name like players: each move either shoots a cell or asks a question.

``shooter`` shoots the unshot cell most likely to hold a ship under the exact posterior and never
asks. ``asker`` asks the bank's question of highest expected information gain whenever that gain
exceeds ``threshold`` bits and questions remain, else shoots as ``shooter`` does. Ties among cells
follow battlelog's one tie rule (drawn by the game's generator); among questions the bank's first.
A question is weighed only on the listed named layouts (:mod:`.belief`): before they fit, the asker
shoots.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from battlelog.captain import DEFAULT_THRESHOLD
from battlelog.captain.belief import Belief
from battlelog.errors import BattlelogError
from battlelog.questions.typecheck import Program
from battlelog.rules.aim import pick_best

#: The asker's default threshold in bits: a question is asked when it tells more than this.


@dataclass(frozen=True)
class Shoot:
    cell: int


@dataclass(frozen=True)
class Ask:
    program: Program
    eig: float


Move = Shoot | Ask


class Captain(ABC):
    """A strategy: a move from the belief, the questions left and the game's generator."""

    name: ClassVar[str]

    def __init__(self, bank: list[Program], threshold: float = DEFAULT_THRESHOLD, bank_name: str | None = None) -> None:
        self.bank = bank
        self.threshold = threshold
        self.bank_name = bank_name  # a bank file's name, None for the default bank

    @property
    def label(self) -> str:
        """How records name this configuration."""
        return self.name

    @abstractmethod
    def move(self, belief: Belief, questions_left: int, rng: np.random.Generator) -> Move: ...


def greedy_shot(belief: Belief, rng: np.random.Generator) -> Shoot:
    """The unshot cell of highest posterior probability."""
    cells = belief.cells().ravel()
    unshot = [int(c) for c in np.flatnonzero(belief.board < 0)]
    chosen = pick_best([(c // belief.cols, c % belief.cols) for c in unshot], [float(cells[c]) for c in unshot], rng)
    return Shoot(chosen[0] * belief.cols + chosen[1])


class Shooter(Captain):
    name = "shooter"

    def move(self, belief: Belief, questions_left: int, rng: np.random.Generator) -> Move:
        return greedy_shot(belief, rng)


class Asker(Captain):
    name = "asker"

    @property
    def label(self) -> str:
        """``asker``, or with the options that differ from the defaults: ``asker[bank=b.txt,threshold=0.1]``."""
        options = [f"bank={self.bank_name}"] if self.bank_name is not None else []
        options += [f"threshold={self.threshold:g}"] if self.threshold != DEFAULT_THRESHOLD else []
        return f"{self.name}[{','.join(options)}]" if options else self.name

    def move(self, belief: Belief, questions_left: int, rng: np.random.Generator) -> Move:
        if questions_left > 0 and self.bank and belief.space() is not None:
            best = max((belief.ask(program) for program in self.bank), key=lambda d: d.eig)
            if best.eig > self.threshold:
                return Ask(best.program, best.eig)
        return greedy_shot(belief, rng)


CAPTAINS: dict[str, type[Captain]] = {cls.name: cls for cls in (Shooter, Asker)}


def captain_names(text: str) -> list[str]:
    """The captains of a comma-separated list, each registered; an unknown one is one line."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise BattlelogError("--captain names no captain; choose from " + ", ".join(CAPTAINS))
    for name in names:
        if name not in CAPTAINS:
            raise BattlelogError(f"unknown captain {name!r}; choose from {', '.join(CAPTAINS)}")
    if len(set(names)) < len(names):
        raise BattlelogError("--captain names a captain twice")
    return names
