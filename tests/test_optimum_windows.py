"""The search's ship bound and greedy upper bound, against exhaustive recursion written here.

On every belief state reachable on small instances (every sequence of shots, every answer, under
every sink rule of the oracle), the exact total T is Bellman's equation over all policies, as in
tests/test_optimum_rules.py; the ship bound (``n * remaining + search.ship_bound``) must never pass
it, and ``search.policy_total`` must equal this file's own walk of the greedy policy ("the cell the
most layouts cover, the lowest on ties"), hence be at least T. The search with the bound, the
windows and the widening root must still give the exhaustive optimum.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from battlelog.optimum import search
from battlelog.optimum.layouts import SINK_MODES
from battlelog.optimum.solver import Settings, Solver
from battlelog.rules.config import GameConfig
from battlelog.rules.variants import SINK_RULES, Rules

import oracle

#: (size, fleet, touch): 3x3 with two ships of different and of equal lengths, and with no contact.
INSTANCES = [(3, (2, 1), "allowed"), (3, (2, 2), "allowed"), (3, (3, 2), "allowed"), (3, (2, 2), "none")]


def _check_states(size: int, ships: tuple[int, ...], touch: str, sinks: str) -> int:
    """Compare the bounds with T on every reachable state; returns how many states were checked."""
    config = GameConfig(size, ships, Rules(touch, sinks))
    solver = Solver(config, memory=1 << 20)
    table = solver.layouts
    theirs = oracle.layouts(size, ships, touch)
    masks = [tuple(layout) for layout in oracle.layout_masks(theirs, size)]
    # The solver's index of each oracle layout, matched by its ships' cells.
    index = {tuple(int(m) for m in table.ship_masks[k]): k for k in range(len(table))}
    mine = [index[layout] for layout in masks]
    assert len(mine) == len(table)
    everything = [sum(layout) for layout in masks]

    def answer(k: int, shot: int, bit: int) -> str:
        return oracle.mask_answer(masks[k], shot, bit, sinks)

    def split(shot: int, alive: frozenset[int], x: int) -> list[frozenset[int]]:
        groups: dict[str, list[int]] = {}
        for k in alive:
            groups.setdefault(answer(k, shot, 1 << x), []).append(k)
        return [frozenset(g) for g in groups.values()]

    def done(shot: int, alive: frozenset[int]) -> bool:
        return all(everything[k] & ~shot == 0 for k in alive)

    @cache
    def total(shot: int, alive: frozenset[int]) -> int:
        """T: the optimal shots still to fire, summed over ``alive`` (every unshot cell tried)."""
        if done(shot, alive):
            return 0
        return len(alive) + min(
            sum(total(shot | 1 << x, g) for g in split(shot, alive, x)) for x in range(size * size) if not shot >> x & 1
        )

    @cache
    def greedy(shot: int, alive: frozenset[int]) -> int:
        """The greedy policy's shots still to fire, summed over ``alive``."""
        if done(shot, alive):
            return 0
        counts = [sum(1 for k in alive if everything[k] >> x & 1 and not shot >> x & 1) for x in range(size * size)]
        x = counts.index(max(counts))
        return len(alive) + sum(greedy(shot | 1 << x, g) for g in split(shot, alive, x))

    fleet = sum(ships)
    most = solver.symmetries.placements.shape[2]
    seen: set[tuple[int, frozenset[int]]] = set()
    stack = [(0, frozenset(range(len(masks))))]
    while stack:
        shot, alive = stack.pop()
        if (shot, alive) in seen or done(shot, alive):
            continue
        seen.add((shot, alive))
        # Only the hits are part of the search's state: misses act through the layouts left.
        hits = next(iter(alive))  # every layout left agrees on which shots hit
        hits = everything[hits] & shot
        layouts = np.array(sorted(mine[k] for k in alive), dtype=np.int32)
        remaining = fleet - bin(hits).count("1")
        exact = total(shot, alive)
        lower = len(alive) * remaining + search.ship_bound(layouts, np.uint64(hits), table.ship_masks, table.placement, most)
        assert lower <= exact, (shot, sorted(alive), lower, exact)
        plies = search.ply_bound(
            layouts, np.uint64(hits), 2, table.ship_masks, table.owner, table.placement, table.union, fleet,
            SINK_MODES[sinks], most,
        )
        assert lower <= plies <= exact, (shot, sorted(alive), plies, exact)
        upper = search.policy_total(
            layouts, np.uint64(hits), table.ship_masks, table.owner, table.union, fleet, SINK_MODES[sinks]
        )
        assert upper == greedy(shot, alive) >= exact
        for x in range(size * size):
            if not shot >> x & 1:
                stack.extend((shot | 1 << x, g) for g in split(shot, alive, x))
    return len(seen)


@pytest.mark.parametrize("sinks", SINK_RULES)
@pytest.mark.parametrize("instance", INSTANCES, ids=lambda i: f"{i[0]}x{i[0]}-{','.join(map(str, i[1]))}-{i[2]}")
def test_the_ship_bound_is_below_and_greedy_above_the_optimum_on_every_state(
    instance: tuple[int, tuple[int, ...], str], sinks: str
) -> None:
    size, ships, touch = instance
    assert _check_states(size, ships, touch, sinks) > 50


def test_the_ship_bound_is_stronger_than_the_misses_before_the_next_hit_somewhere() -> None:
    # A test that the bound is not vacuous: after a hit on the 3-ship of 4x4 3,2, the next hit is
    # likely the 3-ship again (next-hit bound about 0 misses), but the 2-ship is still to be found.
    solver = Solver(GameConfig(4, (3, 2)), memory=1 << 20)
    t = solver.layouts
    everything = np.arange(len(t), dtype=np.int32)
    most = solver.symmetries.placements.shape[2]
    cover = np.zeros(16, dtype=np.int64)
    for lay in everything:
        search._count_cells(t.union[lay], cover)
    weak = search.lower_bound(len(t), 5, cover, search.BOUND_MISSES) - 5 * len(t)
    assert search.ship_bound(everything, np.uint64(0), t.ship_masks, t.placement, most) > weak


DEVICES = [
    Settings(bound=search.BOUND_SHIPS),
    Settings(upper=2),
    Settings(bound=search.BOUND_SHIPS, upper=2, order=search.ORDER_COVER),
    Settings(bound=search.BOUND_SHIPS, upper=2, step=50),
]


@pytest.mark.parametrize("settings", DEVICES, ids=str)
@pytest.mark.parametrize("sinks", SINK_RULES)
def test_the_new_devices_keep_the_exhaustive_optimum(settings: Settings, sinks: str) -> None:
    for size, ships, touch in INSTANCES:
        config = GameConfig(size, ships, Rules(touch, sinks))
        plain = Solver(config, memory=1 << 22, settings=Settings(symmetries=False, bound=search.BOUND_CELLS))
        assert Solver(config, memory=1 << 22, settings=settings).optimum() == plain.optimum()


def test_the_new_devices_keep_the_optimum_of_4x4_3_2() -> None:
    config = GameConfig(4, (3, 2))
    fast = Solver(config, memory=1 << 24, settings=Settings(bound=search.BOUND_SHIPS, upper=2, step=50))
    assert fast.optimum() == Solver(config, memory=1 << 24).optimum()
