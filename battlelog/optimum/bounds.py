"""Lower bounds on the optimum: no policy can average fewer shots than these.

- **Coverage**: every ship cell must be shot, so every game takes at least K = the fleet's cells.
- **Transcripts**: fix a deterministic policy (a randomised one is a mixture of them, so the optimum
  is reached by one). Each layout L plays out as a finished transcript tau(L): the answers heard, one
  per shot, the last one sinking the last ship (under silent sinks, hitting the last ship cell). The
  transcript fixes the shots fired (the policy is deterministic) and which of them hit, so it fixes
  the union U of the layout's ship cells: layouts sharing a transcript share their union. With K(t)
  the number of possible finished transcripts of t shots, and m(U) the number of layouts whose ship
  cells are U, the layouts finished within t shots are at most S(K(1) + ... + K(t)), where S(k) is the
  sum of the k largest m(U) (each transcript serves one union; a union has m(U) layouts in all). So
  with N layouts, E[shots] = sum_t P(shots > t) >= sum_t max(0, 1 - S(K(<=t)) / N).

K(t) is counted from the answer alphabet and the rules: t - K misses anywhere among the first t - 1
shots, and the K hit answers in an order some fleet could produce (:func:`hit_sequences`: a ship
is announced sunk only once its length in hits has been heard for the sunk ships, and never while
an afloat ship would have all its cells hit). Where every finished transcript identifies its layout
(m(U) = 1 for every U, the "identification" bound, the argument usually published), S(k) = k; that
is a valid bound only when no two layouts share their ship cells, so the union multiplicities are
used wherever the layouts can be listed (boards up to 8x8 with a modest number of layouts).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np

from battlelog.optimum.layouts import LayoutTable
from battlelog.rules.config import GameConfig
from battlelog.rules.variants import NAMED, SILENT, UNNAMED

#: The union bound lists every layout: instances with more are given the identification bound only.
UNION_LAYOUTS = 2_000_000


def hit_sequences(ships: tuple[int, ...], sinks: str) -> int:
    """How many sequences of hit answers a finished game can produce under the sink rule.

    Named: sequences of "hit" and "sunk ship i" (each ship once, the last answer a sink) where after
    every answer the hits heard h satisfy  sunk length <= h <= sunk length + sum over afloat ships of
    (length - 1). Unnamed: the distinct hit/sunk strings some named sequence projects to. Silent: one.
    """
    k, count = sum(ships), len(ships)
    if sinks == SILENT:
        return 1
    full = (1 << count) - 1
    sunk_len = [sum(ships[i] for i in range(count) if s >> i & 1) for s in range(full + 1)]

    def fits(h: int, s: int) -> bool:
        return sunk_len[s] <= h <= sunk_len[s] + sum(ships[i] - 1 for i in range(count) if not s >> i & 1)

    if sinks == NAMED:
        ways = {0: 1}
        for h in range(1, k + 1):
            nxt: dict[int, int] = {}
            for s, w in ways.items():
                for t in [s] + [s | 1 << i for i in range(count) if not s >> i & 1]:
                    if fits(h, t):
                        nxt[t] = nxt.get(t, 0) + w
            ways = nxt
        return ways.get(full, 0)
    assert sinks == UNNAMED
    sets: dict[frozenset[int], int] = {frozenset({0}): 1}  # the sets of sunk ships a string allows
    for h in range(1, k + 1):
        grown: dict[frozenset[int], int] = {}
        for possible, w in sets.items():
            hit = frozenset(s for s in possible if fits(h, s))
            sunk = frozenset(s | 1 << i for s in possible for i in range(count) if not s >> i & 1 and fits(h, s | 1 << i))
            for image in (hit, sunk):
                if image:
                    grown[image] = grown.get(image, 0) + w
        sets = grown
    return sum(w for possible, w in sets.items() if full in possible)


def transcripts(config: GameConfig) -> list[int]:
    """K(t) for t = 0 .. the board's cells: finished transcripts of exactly t shots (the last a hit)."""
    k, cells = config.ship_cells, config.cell_count
    q = hit_sequences(config.ships, config.rules.sinks)
    return [comb(t - 1, k - 1) * q if t >= k else 0 for t in range(cells + 1)]


def transcript_bound(layouts: int, counts: list[int], multiplicities: list[int] | None = None) -> Fraction:
    """sum_t max(0, 1 - S(K(<=t)) / N) (see the module): ``counts`` is K(t), ``multiplicities`` the m(U)
    (None: every finished transcript identifies its layout, S(k) = k)."""
    prefix = None
    if multiplicities is not None:
        prefix = np.concatenate([[0], np.cumsum(sorted(multiplicities, reverse=True))]).tolist()
    total, finished = Fraction(0), 0
    for k in counts:  # t = 0, 1, ...
        finished += k
        reached = min(layouts, finished if prefix is None else prefix[min(finished, len(prefix) - 1)])
        if reached >= layouts:
            break
        total += Fraction(layouts - reached, layouts)  # P(shots > t) >= 1 - (finished within t) / N
    return total


def union_multiplicities(config: GameConfig, max_layouts: int = UNION_LAYOUTS) -> list[int]:
    """m(U) for every union U of ship cells (raises BattlelogError when the layouts are too many)."""
    table = LayoutTable.build(config, max_layouts)
    _, counts = np.unique(table.union, return_counts=True)
    return [int(c) for c in counts]


@dataclass(frozen=True)
class Bounds:
    """The lower bounds of one instance (``union`` is None where the layouts were not listed)."""

    layouts: int
    coverage: int
    identification: Fraction
    union: Fraction | None

    @property
    def best(self) -> Fraction:
        """The largest proven bound: the union bound where known, else coverage (the identification
        bound assumes that no two layouts share their ship cells)."""
        return max(Fraction(self.coverage), self.union) if self.union is not None else Fraction(self.coverage)


def lower_bounds(config: GameConfig, layouts: int, max_layouts: int = UNION_LAYOUTS) -> Bounds:
    """Every bound of ``config``, which has ``layouts`` layouts (counted by the caller, e.g. an engine)."""
    counts = transcripts(config)
    union = None
    if config.cell_count <= 64 and layouts <= max_layouts:
        union = transcript_bound(layouts, counts, union_multiplicities(config, max_layouts))
    return Bounds(layouts, config.ship_cells, transcript_bound(layouts, counts), union)
