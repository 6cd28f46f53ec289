"""Connections that cannot be held (issue 37), over real sockets to a server on 127.0.0.1 with short
deadlines: a request that never finishes its headers, or a body that stops after 10 of its 1000
bytes, is answered 408 and closed once its deadline passes (not when it stops sending: a trickle does
not keep it open), and connections past the caps are answered 503 at once; a client that goes away
mid-body leaves no traceback in `battlelog serve`'s log; the writes of one turn of the event loop leave
in one piece, in order. Every wait here is bounded."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from battlelog.web.connections import Coalescing, Limits

from web_cases import LiveServer

LIMITS = Limits(headers=0.6, body=0.6, header_bytes=4096, connections=12, per_client=6, keep_alive=5)
#: How long a test waits for the server's answer at most (seconds).
PATIENCE = 10.0
STATE = json.dumps({"size": 5, "ships": [3, 2], "shots": []}).encode()


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(None, limits=LIMITS, warm=False)
    try:
        yield live
    finally:
        live.stop()


def connect(server: LiveServer, source: str = "127.0.0.1") -> socket.socket:
    """A connection from ``source`` (any address of 127.0.0.0/8 is this machine's on Linux)."""
    sock = socket.socket()
    sock.settimeout(PATIENCE)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", server.port))
    return sock


def answer(sock: socket.socket) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and when it closed (monotonic)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data, time.monotonic()


def cut_at_deadline(sock: socket.socket, start: float) -> bytes:
    """What the server sends on ``sock`` until it closes it: a 408, closed once the 0.6 s deadline counted from
    ``start`` has passed (and well within PATIENCE)."""
    data, closed = answer(sock)
    assert data.startswith(b"HTTP/1.1 408 "), data
    assert 0.5 <= closed - start <= 0.5 + PATIENCE / 2
    return data


def request(server: LiveServer, body: bytes = STATE, path: str = "/api/marginals") -> bytes:
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
    )
    return head.encode() + b"Connection: close\r\n\r\n" + body


def test_headers_that_never_end_are_cut_at_the_deadline(server: LiveServer) -> None:
    with connect(server) as sock:
        start = time.monotonic()
        sock.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        data = cut_at_deadline(sock, start)
    assert b"did not arrive within 0.6 s" in data, data


def test_a_connection_that_sends_nothing_is_cut_too(server: LiveServer) -> None:
    with connect(server) as sock:
        cut_at_deadline(sock, time.monotonic())


def test_a_trickle_of_header_bytes_does_not_reset_the_deadline(server: LiveServer) -> None:
    with connect(server) as sock:
        start = time.monotonic()
        for byte in b"GET /api/options HTTP/1.1\r\nX-Slow: " + b"a" * 40:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break  # cut meanwhile
            time.sleep(0.05)  # 40 bytes in 2 s: far past the 0.6 s deadline
            if time.monotonic() - start > 3:
                break
        data, closed = answer(sock)
    assert data.startswith(b"HTTP/1.1 408 "), data
    assert closed - start <= 3 + PATIENCE / 2


def test_a_body_that_stops_after_10_of_1000_bytes_is_cut(server: LiveServer) -> None:
    with connect(server) as sock:
        sock.sendall(request(server, b"x" * 1000)[:-990])
        data = cut_at_deadline(sock, time.monotonic())
    assert b"body did not arrive" in data, data


def test_the_next_request_on_a_kept_connection_has_its_own_deadline(server: LiveServer) -> None:
    with connect(server) as sock:
        whole = request(server, path="/api/cancel", body=b'{"job": "a"}').replace(b"Connection: close\r\n", b"")
        sock.sendall(whole)
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 "), first
        sock.sendall(whole[:30])  # the second request stalls
        cut_at_deadline(sock, time.monotonic())


def test_the_time_the_server_takes_to_answer_is_not_the_clients(server: LiveServer) -> None:
    # The first advice starts the engine's worker process (seconds, far past the 0.6 s deadlines).
    with connect(server) as sock:
        start = time.monotonic()
        sock.sendall(request(server))
        data, _ = answer(sock)
    assert data.startswith(b"HTTP/1.1 200 ") and b'"models"' in data, data[:300]
    assert time.monotonic() - start < 60


def test_headers_past_their_byte_limit_are_refused(server: LiveServer) -> None:
    with connect(server) as sock:
        sock.sendall(b"GET /api/options HTTP/1.1\r\n" + b"X-Big: " + b"a" * 5000 + b"\r\n")
        data, _ = answer(sock)
    assert data.startswith(b"HTTP/1.1 431 "), data


def test_a_query_string_past_the_head_limit_is_431_not_a_parse_error() -> None:
    live = LiveServer(None, warm=False)  # the default 64 kB head: the parser fails on a longer URL first
    try:
        with connect(live) as sock:
            sock.sendall(f"GET /api/options?{'a=1&' * 17_000} HTTP/1.1\r\nHost: 127.0.0.1:{live.port}\r\n\r\n".encode())
            data, _ = answer(sock)
    finally:
        live.stop()
    assert data.startswith(b"HTTP/1.1 431 ") and b"larger than 65,536 bytes" in data, data


def test_connections_past_the_caps_are_answered_503_at_once_and_the_held_ones_cut() -> None:
    limits = Limits(headers=3.0, body=3.0, connections=LIMITS.connections, per_client=LIMITS.per_client)  # time to open them all
    live = LiveServer(None, limits=limits, warm=False)
    held: list[socket.socket] = []
    try:
        start = time.monotonic()
        held = [connect(live) for _ in range(LIMITS.per_client)]  # one client's share, every one stalled
        with connect(live) as extra:  # one more from that client: refused at once
            data, _ = answer(extra)
        assert (
            data.startswith(b"HTTP/1.1 503 ") and b"retry-after: 1" in data.lower() and b"connections from 127.0.0.1" in data
        ), data
        held += [
            connect(live, f"127.0.0.{2 + k}") for k in range(LIMITS.connections - LIMITS.per_client)
        ]  # other clients fill the server
        with connect(live, "127.0.0.100") as extra:  # a new client, past the server's cap
            data, _ = answer(extra)
        assert data.startswith(b"HTTP/1.1 503 ") and b"connections open" in data, data
        assert time.monotonic() - start < limits.headers, "the refusals were not at once"
        for sock in held:  # every held connection is cut at its deadline
            data, _ = answer(sock)
            assert data.startswith(b"HTTP/1.1 408 "), data
        assert time.monotonic() - start < limits.headers + PATIENCE
        with connect(live) as sock:  # and the server serves again
            sock.sendall(request(live, path="/api/cancel", body=b'{"job": "a"}'))
            data, _ = answer(sock)
        assert data.startswith(b"HTTP/1.1 200 "), data
    finally:
        for sock in held:
            sock.close()
        live.stop()


def test_a_client_gone_mid_body_leaves_no_traceback_in_the_log() -> None:
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    argv = [sys.executable, "-m", "battlelog.cli", "serve", "--port", "0", "--workers", "1", "--book", "0"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("battlelog: serving on http://127.0.0.1:"), line
        port = int(line.split()[3].rstrip("/").rsplit(":", 1)[1])
        head = (
            f"POST /api/marginals HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            "Content-Length: 1000\r\n\r\n"
        )
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE) as sock:
                sock.sendall(head.encode() + b'{"size": 5')  # then goes away
            time.sleep(0.3)
        with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE) as sock:  # it still serves
            sock.sendall(f"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        assert data.startswith(b"HTTP/1.1 200 "), data[:200]
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert "Traceback" not in err and "ClientDisconnect" not in err, err
    assert len(err.strip().splitlines()) <= 3, err  # at most one line per disconnect


def test_a_client_is_its_address_whatever_x_forwarded_for_says(server: LiveServer) -> None:
    board = json.dumps({"board": {"size": 5, "ships": [3, 2]}, "player": "random", "seed": 1}).encode()
    with connect(server) as sock:
        sock.sendall(
            request(server, board, "/api/play/new").replace(
                b"Connection: close", b"X-Forwarded-For: 10.9.9.9\r\nConnection: close"
            )
        )
        data, _ = answer(sock)
    assert data.startswith(b"HTTP/1.1 200 "), data
    game = json.loads(data.split(b"\r\n\r\n", 1)[1])["game"]
    with connect(server) as sock:  # the same address without the header: the same client, its game
        sock.sendall(request(server, json.dumps({"game": game}).encode(), "/api/play/heat"))
        data, _ = answer(sock)
    assert data.startswith(b"HTTP/1.1 200 "), data


def test_a_request_answered_early_whose_body_stalls_is_closed_without_a_second_answer(server: LiveServer) -> None:
    head = (
        f"POST /api/marginals HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
        "Content-Length: 300000\r\n\r\n"
    )
    with connect(server) as sock:
        sock.sendall(head.encode() + b"{" + b" " * 9)  # refused at once for its declared length, then stalls
        start = time.monotonic()
        data, closed = answer(sock)
    assert data.startswith(b"HTTP/1.1 413 ") and data.count(b"HTTP/1.1 ") == 1, data
    assert closed - start <= 0.5 + PATIENCE / 2


def test_an_upgrade_is_served_as_plain_http_and_a_request_http_cannot_parse_is_one_json_line(server: LiveServer) -> None:
    records: list[logging.LogRecord] = []

    class Kept(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Kept()
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(handler)
    try:
        with connect(server) as sock:
            sock.sendall(
                f"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
            )
            upgraded = sock.recv(65536)
        for garbage in (b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + bytes(50), b"BREW / HTTP/1.1\r\n\r\n"):
            with connect(server) as sock:
                sock.sendall(garbage)
                data, _ = answer(sock)
            head, _, body = data.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 400 ") and b"application/json" in head, data
            assert list(json.loads(body)) == ["error"] and b"\n" not in body and b"Invalid HTTP request" in body, data
    finally:
        logger.removeHandler(handler)
    assert upgraded.startswith(b"HTTP/1.1 200 ") and b'"players"' in upgraded, upgraded[:300]
    assert [r.getMessage() for r in records] == ["Invalid HTTP request received."] * 2  # one line each, none for the upgrade


class Recorded(asyncio.Transport):
    """A transport that records what is done to it, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.done: list[object] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.done.append(bytes(data))

    def close(self) -> None:
        self.done.append("close")

    def abort(self) -> None:
        self.done.append("abort")

    def get_write_buffer_size(self) -> int:
        return 0


def test_the_writes_of_one_turn_of_the_loop_leave_together_in_order() -> None:
    async def turns() -> list[object]:
        real = Recorded()
        coalescing = Coalescing(real, asyncio.get_running_loop())
        coalescing.write(b"HTTP/1.1 200 OK\r\n\r\n")
        coalescing.write(bytearray(b"{}"))
        coalescing.writelines([b"a", memoryview(b"b")])
        assert real.done == [] and coalescing.get_write_buffer_size() == 23  # held until the turn ends
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        coalescing.write(b"next")
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        coalescing.write(b"last")
        coalescing.close()  # what is held leaves first
        coalescing.write(b"dropped")
        coalescing.abort()
        return real.done

    assert asyncio.run(turns()) == [b"HTTP/1.1 200 OK\r\n\r\n{}ab", b"next", b"last", "close", "abort"]
