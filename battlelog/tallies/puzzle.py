"""A tallies puzzle as data: the board, the fleet, row and column tallies (any may be missing), revealed
pieces and the touch rule; read from the JSON of docs/bimaru.md or the text format of public Bimaru sets,
and validated so that every fault is one line.

A revealed piece says what lies on one cell, as a Bimaru grid shows it: ``water``, ``ship`` (some ship,
shape unknown: a hit), ``single`` (a ship of length 1), ``top``/``bottom`` (the ends of a vertical ship),
``left``/``right`` (the ends of a horizontal one) and ``middle`` (a cell with ship on two opposite sides).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from battlelog.digits import whole_number
from battlelog.errors import FileFormatError, FleetError
from battlelog.jsonfile import check_keys, parse_json
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell
from battlelog.rules.variants import NONE, Rules
from battlelog.wording import NUMBER_LIMIT, clip, number_text

WATER, SHIP, SINGLE, TOP, BOTTOM, LEFT, RIGHT, MIDDLE = "water", "ship", "single", "top", "bottom", "left", "right", "middle"
PIECES = (WATER, SHIP, SINGLE, TOP, BOTTOM, LEFT, RIGHT, MIDDLE)
#: The letters of the text format (``HINT row col X``); ``C`` (circle) is a single, ``S`` any ship cell.
LETTERS = {"W": WATER, "C": SINGLE, "T": TOP, "B": BOTTOM, "L": LEFT, "R": RIGHT, "M": MIDDLE, "S": SHIP}
#: The usual Bimaru fleet on 10x10: one of 4, two of 3, three of 2, four of 1.
BIMARU_FLEET = (4, 3, 3, 2, 2, 2, 1, 1, 1, 1)
#: Shot answers as pieces: a miss shows water, a hit shows some ship.
SHOT_PIECES = {"miss": WATER, "hit": SHIP}


@dataclass(frozen=True)
class Puzzle:
    """A board of ``rows`` x ``cols``, the fleet's lengths (equal lengths alike), tallies (``None``: not
    given), revealed pieces by cell and the touch rule. Constructing one validates it."""

    rows: int
    cols: int
    ships: tuple[int, ...]
    row_counts: tuple[int | None, ...]
    col_counts: tuple[int | None, ...]
    hints: Mapping[Cell, str] = field(default_factory=dict)
    touch: str = NONE

    def __post_init__(self) -> None:
        check_puzzle(self)

    @property
    def lengths(self) -> Counter[int]:
        """How many ships of each length the fleet has."""
        return Counter(self.ships)

    def to_json(self) -> dict[str, Any]:
        """The puzzle's JSON (docs/bimaru.md): what ``from_json`` reads back."""
        return {
            "rows": self.rows,
            "cols": self.cols,
            "ships": list(self.ships),
            "row_counts": list(self.row_counts),
            "col_counts": list(self.col_counts),
            "hints": [{"row": r, "col": c, "piece": p} for (r, c), p in sorted(self.hints.items())],
            "touch": self.touch,
        }

    def with_hints(self, hints: Mapping[Cell, str]) -> Puzzle:
        """The same puzzle with ``hints`` revealed instead of its own."""
        return Puzzle(self.rows, self.cols, self.ships, self.row_counts, self.col_counts, dict(hints), self.touch)


def _whole(value: Any, what: str, low: int = 0) -> int:
    """``value`` as a whole number >= ``low``, or a one-line FileFormatError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        shown = number_text(value) if isinstance(value, int) else clip(repr(value))
        raise FileFormatError(f"{what} must be a whole number >= {low}, got {shown}")
    return value


def check_puzzle(p: Puzzle) -> None:
    """Every fault of a puzzle a solver would otherwise meet late, as one line: the board, fleet and
    touch rule as every game checks them (:class:`GameConfig`), tallies that do not fit their line or do
    not sum to the fleet, pieces off the board or unknown."""
    GameConfig(_whole(p.rows, "rows", 1), p.ships, Rules(touch=p.touch), cols=_whole(p.cols, "cols", 1))
    if max(Counter(p.ships).values()) > 127:
        raise FileFormatError("more than 127 ships of one length: the counter keeps each length's count in a byte")
    total = sum(p.ships)
    for name, counts, length, other in (("row", p.row_counts, p.rows, p.cols), ("column", p.col_counts, p.cols, p.rows)):
        if len(counts) != length:
            raise FileFormatError(f"{len(counts)} {name} tallies for {length} {name}s")
        for i, count in enumerate(counts):
            if count is not None and _whole(count, f"{name} {i}'s tally") > other:
                raise FileFormatError(f"{name} {i}'s tally {number_text(count)} is larger than the {other} cells of the {name}")
        given = [c for c in counts if c is not None]
        if len(given) == length and sum(given) != total:
            raise FileFormatError(f"the {name} tallies sum to {sum(given)}, but the fleet has {total} ship cells")
        if sum(given) > total:
            raise FileFormatError(f"the given {name} tallies sum to {sum(given)}, more than the fleet's {total} ship cells")
    for (r, c), piece in p.hints.items():
        if not (0 <= r < p.rows and 0 <= c < p.cols):
            raise FileFormatError(f"hint at row {number_text(r)}, column {number_text(c)} is off the {p.rows}x{p.cols} board")
        if piece not in PIECES:
            raise FileFormatError(f"unknown piece {clip(repr(piece))} at row {r}, column {c}; choose one of {', '.join(PIECES)}")


def _tallies(data: Mapping[str, Any], key: str, length: int) -> tuple[int | None, ...]:
    """A tallies list of the JSON (``null`` entries: not given); a missing key gives none."""
    value = data.get(key, [None] * length)
    if not isinstance(value, list):
        raise FileFormatError(f"{key!r} must be a list of whole numbers or null, got {clip(repr(value))}")
    return tuple(None if v is None else _whole(v, f"an entry of {key!r}") for v in value)


def _hint_cells(items: Any, what: str, pieces: Mapping[str, str]) -> dict[Cell, str]:
    """Hints (``{"row", "col", "piece"}``) or shots (``{"row", "col", "result"}``) as pieces by cell;
    two different pieces on one cell contradict."""
    if not isinstance(items, list):
        raise FileFormatError(f"{what} must be a list of objects, got {clip(repr(items))}")
    out: dict[Cell, str] = {}
    key = "piece" if what == "hints" else "result"
    for item in items:
        if not isinstance(item, dict) or not {"row", "col", key} <= set(item):
            raise FileFormatError(f"each of {what} needs 'row', 'col' and {key!r}, got {clip(repr(item))}")
        cell = (_whole(item["row"], "a hint's row"), _whole(item["col"], "a hint's column"))
        piece = pieces.get(item[key]) if isinstance(item[key], str) else None
        if piece is None:
            raise FileFormatError(
                f"unknown {key} {clip(repr(item[key]))} at row {number_text(cell[0])}, column {number_text(cell[1])};"
                f" choose one of {', '.join(pieces)}"
            )
        add_hint(out, cell, piece)
    return out


def add_hint(hints: dict[Cell, str], cell: Cell, piece: str) -> None:
    """Record ``piece`` on ``cell``; a different piece there before is a contradiction (``ship`` is
    refined by any ship piece)."""
    old = hints.get(cell)
    if old is None or old == piece or (old == SHIP and piece != WATER):
        hints[cell] = piece
    elif not (piece == SHIP and old != WATER):
        raise FileFormatError(f"hints contradict at row {number_text(cell[0])}, column {number_text(cell[1])}: {old} and {piece}")


def puzzle_from_json(data: Any, source: str = "the puzzle") -> Puzzle:
    """A puzzle from its JSON: ``rows``/``cols`` (or ``size``), ``ships`` (the Bimaru fleet by default),
    ``row_counts``, ``col_counts``, ``hints``, ``shots`` (miss or hit) and ``touch`` (``none`` by default);
    ``source`` names the file in errors."""
    if not isinstance(data, dict):
        raise FileFormatError(f"{source}: a puzzle must be a JSON object")
    check_keys(data, ("size", "rows", "cols", "ships", "row_counts", "col_counts", "hints", "shots", "touch"), source)
    rows = _whole(data.get("rows", data.get("size", 10)), "rows", 1)
    cols = _whole(data.get("cols", data.get("size", rows)), "cols", 1)
    ships = data.get("ships", list(BIMARU_FLEET))
    if not isinstance(ships, list) or not ships:
        raise FileFormatError(f"'ships' must be a non-empty list of lengths, got {clip(repr(ships))}")
    hints = _hint_cells(data.get("hints", []), "hints", {p: p for p in PIECES})
    for cell, piece in _hint_cells(data.get("shots", []), "shots", SHOT_PIECES).items():
        add_hint(hints, cell, piece)
    touch = data.get("touch", NONE)
    fleet = tuple(_whole(s, "a ship length", 1) for s in ships)
    return _built(
        "ships" not in data,
        rows,
        cols,
        fleet,
        _tallies(data, "row_counts", rows),
        _tallies(data, "col_counts", cols),
        hints,
        touch,
    )


def _built(defaulted: bool, *fields: Any) -> Puzzle:
    """``Puzzle(*fields)``; when the fleet was not given and does not fit the board, the one-line error
    says the default fleet was used and how to give the puzzle's own (the spec has no default per size)."""
    try:
        return Puzzle(*fields)
    except FleetError as error:
        if not defaulted or "ship" not in str(error):  # a board too large says so without the fleet
            raise
        raise FleetError(
            f"{error}: no fleet was given, so the 10x10 Bimaru fleet {','.join(map(str, BIMARU_FLEET))} was used; "
            "give the puzzle's fleet with --ships (e.g. --ships 2,1) or \"ships\" in a JSON puzzle"
        ) from None


def puzzle_from_text(text: str, ships: Sequence[int] | None = None, touch: str = NONE) -> Puzzle:
    """A puzzle in the public sets' text format: a ``ROW`` line of tallies, a ``COLUMN`` line, the number
    of hints, then ``HINT row col X`` lines (X one of W C T B L R M, or S for a ship cell of unknown shape);
    the fleet is ``ships``, the 10x10 Bimaru fleet when not given."""
    lines = [line.split() for line in text.splitlines() if line.strip()]
    if len(lines) < 3 or lines[0][0].upper() != "ROW" or lines[1][0].upper() != "COLUMN":
        raise FileFormatError("a text puzzle starts with a ROW line of tallies, a COLUMN line and the number of hints")
    row_counts, col_counts = (tuple(_tally_word(w) for w in line[1:]) for line in lines[:2])
    stated = whole_number(lines[2][0]) if len(lines[2]) == 1 else None
    if stated is None:
        raise FileFormatError(f"the third line must be the number of hints, got {clip(' '.join(lines[2]))}")
    if stated != len(lines) - 3:
        raise FileFormatError(f"the puzzle says {number_text(stated)} hints but has {len(lines) - 3} HINT lines")
    hints: dict[Cell, str] = {}
    for line in lines[3:]:
        cell = (whole_number(line[1]), whole_number(line[2])) if len(line) == 4 and line[0].upper() == "HINT" else (None, None)
        if cell[0] is None or cell[1] is None:
            raise FileFormatError(f"a hint line is 'HINT row col X', got {clip(' '.join(line))}")
        letter = line[3].upper()
        if letter not in LETTERS:
            raise FileFormatError(
                f"unknown piece letter {clip(line[3])} at row {cell[0]}, column {cell[1]}; choose one of {' '.join(LETTERS)}"
            )
        add_hint(hints, (cell[0], cell[1]), LETTERS[letter])
    fleet = BIMARU_FLEET if ships is None else tuple(ships)
    return _built(ships is None, len(row_counts), len(col_counts), fleet, row_counts, col_counts, hints, touch)


def _tally_word(word: str) -> int | None:
    """One tally of a text line: a whole number, or ``?``/``-``/``.`` for one not given."""
    if word in ("?", "-", "."):
        return None
    value = whole_number(word)
    if value is None:
        raise FileFormatError(
            f"a tally must be a whole number in digits 0-9 (or ? when not given), got {clip(word, NUMBER_LIMIT)}"
        )
    return value


def read_puzzle(text: str, ships: Sequence[int] | None = None, touch: str | None = None, source: str = "the puzzle") -> Puzzle:
    """A puzzle from a file's text, JSON (read strictly, :func:`parse_json`) or the text format by its
    first character (``{`` or ``[``: JSON); ``ships`` and ``touch`` given here override the file's;
    ``source`` names the file."""
    if text.lstrip().startswith(("{", "[")):
        data = parse_json(text, source)
        if isinstance(data, dict) and ships is not None:
            data = {**data, "ships": list(ships)}
        if isinstance(data, dict) and touch is not None:
            data = {**data, "touch": touch}
        return puzzle_from_json(data, source)
    return puzzle_from_text(text, ships, NONE if touch is None else touch)
