"""Writing files whole: a place that cannot be written is one line, and no scratch file is left behind.

The tests run as root, which ignores permission bits, so a read-only place is a path under a regular
file (the system refuses it as it refuses a read-only file system) or a write made to fail with EROFS.
"""

from __future__ import annotations

import errno
import os
import re
import socket
import stat
from pathlib import Path

import pytest

from battlelog import files
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


def test_a_read_only_file_system_is_one_line_though_the_cleanup_fails_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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


def test_a_replaced_file_keeps_its_mode_and_owner(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text("old")
    path.chmod(0o640)
    try:
        os.chown(path, 4321, 4321)
    except PermissionError:
        pytest.skip("chown is not permitted here (not root): the mode is checked in test_writes.py")
    STATE.dump(path)
    info = path.stat()
    assert (stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid) == (0o640, 4321, 4321)
    assert GameState.load(path) == STATE


def test_a_link_to_nothing_yet_creates_its_target_and_a_loop_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to("made.json")
    STATE.dump(tmp_path / "link")
    assert (tmp_path / "link").is_symlink() and GameState.load(tmp_path / "made.json") == STATE
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(WriteError, match=r"loop: cannot write \(Too many levels of symbolic links\)$"):
        STATE.dump(tmp_path / "loop")


def test_a_socket_is_opened_as_cat_would_and_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(WriteError, match=r"s.sock: cannot write \(No such device or address\)$"):
            write_text(path, "x")
    assert stat.S_ISSOCK(path.lstat().st_mode)


def test_a_link_planted_at_a_scratch_name_is_never_written_through(tmp_path: Path) -> None:
    # The scratch's name was once predictable (.NAME.PID.tmp): a link planted there took the write elsewhere.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("precious")
    (tmp_path / f".s.json.{os.getpid()}.tmp").symlink_to(elsewhere)
    STATE.dump(tmp_path / "s.json")
    assert elsewhere.read_text() == "precious" and GameState.load(tmp_path / "s.json") == STATE


def test_a_dash_is_standard_output_unless_the_file_must_be_regular(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_text("-", "text\n")
    with replacing("-") as scratch:  # what a library writing by name (pysdd, PIL) is handed
        scratch.write_bytes(b"bytes\n")
    assert capfd.readouterr().out == "text\nbytes\n" and list(tmp_path.iterdir()) == []
    write_text("-", "a file named -\n", regular=True)
    assert (tmp_path / "-").read_text() == "a file named -\n"


def test_check_writable_names_the_path_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    os.mkfifo(tmp_path / "fifo")
    files.check_writable(tmp_path / "new.txt")  # a new path in a writable folder: fine, and nothing made
    files.check_writable(tmp_path / "fifo")  # opened only when written: no reader is waited for here
    files.check_writable(files.STDOUT)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "file"]
    refusals = [("missing/m.sdd", "No such file or directory"), ("file/m.sdd", "Not a directory"), (".", "it is a folder")]
    for where, reason in refusals:
        with pytest.raises(WriteError, match=re.escape(f"{tmp_path / where}: cannot write ({reason})")):
            files.check_writable(tmp_path / where)
