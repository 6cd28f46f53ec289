"""An independent brute force of the captain's game on small boards, written from the rules alone.

Every named layout: each colour takes one length of the fleet's list (every distinct order), each
ship one straight run of its length, no two sharing a tile (touching allowed). The prior is uniform
over these; a shot keeps the layouts that show the same tile (water or that colour); a yes/no answer
weighs a layout 1 - noise when it agrees and noise when not. Questions are Python predicates on a
layout (a dict colour -> frozenset of cells), not programs: nothing here comes from battlelog.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence

Layout = dict[str, frozenset[int]]
Predicate = Callable[[Layout], bool]


def runs(rows: int, cols: int, length: int) -> list[frozenset[int]]:
    """Every straight run of ``length`` tiles (a ship of length 1 once)."""
    out = {frozenset(r * cols + c + i for i in range(length)) for r in range(rows) for c in range(cols - length + 1)}
    out |= {frozenset((r + i) * cols + c for i in range(length)) for r in range(rows - length + 1) for c in range(cols)}
    return sorted(out, key=sorted)


@functools.lru_cache(maxsize=8)
def layouts(rows: int, cols: int, names: tuple[str, ...], lengths: tuple[int, ...]) -> list[Layout]:
    """Every named layout of the fleet (kept: tests ask for the same fleets often; do not change the list)."""
    out = []
    for order in sorted(set(itertools.permutations(lengths))):
        for ships in itertools.product(*(runs(rows, cols, n) for n in order)):
            if sum(len(s) for s in ships) == len(frozenset().union(*ships)):
                out.append(dict(zip(names, ships)))
    return out


def tile(layout: Layout, cell: int) -> str | None:
    """The colour on ``cell``, or None for water."""
    return next((name for name, cells in layout.items() if cell in cells), None)


def posterior(
    all_layouts: list[Layout], shots: dict[int, str | None], answers: Sequence[tuple[Predicate, bool]], noise: float
) -> list[tuple[Layout, float]]:
    """The layouts that fit the shots, each with its weight from the answers (unnormalised)."""
    out = []
    for layout in all_layouts:
        if all(tile(layout, cell) == shown for cell, shown in shots.items()):
            weight = math.prod((1 - noise) if predicate(layout) == given else noise for predicate, given in answers)
            out.append((layout, weight))
    return out


def marginals(weighted: list[tuple[Layout, float]], cells: int) -> list[float]:
    """Each cell's chance of a ship."""
    total = sum(w for _, w in weighted)
    return [sum(w for layout, w in weighted if tile(layout, c) is not None) / total for c in range(cells)]


def chance(weighted: list[tuple[Layout, float]], predicate: Predicate) -> float:
    """The posterior chance that ``predicate`` holds."""
    total = sum(w for _, w in weighted)
    return sum(w for layout, w in weighted if predicate(layout)) / total


def eig(p_yes: float, noise: float) -> float:
    """Mutual information between the true yes/no answer and the one reported through noise, in bits,
    summed from the joint distribution of (true, reported)."""
    truth = {True: p_yes, False: 1 - p_yes}
    joint = {(t, r): truth[t] * ((1 - noise) if t == r else noise) for t in truth for r in truth}
    reported = {r: joint[True, r] + joint[False, r] for r in truth}
    return sum(p * math.log2(p / (truth[t] * reported[r])) for (t, r), p in joint.items() if p > 0)
