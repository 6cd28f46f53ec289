"""The colours of replays, shared by the GIF and the HTML page so that both read the same way.

Probabilities go from white (0) through yellow and orange to dark red (1): darker is likelier, as
in the heat maps of the Battleship articles. Shot cells take flat colours of their own, so that a
0% miss never looks like a 0% unshot cell.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import pairwise

#: (position, colour) stops of the heat scale.
HEAT_STOPS = ((0.0, "#ffffff"), (0.25, "#ffe8a0"), (0.5, "#fdae61"), (0.75, "#e4472b"), (1.0, "#7a0a0a"))

MISS = "#c9d6e3"  # a shot into the water
HIT = "#4f5660"  # a hit on a ship not sunk yet
SUNK = "#000000"  # the cells of a sunk ship
WATER = "#e8f1f8"  # the hidden board's empty cells
SHIP = "#7d8b99"  # the hidden board's ship cells not hit yet
NEXT = "#1565c0"  # the outline of the next shot
INK, PAPER = "#111111", "#ffffff"  # text on light and on dark cells
HIGHLIGHT = "#fff1a8"  # the current line of the list beside the boards
#: A captain's ships: each colour's hits, and its tiles not shot yet on the true board (faint).
SHIP_COLORS = {"Red": "#d62728", "Green": "#2ca02c", "Purple": "#8e5cc4", "Orange": "#f28e1c"}
FAINT_SHIP_COLORS = {"Red": "#f5c4c4", "Green": "#c8e8c8", "Purple": "#e0d2f0", "Orange": "#fbdcb8"}

#: What the darkest cells are, in both legends: the heat maps cannot know a sunk ship's other cells
#: (several placements may fit the hits), so they blacken only the sinking shot; the hidden board knows.
SUNK_LEGEND = "darkest: the shot that sank a ship (on the hidden board, the whole ship)"


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


@lru_cache(maxsize=4)
def heat_palette(steps: int = 101) -> tuple[str, ...]:
    """``steps`` colours evenly spaced along the heat scale, as ``#rrggbb``."""
    out = []
    for i in range(steps):
        x = i / (steps - 1)
        (x0, c0), (x1, c1) = next((a, b) for a, b in pairwise(HEAT_STOPS) if x <= b[0])
        t = (x - x0) / (x1 - x0)
        rgb = [round(a + (b - a) * t) for a, b in zip(_rgb(c0), _rgb(c1))]
        out.append("#{:02x}{:02x}{:02x}".format(*rgb))
    return tuple(out)


def text_color(background: str) -> str:
    """Dark text on light backgrounds, light text on dark ones (luminance below 140 of 255)."""
    r, g, b = _rgb(background)
    return INK if 0.2126 * r + 0.7152 * g + 0.0722 * b > 140 else PAPER
