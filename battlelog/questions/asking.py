"""What ``battlelog ask`` answers, as JSON: one program's answer distribution, or a bank ranked by EIG.

The command (``ask --json``) and the web app (``POST /api/ask``) both print these functions' values,
so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from battlelog.errors import BattlelogError
from battlelog.questions.inference import AnswerDistribution, distribution
from battlelog.questions.scoped import Space
from battlelog.questions.state import QuestionState
from battlelog.questions.typecheck import Program, compile_program
from battlelog.wording import clip


def ask(state: QuestionState, space: Space, text: str) -> AnswerDistribution:
    """The exact answer distribution of one program."""
    return distribution(compile_program(text, state.names, state.rows, state.cols), space, state.noise)


def rank(space: Space, programs: list[Program], noise: float) -> list[AnswerDistribution]:
    """The programs' distributions, highest EIG first (the bank's order among ties)."""
    return sorted((distribution(program, space, noise) for program in programs), key=lambda r: -r.eig)


def compile_bank(state: QuestionState, programs: Iterable[tuple[str, str]]) -> list[Program]:
    """Every program of a bank, given as (where it is, its text), checked before any is asked: a bad one
    is refused naming where it is at once, not after the ones before it have been answered."""
    out = []
    for where, text in programs:
        try:
            out.append(compile_program(text, state.names, state.rows, state.cols))
        except BattlelogError as exc:
            raise BattlelogError(f"{where}: {clip(repr(text))}: {exc}") from None
    return out


def ask_json(state: QuestionState, space: Space, text: str) -> dict[str, Any]:
    """``{"question", "models", "answers": [{"answer", "p"}], "entropy", "eig"}`` of one program."""
    return ask(state, space, text).to_json(state.cols)


def ranked_json(state: QuestionState, space: Space, programs: list[Program], top: int | None) -> list[dict[str, Any]]:
    """The ``top`` best programs of a bank (all with None) as :func:`ask_json` gives each, highest EIG first."""
    return [r.to_json(state.cols) for r in rank(space, programs, state.noise)[:top]]
