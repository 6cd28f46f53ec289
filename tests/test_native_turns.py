"""A state counted as two cases by its longest ship's orientation, each swept along it (battlelog/engines/native/turns.py).

- which problems are turned (the fleet's only longest ship, lying both ways, on a board near square);
- whole games asked in order, listing off, on squares and near-square rectangles under every touch and sink
  rule: every count equals the independent oracle's and, bit for bit, a sweep of the whole state; the turned
  path and its recounts are taken (so that the comparison tests them);
- a state its transpose maps to itself is swept once, the other case is its transpose, and a state a miss on
  is counted on that one model (the second case through the transposed miss);
- the budget: the second case is swept under what the first one's kept model leaves; a recount that would pass
  the budget is a sweep; a case over the budget is split exactly;
- an engine that draws keeps one model of the whole state, so that draws stay what they were;
- under priors: weighted posteriors and feature expectations equal the oracle's and a whole sweep's, and the cases'
  models are weighed again for another prior and for a state a miss or two on.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest

from battlelog.engines.canonical import maps_to_itself
from battlelog.engines.native import few, misses, turns
from battlelog.engines.native import ladder as ladder_module
from battlelog.engines.native.counts import Counts
from battlelog.engines.native.engine import NativeEngine
from battlelog.errors import BudgetExceeded
from battlelog.model.ground import ground_problem
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules

import oracle
from oracle_states import oracle_game


def _same(a: Counts, b: Counts) -> bool:
    return (
        a.models == b.models
        and np.array_equal(a.cells, b.cells)
        and all(np.array_equal(x, y) for x, y in zip(a.placements, b.placements))
    )


def _problem(rows: int, ships: tuple[int, ...], cols: int | None = None) -> Any:
    return ground_problem(GameState.empty(GameConfig(rows, ships, cols=rows if cols is None else cols)))


def test_which_problems_are_turned() -> None:
    assert turns.turning_ship(_problem(10, (5, 4, 3, 3, 2))) == 0
    assert turns.turning_ship(_problem(10, (2, 4, 3))) == 1  # the longest, wherever it is in the fleet
    assert turns.turning_ship(_problem(10, (4, 4, 3))) is None  # two longest: turning one would tell them apart
    assert turns.turning_ship(_problem(5, (1, 1))) is None  # a ship of one cell has no orientation
    assert turns.turning_ship(_problem(12, (5, 4, 3), cols=10)) == 0  # sides two apart
    assert turns.turning_ship(_problem(8, (5, 4, 3), cols=12)) is None  # a long board: swept across its short side
    problem = _problem(10, (5, 4, 3))
    across = replace(problem, domains=(tuple(p for p in problem.domains[0] if p.horizontal), *problem.domains[1:]))
    assert turns.turning_ship(across) is None  # the longest ship already lies one way only
    # 13x15 swept across its 15 columns: 16 fields of 3 bits and 5 bits of counts fit a 64-bit key, but not with
    # the 16 bits of occupancy the touch rule "none" adds (across its 13 rows, the whole board fits: 61 bits).
    wide = _problem(13, (5, 4, 3, 3, 2), cols=15)
    assert turns.turning_ship(wide) == 0
    assert turns.turning_ship(replace(wide, touch="none")) is None
    assert turns.turning_ship(wide, tracked=True) is None  # nor with the 15 bits a prior's touch weight keeps


@dataclass
class Seen:
    """How often a state was counted as two cases, and counted again on the cases' models."""

    turned: int = 0
    recounted: int = 0


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Seen:
    """Listing off (every state is swept or counted again), and the turned counts and recounts made."""
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)
    out = Seen()
    turned_counts, recount = turns.turned_counts, turns.Turned.recount

    def counting_turned(*args: Any) -> Any:
        result = turned_counts(*args)
        out.turned += result is not None
        return result

    def counting_recount(self: turns.Turned, *args: Any) -> Any:
        result = recount(self, *args)
        out.recounted += result is not None
        return result

    monkeypatch.setattr("battlelog.engines.native.ladder.turned_counts", counting_turned)
    monkeypatch.setattr(turns.Turned, "recount", counting_recount)
    return out


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize("sinks", SINK_RULES)
def test_turned_games_equal_the_oracle_and_a_whole_sweep(sinks: str, touch: str, seen: Seen) -> None:
    rng = np.random.default_rng(23)
    asked = 0
    for rows, cols, ships in ((4, 4, (3, 2, 1)), (5, 5, (3, 2, 1)), (5, 4, (3, 2, 1)), (4, 5, (3, 1, 1))):
        table = oracle.layouts(rows, ships, touch, cols)
        config = GameConfig(rows, ships, Rules(touch=touch, sinks=sinks), cols=cols)
        for _ in range(2):
            engine = NativeEngine(reuse=False)
            for state in oracle_game(config, table, rng):
                got = engine.counts(state)
                chosen = oracle.posterior(table, [(s.cell, (s.result, s.ship)) for s in state.shots], sinks)
                where = f"{state.config.label()} {state.to_json()['shots']}"
                assert got.models == len(chosen), where
                np.testing.assert_allclose(got.cells / got.models, oracle.cell_marginals(table, chosen), atol=1e-9, err_msg=where)
                assert _same(got, NativeEngine(reuse=False, turn=False).counts(state)), where
                asked += 1
    assert asked >= 60
    assert seen.turned >= 15 and seen.recounted >= 5, seen


def _sweeps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The split depth of every model the engines compile."""
    built: list[int] = []
    original = NativeEngine.compile_model

    def counted(self: NativeEngine, *args: Any, **kw: Any) -> Any:
        built.append(args[2])
        return original(self, *args, **kw)

    monkeypatch.setattr(NativeEngine, "compile_model", counted)
    return built


@pytest.mark.parametrize("touch", TOUCH_RULES)
def test_a_self_transposed_state_is_swept_once_and_counted_again_on_that_model(
    touch: str, seen: Seen, monkeypatch: pytest.MonkeyPatch
) -> None:
    sweeps = _sweeps(monkeypatch)
    config = GameConfig(6, (4, 3, 2), Rules(touch=touch))
    table = oracle.layouts(6, (4, 3, 2), touch)
    empty = GameState.empty(config)
    symmetric = empty.with_shot(1, 4, "miss").with_shot(4, 1, "miss")  # the transpose maps it to itself
    lopsided = empty.with_shot(0, 3, "miss")
    for base, after in ((empty, lopsided), (symmetric, symmetric.with_shot(2, 5, "miss").with_shot(3, 3, "miss"))):
        wants = [NativeEngine(reuse=False, turn=False).counts(state) for state in (base, after)]
        engine = NativeEngine(reuse=False)
        del sweeps[:]
        for state, want in zip((base, after), wants):
            got = engine.counts(state)
            chosen = oracle.posterior(table, [(s.cell, (s.result, s.ship)) for s in state.shots], "named")
            assert got.models == len(chosen)
            np.testing.assert_allclose(got.cells / got.models, oracle.cell_marginals(table, chosen), atol=1e-9)
            assert _same(got, want)
        assert sweeps == [0]  # the base swept once (its other case transposed), the state after counted on that model
        assert engine.memory.turned is not None and [flip for _, flip in engine.memory.turned.parts] == [False, True]
    assert maps_to_itself(symmetric, turns.TRANSPOSE) and not maps_to_itself(lopsided, turns.TRANSPOSE)
    assert not maps_to_itself(GameState.empty(GameConfig(5, (4, 3, 2), cols=4)), turns.TRANSPOSE)  # not even a square
    engine = NativeEngine(reuse=False)
    del sweeps[:]
    engine.counts(lopsided)
    assert sweeps == [0, 0]  # not its own transpose: both cases swept


def _weighed_alike(got: Any, want: Any, where: str) -> None:
    """Two weighted posteriors equal to rounding: cells, placements, features and log Z, and the same layouts."""
    assert got.models == want.models, where
    np.testing.assert_allclose(got.cells, want.cells, atol=1e-12, err_msg=where)
    for a, b in zip(got.placements, want.placements):
        np.testing.assert_allclose(a, b, atol=1e-12, err_msg=where)
    np.testing.assert_allclose(got.features, want.features, atol=1e-9, err_msg=where)
    assert got.log_z == pytest.approx(want.log_z, rel=1e-12), where


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize("vertical", [-0.7, 0.0])
def test_a_self_transposed_state_is_weighed_on_one_model(touch: str, vertical: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a prior a self-transposed state sweeps its first case only and weighs it twice (the second case: the first
    under the opposite vertical weight, transposed); a state a miss or two on, another prior on the same shots and the
    integer counts are read from that one model, through transposed misses: all as the oracle and a whole sweep."""
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)
    sweeps = _sweeps(monkeypatch)
    table = oracle.layouts(6, (4, 3, 2), touch)
    prior = Prior(edge=0.4, vertical=vertical, touch=0.6 if touch == "allowed" else 0.0)
    config = GameConfig(6, (4, 3, 2), Rules(touch=touch), prior=prior)
    empty = GameState.empty(config)
    symmetric = empty.with_shot(1, 4, "miss").with_shot(4, 1, "miss")
    for base, after in (
        (empty, empty.with_shot(0, 3, "miss")),
        (symmetric, symmetric.with_shot(2, 5, "miss").with_shot(3, 3, "miss")),
    ):
        other = GameState(config.with_prior(Prior(edge=-0.2, vertical=0.3, touch=prior.touch)), base.shots)
        whole = {id(s): NativeEngine(reuse=False, turn=False).weighted(s) for s in (base, after, other)}
        counts = NativeEngine(reuse=False, turn=False).counts(base)
        engine = NativeEngine(reuse=False)
        del sweeps[:]
        for state in (base, after):
            where = f"{state.config.label()} {state.to_json()['shots']}"
            chosen = oracle.posterior(table, [(s.cell, (s.result, s.ship)) for s in state.shots], "named")
            got = engine.weighted(state)
            np.testing.assert_allclose(
                got.cells,
                oracle.weighted_cell_marginals(table, chosen, oracle.layout_weights(table, *prior.theta)),
                atol=1e-9,
                err_msg=where,
            )
            _weighed_alike(got, whole[id(state)], where)
            assert engine.memory.cases is not None and [flip for _, flip in engine.memory.cases.parts] == [False, True], where
        assert sweeps == [0]  # the base's first case, swept once; the state after weighed on it
        engine.weighted(base)  # the base weighed again (its model kept), then another prior on its shots
        _weighed_alike(engine.weighted(other), whole[id(other)], other.config.label())
        if not prior.touch:  # an untracked model serves the integer counts too
            assert _same(engine.counts(base), counts)
        assert sweeps == [0]


def test_the_second_case_is_swept_under_what_the_first_case_keeps() -> None:
    """Held for recounts only while it takes at most half the budget; the second case gets the rest."""
    state = GameState.empty(GameConfig(6, (4, 3, 2))).with_shot(0, 3, "miss")
    problem = ground_problem(state)
    counts = NativeEngine(turn=False).counts(state)

    @dataclass
    class Model:
        nbytes: int
        rebuilds: bool = False

    for first_bytes, kept in ((400, True), (501, False)):
        budgets: list[int] = []

        def count(case: Any, order: Any, limit: int, size: int = first_bytes, budgets: list[int] = budgets) -> Any:
            budgets.append(limit)
            return counts, Model(size if not budgets[1:] else 100)

        turned = turns.turned_counts(problem, state, count, 1000)
        assert turned is not None
        assert budgets == [1000, 1000 - first_bytes if kept else 1000]
        assert len(turned.parts) == (2 if kept else 0)


def test_a_turned_recount_that_would_pass_the_budget_is_a_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)
    config = GameConfig(7, (4, 3, 3, 2))
    base = GameState.empty(config).with_shot(2, 5, "miss")
    state = base.with_shot(3, 3, "miss")
    engine = NativeEngine(reuse=False)
    engine.counts(base)
    turned = engine.memory.turned
    assert turned is not None and len(turned.parts) == 2
    models = [model for model, _ in turned.parts]
    need = sum(model.nbytes for model in models) + max(misses.recount_bytes(model, False) for model in models)
    assert turned.recount(state, need - 1) is None
    again = turned.recount(state, need)
    assert again is not None and _same(again, NativeEngine(reuse=False, turn=False).counts(state))


def test_cases_over_the_budget_are_split_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)
    original = NativeEngine.compile_model

    def refuse_whole(self: NativeEngine, problem: Any, order: Any, depth: int, *args: Any, **kw: Any) -> Any:
        if depth == 0:
            raise BudgetExceeded("forced split")
        return original(self, problem, order, depth, *args, **kw)

    state = GameState.empty(GameConfig(5, (3, 2, 1), cols=4)).with_shot(1, 1, "hit")
    want = NativeEngine(reuse=False, turn=False).counts(state)
    monkeypatch.setattr(NativeEngine, "compile_model", refuse_whole)
    engine = NativeEngine(reuse=False)
    assert _same(engine.counts(state), want)
    assert engine.memory.turned is not None and engine.memory.turned.parts == ()  # split cases keep no model


def test_an_engine_that_draws_keeps_one_model_of_the_whole_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Draws come from the model of the whole state, so the same generator draws what it drew before turning; once an
    engine has drawn, its counts keep that model too (a player that draws and asks the marginals sweeps once)."""
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)
    config = GameConfig(6, (4, 3, 2))
    first, second = GameState.empty(config).with_shot(2, 2, "hit"), GameState.empty(config).with_shot(3, 1, "hit")
    engine = NativeEngine(reuse=False)
    drawn = engine.sample_owners(first, 30, np.random.default_rng(2))
    np.testing.assert_array_equal(drawn, NativeEngine(reuse=False, turn=False).sample_owners(first, 30, np.random.default_rng(2)))
    assert _same(engine.counts(second), NativeEngine(reuse=False, turn=False).counts(second))
    assert engine.keeps_model and engine.memory.turned is None


@pytest.mark.parametrize("touch", TOUCH_RULES)
def test_turned_weighted_posteriors_equal_the_oracle_and_a_whole_sweep(touch: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under priors: games asked in order (listing off) weigh as the oracle and as a sweep of the whole state does; states
    a miss or two on are weighed again on the cases' models, as is another prior on the same shots."""
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)
    made = {"turned": 0, "again": 0}
    turned_cases, weighted_recount = turns.turned_cases, misses.weighted_recount

    def counting_cases(*args: Any) -> Any:
        out = turned_cases(*args)
        made["turned"] += out is not None
        return out

    def counting_recount(*args: Any) -> Any:
        out = weighted_recount(*args)
        made["again"] += out is not None
        return out

    monkeypatch.setattr(turns, "turned_cases", counting_cases)
    monkeypatch.setattr(misses, "weighted_recount", counting_recount)  # the cases' recounts
    monkeypatch.setattr(ladder_module, "weighted_recount", counting_recount)  # a whole model's
    rng = np.random.default_rng(31)
    priors = [Prior(edge=0.6, vertical=-0.4), Prior(edge=-0.3, vertical=0.5, touch=0.7 if touch == "allowed" else 0.0)]
    for rows, cols, ships in ((5, 5, (3, 2, 1)), (5, 4, (3, 2, 1))):
        table = oracle.layouts(rows, ships, touch, cols)
        for prior in priors:
            config = GameConfig(rows, ships, Rules(touch=touch), cols=cols, prior=prior)
            engine = NativeEngine(reuse=False)
            for state in oracle_game(config, table, rng):
                chosen = oracle.posterior(table, [(s.cell, (s.result, s.ship)) for s in state.shots], "named")
                weight = oracle.layout_weights(table, *prior.theta)
                got, whole = engine.marginals(state), NativeEngine(reuse=False, turn=False)
                where = f"{config.label()} {state.to_json()['shots']}"
                assert got.models == len(chosen), where
                np.testing.assert_allclose(
                    got.cells, oracle.weighted_cell_marginals(table, chosen, weight), atol=1e-9, err_msg=where
                )
                np.testing.assert_allclose(got.cells, whole.marginals(state).cells, atol=1e-12, err_msg=where)
                # no touching pairs counted unless weighed
                asked = ("edge", "vertical", "touch") if prior.touch else ("edge", "vertical")
                np.testing.assert_allclose(
                    engine.feature_expectations(state, asked), whole.feature_expectations(state, asked), atol=1e-9, err_msg=where
                )
                other = GameState(config.with_prior(Prior(edge=0.2, vertical=0.1)), state.shots)  # another prior, the same shots
                np.testing.assert_allclose(engine.marginals(other).cells, whole.marginals(other).cells, atol=1e-12, err_msg=where)
    assert made["turned"] >= 10 and made["again"] >= 5, made
