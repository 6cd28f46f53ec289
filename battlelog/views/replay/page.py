"""A replay as one self-contained HTML page: the frames as JSON in the page, painted by a few lines of
JavaScript (templates/replay.html.j2), with no file, server or network needed to view it.

The sheets are decided in Python (panels.py, captain.py), as for the GIF; the page only paints them. Colours are
sent once, as a table that cells refer to by index, which keeps a 10x10 game's page small.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from battlelog.files import write_text
from battlelog.templating import environment
from battlelog.views.replay import colors
from battlelog.views.replay.gif import cell_pixels
from battlelog.views.replay.panels import Pictures

PAGE_TEMPLATE = "replay.html.j2"


def page_data(pictures: Pictures, seconds_per_frame: float) -> dict[str, Any]:
    """What the page's script paints: the colour table and, per frame, its caption, next shot, panels and list."""
    table: dict[str, int] = {}
    frames = []
    for sheet in pictures.sheets:
        panels = []
        for panel in sheet.panels:
            fills = [table.setdefault(fill, len(table)) for fill in panel.fills]
            marks = "".join(mark or "." for mark in panel.marks)
            panels.append({"key": panel.key, "title": panel.title, "fill": fills, "text": list(panel.texts), "mark": marks})
        following = None if sheet.next_cell is None else sheet.next_cell[0] * pictures.cols + sheet.next_cell[1]
        frames.append(
            {"caption": sheet.caption, "next": following, "panels": panels, "notes": list(sheet.notes), "current": sheet.current}
        )
    return {
        **({"size": pictures.rows} if pictures.rows == pictures.cols else {}),  # as the JSON formats write a square board
        "rows": pictures.rows,
        "cols": pictures.cols,
        "delay_ms": round(1000 * seconds_per_frame),
        "colors": [[fill, colors.text_color(fill)] for fill in table],
        "notes_title": pictures.notes_title,
        "frames": frames,
    }


def render_page(pictures: Pictures, seconds_per_frame: float = 0.8) -> str:
    """The page's HTML text."""
    return environment(html=True).get_template(PAGE_TEMPLATE).render(
        title=pictures.title,
        note=pictures.note,
        frames=len(pictures.sheets),
        data=page_data(pictures, seconds_per_frame),
        cell=cell_pixels(max(pictures.rows, pictures.cols)),
        next_color=colors.NEXT,
        highlight=colors.HIGHLIGHT,
        legend=pictures.legend.replace("\n", "; "),
    )


def write_page(pictures: Pictures, path: Path, seconds_per_frame: float = 0.8) -> None:
    """Write the page (UTF-8)."""
    write_text(path, render_page(pictures, seconds_per_frame))
