"""A question-asking game's state: named ships, a revealed board, answered questions; read from JSON.

Its own format (docs/questions.md), read with battlelog's strict JSON reader: named ships whose
lengths may be unknown, the board as the question datasets write it (``"H,W,R,..."`` a row), hits
that name the ship, answers to earlier questions as evidence, yes/no answers wrong with chance
``noise``. :meth:`QuestionState.space` lists the layouts that fit it with their posterior weights.
Integrating named ships into battlelog's main engines (GameState, the native counter) is a later step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from battlelog.errors import BattlelogError, FileFormatError, StateError
from battlelog.jsonfile import check_keys, read_json
from battlelog.questions.answers import answer_from_json
from battlelog.questions.language import ProgramError, read_atom
from battlelog.questions.scoped import Space, lift_full
from battlelog.questions.space import DEFAULT_BUDGET, Fleet, ShipTable, agreeing, enumerate_layouts, prior_weights, tables_for
from battlelog.questions.typecheck import compile_program
from battlelog.questions.vectorised import evaluate
from battlelog.wording import clip, number_text

KEYS = ("size", "rows", "cols", "ships", "lengths", "length_prior", "rules", "board", "answers", "noise")
#: The most cells a board may have: a layout's cells are one 64-bit mask.
MAX_CELLS = 64
HIDDEN, WATER, SHIP = -1, 0, -2  # board codes besides a ship's colour (1..k)


@dataclass(frozen=True)
class Answered:
    """A question asked and the answer recorded (already read into the evaluator's value)."""

    question: str
    answer: Any


@dataclass(frozen=True)
class QuestionState:
    """The board, the fleet, what the board shows (``board[r][c]``: HIDDEN, WATER, SHIP or a colour)
    and the answers so far, with the chance ``noise`` that a yes/no answer is wrong."""

    rows: int
    cols: int
    fleet: Fleet
    board: tuple[tuple[int, ...], ...]
    answers: tuple[Answered, ...] = ()
    noise: float = 0.0

    @property
    def names(self) -> tuple[str, ...]:
        return self.fleet.names

    def tables(self) -> tuple[ShipTable, ...]:
        return tables_for(self.rows, self.cols, self.fleet)

    def space(self, budget: int = DEFAULT_BUDGET) -> Space:
        """Every layout that fits the board, weighted by the prior and the answers; refused in one
        line when none does."""
        tables = self.tables()
        codes = np.array(self.board, dtype=np.int64).ravel()
        allowed = [agreeing(table, codes, s + 1) for s, table in enumerate(tables)]
        later = self._keep_placements(tables, allowed)
        cover = sum(1 << int(c) for c in np.flatnonzero(codes == SHIP))
        idx = enumerate_layouts(tables, allowed, cover, self.fleet.multiset, budget)
        if idx.shape[1] == 0:
            raise StateError(
                f"no layout of the fleet fits the revealed board{' and the answers' if len(later) < len(self.answers) else ''}"
            )
        space = Space(tables, idx, prior_weights(self.fleet.prior, tables, idx))
        for number in later:
            space = self._observe(space, self.answers[number - 1], number)
        return space

    def _keep_placements(self, tables: tuple[ShipTable, ...], allowed: list[np.ndarray]) -> list[int]:
        """Apply before listing the exact answers about one ship (``(size Red)``): they keep that
        ship's placements that give them. Returns the numbers of the answers left for the layouts."""
        nowhere = Space(tables, np.zeros((len(tables), 0), dtype=np.int32), np.zeros(0))
        later = []
        for number, answered in enumerate(self.answers, 1):
            program = compile_program(answered.question, self.names, self.rows, self.cols)
            value = evaluate(program, nowhere)
            if value.scope < 0 or (program.type.name == "BOOL" and self.noise > 0):
                later.append(number)
                continue
            allowed[value.scope] &= value.data == answered.answer
            if not allowed[value.scope].any():
                raise StateError(
                    f"answers[{number}]: no layout that fits the board and the earlier answers gives "
                    f"{answered.question} this answer"
                )
        return later

    def _observe(self, space: Space, answered: Answered, number: int) -> Space:
        """``space`` with one answer's evidence: exact answers keep the layouts that give them, a
        yes/no answer under noise weighs agreeing layouts 1 - noise and the others noise."""
        program = compile_program(answered.question, self.names, self.rows, self.cols)
        values = lift_full(evaluate(program, space), space)
        agrees = values == answered.answer
        if program.type.name == "BOOL" and self.noise > 0:
            weights = space.weights * np.where(agrees, 1.0 - self.noise, self.noise)
            return Space(space.tables, space.idx, weights)
        if not agrees.any():
            raise StateError(
                f"answers[{number}]: no layout that fits the board and the earlier answers gives {answered.question} this answer"
            )
        return Space(space.tables, space.idx[:, agrees], space.weights[agrees])


# --- reading ---------------------------------------------------------------------------------------


def read_state(path: str | Path) -> QuestionState:
    """The state in a JSON file; anything wrong is one line naming the file and the key."""
    return state_from_json(read_json(path), str(path))


def state_from_json(data: Any, source: str) -> QuestionState:
    """The state a JSON object describes (format: docs/questions.md)."""
    if not isinstance(data, dict):
        raise FileFormatError(f"{source}: a question state is a JSON object")
    check_keys(data, KEYS, source)
    fleet = _fleet(data, source)
    rows, cols, board = _board(data, fleet, source)
    _check_fit(fleet, rows, cols, source)
    noise = data.get("noise", 0.0)
    if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not 0 <= noise <= 0.5:
        raise FileFormatError(
            f"{source}: noise must be a number from 0 to 0.5 (the chance a yes/no answer is wrong), got {clip(repr(noise))}"
        )
    answers = _answers(data.get("answers", []), fleet.names, rows, cols, source)
    return QuestionState(rows, cols, fleet, board, answers, float(noise))


def _name_ok(name: Any) -> bool:
    if not isinstance(name, str) or name == "Water":
        return False
    try:
        return read_atom(name, 1).kind == "name"
    except ProgramError:
        return False


def _length_list(value: Any, where: str) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    if not items or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in items):
        raise FileFormatError(
            f"{where}: a length is a whole number of at least 1 or a non-empty list of them, got {clip(repr(value))}"
        )
    return tuple(sorted(set(items)))


def _fleet(data: Mapping[str, Any], source: str) -> Fleet:
    ships = data.get("ships")
    if not isinstance(ships, list) or not ships:
        raise FileFormatError(f'{source}: "ships" must be a non-empty list of {{"name": ..., "length": ...}}')
    multiset = data.get("lengths")
    names: list[str] = []
    options: list[tuple[int, ...]] = []
    for i, ship in enumerate(ships):
        where = f"{source}: ships[{i}]"
        if not isinstance(ship, dict):
            raise FileFormatError(f'{where}: a ship is an object {{"name": ..., "length": ...}}')
        check_keys(ship, ("name",) if multiset is not None else ("name", "length"), where)
        name = ship.get("name")
        if not _name_ok(name):
            raise FileFormatError(
                f"{where}: name {clip(repr(name))} is not a ship's name (a word such as Red, not a keyword, location or variable)"
            )
        if name in names:
            raise FileFormatError(f"{where}: two ships are named {name}")
        names.append(str(name))
        if multiset is None:
            if "length" not in ship:
                raise FileFormatError(f'{where}: no "length" (or give the fleet\'s "lengths")')
            options.append(_length_list(ship["length"], where))
    if multiset is not None:
        if not isinstance(multiset, list) or len(multiset) != len(ships):
            raise FileFormatError(f'{source}: "lengths" must list one length per ship ({len(ships)}), got {clip(repr(multiset))}')
        options = [_length_list(multiset, f"{source}: lengths")] * len(ships)
        multiset = tuple(sorted(multiset))
    prior = data.get("length_prior", "layouts")
    if prior not in ("layouts", "sizes"):
        raise FileFormatError(f'{source}: length_prior must be "layouts" or "sizes", got {clip(repr(prior))}')
    return Fleet(tuple(names), tuple(options), multiset, prior)


def _check_fit(fleet: Fleet, rows: int, cols: int, source: str) -> None:
    """Refuse a length longer than the board's longer side: no placement has it, and a length of
    a billion, or a list of a hundred thousand, would only make tables of nothing."""
    if fleet.multiset is not None:
        given = [("lengths", fleet.multiset)]
    else:
        given = [(f"ships[{i}]", options) for i, options in enumerate(fleet.options)]
    for where, lengths in given:
        for length in lengths:
            if length > max(rows, cols):
                raise FileFormatError(f"{source}: {where}: length {number_text(length)} does not fit on a {rows}x{cols} board")


def _symbols(names: Sequence[str], hits: str) -> dict[str, int]:
    """What each board symbol means: H hidden, W water, X a ship's tile, a name or an unambiguous initial."""
    out = {"H": HIDDEN, "W": WATER, "X": SHIP}
    if hits == "named":
        initials = [n[0] for n in names]
        for colour, name in enumerate(names, 1):
            out[name] = colour
            if initials.count(name[0]) == 1 and name[0] not in ("H", "W", "X"):
                out[name[0]] = colour
    return out


def _board(data: Mapping[str, Any], fleet: Fleet, source: str) -> tuple[int, int, tuple[tuple[int, ...], ...]]:
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise FileFormatError(f'{source}: rules must be an object such as {{"hits": "named"}}')
    check_keys(rules, ("hits",), f"{source}: rules")
    hits = rules.get("hits", "named")
    if hits not in ("named", "anonymous"):
        raise FileFormatError(f'{source}: rules.hits must be "named" or "anonymous", got {clip(repr(hits))}')
    rows, cols = _dimensions(data, source)
    board = data.get("board")
    if board is None:
        if rows is None or cols is None:
            raise FileFormatError(f'{source}: give "size" (or "rows" and "cols") or a "board"')
        return rows, cols, tuple((HIDDEN,) * cols for _ in range(rows))
    grid = read_board(board, fleet.names, hits, source)
    if (rows is not None and rows != len(grid)) or (cols is not None and cols != len(grid[0])):
        raise FileFormatError(f"{source}: the board is {len(grid)}x{len(grid[0])}, not {rows}x{cols} as its size says")
    return len(grid), len(grid[0]), grid


def _dimensions(data: Mapping[str, Any], source: str) -> tuple[int | None, int | None]:
    size, rows, cols = data.get("size"), data.get("rows", data.get("size")), data.get("cols", data.get("size"))
    if size is not None and ("rows" in data or "cols" in data):
        raise FileFormatError(f'{source}: give "size" or "rows" and "cols", not both')
    for what, value in (("rows", rows), ("cols", cols)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise FileFormatError(f"{source}: {what} must be a whole number of at least 1, got {clip(repr(value))}")
    if rows is not None and cols is not None and rows * cols > MAX_CELLS:
        raise FileFormatError(
            f"{source}: a {rows}x{cols} board has more than {MAX_CELLS} cells, the most the question engine takes"
        )
    return rows, cols


def read_board(lines: Any, names: Sequence[str], hits: str, source: str) -> tuple[tuple[int, ...], ...]:
    """A revealed board, one string a row of comma-separated symbols (the datasets' text files)."""
    if not isinstance(lines, list) or not lines or not all(isinstance(line, str) for line in lines):
        raise FileFormatError(f'{source}: "board" must be a non-empty list of strings such as "H,W,R,H"')
    symbols = _symbols(names, hits)
    grid = []
    for r, line in enumerate(lines):
        row = []
        for c, symbol in enumerate(s.strip() for s in line.split(",")):
            if symbol not in symbols:
                known = "H, W, X" + (", a ship's name or its initial" if hits == "named" else " (hits are anonymous)")
                raise FileFormatError(f"{source}: board row {r + 1}, column {c + 1}: {clip(repr(symbol))} is not one of {known}")
            row.append(symbols[symbol])
        grid.append(tuple(row))
    if len({len(row) for row in grid}) != 1:
        raise FileFormatError(f"{source}: the board's rows have different lengths")
    if len(grid) * len(grid[0]) > MAX_CELLS:
        raise FileFormatError(
            f"{source}: a {len(grid)}x{len(grid[0])} board has more than {MAX_CELLS} cells, the most the question engine takes"
        )
    return tuple(grid)


def _answers(items: Any, names: tuple[str, ...], rows: int, cols: int, source: str) -> tuple[Answered, ...]:
    if not isinstance(items, list):
        raise FileFormatError(f'{source}: "answers" must be a list of {{"question": ..., "answer": ...}}')
    out = []
    for i, item in enumerate(items, 1):
        where = f"{source}: answers[{i}]"
        if not isinstance(item, dict):
            raise FileFormatError(f'{where}: an answer is an object {{"question": ..., "answer": ...}}')
        check_keys(item, ("question", "answer"), where)
        if not isinstance(item.get("question"), str) or "answer" not in item:
            raise FileFormatError(f'{where}: needs a "question" (a program) and its "answer"')
        try:
            program = compile_program(item["question"], names, rows, cols)
            value = answer_from_json(item["answer"], program.type, names, rows, cols)
        except BattlelogError as exc:
            raise FileFormatError(f"{where}: {exc}") from None
        out.append(Answered(item["question"], value))
    return tuple(out)
