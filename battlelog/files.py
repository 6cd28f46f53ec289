"""Writing a file as its path asks, whole or not at all, without destroying what is at the path.

A symlink is followed first, so its target is written and the link stays. Then what is there decides:

- nothing yet, or a regular file with one link: a scratch file in the same folder is written, forced to
  disk and renamed over it, so a crash or a full disk leaves the previous file whole. An existing file
  keeps its mode (and, where the system allows, its owner).
- a regular file with more than one hard link: the scratch is written whole first (in the temporary
  folder), then copied into the file in place, so every link sees the new content. Only a failure during
  that last copy can leave it torn: the price of keeping the links.
- a device, FIFO or socket: opened before the work starts and written in place once the content is
  whole, as ``cat > path`` would (``/dev/null`` discards it, a FIFO's reader gets all of it). Unlike
  ``cat``, a FIFO that nobody reads yet is refused in one line rather than waited on forever: start its
  reader first.
- ``-`` (:data:`STDOUT`): standard output, unless the file must be a regular one.

A place that cannot be written (no such folder, a folder, a read-only file system, a full disk) is a
one-line :class:`~battlelog.errors.WriteError`, found where possible before any work is done. A file
that is read back later or named after another file (``--table``, a journal, compile's ``.vtree``)
passes ``regular=True``: a device, FIFO or socket there is refused. Libraries that write by name
without checking (pysdd's ``save`` crashes the process on a path it cannot open) are handed the
scratch file, which exists, is writable and keeps the target's suffix.
"""

from __future__ import annotations

import csv
import errno
import io
import os
import secrets
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

from battlelog.errors import WriteError

#: The output path that means standard output.
STDOUT = "-"

_CHUNK = 1 << 20
_KINDS = {stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket"}


def _failed(path: str | Path, exc: OSError) -> WriteError:
    return WriteError(f"{path}: cannot write ({exc.strerror or exc})")


def _found(path: Path) -> os.stat_result | None:
    """What is at ``path`` once symlinks are followed (None: nothing yet, or a link to nothing yet)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:  # under a regular file, a symlink loop, a name too long
        raise _failed(path, exc) from None
    if stat.S_ISDIR(info.st_mode):
        raise WriteError(f"{path}: cannot write (it is a folder)")
    return info


def check_regular(path: str | Path) -> None:
    """Refuse, in one line, a path that is (or links to) a folder, device, FIFO or socket: a new path is
    fine, and a place that cannot be written at all is left for the write to report."""
    try:
        info = os.stat(path)
    except OSError:
        return
    if stat.S_ISDIR(info.st_mode):
        raise WriteError(f"{path}: cannot write (it is a folder)")
    if not stat.S_ISREG(info.st_mode):
        kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a file")
        raise WriteError(f"{path}: cannot write there ({kind}, and this file must be a regular file)")


def check_writable(path: str | Path) -> None:
    """Refuse, in one line naming ``path``, a place where it cannot be written (a folder, a missing or
    read-only folder), by making and removing a scratch beside it: for a command that writes several files
    and opens the one named by the user last, so that a refusal still names that one."""
    if str(path) == STDOUT:
        return
    path = Path(path)
    info = _found(path)
    if info is None or stat.S_ISREG(info.st_mode):
        _new_scratch(path, Path(os.path.realpath(path))).unlink()


def make_folder(path: str | Path) -> Path:
    """The folder ``path``, created with its parents when missing, or a one-line refusal naming it: for a
    command that writes several files into a folder the user names, before its work, so that a bad name
    costs nothing."""
    if not str(path):
        raise WriteError("a folder name is needed, not an empty one")
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file, or a link to nothing
        raise WriteError(f"{path}: cannot write there (it is not a folder)") from None
    except OSError as exc:
        raise WriteError(f"{path}: cannot create the folder ({exc.strerror or exc})") from None
    return folder


@contextmanager
def replacing(path: str | Path, *, regular: bool = False) -> Iterator[Path]:
    """A scratch file to write in the block; on success its content becomes ``path`` (see the module's
    docstring for how); on any error the scratch is removed and ``path`` is left as it was."""
    if not regular and str(path) == STDOUT:
        with _scratch() as scratch:
            yield scratch
            _to_stdout(scratch)
        return
    path = Path(path)
    if regular:
        check_regular(path)
    info = _found(path)
    if info is None or (stat.S_ISREG(info.st_mode) and info.st_nlink == 1):
        with _renamed(path, Path(os.path.realpath(path)), info) as scratch:
            yield scratch
    else:
        with _in_place(path) as scratch:
            yield scratch


def write_text(path: str | Path, text: str, *, regular: bool = False) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole (see :func:`replacing`); ``-`` prints it."""
    if not regular and str(path) == STDOUT:
        sys.stdout.write(text)
        return
    with replacing(path, regular=regular) as scratch:
        scratch.write_text(text, encoding="utf-8")


def write_csv(path: str | Path, header: Sequence[object], rows: Iterable[Sequence[object]]) -> None:
    """Write a CSV file (a header row, then ``rows``) whole, as :func:`write_text` does."""
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow(header)
    writer.writerows(rows)
    write_text(path, text.getvalue())


def append(fd: int, data: bytes) -> None:
    """Append ``data`` to the file open (``O_APPEND``) on ``fd`` and force it to disk, whole or not at all:
    on a failure (a full disk) the file is cut back to its length before, and the OSError raised."""
    before = os.fstat(fd).st_size
    try:
        _write_all(fd, data)
        os.fsync(fd)
    except OSError:
        with suppress(OSError):  # shrinking needs no space; if even this fails, the reader skips a torn line
            os.ftruncate(fd, before)
        raise


def _write_all(fd: int, data: bytes | memoryview) -> None:
    """``os.write`` until every byte is written (a write may take only part of them)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _copy(source: BinaryIO, fd: int) -> None:
    while chunk := source.read(_CHUNK):
        _write_all(fd, chunk)


@contextmanager
def _renamed(path: Path, real: Path, info: os.stat_result | None) -> Iterator[Path]:
    """A scratch beside ``real`` (the path with symlinks followed) renamed over it at the end."""
    scratch = _new_scratch(path, real)
    try:
        yield scratch
        if info is not None:
            _keep_owner_and_mode(scratch, info)
        _fsync(scratch, os.O_RDONLY)
        os.replace(scratch, real)
        with suppress(OSError):  # the rename is done; making it durable is best effort (some file systems refuse)
            _fsync(real.parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise _failed(path, exc) from None
    finally:
        with suppress(OSError):  # gone already once renamed; a failing cleanup must not hide the error
            scratch.unlink(missing_ok=True)


def _new_scratch(path: Path, real: Path) -> Path:
    """A new empty file beside ``real`` under an unguessable name (never an existing file or a planted
    link), with the mode a new file gets (0666 less the umask); the place is checked here, before any work."""
    for _ in range(8):
        scratch = real.with_name(f".{real.stem}-{secrets.token_hex(4)}.tmp{real.suffix}")
        try:
            os.close(os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666))
            return scratch
        except FileExistsError:
            continue
        except OSError as exc:
            raise _failed(path, exc) from None
    raise WriteError(f"{path}: cannot write (no free scratch name beside it)")


def _keep_owner_and_mode(scratch: Path, info: os.stat_result) -> None:
    """Give the scratch the replaced file's owner (where permitted) and then its mode (chown clears setuid)."""
    if (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
        with suppress(OSError):  # only root may give a file away: others keep their own
            os.chown(scratch, info.st_uid, info.st_gid)
    os.chmod(scratch, stat.S_IMODE(info.st_mode))


def _fsync(path: Path, flags: int) -> None:
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def _in_place(path: Path) -> Iterator[Path]:
    """Open ``path`` first, then write the whole scratch into it; a regular file (one with several links) is
    cut to the new length."""
    fd = _open_in_place(path)
    try:
        with _scratch(path.suffix) as scratch:
            yield scratch
            with open(scratch, "rb") as source:
                if stat.S_ISREG(os.fstat(fd).st_mode):
                    os.ftruncate(fd, 0)
                _copy(source, fd)
                if stat.S_ISREG(os.fstat(fd).st_mode):
                    os.fsync(fd)
    except OSError as exc:
        raise _failed(path, exc) from None
    finally:
        os.close(fd)


def _open_in_place(path: Path) -> int:
    """``path`` opened for writing without waiting: a FIFO with no reader (where ``cat > path`` would wait
    forever) is a one-line refusal; once open, writes wait as usual (a full FIFO until its reader reads)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO and stat.S_ISFIFO(os.stat(path).st_mode):
            raise WriteError(f"{path}: cannot write (a FIFO that nobody reads: start its reader first)") from None
        raise _failed(path, exc) from None
    os.set_blocking(fd, True)
    return fd


@contextmanager
def _scratch(suffix: str = "") -> Iterator[Path]:
    """A scratch file in the temporary folder, removed at the end."""
    try:
        fd, name = tempfile.mkstemp(prefix=".battlelog-", suffix=suffix)
    except OSError as exc:
        raise _failed(tempfile.gettempdir(), exc) from None
    os.close(fd)
    try:
        yield Path(name)
    finally:
        with suppress(OSError):
            os.unlink(name)


def _to_stdout(scratch: Path) -> None:
    """The scratch's bytes on standard output; a failure there (a closed pipe, a full disk) is the OSError
    itself, which the command line reports as standard output's (battlelog.cli)."""
    sys.stdout.flush()
    out = sys.stdout.buffer  # a raw file under PYTHONUNBUFFERED: it may take part of a chunk
    with open(scratch, "rb") as source:
        while chunk := source.read(_CHUNK):
            view = memoryview(chunk)
            while view:
                view = view[out.write(view) :]
    out.flush()
