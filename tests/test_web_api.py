"""The web API in-process (Starlette's test client): every endpoint, and every bad input refused in one
JSON line with a 4xx status while the server keeps serving."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from starlette.testclient import TestClient

from battlelog.cli import main
from battlelog.web.app import create_app
from battlelog.web.requests import MAX_BODY

from web_cases import one_line_error, small_experiment

#: The content type every JSON endpoint requires.
JSON = {"Content-Type": "application/json"}
STATE: dict[str, Any] = {
    "size": 6,
    "ships": [3, 2],
    "shots": [{"row": 2, "col": 2, "result": "hit"}, {"row": 2, "col": 3, "result": "miss"}],
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_experiment(tmp_path_factory.mktemp("web"))


@pytest.fixture(scope="module")
def client(results: Path) -> Iterator[TestClient]:
    with TestClient(create_app(results, warm=False)) as test_client:
        yield test_client


def test_marginals_are_the_command_lines_plus_the_best_unshot_cell(
    client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps(STATE))
    assert main(["marginals", str(path), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    answer = client.post("/api/marginals", json=STATE)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    suggest = data.pop("suggest")
    assert data.keys() == expected.keys() and data["models"] == expected["models"]
    assert np.allclose(data["cells"], expected["cells"], atol=1e-12)
    cells = np.array(data["cells"])
    for shot in STATE["shots"]:
        cells[shot["row"], shot["col"]] = -1.0  # a shot cell is never suggested
    best = np.flatnonzero(np.isclose(cells, cells.max(), atol=1e-9))[0]  # the first of the best, row-major
    assert (suggest["row"], suggest["col"]) == divmod(int(best), 6)
    assert suggest != {"row": 2, "col": 2}


def test_the_end_of_the_game_suggests_nothing(client: TestClient) -> None:
    shots = [{"row": 0, "col": c, "result": "hit"} for c in range(2)] + [{"row": 0, "col": 2, "result": "sunk", "ship": 0}]
    shots += [{"row": 3, "col": 0, "result": "hit"}, {"row": 4, "col": 0, "result": "sunk", "ship": 1}]
    answer = client.post("/api/marginals", json={"size": 6, "ships": [3, 2], "shots": shots})
    assert answer.status_code == 200 and answer.json()["suggest"] is None and answer.json()["models"] == 1


def test_a_contradictory_state_is_refused_naming_the_shot(client: TestClient) -> None:
    shots = [{"row": 0, "col": 0, "result": "hit"}] + [{"row": r, "col": c, "result": "miss"} for r, c in ((0, 1), (1, 0))]
    one_line_error(client.post("/api/marginals", json={"size": 4, "ships": [3], "shots": shots}), 409, "shot 3")


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b"{", 400, "not valid JSON"),
        (b"", 400, "empty request body"),
        (b"[1, 2]", 400, "expected a JSON object"),
        (b'{"size": 4, "size": 5, "ships": [2]}', 400, "appears twice"),
        (b'{"size": 4, "ships": [2], "shotz": []}', 400, "unknown key 'shotz'"),
        (b'{"size": 4, "ships": [2], "shots": [{"row": 9, "col": 0, "result": "miss"}]}', 400, "off the"),
        (b'{"size": 20, "ships": [5, 4]}', 400, "at most 144"),
        (b'{"size": 8, "ships": [1, 1, 1, 1, 1, 1, 1, 1, 1]}', 400, "more than the server's"),
        (b"\xff\xfe", 400, "not UTF-8"),
        (b"{" + b" " * MAX_BODY + b"}", 413, "larger than"),
    ],
    ids=[
        "bad-json", "empty", "not-object", "repeated-key", "unknown-key", "off-board", "too-large-board", "too-many-ships",
        "not-utf8", "oversized",
    ],
)
def test_bad_bodies_are_one_line_and_the_server_keeps_serving(client: TestClient, body: bytes, status: int, words: str) -> None:
    one_line_error(client.post("/api/marginals", content=body, headers=JSON), status, words)
    assert client.post("/api/marginals", json=STATE).status_code == 200


def test_unknown_routes_and_methods_are_json(client: TestClient) -> None:
    one_line_error(client.get("/api/nothing"), 404, "Not Found")
    one_line_error(client.get("/api/marginals"), 405, "Method Not Allowed")


def test_the_page_and_its_files_are_served_with_a_policy_against_other_hosts(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "battlelog" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for answer in (client.post("/api/marginals", json=STATE), client.get("/api/nothing"), client.get("/static/app.js")):
        assert "default-src 'self'" in answer.headers["content-security-policy"], answer.url  # the API and errors too
        assert answer.headers["x-content-type-options"] == "nosniff"
    for name in ("app.js", "board.js", "play.js", "results.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200, name
        assert f"/static/{name}" in page.text
    assert "http" not in "".join(client.get(f"/static/{n}").text for n in ("app.js", "board.js", "play.js", "results.js"))


def test_the_play_tab_has_a_legend_of_its_marks(client: TestClient) -> None:
    import re

    page = client.get("/").text
    legend = re.search(r'<div id="play-legend".*?</div>', page, re.S)
    assert legend is not None and page.index('id="view-play"') < legend.start() < page.index('id="view-results"')
    marks = re.findall(r'<span class="cell (\w+)">([^<]*)</span> (\w[^<]+)</span>', legend[0])
    assert {mark: symbol for mark, symbol, _ in marks} == {
        "miss": "·", "hit": "X", "sunk": "#", "ship": "", "volley": "", "heat": "",
    }
    board = client.get("/static/board.js").text  # the symbols the boards draw
    assert 'shot.result === "miss" ? "·" : shot.result === "sunk" ? "#" : "X"' in board


def test_options_name_every_registered_player(client: TestClient) -> None:
    from battlelog.players import PLAYERS

    options = client.get("/api/options").json()
    assert options["players"] == sorted(PLAYERS) and options["results"] is True and "none" in options["touch"]


# ----- play ------------------------------------------------------------------------------------------
FLEET = [{"row": 0, "col": 0, "horizontal": True}, {"row": 3, "col": 3, "horizontal": False}]


def _new(client: TestClient, **body: Any) -> Any:
    return client.post("/api/play/new", json={"board": {"size": 5, "ships": [3, 2]}, "player": "pdf", "seed": 3, **body})


def test_a_game_against_the_computer_ends_with_a_winner_and_true_answers(client: TestClient) -> None:
    started = _new(client, fleet=FLEET)
    assert started.status_code == 200, started.text
    game, view = started.json()["game"], started.json()
    assert "reveal" not in view and view["fleet"][1] == {"ship": 1, "length": 2, "row": 3, "col": 3, "horizontal": False}
    cells = [(r, c) for r in range(5) for c in range(5)]
    while view["winner"] is None:
        r, c = cells.pop()
        view = client.post("/api/play/shoot", json={"game": game, "row": r, "col": c}).json()
    hidden = {
        (p["row"] + k * (not p["horizontal"]), p["col"] + k * p["horizontal"]) for p in view["reveal"] for k in range(p["length"])
    }
    for shot in view["you"]["shots"]:
        assert (shot["result"] != "miss") == ((shot["row"], shot["col"]) in hidden)
    mine = {(0, 0), (0, 1), (0, 2), (3, 3), (4, 3)}
    for shot in view["computer"]["shots"]:
        assert (shot["result"] != "miss") == ((shot["row"], shot["col"]) in mine)
    loser = mine if view["winner"] == "computer" else hidden
    side = "computer" if view["winner"] == "computer" else "you"
    assert loser <= {(s["row"], s["col"]) for s in view[side]["shots"]}
    one_line_error(client.post("/api/play/shoot", json={"game": game, "row": 0, "col": 0}), 409, "the game is over")
    heat = client.post("/api/play/heat", json={"game": game})
    assert heat.status_code == 200 and heat.json()["models"] == 1


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"player": "tests.brute:BrutePlayer"}, "unknown player"),
        ({"player": "os:system"}, "unknown player"),
        ({"fleet": [FLEET[0], {"row": 0, "col": 1, "horizontal": False}]}, "overlap"),
        ({"fleet": [FLEET[0], {"row": 4, "col": 4, "horizontal": True}]}, "does not lie on the board"),
        ({"fleet": FLEET[:1]}, "one per ship"),
        ({"fleet": [FLEET[0], {"row": True, "col": 3, "horizontal": False}]}, "whole numbers"),
        ({"board": {"size": 5, "ships": [3, 2], "shots": [{"row": 0, "col": 0, "result": "miss"}]}}, "no shots yet"),
        ({"colour": "red"}, "unknown key"),
    ],
    ids=["module-class", "code", "overlap", "off-board", "short-fleet", "bool-row", "shots", "unknown-key"],
)
def test_bad_games_are_refused(client: TestClient, body: dict[str, Any], words: str) -> None:
    one_line_error(_new(client, **body), 400, words)


def test_shots_at_an_unknown_game_or_twice_at_a_cell_are_refused(client: TestClient) -> None:
    one_line_error(client.post("/api/play/shoot", json={"game": "nope", "row": 0, "col": 0}), 404, "no game")
    game = _new(client).json()["game"]
    assert client.post("/api/play/shoot", json={"game": game, "row": 0, "col": 0}).status_code == 200
    one_line_error(client.post("/api/play/shoot", json={"game": game, "row": 0, "col": 0}), 400, "already shot")
    one_line_error(client.post("/api/play/shoot", json={"game": game, "row": True, "col": 0}), 400, "whole numbers")


# ----- results ---------------------------------------------------------------------------------------
def test_results_list_open_and_replay(client: TestClient) -> None:
    index = client.get("/api/results").json()
    assert [e["path"] for e in index["experiments"]] == ["small"] and index["plots"] == ["small/plot.png"]
    experiment = client.get("/api/results/experiment", params={"path": "small"}).json()
    assert "pdf" in experiment["summary"] and experiment["games"][0]["player"] == "pdf"
    replay = client.get("/api/results/replay", params={"path": "small", "game": "0"}).json()
    frames = replay["frames"]
    assert len(frames) == experiment["games"][0]["score"] + 1
    assert frames[0]["state"]["shots"] == [] and frames[-1]["next"] is None
    first = frames[1]["state"]["shots"][0]
    assert {"row": first["row"], "col": first["col"]} == frames[0]["next"]
    hidden = {
        (p["row"] + k * (not p["horizontal"]), p["col"] + k * p["horizontal"])
        for p in replay["layout"]
        for k in range(p["length"])
    }
    assert hidden == {(s["row"], s["col"]) for s in frames[-1]["state"]["shots"] if s["result"] != "miss"} and len(hidden) == 5
    png = client.get("/api/results/file", params={"path": "small/plot.png"})
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("../web", 400, "'..'"),
        ("small/../../etc", 400, "'..'"),
        ("/etc/passwd", 400, "relative"),
        ("outside", 403, "leads out"),
        ("missing", 404, "no 'missing'"),
        ("small/experiment.json", 404, "only"),
    ],
)
def test_paths_never_leave_the_results_folder(client: TestClient, results: Path, path: str, status: int, words: str) -> None:
    if not (results / "outside").exists():
        os.symlink("/etc", results / "outside")
    one_line_error(client.get("/api/results/file", params={"path": path}), status, words)
    assert client.get("/api/results").status_code == 200


def test_replay_and_experiment_refusals(client: TestClient) -> None:
    one_line_error(client.get("/api/results/replay", params={"path": "small", "game": "x"}), 400, "whole number")
    one_line_error(client.get("/api/results/replay", params={"path": "small", "game": "²"}), 400, "whole number")
    one_line_error(client.get("/api/results/replay", params={"path": "small", "game": "٣"}), 400, "whole number")
    one_line_error(client.get("/api/results/replay", params={"path": "small", "game": "7"}), 400, "no game 7")
    one_line_error(client.get("/api/results/experiment", params={"path": "small/plot.png"}), 404, "not an experiment")
    one_line_error(client.get("/api/results/experiment"), 400, "missing query parameter 'path'")


def test_without_results_the_results_api_says_how_to_get_them() -> None:
    with TestClient(create_app(None, warm=False)) as bare:
        one_line_error(bare.get("/api/results"), 404, "--results")
        assert bare.get("/api/options").json()["results"] is False


# ----- jobs: progress and cancel ---------------------------------------------------------------------
def test_a_cancelled_job_stops_the_engine_at_its_next_report() -> None:
    import asyncio

    from battlelog.engines import progress
    from battlelog.rules.state import GameState
    from battlelog.web.jobs import Cancelled, Job
    from battlelog.web.service import EngineService

    service = EngineService(workers=1)
    state = GameState.from_json({"size": 8, "ships": [4, 3, 2], "shots": [{"row": 3, "col": 4, "result": "hit"}]})
    job = Job()

    def cancelled_midway() -> object:
        progress.report("start", 0.5)  # reaches the job
        job.cancelled = True  # the page's Cancel arrives meanwhile
        return service.engine().marginals(state)  # the sweep's next report stops it

    try:
        with pytest.raises(Cancelled, match="cancelled"):
            asyncio.run(service.run(cancelled_midway, "127.0.0.1", job))
        assert job.fraction == 0.5 and job.what == "start"
        with pytest.raises(Cancelled):
            asyncio.run(service.run(lambda: 1, "127.0.0.1", job))  # cancelled before it started: never starts
        watched = Job()
        marginals = asyncio.run(service.run(lambda: service.engine().marginals(state), "127.0.0.1", watched))
        assert marginals.models is not None and marginals.models > 0 and watched.fraction == 1.0
    finally:
        service.close()


def test_jobs_are_named_checked_and_forgotten(client: TestClient) -> None:
    answer = client.post("/api/marginals", json=STATE, headers={"X-Battlelog-Job": "page-1"})
    assert answer.status_code == 200
    assert client.get("/api/progress", params={"job": "page-1"}).json() == {"running": False, "what": "", "fraction": None}
    assert client.post("/api/cancel", json={"job": "page-1"}).json() == {"cancelled": False}  # it had ended
    one_line_error(client.get("/api/progress", params={"job": "a/b"}), 400, "job must be")
    one_line_error(client.get("/api/progress"), 400, "job must be")
    one_line_error(client.post("/api/marginals", json=STATE, headers={"X-Battlelog-Job": "../x"}), 400, "x-battlelog-job")
    one_line_error(client.post("/api/cancel", json={"job": "a", "more": 1}), 400, "unknown key")


def test_a_running_job_is_watched_and_cancelled_over_http(client: TestClient) -> None:
    from battlelog.web.jobs import Job

    jobs = client.app.state.jobs  # type: ignore[attr-defined]
    job = jobs._jobs["testclient", "running-1"] = Job("10x10 5,4,3,3,2", 0.25)  # as a request in progress holds it
    try:
        assert client.get("/api/progress", params={"job": "running-1"}).json() == {
            "running": True,
            "what": "10x10 5,4,3,3,2",
            "fraction": 0.25,
        }
        assert not job.cancelled
        assert client.post("/api/cancel", json={"job": "running-1"}).json() == {"cancelled": True}
        assert job.cancelled
    finally:
        del jobs._jobs["testclient", "running-1"]


def test_the_likely_next_answers_are_computed_while_the_person_decides(client: TestClient) -> None:
    import time

    from battlelog.rules.state import GameState
    from battlelog.web.advise import answer_key

    state = {"size": 7, "ships": [3, 2], "shots": [{"row": 0, "col": 0, "result": "miss"}]}
    suggest = client.post("/api/marginals", json=state).json()["suggest"]
    service = client.app.state.service  # type: ignore[attr-defined]
    following = [GameState.from_json(state).with_shot(suggest["row"], suggest["col"], result) for result in ("miss", "hit")]
    deadline = time.monotonic() + 20
    while not all(answer_key(s, service) in service._answers for s in following):
        assert time.monotonic() < deadline, "the next answers were not computed"
        time.sleep(0.05)
    # What was computed ahead is served, and it is what a fresh engine says of that state.
    from battlelog.engines import make_engine

    engine = make_engine("sdd")
    try:
        for s in following:
            answer = client.post("/api/marginals", json=s.to_json()).json()
            fresh = engine.marginals(s)
            assert answer["models"] == fresh.models and np.allclose(answer["cells"], fresh.cells, atol=1e-12)
    finally:
        engine.close()


def test_an_unexpected_failure_is_one_line_and_the_server_keeps_serving(monkeypatch: pytest.MonkeyPatch, results: Path) -> None:
    from battlelog.web import advise

    async def broken(*args: object) -> bytes:
        raise RuntimeError("a bug\nwith two lines")

    with TestClient(create_app(results, warm=False), raise_server_exceptions=False) as fresh:
        monkeypatch.setattr(advise, "computed", broken)
        one_line_error(fresh.post("/api/marginals", json=STATE), 500, "internal error (RuntimeError)")
        monkeypatch.undo()
        assert fresh.post("/api/marginals", json=STATE).status_code == 200


def test_a_streamed_body_is_cut_at_the_limit_too(client: TestClient) -> None:
    chunks = iter([b"{" + b" " * (MAX_BODY // 2), b" " * (MAX_BODY // 2), b"}"])  # no Content-Length: chunked
    one_line_error(client.post("/api/marginals", content=chunks, headers=JSON), 413, "larger than")
    one_line_error(client.post("/api/marginals", content=b"{}", headers={**JSON, "Content-Length": "x"}), 400, "Content-Length")


def test_a_state_with_tallies_is_answered_as_the_command_line_does(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = Path(__file__).parent / "fixtures" / "tallies_5x5.json"
    assert main(["marginals", str(fixture), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    answer = client.post("/api/marginals", json=json.loads(fixture.read_text()))
    assert answer.status_code == 200, answer.text
    assert answer.json()["models"] == expected["models"] == 16
    assert np.allclose(answer.json()["cells"], expected["cells"], atol=1e-12)
    untallied = {key: value for key, value in json.loads(fixture.read_text()).items() if not key.endswith("_counts")}
    assert client.post("/api/marginals", json=untallied).json()["models"] > 16  # the tallies were weighed, not dropped
    one_line_error(client.post("/api/marginals", json={**untallied, "row_counts": [1, 2, 3]}), 400, "row_counts")
    one_line_error(client.post("/api/marginals", json={**untallied, "col_counts": [5, 5, 5, 5, 5]}), 409, "tallies")
