"""The probability-density player (after DataGenetics): count placements per cell, ships independent."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from battlelog.players.base import ScoringPlayer, masked
from battlelog.rules.geometry import Cell, placement_matrix, ship_placements
from battlelog.rules.state import GameState

#: How much more a placement counts for each unresolved hit it passes through (target mode).
TARGET_WEIGHT = 100.0


def resolved_cells(state: GameState) -> set[Cell]:
    """Hit cells that certainly belong to a sunk ship.

    A ship sunk at shot t on cell x lies inside H_t through x; the cells common to every such
    placement are surely its own. Hits that no sunk ship surely explains stay unresolved and keep
    drawing the player's fire: that is how the algorithm copes (badly) with adjacent ships.
    """
    out: set[Cell] = set()
    for ship, t, cell in state.sinks:
        inside = state.hits_after(t)
        common: set[Cell] | None = None
        for p in ship_placements(state.size, ship, state.ships[ship]):
            if cell in p.cells and inside.issuperset(p.cells):
                common = set(p.cells) if common is None else common & set(p.cells)
        out |= common or set()
    return out


def density(state: GameState) -> np.ndarray:
    """The score of every cell (N x N): weighted counts of placements of the ships still afloat.

    A placement counts if it avoids misses and resolved (sunk) cells; it counts TARGET_WEIGHT**k if
    it passes through k unresolved hits. Ships are counted independently, ignoring overlaps.
    """
    n = state.size
    resolved = resolved_cells(state)
    blocked = np.zeros(n * n, dtype=np.int64)
    open_hits = np.zeros(n * n, dtype=np.int64)
    for r, c in state.misses | resolved:
        blocked[r * n + c] = 1
    for r, c in state.hits - resolved:
        open_hits[r * n + c] = 1
    scores = np.zeros(n * n)
    for ship in state.afloat:
        masks = placement_matrix(n, state.ships[ship])
        ok = masks @ blocked == 0
        weights = np.where(ok, TARGET_WEIGHT ** (masks @ open_hits), 0.0)
        scores += weights @ masks
    return scores.reshape(n, n)


class PdfPlayer(ScoringPlayer):
    """Shoots the unshot cell with the highest placement density; ties broken at random."""

    name = "pdf"

    def scores(self, state: GameState) -> np.ndarray:
        return masked(density(state), state)

    def decision_key(self, state: GameState, possible: frozenset[Cell]) -> Hashable:
        """Misses, hits and the cells resolved by sinks so far: a later sink resolves cells from the
        hits of its own time, whatever the order of the shots before."""
        return state.misses, state.hits, frozenset(resolved_cells(state))


__all__ = ["TARGET_WEIGHT", "PdfPlayer", "density", "resolved_cells"]
