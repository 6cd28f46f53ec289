"""A recorded captain game read back: found in its run, its true board found beside it, every step of its
transcript checked against that board, and the captain's exact belief rebuilt after every step.

The run records only the board's file name, so the board is looked for beside the run's folder, or in
the folder given. A step that the board contradicts (a shot's colour, a question's true answer, a
question that is no yes/no program, an EIG the belief does not give) is an error naming the step:
a replay draws the record as it was played, or not at all.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from battlelog.captain.belief import Belief
from battlelog.captain.boards import TrueBoard, read_true_board
from battlelog.captain.records import load_captain_results
from battlelog.errors import BattlelogError, FileFormatError
from battlelog.questions.language import Type
from battlelog.questions.layout import evaluate
from battlelog.questions.space import DEFAULT_BUDGET
from battlelog.questions.typecheck import Program, compile_program
from battlelog.runner.records import GAMES

SHOT_KEYS, QUESTION_KEYS = {"shot", "answer"}, {"question", "true_answer", "given_answer", "eig"}


@dataclass(frozen=True)
class Shot:
    """A shot at ``cell`` (row-major) that showed ``code`` (0 water, i + 1 the board's ship i)."""

    cell: int
    code: int


@dataclass(frozen=True)
class Question:
    """A question asked, the spotter's true and given answers, and the EIG the captain weighed it at."""

    program: Program
    true_answer: bool
    given_answer: bool
    eig: float


Step = Shot | Question


@dataclass(frozen=True)
class CaptainGame:
    """One recorded game: its record, its true board, its checked steps and the run's noise."""

    record: dict[str, Any]
    board: TrueBoard
    steps: tuple[Step, ...]
    noise: float
    where: str  # the journal and game, as errors name them
    seed: int


def load_captain_game(out: Path, game: int | None, captain: str | None, board: str | None, boards: Path | None) -> CaptainGame:
    """Game ``game`` of ``captain`` on ``board`` in the captain run ``out`` (either may be left out when one
    fits), its true board read from ``boards`` (by default the folder holding ``out``), every step checked."""
    manifest, records = load_captain_results(out)
    record = _pick(out, records, game, captain, board)
    where = f"{out / GAMES} game {record['game']} of {record['captain']} on {record['board']}"
    if record["status"] != "ok":
        raise BattlelogError(f"{where} failed ({record['status']}): there is nothing to replay")
    true = read_true_board(board_path(out, record["board"], boards))
    steps = read_steps(record["transcript"], true, where)
    return CaptainGame(record, true, steps, float(manifest["noise"]), where, manifest["seed"])


def _pick(out: Path, records: list[dict[str, Any]], game: int | None, captain: str | None, board: str | None) -> dict[str, Any]:
    """The one record that fits the choices; too few or too many is one line saying what there is."""
    if game is None:
        numbers = sorted({r["game"] for r in records})
        known = f"games {numbers[0]}..{numbers[-1]}" if numbers else "no games"
        raise BattlelogError(f"{out} is a captain run: say which game with --game N ({known} recorded)")
    fits = [r for r in records if r["game"] == game and captain in (None, r["captain"]) and board in (None, r["board"])]
    if not fits:
        played = sorted({f"{r['captain']} on {r['board']}" for r in records if r["game"] == game})
        known = f"game {game} was played by {', '.join(played)}" if played else f"it has no game {game}"
        wanted = (f" of captain {captain}" if captain else "") + (f" on board {board}" if board else "")
        raise BattlelogError(f"{out}: no game {game}{wanted} ({known})")
    for key, said, flag in (("captain", "by", "--player CAPTAIN"), ("board", "on", "--board NAME")):
        choices = sorted({r[key] for r in fits})
        if len(choices) > 1:
            raise BattlelogError(f"{out}: game {game} was played {said} {', '.join(choices)}: say which with {flag}")
    return fits[0]


def board_path(out: Path, name: str, boards: Path | None) -> Path:
    """Where the board file ``name`` is: in ``boards``, or beside the run's folder; not there is one line."""
    path = (boards if boards is not None else out.resolve().parent) / name
    if not path.is_file():
        hint = "is it the folder of the run's boards?" if boards is not None else "give the boards' folder with --boards DIR"
        raise BattlelogError(f"{path}: no such board file (a captain run records only the board's name; {hint})")
    return path


def read_steps(transcript: list[Any], board: TrueBoard, where: str) -> tuple[Step, ...]:
    """The transcript's steps, each checked against ``board``; the first that does not fit is one line."""
    layout, shot = board.layout(), set()
    steps: list[Step] = []
    for k, step in enumerate(transcript, 1):
        at = f"{where}, step {k}"
        if isinstance(step, dict) and set(step) == SHOT_KEYS:
            cell = _cell(step["shot"], board, at)
            if cell in shot:
                raise FileFormatError(f"{at}: shoots row {cell // board.cols}, column {cell % board.cols} again")
            shot.add(cell)
            code = board.codes[cell]
            shown = "water" if code == 0 else board.names[code - 1]
            if step["answer"] != shown:
                raise FileFormatError(f"{at}: the shot is recorded as {step['answer']!r}, but {board.name} shows {shown!r} there")
            steps.append(Shot(cell, code))
        elif isinstance(step, dict) and set(step) == QUESTION_KEYS:
            steps.append(_question(step, board, layout, at))
        else:
            raise FileFormatError(f"{at}: a step is {{shot, answer}} or {{question, true_answer, given_answer, eig}}")
    return tuple(steps)


def _cell(value: Any, board: TrueBoard, at: str) -> int:
    """A shot's [row, column] (from 0) on the board, as a row-major cell."""
    if (
        not isinstance(value, list) or len(value) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        or not (0 <= value[0] < board.rows and 0 <= value[1] < board.cols)
    ):  # fmt: skip
        raise FileFormatError(f"{at}: a shot is [row, column] on the {board.rows}x{board.cols} board, not {value!r}")
    return value[0] * board.cols + value[1]


def _question(step: dict[str, Any], board: TrueBoard, layout: Any, at: str) -> Question:
    """A question step: a yes/no program, two yes/no answers of which the true one is the board's, an EIG."""
    if not isinstance(step["question"], str):
        raise FileFormatError(f"{at}: the question must be a program's text")
    try:
        program = compile_program(step["question"], board.names, board.rows, board.cols)
    except BattlelogError as exc:
        raise FileFormatError(f"{at}: {exc}") from None
    if program.type != Type.BOOL:
        raise FileFormatError(f"{at}: {step['question']} is not a yes/no question")
    if not all(isinstance(step[key], bool) for key in ("true_answer", "given_answer")):
        raise FileFormatError(f"{at}: true_answer and given_answer must be true or false")
    eig = step["eig"]
    if isinstance(eig, bool) or not isinstance(eig, (int, float)) or not math.isfinite(eig):
        raise FileFormatError(f"{at}: eig must be a number of bits")
    if bool(evaluate(program, layout)) != step["true_answer"]:
        raise FileFormatError(f"{at}: the true answer is recorded as {step['true_answer']}, but {board.name} says otherwise")
    return Question(program, step["true_answer"], step["given_answer"], float(eig))


def belief_cells(
    game: CaptainGame, budget: int = DEFAULT_BUDGET, progress: Callable[[int, int], None] | None = None
) -> Iterator[np.ndarray]:
    """The captain's cell marginals before the first step and after each, from its own exact belief fed the
    same shots and given answers; a question's recorded EIG must be the one the belief gives then."""
    board = game.board
    belief = Belief(board.rows, board.cols, board.names, board.lengths, game.noise, budget)
    total = len(game.steps) + 1
    for k in range(total):
        if k:
            step = game.steps[k - 1]
            if isinstance(step, Shot):
                belief.shoot(step.cell, step.code)
            else:
                weighed = belief.ask(step.program).eig
                if not math.isclose(weighed, step.eig, rel_tol=1e-9, abs_tol=1e-9):
                    raise FileFormatError(
                        f"{game.where}, step {k}: the EIG is recorded as {step.eig}, the belief gives {weighed}"
                    )
                belief.hear(step.program, step.given_answer)
        yield belief.cells()
        if progress is not None:
            progress(k + 1, total)
