"""Every layout consistent with a game state, on any board, when there are few of them.

The optimum's :class:`~battlelog.optimum.layouts.LayoutTable` lists every layout of an instance, which
only small boards allow. Late in a game on any board the consistent layouts are few, and they can be
listed directly: each ship's placements are filtered by the per-ship tests of docs/rules.md ("Per
ship": no miss covered; at every hit shot on the placement, the answer the sink rule gives for that
ship, "sunk" exactly when the placement lies inside the hits up to that shot), then combined ship by
ship (fewest candidates first) without overlap or forbidden contact, a branch being dropped as soon
as some hit can no longer be covered. A combination covering every hit is consistent: each hit is
some ship's, and that ship's test gave the recorded answer (the tests are exact under every sink
rule). Masks are Python integers (bit ``r * cols + c``), so any board size works.
"""

from __future__ import annotations

from dataclasses import dataclass

from battlelog.rules.answers import HIT_CODE, SUNK, SUNK_CODE
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, cells_mask
from battlelog.rules.state import GameState
from battlelog.rules.variants import NAMED, SILENT

#: Partial layouts visited before the enumeration gives up (a bound on its time, whatever the state).
MAX_NODES = 2_000_000


@dataclass(frozen=True)
class Consistent:
    """The consistent layouts of a state: ``layouts[l][i]`` is the index of ship i's placement in
    ``config.placements(i)``; ``masks[l][i]`` the cells it covers."""

    config: GameConfig
    layouts: tuple[tuple[int, ...], ...]
    masks: tuple[tuple[int, ...], ...]

    def __len__(self) -> int:
        return len(self.layouts)


def answer_codes(state: GameState) -> list[tuple[int, int, int]]:
    """(cell index, answer code, hits mask after the shot) of every hit shot, in order."""
    named = state.config.rules.sinks == NAMED
    out = []
    hits = 0
    for shot in state.shots:
        if shot.is_hit:
            x = shot.cell[0] * state.cols + shot.cell[1]
            hits |= 1 << x
            code = HIT_CODE
            if shot.result == SUNK:
                code = SUNK_CODE + (shot.ship if named and shot.ship is not None else 0)
            out.append((x, code, hits))
    return out


def ship_candidates(state: GameState, ship: int) -> list[tuple[int, int]]:
    """(placement index, mask) of every placement of ``ship`` that passes its per-ship test."""
    config = state.config
    misses = cells_mask(state.misses, state.cols)
    shots = answer_codes(state)
    sinks = config.rules.sinks
    sunk_code = SUNK_CODE + (ship if sinks == NAMED else 0)
    out = []
    for k, placement in enumerate(config.placements(ship)):
        mask = cells_mask(placement.cells, state.cols)
        if mask & misses:
            continue
        ok = True
        for x, code, hits in shots:
            if mask >> x & 1:
                inside = mask & ~hits == 0
                expected = sunk_code if inside and sinks != SILENT else HIT_CODE
                if expected != code:
                    ok = False
                    break
        if ok:
            out.append((k, mask))
    return out


def consistent_layouts(state: GameState, limit: int, max_nodes: int = MAX_NODES) -> Consistent | None:
    """The layouts consistent with ``state``, or None when there are more than ``limit`` of them (or
    listing them would visit more than ``max_nodes`` partial layouts)."""
    config = state.config
    n, rows = state.cols, state.rows
    hits = cells_mask(state.hits, n)
    ships = len(config.ships)
    candidates = [ship_candidates(state, i) for i in range(ships)]
    zones = [
        {k: cells_mask(config.rules.keep_out(config.placements(i)[k], rows, n), n) for k, _ in candidates[i]}
        for i in range(ships)
    ]
    order = sorted(range(ships), key=lambda i: len(candidates[i]))
    found: list[tuple[int, ...]] = []
    chosen = [0] * ships
    nodes = 0

    def extend(depth: int, covered: int, blocked: int) -> bool:
        """Place the ships from ``order[depth]`` on; False once past a limit."""
        nonlocal nodes
        nodes += 1
        if nodes > max_nodes:
            return False
        if depth == ships:
            if covered & hits == hits:
                found.append(tuple(chosen))
                return len(found) <= limit
            return True
        uncovered = hits & ~covered
        if uncovered:  # every uncovered hit must still be coverable by a ship to come
            reach = 0
            for i in order[depth:]:
                for _, mask in candidates[i]:
                    if mask & blocked == 0:
                        reach |= mask
            if uncovered & ~reach:
                return True
        i = order[depth]
        for k, mask in candidates[i]:
            if mask & blocked == 0:
                chosen[i] = k
                if not extend(depth + 1, covered | mask, blocked | zones[i][k]):
                    return False
        return True

    if not extend(0, 0, 0):
        return None
    masks = [{k: mask for k, mask in candidates[i]} for i in range(ships)]
    return Consistent(config, tuple(found), tuple(tuple(masks[i][k] for i, k in enumerate(lay)) for lay in found))


def cell_of(index: int, cols: int) -> Cell:
    """The cell of bit ``index`` on a board ``cols`` wide."""
    return divmod(index, cols)
