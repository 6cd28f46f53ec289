"""The ground model of a game state: which placements the evidence still allows, and what must hold.

Every piece of evidence in the spec except "hit" only rules placements in or out, so it is applied
here once, by pruning each ship's domain:

- miss at x: no placement covering x;
- ship i sunk at shot t on x: ship i's placements lie inside H_t and contain x;
- ship i not sunk after the last shot T: ship i's placements are not inside H_T.

What remains are three families of constraints over the surviving placement atoms, which is what
compiling engines encode: exactly one placement per ship, at most one placement per cell (no
overlap), and at least one placement per hit cell. A :class:`Problem` is that, detached from the
state, so that it can also be split into disjoint sub-problems on a cell.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from battlelog.errors import Inconsistent
from battlelog.rules.config import fleet_text
from battlelog.rules.geometry import Cell, Placement, cell_name
from battlelog.rules.state import GameState


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
        for cell in self.hit_cells:
            if cell not in self.covering:
                return f"no ship can cover the hit at {cell_name(cell)}"
        return None


def ground(state: GameState) -> GroundModel:
    """Prune every ship's canonical placements by the evidence that only rules placements out."""
    misses = state.misses
    final_hits = state.hits
    sunk_at = {ship: (t, cell) for ship, t, cell in state.sinks}
    domains = []
    for ship in range(len(state.ships)):
        allowed = []
        if ship in sunk_at:
            t, cell = sunk_at[ship]
            inside = state.hits_after(t)
            for p in state.config.placements(ship):
                if cell in p.cells and inside.issuperset(p.cells):
                    allowed.append(p)
        else:
            for p in state.config.placements(ship):
                if misses.isdisjoint(p.cells) and not final_hits.issuperset(p.cells):
                    allowed.append(p)
        domains.append(tuple(allowed))
    return GroundModel(state, tuple(domains))


@dataclass(frozen=True)
class Problem:
    """What a counting engine counts: one placement per ship from its domain, no overlap, no contact
    the touch rule forbids, required cells covered.

    ``touch``: ``"allowed"`` (ships may touch), ``"diagonal"`` (two ships' cells may not be side
    neighbours: ships meet only at a corner) or ``"none"`` (not even diagonal neighbours).
    A :class:`GroundModel` gives one (its hit cells are the required cells); :meth:`split` gives two
    smaller ones that share no layout and together have all of this one's layouts.
    """

    size: int
    ships: tuple[int, ...]
    domains: tuple[tuple[Placement, ...], ...]
    required: frozenset[Cell]
    touch: str = "allowed"

    @classmethod
    def from_model(cls, model: GroundModel) -> Problem:
        return cls(model.state.size, model.state.ships, model.domains, frozenset(model.hit_cells))

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
        middle = (self.size - 1) / 2
        cells = self.open_cells()
        return min(cells, key=lambda c: ((c[0] - middle) ** 2 + (c[1] - middle) ** 2, c)) if cells else None

    def label(self) -> str:
        return f"{self.size}x{self.size} {fleet_text(self.ships)}"


def ground_problem(state: GameState) -> Problem:
    """The one entry to the model stage for counting engines: the state's ground problem, or
    :class:`Inconsistent` when pruning alone already shows that no layout fits."""
    model = ground(state)
    reason = model.empty_reason()
    if reason is not None:
        raise Inconsistent(reason)
    return Problem.from_model(model)
