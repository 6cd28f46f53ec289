"""The native engine under a prior (issue 18), against the independent oracle (tests/oracle.py) and exact arithmetic.

- every transition's weight on its own: the placement terms (edge, vertical) and the touching pairs
  summed along every path of small models, in all eight sweep orders, equal each layout's features;
- random consistent states (touch and sink rules, squares and rectangles, ships of length 1) under
  random priors: cells and placements equal the oracle's weighted marginals to 1e-9, ``models`` the
  oracle's count exactly, listed or swept; feature expectations and the log partition too;
- models rebuilt from segment starts and states split over the budget weigh the same;
- the cache: a state and its transpose under a vertical weight are different posteriors;
- weighted draws are exact (a chi-square over every layout, which rejects uniform draws);
- a strong prior on 15x15 stays finite; the uniform prior keeps the integer path, bit for bit;
- exact rational arithmetic on 5x5: the relative error of the float passes.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats
from test_variant_oracle import variant_states

from battlelog.engines.native import draws as draws_module
from battlelog.engines.native import few, ladder, layered, passes, turns, weights
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.tables import SweepTables, sweep_order
from battlelog.engines.native.weights import Weigher, placement_log_weights
from battlelog.model.ground import Problem, ground
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.prior import FEATURES, Prior, layout_features
from battlelog.rules.state import GameState, Shot
from battlelog.rules.symmetry import SYMMETRIES, Symmetry
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules

import oracle
from oracle_states import oracle_state

Spot = oracle.Spot


@pytest.fixture(autouse=True)
def own_disk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test has its own empty-board folder: a board listed in one mode must not answer the swept one."""
    monkeypatch.setenv("BATTLELOG_CACHE_DIR", str(tmp_path / "cache"))


def random_prior(rng: np.random.Generator) -> Prior:
    """theta uniform in [-2, 2]^3; a third of the time only one feature weighs."""
    theta = rng.uniform(-2.0, 2.0, size=3)
    if rng.random() < 1 / 3:
        keep = int(rng.integers(3))
        theta = np.where(np.arange(3) == keep, theta, 0.0)
    return Prior(*(float(t) for t in theta))


def weighed(state: GameState, prior: Prior) -> GameState:
    return GameState(state.config.with_prior(prior), state.shots)


def oracle_features(table: oracle.Layouts) -> np.ndarray:
    """(edge, vertical, touch) of every layout, literally: the oracle's weights under unit thetas."""
    return np.stack([np.log(oracle.layout_weights(table, *unit)) for unit in np.eye(3)], axis=1)


#: (rows, cols, fleet) of the random states: squares and rectangles, ships of length 1 throughout.
BOARDS = ((4, 4, (3, 2, 1)), (4, 4, (2, 2, 1, 1)), (3, 5, (3, 2, 1)), (5, 4, (3, 2, 1)))


@cache
def prior_cases() -> tuple[tuple[GameState, np.ndarray], ...]:
    """252 states, 28 per touch and sink rule (7 per board), each under a random prior, with the oracle's
    posterior, drawn as tests/oracle_states.py says."""
    rng = np.random.default_rng(18)
    out = []
    for touch in TOUCH_RULES:
        for sinks in SINK_RULES:
            for rows, cols, ships in BOARDS:
                table = oracle.layouts(rows, ships, touch, cols)
                if not len(table):
                    continue
                config = GameConfig(rows, ships, Rules(touch=touch, sinks=sinks), cols=cols, prior=random_prior(rng))
                out += [oracle_state(config, table, rng) for _ in range(7)]
    return tuple(out)


def assert_weighted_oracle(engine: NativeEngine, state: GameState, chosen: np.ndarray) -> None:
    table = oracle.layouts(state.rows, state.ships, state.config.rules.touch, state.cols)
    weight = oracle.layout_weights(table, *state.config.effective_prior.theta)
    got = engine.marginals(state)
    where = f"{state.config.label()} {state.to_json()['shots']}"
    assert got.models == len(chosen), where
    np.testing.assert_allclose(got.cells, oracle.weighted_cell_marginals(table, chosen, weight), rtol=0, atol=1e-9, err_msg=where)
    expected = oracle.weighted_placement_marginals(table, chosen, weight)
    assert got.placements is not None
    for i in range(len(state.ships)):
        want = [expected[i].get((p.length, p.row, p.col, p.horizontal), 0.0) for p in state.config.placements(i)]
        np.testing.assert_allclose(got.placements[i], want, rtol=0, atol=1e-9, err_msg=where)


# ----- each transition rule on its own --------------------------------------------------------------
def all_paths(model: layered.LayeredModel) -> list[tuple[np.ndarray, list[int]]]:
    """Every path of a small model: its actions, and per cell the index of the transition it takes."""
    levels = [level for _, level in model.levels()]
    out: list[tuple[np.ndarray, list[int]]] = []

    def walk(j: int, state: int, taken: list[int]) -> None:
        if j == len(levels):
            out.append((np.array([levels[i].action[t] for i, t in enumerate(taken)], dtype=np.int8), taken))
            return
        level = levels[j]
        for t in range(level.first[state], level.first[state + 1]):
            walk(j + 1, int(level.child[t]), [*taken, t])

    walk(0, 0, [])
    return [(actions, taken) for actions, taken in out if len(actions)]


@pytest.mark.parametrize(("rows", "cols", "ships"), [(3, 3, (2, 1)), (3, 4, (2, 2, 1)), (4, 3, (3, 2))])
def test_every_path_weighs_its_layouts_features(rows: int, cols: int, ships: tuple[int, ...]) -> None:
    """In all eight (or four) sweep orders, a path's placement terms sum to its layout's edge and
    vertical counts, and its touching pairs to its touch count; and the paths are exactly the layouts."""
    config = GameConfig(rows, ships, cols=cols)
    problem = Problem.from_model(ground(GameState.empty(config)))
    orders = SYMMETRIES if rows == cols else [s for s in SYMMETRIES if s.transpose == (cols > rows)]
    table = oracle.layouts(rows, ships, cols=cols)
    want = Counter(tuple(f) for f in oracle_features(table).round().astype(int))
    for order in orders:
        model = layered.sweep(SweepTables(problem, order, tracked=True), 2**30)
        pairs = [level.touching for _, level in model.levels()]
        edge, vertical = (placement_log_weights(model.tables, unit) for unit in (Prior(edge=1.0), Prior(vertical=1.0)))
        got: Counter[tuple[int, int, int]] = Counter()
        for actions, taken in all_paths(model):
            layout = draws_module.name_ships(model, actions[None, :], np.random.default_rng(0))[0]
            features = layout_features(layout, rows, cols)
            cells = range(len(pairs))
            assert sum(edge[actions[j], j] for j in cells) == features[0], order
            assert sum(vertical[actions[j], j] for j in cells) == features[1], order
            touching = [int(at[taken[j]]) for j, at in enumerate(pairs) if at is not None]
            assert len(touching) == len(pairs) and sum(touching) == features[2], order
            got[features] += model.tables.multiplicity
        assert got == want, order


def test_tracking_touch_changes_no_count() -> None:
    """Keeping the occupancy profile under ``allowed`` only tells more states apart: the counts are the same."""
    state = GameState.empty(GameConfig(5, (3, 2, 2)))
    problem = Problem.from_model(ground(state))
    plain = layered.sweep(SweepTables(problem, sweep_order(state)), 2**30)
    tracked = layered.sweep(SweepTables(problem, sweep_order(state), tracked=True), 2**30)
    assert tracked.paths == plain.paths and (
        sum(level.states for _, level in tracked.levels()) > sum(level.states for _, level in plain.levels())
    )
    np.testing.assert_array_equal(tracked.uses(), plain.uses())


@pytest.mark.parametrize(("rows", "cols", "ships"), [(5, 5, (3, 2, 2)), (4, 6, (3, 2, 1)), (6, 5, (4, 3, 2))])
def test_settled_profiles_merge_states_and_weigh_alike(
    rows: int, cols: int, ships: tuple[int, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once every ship is placed the profile keeps only the cells a later transition reads (weight_kernel.settle): fewer
    states, the same layouts, and under priors with touch and vertical weights the same posterior as the profile kept
    whole, in every raster order, on the empty board and on states whose evidence is not its own transpose."""
    config = GameConfig(rows, ships, cols=cols)
    empty = GameState.empty(config)
    states = [
        empty,
        empty.with_shot(1, 2, "miss").with_shot(2, 1, "hit"),
        empty.with_shot(0, 0, "miss").with_shot(rows - 1, 1, "miss"),
    ]
    priors = [Prior(edge=0.3, vertical=-0.5, touch=0.7), Prior(touch=-1.2)]
    fewer = 0
    for state in states:
        problem = Problem.from_model(ground(state))
        for order in SYMMETRIES[:: 3 if rows == cols else 1]:
            if order.transpose and rows != cols:
                continue
            tables = SweepTables(problem, order, tracked=True)
            settled = layered.sweep(tables, 2**30)
            monkeypatch.setattr(layered, "SETTLE", False)
            whole = layered.sweep(tables, 2**30)
            monkeypatch.setattr(layered, "SETTLE", True)
            assert settled.paths == whole.paths
            sizes = [sum(level.states for _, level in model.levels()) for model in (settled, whole)]
            assert sizes[0] <= sizes[1]
            fewer += sizes[0] < sizes[1]
            for prior in priors:
                got, want = Weigher(settled, prior).weighted(), Weigher(whole, prior).weighted()
                np.testing.assert_allclose(got.cells, want.cells, atol=1e-12)
                for a, b in zip(got.placements, want.placements):
                    np.testing.assert_allclose(a, b, atol=1e-12)
                np.testing.assert_allclose(got.features, want.features, atol=1e-9)
                assert got.log_z == pytest.approx(want.log_z, rel=1e-12)
    assert fewer >= 3  # the empty board merges states in every order tried


# ----- the oracle ------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["listed", "swept"])
def test_weighted_marginals_equal_the_oracle(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if mode == "swept":
        monkeypatch.setattr(few, "PAIR_LIMIT", 0)
    engine = NativeEngine()  # one engine for every state: its caches must keep priors apart
    cases = prior_cases()
    assert len(cases) >= 200 and {(s.rows, s.cols) for s, _ in cases} >= {(3, 5), (4, 4), (5, 4)}
    assert sum(s.sunk_count > 0 for s, _ in cases) >= 20 and sum(s.over for s, _ in cases) >= 5
    assert sum(1 for s, _ in cases if sum(t != 0 for t in s.config.prior.theta) == 1) >= 30
    for state, chosen in cases:
        assert_weighted_oracle(engine, state, chosen)


@pytest.mark.parametrize("mode", ["listed", "swept"])
def test_feature_expectations_and_log_partition_equal_the_oracle(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if mode == "swept":
        monkeypatch.setattr(few, "PAIR_LIMIT", 0)
    engine = NativeEngine()
    for state, chosen in prior_cases()[::3]:
        table = oracle.layouts(state.rows, state.ships, state.config.rules.touch, state.cols)
        weight = oracle.layout_weights(table, *state.config.effective_prior.theta)[chosen]
        features = oracle_features(table)[chosen]
        where = f"{state.config.label()} {state.to_json()['shots']}"
        expected = weight @ features / weight.sum()
        np.testing.assert_allclose(engine.feature_expectations(state), expected, rtol=1e-9, atol=1e-9, err_msg=where)
        for asked in (("edge", "vertical"), ("touch",), ("vertical",)):  # a subset, in FEATURES order: untracked without touch
            picked = [FEATURES.index(f) for f in asked]
            np.testing.assert_allclose(
                engine.feature_expectations(state, asked), expected[picked], rtol=1e-9, atol=1e-9, err_msg=where
            )
        assert engine.log_partition(state) == pytest.approx(math.log(weight.sum()), rel=1e-12, abs=1e-9), where
        uniform = GameState(state.config.with_prior(Prior()), state.shots)
        assert engine.log_partition(uniform) == math.log(len(chosen))
        np.testing.assert_allclose(
            engine.feature_expectations(uniform), features.mean(axis=0), rtol=1e-9, atol=1e-9, err_msg=where
        )


def test_one_model_serves_every_prior_on_the_same_shots(monkeypatch: pytest.MonkeyPatch) -> None:
    # A fit asks for many priors on one board: each is weighed over the model swept once (twice with touching
    # pairs counted), and every answer is still the oracle's, whatever was asked before it.
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)
    engine = NativeEngine()
    compiled: list[tuple[object, ...]] = []
    real = engine.compile_model

    def compile_noted(*args: Any, **kw: Any) -> Any:
        compiled.append((args[3] if len(args) > 3 else kw.get("tracked", False),))  # whether touching pairs were counted
        return real(*args, **kw)

    monkeypatch.setattr(engine, "compile_model", compile_noted)
    board = GameConfig(4, (3, 2, 1))
    table = oracle.layouts(4, (3, 2, 1))
    features = oracle_features(table)
    shots = (Shot(1, 1, "miss"), Shot(2, 2, "hit"))
    chosen = oracle.posterior(table, [((1, 1), ("miss", None)), ((2, 2), ("hit", None))], "named")
    untracked = [Prior(edge=0.7, vertical=-0.2), Prior(edge=-0.3), Prior(), Prior(edge=0.7, vertical=-0.2)]
    tracked = [Prior(vertical=1.1, touch=-0.8), Prior(edge=-0.3), Prior(touch=0.4)]
    for asked, priors in ((("edge", "vertical"), untracked), (FEATURES, tracked)):
        for prior in priors:
            state = GameState(board.with_prior(prior), shots)
            weight = oracle.layout_weights(table, *prior.theta)[chosen]
            expected = weight @ features[chosen] / weight.sum()
            picked = [FEATURES.index(f) for f in asked]
            np.testing.assert_allclose(engine.feature_expectations(state, asked), expected[picked], rtol=1e-9, atol=1e-9)
            assert engine.log_partition(state) == pytest.approx(math.log(weight.sum()), rel=1e-12, abs=1e-9)
            assert_weighted_oracle(engine, state, chosen)
    # Once without touching pairs, once with, each the first of two cases (the 3 across: turns.py; the shots are their own
    # transpose, so the 3 down is the first case weighed under the opposite vertical weight): no prior swept the board again.
    assert compiled == [(False,), (True,)]


def test_rebuilt_and_split_models_weigh_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layered, "RECOMPUTE", False)  # split, not recomputed (that: tests/test_native_recompute.py)
    state = weighed(GameState(GameConfig(5, (3, 2, 1)), (Shot(2, 2, "hit"), Shot(1, 1, "miss"))), Prior(0.6, -0.8, 1.1))
    tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state), tracked=True)
    kept = layered.sweep(tables, 2**31)
    lean = layered.sweep(tables, 2**31, keep_levels=False)  # segment starts only: every segment rebuilt when read
    assert lean.rebuilds and not kept.rebuilds
    prior = state.config.prior
    a, b = Weigher(kept, prior).weighted(), Weigher(lean, prior).weighted()
    np.testing.assert_allclose(b.cells, a.cells, rtol=1e-12, atol=0)
    assert b.log_z == pytest.approx(a.log_z, rel=1e-14)
    draws = [Weigher(m, prior).draw(200, np.random.default_rng(4)) for m in (kept, lean)]
    np.testing.assert_array_equal(draws[0], draws[1])
    # 0.8 of the rebuilt peak: levels taken in slices fit 0.95 of it unsplit, 0.5 needs two levels of splits
    split_engine = NativeEngine(
        memory_budget=int(layered.sweep(tables, 2**31, keep_levels=False).peak * 0.8), turn=False
    )  # the whole state
    built: list[int] = []
    original = split_engine.compile_model

    def compile_counted(
        problem: Problem, order: Symmetry, depth: int, tracked: bool = False, limit: int | None = None
    ) -> layered.LayeredModel:
        built.append(depth)
        return original(problem, order, depth, tracked, limit)

    split_engine.compile_model = compile_counted  # type: ignore[method-assign]
    split = split_engine.marginals(state)
    assert max(built) >= 1  # it was split
    table = oracle.layouts(5, (3, 2, 1))
    chosen = oracle.posterior(table, [((2, 2), ("hit", None)), ((1, 1), ("miss", None))], "named")
    assert_weighted_oracle(NativeEngine(), state, chosen)
    np.testing.assert_allclose(split.cells, NativeEngine().marginals(state).cells, rtol=0, atol=1e-12)
    assert split_engine.log_partition(state) == pytest.approx(NativeEngine().log_partition(state), rel=1e-12)


# ----- caches ----------------------------------------------------------------------------------------
def test_a_touch_weights_model_keeps_no_forward_counts_and_counts_them_again_alike() -> None:
    """A touch weight's model keeps its levels without their integer forward counts (a third of its bytes): read for
    counting they come back equal to the sweep's (a model that rebuilds its levels), and counts and draws are alike."""
    state = GameState.empty(GameConfig(6, (4, 3, 2, 2)))
    tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state), tracked=True)
    kept = layered.sweep(tables, 2**31)
    rebuilt = layered.sweep(tables, 2**31, keep_levels=False)
    assert not kept.rebuilds and rebuilt.rebuilds and len(kept.segments) >= 3
    assert all(level.fwd is None for segment in kept.segments for level in segment.levels or ())
    counted = [level.counts for _, level in kept.levels()]
    swept = [level.counts for _, level in rebuilt.levels()]
    assert len(counted) == len(swept) == tables.cell_count
    for a, b in zip(counted, swept):
        np.testing.assert_array_equal(a, b)
    held = sum(level.nbytes for segment in kept.segments for level in segment.levels or ())
    assert held == sum(level.nbytes for _, level in rebuilt.levels()) - 8 * sum(len(c) for c in counted)
    np.testing.assert_array_equal(kept.uses(), rebuilt.uses())
    draws = [model.draw(50, np.random.default_rng(7)) for model in (kept, rebuilt)]
    np.testing.assert_array_equal(draws[0], draws[1])
    plain = layered.sweep(SweepTables(Problem.from_model(ground(state)), sweep_order(state)), 2**31)
    np.testing.assert_array_equal(kept.uses(), plain.uses())


@pytest.mark.parametrize(("kept_bytes", "kept_segments"), [(0, 0), (1 << 17, 2), (1 << 40, 6)])
def test_two_priors_weighed_together_equal_each_weighed_alone(
    kept_bytes: int, kept_segments: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One pass carrying two priors (the self-transposed board's prior and its flip) gives each prior's posterior bit for
    bit as a pass of its own, whether the forward values are kept for the backward pass, partly, or computed again."""
    monkeypatch.setattr(passes, "FORWARD_BYTES", kept_bytes)
    state = GameState(GameConfig(6, (4, 3, 2, 2)), (Shot(2, 3, "hit"), Shot(4, 1, "miss")))
    tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state), tracked=True)
    model = layered.sweep(tables, 2**31)
    assert len(passes.kept_segments(model, 2)) == kept_segments  # none, the last two of six, all
    priors = (Prior(0.8, -0.3, -0.5), Prior(0.8, 0.3, -0.5))
    together = weights.weighed_together([Weigher(model, prior) for prior in priors])
    monkeypatch.setattr(passes, "FORWARD_BYTES", 1 << 40)
    for got, prior in zip(together, priors):
        alone = Weigher(model, prior).weighted()
        np.testing.assert_array_equal(got.cells, alone.cells)
        for a, b in zip(got.placements, alone.placements):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(got.features, alone.features)
        assert got.log_z == alone.log_z and got.models == alone.models
    assert not np.array_equal(together[0].cells, together[1].cells)


def test_a_vertical_weight_keeps_a_state_and_its_transpose_apart() -> None:
    """Under a vertical weight, transposing a state changes its posterior; the state cache must not
    answer one with the other's image. Edge and touch weights keep all eight symmetries."""
    transpose = next(s for s in SYMMETRIES if s.transpose and not s.flip_rows and not s.flip_cols)
    shots = (Shot(0, 1, "hit"), Shot(2, 2, "miss"), Shot(3, 0, "miss"))
    table = oracle.layouts(4, (3, 2, 1))
    for prior in (Prior(vertical=1.5), Prior(edge=0.7, touch=-1.0)):
        engine = NativeEngine()
        state = weighed(GameState(GameConfig(4, (3, 2, 1)), shots), prior)
        image = transpose.state(state)
        first = engine.marginals(state)
        second = engine.marginals(image)  # from the cache when the prior allows it
        for s in (state, image):
            answers = [(shot.cell, (shot.result, shot.ship)) for shot in s.shots]
            assert_weighted_oracle(NativeEngine(), s, oracle.posterior(table, answers, "named"))
            assert_weighted_oracle(engine, s, oracle.posterior(table, answers, "named"))
        same = np.allclose(second.cells, transpose.board(first.cells), atol=1e-12)
        assert same == (prior.vertical == 0)  # a vertical weight: the transpose's posterior is another


def test_the_disk_cache_keeps_priors_apart(tmp_path) -> None:
    from battlelog.engines.workspace import Workspace

    config = GameConfig(4, (3, 2))
    marginals = {}
    for prior in (Prior(), Prior(edge=1.0), Prior(edge=1.0, touch=0.5), Prior(vertical=-1.0)):
        workspace = Workspace(tmp_path)
        marginals[prior] = workspace.engine("native").marginals(GameState.empty(config.with_prior(prior)))
        again = Workspace(tmp_path).engine("native").marginals(GameState.empty(config.with_prior(prior)))  # read from disk
        np.testing.assert_array_equal(again.cells, marginals[prior].cells)
    assert len(list((tmp_path).rglob("*.npz"))) == 4
    cells = [m.cells for m in marginals.values()]
    assert all(not np.allclose(a, b) for i, a in enumerate(cells) for b in cells[i + 1 :])


# ----- sampling --------------------------------------------------------------------------------------
def chi_square_p(draws: list[tuple[Placement, ...]], table: oracle.Layouts, weight: np.ndarray) -> float:
    """The p-value of draws against the layouts' weights (layouts expected fewer than 5 times pooled)."""
    index = {spots: k for k, spots in enumerate(table.spots)}
    seen = np.bincount(
        [index[tuple((p.length, p.row, p.col, p.horizontal) for p in layout)] for layout in draws], minlength=len(table)
    )
    expected = weight / weight.sum() * len(draws)
    small = expected < 5
    observed, expect = seen[~small], expected[~small]
    if small.any():
        observed, expect = np.append(observed, seen[small].sum()), np.append(expect, expected[small].sum())
    return float(stats.chisquare(observed, expect).pvalue)


@pytest.mark.parametrize(
    ("rows", "cols", "ships", "prior"),
    [(4, 4, (3, 2), Prior(edge=0.5, vertical=-0.8, touch=1.2)), (3, 4, (2, 2, 1), Prior(edge=-0.4, vertical=0.6, touch=-1.0))],
)
def test_weighted_draws_are_exact(rows: int, cols: int, ships: tuple[int, ...], prior: Prior) -> None:
    """A chi-square over every layout of the board with fixed seeds: the draws pass against the weights,
    and uniform draws (the same test, another distribution) fail it."""
    table = oracle.layouts(rows, ships, cols=cols)
    weight = oracle.layout_weights(table, *prior.theta)
    state = GameState.empty(GameConfig(rows, ships, cols=cols, prior=prior))
    draws = NativeEngine().sample(state, 30_000, np.random.default_rng(11))
    assert chi_square_p(draws, table, weight) > 1e-4
    uniform = NativeEngine().sample(GameState.empty(GameConfig(rows, ships, cols=cols)), 30_000, np.random.default_rng(11))
    assert chi_square_p(uniform, table, weight) < 1e-4


def test_split_draws_are_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layered, "RECOMPUTE", False)  # split, not recomputed (that: tests/test_native_recompute.py)
    prior = Prior(edge=0.5, vertical=-0.8, touch=1.2)
    state = GameState.empty(GameConfig(4, (3, 2), prior=prior))
    tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state), tracked=True)
    # under what it needs rebuilt (0.8 of it is enough for one model rebuilt, its levels taken a slice at a time)
    engine = NativeEngine(memory_budget=int(layered.sweep(tables, 2**31, keep_levels=False).peak * 0.7))
    models = engine.drawn_from(state, tracked=True)
    assert len(models) > 1  # split into cases
    table = oracle.layouts(4, (3, 2))
    draws = draws_module.draw_layouts(models, 30_000, np.random.default_rng(12), prior)
    assert chi_square_p(draws, table, oracle.layout_weights(table, *prior.theta)) > 1e-4


# ----- range and the uniform path ----------------------------------------------------------------------
def test_a_strong_prior_on_15x15_stays_finite() -> None:
    """edge = 20 (|theta . f| up to 340) on 15x15 5,4,3,3,2, twenty misses in: finite marginals summing to
    the fleet's 17 cells, most of them on the ring."""
    misses = tuple(Shot(r, c, "miss") for r in range(4, 11, 2) for c in range(3, 12, 2))
    state = GameState(GameConfig(15, (5, 4, 3, 3, 2), prior=Prior(edge=20.0)), misses)
    engine = NativeEngine()
    got = engine.marginals(state)
    assert np.isfinite(got.cells).all() and got.cells.min() >= 0 and got.cells.max() <= 1 + 1e-12
    assert got.cells.sum() == pytest.approx(17, abs=1e-9)
    ring = np.zeros((15, 15), dtype=bool)
    ring[0, :] = ring[-1, :] = ring[:, 0] = ring[:, -1] = True
    assert got.cells[ring].sum() > 16.9  # a ship cell off the ring costs a factor e**20
    assert math.isfinite(engine.log_partition(state)) and engine.log_partition(state) > 20 * 17
    assert got.placements is not None and all(np.isfinite(p).all() for p in got.placements)


def test_the_uniform_prior_keeps_the_integer_path_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Uniform marginals are the integer path's exact ratios (equal to the oracle's, bit for bit), and the
    weighted path is not even entered."""

    def refuse(*_: object) -> None:
        raise AssertionError("the uniform prior went through the weighted path")

    monkeypatch.setattr(Weigher, "weighted", refuse)
    monkeypatch.setattr(turns, "weighed_together", refuse)
    monkeypatch.setattr(ladder, "listed_weighted", refuse)
    engine = NativeEngine()
    for touch in TOUCH_RULES:
        for state, chosen in variant_states("named", touch)[::4]:
            table = oracle.layouts(state.rows, state.ships, touch, state.cols)
            got = engine.marginals(state)
            np.testing.assert_array_equal(got.cells, oracle.cell_marginals(table, chosen))
            np.testing.assert_array_equal(got.cells, engine.counts(state).marginals().cells)


def test_float_passes_against_exact_rational_arithmetic() -> None:
    """5x5 3,2,2 with theta = (ln 2, -ln 3, ln 2): a layout weighs 2**(E + T) / 3**V, so every weighted
    marginal is a ratio of integers; the float passes are within 1e-12 of it, relative."""
    prior = Prior(math.log(2), -math.log(3), math.log(2))
    table = oracle.layouts(5, (3, 2, 2))
    features = oracle_features(table).round().astype(int)
    most = int(features[:, 1].max())
    weight = [2 ** int(e + t) * 3 ** int(most - v) for e, v, t in features]
    total = sum(weight)
    covered = table.owner >= 0
    for swept in (False, True):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(few, "PAIR_LIMIT", 0 if swept else few.PAIR_LIMIT)
            got = NativeEngine().weighted(GameState.empty(GameConfig(5, (3, 2, 2), prior=prior))).marginals()  # no cache
        worst = 0.0
        for cell in range(25):
            exact = Fraction(sum(w for w, c in zip(weight, covered[:, cell]) if c), total)
            worst = max(worst, abs(float((Fraction(float(got.cells.flat[cell])) - exact) / exact)))
        print(f"5x5 3,2,2, {'swept' if swept else 'listed'}: worst relative error {worst:.2g}")
        assert worst < 1e-12, worst


def test_models_are_freed_once_the_engine_drops_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """The weighers' cache holds models weakly: after a game's worth of swept states, only the kept models' remain (the
    whole state's, or a turned state's two cases, or the one a self-transposed state's cases share)."""
    import gc

    monkeypatch.setattr(few, "PAIR_LIMIT", 0)
    held = set(weights._WEIGHERS.keys())  # models other tests' process-wide engines keep (a hider's sampler)
    engine = NativeEngine()
    for state, _ in prior_cases()[:20]:
        engine.marginals(state)
    gc.collect()
    memory = engine.memory
    cases = memory.cases.parts if memory.cases is not None else ()
    kept = {memory.whole[1]} if memory.whole is not None else {model for model, _ in cases}
    assert set(weights._WEIGHERS.keys()) - held <= kept and len(kept) <= 2
