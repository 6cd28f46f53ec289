"""The questions a captain may ask: yes/no programs only (the spotter answers yes or no).

The default bank is the human programs of the BattleshipQA CSV adapted to the board's colours (Rothe
et al.'s ships were Blue, Red and Purple; Blue is read as Green, the colour their boards lack) and a
generated family: every tile's colour (one question per tile and colour), every ship's length and
orientation, whether a ship has a tile in a given row or column, whether two ships touch. Programs
that do not give a yes/no answer are left out; ``--bank FILE`` gives another list, every line of
which must be a yes/no program.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from battlelog.errors import BattlelogError
from battlelog.questions.bankfile import read_bank
from battlelog.questions.language import Type
from battlelog.questions.typecheck import Program, compile_program
from battlelog.wording import clip

#: Rothe et al.'s colours that the BattleshipQA boards do not have, and the colour asked instead.
RENAMED = {"Blue": "Green"}


def generated(rows: int, cols: int, names: Sequence[str], lengths: Sequence[int]) -> list[str]:
    """The generated family of yes/no programs for a board and fleet."""
    tiles = [f"{r}-{c}" for r in range(1, rows + 1) for c in range(1, cols + 1)]
    out = [f"(== (color {tile}) {name})" for tile in tiles for name in names]
    out += [f"(== (size {name}) {length})" for name in names for length in sorted(set(lengths))]
    out += [f"(== (orient {name}) H)" for name in names]
    for name in names:
        out += [f"(any (map (lambda y0 (== (rowL y0) {r})) (coloredTiles {name})))" for r in range(1, rows + 1)]
        out += [f"(any (map (lambda y0 (== (colL y0) {c})) (coloredTiles {name})))" for c in range(1, cols + 1)]
    out += [f"(touch {a} {b})" for a, b in itertools.combinations(names, 2)]
    return out


def adapted(program: str) -> str:
    """A human program with Rothe's colours read as the board's."""
    for old, new in RENAMED.items():
        program = re.sub(rf"\b{old}\b", new, program)
    return program


def yes_no(texts: Iterable[str], names: Sequence[str], rows: int, cols: int) -> list[Program]:
    """The distinct programs among ``texts`` that give a yes/no answer, in order (each must compile)."""
    out, seen = [], set()
    for text in texts:
        if text not in seen:
            seen.add(text)
            program = compile_program(text, names, rows, cols)
            if program.type == Type.BOOL:
                out.append(program)
    return out


def default_bank(human_csv: Path | None, rows: int, cols: int, names: Sequence[str], lengths: Sequence[int]) -> list[Program]:
    """The human programs (when the CSV is given) adapted, then the generated family; a human program
    that does not compile on this board is refused naming its line."""
    human = []
    for line, text in read_bank(human_csv) if human_csv is not None else []:
        try:
            compile_program(adapted(text), names, rows, cols)
        except BattlelogError as exc:
            raise BattlelogError(f"{human_csv}, line {line}: {clip(repr(text))}: {exc}") from None
        human.append(adapted(text))
    return yes_no([*human, *generated(rows, cols, names, lengths)], names, rows, cols)


def file_bank(path: Path, names: Sequence[str], rows: int, cols: int) -> list[Program]:
    """Every program of a bank file; one that does not compile or is not yes/no is refused naming its line."""
    out = []
    for line, text in read_bank(path):
        try:
            program = compile_program(text, names, rows, cols)
        except BattlelogError as exc:
            raise BattlelogError(f"{path}, line {line}: {clip(repr(text))}: {exc}") from None
        if program.type != Type.BOOL:
            raise BattlelogError(
                f"{path}, line {line}: {clip(repr(text))} is not a yes/no question (it answers a {program.type.value})"
            )
        out.append(program)
    return out
