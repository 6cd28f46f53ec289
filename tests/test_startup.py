"""Start-up: `battlelog --help`, `script` and `marginals` on a 5x5 state start in well under half a second.

Two checks that a loaded machine cannot fool: which libraries a command imports (exact, and it names
the culprit), and the CPU time its process uses (best of three runs; CPU time, unlike wall time, does
not grow when other jobs share the cores). The marginals command runs the sdd engine, whose imports
this project controls; the native engine's numba start-up is measured by its own benchmarks.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

MID_GAME = str(Path(__file__).parent / "fixtures" / "midgame_5x5.json")

#: Libraries that take a large part of a second to import; none belongs on these commands' path.
HEAVY = {"scipy", "matplotlib", "problog", "numba", "tqdm", "PIL", "selenium", "jinja2", "pysdd"}

#: Each command, and the heavy libraries it may import because it uses them.
COMMANDS = {
    "help": (["--help"], set()),
    "script": (["script", MID_GAME], {"jinja2", "pysdd"}),  # renders a template; sdd checks the state has a layout
    "marginals": (["marginals", MID_GAME, "--engine", "sdd"], {"pysdd"}),
}

LIMIT_SECONDS = 0.5


def _run(argv: list[str], tmp_path: Path, importtime: bool = False) -> tuple[float, str]:
    """CPU seconds (user + system) of ``python -m battlelog.cli ARGV`` and its standard error."""
    out, err = tmp_path / "out", tmp_path / "err"
    flags = ["-X", "importtime"] if importtime else []
    actions = [
        (os.POSIX_SPAWN_OPEN, 1, str(out), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
        (os.POSIX_SPAWN_OPEN, 2, str(err), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
    ]
    pid = os.posix_spawn(sys.executable, [sys.executable, *flags, "-m", "battlelog.cli", *argv], dict(os.environ), file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, err.read_text()
    return usage.ru_utime + usage.ru_stime, err.read_text()


def imported_modules(importtime_log: str) -> set[str]:
    """Top-level packages named in the output of ``python -X importtime``."""
    names = set()
    for line in importtime_log.splitlines():
        fields = line.removeprefix("import time:").split("|")
        if line.startswith("import time:") and len(fields) == 3 and fields[1].strip().isdigit():  # not the header
            names.add(fields[2].strip().split(".")[0])
    return names


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_commands_import_no_heavy_library_they_do_not_use(tmp_path: Path, command: str) -> None:
    argv, allowed = COMMANDS[command]
    _, log = _run(argv, tmp_path, importtime=True)
    modules = imported_modules(log)
    assert "battlelog" in modules and "numpy" in modules  # the log was read
    assert modules & HEAVY <= allowed, f"battlelog {' '.join(argv)} imports {sorted(modules & HEAVY - allowed)}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_commands_start_in_under_half_a_second(tmp_path: Path, command: str) -> None:
    argv, _ = COMMANDS[command]
    best = min(_run(argv, tmp_path)[0] for _ in range(3))
    assert best < LIMIT_SECONDS, f"battlelog {' '.join(argv)} used {best:.2f} s of CPU at best of 3 runs"


def test_the_import_log_is_read_correctly() -> None:
    log = "import time: self [us] | cumulative | imported package\nimport time:      120 |      130 |   scipy.stats\n"
    assert imported_modules(log) == {"scipy"}
