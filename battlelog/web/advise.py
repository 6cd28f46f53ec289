"""Advice on a real game: ``POST /api/marginals`` takes a game state (the file format) and answers the
exact heat map (``battlelog marginals --json``) plus the suggested shot.

The page keeps the game in the browser and sends the whole state on every answer, so undo, save and
load need no server state; an answer that contradicts the earlier ones is refused (409) with the
reason :func:`battlelog.engines.solve.solve` gives, naming the shot at fault.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import nullcontext
from functools import partial
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from battlelog.engines import Engine
from battlelog.engines.solve import solve
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError, StateError
from battlelog.players import PLAYERS
from battlelog.rules.aim import volley_cells, volley_start
from battlelog.rules.answers import HIT, MISS
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES
from battlelog.views.display import most_likely
from battlelog.web import book
from battlelog.web.jobs import Job
from battlelog.web.requests import WebError, check_query, client_of, game_state, read_body
from battlelog.web.service import MAX_CELLS, MAX_SHIPS, EngineService, check_budget


def advice(state: GameState, engine: Engine) -> dict[str, Any]:
    """The marginals JSON of ``state`` plus ``suggest``: the exact player's shot (None once the game is over).

    Ties go to the first cell in reading order, as ``battlelog advise`` says. Under salvo, also
    ``volley``: ``{"volley": v, "cells": [...]}``, the cells still to fire in the volley under way (or
    the next), chosen before any of its answers as ``battlelog advise`` does; ``suggest`` is the first.
    """
    try:
        marginals = solve(state, engine)
        if state.config.rules.is_salvo and not state.over:
            start = volley_start(state)
            plan = volley_cells(state, (marginals if start == len(state.shots) else solve(state.prefix(start), engine)).cells)
        else:
            best = most_likely(state, marginals.cells)
            plan = best[:1]
    except StateError as exc:
        raise WebError(str(exc), 409) from None
    out = marginals.to_json()
    out["suggest"] = {"row": plan[0][0], "col": plan[0][1]} if plan else None
    if state.config.rules.is_salvo:
        out["volley"] = {"volley": state.next_volley()[0], "cells": [{"row": r, "col": c} for r, c in plan]} if plan else None
    return out


def advice_text(workspace: Workspace, engine: str, state: GameState) -> bytes:
    """:func:`advice` as JSON text; runs in a worker process (:mod:`battlelog.web.workers`). The state
    crosses the processes as the object the server read and checked: unpickled as it is, not checked a
    second time (its reading is a part of the server's own cost, docs/web.md "Load")."""
    answer = advice(state, workspace.engine(engine))
    return json.dumps(answer, separators=(",", ":")).encode()


async def marginals_endpoint(request: Request) -> Response:
    service: EngineService = request.app.state.service
    state = game_state(await read_body(request))
    check_budget(state.config, service.engine_name)

    with request.app.state.jobs.of(request) as job:
        answer = await service.cached(answer_key(state, service), lambda: computed(state, service, job, client_of(request)))
    suggest = json.loads(answer)["suggest"] if service.idle else None  # no worker to spare: nothing to prefetch
    if suggest is not None:  # the next answer is most likely a miss or a hit at the suggested cell
        volley = state.next_volley()[0] if state.config.rules.is_salvo else None
        for result in (MISS, HIT):
            try:
                following = state.with_shot(suggest["row"], suggest["col"], result, None, volley)
            except BattlelogError:
                continue
            service.prefetch(answer_key(following, service), partial(computed, following, service, None))
    return Response(answer, media_type="application/json")


def answer_key(state: GameState, service: EngineService) -> str:
    """What an answer is remembered by: the engine and the state (its JSON text)."""
    return json.dumps([service.engine_name, state.to_json()], separators=(",", ":"))


async def computed(
    state: GameState, service: EngineService, job: Job | None, owner: str | None = None
) -> bytes:
    """The answer's JSON text, computed in a worker process; a request's call waits in the service's
    bounded queue, counted against its client's (``owner``'s) share. The server's own calls (no
    ``owner``: the opening book's, two at a time, and the prefetches, only when a worker is idle) take
    no place in it, so that they never take a request's."""
    if job is not None:
        job.what = state.config.label()
    with nullcontext() if owner is None else service.queue.slot(owner):
        return await service.processes.call(advice_text, service.engine_name, state, job=job)


async def book_answer(state: GameState, service: EngineService) -> bytes:
    """The answer to a state of the opening book, computed unless it is known, and kept in the book; a
    state the engine refuses (a contradiction) is remembered as such, so the book is walked again
    without the engine."""
    key = answer_key(state, service)
    if key in service.book_refused:
        raise WebError("refused by the engine when the book was computed", 409)
    if key not in service.book:
        try:
            service.book[key] = await service.cached(key, lambda: computed(state, service, None))
        except WebError as exc:
            if exc.status == 409:
                service.book_refused.add(key)
            raise
    return service.book[key]


async def keep_book(service: EngineService, config: GameConfig, size: int = book.SIZE, directory: Path | None = None) -> None:
    """The opening book of ``config``: read from disk, completed in the background (saved every
    :data:`book.SAVE_EVERY` states), then marked ready in ``service.book_status``."""
    service.book_status = {"board": config.label(), "size": size, "ready": False}
    answers, refused = await asyncio.to_thread(book.load, config, service.engine_name, directory)
    service.book.update(answers)
    service.book_refused |= refused
    known = len(service.book) + len(service.book_refused)

    def saved() -> None:
        nonlocal known
        if len(service.book) + len(service.book_refused) > known:
            book.save(config, service.engine_name, service.book, service.book_refused, directory)
            known = len(service.book) + len(service.book_refused)

    await book.build(config, size, lambda state: book_answer(state, service), service.workers, saved)
    service.book_status["ready"] = True


async def options_endpoint(request: Request) -> JSONResponse:
    """What the page offers: rule variants, players, the server's limits, whether results are served,
    and the opening book's progress."""
    check_query(request)
    service: EngineService = request.app.state.service
    return JSONResponse(
        {
            "touch": list(TOUCH_RULES),
            "sinks": list(SINK_RULES),
            "players": sorted(PLAYERS),
            "max_cells": MAX_CELLS,
            "max_ships": MAX_SHIPS,
            "results": request.app.state.results is not None,
            "book": {**service.book_status, "states": len(service.book)},
            "served": service.served,
        }
    )


ROUTES = [
    Route("/api/marginals", marginals_endpoint, methods=["POST"]),
    Route("/api/options", options_endpoint, methods=["GET"]),
]
