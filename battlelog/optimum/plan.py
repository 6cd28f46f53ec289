"""Which piece of a split search to search next, and how far (:mod:`battlelog.optimum.split`).

A first shot's total is |L| plus its pieces' totals. Solving every piece exactly gives every first shot's
value. To decide only the optimum (``decide``), a piece need only be searched below the total that would
let its shot beat the best shot solved so far (:meth:`~battlelog.optimum.solver.Solver.total` with
``below``): once its shot's lower bound (the pieces' totals, their proven bounds, or for a piece not yet
searched the fleet's cells still to hit in each of its layouts) reaches the best total, the shot is out,
whatever its exact value. Shots are taken in the order of their lower bounds before any search (the
cell most layouts cover first: greedy's first shot), one shot's pieces at a time, largest first as in a
full split. What it saves depends on how much the pieces share: on 4x4 3,2,2 almost nothing (the first
piece's search fills the table the others read), on 5x5 3,2 the corner's miss, a search of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from battlelog.optimum.pieces import Piece, Solved, SplitRecord
from battlelog.rules.geometry import Cell


@dataclass(frozen=True)
class ShotValue:
    """A first shot's expected shots: exact, or (``exact`` False) a proven lower bound that the optimum
    does not exceed, enough to say the shot cannot beat it."""

    cell: Cell
    value: Fraction
    exact: bool


class Plan:
    """The pieces still to search, given what ``kept`` holds; ``decide``: only as far as the optimum needs."""

    def __init__(self, pieces: list[Piece], kept: SplitRecord, n_layouts: int, fleet_cells: int, cols: int, decide: bool) -> None:
        self.pieces, self.kept, self.decide = pieces, kept, decide
        self.n_layouts, self.fleet_cells, self.cols = n_layouts, fleet_cells, cols
        self.shots: dict[int, list[int]] = {}
        for index, piece in enumerate(pieces):
            self.shots.setdefault(piece.shot, []).append(index)
        #: The order in which deciding takes the shots: least lower bound from nothing searched first.
        self.order = sorted(self.shots, key=lambda s: (sum(self._cells_left(i) for i in self.shots[s]), s))

    def _solved(self, index: int) -> Solved | None:
        """What the record holds of piece ``index``."""
        return self.kept.solved.get(self.pieces[index].name(self.cols))

    def exact(self, index: int) -> bool:
        """Whether piece ``index`` has its exact total in the record."""
        solved = self._solved(index)
        return solved is not None and solved.exact

    def lower(self, index: int) -> int:
        """Piece ``index``'s total if known, else the best lower bound at hand."""
        solved = self._solved(index)
        if solved is not None and solved.exact:
            return solved.total
        return max(self._cells_left(index), solved.total if solved is not None else 0)

    def _cells_left(self, index: int) -> int:
        """A lower bound on piece ``index``'s total: in each layout, a shot for each ship cell still to hit."""
        piece = self.pieces[index]
        return len(piece.layouts) * (self.fleet_cells - piece.hits.bit_count())

    def shot_lower(self, shot: int) -> int:
        """First shot ``shot``'s total if its pieces are all exact, else a lower bound on it."""
        return self.n_layouts + sum(self.lower(i) for i in self.shots[shot])

    def best(self) -> int | None:
        """The least total of the first shots solved exactly (None while none is)."""
        totals = [self.shot_lower(shot) for shot, indices in self.shots.items() if all(self.exact(i) for i in indices)]
        return min(totals) if totals else None

    def _open(self, shot: int, best: int | None) -> bool:
        """Whether first shot ``shot`` still needs searching."""
        unsolved = not all(self.exact(i) for i in self.shots[shot])
        return unsolved and (not self.decide or best is None or self.shot_lower(shot) < best)

    def left(self) -> int:
        """How many pieces may still be searched (in deciding, at most: a shot may go out before its turn)."""
        best = self.best()
        return sum(not self.exact(i) for shot, indices in self.shots.items() if self._open(shot, best) for i in indices)

    def next(self, busy: set[int]) -> tuple[int, int | None] | None:
        """The next piece to search (not one of ``busy``) and the ``below`` to search it under (None:
        exactly), or None when no piece is left to start."""
        if not self.decide:  # every piece exactly, largest first (the order of ``pieces``)
            index = next((i for i in range(len(self.pieces)) if not self.exact(i) and i not in busy), None)
            return None if index is None else (index, None)
        best = self.best()
        for shot in (s for s in self.order if self._open(s, best)):
            waiting = [i for i in self.shots[shot] if not self.exact(i) and i not in busy]
            if waiting:
                index = min(waiting, key=lambda i: (-len(self.pieces[i].layouts), i))
                below = None if best is None else best - (self.shot_lower(shot) - self.lower(index))
                return index, below
        return None

    def first_shots(self) -> list[ShotValue]:
        """Every first shot's value (exact, or a bound proving it out), best first."""
        values = []
        for shot, indices in self.shots.items():
            exact = all(self.exact(i) for i in indices)
            values.append(ShotValue(divmod(shot, self.cols), Fraction(self.shot_lower(shot), self.n_layouts), exact))
        return sorted(values, key=lambda v: (v.value, not v.exact, v.cell))
