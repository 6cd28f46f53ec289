"""Layouts drawn uniformly from those consistent with a game state, by a Markov chain.

Which placements a ship may take at all follows from the state ship by ship (``model.ground``, as
for the engines): a placement must avoid the misses; a sunk ship's lies inside the hits of its
sinking shot and through that shot's cell; an afloat ship's is not all hit. What couples the ships
is that they must not overlap and must cover every hit between them. Drawing each ship
independently and rejecting the whole layout on a clash (what the seed articles do) is exact, but
late in a game almost every draw is rejected.

The chain instead moves between consistent layouts. One sweep is, in turn:

1. for each ship, a heat-bath move: a new placement drawn uniformly among those that keep the
   layout consistent and legal under the touch rule given the other ships (the current one among them);
2. the same for a pair of ships drawn at random, jointly, so that two ships can swap the hits they
   cover;
3. an independence proposal: every ship redrawn from its own placements, kept only if the layout is
   consistent and legal under the touch rule.

The touch rule enters through each placement's keep-out zone (``Rules.keep_out``: its cells, and
under ``diagonal`` their side neighbours, under ``none`` all eight): a placement may join the other
ships only if its zone holds none of their cells. Contact is symmetric, so that is exactly "no two
ships overlap or touch as the rule forbids"; under ``allowed`` the zone is the placement's cells.

Each move leaves the uniform distribution over consistent layouts unchanged (the heat-bath moves
draw from its conditionals; the third proposes symmetrically and accepts exactly the consistent
layouts), and the third alone can reach any consistent layout from any other, so the chain is
irreducible and aperiodic: the average over its sweeps converges to the exact posterior. Samples are
correlated, so n samples are worth fewer than n independent ones; how many fewer depends on the
state. Cells are bits in ceil(N*N / 64) 64-bit words, so any board works.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from battlelog.bits import words_for
from battlelog.engines.compiled import njit
from battlelog.errors import Inconsistent
from battlelog.model.ground import ground
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, cells_mask, mask_words
from battlelog.rules.state import GameState


def _words(config: GameConfig) -> int:
    return words_for(config.cell_count)


def cells_words(cells: Iterable[Cell], config: GameConfig) -> np.ndarray:
    """The cells as a bit mask over ``_words(config)`` 64-bit words."""
    return mask_words(cells_mask(cells, config.cols), _words(config))


class LayoutChain:
    """Draws layouts consistent with one game state (see the module's docstring)."""

    def __init__(self, state: GameState) -> None:
        config = state.config
        self.state = state
        self.domains = ground(state).domains  # each ship's placements the evidence allows on its own
        masks, zones, starts = [], [], [0]
        for domain in self.domains:
            masks += [cells_words(p.cells, config) for p in domain]
            zones += [cells_words(config.rules.keep_out(p, config.rows, config.cols), config) for p in domain]
            starts.append(starts[-1] + len(domain))
        self.masks = np.array(masks, dtype=np.uint64).reshape(-1, _words(config))
        #: Each placement's keep-out zone: the cells no other ship may cover beside it.
        self.zones = np.array(zones, dtype=np.uint64).reshape(-1, _words(config))
        self.starts = np.array(starts, dtype=np.int64)
        self.hits = cells_words(state.hits, config)

    def occupancy(self, samples: int, burn_in: int, rng: np.random.Generator) -> np.ndarray:
        """The share of ``samples`` sweeps (after ``burn_in`` more) in which a ship covers each cell."""
        ships = len(self.domains)
        orders = np.concatenate([rng.permutation(len(domain)) for domain in self.domains])
        start = np.full(ships, -1, dtype=np.int64)
        if not _fill(self.masks, self.zones, self.starts, self.hits, orders, start, np.zeros_like(self.hits)):
            raise Inconsistent("no layout of the fleet fits all the answers")
        draws = rng.random((burn_in + samples, 2 * ships + 3))
        counts = _run(self.masks, self.zones, self.starts, self.hits, start, draws, burn_in)
        rows, cols = self.state.rows, self.state.cols
        return (counts[: rows * cols] / samples).reshape(rows, cols)


@njit(cache=True)
def _covers(union: np.ndarray, hits: np.ndarray) -> bool:
    for w in range(hits.shape[0]):
        if hits[w] & ~union[w]:
            return False
    return True


@njit(cache=True)
def _disjoint(a: np.ndarray, b: np.ndarray) -> bool:
    for w in range(a.shape[0]):
        if a[w] & b[w]:
            return False
    return True


@njit(cache=True)
def _union_except(masks: np.ndarray, layout: np.ndarray, skip_a: int, skip_b: int) -> np.ndarray:
    out = np.zeros(masks.shape[1], dtype=np.uint64)
    for i in range(layout.shape[0]):
        if i != skip_a and i != skip_b:
            out |= masks[layout[i]]
    return out


@njit(cache=True)
def _fill(
    masks: np.ndarray,
    zones: np.ndarray,
    starts: np.ndarray,
    hits: np.ndarray,
    orders: np.ndarray,
    layout: np.ndarray,
    union: np.ndarray,
) -> bool:
    """Complete ``layout`` (-1 for ships not placed yet) to a consistent layout, depth first in the
    shuffled ``orders``: first cover the lowest uncovered hit with some unplaced ship, then place the
    rest anywhere free. Every consistent completion is reachable, so it fails only when none exists."""
    ships = layout.shape[0]
    target_word, target_bit = -1, np.uint64(0)
    for w in range(hits.shape[0]):
        open_hits = hits[w] & ~union[w]
        if open_hits:
            target_word, target_bit = w, open_hits & (~open_hits + np.uint64(1))
            break
    for ship in range(ships):
        if layout[ship] >= 0:
            continue
        for position in range(starts[ship + 1] - starts[ship]):
            row = starts[ship] + orders[starts[ship] + position]
            if target_word >= 0 and not masks[row, target_word] & target_bit:
                continue
            if _disjoint(zones[row], union):
                layout[ship] = row
                if _fill(masks, zones, starts, hits, orders, layout, union | masks[row]):
                    return True
                layout[ship] = -1
        if target_word < 0:
            return False  # every hit is covered: place the ships in index order
    return target_word < 0


@njit(cache=True)
def _heat_bath_one(
    masks: np.ndarray, zones: np.ndarray, starts: np.ndarray, hits: np.ndarray, layout: np.ndarray, ship: int, u: float
) -> None:
    others = _union_except(masks, layout, ship, -1)
    count = 0
    for row in range(starts[ship], starts[ship + 1]):
        if _disjoint(zones[row], others) and _covers(others | masks[row], hits):
            count += 1
    pick = int(u * count)
    for row in range(starts[ship], starts[ship + 1]):
        if _disjoint(zones[row], others) and _covers(others | masks[row], hits):
            if pick == 0:
                layout[ship] = row
                return
            pick -= 1


@njit(cache=True)
def _heat_bath_pair(
    masks: np.ndarray, zones: np.ndarray, starts: np.ndarray, hits: np.ndarray, layout: np.ndarray, a: int, b: int, u: float
) -> None:
    others = _union_except(masks, layout, a, b)
    count = 0
    for pass_ in range(2):
        pick = int(u * count)
        for ra in range(starts[a], starts[a + 1]):
            if not _disjoint(zones[ra], others):
                continue
            both = others | masks[ra]
            for rb in range(starts[b], starts[b + 1]):
                if _disjoint(zones[rb], both) and _covers(both | masks[rb], hits):
                    if pass_ == 0:
                        count += 1
                    elif pick == 0:
                        layout[a] = ra
                        layout[b] = rb
                        return
                    else:
                        pick -= 1


@njit(cache=True)
def _independent(
    masks: np.ndarray, zones: np.ndarray, starts: np.ndarray, hits: np.ndarray, layout: np.ndarray, draws: np.ndarray
) -> None:
    ships = layout.shape[0]
    proposal = np.empty(ships, dtype=np.int64)
    union = np.zeros(masks.shape[1], dtype=np.uint64)
    for i in range(ships):
        row = starts[i] + int(draws[i] * (starts[i + 1] - starts[i]))
        if not _disjoint(zones[row], union):
            return
        union |= masks[row]
        proposal[i] = row
    if _covers(union, hits):
        layout[:] = proposal


@njit(cache=True)
def _run(
    masks: np.ndarray,
    zones: np.ndarray,
    starts: np.ndarray,
    hits: np.ndarray,
    layout: np.ndarray,
    draws: np.ndarray,
    burn_in: int,
) -> np.ndarray:
    """Sweep the chain once per row of ``draws``; count each cell's coverage after ``burn_in`` sweeps."""
    ships = layout.shape[0]
    words = masks.shape[1]
    counts = np.zeros(words * 64, dtype=np.int64)
    for sweep in range(draws.shape[0]):
        u = draws[sweep]
        for ship in range(ships):
            _heat_bath_one(masks, zones, starts, hits, layout, ship, u[ship])
        if ships > 1:
            a = int(u[ships] * ships)
            b = (a + 1 + int(u[ships + 1] * (ships - 1))) % ships
            _heat_bath_pair(masks, zones, starts, hits, layout, a, b, u[ships + 2])
        _independent(masks, zones, starts, hits, layout, u[ships + 3 :])
        if sweep >= burn_in:
            for i in range(ships):
                row = masks[layout[i]]
                for w in range(words):
                    bits = row[w]
                    x = w * 64
                    while bits:
                        if bits & np.uint64(1):
                            counts[x] += 1
                        bits >>= np.uint64(1)
                        x += 1
    return counts


__all__ = ["LayoutChain"]
