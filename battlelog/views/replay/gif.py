"""Frames of a replay as images (Pillow): the panels side by side under the frame's caption, a list beside them.

Marks are drawn as shapes, not glyphs, so that no font needs symbols; the numbers use Pillow's own
scalable font, so the pictures look the same on every machine.
"""

from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from battlelog.files import replacing
from battlelog.rules.geometry import Cell
from battlelog.views.replay import colors
from battlelog.views.replay.panels import HIT_MARK, MISS_MARK, Panel, Pictures, Sheet

MARGIN, GAP, LABEL = 16, 28, 20  # pixels: around the picture, between panels, for row and column labels
_NOTE_FONT_SIZE, NOTE_LINE = 12, 17  # the list beside the boards: its font size and line height in pixels


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def cell_pixels(size: int) -> int:
    """Cell width: boards of any size come out between about 300 and 400 pixels wide."""
    return max(22, min(48, 360 // size))


def sheet_image(pictures: Pictures, sheet: Sheet) -> Image.Image:
    """One frame: title, caption, then each panel with its title, row and column labels and cells, and the
    sheet's list beside them (its current line highlighted). Every frame of a replay has the same size (a
    GIF keeps its first frame's): room for the longest list of any."""
    rows, cols = pictures.rows, pictures.cols
    cell = cell_pixels(max(rows, cols))
    board, height = LABEL + cols * cell, LABEL + rows * cell
    boards = len(sheet.panels) * board + (len(sheet.panels) - 1) * GAP
    lines = {line for other in pictures.sheets for line in other.notes}
    listing = max((_font(_NOTE_FONT_SIZE).getlength(line) for line in lines | {pictures.notes_title}), default=0.0)
    width = 2 * MARGIN + boards + (GAP + round(listing) if lines else 0)
    body = max(20 + height, 20 + max(len(other.notes) for other in pictures.sheets) * NOTE_LINE)
    top = MARGIN + 52
    image = Image.new("RGB", (max(width, 560), top + body + 46 + MARGIN), colors.PAPER)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, MARGIN), pictures.title, fill=colors.INK, font=_font(16))
    draw.text((MARGIN, MARGIN + 24), sheet.caption, fill=colors.INK, font=_font(15))
    for i, panel in enumerate(sheet.panels):
        _draw_panel(draw, panel, MARGIN + i * (board + GAP), top, (rows, cols), cell, sheet.next_cell)
    if lines:
        draw.text((MARGIN + boards + GAP, top), pictures.notes_title, fill=colors.INK, font=_font(13))
    if sheet.notes:
        _draw_notes(draw, sheet, MARGIN + boards + GAP, top)
    draw.multiline_text((MARGIN, top + body + 8), pictures.legend, fill="#555555", font=_font(12))
    return image


def _draw_notes(draw: ImageDraw.ImageDraw, sheet: Sheet, x: int, y: int) -> None:
    """The sheet's list from (x, y) down, one line each, the current one on a highlight."""
    font = _font(_NOTE_FONT_SIZE)
    for k, line in enumerate(sheet.notes):
        top = y + 20 + k * NOTE_LINE
        if k == sheet.current:
            draw.rectangle(draw.textbbox((x, top), line, font=font), fill=colors.HIGHLIGHT)
        draw.text((x, top), line, fill=colors.INK, font=font)


def _draw_panel(
    draw: ImageDraw.ImageDraw, panel: Panel, x: int, y: int, shape: tuple[int, int], cell: int, next_shot: Cell | None
) -> None:
    """A panel with its top-left corner at (x, y): title, labels, cells, marks and the next shot."""
    draw.text((x, y), panel.title, fill=colors.INK, font=_font(13))
    grid_x, grid_y = x + LABEL, y + 20 + LABEL
    labels, numbers = _font(11), _font(max(9, cell * 2 // 5))
    rows, n = shape
    for k in range(n):
        draw.text((grid_x + k * cell + cell // 2, grid_y - 4), str(k + 1), fill="#555555", font=labels, anchor="md")
    for k in range(rows):
        draw.text(
            (grid_x - 6, grid_y + k * cell + cell // 2), string.ascii_uppercase[k], fill="#555555", font=labels, anchor="rm"
        )
    for i in range(rows * n):
        r, c = divmod(i, n)
        box = (grid_x + c * cell, grid_y + r * cell, grid_x + (c + 1) * cell - 1, grid_y + (r + 1) * cell - 1)
        fill, ink = panel.fills[i], colors.text_color(panel.fills[i])
        draw.rectangle(box, fill=fill, outline="#d0d0d0")
        centre = ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)
        if panel.marks[i] == MISS_MARK:
            radius = cell // 7
            draw.ellipse(
                (centre[0] - radius, centre[1] - radius, centre[0] + radius, centre[1] + radius), outline="#44546a", width=2
            )
        elif panel.marks[i] == HIT_MARK:
            arm = cell // 4
            for sign in (1, -1):
                draw.line(
                    (centre[0] - arm, centre[1] - sign * arm, centre[0] + arm, centre[1] + sign * arm), fill="#ff5a4a", width=3
                )
        elif panel.texts[i]:
            draw.text(centre, panel.texts[i], fill=ink, font=numbers, anchor="mm")
    if next_shot is not None:
        r, c = next_shot
        box = (grid_x + c * cell, grid_y + r * cell, grid_x + (c + 1) * cell - 1, grid_y + (r + 1) * cell - 1)
        draw.rectangle(box, outline=colors.NEXT, width=3)


def write_gif(pictures: Pictures, path: Path, seconds_per_frame: float = 0.8) -> None:
    """Every frame, in order, as an animated GIF that loops; the last frame stays three times longer."""
    images = [sheet_image(pictures, sheet) for sheet in pictures.sheets]
    durations = [round(1000 * seconds_per_frame)] * len(images)
    durations[-1] *= 3
    with replacing(path) as scratch:
        images[0].save(scratch, "GIF", save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=True)


def write_still(pictures: Pictures, path: Path, index: int) -> None:
    """Frame ``index`` as a PNG (the README shows one)."""
    with replacing(path) as scratch:
        sheet_image(pictures, pictures.sheets[index]).save(scratch, "PNG", optimize=True)
