"""Hidden layouts drawn uniformly over all valid layouts (the prior every Bayesian player assumes)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from battlelog.errors import FleetError
from battlelog.rules.config import GameConfig, fleet_text
from battlelog.rules.geometry import Cell, Placement


def sample_layout(config: GameConfig, rng: np.random.Generator, max_tries: int = 1_000_000) -> tuple[Placement, ...]:
    """A layout drawn uniformly from all valid layouts, by rejection.

    Each ship's placement is drawn uniformly from its canonical placements and the whole layout is
    rejected on any overlap; stopping at the first overlap only saves work, it does not bias the draw.
    Placing ships one by one in the room left would NOT be uniform (see the spec).
    """
    options = [config.placements(i) for i in range(len(config.ships))]
    for _ in range(max_tries):
        taken: set[Cell] = set()
        layout: list[Placement] = []
        for ship_options in options:
            p = ship_options[int(rng.integers(len(ship_options)))]
            if taken.intersection(p.cells):
                break
            taken.update(p.cells)
            layout.append(p)
        else:
            return tuple(layout)
    raise FleetError(
        f"fleet {fleet_text(config.ships)} on a {config.size}x{config.size} board is packed so tightly "
        f"that uniform sampling found no layout in {max_tries} tries"
    )


def layouts_overlap(layout: Sequence[Placement]) -> bool:
    """True if two ships of the layout share a cell."""
    cells = [cell for p in layout for cell in p.cells]
    return len(cells) != len(set(cells))
