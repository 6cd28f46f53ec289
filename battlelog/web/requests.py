"""Reading requests strictly: a JSON content type, a bounded body, plain JSON (the file readers' rules),
known keys only.

Every error a request can cause is a :class:`WebError` (or a BattlelogError, which the app turns into
a 400): one line, answered as ``{"error": "..."}`` with a 4xx status, never a traceback. A client that
goes away before its body is whole is :class:`Disconnected`: nobody is left to answer, nothing is logged.
A body that arrives too slowly is cut by the connection's deadline (:mod:`battlelog.web.connections`).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from starlette.requests import ClientDisconnect, Request

from battlelog.errors import BattlelogError, FileFormatError
from battlelog.jsonfile import check_keys, parse_json
from battlelog.rules.state import GameState

#: The largest request body read: a game state of the largest board is some 40 kB.
MAX_BODY = 256 * 1024


class WebError(BattlelogError):
    """A refused request with its HTTP status (4xx, or 503 with the seconds of its ``Retry-After``)."""

    def __init__(self, message: str, status: int = 400, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        #: Seconds after which to try again (a 503's ``Retry-After``), or None.
        self.retry_after = retry_after

    def __reduce__(self) -> tuple[type[WebError], tuple[str, int, int | None]]:  # raised in a worker process: keep the status
        return type(self), (str(self), self.status, self.retry_after)


class Disconnected(WebError):
    """The client closed its connection before its request body was whole (no one reads the answer)."""

    def __init__(self) -> None:
        super().__init__("the client disconnected before its request body was whole", 400)


def check_json_type(request: Request) -> None:
    """Refuse (415) a body not declared ``application/json`` (a charset, if given, must be UTF-8): a
    cross-site form or ``text/plain`` fetch, which browsers send without asking the server first,
    never reaches a JSON endpoint. Two Content-Type headers are refused (400): which would the body be?"""
    types = request.headers.getlist("content-type")
    if len(types) > 1:
        raise WebError(f"Content-Type given {len(types)} times: send one, application/json")
    declared = types[0] if types else None
    media, _, parameters = (declared or "").partition(";")
    extras = [p.strip().lower().replace('"', "") for p in parameters.split(";") if p.strip()]
    if media.strip().lower() != "application/json" or any(p != "charset=utf-8" for p in extras):
        shown = "none" if declared is None else repr(declared[:60])
        raise WebError(f"Content-Type {shown}: send the body as application/json", 415)


def client_of(request: Request) -> str:
    """Who sent ``request``: its address (every request from this machine is one client)."""
    return request.client.host if request.client is not None else "unknown"


def check_query(request: Request, allowed: Collection[str] = ()) -> None:
    """Refuse a query parameter that is not ``allowed``, or one given twice, as a file's unknown or
    repeated key is refused."""
    seen: set[str] = set()
    for name, _ in request.query_params.multi_items():
        if name not in allowed:
            takes = f"takes only {', '.join(repr(a) for a in allowed)}" if allowed else "takes no query parameters"
            raise WebError(f"unknown query parameter {name[:40]!r}: {request.url.path} {takes}")
        if name in seen:
            raise WebError(f"query parameter {name!r} appears twice")
        seen.add(name)


async def read_body(request: Request, limit: int = MAX_BODY) -> Any:
    """The request's JSON value; a body not declared JSON is refused, and one over ``limit`` bytes
    before it is read whole (and the endpoint takes no query parameters)."""
    check_query(request)
    check_json_type(request)
    declared = request.headers.get("content-length")
    if declared is not None and not (declared.isascii() and declared.isdigit()):
        raise WebError(f"Content-Length {declared[:20]!r} is not a number of bytes")
    if declared is not None and int(declared) > limit:
        raise WebError(f"request body larger than {limit:,} bytes", 413)
    data = bytearray()
    try:
        async for chunk in request.stream():
            data += chunk
            if len(data) > limit:
                raise WebError(f"request body larger than {limit:,} bytes", 413)
    except ClientDisconnect:
        raise Disconnected from None
    if not data:
        raise WebError("empty request body: send a JSON object")
    return parse_json(bytes(data), "request body")


def json_object(data: Any, allowed: Collection[str], required: Collection[str] = ()) -> dict[str, Any]:
    """``data`` as an object of ``allowed`` keys (a near-miss is named) with every ``required`` one."""
    if not isinstance(data, dict):
        raise FileFormatError("request body: expected a JSON object")
    check_keys(data, tuple(allowed), "request body")
    missing = [key for key in required if key not in data]
    if missing:
        raise FileFormatError(f"request body: missing key {missing[0]!r}")
    return data


def game_state(data: Any, source: str = "game state") -> GameState:
    """A game state read by the file format's own reader (:meth:`GameState.from_json`)."""
    return GameState.from_json(data, source)


def safe_path(root: Path, relative: str) -> Path:
    """``root / relative``, refused unless it stays inside ``root``: no absolute path, no ``..``, no
    symlink that leads out (the resolved path is checked)."""
    if not relative or relative.startswith(("/", "\\")) or Path(relative).is_absolute() or "\x00" in relative:
        raise WebError(f"path {relative!r} must be relative to the results folder", 400)
    if any(part == ".." for part in Path(relative).parts):
        raise WebError(f"path {relative!r} may not contain '..'", 400)
    base = root.resolve()
    target = (base / relative).resolve()
    if target != base and base not in target.parents:
        raise WebError(f"path {relative!r} leads out of the results folder", 403)
    if not target.exists():
        raise WebError(f"no {relative!r} in the results folder", 404)
    return target
