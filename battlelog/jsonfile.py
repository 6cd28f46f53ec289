"""Reading the JSON files people hand to battlelog, strictly: one-line errors that name the file.

Python's ``json`` module accepts a repeated key and keeps the last value, so a file whose second
``"shots"`` silently replaces the first would be read as another game; and a file that is not UTF-8
would raise a decoding error far from the file's name. Both are refused here, and so is what would
otherwise end in a traceback or exhaust memory: a number of more digits than Python converts (4300),
arrays or objects nested deeper than Python's recursion allows, and a file larger than
:data:`MAX_BYTES` (``/dev/zero`` would be read until memory runs out).
"""

from __future__ import annotations

import difflib
import json
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

from battlelog.errors import FileFormatError
from battlelog.wording import clip

#: The largest file read: a game state of the largest board is some 40 kB, a game record a few times that.
MAX_BYTES = 64 * 2**20


class _RepeatedKey(ValueError):
    """Raised from inside ``json.loads`` when an object names a key twice."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object of ``pairs``, refused (the first key repeated) when a key appears twice: the dict is
    built at once, and the pairs looked through only when it came out shorter (a request's state has an
    object a shot, so this runs some 30 times a request)."""
    out = dict(pairs)
    if len(out) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return out


def parse_json(text: str | bytes, source: str) -> Any:
    """The JSON value of ``text`` (bytes are read as UTF-8); anything that is not plain JSON is a
    one-line FileFormatError naming ``source``: invalid JSON, a repeated key, a number too long to
    convert, nesting too deep to read."""
    if isinstance(text, bytes):
        text = _decoded(text, source)
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except _RepeatedKey as exc:
        raise FileFormatError(f"{source}: key {clip(repr(exc.args[0]))} appears twice in one object") from None
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except ValueError:  # int("9" * 5000): Python refuses to convert such a number
        raise FileFormatError(f"{source}: holds a number of more than {sys.get_int_max_str_digits()} digits") from None
    except RecursionError:
        raise FileFormatError(f"{source}: arrays or objects nested too deeply to read") from None


def _decoded(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark is allowed)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def read_text(path: Path, limit: int = MAX_BYTES) -> str:
    """The file as UTF-8 text; unreadable, larger than ``limit`` bytes or not UTF-8 is one line."""
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)  # never more: a device or a huge file is refused, not read whole
    except OSError as exc:
        raise FileFormatError(f"{path}: cannot read ({exc.strerror})") from None
    if len(data) > limit:
        raise FileFormatError(f"{path}: larger than {limit:,} bytes, too large for a battlelog JSON file")
    return _decoded(data, str(path))


def read_json(path: str | Path) -> Any:
    """The JSON value stored in a file, read by :func:`read_text` and :func:`parse_json`."""
    path = named_file(path)
    return parse_json(read_text(path), str(path))


def named_file(path: str | Path) -> Path:
    """``path`` as a Path, an empty or blank name refused in one line: ``Path("")`` is the current folder,
    which would be reported as a folder that cannot be read rather than as the empty name it was."""
    if isinstance(path, str) and not path.strip():
        raise FileFormatError(f"the file name {path!r} is empty: give the path of the file to read")
    return Path(path)


def check_keys(data: dict[str, Any], allowed: Collection[str], where: str) -> None:
    """Refuse a key outside ``allowed`` (a misspelt key must not be read as a missing one)."""
    for key in data:
        if key not in allowed:
            close = difflib.get_close_matches(key, list(allowed), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f"; expected only {', '.join(map(repr, allowed))}"
            raise FileFormatError(f"{where}: unknown key {clip(repr(key))}{hint}")
