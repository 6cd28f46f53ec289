"""Writing files whole: a place that cannot be written is one line, and no scratch file is left behind.

The tests run as root, which ignores permission bits, so a read-only place is a path under a regular
file (the system refuses it as it refuses a read-only file system) or a write made to fail with EROFS.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from battlelog.errors import WriteError
from battlelog.files import replacing, write_text
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState

STATE = GameState.empty(GameConfig(4, (3, 2))).with_shot(0, 0, "miss")


def test_a_state_is_written_whole_and_no_scratch_file_stays(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text("old")
    STATE.dump(path)
    assert GameState.load(path) == STATE and [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_under_a_regular_file_or_onto_a_folder_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(WriteError, match=r"file/s.json: cannot write \(Not a directory\)$"):
        STATE.dump(tmp_path / "file" / "s.json")
    with pytest.raises(WriteError, match=r": cannot write \(it is a folder\)$"):
        STATE.dump(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


def test_a_read_only_file_system_is_one_line_though_the_cleanup_fails_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def read_only(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(Path, "write_text", read_only)
    monkeypatch.setattr(Path, "unlink", read_only)
    with pytest.raises(WriteError, match=r"s.json: cannot write \(Read-only file system\)$"):
        STATE.dump(tmp_path / "s.json")


def test_an_error_inside_the_block_leaves_the_old_file_and_no_scratch(tmp_path: Path) -> None:
    path = tmp_path / "m.sdd"
    write_text(path, "old")
    with pytest.raises(RuntimeError), replacing(path) as scratch:
        scratch.write_text("half")
        raise RuntimeError("the work failed")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["m.sdd"]
