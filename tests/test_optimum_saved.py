"""A table of solved states kept in a file: a search stopped part way and started again over the file
reaches the optimum of a search never stopped, having done less; saving mid-search changes nothing; a file
made for anything else is refused in one line."""

from __future__ import annotations

import json
import signal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from battlelog.cli import main
from battlelog.errors import BattlelogError, BudgetExceeded
from battlelog.optimum import saved, search
from battlelog.optimum.solver import WINDOWED, Solver
from battlelog.rules.config import GameConfig

#: 3x4 3,2: optimum 257/34 (tests/test_optimum.py checks it by brute force).
BOARD = GameConfig(3, (3, 2), cols=4)
OPTIMUM = Fraction(257, 34)
#: A search long enough to be saved several times in its course: 4x4 3,2, 264 layouts, optimum 2311/264
#: (docs/optimum.md; tests/test_optimum.py holds the solver's value against the optimal player's games).
LONG, LONG_OPTIMUM = GameConfig(4, (3, 2)), Fraction(2311, 264)


def _fresh_nodes() -> int:
    solver = Solver(BOARD, settings=WINDOWED)
    assert solver.optimum() == OPTIMUM
    return int(solver.stats[search.NODES])


def test_a_search_stopped_and_started_again_over_its_file_reaches_the_optimum_with_less_work(tmp_path: Path) -> None:
    whole = _fresh_nodes()
    path = tmp_path / "t.table"
    first = Solver(BOARD, settings=WINDOWED, table_file=path)
    first.stats[search.NODE_LIMIT] = whole // 2
    with pytest.raises(BudgetExceeded, match="what it solved is kept in"):
        first.optimum()
    assert path.exists() and not list(tmp_path.glob(".*.tmp"))
    second = Solver(BOARD, settings=WINDOWED, table_file=path)
    assert second.earlier["runs"] == 1 and second.earlier["nodes"] == whole // 2 + 1
    assert second.stats[search.STORED] > 0
    assert second.optimum() == OPTIMUM
    assert 0 < second.stats[search.NODES] < whole  # it went on: the first run's states were not searched again
    third = Solver(BOARD, settings=WINDOWED, table_file=path)  # the finished table answers at once (two windows)
    assert third.optimum() == OPTIMUM and third.stats[search.NODES] <= 2 and third.earlier["runs"] == 2


def test_saving_in_the_middle_of_a_search_leaves_its_result_exact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    solver = Solver(LONG, settings=WINDOWED, table_file=tmp_path / "t.table", save_every=0.2)
    saves: list[float] = []
    real = solver.save

    def counted(seconds: float) -> None:
        saves.append(seconds)
        real(seconds)

    monkeypatch.setattr(solver, "save", counted)
    value = solver.total(np.arange(len(solver.layouts), dtype=np.int32), 0, every=0.01)
    assert Fraction(value, len(solver.layouts)) == LONG_OPTIMUM
    assert len(saves) >= 3  # at least two stops to save, and the last write


def test_a_table_read_into_less_memory_than_it_needs_still_gives_the_optimum(tmp_path: Path) -> None:
    path = tmp_path / "t.table"
    assert Solver(BOARD, settings=WINDOWED, table_file=path).optimum() == OPTIMUM
    small = Solver(BOARD, memory=1 << 14, settings=WINDOWED, table_file=path)  # 1,024 slots: most entries evicted
    assert len(small.table) == 1024 and small.stats[search.EVICTED] > 0
    assert small.optimum() == OPTIMUM


def test_a_file_for_another_instance_or_not_a_table_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "t.table"
    assert Solver(BOARD, settings=WINDOWED, table_file=path).optimum() == OPTIMUM
    with pytest.raises(BattlelogError, match=r"a table for another instance \('3x4 3,2', here '4x4 2,2'\)"):
        Solver(GameConfig(4, (2, 2)), table_file=path)
    whole = path.read_bytes()
    for name, content in (("junk", b"not a table"), ("empty", b""), ("cut", whole[: len(whole) // 2])):
        junk = tmp_path / f"{name}.table"
        junk.write_bytes(content)
        with pytest.raises(BattlelogError, match=f"{name}.table: not a table of solved states"):
            Solver(BOARD, table_file=junk)


def test_the_optimal_command_goes_on_from_its_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "3x3.table"
    argv = ["optimal", "--size", "3", "--ships", "2,1", "--table", str(path), "--json"]
    handler = signal.getsignal(signal.SIGTERM)
    assert main(argv) == 0
    assert signal.getsignal(signal.SIGTERM) is handler  # TERM stops the search only while the search runs
    first = json.loads(capsys.readouterr().out)
    assert first["earlier_searches"] is None and first["search_nodes"] > 0
    assert main(argv) == 0
    captured = capsys.readouterr()
    again = json.loads(captured.out)
    assert again["exact"]["optimal"] == first["exact"]["optimal"]
    assert again["earlier_searches"]["runs"] == 1 and again["earlier_searches"]["nodes"] == first["search_nodes"]
    assert again["search_nodes"] <= 2  # the root found solved, once per window
    assert f"resuming from {path}" in captured.err
    assert main(argv[:-1]) == 0  # the text report says what the earlier runs did
    assert (
        f"before it, 2 run(s) of the same search: {first['search_nodes'] + again['search_nodes']:,} nodes"
        in capsys.readouterr().out
    )
    assert main(["optimal", "--size", "3", "--ships", "2,2", "--table", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a table for another instance ('3x3 2,1', here '3x3 2,2')" in err


def test_a_table_that_cannot_be_written_is_said_before_the_search_or_costs_only_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ["optimal", "--size", "3", "--ships", "2,1", "--json", "--table"]
    for where, message in ((tmp_path / "no" / "t.table", "cannot write in"), (tmp_path, "is a folder")):
        assert main([*base, str(where)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err

    def full(*args: object, **kw: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(saved.np, "savez", full)  # the disk fills up under the table's writer
    solver = Solver(LONG, settings=WINDOWED, table_file=tmp_path / "t.table", save_every=0.2)
    total = solver.total(np.arange(len(solver.layouts), dtype=np.int32), 0, every=0.01)
    assert Fraction(total, len(solver.layouts)) == LONG_OPTIMUM
    assert solver.unsaved is not None and "No space left on device" in solver.unsaved
    assert main([*base, str(tmp_path / "u.table")]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["optimal"] > 0
    warning = captured.err.strip().splitlines()[-1]
    assert warning.startswith("battlelog: warning: ") and "u.table: cannot write (No space left on device)" in warning
    assert not list(tmp_path.glob(".*.tmp"))  # no scratch file left behind
