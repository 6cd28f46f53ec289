"""The server against the web it runs beside (issue 37), in-process: requests for another host (DNS
rebinding) or from another site are refused, JSON endpoints take JSON only, a game belongs to the address
that started it and no client pushes out another's games, and engine calls past the queue's bound are
answered 503 with Retry-After instead of waiting behind the others."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from battlelog.web.app import create_app
from battlelog.web.games import Games
from battlelog.web.guard import host_refusal, split_host
from battlelog.web.service import EngineService, WorkQueue

from web_cases import one_line_error

STATE: dict[str, Any] = {"size": 5, "ships": [3, 2], "shots": [{"row": 2, "col": 2, "result": "hit"}]}
BOARD = {"board": {"size": 5, "ships": [3, 2]}, "player": "random", "seed": 1}
#: The server's own address as TestClient names it (its Host header and the connection's local address).
OWN = "http://127.0.0.1:8000"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(None, warm=False), base_url=OWN) as test_client:
        yield test_client


# ----- Host: DNS rebinding ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("evil.example", 403), ("evil.example:8000", 403), ("127.0.0.1:8001", 403), ("localhost.:8000", 403),
        ("127.0.0.1:80", 403), ("127.0.0.1.evil.example:8000", 403), ("[fe80::1%25eth0]:8000", 403),
        ("127.0.0.1:x", 400), ("", 400), ("127.0.0.1:8000 ", 400),  # malformed: HTTP's 400
    ],
)  # fmt: skip
def test_a_host_that_is_not_this_servers_is_refused(client: TestClient, host: str, status: int) -> None:
    one_line_error(client.get("/api/options", headers={"Host": host}), status, "Host")
    one_line_error(client.post("/api/marginals", json=STATE, headers={"Host": host}), status, "Host")
    one_line_error(client.get("/", headers={"Host": host}), status, "Host")  # the page too: a rebound page reads nothing


def test_a_request_with_two_hosts_or_two_origins_is_refused_whichever_comes_first(client: TestClient) -> None:
    for hosts in (["127.0.0.1:8000", "evil.example"], ["evil.example", "127.0.0.1:8000"], ["127.0.0.1:8000"] * 2):
        one_line_error(client.get("/api/options", headers=[("Host", h) for h in hosts]), 400, "Host once, not 2 times")
    for origins in ([OWN, "http://evil.example"], ["http://evil.example", OWN], [OWN, OWN]):
        answer = client.post("/api/marginals", json=STATE, headers=[("Origin", o) for o in origins])
        one_line_error(answer, 403, "2 Origin headers")


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "LOCALHOST:8000", "[::1]:8000"])
def test_the_loopback_names_at_the_servers_port_are_served(client: TestClient, host: str) -> None:
    assert client.get("/api/options", headers={"Host": host}).status_code == 200
    assert client.post("/api/marginals", json=STATE, headers={"Host": host}).status_code == 200


def test_a_server_started_for_a_name_or_reached_at_an_address_answers_to_it() -> None:
    names = frozenset({"127.0.0.1", "localhost", "[::1]", "myhost.lan"})
    assert host_refusal("myhost.lan:8000", names, ("0.0.0.0", 8000)) is None
    assert host_refusal("192.168.1.5:8000", names, ("192.168.1.5", 8000)) is None  # bound to 0.0.0.0, reached by address
    assert host_refusal("[fe80::1]:8000", names, ("fe80::1", 8000)) is None
    assert host_refusal("192.168.1.6:8000", names, ("192.168.1.5", 8000)) is not None
    assert host_refusal("evil.example:8000", names, ("192.168.1.5", 8000)) is not None
    assert host_refusal("localhost", names, ("127.0.0.1", 80)) is None  # port 80 may go unnamed
    assert host_refusal("localhost", names, ("127.0.0.1", 8000)) is not None
    assert host_refusal(None, names, ("127.0.0.1", 8000)) == (400, "a request must name its Host")
    assert split_host("[::1]:8000") == ("[::1]", 8000) and split_host("a:b") is None and split_host(":80") is None
    with TestClient(create_app(None, warm=False, hosts=["myhost.lan"]), base_url="http://myhost.lan:8000") as named:
        assert named.get("/api/options").status_code == 200
        one_line_error(named.get("/api/options", headers={"Host": "other.lan:8000"}), 403, "not a name of this server")


# ----- Origin and Sec-Fetch-Site: cross-site requests ------------------------------------------------
@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "http://127.0.0.1:8001", "https://127.0.0.1:8000", "http://localhost:8000"]
)
def test_a_write_from_another_origin_is_refused(client: TestClient, origin: str) -> None:
    for path, body in (("/api/marginals", STATE), ("/api/play/new", BOARD), ("/api/cancel", {"job": "x"})):
        one_line_error(client.post(path, json=body, headers={"Origin": origin}), 403, "Origin")
    one_line_error(
        client.post("/api/marginals", content=b"{}", headers={"Origin": origin, "Content-Type": "text/plain"}), 403, "Origin"
    )


def test_the_servers_own_origin_is_served(client: TestClient) -> None:
    answer = client.post("/api/marginals", json=STATE, headers={"Origin": OWN, "Sec-Fetch-Site": "same-origin"})
    assert answer.status_code == 200 and answer.json()["models"] > 0
    assert client.get("/api/options", headers={"Sec-Fetch-Site": "none"}).status_code == 200  # typed in the address bar


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_an_api_request_a_browser_marks_as_another_sites_is_refused(client: TestClient, site: str) -> None:
    one_line_error(client.get("/api/options", headers={"Sec-Fetch-Site": site}), 403, "another site")
    one_line_error(client.get("/api/results/replay?path=a&game=0", headers={"Sec-Fetch-Site": site}), 403, "another site")
    assert client.get("/", headers={"Sec-Fetch-Site": site}).status_code == 200  # a link to the page from another site opens it


# ----- Content-Type ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "headers",
    [
        {}, {"Content-Type": "text/plain"}, {"Content-Type": "application/x-www-form-urlencoded"},
        {"Content-Type": "multipart/form-data; boundary=x"}, {"Content-Type": "application/json; charset=latin-1"},
        {"Content-Type": "application/jsonx"},
    ],
    ids=["none", "text", "form", "multipart", "latin-1", "jsonx"],
)
def test_json_endpoints_refuse_other_content_types(client: TestClient, headers: dict[str, str]) -> None:
    import json

    body = json.dumps(STATE).encode()
    for path in ("/api/marginals", "/api/play/new", "/api/play/shoot", "/api/play/heat", "/api/cancel"):
        one_line_error(client.post(path, content=body, headers=headers), 415, "application/json")


def test_two_content_types_are_refused_whichever_comes_first(client: TestClient) -> None:
    import json

    for kinds in (["application/json", "text/plain"], ["text/plain", "application/json"], ["application/json"] * 2):
        headers = [("Content-Type", kind) for kind in kinds]
        one_line_error(client.post("/api/marginals", content=json.dumps(STATE).encode(), headers=headers), 400, "2 times")


def test_json_with_a_utf8_charset_is_taken(client: TestClient) -> None:
    import json

    for kind in ("application/json; charset=utf-8", 'Application/JSON;charset="UTF-8"'):
        assert (
            client.post("/api/marginals", content=json.dumps(STATE).encode(), headers={"Content-Type": kind}).status_code == 200
        )


# ----- games: owned, bounded per client, never pushed out by another client --------------------------
@contextmanager
def two_clients(app: Starlette) -> Iterator[tuple[TestClient, TestClient]]:
    """Clients of ``app`` from two addresses, 10.0.0.1 and 10.0.0.2: two clients to the server."""
    with (
        TestClient(app, base_url=OWN, client=("10.0.0.1", 1)) as first,
        TestClient(app, base_url=OWN, client=("10.0.0.2", 1)) as second,
    ):
        yield first, second


def test_a_game_is_played_only_by_the_address_that_started_it() -> None:
    app = create_app(None, warm=False)
    with two_clients(app) as (owner, other):
        game = owner.post("/api/play/new", json=BOARD).json()["game"]
        assert len(game) >= 22  # 128 random bits, not 64
        one_line_error(other.post("/api/play/shoot", json={"game": game, "row": 0, "col": 0}), 404, "no game")
        one_line_error(other.post("/api/play/heat", json={"game": game}), 404, "no game")
        assert owner.post("/api/play/shoot", json={"game": game, "row": 0, "col": 0}).status_code == 200


def test_one_client_starting_many_games_pushes_out_only_its_own() -> None:
    from battlelog.web.games import GAMES_PER_CLIENT, MAX_GAMES

    app = create_app(None, warm=False)
    with two_clients(app) as (victim, flood):
        kept = victim.post("/api/play/new", json=BOARD).json()["game"]
        games = [flood.post("/api/play/new", json=BOARD).json()["game"] for _ in range(MAX_GAMES + 8)]
        assert victim.post("/api/play/shoot", json={"game": kept, "row": 0, "col": 0}).status_code == 200
        assert len(app.state.games) == 1 + GAMES_PER_CLIENT
        for old in games[:-GAMES_PER_CLIENT]:
            one_line_error(flood.post("/api/play/heat", json={"game": old}), 404, "no game")  # its own oldest went
        assert flood.post("/api/play/heat", json={"game": games[-1]}).status_code == 200


def test_a_full_server_refuses_new_games_until_one_is_idle() -> None:
    now = [0.0]
    closed: list[str] = []

    class Game:
        def __init__(self, name: str) -> None:
            self.name = name

        def close(self) -> None:
            closed.append(self.name)

    games: Games[Game] = Games(limit=3, per_client=2, idle=60.0, clock=lambda: now[0])
    match = Game

    a1, b1, c1 = games.add("a", match("a1")), games.add("b", match("b1")), games.add("c", match("c1"))
    now[0] = 30.0
    games.get("a", a1)  # a plays: a1 is now the most recently played
    with pytest.raises(Exception, match="try again in 30 s") as refused:
        games.add("d", match("d1"))
    assert getattr(refused.value, "status", None) == 503 and getattr(refused.value, "retry_after", None) == 30
    assert closed == [] and len(games) == 3
    now[0] = 61.0  # b1 and c1 have been idle a minute; a1 only 31 s
    d1 = games.add("d", match("d1"))
    assert closed == ["b1"]
    a2 = games.add("a", match("a2"))  # a's second, within its quota: c1, idle past the limit, gives way
    assert closed == ["b1", "c1"]
    a3 = games.add("a", match("a3"))  # a's third: its own least recently played (a1) goes
    assert closed == ["b1", "c1", "a1"] and len(games) == 3
    assert games.get("a", a2) and games.get("a", a3) and games.get("d", d1)
    for owner, game in (("b", b1), ("c", c1), ("a", a1), ("a", d1)):
        with pytest.raises(Exception, match="no game"):
            games.get(owner, game)


def test_a_full_server_answers_503_with_retry_after_over_http() -> None:
    from battlelog.web.games import IDLE

    app = create_app(None, warm=False)
    app.state.games = Games(limit=2)
    clients = [TestClient(app, base_url=OWN, client=(f"10.0.0.{k}", 1)) for k in (1, 2, 3)]
    with clients[0] as first, clients[1] as second, clients[2] as third:
        assert first.post("/api/play/new", json=BOARD).status_code == 200
        assert second.post("/api/play/new", json=BOARD).status_code == 200
        refused = third.post("/api/play/new", json=BOARD)
        one_line_error(refused, 503, "try again in")
        assert 1 <= int(refused.headers["retry-after"]) <= IDLE


# ----- the engine's queue ------------------------------------------------------------------------------
def test_engine_calls_past_the_queue_are_refused_at_once_with_retry_after() -> None:
    service = EngineService(workers=1, queue=2)
    release = threading.Event()
    app = create_app(None, service=service, warm=False)
    with TestClient(app, base_url=OWN) as client:
        game = client.post("/api/play/new", json=BOARD).json()["game"]

        async def hold(owner: str) -> None:
            await service.run(release.wait, owner)

        portal = client.portal
        # the queue is full: one running, one waiting, of two other clients (each may take half)
        held = [portal.start_task_soon(hold, owner) for owner in ("10.0.0.8", "10.0.0.9")]
        for _ in range(1000):  # 10 s at most, on a loaded machine
            if service.queue.taken == 2:
                break
            threading.Event().wait(0.01)
        assert service.queue.taken == 2
        try:
            for path, body in (
                ("/api/marginals", STATE),
                ("/api/play/shoot", {"game": game, "row": 0, "col": 0}),
                ("/api/play/heat", {"game": game}),
            ):
                refused = client.post(path, json=body)
                one_line_error(refused, 503, "busy")
                assert int(refused.headers["retry-after"]) >= 1
        finally:
            release.set()
            for future in held:
                future.result(timeout=10)
        assert service.queue.taken == 0
        assert client.post("/api/marginals", json=STATE).status_code == 200  # and it serves again
        assert client.post("/api/play/shoot", json={"game": game, "row": 0, "col": 0}).status_code == 200


def test_the_queue_counts_what_runs_and_waits_and_frees_it_on_failure() -> None:
    queue = WorkQueue(limit=1)
    with pytest.raises(RuntimeError), queue.slot("10.0.0.1"):
        assert queue.taken == 1
        with pytest.raises(Exception, match="busy") as refused, queue.slot("10.0.0.2"):
            pass
        assert getattr(refused.value, "status", None) == 503
        raise RuntimeError("the call failed")
    assert queue.taken == 0
    with queue.slot("10.0.0.1"):
        pass


def test_one_client_may_take_only_half_of_the_queue() -> None:
    queue = WorkQueue(limit=4)
    with queue.slot("10.0.0.1"), queue.slot("10.0.0.1"):
        with pytest.raises(Exception, match="10.0.0.1's engine calls"), queue.slot("10.0.0.1"):
            pass
        with queue.slot("10.0.0.2"), queue.slot("10.0.0.3"):  # two other clients
            assert queue.taken == 4
            with pytest.raises(Exception, match="4 engine calls"), queue.slot("10.0.0.4"):  # a new client
                pass
    assert queue.taken == 0
    with queue.slot("10.0.0.1"), queue.slot("10.0.0.1"):  # its share is free again
        pass


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/api/options?x=1", "takes no query parameters"),
        ("/api/progress?job=a&job=b", "appears twice"),
        ("/api/progress?job=a&jobs=b", "unknown query parameter 'jobs'"),
        ("/api/results/experiment?path=a&game=0", "unknown query parameter 'game'"),
    ],
)
def test_query_parameters_are_read_as_strictly_as_keys(client: TestClient, path: str, words: str) -> None:
    one_line_error(client.get(path), 400, words)


def test_a_json_endpoint_takes_no_query_parameters(client: TestClient) -> None:
    one_line_error(client.post("/api/marginals?size=5", json=STATE), 400, "takes no query parameters")


def test_a_client_watches_and_cancels_only_its_own_jobs() -> None:
    from battlelog.web.jobs import Job

    app = create_app(None, warm=False)
    with two_clients(app) as (owner, other):
        job = app.state.jobs._jobs["10.0.0.1", "page-1"] = Job("10x10 5,4,3,3,2", 0.5)  # as a request in progress holds it
        try:
            assert other.get("/api/progress", params={"job": "page-1"}).json()["running"] is False
            assert other.post("/api/cancel", json={"job": "page-1"}).json() == {"cancelled": False}
            assert not job.cancelled
            assert owner.get("/api/progress", params={"job": "page-1"}).json() == {
                "running": True,
                "what": "10x10 5,4,3,3,2",
                "fraction": 0.5,
            }
            assert owner.post("/api/cancel", json={"job": "page-1"}).json() == {"cancelled": True} and job.cancelled
        finally:
            del app.state.jobs._jobs["10.0.0.1", "page-1"]
