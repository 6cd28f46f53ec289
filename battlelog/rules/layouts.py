"""Hidden layouts: drawn uniformly over all layouts legal under the rules (the prior every Bayesian player
assumes), and written and read as game records hold them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from battlelog.errors import FileFormatError, FleetError
from battlelog.rules.config import GameConfig, fleet_text
from battlelog.rules.geometry import Cell, Placement
from battlelog.rules.variants import ALLOWED


def sample_layout(config: GameConfig, rng: np.random.Generator, max_tries: int = 1_000_000) -> tuple[Placement, ...]:
    """A layout drawn uniformly from all layouts legal under the touch rule, by rejection.

    Each ship's placement is drawn uniformly from its canonical placements and the whole layout is
    rejected on any overlap, or any contact the touch rule forbids (each ship keeps the cells of
    ``Rules.keep_out`` from the ships after it); stopping at the first clash only saves work, it does
    not bias the draw. Placing ships one by one in the room left would NOT be uniform (see the spec).
    A configuration whose layouts are too rare for ``max_tries`` draws is a one-line error, not a hang.
    """
    options = [config.placements(i) for i in range(len(config.ships))]
    rules = config.rules
    for _ in range(max_tries):
        taken: set[Cell] = set()
        layout: list[Placement] = []
        for ship_options in options:
            p = ship_options[int(rng.integers(len(ship_options)))]
            if taken.intersection(p.cells):
                break
            taken.update(p.cells if rules.touch == ALLOWED else rules.keep_out(p, config.rows, config.cols))
            layout.append(p)
        else:
            return tuple(layout)
    raise FleetError(
        f"fleet {fleet_text(config.ships)} on a {config.shape} board{' with ' + rules.text() if rules.touch != ALLOWED else ''} "
        f"is packed so tightly that uniform sampling found no layout in {max_tries} tries"
    )


def layouts_overlap(layout: Sequence[Placement]) -> bool:
    """True if two ships of the layout share a cell."""
    cells = [cell for p in layout for cell in p.cells]
    return len(cells) != len(set(cells))


_KEYS = ("ship", "length", "row", "col", "orientation")


def placement_json(placement: Placement) -> dict[str, Any]:
    """A placement as games.jsonl stores it: ship, length, canonical cell and orientation (h/v)."""
    return {
        "ship": placement.ship,
        "length": placement.length,
        "row": placement.row,
        "col": placement.col,
        "orientation": placement.orientation,
    }


def parse_layout(raw: Any, config: GameConfig, where: str) -> tuple[Placement, ...]:
    """A record's layout as placements: one per ship in the fleet's order, on the board, legal under the rules."""
    if not isinstance(raw, list) or len(raw) != len(config.ships):
        raise FileFormatError(f"{where}: layout must list one placement per ship of {config.label()}")
    layout = []
    for ship, p in enumerate(raw):
        if not isinstance(p, dict) or any(k not in p for k in _KEYS):
            raise FileFormatError(f"{where}: layout entry {ship} must be an object with {', '.join(_KEYS)}")
        whole = all(isinstance(p[k], int) and not isinstance(p[k], bool) for k in _KEYS[:4])
        placement = Placement(p["ship"], p["length"], p["row"], p["col"], p["orientation"] == "h") if whole else None
        if p["ship"] != ship or p["orientation"] not in ("h", "v") or placement not in config.placements(ship):
            raise FileFormatError(f"{where}: layout entry {ship} is not a placement of ship {ship} (length {config.ships[ship]}) "
                                  f"on the {config.shape} board")  # fmt: skip
        layout.append(placement)
    if layouts_overlap(layout):
        raise FileFormatError(f"{where}: the layout has two ships on one cell")
    if not config.rules.legal(layout, config.rows, config.cols):
        raise FileFormatError(f"{where}: the layout has two ships in contact, which {config.rules.text()} forbids")
    return tuple(layout)
