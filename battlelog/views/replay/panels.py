"""The boards of one frame, cell by cell: what colour, what number and what mark each cell shows.

Deciding this once, here, is what keeps the GIF and the HTML page the same picture: both only paint
sheets of panels (gif.py with Pillow, the page with a few lines of JavaScript), whichever game they
come from (a replay of an experiment here, a captain's game in captain.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from battlelog.rules.answers import MISS, SUNK
from battlelog.rules.geometry import Cell, Placement
from battlelog.rules.state import GameState
from battlelog.views.replay import colors
from battlelog.views.replay.frames import Frame, Replay

#: Marks drawn over a cell: a shot into the water, and a hit.
MISS_MARK, HIT_MARK = "o", "x"


@dataclass(frozen=True)
class Panel:
    """One N x N board: a key naming its kind, a title and, row-major, each cell's fill colour, number text and mark."""

    key: str
    title: str
    fills: tuple[str, ...]
    texts: tuple[str, ...]
    marks: tuple[str, ...]


@dataclass(frozen=True)
class Sheet:
    """One frame as both pictures draw it: its caption, its panels, the cell outlined as the next shot, and
    a list beside the boards (a captain's questions) with the line to highlight."""

    caption: str
    panels: tuple[Panel, ...]
    next_cell: Cell | None
    notes: tuple[str, ...] = ()
    current: int | None = None


@dataclass(frozen=True)
class Pictures:
    """Every frame of a replay as sheets, with what the pictures say once: title, note, board shape and legend."""

    title: str
    note: str
    rows: int
    cols: int
    legend: str
    sheets: tuple[Sheet, ...]
    notes_title: str = ""  # the heading of the list beside the boards


#: The legend of an experiment's replay.
LEGEND = f"o miss   x hit   blue frame: the next shot\n{colors.SUNK_LEGEND}"


def pictures(replay: Replay) -> Pictures:
    """An experiment's replay as sheets: each frame's panels, caption and next shot."""
    config = replay.frames[0].state.config
    sheets = tuple(Sheet(f.caption(), tuple(frame_panels(replay, f)), f.next_shot) for f in replay.frames)
    return Pictures(replay.title, replay.note, config.rows, config.cols, LEGEND, sheets)


def frame_panels(replay: Replay, frame: Frame) -> list[Panel]:
    """The posterior, the hidden board when it is known, and the player's scores when it exposes them."""
    panels = [heat_panel(frame)]
    if replay.game.layout is not None:
        panels.append(board_panel(frame.state, replay.game.layout))
    if replay.scorer is not None and frame.scores is not None:
        panels.append(scores_panel(frame, replay.scorer))
    return panels


def percent_text(p: float) -> str:
    """A probability as a whole percentage; "0" and "100" only when certain, "<1" and ">99" when nearly so."""
    if p <= 1e-12 or p >= 1 - 1e-12:
        return "0" if p < 0.5 else "100"
    return "<1" if p < 0.005 else ">99" if p > 0.995 else f"{100 * p:.0f}"


def heat_fill(p: float) -> str:
    """The heat scale's colour of a value in [0, 1] (clipped)."""
    palette = colors.heat_palette()
    return palette[round(float(np.clip(p, 0.0, 1.0)) * (len(palette) - 1))]


def heat_panel(frame: Frame) -> Panel:
    """The occupancy marginals in percent; shots by their answer (the sinking hit darkest)."""
    percent = [percent_text(float(v)) for v in frame.cells.ravel()]
    return _values_panel("posterior", "chance of a ship (%)", frame.state, frame.cells, percent)


def scores_panel(frame: Frame, player: str) -> Panel:
    """The player's scores on the unshot cells, scaled from 0 (its worst) to 100 (its best); all 100 when all tie."""
    assert frame.scores is not None
    unshot = frame.scores[~np.isnan(frame.scores)]
    low, high = (float(unshot.min()), float(unshot.max())) if unshot.size else (0.0, 0.0)
    scaled = (frame.scores - low) / (high - low) if high > low else np.ones_like(frame.scores)
    texts = [f"{100 * v:.0f}" for v in np.nan_to_num(scaled).ravel()]
    return _values_panel("scores", f"{player}'s scores (worst 0, best 100)", frame.state, np.nan_to_num(scaled), texts)


def _values_panel(key: str, title: str, state: GameState, values: np.ndarray, texts: list[str]) -> Panel:
    """Unshot cells coloured by ``values`` (in [0, 1]) and labelled ``texts``; shot cells by their answer."""
    answers = {shot.cell: shot.result for shot in state.shots}
    fills, labels, marks = [], [], []
    for i, cell in enumerate(_cells(state.rows, state.cols)):
        result = answers.get(cell)
        if result is None:
            fills.append(heat_fill(float(values[cell])))
        else:
            fills.append(colors.MISS if result == MISS else colors.SUNK if result == SUNK else colors.HIT)
        labels.append(texts[i] if result is None else "")
        marks.append("" if result is None else MISS_MARK if result == MISS else HIT_MARK)
    return Panel(key, title, tuple(fills), tuple(labels), tuple(marks))


def board_panel(state: GameState, layout: tuple[Placement, ...]) -> Panel:
    """The referee's view: every ship (numbered by its index in the fleet), shots, and the ships sunk."""
    owner = {cell: p.ship for p in layout for cell in p.cells}
    sunk = {ship for ship, _, _ in state.sinks}
    shot = state.shot_cells
    fills, labels, marks = [], [], []
    for cell in _cells(state.rows, state.cols):
        ship = owner.get(cell)
        if ship is None:
            fills.append(colors.MISS if cell in shot else colors.WATER)
            marks.append(MISS_MARK if cell in shot else "")
        else:
            fills.append(colors.SUNK if ship in sunk else colors.HIT if cell in shot else colors.SHIP)
            marks.append(HIT_MARK if cell in shot else "")
        labels.append(str(ship) if ship is not None and cell not in shot else "")
    return Panel("board", "hidden board (ship numbers)", tuple(fills), tuple(labels), tuple(marks))


def _cells(rows: int, cols: int) -> list[Cell]:
    return [(r, c) for r in range(rows) for c in range(cols)]
