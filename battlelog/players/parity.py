"""The parity player (DataGenetics; Schwartz): hunt-target that hunts only on a checkerboard."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from battlelog.players.base import ScoringPlayer, idle_cells, masked
from battlelog.players.hunt_target import open_cells, target_key, target_list
from battlelog.players.knowledge import afloat_lengths, ruled_out
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState


def hunting_cells(state: GameState) -> list[Cell]:
    """The open unshot cells (r, c) with (r + c) mod d == 0, d the length of the shortest ship not
    certainly sunk (:func:`battlelog.players.knowledge.afloat_lengths`: under ``named`` the ships
    afloat, under ``unnamed`` all but the sinks of certain length, under ``silent`` every ship):
    every placement of every ship afloat covers one of them. Open: not ruled out by the touch rule
    (:func:`battlelog.players.knowledge.ruled_out`). All open unshot cells once none is left."""
    d = min(afloat_lengths(state))
    empty = ruled_out(state)
    lattice = [cell for cell in state.unshot if (cell[0] + cell[1]) % d == 0 and cell not in empty]
    return lattice or open_cells(state)


class ParityPlayer(ScoringPlayer):
    """Targets like hunt-target (the FIFO list of hits' neighbours); hunts at random on the lattice.
    Like hunt-target, it never shoots a cell the touch rule rules out while any other is left."""

    name = "parity"
    long_walk_layouts = 1000  # its lattice narrows the draws: 15 s on 4x4 3,2 (264 layouts), 84 s on 3,2,2 (3200)

    def scores(self, state: GameState) -> np.ndarray:
        """1 for the head of the target list, or while hunting for every lattice cell; 0 elsewhere."""
        values = np.zeros((state.rows, state.cols))
        targets = target_list(state)
        for cell in targets[:1] or hunting_cells(state):
            values[cell] = 1.0
        return masked(values, state)

    def choose_volley(self, state: GameState, k: int) -> list[Cell]:
        """Under salvo, one cell at a time as hunt-target does (the cells already picked count as shot)."""
        return self.one_at_a_time(state, k)

    def decision_key(self, state: GameState, possible: frozenset[Cell]) -> Hashable:
        """As hunt-target's, but the idle cells left are told apart by their place on every lattice
        the hunt may use; and the lengths not certainly sunk, which under unnamed sinks follow from
        the hits at each sink's time, not from the consistent layouts alone (later sinks are judged
        on later hits, so these and the key's state decide every later spacing)."""
        spacings = sorted(set(state.ships))
        idle = idle_cells(state, possible) - state.shot_cells
        lattices = sorted(tuple((r + c) % d for d in spacings) for r, c in idle)
        return target_key(state, possible), tuple(lattices), afloat_lengths(state)
