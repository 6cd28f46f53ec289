"""What the web tests share: a small experiment folder to serve, and the check that an answer is one JSON error line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from battlelog.cli import main
from battlelog.web.connections import Limits
from battlelog.web.service import EngineService


def small_experiment(root: Path) -> Path:
    """A results folder holding one pdf game on 4x4 3,2 (played through the command line) and a plot."""
    results = root / "results"
    argv = ["experiment", "--size", "4", "--ships", "3,2", "--players", "pdf", "--games", "1", "--seed", "2", "--workers", "1"]
    assert main([*argv, "--out", str(results / "small")]) == 0
    from PIL import Image

    Image.new("RGB", (4, 4), "red").save(results / "small" / "plot.png")
    return results


def one_line_error(response: Any, status: int, words: str) -> None:
    """The answer is ``{"error": "..."}`` with ``status``, one line naming ``words``."""
    assert response.status_code == status, response.text
    body = response.json()
    assert list(body) == ["error"], body
    assert "\n" not in body["error"] and "Traceback" not in body["error"], body
    assert words in body["error"], body


class LiveServer:
    """The app under uvicorn on a free port of 127.0.0.1, in a thread of this process, as `battlelog serve` runs it
    (without the opening book unless ``book_states``: computing it would take the tests' cores for minutes;
    with ``limits``, other deadlines and caps on connections)."""

    def __init__(
        self, results: Path | None, book_states: int = 0, limits: Limits | None = None, warm: bool = True,
        service: EngineService | None = None, boards: Path | None = None,
    ) -> None:
        import threading

        import uvicorn

        from battlelog.commands.serve import bind
        from battlelog.web.app import create_app
        from battlelog.web.connections import server_config

        self.socket = bind("127.0.0.1", 0)
        self.port = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            server_config(create_app(results, book_states=book_states, warm=warm, service=service, boards=boards), limits)
        )
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self.thread.start()
        import time

        deadline = time.monotonic() + 30
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.server.started, "the server did not start"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.socket.close()
