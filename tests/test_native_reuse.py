"""The native engine's reuse of listed layouts (battlelog/engines/native/reuse.py), against the oracle.

- a state answered by filtering the listing of one of its prefixes (1 to MAX_NEW shots back) equals
  the oracle (tests/oracle.py, written from the spec): count, cell and placement marginals, on
  squares and rectangles with ships of length 1, at least a hundred random consistent states per
  touch rule and sink rule, and under salvo (volleys);
- the states of a game, asked in order of an engine that reuses, equal fresh calls of an engine that
  does not (bit for bit), and reuse happens; under a prior they equal the oracle's weighted marginals;
- what is remembered: a state asked about many times over (lookahead's next states) stays remembered.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from battlelog.engines.native import few
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.few import few_layouts, listed_counts
from battlelog.engines.native.reuse import CAPACITY, MAX_NEW, Listing
from battlelog.engines.workspace import Workspace
from battlelog.errors import Inconsistent
from battlelog.model.ground import ground_problem
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState, Shot
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules

import oracle
from oracle_states import oracle_state

#: (rows, cols, fleet, states, seed): squares and rectangles, each with a ship of length 1.
CONFIGS = ((4, 4, (3, 2, 1), 30, 31), (4, 4, (2, 2, 1, 1), 30, 32), (3, 5, (3, 2, 1), 25, 33), (5, 4, (3, 2, 1), 25, 34))


@cache
def states(touch: str, sinks: str, salvo: int = 1) -> tuple[tuple[GameState, oracle.Layouts], ...]:
    """Random consistent states (oracle-checked, tests/oracle_states.py) of every configuration, with the
    oracle's layouts; under ``salvo`` the same shots in volleys of that many."""
    if salvo != 1:  # the same shots, in volleys (the posterior does not change: the oracle checks it)
        out = []
        for state, table in states(touch, sinks):
            c = state.config
            config = GameConfig(c.rows, c.ships, Rules(touch=touch, sinks=sinks, salvo=salvo), cols=c.cols)
            out.append(
                (
                    GameState(config, tuple(Shot(s.row, s.col, s.result, s.ship, t // salvo) for t, s in enumerate(state.shots))),
                    table,
                )
            )
        return tuple(out)
    out = []
    for rows, cols, ships, count, seed in CONFIGS:
        table = oracle.layouts(rows, ships, touch, cols)
        config = GameConfig(rows, ships, Rules(touch=touch, sinks=sinks), cols=cols)
        rng = np.random.default_rng(seed)
        out += [(oracle_state(config, table, rng)[0], table) for _ in range(count)]
    return tuple(out)


_SPOTS: dict[int, tuple[oracle.Layouts, np.ndarray]] = {}


def spot_array(table: oracle.Layouts) -> np.ndarray:
    """The oracle's layouts as one array: ``[k, i]`` is ship i's spot (length, row, col, across) in layout k."""
    if id(table) not in _SPOTS:
        _SPOTS[id(table)] = (table, np.array(table.spots, dtype=np.int64).reshape(len(table), len(table.ships), 4))
    return _SPOTS[id(table)][1]


def placement_shares(table: oracle.Layouts, chosen: np.ndarray, weights: np.ndarray) -> list[dict[oracle.Spot, float]]:
    """As ``oracle.weighted_placement_marginals``, summed with numpy (the oracle's loop is slow on many layouts)."""
    spots, share = spot_array(table)[chosen], weights[chosen] / weights[chosen].sum()
    code = ((spots[:, :, 0] * 64 + spots[:, :, 1]) * 64 + spots[:, :, 2]) * 2 + spots[:, :, 3]  # one number per spot
    out = []
    for i in range(len(table.ships)):
        sums = np.bincount(code[:, i], weights=share)
        found = np.flatnonzero(sums)
        out.append({(int(k) >> 13, int(k) >> 7 & 63, int(k) >> 1 & 63, bool(k & 1)): float(sums[k]) for k in found})
    return out


def check_against_oracle(
    state: GameState,
    table: oracle.Layouts,
    models: int,
    cells: np.ndarray,
    placements: tuple[np.ndarray, ...],
    weights: np.ndarray | None = None,
) -> None:
    """The figures of ``state`` equal the oracle's (its layouts by the transcript rule, weighed by ``weights``)."""
    sinks = state.config.rules.sinks
    chosen = oracle.posterior(table, [(s.cell, (s.result, s.ship)) for s in state.shots], sinks)
    where = f"{state.config.label()} {state.to_json()['shots']}"
    assert models == len(chosen), where
    if weights is None:
        weights = np.ones(len(table))
    want_cells, want_placements = oracle.weighted_cell_marginals(table, chosen, weights), placement_shares(table, chosen, weights)
    np.testing.assert_allclose(cells, want_cells, rtol=0, atol=1e-12, err_msg=where)
    for i in range(len(state.ships)):
        want = [want_placements[i].get((p.length, p.row, p.col, p.horizontal), 0.0) for p in state.config.placements(i)]
        np.testing.assert_allclose(placements[i], want, rtol=0, atol=1e-12, err_msg=where)


@pytest.mark.parametrize("salvo", [1, 2])
@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize("sinks", SINK_RULES)
def test_a_filtered_listing_equals_the_oracle(monkeypatch: pytest.MonkeyPatch, sinks: str, touch: str, salvo: int) -> None:
    monkeypatch.setattr(few, "PAIR_LIMIT", 1 << 22)  # list even the empty boards, to filter from any prefix
    rng = np.random.default_rng(7)
    filtered = 0
    cases = states(touch, sinks, salvo)
    assert len(cases) >= 100
    for state, table in cases:
        back = int(rng.integers(1, MAX_NEW + 1))
        earlier = state.prefix(max(0, len(state.shots) - back))
        listed = few_layouts(ground_problem(earlier))
        assert listed is not None
        out = Listing(earlier, *listed).extended(state)
        counts = listed_counts(state.rows, state.cols, state.ships, *out.layouts)
        models = counts.models
        marginals = counts.marginals()
        assert marginals.placements is not None
        check_against_oracle(state, table, models, marginals.cells, marginals.placements)
        filtered += len(state.shots) > len(earlier.shots)
    assert filtered >= 90


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize("sinks", SINK_RULES)
def test_a_game_answered_by_reuse_equals_fresh_calls(tmp_path_factory: pytest.TempPathFactory, sinks: str, touch: str) -> None:
    """Every prefix of every other state, in order (the states of a game as a player asks them), by an engine
    that reuses and by one that does not: the same integers, so bit-identical marginals; those answered
    by filtering also against the oracle."""
    reusing = NativeEngine(workspace=Workspace(tmp_path_factory.mktemp("a")))
    fresh = NativeEngine(workspace=Workspace(tmp_path_factory.mktemp("b")), reuse=False)
    for state, table in states(touch, sinks)[::2]:
        for t in range(len(state.shots) + 1):
            step = state.prefix(t)
            before = reusing.listings.reused
            got, want = reusing.counts(step), fresh.counts(step)
            assert got.models == want.models
            assert np.array_equal(got.cells, want.cells)
            assert all(np.array_equal(a, b) for a, b in zip(got.placements, want.placements))
            if reusing.listings.reused > before:
                marginals = got.marginals()
                assert marginals.placements is not None
                check_against_oracle(step, table, got.models, marginals.cells, marginals.placements)
    assert reusing.listings.reused >= 100 and fresh.listings.reused == 0


@pytest.mark.parametrize("touch", TOUCH_RULES)
def test_reuse_under_a_prior_equals_the_oracle(touch: str) -> None:
    """The weighted posterior of a game's states, filtered: each layout keeps its own weight."""
    theta = Prior(edge=0.7, vertical=-0.4, touch=0.5 if touch == "allowed" else 0.0)
    reusing = NativeEngine(workspace=Workspace())
    fresh = NativeEngine(workspace=Workspace(), reuse=False)
    for state, table in states(touch, "named")[:40]:
        config = GameConfig(state.rows, state.ships, state.config.rules, cols=state.cols, prior=theta)
        weights = oracle.layout_weights(table, theta.edge, theta.vertical, theta.touch)
        for t in range(len(state.shots) + 1):
            step = GameState(config, state.shots[:t])
            got, want = reusing.weighted(step), fresh.weighted(step)
            assert got.models == want.models
            np.testing.assert_allclose(got.cells, want.cells, rtol=0, atol=1e-12)
            np.testing.assert_allclose(got.features, want.features, rtol=0, atol=1e-12)
            assert got.log_z == pytest.approx(want.log_z, abs=1e-12)
            check_against_oracle(step, table, got.models, got.cells, got.placements, weights)
    assert reusing.listings.reused >= 50


def test_a_state_asked_about_many_times_over_stays_remembered() -> None:
    """Lookahead asks a state, then its next states one shot on, many more than the memory holds: the
    state itself, used for each of them, is kept, so that every one of them is answered by filtering."""
    config = GameConfig(5, (3, 2, 1))
    state = GameState(config).with_shot(2, 2, "hit").with_shot(2, 3, "miss")
    engine = NativeEngine(workspace=Workspace())
    engine.counts(state)
    cells = [cell for cell in state.unshot if cell != (2, 1)]
    assert len(cells) > CAPACITY
    for r, c in cells:
        engine.counts(state.with_shot(r, c, "miss"))
    assert engine.listings.reused == len(cells)


def test_no_layout_left_says_why_as_a_fresh_call_does() -> None:
    """A state no layout fits, one shot on from a remembered one (a hit next to the sunk 2, where only the
    1 could be, and would be sunk): the same one-line error as a fresh call."""
    config = GameConfig(4, (2, 1))
    state = GameState(config).with_shot(0, 0, "hit").with_shot(0, 1, "sunk", 0)
    engine, fresh = NativeEngine(workspace=Workspace()), NativeEngine(workspace=Workspace(), reuse=False)
    engine.counts(state)
    with pytest.raises(Inconsistent) as fresh_error:
        fresh.counts(state.with_shot(0, 2, "hit"))
    with pytest.raises(Inconsistent) as reused_error:
        engine.counts(state.with_shot(0, 2, "hit"))
    assert str(reused_error.value) == str(fresh_error.value)
