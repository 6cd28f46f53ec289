"""The terminal pictures: column numbers over their cells on every board size, the advice's tie rule."""

from __future__ import annotations

import re

import numpy as np
import pytest

from battlelog.players.exact import ExactPlayer
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.views.display import board_text, heatmap_text, most_likely


def _ends(line: str, pattern: str) -> list[int]:
    """Where each match of ``pattern`` in ``line`` ends (the index of its last character)."""
    return [m.end() - 1 for m in re.finditer(pattern, line)]


@pytest.mark.parametrize("size", range(1, 27))
def test_each_column_number_stands_over_its_cells(size: int) -> None:
    state = GameState.empty(GameConfig(size, (1,)))
    board = board_text(state).splitlines()
    heat = heatmap_text(np.full((size, size), 0.5), state, color=False).splitlines()
    for header, row, cell in ((board[0], board[-1], r"\."), (heat[0], heat[-1], r"50\.0")):
        assert header.split() == [str(c) for c in range(1, size + 1)]  # no two numbers run together
        assert _ends(header, r"\d+") == _ends(row, cell)  # each number ends where its column's cells end


def test_the_suggested_cells_are_the_exact_players_candidates_under_its_tie_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    state = GameState.empty(GameConfig(3, (2,))).with_shot(1, 1, "miss")
    cells = np.array([[0.30, 0.40, 0.30], [0.40, 0.0, 0.39], [0.30, 0.40, 0.30]])
    assert most_likely(state, cells) == [(0, 1), (1, 0), (2, 1)]
    # Under a wider tolerance, the player's rule (relative to the best) ties 0.39 in: the advice must follow it.
    monkeypatch.setattr("battlelog.rules.aim.TIE_TOLERANCE", 0.05)
    assert most_likely(state, cells) == [(0, 1), (1, 0), (1, 2), (2, 1)]
    # On real marginals (a 3-ship on 3x3 around a missed centre: corners 1/2, edges 1/4) the advice and
    # the exact player name the same cells, under either tolerance.
    state = GameState.empty(GameConfig(3, (3,))).with_shot(1, 1, "miss")
    player = ExactPlayer(seed=0)
    exact = player._engine.marginals(state).cells
    assert most_likely(state, exact) == player.candidates(state) == [(0, 0), (0, 2), (2, 0), (2, 2)]
    monkeypatch.setattr("battlelog.rules.aim.TIE_TOLERANCE", 0.3)
    assert most_likely(state, exact) == player.candidates(state) == sorted(state.unshot)
    player.close()


@pytest.mark.parametrize("sinks", ["named", "unnamed", "silent"])
def test_the_referees_board_shows_a_sunk_ship_under_every_sink_rule(sinks: str) -> None:
    from battlelog.rules.geometry import Placement
    from battlelog.rules.referee import Referee
    from battlelog.rules.variants import Rules

    config = GameConfig(4, (2, 1), Rules(sinks=sinks))
    layout = (Placement(0, 2, 0, 0, True), Placement(1, 1, 3, 3, True))
    referee, state = Referee(config, layout), GameState.empty(config)
    for cell in ((0, 0), (0, 1), (2, 2)):
        state = state.with_shot(*cell, *referee.shoot(*cell))
    rows = board_text(state, layout).splitlines()[1:]
    assert rows[0].split()[1:] == ["#", "#", ".", "."]  # ship 0 is all hit: sunk, whatever was announced
    assert rows[2].split()[1:] == [".", ".", "o", "."] and rows[3].split()[1:] == [".", ".", ".", "s"]
