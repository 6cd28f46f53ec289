"""The server's opening book and its worker processes: every answer in the book is a fresh engine's,
a stale or damaged book is never used, and a call in a worker process is watched and cancelled."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from starlette.testclient import TestClient

from battlelog.engines import make_engine
from battlelog.engines.solve import solve
from battlelog.errors import StateError
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.web import book
from battlelog.web.advise import advice_text, answer_key, keep_book
from battlelog.web.app import STANDARD, create_app
from battlelog.web.jobs import Cancelled, Job
from battlelog.web.service import EngineService

SMALL = GameConfig(6, (3, 2, 2))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EngineService, Path]]:
    """A service whose book of SMALL (40 states) was computed and written to a folder of its own."""
    folder = tmp_path_factory.mktemp("book")
    service = EngineService(workers=2)
    asyncio.run(keep_book(service, SMALL, 40, folder))
    try:
        yield service, folder
    finally:
        service.close()


def check_answer(state: GameState, text: bytes, engine_name: str = "sdd") -> None:
    """``text`` is what a fresh engine (another one by default) says of ``state``, with the exact player's shot."""
    answer = json.loads(text)
    engine = make_engine(engine_name)
    try:
        fresh = engine.marginals(state)
    finally:
        engine.close()
    assert answer["models"] == fresh.models
    assert np.allclose(answer["cells"], fresh.cells, atol=1e-12)
    cells = np.array(fresh.cells)
    for cell in state.shot_cells:
        cells[cell] = -1.0
    best = np.flatnonzero(np.isclose(cells, cells.max(), atol=1e-9))[0]  # the first of the best, row-major
    assert (answer["suggest"]["row"], answer["suggest"]["col"]) == divmod(int(best), state.cols)


def test_the_book_on_disk_is_the_fresh_engines_answers_in_the_adviser_tree(built: tuple[EngineService, Path]) -> None:
    service, folder = built
    assert service.book_status["ready"] and len(service.book) == 40
    stored, refused = book.load(SMALL, service.engine_name, folder)
    assert stored == service.book and refused == service.book_refused
    states = {key: GameState.from_json(json.loads(key)[1]) for key in stored}
    for key, state in states.items():
        check_answer(state, stored[key])
        if state.shots:  # every state follows its parent's suggestion, and the parent is in the book too
            parent = state.prefix(len(state.shots) - 1)
            suggest = json.loads(stored[answer_key(parent, service)])["suggest"]
            assert (suggest["row"], suggest["col"]) == state.shots[-1].cell
    engine = make_engine("sdd")
    try:
        for key in refused:  # what the walk was refused is a contradiction to a fresh engine too
            with pytest.raises(StateError):
                solve(GameState.from_json(json.loads(key)[1]), engine)
    finally:
        engine.close()
    again = EngineService(workers=1)  # a second start walks the book from disk without the engine
    try:
        asyncio.run(keep_book(again, SMALL, 40, folder))
        assert again.book == service.book and again.served["computed"] == 0 and again.processes._pool is None
    finally:
        again.close()
    depths = sorted(len(state.shots) for state in states.values())
    assert depths[:3] == [0, 1, 1] and depths[-1] >= 4  # the miss and the hit after the first shot, then deeper


def test_a_stale_or_damaged_book_is_never_used(built: tuple[EngineService, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    service, folder = built
    path = book.book_path(SMALL, service.engine_name, folder)
    nothing: tuple[dict[str, bytes], set[str]] = ({}, set())
    assert book.load(SMALL, service.engine_name, folder)[0]
    assert book.load(GameConfig(6, (3, 2)), service.engine_name, folder) == nothing  # another fleet: another file
    assert book.load(SMALL, "sdd", folder) == nothing
    monkeypatch.setattr(book, "source_digest", lambda: "another version of battlelog")
    assert book.load(SMALL, service.engine_name, folder) == nothing
    monkeypatch.undo()
    text = path.read_text()
    try:
        path.write_text(text[: len(text) // 2])
        assert book.load(SMALL, service.engine_name, folder) == nothing
        data = json.loads(text)
        data["answers"][next(iter(data["answers"]))] = 3
        path.write_text(json.dumps(data))
        assert book.load(SMALL, service.engine_name, folder) == nothing
    finally:
        path.write_text(text)


def test_the_server_answers_book_states_from_the_book(built: tuple[EngineService, Path]) -> None:
    service, _ = built
    key = next(key for key in service.book if len(json.loads(key)[1]["shots"]) == 3)
    before = service.served["book"]
    with TestClient(create_app(None, service=service, warm=False)) as client:
        answer = client.post("/api/marginals", json=json.loads(key)[1])
        assert answer.status_code == 200 and answer.content == service.book[key]
        assert client.get("/api/options").json()["book"] == {"board": SMALL.label(), "size": 40, "ready": True, "states": 40}
    assert service.served["book"] == before + 1


def test_a_call_in_a_worker_process_is_watched_and_cancelled() -> None:
    service = EngineService(workers=1)
    slow = GameState.empty(STANDARD).with_shot(0, 3, "miss")  # some seconds of the engine

    async def cancelled_midway() -> Job:
        job = Job()
        call = asyncio.ensure_future(service.processes.call(advice_text, "native", slow, job=job))
        for _ in range(600):
            if job.fraction is not None or call.done():
                break
            await asyncio.sleep(0.05)
        job.cancelled = True
        with pytest.raises(Cancelled, match="cancelled"):
            await call
        return job

    try:
        job = asyncio.run(cancelled_midway())
        assert job.fraction is not None and 0 <= job.fraction < 1
        small = GameState.from_json({"size": 5, "ships": [3, 2], "shots": [{"row": 2, "col": 2, "result": "hit"}]})
        text = asyncio.run(service.processes.call(advice_text, "native", small))
        check_answer(small, text)  # the worker goes on serving
    finally:
        service.close()
