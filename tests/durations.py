"""The fast tier: every test that took at least :data:`FAST_LIMIT` seconds in a recorded run is marked ``slow``.

A developer runs ``python -m pytest -n auto -q -m "not slow"`` between changes and leaves the rest to CI,
which runs everything. Which tests are slow is measured, not guessed: ``--record-durations FILE`` writes
each test's time (setup, call and teardown) of a whole run, and :data:`RECORD` (committed) is the run
the marks come from. A test missing from it (a new one) counts as fast until the record is made again;
a test marked ``slow`` by hand stays slow whatever the record says.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from battlelog import files

#: The committed record of a whole run (tab-separated: seconds, test id), made by ``--record-durations``.
RECORD = Path(__file__).with_name("durations.tsv")
#: A test that took this long or longer in the record is left out of the fast tier.
FAST_LIMIT = 0.4


def read_record(path: Path) -> dict[str, float]:
    """Each test's seconds in the record at ``path`` (none when there is no record)."""
    if not path.is_file():
        return {}
    seconds: dict[str, float] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        value, sep, test = line.partition("\t")
        try:
            seconds[test] = float(value)
        except ValueError:
            raise ValueError(f"{path}:{number}: not 'SECONDS<tab>TEST': {line[:80]!r}") from None
        if not sep or not test:
            raise ValueError(f"{path}:{number}: not 'SECONDS<tab>TEST': {line[:80]!r}")
    return seconds


def write_record(path: Path, seconds: Mapping[str, float], header: str) -> None:
    """The record, slowest first, with a comment line saying how it was made."""
    lines = [f"# {header}", *(f"{s:.3f}\t{test}" for test, s in sorted(seconds.items(), key=lambda item: (-item[1], item[0])))]
    files.write_text(path, "\n".join(lines) + "\n")  # a device, FIFO or link at the path stays as it was


def slow_tests(seconds: Mapping[str, float], tests: Iterable[str], limit: float = FAST_LIMIT) -> set[str]:
    """The tests among ``tests`` that took ``limit`` seconds or more in the record."""
    return {test for test in tests if seconds.get(test, 0.0) >= limit}


class Recorder:
    """A plugin that adds up each test's setup, call and teardown and writes the record when the run ends.

    Under xdist the controller sees every worker's reports, so only it records (a worker's own copy
    would count each test twice)."""

    def __init__(self, path: Path, header: str) -> None:
        self.path, self.header = path, header
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + float(report.duration)

    def pytest_sessionfinish(self) -> None:
        write_record(self.path, self.seconds, self.header)
