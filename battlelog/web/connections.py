"""Connections that cannot be held: deadlines on a request's arrival and caps on open connections.

uvicorn closes an idle keep-alive connection after a few seconds, but waits forever for a request
that never finishes its headers, or for a body that stops after 10 of its 1000 bytes: a few hundred
such connections hold the server's file descriptors. :class:`GuardedProtocol` (uvicorn's httptools
protocol, with the deadlines of :class:`Limits`) gives every request

- ``headers`` seconds from its first byte (or from the connection's opening) to its last header, and at
  most ``header_bytes`` bytes of them (431 beyond);
- ``body`` seconds from its last header to its body's last byte, whether or not the app reads it;

and answers 408 (``Connection: close``) and closes when one runs out: the app's read of the body sees
the client gone (:class:`battlelog.web.requests.Disconnected`), and nothing is logged. The time the
app takes to answer is not counted. A new connection beyond ``connections`` open ones, or beyond
``per_client`` from one address, is answered 503 with ``Retry-After`` and closed at once. A request
that HTTP cannot parse is answered 400 in one JSON line (uvicorn's own warning, one line, is logged);
an upgrade to a websocket is answered as plain HTTP, and logged nowhere.
:func:`server_config` is the uvicorn configuration ``battlelog serve`` runs with.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from uvicorn import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


@dataclass(frozen=True)
class Limits:
    """How long a request may take to arrive, and how many connections may be open."""

    headers: float = 10.0
    body: float = 10.0
    header_bytes: int = 64 * 1024
    connections: int = 256
    per_client: int = 64
    #: Seconds an idle keep-alive connection is kept (uvicorn's own timer).
    keep_alive: float = 5.0


def refusal(status: int, reason: str, message: str, retry_after: int | None = None) -> bytes:
    """A whole HTTP answer that closes the connection: ``{"error": message}``."""
    body = json.dumps({"error": message}).encode()
    head = [f"HTTP/1.1 {status} {reason}", "content-type: application/json", f"content-length: {len(body)}", "connection: close"]
    if retry_after is not None:
        head.append(f"retry-after: {retry_after}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


class Coalescing(asyncio.Transport):
    """A connection's transport whose writes in one turn of the event loop leave together, at its end:
    uvicorn writes an answer's head and its body apart, two trips through the kernel's TCP stack and
    two wake-ups of the client where one does (a fifth of the server's own time per request, py-spy
    found: docs/web.md, "Load"). The order of the bytes is kept; closing sends what is held first."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._held:
            self._loop.call_soon(self.flush)
        self._held.append(bytes(data))

    def writelines(self, list_of_data: Iterable[bytes | bytearray | memoryview]) -> None:
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        """Write what is held, in one piece."""
        if self._held:
            data = self._held[0] if len(self._held) == 1 else b"".join(self._held)
            self._held = []
            self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._held = []
        self._transport.abort()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def can_write_eof(self) -> bool:
        return self._transport.can_write_eof()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def is_reading(self) -> bool:
        return self._transport.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._transport.get_protocol()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(map(len, self._held))

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._transport.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._transport.set_write_buffer_limits(high, low)


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline on each request's arrival and caps on connections
    (its :attr:`limits`, set by :func:`protocol`)."""

    limits = Limits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._arriving = "headers"  # what the deadline waits for: "headers", "body" or "" (nothing)
        self._head_bytes = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(Coalescing(transport, self.loop))
        address = None if self.client is None else self.client[0]
        if len(self.connections) > self.limits.connections:
            message = f"the server has {self.limits.connections} connections open: try again shortly"
            self._refuse(503, "Service Unavailable", message, retry_after=1)
        elif sum(_address(other) == address for other in self.connections) > self.limits.per_client:
            message = f"{self.limits.per_client} connections from {address} are open: close some first"
            self._refuse(503, "Service Unavailable", message, retry_after=1)
        else:
            self._expect("headers", self.limits.headers)

    def connection_lost(self, exc: Exception | None) -> None:
        self._expect("", 0.0)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._arriving == "headers":
            self._head_bytes += len(data)
        super().data_received(data)
        if self._oversized() and not self.transport.is_closing():
            self._refuse(
                431, "Request Header Fields Too Large", f"request headers larger than {self.limits.header_bytes:,} bytes"
            )

    def _oversized(self) -> bool:
        """Whether the request's head (its line and headers) has passed its byte limit."""
        return self._arriving == "headers" and self._head_bytes > self.limits.header_bytes

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._arriving != "headers":  # the next request on a kept-alive connection: its own deadline
            self._head_bytes = 0
            self._expect("headers", self.limits.headers)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._expect("body", self.limits.body)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._expect("", 0.0)

    def _unsupported_upgrade_warning(self) -> None:
        """Log nothing: the server speaks no websocket and answers an upgrade request as plain HTTP (uvicorn
        logs two lines of advice to install a websocket library for each, which any client can repeat)."""

    def send_400_response(self, msg: str) -> None:
        """A request HTTP cannot parse: 400 in one JSON line, as every other refusal (uvicorn's is text);
        431 when its head had passed its byte limit (the parser refuses a URL of 64 kB, before
        :meth:`data_received` counts it)."""
        if self._oversized():
            self._refuse(
                431, "Request Header Fields Too Large", f"request headers larger than {self.limits.header_bytes:,} bytes"
            )
        else:
            self._refuse(400, "Bad Request", f"{msg.rstrip('.')}: not an HTTP/1.1 request this server can read")

    def _expect(self, what: str, seconds: float) -> None:
        """Wait ``seconds`` for ``what`` to arrive ("" : nothing is awaited from the client)."""
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._arriving = what
        if what:
            self._deadline = self.loop.call_later(seconds, self._expired)

    def _expired(self) -> None:
        self._deadline = None
        limit = self.limits.headers if self._arriving == "headers" else self.limits.body
        self._refuse(408, "Request Timeout", f"the request's {self._arriving} did not arrive within {limit:g} s")

    def _refuse(self, status: int, reason: str, message: str, retry_after: int | None = None) -> None:
        """Answer ``status`` unless the request awaited already has an answer (or the one before it is
        still being sent), and close: the app, if it waits for the body, sees the client gone and
        answers no one."""
        arriving = self._arriving
        self._expect("", 0.0)
        if self.transport.is_closing():
            return
        cycle = self.cycle  # while headers arrive: the previous request's, if any; then this one's
        unanswered = cycle is None or (cycle.response_complete if arriving == "headers" else not cycle.response_started)
        if unanswered:
            self.transport.write(refusal(status, reason, message, retry_after))
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()


def _address(connection: object) -> str | None:
    """The client address of an open connection (None if it has none)."""
    client = getattr(connection, "client", None)
    return None if client is None else str(client[0])


def protocol(limits: Limits) -> type[GuardedProtocol]:
    """:class:`GuardedProtocol` with ``limits``."""
    return type("GuardedProtocol", (GuardedProtocol,), {"limits": limits})


def server_config(app: Any, limits: Limits | None = None) -> Config:
    """The uvicorn configuration of ``battlelog serve``: the guarded protocol, no websockets, quiet logs
    (no access log), no ``Server`` header, and no proxy: a client is the address it connects from, whatever its
    ``X-Forwarded-For`` says (uvicorn believes that header from 127.0.0.1 by default, so any local program could pass
    for another client)."""
    limits = limits or Limits()
    return Config(
        app,
        http=protocol(limits),
        ws="none",
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=5,
        timeout_keep_alive=int(max(1, limits.keep_alive)),
        proxy_headers=False,
        access_log=False,  # a line per request costs the server, and nobody reads it
        server_header=False,  # no software and version to fingerprint
    )
