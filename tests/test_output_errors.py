"""A full disk and a closed pipe (issue 37): one line naming what could not be written and a non-zero exit,
or, for a reader that went away (``| head``), a quiet exit with status 141, as Unix tools give.

Standard output is /dev/full or a pipe whose reading end is closed before the command starts, in a
subprocess (the interpreter's own flush at exit is part of what is checked), with Python's usual
block buffering (PYTHONUNBUFFERED unset) and unbuffered. The experiment's full file system is a real
tmpfs where mounting one is permitted, else (and always, in-process) a journal whose write gets part
of a line through and then ENOSPC, as write(2) does on a full disk.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from battlelog.cli import main
from battlelog.runner.records import GAMES

FIXTURE = str(Path(__file__).parent / "fixtures" / "midgame_5x5.json")
EMPTY_4X4 = ["--size", "4", "--ships", "3,2"]
STDOUT_COMMANDS = {
    "--help": ["--help"],
    "script": ["script", *EMPTY_4X4],
    "marginals": ["marginals", FIXTURE],
    "marginals --json": ["marginals", FIXTURE, "--json"],
    "bounds --json": ["bounds", "--size", "3", "--ships", "2", "--json"],
    "play": ["play", *EMPTY_4X4, "--seed", "1", "--player", "random"],
    "summarize": ["summarize", "{exp}"],
    "summarize --duel --json": ["summarize", "{exp}", "--duel", "--json"],
    "value --json": ["value", "--size", "3", "--ships", "2", "--json"],
    "adversary --json": ["adversary", "--size", "3", "--ships", "2", "--players", "problog", "--json"],
    "optimal --prior --json": ["optimal", "--size", "3", "--ships", "2", "--prior", "edge=1", "--json"],
    "bimaru --json": ["bimaru", "{exp}/../puzzle.json", "--json"],
    "ask --json": ["ask", str(Path(__file__).parent / "fixtures" / "questions_6x6.json"), "(size Red)", "--json"],
}
#: What a command writes on stderr by design (progress; under --json, the files written), removed before checking.
STDERR_BY_DESIGN = {
    "value --json": "iteration ",
    "summarize --duel --json": "wrote ",
    "adversary --json": "every layout played exactly by ",
}
#: A 3x3 Bimaru puzzle with one solution (a single ship in the corner), for ``bimaru``.
PUZZLE = {"size": 3, "ships": [1], "row_counts": [1, 0, 0], "col_counts": [1, 0, 0], "hints": []}


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("full") / "exp"
    assert main(
        ["experiment", "--size", "3", "--ships", "2", "--players", "random", "--games", "2", "--out", str(out), "--workers", "1"]
    ) == 0
    (out.parent / "puzzle.json").write_text(json.dumps(PUZZLE))
    return out


def run_battlelog(argv: list[str], stdout: int, buffered: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "battlelog.cli", *argv], stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, timeout=300
    )


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("command", sorted(STDOUT_COMMANDS))
def test_standard_output_on_a_full_disk_is_one_line_and_status_2(command: str, buffered: bool, experiment: Path) -> None:
    argv = [word.format(exp=experiment) for word in STDOUT_COMMANDS[command]]
    with open("/dev/full", "w") as full:
        done = run_battlelog(argv, full.fileno(), buffered)
    assert done.returncode == 2, done.stderr
    assert errors(command, done.stderr) == (
        "battlelog: error: cannot write standard output (No space left on device); what was not written is lost\n"
    )


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("command", sorted(STDOUT_COMMANDS))
def test_a_closed_pipe_stops_quietly_with_status_141(command: str, buffered: bool, experiment: Path) -> None:
    argv = [word.format(exp=experiment) for word in STDOUT_COMMANDS[command]]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line: every write is EPIPE
    try:
        done = run_battlelog(argv, write, buffered)
    finally:
        os.close(write)
    assert (done.returncode, errors(command, done.stderr)) == (141, "")


def errors(command: str, stderr: str) -> str:
    """``stderr`` less the lines that ``command`` writes there by design."""
    by_design = STDERR_BY_DESIGN.get(command)
    return "".join(line for line in stderr.splitlines(keepends=True) if by_design is None or not line.startswith(by_design))


def test_a_closed_standard_output_is_one_line_and_status_2() -> None:
    # Before: a traceback (sys.stdout is None when the interpreter starts with descriptor 1 closed).
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "battlelog.cli", "script", *EMPTY_4X4],
        stderr=subprocess.PIPE, text=True, timeout=300,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (
        2,
        "battlelog: error: standard output is closed: give it a file (> FILE, or > /dev/null)\n",
    )


@pytest.mark.parametrize(
    "words", [["advise", *EMPTY_4X4, "--state", "{folder}/game.json"], ["play", *EMPTY_4X4, "--human", "--seed", "1"]]
)
def test_a_closed_standard_input_ends_an_interactive_session_as_its_end_would(words: list[str], tmp_path: Path) -> None:
    # Before: a traceback (sys.stdin is None); now as at the end of the input: the session stops, saved.
    argv = [word.format(folder=tmp_path) for word in words]
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" <&-', "sh", sys.executable, "-m", "battlelog.cli", *argv],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    if words[0] == "play":
        assert "ships were here" in done.stdout
    else:
        assert json.loads((tmp_path / "game.json").read_text())["shots"] == []


def test_a_file_on_a_full_disk_is_one_line_and_the_old_file_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.pl"
    path.write_text("old")

    def full(self: Path, *args: object, **kwargs: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full)
    assert main(["script", *EMPTY_4X4, "-o", str(path)]) == 2
    assert capsys.readouterr().err == f"battlelog: error: {path}: cannot write (No space left on device)\n"
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["s.pl"]


def _experiment(out: Path, games: int) -> list[str]:
    return ["experiment", "--size", "3", "--ships", "2", "--players", "random,pdf", "--games", str(games), "--seed", "2",
            "--out", str(out), "--workers", "1"]  # fmt: skip


@pytest.fixture
def journal_fills_after(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """os.write as on a disk that fills after ``room[0]`` bytes of games.jsonl: the write that reaches the
    limit gets part of its bytes through, the next one ENOSPC (other files are written as usual)."""
    room = [0]
    real_write = os.write

    def write(fd: int, data: bytes) -> int:
        if not os.readlink(f"/proc/self/fd/{fd}").endswith(GAMES):
            return real_write(fd, data)
        if room[0] <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        part = bytes(data)[: room[0]]
        room[0] -= len(part)
        return real_write(fd, part)

    monkeypatch.setattr(os, "write", write)  # what battlelog.files.append calls
    yield room


def test_an_experiment_on_a_full_disk_stops_in_one_line_keeping_whole_lines(
    tmp_path: Path, journal_fills_after: list[int], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Simulated in-process (see the module's docstring): the journal's append writes through files.append's os.write."""
    out = tmp_path / "exp"
    journal_fills_after[0] = 1000  # a few games' lines, then half of one
    assert main(_experiment(out, 6)) == 2
    err = capsys.readouterr().err
    data = (out / GAMES).read_bytes()
    kept = data.count(b"\n")
    assert 0 < kept < 12 and data.endswith(b"\n"), "a torn last line was left"
    assert err.count("\n") == 1 and err.startswith(f"battlelog: error: {out / GAMES}: cannot record game "), err
    assert err.endswith(
        f"(No space left on device); the {kept} recorded before it are kept:"
        " make room and run the same command again to resume\n"
    )
    monkeypatch.undo()  # room again: the same command resumes and finishes, nothing lost or repeated
    assert main(_experiment(out, 6)) == 0
    records = [json.loads(line) for line in (out / GAMES).read_text().splitlines()]
    assert sorted((r["player"], r["game"]) for r in records) == sorted((p, g) for p in ("random", "pdf") for g in range(6))


def test_the_first_game_not_written_leaves_no_experiment_behind(
    tmp_path: Path, journal_fills_after: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "exp"
    assert main(_experiment(out, 2)) == 2
    assert "cannot record game 0" in capsys.readouterr().err
    assert not out.exists()


@pytest.fixture
def tiny_file_system(tmp_path: Path) -> Iterator[Path]:
    """A real 64 KiB tmpfs, where this process may mount one."""
    where = tmp_path / "mnt"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "none", str(where)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here ({mounted.stderr.strip()}): the simulated full disk tests cover it")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_an_experiment_on_a_real_full_file_system(tiny_file_system: Path) -> None:
    (tiny_file_system / "fill").write_bytes(b"\0" * 52_000)
    out = tiny_file_system / "exp"
    done = subprocess.run(
        [sys.executable, "-m", "battlelog.cli", *_experiment(out, 400)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 2, done.stderr
    assert (
        done.stderr.count("\n") == 1 and "cannot record game" in done.stderr and "(No space left on device)" in done.stderr
    ), done.stderr
    data = (out / GAMES).read_bytes()
    assert data.count(b"\n") > 0 and data.endswith(b"\n")
    assert all(json.loads(line) for line in data.splitlines())
