"""The hunt-target player: random shots until a hit, then the hit's neighbours, first in first out.

Under a touch rule it skips the cells the rule makes certainly empty
(:func:`battlelog.players.knowledge.ruled_out`): they leave the target list, and it does not hunt on them.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from battlelog.players.base import ScoringPlayer, idle_cells, masked
from battlelog.players.knowledge import ruled_out
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState
from battlelog.rules.variants import ALLOWED


def target_list(state: GameState) -> list[Cell]:
    """The FIFO target list as it stands now, rebuilt from the shot history.

    After every hit (sinks count as hits), its N, S, E, W neighbours that were not shot by then and
    not already listed join the back of the list; cells shot since are dropped. Rebuilding it from the
    state gives exactly the list a stateful player would keep, and keeps the player a pure function
    of what it sees. Cells the touch rule rules out (:func:`ruled_out`) are dropped too.
    """
    rows, cols = state.rows, state.cols
    queue: list[Cell] = []
    listed: set[Cell] = set()
    shot_so_far: set[Cell] = set()
    for shot in state.shots:
        shot_so_far.add(shot.cell)
        if not shot.is_hit:
            continue
        r, c = shot.cell
        for cell in ((r - 1, c), (r + 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= cell[0] < rows and 0 <= cell[1] < cols and cell not in shot_so_far and cell not in listed:
                queue.append(cell)
                listed.add(cell)
    empty = ruled_out(state)
    return [cell for cell in queue if cell not in state.shot_cells and cell not in empty]


def open_cells(state: GameState) -> list[Cell]:
    """The unshot cells the touch rule does not rule out (all unshot cells under ``allowed``), row-major;
    all unshot cells should none be left."""
    empty = ruled_out(state)
    return [cell for cell in state.unshot if cell not in empty] or list(state.unshot)


def target_key(state: GameState, possible: frozenset[Cell]) -> Hashable:
    """The target list and the shot cells that are not idle: what the target list's future depends on
    (under a touch rule other than ``allowed``, the ordered shots: always right). The sink rule does
    not matter: a sink counts as a hit, and with touching allowed no cell is ever ruled out."""
    if state.config.rules.touch != ALLOWED:
        return state.shots, frozenset()
    return tuple(target_list(state)), state.shot_cells - idle_cells(state, possible)


class HuntTargetPlayer(ScoringPlayer):
    """Hunts at random; after a hit, shoots the target list (N, S, E, W neighbours) until it is empty.
    Cells the touch rule rules out are never shot (while any other is left)."""

    name = "hunt-target"
    long_walk_layouts = 0  # 43 s on 4x4 with one ship of 2 (24 layouts)

    def scores(self, state: GameState) -> np.ndarray:
        """1 for the head of the target list (0 elsewhere); every open unshot cell alike (0) while
        hunting; -1 for the cells the touch rule rules out."""
        values = np.zeros((state.rows, state.cols))
        for cell in ruled_out(state):
            values[cell] = -1.0
        targets = target_list(state)
        if targets:
            values[targets[0]] = 1.0
        return masked(values, state)

    def candidates(self, state: GameState) -> list[Cell]:
        """The head of the target list, or while hunting every open unshot cell (what ``scores`` ranks first)."""
        return target_list(state)[:1] or open_cells(state)

    def choose_volley(self, state: GameState, k: int) -> list[Cell]:
        """Under salvo, the target list in order, then the hunt: one cell at a time, the cells already
        picked counting as shot (its scores rank only the head of the list)."""
        return self.one_at_a_time(state, k)

    def decision_key(self, state: GameState, possible: frozenset[Cell]) -> Hashable:
        """The target list and the shot cells, idle ones only counted: a cell joins the list only if
        it is neither shot nor listed, and a listed cell that left the list was shot, so nothing else
        of the order matters; an idle cell is only ever drawn at random (see idle_cells)."""
        return target_key(state, possible), len(idle_cells(state, possible) - state.shot_cells)
