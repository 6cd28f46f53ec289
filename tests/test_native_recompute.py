"""A layered model that keeps fewer segment starts than it has segments and recomputes the others when
it is read (layered._thin, LayeredModel._start_of): the same layouts, placement counts, weighted
posterior and drawn boards as the model that keeps every level, and the oracle's (tests/oracle.py)
posterior, on random consistent states under each touch rule, at budgets that keep one to four
recomputed starts at once; and a budget that cannot hold one level refused in one line, unsplit."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from battlelog.engines.native import few, layered
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.tables import SweepTables, sweep_order
from battlelog.engines.native.weights import Weigher
from battlelog.errors import BudgetExceeded, FrontierTooWide
from battlelog.model.ground import Problem, ground
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import Symmetry
from battlelog.rules.variants import Rules

import oracle
from oracle_states import oracle_state

#: (rows, cols, fleet, touch rule, random states): boards whose oracle lists their layouts in about a second.
BOARDS = [(5, 6, (3, 2, 2), "allowed", 4), (5, 6, (3, 2, 2), "diagonal", 4), (5, 6, (3, 2, 1), "none", 4)]
#: Budgets, as fractions of the sweep's peak when it keeps segment starts only.
FRACTIONS = (0.7, 0.5, 0.4, 0.3)


@cache
def states(rows: int, cols: int, ships: tuple[int, ...], touch: str, count: int) -> tuple[tuple[GameState, np.ndarray], ...]:
    table = oracle.layouts(rows, ships, touch, cols=cols)
    config = GameConfig(rows, ships, Rules(touch=touch), cols=cols)
    rng = np.random.default_rng(17)
    return tuple(oracle_state(config, table, rng) for _ in range(count))


@pytest.fixture
def small_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    """Levels taken one state at a time where they do not fit at once, so that a small board's levels
    need little work beside their starts, as a large board's do; states swept, however few their layouts."""
    monkeypatch.setattr(layered, "_SLICE", 1)
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)


@pytest.mark.usefixtures("small_slices")
def test_recomputed_models_read_as_the_kept_ones_and_the_oracle() -> None:
    recomputed = 0
    for rows, cols, ships, touch, count in BOARDS:
        table = oracle.layouts(rows, ships, touch, cols=cols)
        for state, chosen in states(rows, cols, ships, touch, count):
            tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state))
            whole = layered.sweep(tables, 2**31)
            assert not whole.rebuilds
            peak = layered.sweep(tables, 2**31, keep_levels=False).peak
            uses, draws = whole.uses(), whole.draw(50, np.random.default_rng(5))
            for fraction in FRACTIONS:
                budget = int(peak * fraction)
                try:
                    model = layered.sweep(tables, budget)
                except FrontierTooWide:
                    continue
                if model.sizes is None:
                    continue  # every segment start kept: the path other tests check
                where = f"{state.config.label()} {state.to_json()['shots']} at {fraction}"
                assert model.peak <= budget, where
                assert sum(segment.held for segment in model.segments) < len(model.segments), where
                assert model.paths == whole.paths, where
                np.testing.assert_array_equal(model.uses(), uses, err_msg=where)
                assert model.resweeps > 0, where
                recomputed += 1
                np.testing.assert_array_equal(model.draw(50, np.random.default_rng(5)), draws, err_msg=where)
                counts = NativeEngine(memory_budget=budget, turn=False).counts(state)
                assert counts.models == len(chosen), where
                np.testing.assert_allclose(counts.cells / counts.models, oracle.cell_marginals(table, chosen), rtol=0, atol=1e-12)
    assert recomputed >= 20, recomputed


@pytest.mark.usefixtures("small_slices")
def test_budgets_from_one_to_three_recomputed_starts_at_once_read_as_the_kept_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The empty board under budgets from 0.3 to 0.8 of its peak with segment starts kept: the walk back
    holds one, two or three starts it recomputed at once (halving the work towards the next piece
    one, two or three times), and reads what the model that keeps every level reads."""
    monkeypatch.setattr(layered, "PACK", False)  # the budgets are fractions of the peak without packed levels
    state = GameState.empty(GameConfig(5, (3, 2, 2), cols=6))
    tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state))
    whole = layered.sweep(tables, 2**31)
    peak = layered.sweep(tables, 2**31, keep_levels=False).peak
    uses, draws = whole.uses(), whole.draw(50, np.random.default_rng(6))
    depths = set()
    for fraction in np.arange(0.30, 0.82, 0.04):
        try:
            model = layered.sweep(tables, int(peak * fraction))
        except FrontierTooWide:
            continue
        np.testing.assert_array_equal(model.uses(), uses)
        depths.add(model.most_temps)  # in its first walk back
        np.testing.assert_array_equal(model.draw(50, np.random.default_rng(6)), draws)
    assert {1, 2, 3} <= depths, depths


@pytest.mark.usefixtures("small_slices")
def test_a_recomputed_model_weighs_as_the_kept_one() -> None:
    prior = Prior(edge=0.6, vertical=-0.8, touch=1.1)
    state = GameState.empty(GameConfig(5, (3, 2, 2), cols=6, prior=prior))
    tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state), tracked=True)
    whole = layered.sweep(tables, 2**31)
    model = layered.sweep(tables, int(layered.sweep(tables, 2**31, keep_levels=False).peak * 0.5))
    assert model.sizes is not None and model.resweeps == 0  # recomputed, not yet read
    a, b = Weigher(whole, prior).weighted(), Weigher(model, prior).weighted()
    assert model.resweeps > 0
    np.testing.assert_allclose(b.cells, a.cells, rtol=1e-12, atol=0)
    assert b.log_z == pytest.approx(a.log_z, rel=1e-14)
    draws = [Weigher(m, prior).draw(100, np.random.default_rng(4)) for m in (whole, model)]
    np.testing.assert_array_equal(draws[0], draws[1])


@pytest.mark.usefixtures("small_slices")
def test_a_budget_that_cannot_hold_one_level_is_refused_unsplit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Recomputing every start but the first, a level that still does not fit is refused in one line
    without the 2 ** MAX_SPLIT_DEPTH cases a split would try (it narrows the frontier only near its cell)."""
    depths: list[int] = []
    compile_ = NativeEngine.compile_model

    def compile_counted(
        self: NativeEngine, problem: Problem, order: Symmetry, depth: int, tracked: bool = False, limit: int | None = None
    ) -> layered.LayeredModel:
        depths.append(depth)
        return compile_(self, problem, order, depth, tracked, limit)

    monkeypatch.setattr(NativeEngine, "compile_model", compile_counted)
    state = GameState.empty(GameConfig(5, (3, 2, 2), cols=6))
    tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state))
    budget = int(layered.sweep(tables, 2**31, keep_levels=False).peak * 0.2)
    with pytest.raises(FrontierTooWide) as info:
        NativeEngine(memory_budget=budget, turn=False).counts(state)
    assert depths == [0] and "\n" not in str(info.value) and "split" in str(info.value)
    assert isinstance(info.value, BudgetExceeded)  # what callers catch
