"""The web app: the page, its static files and the JSON API, with every error a one-line JSON answer.

:func:`create_app` builds it; ``battlelog serve`` runs it under uvicorn. Errors a request can cause
(a :class:`BattlelogError`, e.g. a malformed state or a refused path) are 4xx ``{"error": "..."}``;
anything else is logged and answered 500 in one line, and the server keeps serving either way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from battlelog.errors import BattlelogError
from battlelog.rules.config import GameConfig
from battlelog.web import advise, asking, book, jobs, play, results
from battlelog.web.games import Games
from battlelog.web.guard import Guard
from battlelog.web.requests import WebError
from battlelog.web.service import EngineService

STATIC = Path(__file__).parent / "static"
#: The board whose empty heat map is computed at start, so that the first advice on it is instant.
STANDARD = GameConfig(10, (5, 4, 3, 3, 2))
#: The page may load only what this server serves: no request to any other host.
POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"

log = logging.getLogger("battlelog.web")


def _one_line(text: str) -> str:
    return " ".join(text.split())[:500] or "error"


async def battlelog_error(request: Request, exc: Exception) -> Response:
    status = exc.status if isinstance(exc, WebError) else 400
    retry = exc.retry_after if isinstance(exc, WebError) else None
    headers = None if retry is None else {"Retry-After": str(retry)}
    return JSONResponse({"error": _one_line(str(exc))}, status_code=status, headers=headers)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": _one_line(f"{exc.detail} ({request.method} {request.url.path})")}, status_code=exc.status_code)


async def server_error(request: Request, exc: Exception) -> Response:
    log.exception("%s %s failed", request.method, request.url.path)
    return JSONResponse({"error": f"internal error ({type(exc).__name__}): see the server's log"}, status_code=500)


class Policy:
    """Adds the content security policy to every answer: a plain ASGI middleware, which costs a request
    far less than Starlette's ``BaseHTTPMiddleware`` (a task and a stream per request; docs/web.md, "Load")."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_policy(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = POLICY
                headers["X-Content-Type-Options"] = "nosniff"
            await send(message)

        await self.app(scope, receive, with_policy if scope["type"] == "http" else send)


async def page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")


def create_app(
    results_dir: Path | None = None,
    service: EngineService | None = None,
    warm: bool = True,
    book_states: int = book.SIZE,
    hosts: Sequence[str] = (),
    boards: Path | None = None,
) -> Starlette:
    """The app; ``results_dir`` (or None) is the folder whose experiments it shows. ``warm``: start the
    worker processes at once, and read or compute the standard board's opening book of ``book_states``
    states in the background (:mod:`battlelog.web.book`). ``hosts``: the names it answers to besides
    the loopback ones (:mod:`battlelog.web.guard`). ``boards``: a folder of BattleshipQA board files
    for the Ask panel (:mod:`battlelog.web.asking`), or None."""
    engines = service or EngineService()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        opening = None
        if warm:
            engines.warm(STANDARD)
        if warm and book_states > 0:
            engines.book_status = {"board": STANDARD.label(), "size": book_states, "ready": False}
            opening = asyncio.get_running_loop().create_task(advise.keep_book(engines, STANDARD, book_states))
        try:
            yield
        finally:
            if opening is not None:
                opening.cancel()
            app.state.games.close()
            engines.close()

    app = Starlette(
        routes=[
            Route("/", page), *advise.ROUTES, *jobs.ROUTES, *play.ROUTES, *results.ROUTES, *asking.ROUTES,
            Mount("/static", StaticFiles(directory=STATIC)),
        ],
        middleware=[Middleware(Policy), Middleware(Guard, hosts=hosts)],
        exception_handlers={BattlelogError: battlelog_error, HTTPException: http_error, Exception: server_error},
        lifespan=lifespan,
    )
    app.state.service = engines
    app.state.results = None if results_dir is None else Path(results_dir)
    app.state.games = Games()
    app.state.jobs = jobs.Jobs()
    app.state.boards = None if boards is None else Path(boards)
    return app
