"""The sweep's diagram as pysdd nodes for the sdd engine: as it is, or with a prior's literal weights.

Under a prior (docs/rules.md, "Priors") a layout weighs exp(edge x E + vertical x V + touch x T). E and V add up over the ships, so each
placement variable carries its own part as its weight, exp(edge x its ring cells + vertical x
[vertical]). T comes from pairs of ships: under a touch weight the sweep labels each chosen branch
with the side pairs it adds to the ships placed before (battlelog.engines.frontier), and every label
k != 0 at placement i becomes an auxiliary variable a(i, k), right after placement i in the vtree,
weighing exp(touch x k). A node's chosen branch labelled k requires a(i, k) and none of placement i's
other auxiliaries; every other branch requires none of them. Each auxiliary is thus a function of the
placements: the models are still exactly the layouts (an unweighted count still counts them), and a
model weighs what its layout weighs.

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
    """An upper bound of the weighted SDD's nodes: the diagram's, and per node a chain over its
    placement's auxiliaries on each branch (what the memory budget is checked against)."""
    if diagram.labels is None:
        return diagram.nodes
    return diagram.nodes + sum(2 * len(set(labels.tolist()) - {0}) * len(labels) for labels in diagram.labels)


def materialise_weighted(
    diagram: Diagram, prior: Prior, rows: int, cols: int
) -> tuple[SddManager, SddNode, dict[Placement, int], np.ndarray]:
    """The diagram's SDD with its auxiliaries, each placement's variable, and the log-weight of every
    literal in pysdd's array order (negative literals -n..-1, then 1..n; a negative literal weighs 1)."""
    var: dict[Placement, int] = {}
    aux: list[dict[int, int]] = []  # per level: label -> its auxiliary variable
    logs: list[float] = []  # per variable, its positive literal's log-weight
    for i, p in enumerate(diagram.placements):
        var[p] = len(logs) + 1
        logs.append(placement_log_weight(prior, p, rows, cols))
        labels = sorted(set(diagram.labels[i].tolist()) - {0}) if diagram.labels is not None else []
        aux.append({k: len(logs) + 1 + n for n, k in enumerate(labels)})
        logs.extend(prior.touch * k for k in labels)
    manager = sdd_manager(max(1, len(logs)))
    constants = {FALSE: manager.false(), TRUE: manager.true()}
    below: list[SddNode] = []
    for i in range(len(diagram.levels) - 1, -1, -1):
        high, low = diagram.levels[i]
        labels = diagram.labels[i].tolist() if diagram.labels is not None else [0] * len(high)
        none = manager.true()
        for v in sorted(aux[i].values(), reverse=True):
            none = manager.conjoin(manager.literal(-v), none)
        cubes = {0: none}
        for k, v in aux[i].items():
            cube = manager.true()
            for w in sorted(aux[i].values(), reverse=True):
                cube = manager.conjoin(manager.literal(w if w == v else -w), cube)
            cubes[k] = cube
        chosen, skipped = manager.literal(var[diagram.placements[i]]), manager.literal(-var[diagram.placements[i]])
        level = []
        for h, lo, k in zip(high.tolist(), low.tolist(), labels):
            node = manager.false()
            if h != FALSE:
                node = manager.conjoin(chosen, manager.conjoin(cubes[k], below[h] if h >= 0 else constants[h]))
            if lo != FALSE:
                node = manager.disjoin(node, manager.conjoin(skipped, manager.conjoin(none, below[lo] if lo >= 0 else constants[lo])))
            level.append(node)
        below = level
    root = below[diagram.root] if diagram.root >= 0 else constants[diagram.root]
    n = len(logs)
    weights = np.zeros(2 * n)
    weights[n:] = logs
    return manager, root, var, weights


def weighted_pass(root: SddNode, log_weights: np.ndarray, var: dict[Placement, int], allowed: frozenset[Placement]) -> tuple[float, dict[Placement, float]]:
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
