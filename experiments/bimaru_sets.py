"""The public Bimaru puzzle sets the benchmark reads (experiments/bench_bimaru.py --set DIR), from a checkout
of their repositories (docs/bimaru.md says how to get them); their data stays outside this repository.

- goncalobarias/Bimaru-IA: ``tests/*.txt`` in the ROW/COLUMN/HINT text format (the 10x10 Bimaru fleet, no
  contact), each with its solution in ``tests/*.out`` (``.`` water, letters the pieces, upper case the
  revealed ones).
- cschuerc/BimaruSolver: 24 puzzles (6x6, 8x8, 10x10) as C# initialisers in
  ``Bimaru.Database/SeedGameDb.cs``: the tallies per row and column, the ships per length (index 0: length
  1) and the revealed cells ``new(row, col, BimaruValue.X)``. Row indices grow upwards there (``UP`` is row
  + 1), so a ship that continues up from a cell has that cell as its top end in battlelog's rows, which grow
  downwards: the board is read as it is stored, mirrored, which changes no count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from battlelog.tallies.puzzle import BOTTOM, LEFT, MIDDLE, RIGHT, SHIP, SINGLE, TOP, WATER, Puzzle, read_puzzle


@dataclass(frozen=True)
class Named:
    """A puzzle of a set, its name, and its given solution's ship cells (``None``: the set gives none)."""

    name: str
    puzzle: Puzzle
    solution: frozenset[tuple[int, int]] | None


#: cschuerc's field values as battlelog's pieces (a ship that continues up, to row + 1, has its top end there
#: in battlelog's rows, which grow downwards: the board mirrored, see the module's docstring).
_VALUES = {
    "WATER": WATER,
    "SHIP_CONT_UP": TOP,
    "SHIP_CONT_DOWN": BOTTOM,
    "SHIP_CONT_RIGHT": LEFT,
    "SHIP_CONT_LEFT": RIGHT,
    "SHIP_MIDDLE": MIDDLE,
    "SHIP_SINGLE": SINGLE,
    "SHIP_UNDETERMINED": SHIP,
}


def load_set(folder: Path) -> list[Named]:
    """Every puzzle of a checkout of either public set, by what the folder holds."""
    seed = folder / "Bimaru.Database" / "SeedGameDb.cs"
    if seed.is_file():
        return _cschuerc(seed.read_text(encoding="utf-8-sig"))
    texts = sorted((folder / "tests").glob("*.txt"))
    if not texts:
        raise SystemExit(f"{folder}: neither tests/*.txt (goncalobarias/Bimaru-IA) nor {seed.name} (cschuerc/BimaruSolver)")
    return [_text_puzzle(path) for path in texts]


def _text_puzzle(path: Path) -> Named:
    """A text puzzle and the ship cells of its ``.out`` solution beside it (when there is one)."""
    out = path.with_suffix(".out")
    cells = None
    if out.is_file():
        lines = [line.strip() for line in out.read_text().splitlines() if line.strip()]
        cells = frozenset((r, c) for r, line in enumerate(lines) for c, ch in enumerate(line) if ch not in ".Ww")
    return Named(path.stem, read_puzzle(path.read_text(), source=str(path)), cells)


def _numbers(text: str) -> tuple[int, ...]:
    """The integers of a C# array initialiser's body."""
    return tuple(int(x) for x in re.findall(r"\d+", text))


def _cschuerc(source: str) -> list[Named]:
    """The games of SeedGameDb.cs, one per ``NumberOfRows`` block."""
    out = []
    blocks = source.split("NumberOfRows")[1:]
    for i, block in enumerate(blocks):
        rows = int(re.match(r"\s*=\s*(\d+)", block).group(1))  # type: ignore[union-attr]
        cols = int(re.search(r"NumberOfColumns\s*=\s*(\d+)", block).group(1))  # type: ignore[union-attr]
        row_counts = _numbers(re.search(r"PerRow\s*=\s*new\[\]\s*\{([^}]*)\}", block).group(1))  # type: ignore[union-attr]
        col_counts = _numbers(re.search(r"PerColumn\s*=\s*new\[\]\s*\{([^}]*)\}", block).group(1))  # type: ignore[union-attr]
        per_length = _numbers(re.search(r"PerLength\s*=\s*new\[\]\s*\{([^}]*)\}", block).group(1))  # type: ignore[union-attr]
        ships = tuple(length for length, n in enumerate(per_length, 1) for _ in range(n))
        hints = {
            (int(r), int(c)): _VALUES[value] for r, c, value in re.findall(r"new\((\d+),\s*(\d+),\s*BimaruValue\.(\w+)\)", block)
        }
        puzzle = Puzzle(rows, cols, tuple(sorted(ships, reverse=True)), row_counts, col_counts, hints)
        out.append(Named(f"game{i + 1:02d}-{rows}x{cols}", puzzle, None))
    return out
