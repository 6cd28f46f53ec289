"""A test that takes its worker down fails the suite in one run, under the project's own pytest options:
pytest-xdist's loadgroup scheduler hangs when it replaces a crashed worker, which in CI would be a timeout
instead of a red test naming the crash."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CRASHING = """
import os


def test_passes_first():
    pass


def test_takes_its_worker_down():
    os._exit(1)


def test_after_the_crash():
    pass
"""


def test_a_crashed_worker_fails_the_run_instead_of_hanging(tmp_path: Path) -> None:
    (tmp_path / "test_crashing.py").write_text(CRASHING)
    argv = [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path),
            "-p", "no:cacheprovider", "-n", "1", "-q", str(tmp_path)]
    try:
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}  # the outer run's options are not the inner's
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    except subprocess.TimeoutExpired:
        raise AssertionError("the inner pytest run hung after its worker crashed") from None
    assert done.returncode == 1, done.stdout + done.stderr
    assert "crashed while running 'test_crashing.py::test_takes_its_worker_down'" in done.stdout
