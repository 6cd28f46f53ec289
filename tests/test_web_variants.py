"""The web API on rectangular boards and under salvo: advice (a whole volley, chosen before its answers)
and games against the computer (volleys alternate), checked against brute force and the referee."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from starlette.testclient import TestClient

from battlelog.rules.config import GameConfig
from battlelog.rules.layouts import sample_layout
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState
from battlelog.web.app import create_app

from oracle import cell_marginals, layouts, posterior
from web_cases import one_line_error


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(None, warm=False)) as test_client:
        yield test_client


def oracle_marginals(state: GameState) -> tuple[np.ndarray, int]:
    """The cell marginals and the number of layouts of ``state`` by the independent brute-force oracle."""
    rules = state.config.rules
    table = layouts(state.rows, state.ships, rules.touch, state.cols)
    chosen = posterior(table, [(shot.cell, (shot.result, shot.ship)) for shot in state.shots], rules.sinks)
    return cell_marginals(table, chosen), len(chosen)


def top_cells(cells: np.ndarray, taken: set[tuple[int, int]], k: int) -> list[tuple[int, int]]:
    """The k most probable cells not in ``taken``, ties to the first in reading order (brute force's view)."""
    out: list[tuple[int, int]] = []
    for _ in range(k):
        masked = cells.copy()
        for cell in taken | set(out):
            masked[cell] = -1.0
        if masked.max() < 0:
            break
        best = np.flatnonzero(np.isclose(masked, masked.max(), atol=1e-9))[0]
        out.append(divmod(int(best), cells.shape[1]))
    return out


def advise_to_the_end(client: TestClient, board: dict[str, Any], seed: int) -> GameState:
    """Follow the server's suggestions against a hidden layout until it suggests nothing; every answer is
    checked against the brute-force oracle: the marginals, and the suggestion (under salvo, the volley's rest,
    the best cells of the heat map from before the volley's first answer)."""
    state = GameState.from_json({**board, "shots": []})
    referee = Referee(state.config, sample_layout(state.config, np.random.default_rng(seed)))
    salvo = state.config.rules.is_salvo
    at_volley_start: np.ndarray | None = None
    while True:
        answer = client.post("/api/marginals", json=state.to_json())
        assert answer.status_code == 200, answer.text
        data = answer.json()
        cells, models = oracle_marginals(state)
        assert data["models"] == models and np.allclose(data["cells"], cells, atol=1e-12)
        assert np.array(data["cells"]).shape == (state.rows, state.cols)
        if data["suggest"] is None:
            assert state.over and data.get("volley") is None
            return state
        volley, left = state.next_volley()
        if not salvo or (state.shots and state.shots[-1].volley != volley) or not state.shots:
            at_volley_start = cells
        assert at_volley_start is not None
        expected = top_cells(at_volley_start, set(state.shot_cells), left if salvo else 1)
        if salvo:
            assert data["volley"] == {"volley": volley, "cells": [{"row": r, "col": c} for r, c in expected]}
        else:
            assert "volley" not in data
        assert (data["suggest"]["row"], data["suggest"]["col"]) == expected[0]
        state = state.with_shot(*expected[0], *referee.shoot(*expected[0]), volley if salvo else None)


@pytest.mark.parametrize(
    "board",
    [
        {"rows": 3, "cols": 6, "ships": [3, 2]},
        {"size": 5, "ships": [3, 2], "rules": {"salvo": 2}},
        {"rows": 4, "cols": 5, "ships": [3, 2, 2], "rules": {"salvo": "ships"}},
        {"rows": 5, "cols": 4, "ships": [3, 2], "rules": {"touch": "none", "sinks": "unnamed", "salvo": 3}},
    ],
    ids=["rectangle", "salvo-2", "rectangle-salvo-ships", "rectangle-no-touch-unnamed-salvo-3"],
)
def test_advice_follows_a_game_to_its_end_as_brute_force_says(client: TestClient, board: dict[str, Any]) -> None:
    state = advise_to_the_end(client, board, seed=len(str(board)))
    if state.config.rules.is_salvo:
        assert state.volleys >= 2 and all(shot.volley is not None for shot in state.shots)


def test_a_shot_without_its_volley_under_salvo_is_refused(client: TestClient) -> None:
    state = {"size": 5, "ships": [3, 2], "rules": {"salvo": 2}, "shots": [{"row": 0, "col": 0, "result": "miss"}]}
    one_line_error(client.post("/api/marginals", json=state), 400, "volley")
    rect = {"rows": 13, "cols": 12, "ships": [3, 2], "shots": []}
    one_line_error(client.post("/api/marginals", json=rect), 400, "cells")


def _cells_of(layout: list[dict[str, Any]]) -> set[tuple[int, int]]:
    return {(p["row"] + k * (not p["horizontal"]), p["col"] + k * p["horizontal"]) for p in layout for k in range(p["length"])}


def play_to_the_end(client: TestClient, board: dict[str, Any]) -> dict[str, Any]:
    """A game against the computer, your volleys the next unshot cells in reading order; every answer
    checked against the fleets, and every volley of the right size."""
    config = GameState.from_json({**board, "shots": []}).config
    view = client.post("/api/play/new", json={"board": board, "player": "problog", "seed": 5}).json()
    game, order = view["game"], [(r, c) for r in range(config.rows) for c in range(config.cols)]
    while view["winner"] is None:
        if config.rules.is_salvo:
            size = view["salvo"]["next"]
            volley = [{"row": r, "col": c} for r, c in order[:size]]
            view = client.post("/api/play/shoot", json={"game": game, "cells": volley}).json()
        else:
            r, c = order[0]
            view = client.post("/api/play/shoot", json={"game": game, "row": r, "col": c}).json()
        fired = {(s["row"], s["col"]) for s in view["you"]["shots"]}
        order = [cell for cell in order if cell not in fired]
    hidden, mine = _cells_of(view["reveal"]), _cells_of(view["fleet"])
    assert all(0 <= r < config.rows and 0 <= c < config.cols for r, c in hidden | mine)
    for side, fleet in (("you", hidden), ("computer", mine)):
        state = GameState.from_json(view[side])
        for shot in state.shots:
            assert (shot.result != "miss") == (shot.cell in fleet)
        if config.rules.is_salvo:  # every volley but the last is as long as the rule said when it began
            for v in range(state.volleys - 1):
                before = state.prefix(next(t for t, s in enumerate(state.shots) if s.volley == v))
                assert sum(s.volley == v for s in state.shots) == before.next_volley()[1]
    loser, side = (mine, "computer") if view["winner"] == "computer" else (hidden, "you")
    assert loser <= {(s["row"], s["col"]) for s in view[side]["shots"]}
    if config.rules.is_salvo:  # you fire first: the computer has begun as many volleys as you, or one fewer
        assert view["salvo"]["you"] - view["salvo"]["computer"] == (1 if view["winner"] == "you" else 0)
    return view


@pytest.mark.parametrize(
    "board",
    [
        {"rows": 3, "cols": 7, "ships": [3, 2]},
        {"size": 5, "ships": [3, 2], "rules": {"salvo": 2}},
        {"rows": 4, "cols": 6, "ships": [3, 2], "rules": {"salvo": "ships"}},
    ],
    ids=["rectangle", "salvo-2", "rectangle-salvo-ships"],
)
def test_a_game_against_the_computer_on_rectangles_and_under_salvo(client: TestClient, board: dict[str, Any]) -> None:
    play_to_the_end(client, board)


def test_bad_volleys_are_refused_and_change_nothing(client: TestClient) -> None:
    board = {"size": 5, "ships": [3, 2], "rules": {"salvo": 2}}
    view = client.post("/api/play/new", json={"board": board, "player": "pdf", "seed": 1}).json()
    game = view["game"]
    assert view["salvo"] == {"next": 2, "you": 0, "computer": 0}
    shoot = lambda **body: client.post("/api/play/shoot", json={"game": game, **body})  # noqa: E731
    one_line_error(shoot(row=0, col=0), 400, "volley is 2 shots")
    one_line_error(shoot(cells=[{"row": 0, "col": 0}]), 400, "volley is 2 shots")
    one_line_error(shoot(cells=[{"row": 0, "col": 0}, {"row": 0, "col": 0}]), 400, "already shot")
    one_line_error(shoot(cells=[{"row": 0, "col": 0}, {"row": 9, "col": 0}]), 400, "off the board")
    one_line_error(shoot(cells=[{"row": 0, "col": 0}, {"row": 0, "col": 1, "x": 1}]), 400, "unknown key")
    one_line_error(shoot(cells=[{"row": 0, "col": 0}, {"row": 0, "col": True}]), 400, "whole numbers")
    one_line_error(shoot(cells={"row": 0}), 400, "cells")
    one_line_error(shoot(cells=[{"row": 0, "col": 0}], row=0, col=0), 400, "either")
    one_line_error(shoot(), 400, "row and col")
    after = shoot(cells=[{"row": 0, "col": 0}, {"row": 0, "col": 1}]).json()
    assert [(s["row"], s["col"], s["volley"]) for s in after["you"]["shots"]] == [(0, 0, 0), (0, 1, 0)]
    assert len(after["computer"]["shots"]) == 2 and after["salvo"]["you"] == after["salvo"]["computer"] == 1
    single = client.post("/api/play/new", json={"board": {"size": 5, "ships": [3, 2]}, "player": "pdf"}).json()
    assert "salvo" not in single
    one_line_error(
        client.post("/api/play/shoot", json={"game": single["game"], "cells": [{"row": 0, "col": 0}] * 2}),
        400,
        "volley is 1 shot",
    )


def test_the_config_of_a_rectangle_is_kept() -> None:
    assert GameState.from_json({"rows": 3, "cols": 7, "ships": [3, 2], "shots": []}).config == GameConfig(3, (3, 2), cols=7)
