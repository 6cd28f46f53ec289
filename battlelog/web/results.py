"""Experiments to look at (``serve --results DIR``): the list, each one's summary table, plots and games,
and any game replayed move by move with the exact heat map.

Every path comes from the request relative to the results folder and is checked by
:func:`battlelog.web.requests.safe_path`: nothing outside that folder is ever read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from battlelog.engines.solve import solve
from battlelog.report.duel import all_duels, distribution_table, distributions, duel_table
from battlelog.report.summary import summarize_records, summary_table
from battlelog.runner.records import MANIFEST, describe_experiment, load_results, read_manifest
from battlelog.views.replay.frames import Frame
from battlelog.views.replay.sources import load_game
from battlelog.web.play import layout_json
from battlelog.web.requests import WebError, check_query, client_of, safe_path
from battlelog.web.service import EngineService, check_budget

#: The most experiments and plots listed (a results folder may hold many).
MAX_LISTED = 500
#: Files served as they are, by suffix.
FILE_TYPES = {
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".md": "text/plain; charset=utf-8",
    ".csv": "text/plain; charset=utf-8",
}


#: The query parameters each endpoint takes.
QUERIES = {
    "/api/results/experiment": ("path",),
    "/api/results/replay": ("path", "game", "player"),
    "/api/results/file": ("path",),
}


def _root(request: Request) -> Path:
    check_query(request, QUERIES.get(request.url.path, ()))
    root: Path | None = request.app.state.results
    if root is None:
        raise WebError("this server shows no results: start it with --results DIR", 404)
    return root


def _query(request: Request, name: str) -> str:
    value = request.query_params.get(name)
    if value is None:
        raise WebError(f"missing query parameter {name!r}")
    return value


def _experiment(request: Request) -> Path:
    folder = safe_path(_root(request), _query(request, "path"))
    if not (folder / MANIFEST).is_file():
        raise WebError(f"{_query(request, 'path')!r} is not an experiment folder (no {MANIFEST})", 404)
    return folder


async def index(request: Request) -> JSONResponse:
    """Every experiment folder under the results folder, and every plot (paths relative to it)."""
    root = _root(request).resolve()
    experiments: list[dict[str, str]] = []
    plots: list[str] = []
    for path in sorted(root.rglob("*"))[: 50 * MAX_LISTED]:
        if path.is_symlink() or root not in path.resolve().parents:
            continue  # nothing that leads out of the folder is listed either
        relative = path.relative_to(root).as_posix()
        if path.name == MANIFEST and len(experiments) < MAX_LISTED:
            try:
                label = describe_experiment(read_manifest(path.parent))
            except (KeyError, ValueError):
                continue  # a damaged manifest: not an experiment to show
            experiments.append({"path": path.parent.relative_to(root).as_posix(), "label": label})
        elif path.suffix == ".png" and len(plots) < MAX_LISTED:
            plots.append(relative)
    return JSONResponse({"experiments": experiments, "plots": plots})


async def experiment(request: Request) -> JSONResponse:
    """One experiment: its summary table, each player's distribution of shots, the head-to-head table of every
    two players (Markdown tables, empty without games), the plots in its folder and its games."""
    folder = _experiment(request)
    manifest, records = load_results(folder)
    root = _root(request).resolve()
    games = [{"game": r["game"], "player": r["player"], "status": r["status"], "score": r.get("score")} for r in records]
    return JSONResponse(
        {
            "label": describe_experiment(manifest),
            "summary": summary_table(summarize_records(records)),
            "distribution": distribution_table(distributions(records)),
            "duel": duel_table(all_duels(records)),
            "plots": [p.relative_to(root).as_posix() for p in sorted(folder.glob("*.png"))],
            "games": games,
        }
    )


def frame_json(frame: Frame) -> dict[str, Any]:
    cells = [[round(float(v), 6) for v in row] for row in frame.cells]
    next_shot = None if frame.next_shot is None else {"row": frame.next_shot[0], "col": frame.next_shot[1]}
    return {"state": frame.state.to_json(), "cells": cells, "models": frame.models, "caption": frame.caption(), "next": next_shot}


async def replay(request: Request) -> JSONResponse:
    """Game ``game`` (of ``player``, when several played it) replayed: the heat map after every shot."""
    folder = _experiment(request)
    text = _query(request, "game")
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise WebError(f"game must be a whole number, got {text[:20]!r}")
    player = request.query_params.get("player")
    game = load_game(folder, int(text), player)
    check_budget(game.state.config)
    service: EngineService = request.app.state.service
    state = game.state

    def frames() -> list[dict[str, Any]]:
        out = []
        for k in range(len(state.shots) + 1):
            prefix = state.prefix(k)
            marginals = solve(prefix, service.engine())
            following = state.shots[k].cell if k < len(state.shots) else None
            out.append(frame_json(Frame(prefix, marginals.cells, marginals.models, following)))
        return out

    layout = None if game.layout is None else layout_json(game.layout)
    with request.app.state.jobs.of(request) as job:
        computed = await service.run(frames, client_of(request), job)
    return JSONResponse({"title": game.title, "player": game.player, "layout": layout, "frames": computed})


async def file(request: Request) -> Response:
    """A plot or a table of the results folder, served as it is."""
    path = safe_path(_root(request), _query(request, "path"))
    if not path.is_file() or path.suffix not in FILE_TYPES:
        raise WebError(f"only {', '.join(FILE_TYPES)} files are served", 404)
    return FileResponse(path, media_type=FILE_TYPES[path.suffix])


ROUTES = [
    Route("/api/results", index, methods=["GET"]),
    Route("/api/results/experiment", experiment, methods=["GET"]),
    Route("/api/results/replay", replay, methods=["GET"]),
    Route("/api/results/file", file, methods=["GET"]),
]
