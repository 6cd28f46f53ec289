"""A kept model weighed again for a state that adds a miss or two under a prior (misses.weighted_recount):
the transitions that cover a miss weigh 0. Games asked in order under random priors and every touch and
sink rule: every state's weighted marginals equal the independent oracle's to 1e-9, the recount is taken
(so the comparison tests it), and on larger boards (compiled kernels) it equals a fresh engine's sweep."""

from __future__ import annotations

import numpy as np
import pytest
from test_native_misses import listing_off_counting
from test_native_prior import random_prior

from battlelog.engines.native.engine import NativeEngine
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules

import oracle
from oracle_states import oracle_game


@pytest.fixture
def recounts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Listing off (every state is swept or weighed again), and how many weighted recounts were made."""
    return listing_off_counting(monkeypatch, "MaskedWeigher")


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize("sinks", SINK_RULES)
def test_games_under_a_prior_asked_in_order_weigh_as_the_oracle(sinks: str, touch: str, recounts: list[int]) -> None:
    rng = np.random.default_rng(23)
    asked = 0
    for size, ships in ((4, (3, 2, 1)), (5, (3, 2, 2))):
        table = oracle.layouts(size, ships, touch)
        for _ in range(3):
            prior = random_prior(rng)
            config = GameConfig(size, ships, Rules(touch=touch, sinks=sinks), prior=prior)
            weight = oracle.layout_weights(table, *prior.theta)
            engine = NativeEngine(reuse=False)
            for state in oracle_game(config, table, rng):
                got = engine.marginals(state)
                shots = [(s.cell, (s.result, s.ship)) for s in state.shots]
                chosen = oracle.posterior(table, shots, sinks)
                where = f"{config.label()} {state.to_json()['shots']}"
                assert got.models == len(chosen), where
                want = oracle.weighted_cell_marginals(table, chosen, weight)
                np.testing.assert_allclose(got.cells, want, rtol=0, atol=1e-9, err_msg=where)
                asked += 1
    assert asked >= 60
    assert recounts[0] >= 10


@pytest.mark.parametrize(
    "config",
    [
        GameConfig(10, (5, 4, 3, 3, 2), prior=Prior(edge=0.8, vertical=-0.3)),
        GameConfig(7, (4, 3, 3, 2), prior=Prior(edge=-0.4, touch=0.5)),
        GameConfig(8, (4, 3, 3, 2), Rules(touch="none", sinks="unnamed"), prior=Prior(vertical=0.7)),
    ],
    ids=lambda c: c.label(),
)
def test_misses_weighed_on_the_last_state_are_a_fresh_sweeps(config: GameConfig, recounts: list[int]) -> None:
    engine = NativeEngine(reuse=False)
    state = GameState.empty(config).with_shot(3, 3, "hit").with_shot(3, 4, "miss")
    for cell in ((2, 3), (4, 4), (2, 2), (5, 1), (1, 5), (4, 3), (6, 6)):  # swept, then a miss or two on, in turn
        got, fresh = engine.weighted(state), NativeEngine(reuse=False).weighted(state)
        assert got.models == fresh.models
        np.testing.assert_allclose(got.cells, fresh.cells, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.features, fresh.features, rtol=1e-12, atol=1e-12)
        assert got.log_z == pytest.approx(fresh.log_z, rel=1e-12)
        for mine, theirs in zip(got.placements, fresh.placements):
            np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-12)
        state = state.with_shot(*cell, "miss")
    assert recounts[0] >= 4
