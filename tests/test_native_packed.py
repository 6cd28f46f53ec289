"""Packed levels (battlelog.engines.native.packed): a level that is not kept is packed where the budget
has room, and a segment whose levels are all packed is read back from them instead of swept again.
Every level of a sweep packs and unpacks to the same arrays, and its forward and backward counts read
packed are those read from the level, interpreted and compiled, under each touch rule; a model read
from packed levels gives the counts and drawn boards of the model that keeps every level (and of the
one that rebuilds them), on empty boards and random consistent states, without sweeping its packed
segments again; and states with no transition are unpacked where they were."""

from __future__ import annotations

import numpy as np
import pytest

from battlelog.engines.native import jit, layered, packed
from battlelog.engines.native.tables import SweepTables, sweep_order
from battlelog.errors import BudgetExceeded
from battlelog.model.ground import Problem, ground
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules

import oracle
from oracle_states import oracle_state

CONFIGS = [
    GameConfig(6, (4, 3, 3, 2)),
    GameConfig(6, (4, 3, 2, 2), cols=7, rules=Rules(touch="diagonal")),
    GameConfig(6, (3, 3, 2, 2), rules=Rules(touch="none")),
]


def _tables(state: GameState) -> SweepTables:
    return SweepTables(Problem.from_model(ground(state)), sweep_order(state))


@pytest.mark.parametrize("compiled", [False, True], ids=["interpreted", "compiled"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.label())
def test_every_level_packs_and_unpacks_to_itself(config: GameConfig, compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jit, "COMPILE_ABOVE", -1 if compiled else 10**9)
    monkeypatch.setattr(jit, "COMPILE_AFTER", 10**12)
    if not compiled:
        monkeypatch.setattr(jit, "_compiled", None)
    tables = _tables(GameState.empty(config))
    model = layered.sweep(tables, 2**31)
    levels = [level for _, level in model.levels()]
    seen_before = 0
    for i, level in enumerate(levels):
        next_fwd = levels[i + 1].counts if i + 1 < len(levels) else np.array([model.paths], dtype=np.int64)
        one = packed.pack(level.first, level.child, level.action, len(next_fwd), len(tables.kinds))
        assert one is not None
        assert one.nbytes <= packed.packed_bytes(len(level.counts), len(level.child), len(next_fwd))
        assert one.nbytes < level.nbytes or len(level.counts) == 1
        first, child, action, unpacked_fwd = packed.unpack(one, level.counts)
        for name, value in (("first", first), ("child", child), ("action", action)):
            np.testing.assert_array_equal(value, getattr(level, name), err_msg=f"{name} at level {i}")
        np.testing.assert_array_equal(unpacked_fwd, next_fwd)
        np.testing.assert_array_equal(packed.forward(one, level.counts), next_fwd)
        child_bwd = np.random.default_rng(i).integers(0, 1000, len(next_fwd))
        uses, packed_uses = np.zeros(2 * len(tables.kinds), dtype=np.int64), np.zeros(2 * len(tables.kinds), dtype=np.int64)
        bwd = jit.kernels(len(level.counts)).collect(
            child_bwd, level.counts, level.first, level.child, level.action, layered.every_action(len(tables.kinds)), uses
        )
        np.testing.assert_array_equal(packed.collect(one, level.counts, child_bwd, packed_uses), bwd)
        np.testing.assert_array_equal(packed_uses, uses)
        seen_before += len(one.back)
    assert seen_before > 0  # children met before, not only new ones
    assert (jit.kernels(0) is jit._interpreted) is not compiled


@pytest.mark.parametrize("first", [[0, 2, 2, 3], [0, 0, 2, 3], [0, 2, 3, 3], [0, 0, 0, 2, 2, 3, 3, 3], [0, 0, 0]])
def test_states_with_no_transition_unpack_where_they_were(first: list[int]) -> None:
    first_ = np.array(first, dtype=np.int32)
    child = np.array([0, 1, 0][: first[-1]], dtype=np.int32)
    action = np.array([0, 1, 0][: first[-1]], dtype=np.int8)
    fwd = np.arange(1, len(first), dtype=np.int64)
    one = packed.pack(first_, child, action, int(child.max(initial=-1)) + 1, 2)
    assert one is not None and len(one.dead) == int((np.diff(first_) == 0).sum()) > 0
    got_first, got_child, got_action, next_fwd = packed.unpack(one, fwd)
    np.testing.assert_array_equal(got_first, first_)
    np.testing.assert_array_equal(got_child, child)
    np.testing.assert_array_equal(got_action, action)
    expected = np.zeros(len(next_fwd), dtype=np.int64)
    for s in range(len(first) - 1):
        np.add.at(expected, child[first[s] : first[s + 1]], fwd[s])
    np.testing.assert_array_equal(next_fwd, expected)


def test_a_level_with_more_actions_than_a_code_holds_is_not_packed() -> None:
    first, child, action = (
        np.array([0, 2, 3], dtype=np.int32), np.array([0, 1, 0], dtype=np.int32), np.array([0, 1, 0], dtype=np.int8)
    )
    assert packed.pack(first, child, action, 2, 2) is not None
    assert packed.pack(first, child, action, 2, 40) is None  # 81 actions: past the code's 6 bits


def _read(model: layered.LayeredModel, monkeypatch: pytest.MonkeyPatch) -> tuple[np.ndarray, np.ndarray, int]:
    """The model's placement counts and 40 drawn boards, and how many levels reading them swept again."""
    swept = []
    advance = layered._advance

    def counted(*args: object, **kwargs: object) -> object:
        swept.append(1)
        return advance(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(layered, "_advance", counted)
    out = model.uses(), model.draw(40, np.random.default_rng(4)), len(swept)
    monkeypatch.setattr(layered, "_advance", advance)
    return out


def _states() -> list[GameState]:
    out = [GameState.empty(config) for config in CONFIGS]
    for rows, cols, ships, touch in ((5, 6, (3, 2, 2), "allowed"), (5, 6, (3, 2, 2), "diagonal"), (5, 6, (3, 2, 1), "none")):
        table = oracle.layouts(rows, ships, touch, cols=cols)
        config = GameConfig(rows, ships, Rules(touch=touch), cols=cols)
        rng = np.random.default_rng(23)
        out += [oracle_state(config, table, rng)[0] for _ in range(3)]
    return out


@pytest.mark.parametrize("state", _states(), ids=lambda s: f"{s.config.label()}-{len(s.shots)}")
def test_a_model_read_from_packed_levels_reads_as_the_kept_and_the_rebuilt_ones(
    state: GameState, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(layered, "_SLICE", 4)  # a small board's levels need little work beside their starts
    tables = _tables(state)
    kept = layered.sweep(tables, 2**31)
    uses, draws, swept = _read(kept, monkeypatch) if kept.paths else (kept.uses(), None, 0)
    assert not kept.rebuilds and swept == 0
    unpacked = 0
    for fraction in (0.9, 0.7, 0.5):
        budget = int(kept.peak * fraction)
        try:
            monkeypatch.setattr(layered, "PACK", False)
            rebuilt = layered.sweep(tables, budget)
            monkeypatch.setattr(layered, "PACK", True)
            model = layered.sweep(tables, budget)
        except BudgetExceeded:  # FrontierTooWide included: below what one level needs
            continue
        assert model.paths == rebuilt.paths == kept.paths and model.peak <= budget
        levels = sum(segment.stop - segment.start for segment in model.segments if segment.unpacks)
        if not kept.paths:
            np.testing.assert_array_equal(model.uses(), uses)
            continue
        for other in (model, rebuilt):
            other_uses, other_draws, other_swept = _read(other, monkeypatch)
            np.testing.assert_array_equal(other_uses, uses)
            np.testing.assert_array_equal(other_draws, draws)
            if other is model:
                # Reading sweeps again only the levels that are not packed (three times: counts, backward counts, draws).
                assert other_swept <= 3 * (tables.cell_count - levels) + model.resweeps
        unpacked += levels
    assert unpacked > 0  # some model was read from packed levels
