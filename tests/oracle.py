"""The independent brute-force oracle for every rule variant on square and rectangular boards, written from the spec.

It shares nothing with battlelog's model stage, nor with its geometry or its referee: placements,
contact and answers are defined here again, literally. It is the one enumerator every engine, player
and optimum test checks against.

- the layouts: one placement per ship (a ship of length 1 has one per cell), no shared cell, and no
  contact the touch rule forbids (``diagonal``: no two cells of different ships side by side;
  ``none``: nor corner to corner);
- the answers a layout gives: the shots fed in order to a simulated referee, which answers miss,
  hit, or on a ship's last unhit cell ``sunk`` with the ship (``named``), ``sunk`` (``unnamed``) or
  ``hit`` (``silent``);
- the posterior: the layouts whose answers are exactly the recorded ones (the transcript rule) and whose
  lines hold exactly the ship cells the state's tallies give (``row_counts``, ``col_counts``, where not
  None), each equally likely; its count, cell marginals and placement marginals.

The simulation runs over all layouts at once with numpy (one array of owners per layout), which is
the same literal simulation, only vectorised. The last part reads the same oracle in battlelog's own
types, a game state in and its layouts (as placements), marginals and answer shares out; only data
crosses over (a placement is built from the oracle's spot, a state's shots are read as cells and
answers), and a state late in a game on a board too large to list whole has its layouts found by
backtracking over the oracle's spots.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np

from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.state import GameState

#: An answer as the oracle writes it: ("miss", None), ("hit", None), ("sunk", ship) or ("sunk", None).
Answer = tuple[str, "int | None"]
#: A placement as the oracle writes it: (length, row, col, horizontal), horizontal True for length 1.
Spot = tuple[int, int, int, bool]


def spots(size: int, length: int, cols: int | None = None) -> list[Spot]:
    """Every way one ship of ``length`` lies on a board of ``size`` rows and ``cols`` columns (square
    when ``cols`` is omitted), named by its top-left cell."""
    width = size if cols is None else cols
    out = [(length, r, c, True) for r in range(size) for c in range(width - length + 1)]
    if length > 1:
        out += [(length, r, c, False) for r in range(size - length + 1) for c in range(width)]
    return out


def cells_of(spot: Spot) -> list[tuple[int, int]]:
    length, r, c, horizontal = spot
    return [(r, c + k) if horizontal else (r + k, c) for k in range(length)]


def clash(a: Spot, b: Spot, touch: str) -> bool:
    """Do two ships at ``a`` and ``b`` break the rules: share a cell, or touch where ``touch`` forbids?"""
    for r1, c1 in cells_of(a):
        for r2, c2 in cells_of(b):
            dr, dc = abs(r1 - r2), abs(c1 - c2)
            if dr == 0 and dc == 0:
                return True
            if touch in ("diagonal", "none") and dr + dc == 1:
                return True
            if touch == "none" and dr == 1 and dc == 1:
                return True
    return False


@dataclass(frozen=True)
class Layouts:
    """All layouts of a fleet on a board of ``size`` rows and ``cols`` columns under a touch rule."""

    size: int  # rows
    ships: tuple[int, ...]
    touch: str
    spots: tuple[tuple[Spot, ...], ...]  # spots[k][i]: ship i's placement in layout k
    owner: np.ndarray  # owner[k, r * cols + c]: the ship covering the cell in layout k, or -1
    cols: int

    def __len__(self) -> int:
        return len(self.spots)

    @cached_property
    def features(self) -> np.ndarray:
        """Per layout, literally from the spec: E the ship cells on the board's outer ring, V the vertical
        ships of length 2 or more, T the pairs of side-adjacent cells covered by two different ships
        (one row per layout; kept, since every prior on this table weighs the same three counts)."""
        owner = self.owner.reshape(len(self), self.size, self.cols)
        ring = np.zeros((self.size, self.cols), dtype=bool)
        ring[0, :] = ring[-1, :] = ring[:, 0] = ring[:, -1] = True
        e = ((owner >= 0) & ring).sum(axis=(1, 2))
        upright = np.array([[length >= 2 and not horizontal for length, _, _, horizontal in layout] for layout in self.spots])
        v = upright.reshape(len(self), len(self.ships)).sum(axis=1)
        across = (owner[:, :, :-1] >= 0) & (owner[:, :, 1:] >= 0) & (owner[:, :, :-1] != owner[:, :, 1:])
        down = (owner[:, :-1, :] >= 0) & (owner[:, 1:, :] >= 0) & (owner[:, :-1, :] != owner[:, 1:, :])
        t = across.sum(axis=(1, 2)) + down.sum(axis=(1, 2))
        return np.stack([e, v, t], axis=1).astype(float)


@cache
def layouts(size: int, ships: tuple[int, ...], touch: str = "allowed", cols: int | None = None) -> Layouts:
    """Every layout on ``size`` rows of ``cols`` columns (square when omitted), by extending ship by
    ship and dropping a partial layout as soon as two ships clash."""
    width = size if cols is None else cols
    every = {length: spots(size, length, width) for length in set(ships)}
    # each pair of spots judged once, by the literal rule
    clashes = {(a, b) for x in every.values() for y in every.values() for a in x for b in y if clash(a, b, touch)}
    partial: list[tuple[Spot, ...]] = [()]
    for length in ships:
        partial = [done + (s,) for done in partial for s in every[length] if not any((s, o) in clashes for o in done)]
    owner = np.full((len(partial), size * width), -1, dtype=np.int64)
    for k, layout in enumerate(partial):
        for i, spot in enumerate(layout):
            for r, c in cells_of(spot):
                owner[k, r * width + c] = i
    return Layouts(size, ships, touch, tuple(partial), owner, width)


def transcripts(table: Layouts, cells: list[tuple[int, int]], sinks: str, which: np.ndarray | None = None) -> list[np.ndarray]:
    """For each shot in order, the code of the answer every layout (or every layout of ``which``) gives:
    -2 miss, -1 hit, ship i for "sunk ship i" (named) or 0 for "sunk" (unnamed); silent games answer
    every hit -1."""
    n = table.cols
    owners = table.owner if which is None else table.owner[which]
    left = np.tile(np.array(table.ships, dtype=np.int64), (len(owners), 1))  # unhit cells per ship
    rows = np.arange(len(owners))
    out = []
    for r, c in cells:
        owner = owners[:, r * n + c]
        hit = owner >= 0
        left[rows[hit], owner[hit]] -= 1
        sunk = hit & (left[rows, np.maximum(owner, 0)] == 0)
        code = np.where(hit, -1, -2)
        if sinks == "named":
            code = np.where(sunk, owner, code)
        elif sinks == "unnamed":
            code = np.where(sunk, 0, code)
        out.append(code)
    return out


def layout_masks(table: Layouts, size: int) -> list[list[int]]:
    """Each layout's ships as bit masks of their cells (bit ``r * size + c``): the form the exhaustive
    recursions over policies work in."""
    return [[sum(1 << (r * size + c) for r, c in cells_of(spot)) for spot in layout] for layout in table.spots]


def mask_answer(ships: list[int] | tuple[int, ...], shot: int, bit: int, sinks: str) -> str:
    """The answer to a shot at ``bit`` after the cells ``shot`` (bit masks), for a layout whose ships
    cover ``ships``: "miss", "hit", or a sink as the sink rule words it ("sunk i" named, "sunk" unnamed;
    silent only says "hit")."""
    for ship, mask in enumerate(ships):
        if mask & bit:
            if mask & ~shot != bit or sinks == "silent":
                return "hit"
            return f"sunk {ship}" if sinks == "named" else "sunk"
    return "miss"


def encode(answer: Answer, sinks: str) -> int:
    result, ship = answer
    if result == "miss":
        return -2
    if result == "hit":
        return -1
    assert result == "sunk" and sinks != "silent"
    return ship if sinks == "named" else 0  # type: ignore[return-value]


def posterior(table: Layouts, shots: list[tuple[tuple[int, int], Answer]], sinks: str) -> np.ndarray:
    """Indices of the layouts whose answers to ``shots`` (cell, answer), fed in order, are exactly those."""
    ok = np.ones(len(table), dtype=bool)
    for (_, answer), code in zip(shots, transcripts(table, [cell for cell, _ in shots], sinks)):
        ok &= code == encode(answer, sinks)
    return np.flatnonzero(ok)


def tallied(table: Layouts, row_counts: tuple[int | None, ...] | None, col_counts: tuple[int | None, ...] | None) -> np.ndarray:
    """Per layout, whether every row and column whose tally is given (not None) holds exactly that many ship cells."""
    covered = (table.owner >= 0).reshape(len(table), table.size, table.cols)
    ok = np.ones(len(table), dtype=bool)
    for counts, lines in ((row_counts, covered.sum(axis=2)), (col_counts, covered.sum(axis=1))):
        for k, count in enumerate(counts or ()):
            if count is not None:
                ok &= lines[:, k] == count
    return ok


def cell_marginals(table: Layouts, chosen: np.ndarray) -> np.ndarray:
    """The share of the chosen layouts that cover each cell (rows x cols)."""
    covered = (table.owner[chosen] >= 0).mean(axis=0)
    return covered.reshape(table.size, table.cols)


def placement_marginals(table: Layouts, chosen: np.ndarray) -> list[dict[Spot, float]]:
    """Per ship, the share of the chosen layouts that put it at each placement (absent: 0)."""
    out: list[dict[Spot, float]] = [{} for _ in table.ships]
    for k in chosen:
        for i, spot in enumerate(table.spots[k]):
            out[i][spot] = out[i].get(spot, 0.0) + 1.0 / len(chosen)
    return out


def play(table: Layouts, k: int, cells: list[tuple[int, int]], sinks: str) -> list[Answer]:
    """The answers layout ``k`` gives to ``cells`` in order, as a referee says them."""
    codes = [int(code[0]) for code in transcripts(table, cells, sinks, np.array([k]))]
    return [("miss", None) if x == -2 else ("hit", None) if x == -1 else ("sunk", x if sinks == "named" else None) for x in codes]


def layout_weights(table: Layouts, edge: float = 0.0, vertical: float = 0.0, touch: float = 0.0) -> np.ndarray:
    """Each layout's prior weight exp(edge * E + vertical * V + touch * T), with E, V and T the counts of
    :attr:`Layouts.features`."""
    return np.exp(table.features @ np.array([edge, vertical, touch], dtype=float))


def weighted_cell_marginals(table: Layouts, chosen: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The weighted share of the chosen layouts that cover each cell (rows x cols)."""
    w = weights[chosen] / weights[chosen].sum()
    return (w[:, None] * (table.owner[chosen] >= 0)).sum(axis=0).reshape(table.size, table.cols)


def weighted_placement_marginals(table: Layouts, chosen: np.ndarray, weights: np.ndarray) -> list[dict[Spot, float]]:
    """Per ship, the weighted share of the chosen layouts that put it at each placement (absent: 0)."""
    total = weights[chosen].sum()
    out: list[dict[Spot, float]] = [{} for _ in table.ships]
    for k in chosen:
        for i, spot in enumerate(table.spots[k]):
            out[i][spot] = out[i].get(spot, 0.0) + weights[k] / total
    return out


# ----- the same oracle on battlelog's types: a game state in, its layouts and marginals out ----------
Cell = tuple[int, int]


def placement_of(ship: int, spot: Spot) -> Placement:
    """Ship ``ship`` at ``spot`` as battlelog names a placement (a plain record: no geometry of battlelog's is used)."""
    length, r, c, horizontal = spot
    return Placement(ship, length, r, c, horizontal)


def spot_of(placement: Placement) -> Spot:
    """The oracle's spot of a battlelog placement."""
    return (placement.length, placement.row, placement.col, placement.horizontal)


def all_layouts(config: GameConfig) -> list[tuple[Placement, ...]]:
    """Every legal layout of ``config`` (no shared cell, no contact its touch rule forbids), as placements."""
    table = layouts(config.rows, config.ships, config.rules.touch, config.cols)
    return [tuple(placement_of(i, spot) for i, spot in enumerate(layout)) for layout in table.spots]


def referee(layout: tuple[Placement, ...], cells: list[Cell], sinks: str) -> list[Answer]:
    """The answers one layout gives to ``cells`` in order, literally: miss, hit, or on a ship's last unhit
    cell a sink as the sink rule words it (``silent``: hit)."""
    owner = {cell: i for i, p in enumerate(layout) for cell in cells_of(spot_of(p))}
    left = [p.length for p in layout]
    out: list[Answer] = []
    for cell in cells:
        ship = owner.get(cell)
        if ship is None:
            out.append(("miss", None))
            continue
        left[ship] -= 1
        sunk = left[ship] == 0 and sinks != "silent"
        out.append(("sunk", ship if sinks == "named" else None) if sunk else ("hit", None))
    return out


def consistent(layout: tuple[Placement, ...], state: GameState) -> bool:
    """Does ``layout`` give exactly the state's answers to its shots (the transcript rule), and hold in each line
    the ship cells its tally gives?"""
    recorded = [(shot.result, shot.ship) for shot in state.shots]
    answered = referee(layout, [shot.cell for shot in state.shots], state.config.rules.sinks) == recorded
    return answered and tallies_hold(layout, state)


def tallies_hold(layout: tuple[Placement, ...], state: GameState) -> bool:
    """Does every row and column whose tally the state gives hold exactly that many of the layout's ship cells?"""
    ship_cells = [cell for p in layout for cell in cells_of(spot_of(p))]
    for r, count in enumerate(state.row_counts or ()):
        if count is not None and sum(1 for row, _ in ship_cells if row == r) != count:
            return False
    for c, count in enumerate(state.col_counts or ()):
        if count is not None and sum(1 for _, col in ship_cells if col == c) != count:
            return False
    return True


def consistent_layouts(state: GameState) -> list[tuple[Placement, ...]]:
    """Every layout consistent with ``state``, by backtracking over the oracle's spots: feasible on any
    board late in a game.

    Each ship's spots are filtered by what the answers say of it alone (no miss covered; under named
    sinks, a sunk ship inside the hits up to its sinking shot and through that shot's cell, a ship afloat
    not inside all the hits); ships are tried fewest spots first, never clashing under the touch rule, a
    branch is abandoned when an uncovered hit can no longer be covered, and every complete layout is
    checked against the whole state with :func:`consistent`.
    """
    config = state.config
    touch, named = config.rules.touch, config.rules.sinks == "named"
    misses = {shot.cell for shot in state.shots if shot.result == "miss"}
    hits = {shot.cell for shot in state.shots if shot.result != "miss"}
    sunk = {shot.ship: t for t, shot in enumerate(state.shots) if shot.result == "sunk" and named}
    options: list[list[Spot]] = []
    for ship, length in enumerate(config.ships):
        candidates = []
        for spot in spots(config.rows, length, config.cols):
            cells = set(cells_of(spot))
            if cells & misses:
                continue
            if ship in sunk:
                t = sunk[ship]
                if state.shots[t].cell not in cells or not cells <= {s.cell for s in state.shots[: t + 1] if s.result != "miss"}:
                    continue
            elif named and cells <= hits:
                continue
            candidates.append(spot)
        options.append(candidates)
    order = sorted(range(len(options)), key=lambda i: len(options[i]))
    found: list[tuple[Placement, ...]] = []
    chosen: dict[int, Spot] = {}

    def extend(k: int, covered: set[Cell]) -> None:
        if k == len(order):
            layout = tuple(placement_of(i, chosen[i]) for i in range(len(options)))
            if consistent(layout, state):
                found.append(layout)
            return
        for hit in hits - covered:
            if not any(hit in cells_of(spot) and covered.isdisjoint(cells_of(spot)) for i in order[k:] for spot in options[i]):
                return
        for spot in options[order[k]]:
            cells = cells_of(spot)
            if covered.isdisjoint(cells) and (
                touch == "allowed" or not any(clash(spot, other, touch) for other in chosen.values())
            ):
                chosen[order[k]] = spot
                extend(k + 1, covered | set(cells))
                del chosen[order[k]]

    extend(0, set())
    return found


def brute_marginals(state: GameState, layouts: list[tuple[Placement, ...]] | None = None) -> tuple[np.ndarray, int]:
    """Occupancy marginals and the number of consistent layouts among ``layouts`` (every legal layout when
    None); raises if there are none."""
    counts = np.zeros((state.rows, state.cols))
    models = 0
    for layout in layouts if layouts is not None else all_layouts(state.config):
        if consistent(layout, state):
            models += 1
            for p in layout:
                for r, c in cells_of(spot_of(p)):
                    counts[r, c] += 1
    if models == 0:
        raise ValueError("no consistent layout")
    return counts / models, models


def brute_placements(state: GameState, layouts: list[tuple[Placement, ...]]) -> tuple[np.ndarray, ...]:
    """Per ship, the posterior probability of each of its placements, in the order of ``config.placements``
    (the engines' order, read only to line the two up)."""
    config = state.config
    index = [{spot_of(p): k for k, p in enumerate(config.placements(i))} for i in range(len(config.ships))]
    counts = [np.zeros(len(index[i])) for i in range(len(config.ships))]
    models = 0
    for layout in layouts:
        if consistent(layout, state):
            models += 1
            for i, p in enumerate(layout):
                counts[i][index[i][spot_of(p)]] += 1
    if models == 0:
        raise ValueError("no consistent layout")
    return tuple(c / models for c in counts)


def brute_answers(state: GameState, layouts: list[tuple[Placement, ...]]) -> np.ndarray:
    """``out[r, c, a]``: the share of consistent layouts in which a shot at (r, c) gets answer ``a``
    (0 miss, 1 hit, 2 + i sunk ship i), each layout's referee asked the state's shots and then that one."""
    out = np.zeros((state.rows, state.cols, 2 + len(state.ships)))
    sinks, shots = state.config.rules.sinks, [shot.cell for shot in state.shots]
    models = 0
    for layout in layouts:
        if not consistent(layout, state):
            continue
        models += 1
        for cell in state.unshot:
            result, ship = referee(layout, [*shots, cell], sinks)[-1]
            out[cell][2 + ship if ship is not None else 0 if result == "miss" else 1] += 1
    return out / models
