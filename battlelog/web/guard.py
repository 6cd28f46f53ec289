"""Who may drive the server: requests for this server's own names, from its own page.

Any page a user visits can send requests to ``http://127.0.0.1:8000`` (a form, an image, a
``fetch`` in ``no-cors`` mode), and a page whose name is rebound to 127.0.0.1 (DNS rebinding) can even
read the answers, its requests then carrying its own name in ``Host``. :class:`Guard` refuses (in one
JSON line) before any route runs:

- a request without one ``Host`` that parses (400, as HTTP says: none, two, or a malformed one);
- a ``Host`` that is not a name of this server at its port (403): 127.0.0.1, localhost, [::1], the names
  it was started with (``serve --host``), or the address the connection reached (so a server bound to
  0.0.0.0 answers its IP addresses, never a name it was not given);
- two ``Origin`` headers, or an ``Origin`` other than the server's own (``http://`` + the request's
  ``Host``): a cross-site write, or a cross-site read that CORS would hide anyway (403);
- an API request a browser marks as sent by another site (``Sec-Fetch-Site: cross-site`` or
  ``same-site``): a cross-site image or link to ``/api/...`` never starts an engine call (403).

JSON endpoints also refuse a body not declared ``application/json`` (415,
:func:`battlelog.web.requests.check_json_type`): the content types another site may send without asking.
"""

from __future__ import annotations

import json
from collections.abc import Collection

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


def host_refusal(host: str | None, names: Collection[str], local: tuple[str, int] | None) -> tuple[int, str] | None:
    """Why ``host`` (the request's Host header) is not this server's, with the status, or None when it is:
    400 when it is missing or malformed (HTTP's rule), 403 unless its name is one of ``names`` or the
    connection's local address, and its port the one the connection reached (absent only for port 80)."""
    if host is None:
        return 400, "a request must name its Host"
    parsed = split_host(host)
    if parsed is None:
        return 400, f"Host {host[:80]!r} is malformed"
    name, port = parsed
    local_name, local_port = (None, None) if local is None else (host_name(str(local[0])), int(local[1]))
    if name not in names and name != local_name:
        shown = ", ".join(sorted(names))
        return 403, f"Host {host[:80]!r} is not a name of this server (it answers to {shown}): a DNS rebinding?"
    if local_port is not None and (port if port is not None else 80) != local_port:
        return 403, f"Host {host[:80]!r} names another port than this server's {local_port}"
    return None


def origin_refusal(origin: str | None, site: str | None, own: str, api: bool) -> str | None:
    """Why a request that a browser marks as another site's is refused, or None: its ``origin`` must be
    the server's ``own`` (``http://`` and the request's Host), and an API request must not be marked
    cross-site by ``Sec-Fetch-Site``."""
    if origin is not None and origin.lower() != own.lower():
        return f"Origin {origin[:80]!r} is not this server's own: requests from other sites are refused"
    if api and site is not None and site.lower() not in OWN_SITE:
        return f"an API request from another site (Sec-Fetch-Site: {site[:40]}) is refused"
    return None


def refusal(scope: Scope, names: Collection[str]) -> tuple[int, str] | None:
    """Why the request of ``scope`` is refused, with the status, or None. Its headers are read in one
    pass, and a Host or Origin given twice is refused (which of two would the check have read?)."""
    hosts: list[str] = []
    origins: list[str] = []
    site = None
    for field, value in scope["headers"]:
        if field == b"host":
            hosts.append(value.decode("latin-1"))
        elif field == b"origin":
            origins.append(value.decode("latin-1"))
        elif field == b"sec-fetch-site":
            site = value.decode("latin-1")
    if len(hosts) > 1:
        return 400, f"a request must name its Host once, not {len(hosts)} times"
    if len(origins) > 1:
        return 403, f"a request with {len(origins)} Origin headers is refused"
    host = hosts[0] if hosts else None
    local = scope.get("server")
    refused = host_refusal(host, names, None if local is None else (local[0], local[1]))
    if refused is not None:
        return refused
    origin = origins[0] if origins else None
    reason = origin_refusal(origin, site, f"{scope.get('scheme', 'http')}://{host}", scope["path"].startswith("/api/"))
    return None if reason is None else (403, reason)


class Guard:
    """A plain ASGI middleware that refuses a request for another host (403; 400 with no Host, or a
    malformed or repeated one) or from another site (403), in one JSON line."""

    def __init__(self, app: ASGIApp, hosts: Collection[str] = ()) -> None:
        self.app = app
        self.names = frozenset(LOOPBACK) | {host_name(h) for h in hosts if h not in ("0.0.0.0", "::", "")}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = refusal(scope, self.names) if scope["type"] == "http" else None
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, reason = refused
        body = json.dumps({"error": reason}).encode()
        fields = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": fields})
        await send({"type": "http.response.body", "body": body})
