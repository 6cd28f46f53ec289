"""Questions in the browser: ``POST /api/ask`` answers exactly what ``battlelog ask STATE PROGRAM --json``
prints (or, with a ``bank``, what ``ask --bank --json --top K`` prints), ``POST /api/ask/cells`` each
cell's chance of a ship under the same state, and ``GET /api/ask/boards`` the BattleshipQA boards the
server was started with (``serve --boards DIR``) for the page's Ask panel.

The state and the programs are read and checked on the event loop (one-line 400s, the command's own
messages); the layouts are listed in a worker process, in the service's bounded queue, and each worker
keeps the last states' layouts, so the next question on a state is asked without listing them again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from battlelog.captain.belief import space_cells
from battlelog.captain.boards import read_true_board
from battlelog.captain.counts import evidence_counts, named_layouts
from battlelog.engines.workspace import Workspace
from battlelog.errors import FileFormatError
from battlelog.questions.asking import ask_json, compile_bank, ranked_json
from battlelog.questions.scoped import Space
from battlelog.questions.space import DEFAULT_BUDGET
from battlelog.questions.state import SHIP, QuestionState, state_from_json
from battlelog.questions.typecheck import compile_program
from battlelog.web.requests import check_query, client_of, json_object, read_body
from battlelog.web.service import EngineService

#: The most programs one bank request may rank.
MAX_BANK = 1000
#: The partial layouts the server lists for a state at most: a quarter of the command line's, some 2 s
#: of a worker; a state with more is refused in one line ("reveal more of the board ...").
BUDGET = DEFAULT_BUDGET // 4
#: How many states' layouts a worker process keeps (each up to some 100 MB at the budget).
KEPT = 2


@dataclass(frozen=True)
class Asked:
    """A checked request: the state, and one question or a bank of programs with how many to show."""

    state: QuestionState
    question: str | None = None
    bank: tuple[str, ...] | None = None
    top: int | None = None


def asked(data: Any) -> Asked:
    """The request body ``{"state", "question"}`` or ``{"state", "bank", "top"}``, every program compiled
    here so that a bad one is refused before any layout is listed."""
    body = json_object(data, ("state", "question", "bank", "top"), ("state",))
    state = state_from_json(body["state"], "state")
    if ("question" in body) == ("bank" in body):
        raise FileFormatError('request body: give either a "question" (a program) or a "bank" (a list of programs)')
    if "question" in body:
        if "top" in body:
            raise FileFormatError('request body: "top" goes with a "bank"')
        if not isinstance(body["question"], str):
            raise FileFormatError('request body: "question" must be a program as a string, e.g. "(size Red)"')
        compile_program(body["question"], state.names, state.rows, state.cols)
        return Asked(state, question=body["question"])
    bank, top = body["bank"], body.get("top")
    if not isinstance(bank, list) or not bank or not all(isinstance(p, str) for p in bank) or len(bank) > MAX_BANK:
        raise FileFormatError(f'request body: "bank" must be a list of 1 to {MAX_BANK:,} programs as strings')
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise FileFormatError('request body: "top" must be a whole number of at least 1')
    distinct = tuple(dict.fromkeys(bank))  # a program given twice is asked once, as in a bank file
    compile_bank(state, _numbered(bank))
    return Asked(state, bank=distinct, top=top)


def _numbered(bank: list[str]) -> list[tuple[str, str]]:
    """Each distinct program with where it first appears (``bank[1]`` is the first)."""
    first: dict[str, int] = {}
    for i, text in enumerate(bank, 1):
        first.setdefault(text, i)
    return [(f"bank[{i}]", text) for text, i in first.items()]


@lru_cache(maxsize=KEPT)
def layouts(state: QuestionState) -> Space:
    """The state's layouts, kept for the next question on it (in the worker process)."""
    return state.space(BUDGET)


def answer_text(workspace: Workspace, request: Asked) -> bytes:
    """The ask JSON as text; runs in a worker process (:mod:`battlelog.web.workers`)."""
    state, space = request.state, layouts(request.state)
    if request.question is not None:
        return json.dumps(ask_json(state, space, request.question)).encode()
    programs = compile_bank(state, _numbered(list(request.bank or ())))
    return json.dumps(ranked_json(state, space, programs, request.top)).encode()


def cells_text(workspace: Workspace, state: QuestionState) -> bytes:
    """``{"models", "cells"}``: each cell's chance of a ship (rows of columns); in a worker process."""
    cells, models = cell_chances(state)
    return json.dumps({"models": models, "cells": cells.reshape(state.rows, state.cols).tolist()}).encode()


def cell_chances(state: QuestionState) -> tuple[np.ndarray, int]:
    """Each cell's chance of a ship and the layouts that fit. A BattleshipQA captain's state (lengths in an
    unknown order, no answer yet, at most two hits) too large to list is counted by the native engine
    (:mod:`battlelog.captain.counts`), so the panel shows the heat map from the first click; any other
    state is listed."""
    codes = np.array(state.board, dtype=np.int64).ravel()
    multiset = state.fleet.multiset
    if multiset is not None and state.fleet.prior == "layouts" and not state.answers and not (codes == SHIP).any():
        counts = evidence_counts(state.rows, state.cols, sorted(multiset, reverse=True), codes)
        named = 0.0 if counts is None else named_layouts(counts, len(state.names), codes)
        if counts is not None and named > BUDGET:
            return counts.cells(), round(named)
    space = layouts(state)
    return space_cells(space), space.size


async def _in_worker(request: Request, fn: Any, argument: Any) -> Response:
    """``fn(workspace, argument)`` in a worker process, in the service's bounded queue (503 when full)."""
    service: EngineService = request.app.state.service
    with request.app.state.jobs.of(request) as job, service.queue.slot(client_of(request)):
        if job is not None:
            job.what = "question"
        answer = await service.processes.call(fn, argument, job=job)
    return Response(answer, media_type="application/json")


async def ask_endpoint(request: Request) -> Response:
    return await _in_worker(request, answer_text, asked(await read_body(request)))


async def cells_endpoint(request: Request) -> Response:
    body = json_object(await read_body(request), ("state",), ("state",))
    return await _in_worker(request, cells_text, state_from_json(body["state"], "state"))


def board_json(path: Path) -> dict[str, Any]:
    """A BattleshipQA board for the page: its name, shape, ships and their lengths (the captain knows
    these, not which ship has which), and the true board that the page reveals a cell at a time."""
    board = read_true_board(path)
    initials = {0: "W", **{i: name[0] for i, name in enumerate(board.names, 1)}}
    truth = [",".join(initials[board.codes[r * board.cols + c]] for c in range(board.cols)) for r in range(board.rows)]
    return {
        "name": path.stem, "rows": board.rows, "cols": board.cols, "ships": list(board.names),
        "lengths": sorted(board.lengths, reverse=True), "truth": truth,
    }  # fmt: skip


async def boards_endpoint(request: Request) -> JSONResponse:
    """The boards of ``serve --boards DIR`` (its ``board_*.txt`` files); none when no folder was given."""
    check_query(request)
    folder: Path | None = request.app.state.boards
    paths = [] if folder is None else sorted(folder.glob("board_*.txt"))
    return JSONResponse({"boards": [board_json(p) for p in paths]})


ROUTES = [
    Route("/api/ask", ask_endpoint, methods=["POST"]),
    Route("/api/ask/cells", cells_endpoint, methods=["POST"]),
    Route("/api/ask/boards", boards_endpoint, methods=["GET"]),
]
