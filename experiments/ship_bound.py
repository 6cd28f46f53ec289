"""The search's ship bound at the empty board: a proven lower bound on the optimum of larger boards.

``search.ship_bound`` (docs/optimum.md, "The paper's boards") counts, for each ship, the shots that
hit no new ship cell before that ship's first hit when a helper has named where the other ships
lie; with the fleet's cells it bounds every policy's expected shots from below. It only lists the
layouts (boards up to 8x8), so it gives a bound where the search cannot run.

usage:
  python experiments/ship_bound.py 4:3,2,2 5:3,2 5:3,3,2 6:4,3,3 6:5,5,4 7:5,5,4
Prints one line per instance: layouts, the bound as an exact fraction and rounded.
"""

from __future__ import annotations

import argparse
from fractions import Fraction

import numpy as np

from battlelog.optimum import search
from battlelog.optimum.layouts import solvable_layouts
from battlelog.rules.config import GameConfig


def root_bound(config: GameConfig, max_layouts: int) -> tuple[int, Fraction]:
    """The number of layouts and the ship bound on the expected shots from the empty board."""
    table = solvable_layouts(config, max_layouts, 64)
    layouts = np.arange(len(table), dtype=np.int32)
    most = max(len(config.placements(i)) for i in range(len(config.ships)))
    misses = search.ship_bound(layouts, np.uint64(0), table.ship_masks, table.placement, most)
    return len(table), Fraction(len(table) * config.ship_cells + int(misses), len(table))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("instances", nargs="+", metavar="SIZE:SHIPS")
    parser.add_argument("--max-layouts", type=int, default=2_000_000)
    args = parser.parse_args()
    for instance in args.instances:
        size, ships = instance.split(":")
        config = GameConfig(int(size), tuple(int(s) for s in ships.split(",")))
        n, bound = root_bound(config, args.max_layouts)
        print(f"{config.label()}: {n:,} layouts, ship bound {bound} = {float(bound):.4f}", flush=True)


if __name__ == "__main__":
    main()
