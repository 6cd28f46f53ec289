"""The ground model of a game state: which placements the evidence still allows, and what must hold.

Every piece of evidence in the spec except "hit" only rules placements in or out, so it is applied
here once, by pruning each ship's domain:

- miss at x: no placement covering x;
- ship i sunk at shot t on x: ship i's placements lie inside H_t and contain x;
- ship i not sunk after the last shot T: ship i's placements are not inside H_T.

What remains are three families of constraints over the surviving placement atoms, which is what
compiling engines encode: exactly one placement per ship, at most one placement per cell (no
overlap), and at least one placement per hit cell. A :class:`Problem` is that, detached from the
state, so that it can also be split into disjoint sub-problems on a cell. Under the touch rules
``diagonal`` and ``none`` (issue 17) a problem also forbids ships from meeting along a side, or at
all; a problem carries its rule in :attr:`Problem.touch`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from battlelog.errors import Inconsistent
from battlelog.rules.config import GameConfig, fleet_text
from battlelog.rules.geometry import Cell, Placement, cell_name
from battlelog.rules.state import GameState

#: The touch rules (rules.md, "Variants and priors"): ships may touch; may meet only at a corner; may not meet at all.
TOUCH_RULES = ("allowed", "diagonal", "none")


def touch_rule(config: GameConfig) -> str:
    """The touch rule a game is played under: ``config.rules.touch`` where the configuration carries
    rules, else ``"allowed"`` (the standard game). The one place that reads it: the ground problem and
    the keys of the engines' caches go through here, so they cannot disagree about a state's rule."""
    return str(getattr(getattr(config, "rules", None), "touch", "allowed"))


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
    """What a counting engine counts: one placement per ship from its domain, no overlap, required cells
    covered, and no two ships in contact that ``touch`` forbids (``allowed``: any contact is fine;
    ``diagonal``: two ships may meet at a corner, never along a side; ``none``: not even at a corner).

    A :class:`GroundModel` gives one (its hit cells are the required cells); :meth:`split` gives two
    smaller ones that share no layout and together have all of this one's layouts.
    """

    size: int
    ships: tuple[int, ...]
    domains: tuple[tuple[Placement, ...], ...]
    required: frozenset[Cell]
    touch: str = "allowed"

    def __post_init__(self) -> None:
        if self.touch not in TOUCH_RULES:
            raise ValueError(f"unknown touch rule {self.touch!r}; expected one of {', '.join(TOUCH_RULES)}")

    @classmethod
    def from_model(cls, model: GroundModel) -> Problem:
        state = model.state
        return cls(state.size, state.ships, model.domains, frozenset(model.hit_cells), touch_rule(state.config))

    def split(self, cell: Cell) -> tuple[Problem, Problem]:
        """The layouts that leave ``cell`` empty, and those that cover it."""
        empty = tuple(tuple(p for p in domain if cell not in p.cells) for domain in self.domains)
        return (
            Problem(self.size, self.ships, empty, self.required, self.touch),
            Problem(self.size, self.ships, self.domains, self.required | {cell}, self.touch),
        )

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
        rule = "" if self.touch == "allowed" else f" (touch {self.touch})"
        return f"{self.size}x{self.size} {fleet_text(self.ships)}{rule}"


def ground_problem(state: GameState) -> Problem:
    """The one entry to the model stage for counting engines: the state's ground problem, or
    :class:`Inconsistent` when pruning alone already shows that no layout fits."""
    model = ground(state)
    reason = model.empty_reason()
    if reason is not None:
        raise Inconsistent(reason)
    return Problem.from_model(model)
