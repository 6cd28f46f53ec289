"""Layouts drawn from a problem's layered models: each case of a split chosen in proportion to its
layouts (or, under a prior, to their weight), a path drawn through its model, and the path's ships named.

Two readings of the same draws (the same generator calls in the same order, so the same layouts):
:func:`draw_layouts` as placements, :func:`draw_owners` as one row of cell owners per layout, which is
what a player that simulates thousands of games a move reads, without building a placement per ship.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np

from battlelog.engines.native.layered import LayeredModel
from battlelog.engines.native.misses import Recount
from battlelog.engines.native.streams import Randomness, walker
from battlelog.engines.native.weights import weigher
from battlelog.errors import Inconsistent
from battlelog.rules.geometry import Placement
from battlelog.rules.prior import Prior

#: What layouts are drawn from: a layered model, or a kept one read again for a state a miss or two on.
Drawn = LayeredModel | Recount


def draw_layouts(models: Sequence[Drawn], count: int, rng: Randomness, prior: Prior | None = None) -> list[tuple[Placement, ...]]:
    """``count`` layouts drawn independently from the posterior the models hold together: uniform when
    ``prior`` is None (each path in proportion to its layouts), else weighted by ``prior``. Given one
    generator per walker (:mod:`~battlelog.engines.native.streams`), layout i is the one a draw of one layout
    from generator i alone gives, and the layouts come in the generators' order."""
    layouts: list[tuple[Placement, ...]] = []
    walkers: list[int] = []
    for model, paths, streams, which in _drawn_paths(models, count, rng, prior):
        layouts += name_ships(model, paths, streams)
        walkers += which
    if isinstance(rng, np.random.Generator):
        order = rng.permutation(len(layouts))
        return [layouts[i] for i in order]
    out: list[tuple[Placement, ...]] = [()] * len(layouts)
    for i, layout in zip(walkers, layouts):
        rng[i].permutation(1)  # what a single draw's final shuffle takes from its generator
        out[i] = layout
    return out


def draw_owners(models: Sequence[Drawn], count: int, rng: np.random.Generator, prior: Prior | None = None) -> np.ndarray:
    """The layouts :func:`draw_layouts` draws from the same generator, as ``owner[s, x]``: the ship on
    row-major cell x of layout s, or -1."""
    owners = [name_owners(model, paths, rng) for model, paths, _, _ in _drawn_paths(models, count, rng, prior)]
    drawn = np.concatenate(owners) if owners else np.zeros((0, models[0].tables.cell_count), dtype=np.int64)
    return drawn[rng.permutation(len(drawn))]


def _drawn_paths(
    models: Sequence[Drawn], count: int, rng: Randomness, prior: Prior | None
) -> Iterator[tuple[Drawn, np.ndarray, Randomness, list[int]]]:
    """Each case's model with the paths drawn through it, the randomness that names their ships and the
    walkers they are (indices into ``rng`` when it is one generator per walker), drawn one case at a time:
    the caller names a case's ships (drawing from ``rng``) before the next case's paths are drawn."""
    if prior is None:
        share = np.array([m.paths * m.tables.multiplicity for m in models], dtype=float)
    else:
        weighed = [m for m in models if isinstance(m, LayeredModel)]  # a recount is uniform only: never weighed
        log_z = np.array(
            [weigher(m, prior).log_weight() + math.log(m.tables.multiplicity) if m.paths else -math.inf for m in weighed]
        )
        share = np.exp(log_z - log_z.max()) if np.isfinite(log_z).any() else np.zeros(len(models))
    if share.sum() == 0:
        raise Inconsistent("no layout of the fleet fits all the answers")
    cases: list[tuple[int, Randomness, list[int]]]
    if isinstance(rng, np.random.Generator):
        per_case = rng.multinomial(count, share / share.sum()) if len(models) > 1 else np.array([count])
        cases = [(int(draws), rng, list(range(int(draws)))) for draws in per_case]
    else:  # each walker draws its case from its own generator, as a single draw would
        chosen = [int(np.argmax(r.multinomial(1, share / share.sum()))) if len(models) > 1 else 0 for r in rng]
        cases = [
            (len(which), [rng[i] for i in which], which)
            for which in ([i for i, c in enumerate(chosen) if c == m] for m in range(len(models)))
        ]
    for model, (draws, streams, which) in zip(models, cases):
        if draws:
            paths = (
                weigher(model, prior).draw(draws, streams)
                if prior is not None and isinstance(model, LayeredModel)
                else model.draw(draws, streams)
            )
            yield model, paths, streams, which


def name_ships(model: Drawn, paths: np.ndarray, rng: Randomness) -> list[tuple[Placement, ...]]:
    """Turn drawn paths (one action per cell) into layouts, naming each kind's ships in random order
    (path i's from ``rng[i]`` when it is one generator per path)."""
    tables = model.tables
    where = {(k, o): tables.covered_cells(k, o) for k in range(len(tables.kinds)) for o in (0, 1)}
    n = tables.problem.cols
    layouts = []
    for i, path in enumerate(paths):
        by_kind: list[list[tuple[int, ...]]] = [[] for _ in tables.kinds]
        for cell in np.flatnonzero(path):
            k, orientation = divmod(int(path[cell]) - 1, 2)
            by_kind[k].append(tuple(int(x) for x in where[k, orientation][:, cell]))
        layout: list[Placement | None] = [None] * len(tables.problem.ships)
        for k, kind in enumerate(tables.kinds):
            for ship, cells in zip(walker(rng, i).permutation(kind.ships), by_kind[k]):
                layout[int(ship)] = Placement.from_cells(int(ship), (divmod(cell, n) for cell in cells))
        layouts.append(tuple(p for p in layout if p is not None))
    return layouts


def name_owners(model: Drawn, paths: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """:func:`name_ships` as cell owners: the same random order of each kind's ships (the same calls to
    ``rng``, path by path, kind by kind), the i-th placement of a kind along the sweep named by the
    i-th ship of its permutation. A kind of one ship is not permuted: shuffling one element draws nothing
    from the generator (tests/test_native_engine.py checks that both readings agree)."""
    tables = model.tables
    named = [np.tile(np.array(kind.ships, dtype=np.int64), (len(paths), 1)) for kind in tables.kinds]
    shuffled = [(named[k], np.array(kind.ships)) for k, kind in enumerate(tables.kinds) if len(kind.ships) > 1]
    for path in range(len(paths)):
        for ships, kind_ships in shuffled:
            ships[path] = rng.permutation(kind_ships)
    owners = np.full((len(paths), tables.cell_count), -1, dtype=np.int64)
    actions = paths.astype(np.int64) - 1  # 2 * kind + orientation; -1 where no ship starts
    for k, ships in enumerate(named):
        starts = (actions >> 1) == k
        rank = np.cumsum(starts, axis=1) - 1
        for orientation in (0, 1):
            s, j = np.nonzero(starts & ((actions & 1) == orientation))
            cells = tables.covered_cells(k, orientation)[:, j]
            owners[s[None, :], cells] = ships[s, rank[s, j]][None, :]
    return owners
