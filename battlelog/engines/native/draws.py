"""Layouts drawn from a problem's layered models: each case of a split chosen in proportion to its
layouts (or, under a prior, to their weight), a path drawn through its model, and the path's ships named.
"""

from __future__ import annotations

import math

import numpy as np

from battlelog.engines.native.layered import LayeredModel
from battlelog.engines.native.weights import weigher
from battlelog.errors import Inconsistent
from battlelog.rules.geometry import Placement
from battlelog.rules.prior import Prior


def draw_layouts(models: list[LayeredModel], count: int, rng: np.random.Generator, prior: Prior | None = None) -> list[tuple[Placement, ...]]:
    """``count`` layouts drawn independently from the posterior the models hold together: uniform when
    ``prior`` is None (each path in proportion to its layouts), else weighted by ``prior``."""
    if prior is None:
        share = np.array([m.paths * m.tables.multiplicity for m in models], dtype=float)
    else:
        log_z = np.array([weigher(m, prior).log_weight() + math.log(m.tables.multiplicity) if m.paths else -math.inf for m in models])
        share = np.exp(log_z - log_z.max()) if np.isfinite(log_z).any() else np.zeros(len(models))
    if share.sum() == 0:
        raise Inconsistent("no layout of the fleet fits all the answers")
    per_case = rng.multinomial(count, share / share.sum()) if len(models) > 1 else np.array([count])
    layouts: list[tuple[Placement, ...]] = []
    for model, draws in zip(models, per_case):
        if draws:
            paths = model.draw(int(draws), rng) if prior is None else weigher(model, prior).draw(int(draws), rng)
            layouts += name_ships(model, paths, rng)
    order = rng.permutation(len(layouts))
    return [layouts[i] for i in order]


def name_ships(model: LayeredModel, paths: np.ndarray, rng: np.random.Generator) -> list[tuple[Placement, ...]]:
    """Turn drawn paths (one action per cell) into layouts, naming each kind's ships in random order."""
    tables = model.tables
    where = {(k, o): tables.covered_cells(k, o) for k in range(len(tables.kinds)) for o in (0, 1)}
    n = tables.problem.cols
    layouts = []
    for path in paths:
        by_kind: list[list[tuple[int, ...]]] = [[] for _ in tables.kinds]
        for cell in np.flatnonzero(path):
            k, orientation = divmod(int(path[cell]) - 1, 2)
            by_kind[k].append(tuple(int(x) for x in where[k, orientation][:, cell]))
        layout: list[Placement | None] = [None] * len(tables.problem.ships)
        for k, kind in enumerate(tables.kinds):
            for ship, cells in zip(rng.permutation(kind.ships), by_kind[k]):
                layout[int(ship)] = Placement.from_cells(int(ship), (divmod(cell, n) for cell in cells))
        layouts.append(tuple(p for p in layout if p is not None))
    return layouts
