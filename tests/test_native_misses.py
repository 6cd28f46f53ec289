"""A kept model counted again for a state that adds a miss or two (battlelog/engines/native/misses.py).

- the states of whole games, asked in order as a player asks them, with listing turned off so that each
  is swept or counted again: every count (layouts, cells, placements) equals a fresh engine's bit for bit
  and the layouts equal the independent oracle's, under every touch and sink rule, and the recount is
  taken (so that the comparison tests it);
- on 10x10 (the compiled kernels);
- draws from a recount are those of a sweep of the state, layout for layout, under every rule;
- which states count as a miss or two on.
"""

from __future__ import annotations

import tracemalloc
from typing import Any

import numpy as np
import pytest

from battlelog.engines.native import few, misses
from battlelog.engines.native.counts import Counts
from battlelog.engines.native.engine import NativeEngine
from battlelog.rules.config import GameConfig
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


def listing_off_counting(monkeypatch: pytest.MonkeyPatch, made_by: str) -> list[int]:
    """Listing off (every state is swept or read again), and how many of ``misses.<made_by>`` were made."""
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)
    made = [0]
    original = getattr(misses, made_by)

    class Counted(original):  # type: ignore[valid-type, misc]
        def __init__(self, *args: Any) -> None:
            made[0] += 1
            super().__init__(*args)

    monkeypatch.setattr(misses, made_by, Counted)
    return made


@pytest.fixture
def recounts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Listing off (every state is swept or counted again), and how many recounts were made."""
    return listing_off_counting(monkeypatch, "Recount")


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize("sinks", SINK_RULES)
def test_games_asked_in_order_count_as_fresh_engines_and_the_oracle(sinks: str, touch: str, recounts: list[int]) -> None:
    rng = np.random.default_rng(11)
    asked = 0
    for size, ships in ((4, (3, 2, 1)), (5, (3, 2, 2))):
        table = oracle.layouts(size, ships, touch)
        config = GameConfig(size, ships, Rules(touch=touch, sinks=sinks))
        for _ in range(3):
            engine = NativeEngine(reuse=False)
            for state in oracle_game(config, table, rng):
                got = engine.counts(state)
                shots = [(s.cell, (s.result, s.ship)) for s in state.shots]
                assert got.models == len(oracle.posterior(table, shots, sinks))
                assert _same(got, NativeEngine(reuse=False).counts(state)), state.to_json()["shots"]
                asked += 1
    assert asked >= 60
    assert recounts[0] >= 15


def test_standard_game_misses_counted_on_the_last_state(recounts: list[int]) -> None:
    config = GameConfig(10, (5, 4, 3, 3, 2))
    engine = NativeEngine(reuse=False)
    state = GameState.empty(config).with_shot(4, 4, "hit").with_shot(4, 5, "miss")
    for cell in ((3, 4), (5, 5), (3, 3), (6, 2), (2, 6), (5, 4), (7, 7)):  # swept, then a miss or two on, in turn
        assert _same(engine.counts(state), NativeEngine(reuse=False).counts(state))
        state = state.with_shot(*cell, "miss")
    assert recounts[0] >= 4


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize("sinks", SINK_RULES)
def test_draws_from_a_recount_are_the_sweeps(sinks: str, touch: str, recounts: list[int]) -> None:
    """A player that draws (and then asks the marginals) gets from a recount the very layouts a sweep of the
    state gives from the same generator, where the recount can be drawn from; where not, the state is swept."""
    rng = np.random.default_rng(5)
    drawn = 0
    for size, ships in ((5, (3, 2, 2)), (6, (4, 3, 3))):
        table = oracle.layouts(size, ships, touch)
        config = GameConfig(size, ships, Rules(touch=touch, sinks=sinks))
        for game in range(2):
            engine = NativeEngine(reuse=False)
            for t, state in enumerate(oracle_game(config, table, rng)[:-1]):
                got = engine.sample_owners(state, 20, np.random.default_rng(t))
                want = NativeEngine(reuse=False).sample_owners(state, 20, np.random.default_rng(t))
                assert np.array_equal(got, want), (game, state.to_json()["shots"])
                assert _same(engine.counts(state), NativeEngine(reuse=False).counts(state))
                drawn += 1
    assert drawn >= 30
    assert recounts[0] >= 5


def test_what_counts_as_a_miss_or_two_on() -> None:
    config = GameConfig(5, (3, 2))
    base = GameState.empty(config).with_shot(0, 0, "hit")
    one, two = base.with_shot(1, 1, "miss"), base.with_shot(1, 1, "miss").with_shot(2, 2, "miss")
    assert misses.added_misses(base, one) == [(1, 1)]
    assert misses.added_misses(base, two) == [(1, 1), (2, 2)]
    assert misses.added_misses(base, two.with_shot(3, 3, "miss")) is None  # past MOST_MISSES
    assert misses.added_misses(base, base) is None  # nothing added
    assert misses.added_misses(base, base.with_shot(0, 1, "hit")) is None  # a hit rules in, not out
    assert misses.added_misses(base, GameState.empty(config).with_shot(1, 1, "miss")) is None  # another game
    other = GameState.empty(GameConfig(5, (3, 2), Rules(touch="none"))).with_shot(0, 0, "hit").with_shot(1, 1, "miss")
    assert misses.added_misses(base, other) is None  # other rules


def _kept_model(engine: NativeEngine) -> Any:
    assert engine.memory.whole is not None
    return engine.memory.whole[1]


@pytest.mark.parametrize("drawing", [False, True])
def test_a_recount_that_would_pass_the_budget_is_a_sweep(drawing: bool, recounts: list[int]) -> None:
    """The budget bounds what a call holds: the kept model and a recount's arrays together, else the state is
    swept (which frees the model first). One byte under, a sweep; at the budget, a recount; the same counts."""
    config = GameConfig(7, (4, 3, 3, 2))
    empty = GameState.empty(config)
    state = empty.with_shot(3, 3, "miss")
    probe = NativeEngine(reuse=False, turn=False)  # a model of the whole state (turned: tests/test_native_turns.py)
    probe.counts(empty)
    model = _kept_model(probe)
    need = model.nbytes + misses.recount_bytes(model, drawing)
    want = NativeEngine(reuse=False).counts(state)
    for budget, recounted in ((need - 1, False), (need, True)):
        engine = NativeEngine(memory_budget=budget, reuse=False, turn=False)
        engine.counts(empty)
        assert not _kept_model(engine).rebuilds  # every level kept: only the budget can refuse the recount
        made = recounts[0]
        if drawing:
            engine.sample_owners(state, 5, np.random.default_rng(0))
        assert _same(engine.counts(state), want)
        assert (recounts[0] > made) == recounted, budget


def test_a_recount_for_counts_allocates_a_forward_count_per_state_and_keeps_none(recounts: list[int]) -> None:
    """What recount_bytes promises for counts: a forward count per state while counting, nothing kept after
    (draws alone need the backward counts)."""
    config = GameConfig(8, (5, 4, 3, 3, 2))  # about 19 MB of forward counts: far above the slack allowed
    engine = NativeEngine(reuse=False, turn=False)
    base = GameState.empty(config).with_shot(3, 3, "hit")
    engine.counts(base)
    promised = misses.recount_bytes(_kept_model(engine), drawing=False)
    tracemalloc.start()
    try:
        for state in (base.with_shot(2, 3, "miss"), base.with_shot(2, 3, "miss").with_shot(5, 1, "miss")):
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            engine.counts(state)
            current, peak = tracemalloc.get_traced_memory()
            assert peak - before <= promised + (1 << 20), (peak - before, promised)
            assert current - before <= (1 << 20), current - before
    finally:
        tracemalloc.stop()
    assert recounts[0] == 2
