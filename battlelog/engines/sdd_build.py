"""The sweep's diagram as pysdd nodes for the sdd engine: as it is, or with a prior's literal weights.

Under a prior (docs/rules.md, "Priors") a layout weighs exp(edge x E + vertical x V + touch x T). E and
V add up over the ships, so each placement variable carries its own part as its weight, exp(edge x
its ring cells + vertical x [vertical]). T comes from pairs of ships: under a touch weight the sweep
labels each chosen branch with the side pairs k it adds to the ships placed before
(battlelog.engines.frontier), and k is written in binary on auxiliary variables a(i, 0), a(i, 1), ...
right after placement i in the vtree: the chosen branch of a node labelled k requires exactly the bits
of k, and the other branch leaves them free. Bit b weighs q = e/(1 + e) true and 1 - q false, with
e = exp(touch x 2**b): free it weighs q + (1 - q) = 1, and on a chosen branch the bits of k weigh
exp(touch x k) / prod_b (1 + e_b), a constant of placement i that its own weight makes up. So a
model weighs what its layout weighs, and every layout has one model per assignment of the free bits,
which an unweighted count neutralises by giving both literals of a bit 1/2 and placement i 2**bits.

Weights reach e**700 (rules/prior.py) and layouts number billions, so the weighted count runs in
pysdd's log mode; the layout count stays a second, unweighted pass.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from battlelog.engines.frontier import FALSE, TRUE, Diagram
from battlelog.engines.pysdd_setup import sdd_manager
from battlelog.rules.geometry import Placement
from battlelog.rules.prior import Prior, placement_log_weight

if TYPE_CHECKING:
    from pysdd.sdd import SddManager, SddNode


def materialise(diagram: Diagram, manager: SddManager) -> SddNode:
    """The diagram's nodes as SDD nodes, last level first, keeping only one level alive in Python.

    A node testing placement ``i`` is ``(x_i & high) | (~x_i & low)``; with the vtree in the same
    order each apply just assembles one decision node from finished children.
    """
    constants = {FALSE: manager.false(), TRUE: manager.true()}
    below: list[SddNode] = []
    for i in range(len(diagram.levels) - 1, -1, -1):
        high, low = diagram.levels[i]
        chosen, skipped = manager.literal(i + 1), manager.literal(-(i + 1))
        level = []
        for h, lo in zip(high.tolist(), low.tolist()):
            if h == FALSE:
                level.append(manager.conjoin(skipped, below[lo] if lo >= 0 else constants[lo]))
            elif lo == FALSE:
                level.append(manager.conjoin(chosen, below[h] if h >= 0 else constants[h]))
            else:
                level.append(
                    manager.disjoin(
                        manager.conjoin(chosen, below[h] if h >= 0 else constants[h]),
                        manager.conjoin(skipped, below[lo] if lo >= 0 else constants[lo]),
                    )
                )
        below = level
    return below[diagram.root] if diagram.root >= 0 else constants[diagram.root]


def sdd_nodes(diagram: Diagram) -> int:
    """An upper bound of the weighted SDD's nodes (what the memory budget is checked against): the
    diagram's, and a chain over its placement's bits for every distinct chosen branch (label and child)."""
    if diagram.labels is None:
        return diagram.nodes
    total = diagram.nodes
    for (high, _), labels in zip(diagram.levels, diagram.labels):
        chosen = high != FALSE
        branches = np.unique(np.stack([high[chosen].astype(np.int64), labels[chosen]]), axis=1).shape[1]
        total += int(labels.max(initial=0)).bit_length() * branches
    return total


def materialise_weighted(
    diagram: Diagram, prior: Prior, rows: int, cols: int
) -> tuple[SddManager, SddNode, dict[Placement, int], np.ndarray, np.ndarray]:
    """The diagram's SDD with the bits of its labels, each placement's variable, and every literal's
    log-weight and its weight in an unweighted count, in pysdd's array order (negative literals
    -n..-1, then 1..n)."""
    var: dict[Placement, int] = {}
    bits: list[list[int]] = []  # per level: the variables of its bits, lowest first
    positive: list[float] = []  # per variable, the log-weights of its positive literal ...
    negative: list[float] = []  # ... and of its negative one
    unit: list[float] = []  # per variable, its positive literal's weight in an unweighted count ...
    unit_negative: list[float] = []  # ... and its negative one's
    for i, p in enumerate(diagram.placements):
        width = int(diagram.labels[i].max(initial=0)).bit_length() if diagram.labels is not None else 0
        x = prior.touch * 2.0 ** np.arange(width)
        var[p] = len(positive) + 1
        positive.append(placement_log_weight(prior, p, rows, cols) + float(np.logaddexp(0.0, x).sum()))
        negative.append(0.0)
        unit.append(2.0**width)
        unit_negative.append(1.0)
        bits.append(list(range(len(positive) + 1, len(positive) + 1 + width)))
        positive.extend((-np.logaddexp(0.0, -x)).tolist())  # log q, computed without overflow
        negative.extend((-np.logaddexp(0.0, x)).tolist())  # log (1 - q)
        unit.extend([0.5] * width)
        unit_negative.extend([0.5] * width)
    manager = sdd_manager(max(1, len(positive)))
    constants = {FALSE: manager.false(), TRUE: manager.true()}
    below: list[SddNode] = []
    for i in range(len(diagram.levels) - 1, -1, -1):
        high, low = diagram.levels[i]
        labels = diagram.labels[i].tolist() if diagram.labels is not None else [0] * len(high)
        cubes: dict[int, SddNode] = {}
        chosen, skipped = manager.literal(var[diagram.placements[i]]), manager.literal(-var[diagram.placements[i]])
        level = []
        for h, lo, k in zip(high.tolist(), low.tolist(), labels):
            node = manager.false()
            if h != FALSE:
                if k not in cubes:
                    cubes[k] = manager.true()
                    for b in range(len(bits[i]) - 1, -1, -1):
                        cubes[k] = manager.conjoin(manager.literal(bits[i][b] if k >> b & 1 else -bits[i][b]), cubes[k])
                node = manager.conjoin(chosen, manager.conjoin(cubes[k], below[h] if h >= 0 else constants[h]))
            if lo != FALSE:
                node = manager.disjoin(node, manager.conjoin(skipped, below[lo] if lo >= 0 else constants[lo]))
            level.append(node)
        below = level
    root = below[diagram.root] if diagram.root >= 0 else constants[diagram.root]
    n = len(positive)
    log_weights, unit_weights = np.zeros(2 * n), np.ones(2 * n)
    log_weights[:n], log_weights[n:] = negative[::-1], positive
    unit_weights[:n], unit_weights[n:] = unit_negative[::-1], unit
    return manager, root, var, log_weights, unit_weights


def weighted_pass(
    root: SddNode, log_weights: np.ndarray, var: dict[Placement, int], allowed: frozenset[Placement]
) -> tuple[float, dict[Placement, float]]:
    """One log-mode weighted model count: the log of the layouts' total weight, and each allowed
    placement's probability (a placement no longer allowed, a free variable of the manager, weighs 0)."""
    n = len(log_weights) // 2
    weights = log_weights.copy()
    for p, v in var.items():
        if p not in allowed:
            weights[n + v - 1] = -math.inf
    wmc = root.wmc(log_mode=True)
    wmc.set_literal_weights_from_array(weights)
    log_total = float(wmc.propagate())
    return log_total, {p: math.exp(wmc.literal_pr(var[p])) for p in allowed}
