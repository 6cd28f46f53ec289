"""Every layout of a small instance as bit masks, and the layouts a game state leaves possible.

The exact optimum and the exact expectation of a player are sums over layouts, so both start from
the full list of layouts (each ship one canonical placement, no overlap, no contact the touch rule
forbids), each held as one bit mask per ship over the cells (bit ``r * N + c``). Boards of up to
8 x 8 fit one 64-bit word. The answers a layout gives follow the sink rule (see :func:`answer_code`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from battlelog.bits import SINK_CODES, SINKS_NAMED, SINKS_UNNAMED
from battlelog.errors import BattlelogError
from battlelog.rules.answers import HIT_CODE, MISS_CODE, SUNK, SUNK_CODE
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, cell_index, cells_mask
from battlelog.rules.state import GameState
from battlelog.rules.variants import SILENT, UNNAMED

#: Largest board whose cells fit the 64-bit masks used here.
MAX_CELLS = 64
#: Instances with more layouts than this are refused before any search (see README: 4x4 3,2,2 has
#: 3,200 and is the largest measured to finish).
SOLVABLE_LAYOUTS = 4_000
#: Boards with more cells than this are refused: every shot multiplies the belief states.
SOLVABLE_CELLS = 36

#: How each sink rule codes a sinking shot, as ``battlelog.optimum.search`` reads it: ``sunk ship i``
#: (SUNK_CODE + i), ``sunk`` (SUNK_CODE) or ``hit`` (HIT_CODE); the codes are :mod:`battlelog.bits`'.
SINK_MODES = SINK_CODES


def placement_masks(config: GameConfig, ship: int) -> np.ndarray:
    """The mask of each canonical placement of ``ship``, in ``config.placements(ship)`` order."""
    return np.array([cells_mask(p.cells, config.cols) for p in config.placements(ship)], dtype=np.uint64)


def zone_masks(config: GameConfig, ship: int) -> np.ndarray:
    """The cells no other ship may cover beside each placement of ``ship`` (``Rules.keep_out``): its
    own cells under ``allowed``, with their side (``diagonal``) or all eight (``none``) neighbours."""
    rules, rows, n = config.rules, config.rows, config.cols
    return np.array([cells_mask(rules.keep_out(p, rows, n), n) for p in config.placements(ship)], dtype=np.uint64)


@dataclass(frozen=True)
class LayoutTable:
    """All layouts of ``config``: ``placement[l, i]`` is the index of ship i's placement in layout l
    (``config.placements(i)`` order) and ``ship_masks[l, i]`` the cells it covers."""

    config: GameConfig
    placement: np.ndarray
    ship_masks: np.ndarray

    @classmethod
    def build(cls, config: GameConfig, max_layouts: int) -> LayoutTable:
        """Enumerate the layouts ship by ship, dropping overlaps and forbidden contacts as soon as
        they appear (a placement must avoid the keep-out zones of the ships before it: contact is
        symmetric, so that is every pair once).

        Refuses (one-line error) when the board is too large for the masks or the fleet has more
        than ``max_layouts`` layouts.
        """
        if config.cell_count > MAX_CELLS:
            raise BattlelogError(f"{config.label()}: boards above 8x8 do not fit this enumeration's 64-bit masks")
        placement = np.zeros((1, 0), dtype=np.int32)
        masks = np.zeros((1, 0), dtype=np.uint64)
        union = np.zeros(1, dtype=np.uint64)  # the keep-out zones of the ships placed so far
        for ship in range(len(config.ships)):
            options, zones = placement_masks(config, ship), zone_masks(config, ship)
            free = (union[:, None] & options[None, :]) == 0
            rows, cols = np.nonzero(free)
            if len(rows) > max_layouts:
                raise BattlelogError(
                    f"{config.label()}: enumerating its layouts passes {max_layouts:,} (partial) layouts, "
                    "too many for an exact solution here"
                )
            placement = np.concatenate([placement[rows], cols[:, None].astype(np.int32)], axis=1)
            masks = np.concatenate([masks[rows], options[cols][:, None]], axis=1)
            union = union[rows] | zones[cols]
        return cls(config, placement, masks)

    def __len__(self) -> int:
        return int(self.placement.shape[0])

    @cached_property
    def union(self) -> np.ndarray:
        """Every ship cell of each layout."""
        union: np.ndarray = np.bitwise_or.reduce(self.ship_masks, axis=1)
        return union

    @cached_property
    def owner(self) -> np.ndarray:
        """``owner[l, x]``: the ship covering cell x in layout l, or -1."""
        n_cells = self.config.cell_count
        out = np.full((len(self), n_cells), -1, dtype=np.int8)
        bits = np.uint64(1) << np.arange(n_cells, dtype=np.uint64)
        for ship in range(len(self.config.ships)):
            covered = (self.ship_masks[:, ship : ship + 1] & bits[None, :]) != 0
            out[covered] = ship
        return out

    def consistent(self, state: GameState) -> np.ndarray:
        """Indices of the layouts that give exactly the answers of ``state`` (the transcript rule,
        docs/rules.md: no ship on a miss, some ship on every hit, and each hit shot's ship passes
        the sink rule's test; under ``silent`` there is none)."""
        size = state.cols
        union = self.union
        ok = (union & np.uint64(cells_mask(state.misses, size))) == 0
        hits = np.uint64(cells_mask(state.hits, size))
        ok &= (union & hits) == hits
        sinks = state.config.rules.sinks
        if sinks == UNNAMED:
            # A hit shot at x said "sunk" exactly when the ship covering x lay inside the hits by then.
            for t, shot in enumerate(state.shots):
                if shot.is_hit:
                    x = cell_index(shot.cell, size)
                    owner = np.maximum(self.owner[:, x], 0).astype(np.int64)
                    mask = self.ship_masks[np.arange(len(self)), owner]
                    inside = (mask & ~np.uint64(cells_mask(state.hits_after(t), size))) == 0
                    ok &= inside == (shot.result == SUNK)
            return np.flatnonzero(ok).astype(np.int32)
        if sinks == SILENT:
            return np.flatnonzero(ok).astype(np.int32)
        for ship, t, cell in state.sinks:
            inside = np.uint64(cells_mask(state.hits_after(t), size))
            mask = self.ship_masks[:, ship]
            ok &= ((mask & ~inside) == 0) & ((mask & np.uint64(1 << cell_index(cell, size))) != 0)
        for ship in state.afloat:
            ok &= (self.ship_masks[:, ship] & ~hits) != 0
        return np.flatnonzero(ok).astype(np.int32)

    def answers(self, layouts: np.ndarray, hits: int, cell: Cell) -> np.ndarray:
        """The answer code (``battlelog.rules.answers``) each of ``layouts`` gives to a shot at ``cell`` when
        ``hits`` (a mask) are hit, as the sink rule words a sinking shot (:func:`answer_code`)."""
        size = self.config.cols
        x = cell[0] * size + cell[1]
        owner = self.owner[layouts, x].astype(np.int64)
        out = np.where(owner < 0, MISS_CODE, HIT_CODE)
        covered = np.flatnonzero(owner >= 0)
        if len(covered):
            ships = owner[covered]
            rest = self.ship_masks[layouts[covered], ships] & ~np.uint64(hits | (1 << x))
            out[covered] = np.where(rest == 0, answer_code(self.config, ships), HIT_CODE)
        return out


def answer_code(config: GameConfig, ship: np.ndarray) -> np.ndarray:
    """The code of a shot that sinks ``ship`` under ``config``'s sink rule: SUNK_CODE + ship (named),
    SUNK_CODE (unnamed) or HIT_CODE (silent: the last cell is answered "hit")."""
    mode = SINK_MODES[config.rules.sinks]
    if mode == SINKS_NAMED:
        return SUNK_CODE + ship
    return np.full_like(ship, SUNK_CODE if mode == SINKS_UNNAMED else HIT_CODE)


def solvable_layouts(config: GameConfig, max_layouts: int = SOLVABLE_LAYOUTS, max_cells: int = SOLVABLE_CELLS) -> LayoutTable:
    """The layouts of an instance small enough to solve exactly; a one-line error, before any search,
    for one that is not (enumerating stops as soon as it passes ``max_layouts``)."""
    if config.cell_count > max_cells:
        raise BattlelogError(
            f"{config.label()} is too large to solve exactly: boards of more than {max_cells} cells are refused "
            "(every shot multiplies the belief states)"
        )
    return LayoutTable.build(config, max_layouts)
