"""The live chance to win in the game against the computer: the JSON the page receives after every turn,
exact on a small board against the race worked out here from every layout, estimated on larger ones."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from starlette.testclient import TestClient
from test_racer import _exact

from battlelog.rules.state import GameState
from battlelog.web.app import create_app


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(None, warm=False)) as test_client:
        yield test_client


def _new(client: TestClient, board: dict[str, Any], player: str = "pdf") -> dict[str, Any]:
    answer = client.post("/api/play/new", json={"board": board, "player": player, "seed": 5})
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def _race(view: dict[str, Any]) -> float:
    """Your chance to win, you to shoot: P(R_you <= R_computer), both sides exact greedy on every layout of
    their own posterior, drawn independently (a recursion over the test oracle's layouts)."""
    mine, theirs = (np.array(_exact(GameState.from_json(view[side]))) for side in ("you", "computer"))
    return float(np.mean([[m <= t for t in theirs] for m in mine]))


def test_on_a_small_board_every_turn_shows_the_exact_chances(client: TestClient) -> None:
    view = _new(client, {"size": 4, "ships": [2]})
    game, cells = view["game"], [(r, c) for r in range(4) for c in range(4)]
    turns = 0
    while view["winner"] is None:
        chances = view["chances"]
        assert chances["method"] == "exact"
        assert chances["you"] == pytest.approx(_race(view), abs=1e-12)
        assert chances["you"] + chances["computer"] == pytest.approx(1.0)
        r, c = cells.pop(0)
        view = client.post("/api/play/shoot", json={"game": game, "row": r, "col": c}).json()
        turns += 1
    won = view["winner"] == "you"
    assert turns > 1 and view["chances"] == {"you": float(won), "computer": float(not won), "method": "over"}


def test_on_a_larger_board_the_chances_are_estimated_and_the_racer_plays(client: TestClient) -> None:
    view = _new(client, {"size": 7, "ships": [5, 5, 4]}, player="racer")
    assert view["chances"]["method"] == "estimated" and 0.5 < view["chances"]["you"] < 0.7  # you shoot first
    view = client.post("/api/play/shoot", json={"game": view["game"], "row": 0, "col": 0}).json()
    assert len(view["computer"]["shots"]) == 1 and view["chances"]["you"] + view["chances"]["computer"] == pytest.approx(1.0)


def test_under_salvo_no_chance_is_shown(client: TestClient) -> None:
    view = _new(client, {"size": 5, "ships": [3, 2], "rules": {"salvo": "ships"}})
    assert view["chances"] is None
