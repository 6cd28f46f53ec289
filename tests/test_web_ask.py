"""``/api/ask``: the very JSON ``battlelog ask --json`` prints on the same state and program (one question or
a ranked bank), every bad input one JSON line with the command's message, the work in the bounded queue;
``/api/ask/cells`` against an independent count of the layouts, ``/api/ask/boards`` the board files."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import captain_brute
import numpy as np
import pytest
from starlette.testclient import TestClient

from battlelog.cli import main
from battlelog.questions.state import state_from_json
from battlelog.web import asking
from battlelog.web.app import create_app
from battlelog.web.requests import MAX_BODY
from battlelog.web.service import EngineService

from web_cases import one_line_error

#: Rothe-style: a ship whose length is one of two, a revealed tile naming its ship, a noisy recorded answer.
NOISY: dict[str, Any] = {
    "ships": [{"name": "Red", "length": [2, 3]}, {"name": "Blue", "length": 2}],
    "board": ["H,H,H,H", "H,W,H,H", "H,H,R,H", "H,H,H,H"],
    "answers": [{"question": "(== (orient Blue) H)", "answer": True}],
    "noise": 0.1,
}
#: BattleshipQA-style: lengths in an unknown order, an exact recorded answer, no noise.
UNORDERED: dict[str, Any] = {
    "ships": [{"name": "Red"}, {"name": "Green"}, {"name": "Purple"}],
    "lengths": [3, 2, 2],
    "board": ["H,H,H,H,H", "H,W,H,H,H", "H,H,G,H,H", "W,H,H,H,H", "H,H,H,H,W"],
    "answers": [{"question": "(size Green)", "answer": 3}],
}
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def boards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("boards")
    (folder / "board_B01.txt").write_text("W,W,W,R\nG,G,W,R\nW,W,W,R\nW,P,P,W\n")
    (folder / "notes.txt").write_text("not a board\n")
    return folder


@pytest.fixture(scope="module")
def client(boards: Path) -> Iterator[TestClient]:
    with TestClient(create_app(None, EngineService(workers=1), warm=False, boards=boards)) as test_client:
        yield test_client


def _command(tmp_path: Path, capsys: pytest.CaptureFixture[str], state: Any, *argv: str) -> tuple[int, str, str]:
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    status = main(["ask", str(path), *argv])
    out, err = capsys.readouterr()
    return status, out, err.replace(str(path), "state")


@pytest.mark.parametrize(
    ("state", "program"),
    [
        (NOISY, "(touch Red Blue)"),
        (NOISY, "(size Red)"),
        (NOISY, "(topleft (coloredTiles Red))"),
        (UNORDERED, "(color 1-1)"),
        (UNORDERED, "(orient Red)"),
        (UNORDERED, "(++ (map (lambda x0 (size x0)) (set AllColors)))"),
    ],
)
def test_one_question_is_the_commands_json(
    client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str], state: dict[str, Any], program: str
) -> None:
    status, out, _ = _command(tmp_path, capsys, state, program, "--json")
    assert status == 0
    answer = client.post("/api/ask", json={"state": state, "question": program})
    assert answer.status_code == 200, answer.text
    assert answer.text == out.strip()  # the same text, not only the same numbers
    assert list(answer.json()) == ["question", "models", "answers", "entropy", "eig"]


def test_a_recorded_answer_changes_the_next_questions_worth(client: TestClient) -> None:
    asked = client.post("/api/ask", json={"state": UNORDERED, "question": "(orient Red)"}).json()
    assert [a["answer"] for a in asked["answers"]] == ["H", "V"] and asked["eig"] > 0
    other = client.post("/api/ask", json={"state": UNORDERED, "question": "(touch Red Purple)"}).json()
    told = {**UNORDERED, "answers": [*UNORDERED["answers"], {"question": "(orient Red)", "answer": "V"}]}
    again = client.post("/api/ask", json={"state": told, "question": "(orient Red)"}).json()
    assert again["answers"] == [{"answer": "V", "p": 1.0}] and again["eig"] == 0
    assert again["models"] < asked["models"]
    after = client.post("/api/ask", json={"state": told, "question": "(touch Red Purple)"}).json()
    assert after["models"] == again["models"] and after["answers"] != other["answers"]


def test_a_bank_is_ranked_as_the_command_ranks_it(client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bank = ["(size Red)", "(touch Red Blue)", "(size Red)", "(== (color 1-1) Water)", "(orient Red)"]
    (tmp_path / "bank.txt").write_text("\n".join(bank) + "\n")
    status, out, _ = _command(tmp_path, capsys, NOISY, "--bank", str(tmp_path / "bank.txt"), "--json", "--top", "3")
    assert status == 0
    answer = client.post("/api/ask", json={"state": NOISY, "bank": bank, "top": 3})
    assert answer.status_code == 200, answer.text
    assert answer.text == out.strip()
    assert len(answer.json()) == 3
    whole = client.post("/api/ask", json={"state": NOISY, "bank": bank}).json()
    assert len(whole) == 4  # the repeated program asked once
    assert [r["eig"] for r in whole] == sorted((r["eig"] for r in whole), reverse=True)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"state": NOISY, "question": "(size Red"}, "'(' is never closed"),
        ({"state": NOISY, "question": "(size Green)"}, "column 7: unknown ship 'Green'"),
        ({"state": NOISY, "question": "(== (size Red) (orient Blue))"}, "== compares a number with an orientation"),
        (
            {"state": {**NOISY, "answers": [{"question": "(size Red)", "answer": "three"}]}, "question": "(size Red)"},
            "answer is a number",
        ),
        ({"state": {**NOISY, "answers": [{"question": "(size Blue)", "answer": 3}]}, "question": "(size Red)"}, "no layout"),
        ({"state": {**NOISY, "board": ["W,W,W,W"] * 4}, "question": "(size Red)"}, "no layout of the fleet fits"),
        ({"state": {**NOISY, "colour": 1}, "question": "(size Red)"}, "unknown key"),
    ],
)
def test_bad_input_is_the_commands_one_line(
    client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str], body: dict[str, Any], message: str
) -> None:
    status, _, err = _command(tmp_path, capsys, body["state"], body["question"])
    assert status == 2
    answer = client.post("/api/ask", json=body)
    one_line_error(answer, 400, message)
    assert answer.json()["error"] in err  # the command's message, the state named "state"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"state": NOISY, "question": "(size Red)", "extra": 1}, "unknown key 'extra'"),
        ({"question": "(size Red)"}, "missing key 'state'"),
        ({"state": NOISY}, 'give either a "question"'),
        ({"state": NOISY, "question": "(size Red)", "bank": ["(size Red)"]}, 'give either a "question"'),
        ({"state": NOISY, "question": "(size Red)", "top": 2}, '"top" goes with a "bank"'),
        ({"state": NOISY, "question": 3}, '"question" must be a program'),
        ({"state": NOISY, "bank": []}, '"bank" must be a list'),
        ({"state": NOISY, "bank": ["(size Red)", 4]}, '"bank" must be a list'),
        ({"state": NOISY, "bank": ["(size Red)"], "top": 0}, '"top" must be a whole number'),
        ({"state": NOISY, "bank": ["(size Red)"], "top": True}, '"top" must be a whole number'),
        ({"state": NOISY, "bank": ["(size Red)", "(size Red)", "(size Gold)"]}, "bank[3]: '(size Gold)': column 7: unknown ship"),
        ({"state": [], "question": "(size Red)"}, "state: a question state is a JSON object"),
        ([], "expected a JSON object"),
    ],
)
def test_bad_requests_are_one_line(client: TestClient, body: Any, message: str) -> None:
    one_line_error(client.post("/api/ask", json=body), 400, message)


def test_content_type_size_and_query_are_checked(client: TestClient) -> None:
    text = json.dumps({"state": NOISY, "question": "(size Red)"})
    one_line_error(client.post("/api/ask", content=text, headers={"Content-Type": "text/plain"}), 415, "application/json")
    one_line_error(client.post("/api/ask", content=text), 415, "application/json")
    huge = json.dumps({"state": NOISY, "question": "(size Red)" + " " * MAX_BODY})
    one_line_error(client.post("/api/ask", content=huge, headers=JSON), 413, "larger than")
    one_line_error(client.post("/api/ask?top=3", content=text, headers=JSON), 400, "unknown query parameter")
    one_line_error(client.post("/api/ask/cells", content=text, headers=JSON), 400, "unknown key 'question'")
    one_line_error(client.get("/api/ask"), 405, "Method Not Allowed")


def test_cells_are_each_cells_chance_of_a_ship_by_brute_force(client: TestClient) -> None:
    answer = client.post("/api/ask/cells", json={"state": UNORDERED})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    shown = {"W": None, "G": "Green"}
    shots = {r * 5 + c: shown[s] for r, row in enumerate(UNORDERED["board"]) for c, s in enumerate(row.split(",")) if s != "H"}
    everything = captain_brute.layouts(5, 5, ("Red", "Green", "Purple"), (3, 2, 2))
    weighted = captain_brute.posterior(everything, shots, [(lambda layout: len(layout["Green"]) == 3, True)], 0.0)
    fitting = [(layout, w) for layout, w in weighted if w > 0]
    assert data["models"] == len(fitting) > 1
    assert np.allclose(np.ravel(data["cells"]), captain_brute.marginals(fitting, 25), atol=1e-12)


@pytest.mark.parametrize("board", [["H,H,H,H,H", "H,W,H,H,H", "H,H,G,H,H", "W,H,H,H,H", "H,H,H,H,W"],
                                   ["H,H,H,H,H", "H,W,H,H,H", "H,H,G,R,H", "W,H,H,H,H", "H,H,H,H,W"],
                                   ["H,H,H,H,H", "H,W,H,H,H", "H,H,G,H,H", "W,H,G,H,H", "H,H,H,H,W"]])  # fmt: skip
def test_a_captains_state_too_large_to_list_is_counted_exactly(monkeypatch: pytest.MonkeyPatch, board: list[str]) -> None:
    monkeypatch.setattr(asking, "BUDGET", 0)  # every captain's state counted, none listed
    monkeypatch.setattr(asking, "layouts", lambda state: pytest.fail("listed, not counted"))
    state = {"ships": [{"name": "Red"}, {"name": "Green"}, {"name": "Purple"}], "lengths": [3, 2, 2], "board": board}
    cells, models = asking.cell_chances(state_from_json(state, "state"))
    names = {"W": None, "G": "Green", "R": "Red"}
    shots = {r * 5 + c: names[s] for r, row in enumerate(board) for c, s in enumerate(row.split(",")) if s != "H"}
    weighted = captain_brute.posterior(captain_brute.layouts(5, 5, ("Red", "Green", "Purple"), (3, 2, 2)), shots, [], 0.0)
    assert models == len(weighted)
    assert np.allclose(cells, captain_brute.marginals(weighted, 25), atol=1e-12)


def test_the_empty_battleshipqa_board_has_its_heat_map(client: TestClient) -> None:
    state = {"size": 8, "ships": [{"name": n} for n in ("Red", "Green", "Purple", "Orange")], "lengths": [5, 4, 3, 2]}
    data = client.post("/api/ask/cells", json={"state": state}).json()
    assert data["models"] == 21_354_072 * 24  # docs/captain.md's unnamed layouts, times the colourings
    assert np.isclose(np.sum(data["cells"]), 14, atol=1e-9)  # the expected ship tiles: all 14, surely


def test_boards_lists_the_board_files(client: TestClient) -> None:
    data = client.get("/api/ask/boards").json()
    assert data == {
        "boards": [
            {
                "name": "board_B01", "rows": 4, "cols": 4, "ships": ["Red", "Green", "Purple", "Orange"][:3],
                "lengths": [3, 2, 2], "truth": ["W,W,W,R", "G,G,W,R", "W,W,W,R", "W,P,P,W"],
            }
        ]
    }  # fmt: skip
    with TestClient(create_app(None, warm=False)) as bare:
        assert bare.get("/api/ask/boards").json() == {"boards": []}


def test_a_question_waits_in_the_bounded_queue_and_is_refused_when_it_is_full() -> None:
    service = EngineService(workers=1, queue=2)
    release = threading.Event()
    with TestClient(create_app(None, service=service, warm=False)) as client:

        async def hold(owner: str) -> None:
            await service.run(release.wait, owner)

        held = [client.portal.start_task_soon(hold, owner) for owner in ("10.0.0.8", "10.0.0.9")]
        try:
            for _ in range(1000):
                if service.queue.taken == 2:
                    break
                threading.Event().wait(0.01)
            one_line_error(client.post("/api/ask", json={"state": NOISY, "question": "(size Red)"}), 503, "busy")
        finally:
            release.set()
            for future in held:
                future.result(timeout=10)
        assert client.post("/api/ask", json={"state": NOISY, "question": "(size Red)"}).status_code == 200
        assert service.processes.running == 0 and service.queue.taken == 0


def test_serve_refuses_a_boards_folder_that_is_not_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--boards", str(tmp_path / "none"), "--port", "0"]) == 2
    assert capsys.readouterr().err.strip() == f"battlelog: error: --boards {tmp_path / 'none'}: not a folder"
