"""Who may drive the server: requests for this server's own names, from its own page.

Any page a user visits can send requests to ``http://127.0.0.1:8000`` (a form, an image, a
``fetch`` in ``no-cors`` mode), and a page whose name is rebound to 127.0.0.1 (DNS rebinding) can even
read the answers, its requests then carrying its own name in ``Host``. :class:`Guard` refuses (403,
one JSON line) before any route runs:

- a ``Host`` that is not a name of this server at its port: 127.0.0.1, localhost, [::1], the names
  it was started with (``serve --host``), or the address the connection reached (so a server bound to
  0.0.0.0 answers its IP addresses, never a name it was not given);
- an ``Origin`` other than the server's own (``http://`` + the request's ``Host``): a cross-site write,
  or a cross-site read that CORS would hide anyway;
- an API request a browser marks as sent by another site (``Sec-Fetch-Site: cross-site`` or
  ``same-site``): a cross-site image or link to ``/api/...`` never starts an engine call.

JSON endpoints also refuse a body not declared ``application/json`` (415,
:func:`battlelog.web.requests.check_json_type`): the content types another site may send without asking.
"""

from __future__ import annotations

import json
from collections.abc import Collection

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

#: The names every server answers to: this machine's loopback addresses.
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
#: What a browser says of a request that this server's own page (or the user's address bar) sent.
OWN_SITE = ("same-origin", "none")


def host_name(name: str) -> str:
    """``name`` as it appears in a Host header: lower case, an IPv6 address in brackets."""
    name = name.lower()
    return f"[{name}]" if ":" in name and not name.startswith("[") else name


def split_host(host: str) -> tuple[str, int | None] | None:
    """A Host header's name and port (None when it names no port); None when it is malformed."""
    if host.startswith("["):
        name, bracket, rest = host.partition("]")
        name += bracket
    else:
        name, colon, port = host.partition(":")
        rest = colon + port
    digits = rest[1:]
    if not name or (rest and not (rest.startswith(":") and digits.isascii() and digits.isdigit() and len(digits) <= 5)):
        return None
    return host_name(name), int(digits) if rest else None


def host_refusal(host: str | None, names: Collection[str], local: tuple[str, int] | None) -> str | None:
    """Why ``host`` (the request's Host header) is not this server's, or None when it is: its name must
    be one of ``names`` or the connection's local address, and its port the one the connection reached
    (absent only for port 80)."""
    if host is None:
        return "a request must name its Host"
    parsed = split_host(host)
    if parsed is None:
        return f"Host {host[:80]!r} is malformed"
    name, port = parsed
    local_name, local_port = (None, None) if local is None else (host_name(str(local[0])), int(local[1]))
    if name not in names and name != local_name:
        return f"Host {host[:80]!r} is not a name of this server (it answers to {', '.join(sorted(names))}): a DNS rebinding?"
    if local_port is not None and (port if port is not None else 80) != local_port:
        return f"Host {host[:80]!r} names another port than this server's {local_port}"
    return None


def origin_refusal(headers: Headers, scheme: str, api: bool) -> str | None:
    """Why a request that a browser marks as another site's is refused, or None: its ``Origin`` must be
    the server's own, and an API request must not be marked cross-site by ``Sec-Fetch-Site``."""
    origin = headers.get("origin")
    if origin is not None and origin.lower() != f"{scheme}://{headers.get('host', '')}".lower():
        return f"Origin {origin[:80]!r} is not this server's own: requests from other sites are refused"
    site = headers.get("sec-fetch-site")
    if api and site is not None and site.lower() not in OWN_SITE:
        return f"an API request from another site (Sec-Fetch-Site: {site[:40]}) is refused"
    return None


class Guard:
    """A plain ASGI middleware that answers 403 to a request for another host or from another site."""

    def __init__(self, app: ASGIApp, hosts: Collection[str] = ()) -> None:
        self.app = app
        self.names = frozenset(LOOPBACK) | {host_name(h) for h in hosts if h not in ("0.0.0.0", "::", "")}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        local = scope.get("server")
        reason = host_refusal(headers.get("host"), self.names, None if local is None else (local[0], local[1]))
        if reason is None:
            reason = origin_refusal(headers, scope.get("scheme", "http"), scope["path"].startswith("/api/"))
        if reason is None:
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": reason}).encode()
        fields = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 403, "headers": fields})
        await send({"type": "http.response.body", "body": body})
