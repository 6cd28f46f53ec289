"""The fast tier (tests/durations.py): the committed record marks the tests it found slow, in this very run."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import durations
import pytest


def test_every_test_the_record_found_slow_is_marked_slow_in_this_run(request: pytest.FixtureRequest) -> None:
    seconds = durations.read_record(durations.RECORD)
    assert seconds, f"{durations.RECORD} is missing or empty: make it with --record-durations"
    items = request.session.items
    slow = [i for i in items if seconds.get(i.nodeid, 0.0) >= durations.FAST_LIMIT]
    unmarked = [i.nodeid for i in slow if not i.get_closest_marker("slow")]
    assert unmarked == []
    assert len(seconds) > 1000  # a record of the whole suite, not of a few files


def test_a_record_round_trips_slowest_first(tmp_path: Path) -> None:
    path = tmp_path / "durations.tsv"
    durations.write_record(path, {"a.py::fast": 0.25, "a.py::slow": 12.5, "b.py::edge": 1.0}, "made by hand")
    lines = path.read_text().splitlines()
    assert lines[0] == "# made by hand" and lines[1] == "12.500\ta.py::slow"
    seconds = durations.read_record(path)
    assert seconds == {"a.py::fast": 0.25, "a.py::slow": 12.5, "b.py::edge": 1.0}
    assert durations.slow_tests(seconds, ["a.py::fast", "a.py::slow", "b.py::edge", "c.py::new"]) == {"a.py::slow", "b.py::edge"}
    assert durations.read_record(tmp_path / "absent.tsv") == {}


@pytest.mark.parametrize("line", ["1.5 a.py::t", "fast\ta.py::t", "2.0\t"])
def test_a_damaged_record_names_its_line(tmp_path: Path, line: str) -> None:
    path = tmp_path / "durations.tsv"
    path.write_text(f"# header\n1.0\tok.py::t\n{line}\n")
    with pytest.raises(ValueError, match=r"durations.tsv:3: not 'SECONDS<tab>TEST'"):
        durations.read_record(path)


def test_the_recorder_adds_up_each_tests_phases(tmp_path: Path) -> None:
    recorder = durations.Recorder(tmp_path / "out.tsv", "a test run")
    for nodeid, duration in (("t.py::a", 0.5), ("t.py::a", 1.25), ("t.py::b", 0.125), ("t.py::a", 0.25)):
        recorder.pytest_runtest_logreport(SimpleNamespace(nodeid=nodeid, duration=duration))  # type: ignore[arg-type]
    recorder.pytest_sessionfinish()
    assert durations.read_record(tmp_path / "out.tsv") == {"t.py::a": 2.0, "t.py::b": 0.125}
