"""The pieces of a split search and the file that keeps them (:mod:`battlelog.optimum.split`): the children
of one first shot per class of the board's symmetries, and each one's exact total (or, when the search
only had to decide the optimum, a proven lower bound) once found."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from battlelog.errors import BattlelogError
from battlelog.files import write_text
from battlelog.jsonfile import read_json
from battlelog.optimum import search
from battlelog.optimum.layouts import SINK_MODES
from battlelog.rules.answers import HIT_CODE, MISS_CODE, SUNK_CODE
from battlelog.rules.config import GameConfig

if TYPE_CHECKING:
    from battlelog.optimum.solver import Solver

#: Bumped whenever what a file holds changes (2: a piece may hold a proven lower bound instead of its total;
#: files of format 1, totals only, are read as they are).
FORMAT = 2
READ_FORMATS = (1, 2)


@dataclass(frozen=True)
class Piece:
    """One child of the root: the layouts that answer ``answer`` (a search answer code) to a first shot at
    cell number ``shot``, with the hits that leaves."""

    shot: int
    answer: int
    layouts: np.ndarray
    hits: int

    def name(self, cols: int) -> str:
        """The piece's key in the file: its shot as row,col and its answer."""
        row, col = divmod(self.shot, cols)
        word = "miss" if self.answer == MISS_CODE else "hit" if self.answer == HIT_CODE else f"sunk{self.answer - SUNK_CODE}"
        return f"{row},{col} {word}"


def first_shot_pieces(solver: Solver) -> list[Piece]:
    """The children of one first shot per symmetry class (the lowest cell number of each class), for
    every cell some layout covers (a certain miss is never optimal), largest first."""
    t, config = solver.layouts, solver.config
    everything = np.arange(len(t), dtype=np.int32)
    kinds = len(config.ships) + SUNK_CODE
    pieces = []
    for x in range(config.cell_count):
        if int(solver.symmetries.cells[:, x].min()) != x or not (t.owner[:, x] >= 0).any():
            continue
        answer, sizes = np.empty(len(t), dtype=np.int8), np.zeros(kinds, dtype=np.int64)
        search._answers(everything, np.uint64(0), x, t.ship_masks, t.owner, SINK_MODES[config.rules.sinks], answer, sizes)
        for kind in np.flatnonzero(sizes):
            hits = 0 if kind == MISS_CODE else 1 << x
            pieces.append(Piece(x, int(kind), search._child(everything, answer, int(kind), int(sizes[kind])), hits))
    return sorted(pieces, key=lambda p: (-len(p.layouts), p.shot, p.answer))


@dataclass(frozen=True)
class Solved:
    """A piece's exact total (or with ``exact`` False, a proven lower bound on it) and what its search cost."""

    total: int
    seconds: float
    nodes: int
    exact: bool = True


class SplitRecord:
    """The file of solved pieces: one JSON object, rewritten whole after each piece (nothing solved is
    lost to a crash mid-write), tied to the instance it was made for."""

    def __init__(self, path: Path, config: GameConfig, n_layouts: int) -> None:
        self.path = path
        self.about = {"instance": config.label(), "layouts": n_layouts}
        self.solved: dict[str, Solved] = {}
        if path.exists():
            self._read()

    def _read(self) -> None:
        data = read_json(self.path)
        if not isinstance(data, dict) or not isinstance(data.get("pieces"), dict):
            raise BattlelogError(f'{self.path}: not a record of a split search (no "pieces" object)')
        if data.get("format") not in READ_FORMATS:
            raise BattlelogError(
                f"{self.path}: a record of format {data.get('format')!r}, not one of {READ_FORMATS};"
                " delete it or name another file"
            )
        for key, want in self.about.items():
            if data.get(key) != want:
                raise BattlelogError(
                    f"{self.path}: a record for another {key} ({data.get(key)!r}, here {want!r}); delete it or name another file"
                )
        for name, entry in data["pieces"].items():
            exact = not (isinstance(entry, dict) and "at_least" in entry)
            values = [
                entry.get(k) if isinstance(entry, dict) else None for k in ("total" if exact else "at_least", "seconds", "nodes")
            ]
            if not (
                isinstance(values[0], int)
                and values[0] >= 0
                and isinstance(values[1], (int, float))
                and isinstance(values[2], int)
            ):
                raise BattlelogError(
                    f'{self.path}: piece {name!r} is not {{"total" (or "at_least"): int >= 0, "seconds": number, "nodes": int}}'
                )
            self.solved[name] = Solved(values[0], float(values[1]), values[2], exact)

    def add(self, name: str, solved: Solved) -> None:
        """Record one more piece searched (the file is rewritten at once); a bound it replaces adds its cost."""
        before = self.solved.get(name)
        if before is not None and not before.exact:
            solved = Solved(solved.total, solved.seconds + before.seconds, solved.nodes + before.nodes, solved.exact)
        self.solved[name] = solved
        pieces = {
            k: {"total" if v.exact else "at_least": v.total, "seconds": round(v.seconds, 1), "nodes": v.nodes}
            for k, v in sorted(self.solved.items())
        }
        write_text(self.path, json.dumps({"format": FORMAT, **self.about, "pieces": pieces}, indent=1) + "\n", regular=True)
