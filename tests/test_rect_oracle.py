"""Rectangular boards (R rows x C columns) in every engine, checked against the independent oracle
(tests/oracle.py, which lays ships on R x C boards from the spec on its own).

- random consistent states on 3x5, 4x3, 5x4 and 2x6 boards with ships of length 1, under every touch
  rule and sink rule: the native and sdd engines equal the oracle to 1e-9 (counts, cell and placement
  marginals), at least a hundred states per touch and sink rule;
- the problog engine on a few of them per rule pair (six in the slow test, all with
  ``BATTLELOG_EVERY_STATE=1``), and the stock
  ``problog`` command on ``battlelog script`` of a rectangular state;
- the empty rectangle's marginals have its four symmetries (and its count is the oracle's).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from test_problog_rules import script_marginals_match

from battlelog.engines import Engine, make_engine
from battlelog.errors import FleetError
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import symmetries_of
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules

import oracle
from oracle_states import EVERY_STATE, oracle_state

#: (rows, cols, fleet, states per rule pair, seed): 108 states per touch and sink rule, wide and tall
#: boards (a wide one is swept across its columns by the native engine), ships of length 1 throughout.
CONFIGS = ((3, 5, (3, 2, 1), 27, 21), (4, 3, (2, 2, 1), 27, 22), (5, 4, (3, 2, 1), 27, 23), (2, 6, (2, 2, 1), 27, 24))
VARIANTS = [(touch, sinks) for touch in TOUCH_RULES for sinks in SINK_RULES]
IDS = [f"{touch}-{sinks}" for touch, sinks in VARIANTS]

Cell = tuple[int, int]


@cache
def rect_states(sinks: str, touch: str) -> tuple[tuple[GameState, np.ndarray], ...]:
    """Random consistent states on the rectangles of CONFIGS with the oracle's posterior.

    A layout is drawn uniformly from the oracle's list, shot at until the game is over, answered by
    battlelog's referee (whose answers must be the oracle's), and cut at a random shot."""
    out = []
    for rows, cols, ships, count, seed in CONFIGS:
        table = oracle.layouts(rows, ships, touch, cols)
        if not len(table):  # the fleet cannot be laid out under this rule: battlelog must say so
            with pytest.raises(FleetError):
                GameConfig(rows, ships, Rules(touch=touch, sinks=sinks), cols=cols)
            continue
        config = GameConfig(rows, ships, Rules(touch=touch, sinks=sinks), cols=cols)
        rng = np.random.default_rng(seed)
        out += [oracle_state(config, table, rng) for _ in range(count)]
    return tuple(out)


def assert_equals_oracle(engine: Engine, state: GameState, chosen: np.ndarray, placements: bool = True) -> None:
    table = oracle.layouts(state.rows, state.ships, state.config.rules.touch, state.cols)
    got = engine.marginals(state)
    where = f"{state.config.label()} {state.to_json()['shots']}"
    assert got.cells.shape == (state.rows, state.cols), where
    assert got.models is None or got.models == len(chosen), where
    np.testing.assert_allclose(got.cells, oracle.cell_marginals(table, chosen), atol=1e-9, err_msg=where)
    if placements:
        assert got.placements is not None
        expected = oracle.placement_marginals(table, chosen)
        for i in range(len(state.ships)):
            want = [expected[i].get((p.length, p.row, p.col, p.horizontal), 0.0) for p in state.config.placements(i)]
            np.testing.assert_allclose(got.placements[i], want, atol=1e-9, err_msg=where)


@pytest.fixture(scope="module", params=["native", "sdd"])
def engine(request: pytest.FixtureRequest) -> Engine:
    """One instance per engine answers every state: its caches must keep boards of one area apart."""
    return make_engine(request.param)


@pytest.mark.parametrize(("touch", "sinks"), VARIANTS, ids=IDS)
def test_engines_equal_the_oracle_on_rectangles(engine: Engine, touch: str, sinks: str) -> None:
    states = rect_states(sinks, touch)
    assert len(states) >= 100
    assert {(s.rows, s.cols) for s, _ in states} >= {(3, 5), (4, 3), (5, 4)}
    for state, chosen in states:
        assert_equals_oracle(engine, state, chosen)


def _spread(states: tuple[tuple[GameState, np.ndarray], ...], count: int) -> list[tuple[GameState, np.ndarray]]:
    return [states[k] for k in np.linspace(0, len(states) - 1, count).astype(int)]


@pytest.mark.parametrize(("touch", "sinks"), VARIANTS, ids=IDS)
def test_problog_equals_the_oracle_on_rectangles(touch: str, sinks: str) -> None:
    engine = make_engine("problog")
    for state, chosen in _spread(rect_states(sinks, touch), 3):
        assert_equals_oracle(engine, state, chosen, placements=False)


@pytest.mark.slow
@pytest.mark.parametrize(("touch", "sinks"), VARIANTS, ids=IDS)
def test_problog_equals_the_oracle_on_more_rectangles(touch: str, sinks: str) -> None:
    engine = make_engine("problog")
    states = rect_states(sinks, touch)
    for state, chosen in states if EVERY_STATE else _spread(states, 6):
        assert_equals_oracle(engine, state, chosen, placements=False)


@pytest.mark.parametrize("touch", TOUCH_RULES)
def test_stock_problog_command_answers_a_rectangle(touch: str, tmp_path: Path) -> None:
    state = max((s for s, _ in rect_states("named", touch) if s.rows == 3), key=lambda s: len(s.shots))
    script_marginals_match(state, tmp_path)


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize(("rows", "cols", "ships"), [(3, 5, (3, 2, 1)), (5, 4, (3, 2, 1)), (2, 6, (2, 2, 1))])
def test_empty_rectangles_have_four_symmetries(rows: int, cols: int, ships: tuple[int, ...], touch: str) -> None:
    """Counts from the oracle; the native marginals unchanged, exactly, by the identity, both mirrors
    and the half turn, and summing to the fleet's cells."""
    table = oracle.layouts(rows, ships, touch, cols)
    if not len(table):
        pytest.skip("the fleet does not fit under this rule")
    config = GameConfig(rows, ships, Rules(touch), cols=cols)
    got = make_engine("native").marginals(GameState.empty(config))
    assert got.models == len(table)
    symmetries = symmetries_of(rows, cols)
    assert len(symmetries) == 4 and not any(s.transpose for s in symmetries)
    for symmetry in symmetries:
        np.testing.assert_array_equal(symmetry.board(got.cells), got.cells)
    assert got.cells.sum() == pytest.approx(sum(ships), abs=1e-9)
    mirrored = got.cells[::-1, ::-1]  # the half turn, written out by hand
    np.testing.assert_array_equal(mirrored, got.cells)
