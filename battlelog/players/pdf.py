"""The probability-density player (after DataGenetics): count placements per cell, ships independent."""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache

import numpy as np

from battlelog.players.base import ScoringPlayer, masked
from battlelog.players.knowledge import afloat_lengths, sunk_cells
from battlelog.rules.geometry import Cell, placement_matrix, ship_placements
from battlelog.rules.state import GameState
from battlelog.rules.variants import ALLOWED, Rules

#: How much more a placement counts for each unresolved hit it passes through (target mode).
TARGET_WEIGHT = 100.0


def resolved_cells(state: GameState) -> set[Cell]:
    """Hit cells that certainly belong to a sunk ship (:func:`battlelog.players.knowledge.sunk_cells`).

    Hits that no sunk ship surely explains stay unresolved and keep drawing the player's fire: that
    is how the algorithm copes (badly) with adjacent ships.
    """
    return sunk_cells(state)


@lru_cache(maxsize=64)
def halo_matrix(rows: int, cols: int, length: int, touch: str) -> np.ndarray:
    """One 0/1 row per canonical placement (``placement_matrix`` order): the cells next to it that
    no other ship may cover under ``touch`` (``Rules.keep_out`` without the placement's own cells);
    all zero under ``allowed``."""
    rules = Rules(touch=touch)
    placements = ship_placements(rows, cols, 0, length)
    out = np.zeros((len(placements), rows * cols), dtype=np.int64)
    for i, p in enumerate(placements):
        for r, c in rules.keep_out(p, rows, cols) - set(p.cells):
            out[i, r * cols + c] = 1
    out.setflags(write=False)
    return out


def density(state: GameState) -> np.ndarray:
    """The score of every cell (R x C): weighted counts of placements of the ships still afloat.

    A placement counts if it avoids misses and resolved (sunk) cells, and, under a touch rule, if no
    hit it does not cover lies next to it as the rule forbids (that hit belongs to another ship); it
    counts TARGET_WEIGHT**k if it passes through k unresolved hits. Ships are counted independently,
    ignoring overlaps. Which ships are afloat: see :func:`battlelog.players.knowledge.afloat_lengths`.
    """
    rows, n = state.rows, state.cols
    resolved = resolved_cells(state)
    blocked = np.zeros(rows * n, dtype=np.int64)
    open_hits = np.zeros(rows * n, dtype=np.int64)
    hits = np.zeros(rows * n, dtype=np.int64)
    for r, c in state.misses | resolved:
        blocked[r * n + c] = 1
    for r, c in state.hits - resolved:
        open_hits[r * n + c] = 1
    for r, c in state.hits:
        hits[r * n + c] = 1
    touch = state.config.rules.touch
    scores = np.zeros(rows * n)
    for length in afloat_lengths(state):
        masks = placement_matrix(rows, n, length)
        ok = masks @ blocked == 0
        if touch != ALLOWED:
            ok &= halo_matrix(rows, n, length, touch) @ hits == 0
        weights = np.where(ok, TARGET_WEIGHT ** (masks @ open_hits), 0.0)
        scores += weights @ masks
    return scores.reshape(rows, n)


class PdfPlayer(ScoringPlayer):
    """Shoots the unshot cell with the highest placement density; ties broken at random.

    It honours the rules, as far as it knows them from the shots:

    - touch: a placement of a ship afloat counts only if it neither covers nor touches (as the rule
      forbids) a cell known to hold another ship: a miss or a sunk ship's cell may not be covered,
      and no hit it does not cover may lie next to it (side neighbours under ``diagonal``, all eight
      under ``none``; a hit outside a placement is another ship's cell);
    - sinks: under ``named`` the ships afloat are those not announced sunk; under ``unnamed`` a
      ship is counted afloat unless a sink is certainly of its length (only one length of the fleet
      fits inside the hits of its time through its cell), and the cells common to every placement
      that sink may have are resolved; under ``silent`` every ship is counted afloat and no hit is
      ever resolved (a conservative choice: see :mod:`battlelog.players.knowledge`).
    """

    name = "pdf"

    def scores(self, state: GameState) -> np.ndarray:
        return masked(density(state), state)

    def decision_key(self, state: GameState, possible: frozenset[Cell]) -> Hashable:
        """Misses, hits, the cells resolved by sinks so far and the lengths counted afloat: the
        density reads nothing else, and what each sink adds to the last two (its resolved cells, and
        under ``unnamed`` its certain length) is fixed by its cell, its named ship and the hits of its
        own time, whatever the order of the shots before; so it is for every later sink."""
        return state.misses, state.hits, frozenset(resolved_cells(state)), afloat_lengths(state)


__all__ = ["TARGET_WEIGHT", "PdfPlayer", "density", "halo_matrix", "resolved_cells"]
