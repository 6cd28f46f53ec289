"""Every file a command writes leaves what is at its path whole (issue 37): a device or a FIFO is written
in place (never turned into a regular file), a symlink is written through (never replaced), and an
existing file keeps its mode and its hard links. A file that is read back or named after another one
(a journal, a --table, compile's .vtree) is refused in one line where it cannot be a regular file.

The devices are private nodes made in the test's folder (``mknod``: the null device's numbers, 1 3);
where ``mknod`` is not permitted (not root) the device cases are skipped, saying so, and the FIFO and
symlink cases still run.
"""

from __future__ import annotations

import io
import os
import select
import shutil
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from battlelog.cli import main

FIXTURE = str(Path(__file__).parent / "fixtures" / "midgame_5x5.json")
EMPTY_4X4 = ["--size", "4", "--ships", "3,2"]


def _experiment(folder: Path, games: int = 1) -> list[str]:
    return ["experiment", "--size", "3", "--ships", "2", "--players", "random", "--games", str(games), "--seed", "1",
            "--out", str(folder / "exp"), "--workers", "1"]  # fmt: skip


def _played(folder: Path) -> None:
    """An experiment folder for the commands that read one."""
    assert main(_experiment(folder, games=2)) == 0


def _reproduced(folder: Path) -> None:
    """A tiny reproduction, so that the run under test writes its tables without playing."""
    assert main(_reproduce(folder)) == 0


def _reproduce(folder: Path) -> list[str]:
    return ["reproduce", "--out", str(folder / "rep"), "--games", "2", "--seed", "1", "--workers", "1", "--config", "4:3,2,2"]


@dataclass(frozen=True)
class Writer:
    """One file a command writes: the command's words (``again``: the second run on an existing file),
    the file's path in the folder, whether it must be a regular file, and how its content begins."""

    words: Callable[[Path, bool], list[str]]
    name: str
    magic: bytes
    regular: bool = False
    setup: Callable[[Path], None] = lambda folder: None
    stdin: str = ""
    rewritten: bool = True  # the second run writes the file again (else it only reads it)
    kinds: tuple[str, ...] = field(default=("device", "fifo", "existing"))


WRITERS = {
    "script -o": Writer(lambda f, again: ["script", *EMPTY_4X4, "-o", str(f / "out.pl")], "out.pl", b"%% Battleship"),
    "compile -o": Writer(lambda f, again: ["compile", *EMPTY_4X4, "-o", str(f / "m.sdd")], "m.sdd", b"c ids of sdd"),
    "compile .vtree": Writer(
        lambda f, again: ["compile", *EMPTY_4X4, "-o", str(f / "m.sdd")], "m.vtree", b"c ids of vtree", regular=True
    ),
    "compile .vars.json": Writer(
        lambda f, again: ["compile", *EMPTY_4X4, "-o", str(f / "m.sdd")], "m.vars.json", b"[", regular=True
    ),
    "advise --state": Writer(
        lambda f, again: ["advise", *EMPTY_4X4, "--state", str(f / "game.json")],
        "game.json", b'{"size"', regular=True, stdin="quit\n",
    ),
    "advise save": Writer(
        lambda f, again: ["advise", *EMPTY_4X4, "--state", str(f / "game.json")],
        "copy.json", b'{"size"', stdin="save {folder}/copy.json\nquit\n",
    ),
    "optimal --table": Writer(
        lambda f, again: ["optimal", "--size", "3", "--ships", "2", "--table", str(f / "t.npz")], "t.npz", b"PK", regular=True
    ),
    "optimal --split": Writer(
        lambda f, again: ["optimal", "--size", "3", "--ships", "2", "--split", str(f / "pieces.json"), "--workers", "1"],
        "pieces.json", b"{", regular=True, kinds=("device", "fifo"),
    ),
    "experiment games.jsonl": Writer(lambda f, again: _experiment(f, 2 if again else 1), "exp/games.jsonl", b'{"', regular=True),
    "experiment experiment.json": Writer(
        lambda f, again: _experiment(f), "exp/experiment.json", b"{", regular=True, rewritten=False
    ),
    "experiment summary.md": Writer(lambda f, again: _experiment(f), "exp/summary.md", b"# "),
    "summarize summary.csv": Writer(lambda f, again: ["summarize", str(f / "exp")], "exp/summary.csv", b"player,", setup=_played),
    "summarize --csv": Writer(
        lambda f, again: ["summarize", str(f / "exp"), "--csv"], "exp/games.csv", b"player,game", setup=_played
    ),
    "summarize --plots": Writer(
        lambda f, again: ["summarize", str(f / "exp"), "--plots"], "exp/plots/scores.png", b"\x89PNG", setup=_played
    ),
    "replay .gif": Writer(lambda f, again: ["replay", FIXTURE, "--out", str(f / "r")], "r/replay.gif", b"GIF8"),
    "replay .html": Writer(lambda f, again: ["replay", FIXTURE, "--out", str(f / "r")], "r/replay.html", b"<!"),
    "replay .png": Writer(lambda f, again: ["replay", FIXTURE, "--out", str(f / "r")], "r/replay.png", b"\x89PNG"),
    "reproduce results.csv": Writer(lambda f, again: _reproduce(f), "rep/results.csv", b"board,", setup=_reproduced),
    "reproduce report.md": Writer(lambda f, again: _reproduce(f), "rep/report.md", b"# ", setup=_reproduced),
}

CASES = [(name, kind) for name, writer in WRITERS.items() for kind in writer.kinds]


def run(writer: Writer, folder: Path, monkeypatch: pytest.MonkeyPatch, again: bool = False) -> int:
    """The writer's command, in-process, with its standard input."""
    monkeypatch.setattr("sys.stdin", io.StringIO(writer.stdin.format(folder=folder)))
    return main(writer.words(folder, again))


def null_device(path: Path) -> None:
    """A private node with the null device's numbers at ``path`` (root only)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod is not permitted here (not root): the FIFO and symlink cases cover writing in place")


@dataclass
class Reader:
    """A thread that reads a FIFO to its end, as `cat fifo` would; the FIFO is open for reading before the
    command under test starts (a FIFO that nobody reads is refused, see below)."""

    path: Path
    data: bytes = b""

    def __post_init__(self) -> None:
        self.fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # a reader now, without waiting for a writer
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        select.select([self.fd], [], [])  # the first bytes, or the first writer gone (Linux: no end before a writer came)
        os.set_blocking(self.fd, True)
        with open(self.fd, "rb") as fifo:
            self.data = fifo.read()

    def finish(self) -> bytes:
        """Everything read; a reader still waiting for a writer (nothing opened the FIFO) is let go with nothing."""
        try:
            os.close(os.open(self.path, os.O_WRONLY | os.O_NONBLOCK))  # ENXIO: the reader is gone already
        except OSError:
            pass
        self.thread.join(timeout=30)
        assert not self.thread.is_alive()
        return self.data


@pytest.fixture
def fifo_reader() -> Iterator[list[Reader]]:
    readers: list[Reader] = []
    yield readers
    for reader in readers:
        reader.finish()


@pytest.mark.parametrize("name, kind", CASES, ids=[f"{name}-{kind}" for name, kind in CASES])
def test_a_file_written_leaves_what_is_at_its_path_whole(
    name: str,
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fifo_reader: list[Reader],
) -> None:
    writer = WRITERS[name]
    writer.setup(tmp_path)
    target = tmp_path / writer.name
    target.parent.mkdir(parents=True, exist_ok=True)
    if kind == "existing":
        check_written_through_a_link(writer, tmp_path, target, monkeypatch)
        return
    target.unlink(missing_ok=True)  # the setup may have written it
    if kind == "device":
        null_device(target)
    else:
        os.mkfifo(target)
        fifo_reader.append(Reader(target))
    capsys.readouterr()
    status = run(writer, tmp_path, monkeypatch)
    err = capsys.readouterr().err
    is_kind = stat.S_ISCHR if kind == "device" else stat.S_ISFIFO
    assert is_kind(os.lstat(target).st_mode), "the node was replaced"
    if writer.regular:
        what = "a character device" if kind == "device" else "a FIFO"
        assert status == 2 and err == (
            f"battlelog: error: {target}: cannot write there ({what}, and this file must be a regular file)\n"
        ), err
        assert kind == "device" or fifo_reader[0].finish() == b""
        return
    assert status == 0, err
    if kind == "fifo":
        assert fifo_reader[0].finish().startswith(writer.magic), "the FIFO's reader did not get the file"


def check_written_through_a_link(writer: Writer, folder: Path, target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Written once, the file is moved elsewhere with mode 600 and a second hard link, and a symlink put in
    its place: written again, the link stays, and the file (the same inode) has the new content, its mode
    and both its links."""
    assert run(writer, folder, monkeypatch) == 0
    kept = folder / "elsewhere" / target.name
    kept.parent.mkdir()
    shutil.move(target, kept)
    kept.chmod(0o600)
    os.link(kept, folder / "elsewhere" / "second")
    target.symlink_to(kept)
    os.utime(kept, (0, 0))
    before = kept.read_bytes()
    inode = os.stat(kept).st_ino
    assert run(writer, folder, monkeypatch, again=True) == 0
    info = os.stat(kept)
    assert target.is_symlink() and os.readlink(target) == str(kept), "the symlink was replaced"
    assert (info.st_ino, info.st_nlink, stat.S_IMODE(info.st_mode)) == (inode, 2, 0o600), "the file lost its links or its mode"
    assert (folder / "elsewhere" / "second").read_bytes() == kept.read_bytes()
    assert kept.read_bytes().startswith(writer.magic)
    if writer.rewritten:
        assert info.st_mtime > 0, "the file behind the link was not written"
    else:
        assert kept.read_bytes() == before


def test_advise_through_a_link_keeps_every_shot_in_the_real_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The case: the game file's link was replaced by a new file, the real game silently stayed at 2 shots.
    real, link = tmp_path / "game.json", tmp_path / "link.json"
    real.write_text(
        '{"size": 4, "ships": [3, 2], "shots": [{"row": 0, "col": 0, "result": "miss"}, '
        '{"row": 3, "col": 3, "result": "miss"}]}\n'
    )
    link.symlink_to(real.name)
    monkeypatch.setattr("sys.stdin", io.StringIO("B2 miss\nquit\n"))
    assert main(["advise", "--state", str(link)]) == 0
    assert link.is_symlink()
    assert real.read_text().count('"row"') == 3


@pytest.mark.parametrize("words", [["script", *EMPTY_4X4, "-o"], ["compile", *EMPTY_4X4, "-o"]], ids=["script", "compile"])
def test_a_fifo_that_nobody_reads_is_refused_in_one_line_not_waited_on(
    words: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: the command waited in open() for a reader that never came, forever.
    fifo = tmp_path / "out.pl"
    os.mkfifo(fifo)
    assert main([*words, str(fifo)]) == 2
    assert capsys.readouterr().err == (
        f"battlelog: error: {fifo}: cannot write (a FIFO that nobody reads: start its reader first)\n"
    )
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.pl"], "a sibling or a scratch file was left"


def test_compile_onto_a_full_device_leaves_no_siblings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: the SDD failed on the full device after its .vtree and .vars.json were put in place beside it.
    full = tmp_path / "m.sdd"
    try:
        os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))  # the full device's numbers: every write is ENOSPC
    except PermissionError:
        pytest.skip("mknod is not permitted here (not root)")
    assert main(["compile", *EMPTY_4X4, "-o", str(full)]) == 2
    assert capsys.readouterr().err == f"battlelog: error: {full}: cannot write (No space left on device)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.sdd"] and stat.S_ISCHR(os.lstat(full).st_mode)


def test_compile_to_standard_output_is_refused_and_script_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["compile", *EMPTY_4X4, "-o", "-"]) == 2
    assert capsys.readouterr().err == (
        "battlelog: error: -o -: compile writes three files (OUT, and its .vtree and .vars.json beside it):"
        " give OUT a file name\n"
    )
    assert main(["script", *EMPTY_4X4, "-o", "-"]) == 0
    printed = capsys.readouterr().out
    assert main(["script", *EMPTY_4X4]) == 0
    assert printed == capsys.readouterr().out and printed.startswith("%% Battleship")
    assert list(tmp_path.iterdir()) == []
