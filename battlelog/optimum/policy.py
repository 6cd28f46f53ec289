"""Complete policies as trees: read from a solved weighted search, written as JSON, played against a layout.

A tree is ``{"shot": [r, c], "miss": TREE, "hit": TREE, "sunk": {"0": TREE, ...}}`` and ``None`` once the
fleet is sunk: the shot to fire, then the tree to follow after each answer. Under named sinks "sunk" maps
the ship's number to its tree; under unnamed sinks "sunk" is the tree itself; under silent sinks there is
no "sunk". A branch no layout of the instance can take is left out, so a tree is complete when every
layout of the instance finds a branch at every shot and is sunk at the end (:func:`shots_against` checks
it as it plays).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from battlelog.errors import BattlelogError
from battlelog.optimum.layouts import SINK_MODES, SINKS_NAMED, LayoutTable
from battlelog.optimum.prior_solver import WeightedSolver
from battlelog.rules.answers import HIT_CODE, MISS_CODE, SUNK_CODE

Tree = dict[str, Any] | None


def _branch(code: int, named: bool) -> tuple[str, str | None]:
    """Where an answer code leads in a tree: ``("miss", None)``, ``("hit", None)``, ``("sunk", "i")`` or ``("sunk", None)``."""
    if code == MISS_CODE:
        return "miss", None
    if code == HIT_CODE:
        return "hit", None
    return "sunk", (str(code - SUNK_CODE) if named else None)


def policy_tree(solver: WeightedSolver) -> Tree:
    """The optimal policy of ``solver``'s instance as a complete tree (every layout of its table)."""
    layouts = solver.layouts
    cols = layouts.config.cols
    named = SINK_MODES[layouts.config.rules.sinks] == SINKS_NAMED
    fleet = layouts.config.ship_cells

    def grow(alive: np.ndarray, hits: int) -> Tree:
        if bin(hits).count("1") == fleet:
            return None
        x = solver.best_cell(alive, hits)
        codes = layouts.answers(alive, hits, divmod(x, cols))
        node: dict[str, Any] = {"shot": list(divmod(x, cols))}
        for code in sorted(set(int(c) for c in codes)):
            after = hits if code == MISS_CODE else hits | (1 << x)
            child = grow(alive[codes == code], after)
            branch, ship = _branch(code, named)
            if ship is None:
                node[branch] = child
            else:
                node.setdefault(branch, {})[ship] = child
        return node

    return grow(np.arange(len(layouts), dtype=np.int32), 0)


def shots_against(tree: Tree, layouts: LayoutTable, layout: int) -> int:
    """How many shots ``tree`` fires until layout number ``layout`` of ``layouts`` is sunk; a tree that shoots a
    cell twice, lacks the branch the layout takes or stops early is refused (BattlelogError)."""
    config = layouts.config
    named = SINK_MODES[config.rules.sinks] == SINKS_NAMED
    everything = np.array([layout], dtype=np.int32)
    union = int(layouts.union[layout])
    shot = hits = 0
    count = 0
    node = tree
    while hits != union:
        if not isinstance(node, dict) or "shot" not in node:
            raise BattlelogError(f"the tree stops before layout {layout} is sunk")
        r, c = node["shot"]
        x = r * config.cols + c
        if not (0 <= r < config.rows and 0 <= c < config.cols) or shot >> x & 1:
            raise BattlelogError(f"the tree shoots {r},{c} again, or off the board")
        shot |= 1 << x
        count += 1
        code = int(layouts.answers(everything, hits, (r, c))[0])
        hits |= (1 << x) if code != MISS_CODE else 0
        branch, ship = _branch(code, named)
        node = node.get(branch) if ship is None else (node.get(branch) or {}).get(ship, {})
    if node is not None:
        raise BattlelogError(f"the tree goes on after layout {layout} is sunk")
    return count


def shots_table(trees: list[Tree], layouts: LayoutTable) -> np.ndarray:
    """``shots[t, lay]``: the shots tree t fires against layout l."""
    return np.array([[shots_against(tree, layouts, lay) for lay in range(len(layouts))] for tree in trees], dtype=np.int64)


__all__ = ["Tree", "policy_tree", "shots_against", "shots_table"]
