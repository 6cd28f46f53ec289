"""The native engine's listing of states with few layouts (battlelog.engines.native.few).

- late 10x10 states (standard rules) against consistent_layouts (tests/oracle.py, from the spec);
- late states of games under each touch rule against the sweep, count for count (the sweep is
  itself checked against independent enumerators in tests/test_native_touch.py and
  tests/test_variant_oracle.py, which also checks the engine as shipped, listing included);
- its index of placements against ship_placements' order, on every length and board size used;
- it gives up past its limit, and the engine then sweeps; a listing with no layout is Inconsistent.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from battlelog.engines.native import few
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.tables import sweep_order
from battlelog.errors import Inconsistent
from battlelog.model.ground import ground_problem
from battlelog.players import make_player
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import ship_placements
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

from oracle import brute_placements, consistent_layouts


@cache
def late_states(config: GameConfig, games: int, start: int) -> tuple[GameState, ...]:
    """Every state of ``games`` pdf games on ``config`` from shot ``start`` on (late: few layouts)."""
    out: list[GameState] = []
    for game in range(games):
        states: list[GameState] = []
        play_game(config, layout_for(config, 3, game), make_player("pdf", game_seeds(3, game)[1]), on_shot=states.append)
        out += states[start:-1]
    return tuple(out)


def test_listing_equals_enumeration_on_late_standard_states() -> None:
    listed = 0
    for state in late_states(GameConfig(10, (5, 4, 3, 3, 2)), 3, 24)[::3]:
        counts = few.few_counts(ground_problem(state))
        if counts is None:
            continue
        layouts = consistent_layouts(state)
        assert counts.models == len(layouts)
        cells = np.zeros((10, 10), dtype=np.int64)
        for layout in layouts:
            for p in layout:
                for r, c in p.cells:
                    cells[r, c] += 1
        np.testing.assert_array_equal(counts.cells, cells)
        for got, want in zip(counts.placements, brute_placements(state, layouts)):
            np.testing.assert_allclose(got / counts.models, want, rtol=0, atol=1e-12)
        listed += 1
    assert listed >= 10


@pytest.mark.parametrize("touch", ["allowed", "diagonal", "none"])
@pytest.mark.parametrize("shape", [(8, 8), (6, 9)])  # 6x9 is swept transposed, across its 6 rows
def test_listing_equals_the_sweep_under_each_touch_rule(touch: str, shape: tuple[int, int]) -> None:
    sweeping = NativeEngine()
    listed = 0
    rows, cols = shape
    for state in late_states(GameConfig(rows, (4, 3, 3, 2, 1), Rules(touch=touch), cols=cols), 4, 8):
        problem = ground_problem(state)
        counts = few.few_counts(problem)
        if counts is None:
            continue
        swept = sweeping.problem_counts(problem, sweep_order(state))
        assert counts.models == swept.models
        np.testing.assert_array_equal(counts.cells, swept.cells)
        for got, want in zip(counts.placements, swept.placements):
            np.testing.assert_array_equal(got, want)
        listed += 1
    assert listed >= 30


def test_the_index_of_a_placement_is_its_place_in_ship_placements() -> None:
    for rows, cols in ((3, 3), (6, 6), (10, 10), (15, 15), (3, 5), (7, 2), (4, 9)):
        for length in (1, 2, 3, 5):
            placements = ship_placements(rows, cols, 0, length)
            assert [few._canonical_index(p, rows, cols) for p in placements] == list(range(len(placements)))


def test_a_state_with_many_layouts_is_swept() -> None:
    empty = GameState.empty(GameConfig(10, (5, 4, 3, 3, 2)))
    assert few.few_counts(ground_problem(empty)) is None
    assert NativeEngine().counts(empty).models == 30_093_975_536


def test_no_layout_listed_is_a_contradiction() -> None:
    """3x3, two ships of 2, no contact, a hit in the centre: the ship on it keeps every other cell
    out, so the second ship has nowhere to go (each ship alone still has placements: pruning does not see it)."""
    state = GameState.empty(GameConfig(3, (2, 2), Rules(touch="none"))).with_shot(1, 1, "hit")
    problem = ground_problem(state)
    counts = few.few_counts(problem)
    assert counts is not None and counts.models == 0
    with pytest.raises(Inconsistent):
        NativeEngine().counts(state)
