"""Brute force for tallies puzzles, written from the spec and not from battlelog.tallies: every set of
ships (equal lengths alike) is enumerated ship by ship over the independent oracle's placements, kept
when no two ships clash under the touch rule (tests/oracle.py: ``spots``, ``clash``), then checked
literally against the tallies and the revealed pieces.

Only the tallies (a line over its tally can only grow) and water pieces (a ship on one stays there)
prune, so small boards and small fleets only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

from oracle import Spot, cells_of, clash, spots

Cell = tuple[int, int]
Ship = tuple[Cell, ...]


def piece(ship: Ship, cell: Cell) -> str:
    """How ``cell`` of ``ship`` shows on a Bimaru grid."""
    if len(ship) == 1:
        return "single"
    i = ship.index(cell)
    horizontal = ship[0][0] == ship[-1][0]
    if 0 < i < len(ship) - 1:
        return "middle"
    if horizontal:
        return "left" if i == 0 else "right"
    return "top" if i == 0 else "bottom"


def solutions(
    rows: int,
    cols: int,
    ships: Sequence[int],
    row_counts: Sequence[int | None],
    col_counts: Sequence[int | None],
    hints: Mapping[Cell, str],
    touch: str,
) -> list[tuple[Ship, ...]]:
    """Every set of ships that satisfies the puzzle."""
    lengths = sorted(ships, reverse=True)
    # a ship on a cell shown as water never becomes a solution, whatever else is placed
    options = {
        n: [s for s in spots(rows, n, cols) if all(hints.get(cell) != "water" for cell in cells_of(s))] for n in set(lengths)
    }
    clashes = cache(clash)  # the same pairs of spots come back in every branch
    found: list[tuple[Ship, ...]] = []
    row_used, col_used = [0] * rows, [0] * cols

    def over(cells: list[Cell]) -> bool:
        """Whether a line through ``cells`` (the ship just added: no other line grew) is over its tally."""
        return any(
            (row_counts[r] is not None and row_used[r] > row_counts[r])  # type: ignore[operator]
            or (col_counts[c] is not None and col_used[c] > col_counts[c])  # type: ignore[operator]
            for r, c in cells
        )

    def place(i: int, start: int, chosen: list[Spot]) -> None:
        if i == len(lengths):
            layout = tuple(tuple(cells_of(spot)) for spot in chosen)
            if satisfied(layout):
                found.append(layout)
            return
        pool = options[lengths[i]]
        first = start if i > 0 and lengths[i] == lengths[i - 1] else 0
        for k in range(first, len(pool)):
            spot = pool[k]
            if any(clashes(spot, other, touch) for other in chosen):
                continue
            cells = cells_of(spot)
            for r, c in cells:
                row_used[r] += 1
                col_used[c] += 1
            if not over(cells):
                place(i + 1, k + 1, chosen + [spot])
            for r, c in cells:
                row_used[r] -= 1
                col_used[c] -= 1

    def satisfied(chosen: tuple[Ship, ...]) -> bool:
        if any(t is not None and u != t for u, t in zip(row_used, row_counts)):
            return False
        if any(t is not None and u != t for u, t in zip(col_used, col_counts)):
            return False
        shown = {cell: piece(ship, cell) for ship in chosen for cell in ship}
        for cell, want in hints.items():
            got = shown.get(cell, "water")
            if (want == "ship" and got == "water") or (want != "ship" and got != want):
                return False
        return True

    place(0, 0, [])
    return found


def shares(rows: int, cols: int, found: list[tuple[Ship, ...]]) -> list[list[float]]:
    """Each cell's share of the solutions ``found``."""
    counts = [[0] * cols for _ in range(rows)]
    for layout in found:
        for ship in layout:
            for r, c in ship:
                counts[r][c] += 1
    return [[v / len(found) for v in line] for line in counts]
