"""Advice on a real game: ``POST /api/marginals`` takes a game state (the file format) and answers the
exact heat map (``battlelog marginals --json``) plus the suggested shot.

The page keeps the game in the browser and sends the whole state on every answer, so undo, save and
load need no server state; an answer that contradicts the earlier ones is refused (409) with the
reason :func:`battlelog.engines.solve.solve` gives, naming the shot at fault.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from battlelog.engines.solve import solve
from battlelog.errors import StateError
from battlelog.players import PLAYERS
from battlelog.rules.state import GameState
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES
from battlelog.views.display import most_likely
from battlelog.web.requests import WebError, game_state, read_body
from battlelog.web.service import MAX_CELLS, MAX_SHIPS, EngineService, check_budget


def advice(state: GameState, service: EngineService) -> dict[str, Any]:
    """The marginals JSON of ``state`` plus ``suggest``: the exact player's shot (None once the game is over).

    Runs on a worker thread. Ties go to the first cell in reading order, as ``battlelog advise`` says.
    """
    try:
        marginals = solve(state, service.engine())
    except StateError as exc:
        raise WebError(str(exc), 409) from None
    out = marginals.to_json()
    best = most_likely(state, marginals.cells)
    out["suggest"] = {"row": best[0][0], "col": best[0][1]} if best else None
    return out


async def marginals_endpoint(request: Request) -> Response:
    service: EngineService = request.app.state.service
    state = game_state(await read_body(request))
    check_budget(state.config, service.engine_name)

    key = json.dumps([service.engine_name, state.to_json()], separators=(",", ":"))
    with request.app.state.jobs.of(request) as job:

        async def compute() -> bytes:
            answer = await service.run(lambda: advice(state, service), job)
            return json.dumps(answer, separators=(",", ":")).encode()

        return Response(await service.cached(key, compute), media_type="application/json")


async def options_endpoint(request: Request) -> JSONResponse:
    """What the page offers: rule variants, players, the server's limits, whether results are served."""
    return JSONResponse(
        {
            "touch": list(TOUCH_RULES),
            "sinks": list(SINK_RULES),
            "players": sorted(PLAYERS),
            "max_cells": MAX_CELLS,
            "max_ships": MAX_SHIPS,
            "results": request.app.state.results is not None,
        }
    )


ROUTES = [
    Route("/api/marginals", marginals_endpoint, methods=["POST"]),
    Route("/api/options", options_endpoint, methods=["GET"]),
]
