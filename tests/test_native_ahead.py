"""The sweep drops a state as soon as it cannot cover a required (hit) cell ahead (``SweepTables.ahead``).

- random consistent states under every touch and sink rule, on a square and a rectangle, swept in
  every raster order: the pruned model counts what the oracle counts (tests/oracle.py), and exactly
  what the same sweep without the pruning counts (the kernel given no rows ahead is the kernel before
  it), every placement's count included, with no level larger and fewer states in all;
- 10x10 mid-game states under each touch rule: the engine's draws are the same boards, seed for
  seed, as the sweep without the pruning draws (a dropped state has no layout through it, and a draw
  never takes a transition without one).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from oracle_states import oracle_state

from battlelog.engines.native import few, jit
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.layered import sweep
from battlelog.engines.native.tables import SweepTables, sweep_orders
from battlelog.model.ground import ground_problem
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState, Shot
from battlelog.rules.variants import Rules

import oracle

#: (rows, cols, fleet, states, seed) of the random states.
BOARDS = ((5, 5, (3, 2, 2), 8, 7), (4, 6, (3, 2, 1), 8, 8))


@pytest.fixture(autouse=True)
def fresh_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BATTLELOG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)  # sweep every state, however few its layouts


def _unpruned(self: SweepTables) -> list[tuple[np.ndarray, np.ndarray]]:
    """``SweepTables.ahead`` with no rows: the sweep as it was before the pruning."""
    none = np.zeros((0, 4), dtype=np.uint64)
    return [(none, none)] * (self.cell_count + 1)


@pytest.mark.parametrize("sinks", ["named", "unnamed"])
@pytest.mark.parametrize("touch", ["allowed", "diagonal", "none"])
def test_pruned_sweeps_count_what_the_oracle_and_the_unpruned_sweep_count(touch: str, sinks: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pruned_states = unpruned_states = 0
    for rows, cols, ships, count, seed in BOARDS:
        table = oracle.layouts(rows, ships, touch, cols=cols)
        config = GameConfig(rows, ships, Rules(touch=touch, sinks=sinks), cols=cols)
        rng = np.random.default_rng(seed)
        for _ in range(count):
            state, chosen = oracle_state(config, table, rng)
            if state.over or not state.hits:
                continue
            problem = ground_problem(state)
            for order in sweep_orders(rows, cols):
                pruned = sweep(SweepTables(problem, order), 2**28)
                with monkeypatch.context() as patch:
                    patch.setattr(SweepTables, "_ahead", _unpruned)
                    unpruned = sweep(SweepTables(problem, order), 2**28)
                assert pruned.paths * pruned.tables.multiplicity == len(chosen)
                assert pruned.paths == unpruned.paths
                np.testing.assert_array_equal(pruned.uses(), unpruned.uses())
                for (_, a), (_, b) in zip(pruned.levels(), unpruned.levels(), strict=True):
                    assert len(a.fwd) <= len(b.fwd)
                    pruned_states += len(a.fwd)
                    unpruned_states += len(b.fwd)
    assert pruned_states < unpruned_states  # the rows ahead drop states


#: A legal layout under every touch rule (no two ships in contact), and shots that hit four of its ships
#: without sinking them, among misses: 10x10 5,4,3,3,2.
LAYOUT = ((0, 0, 0, True), (1, 2, 6, True), (2, 4, 0, False), (3, 6, 4, True), (4, 8, 8, True))
SHOTS = ((0, 1), (2, 6), (2, 7), (4, 0), (6, 5), (5, 5), (3, 3), (7, 7), (1, 8), (9, 2), (4, 4), (8, 1))


@pytest.mark.parametrize("touch", ["allowed", "diagonal", "none"])
def test_draws_are_the_boards_the_unpruned_sweep_draws(touch: str, monkeypatch: pytest.MonkeyPatch) -> None:
    config = GameConfig(10, (5, 4, 3, 3, 2), Rules(touch=touch))
    referee = Referee(config, tuple(Placement(i, config.ships[i], r, c, h) for i, r, c, h in LAYOUT))
    state = GameState(config, tuple(Shot(r, c, *referee.shoot(r, c)) for r, c in SHOTS))
    assert len(state.hits) == 5 and not state.sunk_shots
    jit.kernels(jit.COMPILE_ABOVE + 1)  # the compiled kernel, as a game on 10x10 runs it
    pruned = NativeEngine(memory_budget=2**30).sample(state, 20, np.random.default_rng(3))
    monkeypatch.setattr(SweepTables, "_ahead", _unpruned)
    unpruned = NativeEngine(memory_budget=2**30).sample(state, 20, np.random.default_rng(3))
    assert pruned == unpruned
    assert len(set(pruned)) > 1
