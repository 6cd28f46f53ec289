"""The ground model of a game state: which placements the evidence still allows, and what must hold.

Under every rule the posterior is the prior restricted to the layouts that, fed the same shots in the
same order, give exactly the answers that were given (the transcript rule, docs/rules.md). Ships
never share a cell, so the answer to a shot t at x is decided by the one placement p covering x
(miss when none does): "sunk" when p lies inside H_t (the hit cells after shot t, x included),
"hit" otherwise, except that a silent game answers "hit" either way and a named one says which
ship. A layout therefore gives the recorded answers exactly when no ship covers a miss, some ship
covers every hit, and every ship i's placement p passes a test of its own:

- ``named``: every shot that announced "sunk ship i" lies on p, and for every hit shot t on a cell
  of p, (p inside H_t) == (shot t announced "sunk ship i");
- ``unnamed``: for every hit shot t on a cell of p, (p inside H_t) == (shot t announced "sunk");
- ``silent``: nothing (no answer tells sunk from hit; a placement may lie inside the hits freely).

(Under ``named`` a placement of ship j through the cell where ship i was announced sunk passes j's
test when it is not all hit there, but can never be in a layout: ship i's placements all cover that
cell. Keeping it leaves each domain exactly what the standard rules' evidence gives.)

Since every cell of p is shot at most once, p lies inside H_t for a shot t on p exactly when p is
all hit and t is the last of its shots. So under ``named`` and ``unnamed`` p survives iff it avoids
the misses (and, named, covers ship i's sinking shot) and either it is all hit and its last shot, and
only that one, announced the sink (of ship i, when named), or it is not all hit and none of its shots
announced one (of ship i). For ``named`` that is the standard rules' evidence read per ship: a sunk
ship's placements lie inside the hits of its sinking shot and through that shot's cell; an afloat
ship's are not all hit.

So every piece of evidence except "hit" only rules placements in or out, and is applied here once,
by pruning each ship's domain. What remains are three families of constraints over the surviving
placement atoms, which is what compiling engines encode: exactly one placement per ship, at most one
placement per cell (no overlap), and at least one placement per hit cell. The touch rule is a fourth
(no two ships' placements in contact as the rule forbids); it is carried in :attr:`Problem.touch`
for the engines to count. A :class:`Problem` is that, detached from the state, so that it can also
be split into disjoint sub-problems on a cell.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

import numpy as np

from battlelog.errors import Inconsistent
from battlelog.rules.config import fleet_text
from battlelog.rules.geometry import Cell, Placement, cell_name, placement_matrix
from battlelog.rules.state import GameState
from battlelog.rules.variants import ALLOWED, NAMED, SILENT, TOUCH_RULES


@dataclass(frozen=True)
class GroundModel:
    """Per-ship domains of allowed placements plus the hit cells that must be covered."""

    state: GameState
    domains: tuple[tuple[Placement, ...], ...]

    @cached_property
    def hit_cells(self) -> tuple[Cell, ...]:
        """Cells that some placement must cover, row-major."""
        return tuple(sorted(self.state.hits))

    @cached_property
    def covering(self) -> dict[Cell, list[tuple[int, int]]]:
        """For each cell, the ``(ship, index in domain)`` pairs of placements covering it."""
        out: dict[Cell, list[tuple[int, int]]] = {}
        for ship, domain in enumerate(self.domains):
            for j, p in enumerate(domain):
                for cell in p.cells:
                    out.setdefault(cell, []).append((ship, j))
        return out

    def empty_reason(self) -> str | None:
        """Why no layout can satisfy the model, when pruning alone already shows it, else None."""
        for ship, domain in enumerate(self.domains):
            if not domain:
                return f"ship {ship} (length {self.state.ships[ship]}) has no placement left that fits the answers"
        uncovered = set(self.hit_cells)
        for p in (p for domain in self.domains for p in domain):
            if not uncovered:
                break
            uncovered.difference_update(p.cells)
        for cell in self.hit_cells:
            if cell in uncovered:
                return f"no ship can cover the hit at {cell_name(cell)}"
        return None


def ground(state: GameState) -> GroundModel:
    """Prune every ship's canonical placements by the evidence that only rules placements out (the
    module's docstring derives the test from the transcript rule).

    A placement on no shot cell passes exactly when no sink was announced for its ship (under
    ``named``; any sink, under ``unnamed``, is about a placement through its cell): those, most of a
    state's placements, are told apart with one product of the placements' cell matrix, and only the
    placements through a hit are tested one by one.
    """
    rows, n = state.rows, state.cols
    misses = state.misses
    sinks = state.config.rules.sinks
    hit_at = {s.cell: t for t, s in enumerate(state.shots) if s.is_hit}
    shot_cells = np.zeros((rows * n, 2))  # column 0: the misses, column 1: the hits
    shot_cells[[r * n + c for r, c in misses], 0] = 1
    shot_cells[[r * n + c for r, c in hit_at], 1] = 1
    domains = []
    for ship in range(len(state.ships)):
        # The shots that announce this ship's sink (any sink, when sinks are unnamed).
        announced = {t for t in state.sunk_shots if sinks != NAMED or state.shots[t].ship == ship}
        through = {state.shots[t].cell for t in announced} if sinks == NAMED else set()
        placements = state.config.placements(ship)
        shot = _cell_matrix(rows, n, state.ships[ship]) @ shot_cells  # per placement: misses and hits it covers
        clear, on_hits = shot[:, 0] == 0, shot[:, 1] > 0
        # a placement on no shot cell passes every test below, unless it must cover a sinking shot
        keep = clear & ~on_hits if not through else np.zeros(len(placements), dtype=bool)
        for i in np.flatnonzero(clear & on_hits).tolist():
            p = placements[i]
            if not through.issubset(p.cells):
                continue
            if sinks != SILENT:
                shots = [hit_at[cell] for cell in p.cells if cell in hit_at]
                last = max(shots) if len(shots) == len(p.cells) else None
                if {t for t in shots if t in announced} != ({last} if last is not None else set()):
                    continue
            keep[i] = True
        domains.append(tuple([placements[i] for i in np.flatnonzero(keep).tolist()]))
    return GroundModel(state, tuple(domains))


@lru_cache(maxsize=64)
def _cell_matrix(rows: int, cols: int, length: int) -> np.ndarray:
    """``placement_matrix`` in floating point, so that a product with it runs in BLAS (exact: small integers)."""
    out = placement_matrix(rows, cols, length).astype(float)
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class Problem:
    """What a counting engine counts: one placement per ship from its domain, no overlap, required cells
    covered, and no two ships in contact that ``touch`` forbids (``allowed``: any contact is fine;
    ``diagonal``: two ships may meet at a corner, never along a side; ``none``: not even at a corner).

    A :class:`GroundModel` gives one (its hit cells are the required cells); :meth:`split` gives two
    smaller ones that share no layout and together have all of this one's layouts.
    """

    rows: int
    ships: tuple[int, ...]
    domains: tuple[tuple[Placement, ...], ...]
    required: frozenset[Cell]
    #: The touch rule (``battlelog.rules.variants``): ``allowed``, ``diagonal`` or ``none``.
    touch: str = ALLOWED
    #: The board's width (``rows`` when omitted: a square board).
    cols: int = 0

    def __post_init__(self) -> None:
        if self.cols == 0:
            object.__setattr__(self, "cols", self.rows)
        if self.touch not in TOUCH_RULES:
            raise ValueError(f"unknown touch rule {self.touch!r}; expected one of {', '.join(TOUCH_RULES)}")

    @classmethod
    def from_model(cls, model: GroundModel) -> Problem:
        state = model.state
        return cls(state.rows, state.ships, model.domains, frozenset(model.hit_cells), state.config.rules.touch, state.cols)

    @property
    def size(self) -> int:
        """The side of a square board; a rectangular one has none (use ``rows`` and ``cols``)."""
        if self.rows != self.cols:
            raise ValueError(f"the {self.rows}x{self.cols} board is not square")
        return self.rows

    def split(self, cell: Cell) -> tuple[Problem, Problem]:
        """The layouts that leave ``cell`` empty, and those that cover it."""
        empty = tuple(tuple(p for p in domain if cell not in p.cells) for domain in self.domains)
        return replace(self, domains=empty), replace(self, required=self.required | {cell})

    def open_cells(self) -> list[Cell]:
        """Cells some placement covers that are not required: the cells a split can decide."""
        covered = {cell for domain in self.domains for p in domain for cell in p.cells}
        return sorted(covered - self.required)

    def split_cell(self) -> Cell | None:
        """The open cell nearest the board's centre (where a raster sweep's frontier is widest), if any."""
        middle_row, middle_col = (self.rows - 1) / 2, (self.cols - 1) / 2
        cells = self.open_cells()
        return min(cells, key=lambda c: ((c[0] - middle_row) ** 2 + (c[1] - middle_col) ** 2, c)) if cells else None

    def label(self) -> str:
        rule = "" if self.touch == "allowed" else f" (touch {self.touch})"
        return f"{self.rows}x{self.cols} {fleet_text(self.ships)}{rule}"


def ground_problem(state: GameState) -> Problem:
    """The one entry to the model stage for counting engines: the state's ground problem, or
    :class:`Inconsistent` when pruning alone already shows that no layout fits."""
    model = ground(state)
    reason = model.empty_reason()
    if reason is not None:
        raise Inconsistent(reason)
    return Problem.from_model(model)
