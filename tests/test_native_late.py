"""The compiled late-state lister (battlelog.engines.native.late) against the Python path it replaces on late
states: grounding (battlelog.model.ground) then listing (few.few_layouts) give the same ships' order, the
same layouts in the same order, on random states of every rule, on rectangles and with ships of length 1;
where that path gives up or finds no layout, so does it; and its layouts are the brute-force enumeration's."""

from __future__ import annotations

import numpy as np
import pytest

from battlelog.engines.native.few import few_layouts
from battlelog.engines.native.late import late_layouts
from battlelog.errors import Inconsistent
from battlelog.model.ground import ground_problem
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules

import oracle
from oracle_states import oracle_state, random_states

BOARDS = [
    GameConfig(5, (3, 2, 2)),
    GameConfig(4, (3, 2, 1)),
    GameConfig(6, (4, 3, 3), cols=5),
    GameConfig(10, (5, 4, 3, 3, 2)),
    GameConfig(7, (3, 2, 2, 1, 1)),
]
CASES = [(board, Rules(touch, sinks)) for board in BOARDS for touch in TOUCH_RULES for sinks in SINK_RULES]


def _with(board: GameConfig, rules: Rules) -> GameConfig:
    return GameConfig(board.rows, board.ships, rules, cols=board.cols)


@pytest.mark.parametrize("board, rules", CASES, ids=[f"{b.label()}-{r.touch}-{r.sinks}" for b, r in CASES])
def test_the_compiled_listing_is_the_grounded_one_array_for_array(board: GameConfig, rules: Rules) -> None:
    config = _with(board, rules)
    listed = 0
    for state in random_states(config, 40, seed=7):
        fast = late_layouts(state)
        try:
            slow = few_layouts(ground_problem(state))
        except Inconsistent:  # cannot happen: random_states are consistent
            pytest.fail(f"a consistent state was found inconsistent: {state.to_json()}")
        if slow is None or len(slow[2]) == 0:
            assert fast is None
            continue
        assert fast is not None
        assert fast[0] == slow[0]
        np.testing.assert_array_equal(fast[1], slow[1])
        np.testing.assert_array_equal(fast[2], slow[2])
        listed += 1
    assert listed >= 2  # the comparison is not empty: some random states of each board are late enough to list


@pytest.mark.parametrize("rules", [Rules(touch, sinks) for touch in TOUCH_RULES for sinks in SINK_RULES], ids=str)
@pytest.mark.parametrize("size, cols, ships", [(4, 4, (3, 2, 1)), (3, 5, (2, 2, 1))], ids=["4x4 3,2,1", "3x5 2,2,1"])
def test_the_compiled_listing_holds_the_layouts_the_oracle_finds(
    rules: Rules, size: int, cols: int, ships: tuple[int, ...]
) -> None:
    config = GameConfig(size, ships, rules, cols=cols)
    table = oracle.layouts(size, ships, rules.touch, cols)
    rng = np.random.default_rng(11)
    for _ in range(25):
        state, chosen = oracle_state(config, table, rng)
        fast = late_layouts(state)
        assert fast is not None
        order, covered, placements = fast
        # The same set of layouts: each listed one as the oracle's cells per ship, against the oracle's.
        listed = sorted(
            tuple(
                tuple(sorted(config.placements(ship)[placements[i, column]].cells))
                for column, ship in sorted(enumerate(order), key=lambda o: o[1])
            )
            for i in range(len(placements))
        )
        expected = sorted(tuple(tuple(sorted(oracle.cells_of(spot))) for spot in table.spots[k]) for k in chosen)
        assert listed == expected
        for i in range(len(placements)):  # each layout's covered cells are its ships' cells
            cells = [cell for column, ship in enumerate(order) for cell in config.placements(ship)[placements[i, column]].cells]
            assert int(covered[i, 0]) == sum(1 << (r * cols + c) for r, c in cells)


def test_a_state_no_layout_fits_is_left_to_the_slow_path() -> None:
    state = GameState.empty(GameConfig(4, (2,)))
    for row, col, result in [(0, 0, "hit"), (0, 1, "miss"), (1, 0, "miss")]:
        state = state.with_shot(row, col, result)
    assert late_layouts(state) is None
    with pytest.raises(Inconsistent, match="no ship can cover the hit at"):
        ground_problem(state)


def test_a_process_that_runs_interpreted_lists_in_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    # Loading numba costs more than a small board's whole listing in numpy: the engine's compiled listing
    # waits until the process has loaded it for a sweep (a one-shot command on a small board never does).
    from battlelog.engines.native import jit
    from battlelog.engines.native.late import late_listing

    state = GameState.empty(GameConfig(4, (3, 2))).with_shot(1, 1, "hit").with_shot(1, 2, "miss")
    monkeypatch.setattr(jit, "_compiled", None)
    monkeypatch.setattr(jit, "_late_compiled", None)
    assert late_listing(state, 1 << 30) is None and late_layouts(state, load=False) is None
    listed = late_layouts(state)  # asked for itself, it loads the compiled lister
    assert listed is not None and len(listed[2]) > 0
    assert late_listing(state, 1 << 30) is not None  # numba loaded now: the engine lists compiled from here on
