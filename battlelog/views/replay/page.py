"""A replay as one self-contained HTML page: the frames as JSON in the page, painted by a few lines of
JavaScript (templates/replay.html.j2), with no file, server or network needed to view it.

The panels are decided in Python (panels.py), as for the GIF; the page only paints them. Colours are
sent once, as a table that cells refer to by index, which keeps a 10x10 game's page small.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from battlelog.files import write_text
from battlelog.templating import environment
from battlelog.views.replay import colors
from battlelog.views.replay.frames import Replay
from battlelog.views.replay.gif import cell_pixels
from battlelog.views.replay.panels import frame_panels

PAGE_TEMPLATE = "replay.html.j2"


def page_data(replay: Replay, seconds_per_frame: float) -> dict[str, Any]:
    """What the page's script paints: the colour table and, per frame, its caption, next shot and panels."""
    table: dict[str, int] = {}
    frames = []
    for frame in replay.frames:
        panels = []
        for panel in frame_panels(replay, frame):
            fills = [table.setdefault(fill, len(table)) for fill in panel.fills]
            marks = "".join(mark or "." for mark in panel.marks)
            panels.append({"key": panel.key, "title": panel.title, "fill": fills, "text": list(panel.texts), "mark": marks})
        n = frame.state.cols
        following = None if frame.next_shot is None else frame.next_shot[0] * n + frame.next_shot[1]
        frames.append({"caption": frame.caption(), "next": following, "panels": panels})
    return {
        **replay.frames[0].state.config.board_json(),
        "rows": replay.frames[0].state.rows,
        "cols": replay.frames[0].state.cols,
        "delay_ms": round(1000 * seconds_per_frame),
        "colors": [[fill, colors.text_color(fill)] for fill in table],
        "frames": frames,
    }


def render_page(replay: Replay, seconds_per_frame: float = 0.8) -> str:
    """The page's HTML text."""
    size = max(replay.frames[0].state.rows, replay.frames[0].state.cols)
    return environment(html=True).get_template(PAGE_TEMPLATE).render(
        title=replay.title,
        note=replay.note,
        frames=len(replay.frames),
        data=page_data(replay, seconds_per_frame),
        cell=cell_pixels(size),
        next_color=colors.NEXT,
        sunk_legend=colors.SUNK_LEGEND,
    )


def write_page(replay: Replay, path: Path, seconds_per_frame: float = 0.8) -> None:
    """Write the page (UTF-8)."""
    write_text(path, render_page(replay, seconds_per_frame))
