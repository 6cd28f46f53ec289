"""A level of the native sweep taken a slice at a time (layered._advance_in_slices, the way a level
that does not fit the budget at once is taken) against the level taken at once: the same next states
in the same order, the same counts and transitions; the engine's counts that way against enumeration
(tests/oracle.py); and a budget too small for a level at once met in slices, with the process's own
peak under it, or refused in one line."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from battlelog.engines.native import few, jit, layered
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.tables import SweepTables, sweep_order
from battlelog.errors import BudgetExceeded
from battlelog.model.ground import Problem, ground
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules

import oracle

CONFIGS = [
    GameConfig(6, (4, 3, 3, 2)),
    GameConfig(6, (4, 3, 2, 2), cols=7, rules=Rules(touch="diagonal")),
    GameConfig(6, (3, 3, 2, 2), rules=Rules(touch="none")),
]


@pytest.mark.parametrize("compiled", [False, True], ids=["interpreted", "compiled"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.label())
def test_a_level_taken_in_slices_is_the_level_taken_at_once(
    config: GameConfig, compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(layered, "_SLICE", 5)  # many slices, and tables that grow between them
    if compiled:
        monkeypatch.setattr(jit, "COMPILE_ABOVE", -1)
    grown: list[int] = []
    for run in (jit._interpreted, jit.kernels(0)):

        def rehash(states: np.ndarray, distinct: int, table: np.ndarray, original=run.rehash) -> None:
            grown.append(distinct)
            original(states, distinct, table)

        monkeypatch.setattr(run, "rehash", rehash)
    state = GameState.empty(config)
    tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state))
    keys, fwd = np.array([tables.root], dtype=np.uint64), np.ones(1, dtype=np.int64)
    with jit.quiet():
        for j in range(tables.cell_count):
            whole, next_keys, next_fwd, _ = layered._advance_at_once(tables, keys, fwd, j, None, 0)
            sliced, sliced_keys, sliced_fwd, work = layered._advance_in_slices(tables, keys, fwd, j, None, 0)
            np.testing.assert_array_equal(sliced_keys, next_keys)  # the same states, in the same order
            np.testing.assert_array_equal(sliced_fwd, next_fwd)
            for name in ("fwd", "first", "child", "action"):
                np.testing.assert_array_equal(getattr(sliced, name), getattr(whole, name), err_msg=name)
            assert work <= layered._lean_work(tables, len(keys), len(whole.child), len(next_keys))
            keys, fwd = next_keys, next_fwd
    assert grown and max(grown) > 0  # the table grew with states in it


@pytest.mark.parametrize("touch", ["allowed", "diagonal", "none"])
def test_counts_taken_in_slices_are_the_enumerated_ones(touch: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise BudgetExceeded("taken in slices here")

    monkeypatch.setattr(layered, "_advance_at_once", refuse)
    monkeypatch.setattr(layered, "_SLICE", 3)
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)  # sweep, however few the layouts
    config = GameConfig(5, (3, 2, 2), cols=6, rules=Rules(touch=touch))
    table = oracle.layouts(5, (3, 2, 2), touch, cols=6)
    counts = NativeEngine(memory_budget=2**30).counts(GameState.empty(config))
    assert counts.models == len(table)
    np.testing.assert_allclose(
        counts.cells / counts.models, oracle.cell_marginals(table, np.arange(len(table))), rtol=0, atol=1e-12
    )


_PEAK = """
import numpy as np
from battlelog.engines.native import few, jit, layered
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.tables import sweep_order
from battlelog.engines.native.tables import SweepTables
from battlelog.errors import BudgetExceeded
from battlelog.model.ground import Problem, ground
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState

def high_water() -> int:
    return next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmHWM"))

few.PAIR_LIMIT = 0
jit.COMPILE_ABOVE = -1
state = GameState.empty(GameConfig(8, (5, 4, 3, 3, 2)))
tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state))
at_once = layered.sweep(tables, 2**31, keep_levels=False)
whole = NativeEngine(memory_budget=2**31).counts(state)
root = np.array([tables.root], dtype=np.uint64)
layered._advance_in_slices(tables, root, np.ones(1, dtype=np.int64), 0, None, 0)  # load every kernel before measuring
del at_once
for fraction in (0.85, 0.5, 0.2):
    budget = int(layered.sweep(tables, 2**31, keep_levels=False).peak * fraction)
    depths = []
    compile_ = NativeEngine.compile_model
    NativeEngine.compile_model = lambda self, p, o, d, t=False, limit=None: (
        depths.append(d), compile_(self, p, o, d, t, limit)
    )[1]
    open("/proc/self/clear_refs", "w").write("5")  # the high-water mark starts again from here
    base = high_water()
    try:
        counts = NativeEngine(memory_budget=budget, turn=False).counts(state)
        same = counts.models == whole.models and (counts.cells == whole.cells).all()
        print(fraction, "counted", same, max(depths), high_water() - base <= budget, high_water() - base, budget)
    except BudgetExceeded as exc:
        print(fraction, "refused", "\\n" not in str(exc), max(depths), high_water() - base <= budget, high_water() - base, budget)
    NativeEngine.compile_model = compile_
"""


@pytest.mark.slow
def test_a_budget_too_small_at_once_is_met_in_slices_under_the_process_peak() -> None:
    """8x8 5,4,3,3,2 under 0.85 of the budget its sweep needs when every level is taken at once: counted
    exactly, unsplit; under half of it too (segment starts recomputed); under 0.2 of it, refused in one
    line, unsplit; each with the process's high-water mark (Linux's, reset before the call) rising by
    less than the budget."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_PEAK)], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    # each line: fraction, what happened, a one-line refusal or exact counts, split depth, peak rise <= budget, rise, budget
    assert out[0].startswith("0.85 counted True 0 True "), out[0]
    assert out[1].startswith("0.5 counted True 0 True "), out[1]
    assert out[2].startswith("0.2 refused True 0 True "), out[2]


def test_a_touch_prior_taken_in_slices_weighs_as_the_oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Levels taken in slices keep the touching pairs a touch weight needs (they are not the one-shot levels)."""

    def refuse(*args: object) -> None:
        raise BudgetExceeded("taken in slices here")

    monkeypatch.setattr(layered, "_advance_at_once", refuse)
    monkeypatch.setattr(layered, "_SLICE", 3)
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)  # sweep, however few the layouts
    prior = Prior(edge=0.4, vertical=-0.3, touch=-1.2)
    config = GameConfig(5, (3, 2, 2), cols=6, prior=prior)
    table = oracle.layouts(5, (3, 2, 2), "allowed", cols=6)
    state = GameState.empty(config).with_shot(2, 2, "miss")  # not the empty board: no disk cache answers it
    marginals = NativeEngine(memory_budget=2**30).marginals(state)
    weights = oracle.layout_weights(table, *prior.theta)
    chosen = oracle.posterior(table, [((2, 2), ("miss", None))], "named")
    assert marginals.models == len(chosen)
    expected = oracle.weighted_cell_marginals(table, chosen, weights)
    np.testing.assert_allclose(marginals.cells, expected, rtol=0, atol=1e-9)
