"""The search's ship bound at the empty board: a proven lower bound on the optimum of larger boards.

``search.ship_bound`` (docs/optimum.md, "The paper's boards") counts, for each ship, the shots that
hit no new ship cell before that ship's first hit when a helper has named where the other ships
lie; with the fleet's cells it bounds every policy's expected shots from below. It only lists the
layouts (boards up to 8x8), so it gives a bound where the search cannot run. With --plies P it is
also printed under 1..P shots of full expansion (``search.ply_bound``: the least over the first
shots of the children's bounds), each ply some twenty times the last's time.

usage:
  python experiments/ship_bound.py 4:3,2,2 5:3,2 5:3,3,2 6:4,3,3 6:5,5,4 7:5,5,4
  python experiments/ship_bound.py 5:3,2 --plies 3
Prints one line per instance: layouts, the bound as an exact fraction and rounded.
"""

from __future__ import annotations

import argparse
from fractions import Fraction

import numpy as np

from battlelog.bits import SINKS_NAMED, SINKS_SILENT
from battlelog.optimum import search
from battlelog.optimum.layouts import SINK_MODES, solvable_layouts
from battlelog.rules.config import GameConfig
from battlelog.rules.symmetry import symmetries_of


def root_bound(config: GameConfig, max_layouts: int, plies: int = 0) -> tuple[int, Fraction]:
    """The number of layouts and the ship bound on the expected shots from the empty board, under
    ``plies`` shots of full expansion."""
    table = solvable_layouts(config, max_layouts, 64)
    layouts = np.arange(len(table), dtype=np.int32)
    most = max(len(config.placements(i)) for i in range(len(config.ships)))
    sinks = SINK_MODES[config.rules.sinks]

    def bound(members: np.ndarray, hits: int, depth: int) -> int:
        return int(
            search.ply_bound(
                members, np.uint64(hits), depth, table.ship_masks, table.owner, table.placement, table.union,
                config.ship_cells, sinks, most,
            )
        )

    if plies == 0:
        return len(table), Fraction(bound(layouts, 0, 0), len(table))
    # The first shot: one per class of the board's symmetries (symmetric shots have equal values).
    maps = [s.index_map(config.rows, config.cols) for s in symmetries_of(config.rows, config.cols)]
    best = None
    for x in range(config.cell_count):
        if any(m[x] < x for m in maps):
            continue
        bit = 1 << x
        answers: dict[tuple[int, int], list[int]] = {}
        for lay in layouts:
            ship = int(table.owner[lay, x])
            sunk = ship >= 0 and int(table.ship_masks[lay, ship]) & ~bit == 0 and sinks != SINKS_SILENT
            key = (-1 if ship < 0 else 0, ship if sunk and sinks == SINKS_NAMED else (-2 if sunk else -3))
            answers.setdefault(key, []).append(int(lay))
        total = len(table) + sum(
            bound(np.array(group, dtype=np.int32), 0 if key[0] < 0 else bit, plies - 1) for key, group in answers.items()
        )
        best = total if best is None else min(best, total)
    assert best is not None
    return len(table), Fraction(best, len(table))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("instances", nargs="+", metavar="SIZE:SHIPS")
    parser.add_argument("--max-layouts", type=int, default=2_000_000)
    parser.add_argument("--plies", type=int, default=0, help="also under 1..PLIES shots of full expansion")
    parser.add_argument("--only", type=int, default=None, metavar="PLIES", help="only under this many shots")
    args = parser.parse_args()
    for instance in args.instances:
        size, ships = instance.split(":")
        config = GameConfig(int(size), tuple(int(s) for s in ships.split(",")))
        for plies in range(args.plies + 1) if args.only is None else [args.only]:
            n, bound = root_bound(config, args.max_layouts, plies)
            print(f"{config.label()}: {n:,} layouts, ship bound {bound} = {float(bound):.4f} ({plies} plies)", flush=True)


if __name__ == "__main__":
    main()
