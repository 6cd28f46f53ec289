"""A replay of a captain's game (`battlelog captain`): a frame before the first step and after each step,
a question being a step as a shot is.

Each frame shows the captain's exact belief (the cell marginals of battlelog/captain/belief.py, fed the
recorded shots and the answers the spotter gave), the true board with the ships not found yet faint,
and beside them the questions asked so far with the true and the given answer and the EIG they were
asked at, the one just asked highlighted. Hits show their ship's colour and initial: a shot reveals
the colour. Drawn by the experiment replay's own GIF and page code (sheets of panels, panels.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from battlelog.captain.transcript import CaptainGame, Question, Shot
from battlelog.rules.geometry import cell_name
from battlelog.views.replay import colors
from battlelog.views.replay.panels import MISS_MARK, Panel, Pictures, Sheet, heat_fill, percent_text

LEGEND = "o water   a hit shows its ship's colour and initial   blue frame: the next shot"
#: The legend's second line, for a game with questions.
ASKED = "beside the boards: the questions asked so far, the one just asked highlighted"


NOTES_TITLE = "questions asked: the spotter's answer (and the truth when it lied), the EIG asked at"


@dataclass(frozen=True)
class CaptainReplay:
    """A captain's game and the captain's cell marginals before the first step and after each."""

    game: CaptainGame
    cells: tuple[np.ndarray, ...]

    @property
    def title(self) -> str:
        record = self.game.record
        return f"{record['captain']} on {record['board']} (game {record['game']}, seed {self.game.seed}, noise {self.game.noise})"


def captain_pictures(replay: CaptainReplay) -> Pictures:
    """Every frame of the replay as a sheet for the GIF and the page."""
    board = replay.game.board
    sheets = tuple(step_sheet(replay, k) for k in range(len(replay.cells)))
    legend = f"{LEGEND}\n{ASKED}" if sheets[-1].notes else LEGEND
    return Pictures(replay.title, "", board.rows, board.cols, legend, sheets, NOTES_TITLE)


def step_sheet(replay: CaptainReplay, k: int) -> Sheet:
    """Frame ``k``: the game after its first ``k`` steps, and the next shot outlined if a shot comes next."""
    game, done = replay.game, replay.game.steps[:k]
    shown = {step.cell: step.code for step in done if isinstance(step, Shot)}
    asked = [step for step in done if isinstance(step, Question)]
    following = game.steps[k] if k < len(game.steps) else None
    next_cell = divmod(following.cell, game.board.cols) if isinstance(following, Shot) else None
    current = len(asked) - 1 if done and isinstance(done[-1], Question) else None
    panels = (belief_panel(game, replay.cells[k], shown), true_panel(game, shown))
    notes = tuple(question_line(i, q) for i, q in enumerate(asked, 1))
    return Sheet(caption(game, k), panels, next_cell, notes, current)


def caption(game: CaptainGame, k: int) -> str:
    """What step ``k`` did (``step 4: shot C2, Red``; ``step 5: asked ..., answered no``), and the counts so far."""
    if k == 0:
        return "before the first step"
    step, done = game.steps[k - 1], game.steps[:k]
    if isinstance(step, Shot):
        row, col = divmod(step.cell, game.board.cols)
        said = f"shot {cell_name((row, col))}, {'water' if step.code == 0 else game.board.names[step.code - 1]}"
    else:
        said = f"asked {step.program.text}, answered {_yes(step.given_answer)}"
    shots = sum(isinstance(s, Shot) for s in done)
    return f"step {k}: {said} ({shots} shots, {k - shots} questions so far)"


def question_line(number: int, question: Question) -> str:
    """``Q2 (touch Red Green): said yes, truly no; EIG 0.412 bits``."""
    truth = "" if question.given_answer == question.true_answer else f", truly {_yes(question.true_answer)}"
    return f"Q{number} {question.program.text}: said {_yes(question.given_answer)}{truth}; EIG {question.eig:.3f} bits"


def _yes(answer: bool) -> str:
    return "yes" if answer else "no"


def belief_panel(game: CaptainGame, cells: np.ndarray, shown: dict[int, int]) -> Panel:
    """The captain's belief in percent on the unshot cells; shots as the captain saw them."""
    fills: list[str] = []
    texts: list[str] = []
    marks: list[str] = []
    for cell, p in enumerate(cells.ravel()):
        if cell not in shown:
            fills.append(heat_fill(float(p)))
            texts.append(percent_text(float(p)))
            marks.append("")
        else:
            _shot_cell(game, shown[cell], fills, texts, marks)
    return Panel("posterior", "captain's belief: chance of a ship (%)", tuple(fills), tuple(texts), tuple(marks))


def true_panel(game: CaptainGame, shown: dict[int, int]) -> Panel:
    """The spotter's board: the ships not found yet faint, with their initials; shots as on the belief."""
    fills: list[str] = []
    texts: list[str] = []
    marks: list[str] = []
    for cell, code in enumerate(game.board.codes):
        if cell in shown:
            _shot_cell(game, code, fills, texts, marks)
        else:
            name = game.board.names[code - 1] if code else None
            fills.append(colors.FAINT_SHIP_COLORS[name] if name else colors.WATER)
            texts.append(name[0] if name else "")
            marks.append("")
    return Panel("board", "true board (faint: not found yet)", tuple(fills), tuple(texts), tuple(marks))


def _shot_cell(game: CaptainGame, code: int, fills: list[str], texts: list[str], marks: list[str]) -> None:
    """A shot cell: water with the miss mark, or the ship's colour and initial."""
    name = game.board.names[code - 1] if code else None
    fills.append(colors.SHIP_COLORS[name] if name else colors.MISS)
    texts.append(name[0] if name else "")
    marks.append("" if name else MISS_MARK)
