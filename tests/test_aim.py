"""The one rule that picks the best cells (battlelog/rules/aim.py): ties within TIE_TOLERANCE, broken by
the player's generator or, for the advice, in reading order; the k best one at a time; a volley under way
chosen from the marginals before its first answer; and the players and the advice agree on it."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from battlelog.engines import make_engine
from battlelog.players import make_player
from battlelog.rules.aim import TIE_TOLERANCE, best_cells, pick_tied, tied_best, volley_cells, volley_start
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.views.advise import Advisor
from battlelog.views.display import most_likely

CELLS = [(0, 0), (0, 1), (1, 0), (1, 1)]


def values_of(*scores: float) -> np.ndarray:
    return np.array(scores, dtype=float).reshape(2, 2)


def test_scores_within_the_tolerance_tie_and_the_advice_takes_them_in_reading_order() -> None:
    noisy = values_of(0.5 - 0.1 * TIE_TOLERANCE, 0.2, 0.5, 0.5 - 10 * TIE_TOLERANCE)
    assert tied_best(CELLS, [noisy[c] for c in CELLS]) == [(0, 0), (1, 0)]
    assert best_cells(CELLS, noisy, 4) == [(0, 0), (1, 0), (1, 1), (0, 1)]  # (1,1) is below the tie: after both
    assert best_cells(CELLS, noisy, 2) == [(0, 0), (1, 0)]  # not sorted by the float noise: (1, 0) is not first
    assert best_cells(CELLS, noisy, 9) == best_cells(CELLS, noisy, 4)  # never more cells than there are


def test_a_generator_draws_among_the_tied_cells_only_and_each_of_them() -> None:
    tied = values_of(0.4, 0.1, 0.4, 0.4)
    rng = np.random.default_rng(3)
    firsts = Counter(best_cells(CELLS, tied, 1, rng)[0] for _ in range(300))
    assert set(firsts) == {(0, 0), (1, 0), (1, 1)} and min(firsts.values()) > 60
    volleys = {tuple(best_cells(CELLS, tied, 3, rng)) for _ in range(100)}
    assert all(set(v) == {(0, 0), (1, 0), (1, 1)} for v in volleys) and len(volleys) == 6  # every order drawn
    assert pick_tied([(1, 1)], rng) == (1, 1) and pick_tied([(1, 1), (0, 0)], None) == (1, 1)


def salvo_state() -> GameState:
    config = GameConfig(5, (3, 2), Rules(salvo=3))
    return GameState.empty(config).with_shot(2, 2, "hit", volley=0).with_shot(0, 0, "miss", volley=0)


def test_a_volley_under_way_keeps_the_cells_chosen_before_its_answers() -> None:
    state = salvo_state()
    assert volley_start(state) == 0 and volley_start(GameState.empty(state.config)) == 0
    engine = make_engine("native")
    before = engine.marginals(state.prefix(0)).cells
    after = engine.marginals(state).cells
    plan = volley_cells(state, before)
    assert len(plan) == 1 and plan[0] not in state.shot_cells
    assert plan == best_cells(state.unshot, before, 1)
    assert Advisor(state, engine.marginals(state), engine, path=None).volley_plan() == plan  # type: ignore[arg-type]
    done = state.with_shot(*plan[0], "miss", volley=0)
    assert volley_start(done) == 3 and volley_cells(done, after) == best_cells(done.unshot, after, 3)


@pytest.mark.parametrize("name", ["problog", "pdf", "thompson"])
def test_the_players_volley_and_the_advice_pick_alike_where_nothing_ties(name: str) -> None:
    config = GameConfig(5, (3, 2), Rules(salvo=3))
    state = (
        GameState.empty(config)
        .with_shot(1, 1, "hit", volley=0)
        .with_shot(1, 2, "miss", volley=0)
        .with_shot(0, 1, "miss", volley=0)
    )
    cells = make_engine("native").marginals(state).cells
    top = best_cells(state.unshot, cells, 4)
    assert len(tied_best(top, [cells[c] for c in top])) == 1  # the best is alone, so no draw decides it
    player = make_player(name, 0)
    try:
        volley = player.choose_volley(state, 3)
    finally:
        player.close()
    assert volley[0] == volley_cells(state, cells)[0] == most_likely(state, cells)[0]
