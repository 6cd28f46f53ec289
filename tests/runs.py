"""Running the command line as a user would: in-process with its one-line errors, and interrupted in a
subprocess (shared by the local and the cluster tests)."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from battlelog.cli import main
from battlelog.runner.records import GAMES, load_results


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    """Run the command line in-process and check it fails with exactly one line naming ``message``."""
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("battlelog: error: ") and message in err, err


def experiment_in(tmp_path_factory: pytest.TempPathFactory, name: str, *options: str) -> Path:
    """A small experiment played once through the command line (one worker) into a fresh folder; its
    output folder. ``options``: everything but ``experiment``, ``--out`` and ``--workers``."""
    out = tmp_path_factory.mktemp(name) / "results"
    assert main(["experiment", *options, "--out", str(out), "--workers", "1"]) == 0
    return out


def journal_lines(path: Path) -> int:
    """Complete lines in a games.jsonl (0 before it exists)."""
    return path.read_bytes().count(b"\n") if path.exists() else 0


def run_until(argv: list[str], env: dict[str, str], games: Path, lines: int, sig: int) -> tuple[int, str]:
    """Start the command, send ``sig`` once ``games`` has ``lines`` lines; exit status and stderr."""
    # A shell without job control starts background jobs with SIGINT ignored, and a child inherits
    # that: give the command Python's own Ctrl-C handling, as a terminal would, however pytest started.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 90
    while journal_lines(games) < lines and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert process.poll() is None, "the run ended before it could be interrupted"
    process.send_signal(sig)
    _, stderr = process.communicate(timeout=90)
    return process.returncode, stderr


def check_interrupted_runs_resume(argv: list[str], env: dict[str, str], out: Path, total: int) -> None:
    """Ctrl-C one run of ``argv``, SIGKILL the next, let a third finish: all ``total`` games, each once, none lost."""
    games = out / GAMES
    status, stderr = run_until(argv, env, games, 5, signal.SIGINT)  # Ctrl-C
    assert status == 130, f"exit status {status}, stderr: {stderr!r}"
    assert "Traceback" not in stderr and stderr.strip().splitlines()[-1].endswith("run the same command again to resume"), stderr
    interrupted = games.read_bytes()
    assert interrupted.endswith(b"\n") and 5 <= interrupted.count(b"\n") < total

    status, _ = run_until(argv, env, games, interrupted.count(b"\n") + 5, signal.SIGKILL)
    assert status == -signal.SIGKILL
    killed = games.read_bytes()
    assert killed.startswith(interrupted)
    kept = killed[: killed.rfind(b"\n") + 1]

    finished = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=180)
    assert finished.returncode == 0, finished.stderr
    assert games.read_bytes().startswith(kept)
    match = re.search(r"played (\d+) games", finished.stdout)
    assert match is not None and int(match[1]) == total - kept.count(b"\n")
    records = load_results(out)[1]  # also checks that no (player, game) appears twice
    assert len(records) == total and all(r["status"] == "ok" for r in records)
