"""The table of solved belief states kept in a file, so that a long search resumes where it stopped.

Every entry of the table is true whatever stopped the search: an exact total stays exact and a lower bound
stays a lower bound. A search started again over a table read back therefore finds every state it had
solved and every bound it had proven, and goes on from there (the root's last failed window is a stored
bound too, so the widening windows pick up where they were). Only entries are kept, not the slots they sat
in: reading a file rehashes them into a table as large as the memory allows now.

The keys are canonical forms whose meaning depends on the instance (board, fleet, rules), on the order of
its layouts and placements, on the symmetries used, and on the code that builds them; a file written under
any other of these is refused in one line rather than read wrongly.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np

from battlelog.errors import BattlelogError
from battlelog.files import replacing
from battlelog.optimum import group, layouts, search

#: Bumped whenever what a file holds changes.
FORMAT = 1
#: What a file says of the searches that wrote it: how many runs, their nodes and seconds in all.
PROGRESS = ("runs", "nodes", "seconds")
#: The modules that decide what a key means.
_KEY_SOURCES = (search, group, layouts)


def code_digest() -> str:
    """A digest of the code that builds the keys (a table from other code might mean other states)."""
    digest = hashlib.sha256()
    for module in _KEY_SOURCES:
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()[:16]


def identity(label: str, n_layouts: int, words: int, group_size: int) -> dict[str, object]:
    """What a file's entries are valid for."""
    return {"format": FORMAT, "instance": label, "layouts": n_layouts, "words": words, "group": group_size, "code": code_digest()}


def save(path: Path, table: tuple[np.ndarray, ...], about: dict[str, object], progress: dict[str, float]) -> int:
    """Write the table's entries and ``progress`` (what the searches so far did, for reports) to ``path``,
    whole (:func:`battlelog.files.replacing`: a crash mid-write leaves the last file as it was; a failed write
    is a WriteError). Returns the number of entries written."""
    keys, values, flags, actions, works = table
    used = np.flatnonzero(flags != search.EMPTY)
    header = json.dumps({**about, "progress": progress})
    with replacing(path, regular=True) as scratch, open(scratch, "wb") as out:  # by handle: np.savez would add .npz to a name
        np.savez(out, header=np.array(header), keys=keys[used], values=values[used], flags=flags[used],
                 actions=actions[used], works=works[used])  # fmt: skip
    return int(used.size)


def load(path: Path, about: dict[str, object]) -> tuple[tuple[np.ndarray, ...], dict[str, float]]:
    """The entries (keys, values, flags, actions, works) of a file written by :func:`save` for the same
    ``about``, and its progress; a file for anything else, or not a table, is a one-line error."""
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            entries = tuple(data[name] for name in ("keys", "values", "flags", "actions", "works"))
    except OSError as exc:
        raise BattlelogError(f"{path}: cannot read ({exc.strerror or type(exc).__name__})") from None
    except (ValueError, KeyError, EOFError, zipfile.BadZipFile):  # JSONDecodeError is a ValueError
        # numpy's own words would advise loading the file "unsafely" with allow_pickle: never passed on
        raise BattlelogError(f"{path}: not a table of solved states (the file battlelog optimal --table writes)") from None
    if not isinstance(header, dict):
        raise BattlelogError(f"{path}: not a table of solved states (its header is not an object)")
    for key, want in about.items():
        if header.get(key) != want:
            what = "code of the search" if key == "code" else key
            raise BattlelogError(
                f"{path}: a table for another {what} ({header.get(key)!r}, here {want!r}); delete it or name another file"
            )
    progress = header.get("progress")
    if not isinstance(progress, dict) or not all(isinstance(progress.get(k), (int, float)) for k in PROGRESS):
        return entries, {}  # what earlier runs did is only reported: a damaged record of it is dropped
    return entries, {k: progress[k] for k in PROGRESS}


__all__ = ["FORMAT", "code_digest", "identity", "load", "save"]
