"""A bank of question programs in a file: one program a line (``#`` starts a comment), or a CSV with
a ``code`` column (the BattleshipQA CSV of human questions is one). Read by ``battlelog ask --bank``
and by the captains' banks.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from battlelog.errors import BattlelogError
from battlelog.jsonfile import read_text


def read_bank(path: Path) -> list[tuple[int, str]]:
    """The distinct programs of a bank file with the line each first appears on."""
    text = read_text(path)
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        if reader.fieldnames is None or "code" not in reader.fieldnames:
            raise BattlelogError(f'{path}: a CSV bank needs a "code" column')
        lines = [(reader.line_num, row["code"] or "") for row in reader]
    else:
        lines = list(enumerate(text.splitlines(), 1))
    first: dict[str, int] = {}
    for number, line in lines:
        if line.strip() and not line.lstrip().startswith("#"):
            first.setdefault(line.strip(), number)
    if not first:
        raise BattlelogError(f"{path}: holds no program")
    return [(number, program) for program, number in first.items()]
