"""Reading the JSON files people hand to battlelog, strictly: one-line errors that name the file.

Python's ``json`` module accepts a repeated key and keeps the last value, so a file whose second
``"shots"`` silently replaces the first would be read as another game; and a file that is not UTF-8
would raise a decoding error far from the file's name. Both are refused here.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

from battlelog.errors import FileFormatError


class _RepeatedKey(ValueError):
    """Raised from inside ``json.loads`` when an object names a key twice."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKey(key)
        out[key] = value
    return out


def parse_json(text: str, source: str) -> Any:
    """The JSON value of ``text``; invalid JSON or a repeated key is a FileFormatError naming ``source``."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except _RepeatedKey as exc:
        raise FileFormatError(f"{source}: key {exc.args[0]!r} appears twice in one object") from None
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno})") from None


def read_text(path: Path) -> str:
    """The file as UTF-8 text (a leading byte-order mark is allowed); unreadable or not UTF-8 is one line."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FileFormatError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def read_json(path: str | Path) -> Any:
    """The JSON value stored in a file, read by :func:`read_text` and :func:`parse_json`."""
    path = Path(path)
    return parse_json(read_text(path), str(path))


def check_keys(data: dict[str, Any], allowed: Collection[str], where: str) -> None:
    """Refuse a key outside ``allowed`` (a misspelt key must not be read as a missing one)."""
    for key in data:
        if key not in allowed:
            close = difflib.get_close_matches(key, list(allowed), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f"; expected only {', '.join(map(repr, allowed))}"
            raise FileFormatError(f"{where}: unknown key {key!r}{hint}")
