"""Writing files whole: through a scratch file in the target's folder, renamed into place.

A crash mid-write then leaves the previous file whole, and a place that cannot be written (no such
folder, a folder given as the file, a read-only file system) is found before anything is written,
as a one-line :class:`~battlelog.errors.WriteError`. Libraries that write by name without checking
(pysdd's ``save`` crashes the process on a path it cannot open) are handed the scratch file, which
exists and is writable by then.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from battlelog.errors import WriteError


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A scratch file to write in the block; on success it becomes ``path``, on any error it is removed."""
    path = Path(path)
    if path.is_dir():
        raise WriteError(f"{path}: cannot write (it is a folder)")
    scratch = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        scratch.touch()  # the place is checked here, before any work is written
    except OSError as exc:
        raise WriteError(f"{path}: cannot write ({exc.strerror})") from None
    try:
        yield scratch
        os.replace(scratch, path)
    except OSError as exc:
        raise WriteError(f"{path}: cannot write ({exc.strerror})") from None
    finally:
        with suppress(OSError):  # gone already once renamed; a failing cleanup must not hide the error
            scratch.unlink(missing_ok=True)


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` whole (see :func:`replacing`)."""
    with replacing(path) as scratch:
        scratch.write_text(text)
