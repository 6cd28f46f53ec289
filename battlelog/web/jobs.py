"""Long engine calls that the page can watch and cancel: ``GET /api/progress`` and ``POST /api/cancel``.

A request that names a job (header ``X-Battlelog-Job: ID``, an id the page makes up) runs its engine
call listening to the engine's progress (:mod:`battlelog.engines.progress`): the fraction done is kept
for ``/api/progress?job=ID``, and once ``/api/cancel`` has marked the job, the next progress report
raises, which stops the engine's sweep and answers the request 409 "cancelled".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from battlelog.web.requests import WebError, check_query, client_of, json_object, read_body

HEADER = "x-battlelog-job"
JOB_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: How many jobs may run or wait at once.
MAX_JOBS = 1024


class Cancelled(WebError):
    def __init__(self) -> None:
        super().__init__("cancelled: the request was cancelled before its answer was ready", 409)

    def __reduce__(self) -> tuple[type[Cancelled], tuple[()]]:  # type: ignore[override]
        return Cancelled, ()


@dataclass
class Job:
    """What a running call has done so far, and whether it should stop."""

    what: str = ""
    fraction: float | None = None
    cancelled: bool = False

    def listen(self, what: str, fraction: float | None) -> None:
        """The engine's progress listener: runs on the worker thread, between steps of the sweep."""
        if self.cancelled:
            raise Cancelled
        self.what, self.fraction = what, fraction


class Jobs:
    """The jobs named by requests in progress, by client (address) and id: a client watches and cancels
    only its own calls, whatever ids another's page makes up."""

    def __init__(self) -> None:
        self._jobs: dict[tuple[str, str], Job] = {}

    @contextmanager
    def of(self, request: Request) -> Iterator[Job | None]:
        """The request's job (None when it names none) for the time of the block."""
        ident = request.headers.get(HEADER)
        if ident is None:
            yield None
            return
        if not JOB_ID.fullmatch(ident):
            raise WebError(f"{HEADER} must be 1 to 64 letters, digits, - or _")
        key = (client_of(request), ident)
        if key in self._jobs or len(self._jobs) >= MAX_JOBS:
            raise WebError(f"job {ident!r} is already running, or too many are", 409)
        job = self._jobs[key] = Job()
        try:
            yield job
        finally:
            del self._jobs[key]

    def find(self, request: Request, ident: object) -> Job | None:
        """The running job ``ident`` of ``request``'s client; None when it has not started yet or has
        ended (the page asks about its own calls, which race with their answers: that is not an error)."""
        if not isinstance(ident, str) or not JOB_ID.fullmatch(ident):
            raise WebError("job must be 1 to 64 letters, digits, - or _")
        return self._jobs.get((client_of(request), ident))


async def progress_endpoint(request: Request) -> JSONResponse:
    check_query(request, ("job",))
    job = request.app.state.jobs.find(request, request.query_params.get("job"))
    if job is None:
        return JSONResponse({"running": False, "what": "", "fraction": None})
    return JSONResponse({"running": True, "what": job.what, "fraction": job.fraction})


async def cancel_endpoint(request: Request) -> JSONResponse:
    data = json_object(await read_body(request), ("job",), ("job",))
    job = request.app.state.jobs.find(request, data["job"])
    if job is not None:
        job.cancelled = True
    return JSONResponse({"cancelled": job is not None})


ROUTES = [
    Route("/api/progress", progress_endpoint, methods=["GET"]),
    Route("/api/cancel", cancel_endpoint, methods=["POST"]),
]
