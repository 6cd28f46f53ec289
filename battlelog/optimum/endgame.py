"""Optimal endgames on any board: the optimum's search run on the layouts a state leaves possible.

Late in a game the consistent layouts are few (:mod:`battlelog.optimum.consistent` lists them), and
the optimal play from there on is the solution of a small instance: the belief state (C, H) of
:mod:`battlelog.optimum.search` with C those layouts. Only the cells some layout of C covers matter
(any other unshot cell is a certain miss, which leaves C unchanged and costs a shot), so the cells
are renumbered to those, which must be at most 64 (the search's masks); a ship that lies in the same
place in every layout of C with all its cells hit is left out (it answers no future shot). No
symmetry is used: the renumbered cells have no board shape left. The result is exact: the total T
(shots still to fire, summed over C) in integers, and an optimal shot.

:func:`optimal_endgame` is the entry point for players (the ``endgame`` player, and the rollout
player's endgames): ``(cell, expected shots to finish)`` or None when the state has too many layouts.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from battlelog.errors import BattlelogError
from battlelog.optimum import search
from battlelog.optimum.consistent import Consistent, cell_of, consistent_layouts
from battlelog.optimum.group import Symmetries
from battlelog.optimum.layouts import SINK_MODES
from battlelog.optimum.table import FIRST_CAPACITY, StateTable
from battlelog.rules.geometry import Cell, cells_mask
from battlelog.rules.state import GameState

#: The search's cell masks are one 64-bit word.
MAX_CELLS = 64
#: Search nodes an endgame may visit before it gives up (a budget in nodes, not seconds, so that a
#: game depends only on its seed).
MAX_NODES = 200_000
#: The largest table of solved states an endgame may grow (slots; about 100 MB at two key words).
MAX_CAPACITY = 1 << 22


@dataclass(frozen=True)
class Endgame:
    """The solution of a state's endgame: an optimal shot, and T, the optimal number of shots still to
    fire (this one included) summed over the ``layouts`` consistent layouts."""

    cell: Cell
    total: int
    layouts: int
    #: Search nodes the solve visited.
    nodes: int = 0

    @property
    def expected(self) -> Fraction:
        """The exact expected number of shots to finish, under the uniform prior over the layouts."""
        return Fraction(self.total, self.layouts)


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def solve_endgame(
    state: GameState, max_layouts: int, found: Consistent | None = None, max_nodes: int = MAX_NODES
) -> Endgame | None:
    """The optimal endgame of ``state``, or None when it has more than ``max_layouts`` consistent layouts,
    they cover more than 64 cells, or the search needs more than ``max_nodes`` nodes (0: no limit).
    ``found``: the state's consistent layouts, if already listed."""
    if state.over:
        raise BattlelogError("the game is over: there is no shot to choose")
    if state.config.rules.is_salvo:
        raise BattlelogError(f"an optimal endgame fires one shot a turn, not {state.config.rules.text()}")
    if not state.config.prior.is_uniform:
        raise BattlelogError("an optimal endgame assumes uniform layouts; this board has a prior")
    if found is None:
        found = consistent_layouts(state, max_layouts)
    if found is None or len(found) > max_layouts:
        return None
    if len(found) == 0:
        raise BattlelogError("contradictory state: no layout fits the answers")
    hits = cells_mask(state.hits, state.cols)
    ships = len(state.ships)
    settled = [i for i in range(ships) if len({m[i] for m in found.masks}) == 1 and found.masks[0][i] & ~hits == 0]
    kept = [i for i in range(ships) if i not in settled]
    masks = [[m[i] for i in kept] for m in found.masks]
    union = 0
    for lay in masks:
        for mask in lay:
            union |= mask
    cells = _bits(union)
    if len(cells) > MAX_CELLS:
        return None
    fleet = sum(state.ships[i] for i in kept)
    if len(found) == 1:  # the layout is known: its unhit cells, in board order
        rest = union & ~hits
        return Endgame(cell_of(_bits(rest)[0], state.cols), fleet - len(_bits(union & hits)), 1)
    index = {x: k for k, x in enumerate(cells)}

    def renumbered(mask: int) -> int:
        return sum(1 << index[x] for x in _bits(mask))

    n, count = len(found), len(cells)
    ship_masks = np.array([[renumbered(m) for m in lay] for lay in masks], dtype=np.uint64)
    placement = np.zeros((n, len(kept)), dtype=np.int32)
    sizes = []
    for j in range(len(kept)):
        seen: dict[int, int] = {}
        for row in range(n):
            placement[row, j] = seen.setdefault(int(ship_masks[row, j]), len(seen))
        sizes.append(len(seen))
    union_masks: np.ndarray = np.bitwise_or.reduce(ship_masks, axis=1)
    owner = np.full((n, count), -1, dtype=np.int8)
    bits = np.uint64(1) << np.arange(count, dtype=np.uint64)
    for j in range(len(kept)):
        owner[(ship_masks[:, j : j + 1] & bits[None, :]) != 0] = j
    most = max(sizes)
    identity = Symmetries(
        np.arange(count, dtype=np.int64)[None, :],
        np.arange(count, dtype=np.int64)[None, :],
        np.arange(len(kept), dtype=np.int64)[None, :],
        np.array([[list(range(s)) + [-1] * (most - s) for s in sizes]], dtype=np.int64),
    )
    offsets = np.cumsum([count, *sizes[:-1]]).astype(np.int64)
    words = -(-(count + sum(sizes)) // 64)
    options = np.array([search.BOUND_MISSES, search.ORDER_BOUND, SINK_MODES[state.config.rules.sinks]], dtype=np.int64)
    stats = np.zeros(search.STATS, dtype=np.int64)
    stats[search.NODE_LIMIT] = max_nodes
    table = StateTable.empty(FIRST_CAPACITY, words)
    everything = np.arange(n, dtype=np.int32)
    hit_bits = np.uint64(renumbered(hits & union))
    while True:
        stats[search.STOP] = search.RUNNING
        stats[search.MAY_GROW] = len(table) < MAX_CAPACITY
        total = search.search(
            everything,
            hit_bits,
            search.INFINITE,
            0,
            ship_masks,
            owner,
            placement,
            union_masks,
            identity.cells,
            identity.ships,
            identity.placements,
            offsets,
            words,
            fleet,
            table.arrays,
            stats,
            options,
        )
        if total != search.STOPPED:
            break
        if stats[search.STOP] != search.STOP_TO_GROW:
            return None  # over the node budget
        table = table.grown(stats)
    key, _, _ = search.canonical_key(
        everything, hit_bits, placement, ship_masks, identity.cells, identity.ships, identity.placements, offsets, words
    )
    slot = search.find_slot(table.keys, table.flags, key)
    if slot < 0 or table.flags[slot] != search.EXACT:  # the root is stored last, by the costliest work
        raise BattlelogError("the endgame's search lost its root state")
    return Endgame(cell_of(cells[int(table.actions[slot])], state.cols), int(total), n, int(stats[search.NODES]))


def optimal_endgame(state: GameState, max_layouts: int, max_nodes: int = MAX_NODES) -> tuple[Cell, Fraction] | None:
    """An optimal shot of ``state`` and the exact expected number of shots to finish (this one
    included) when it has at most ``max_layouts`` consistent layouts (uniform prior) and the search
    fits ``max_nodes`` nodes; else None."""
    solved = solve_endgame(state, max_layouts, max_nodes=max_nodes)
    return None if solved is None else (solved.cell, solved.expected)
