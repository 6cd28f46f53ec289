"""Brute force for tallies puzzles, written from the spec and not from battlelog.tallies: every set of
ships (equal lengths alike) is enumerated ship by ship, kept when no two ships overlap or touch as the
rule forbids, then checked literally against the tallies and the revealed pieces.

Only the tallies prune (a line over its tally can only grow), so small boards and small fleets only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Cell = tuple[int, int]
Ship = tuple[Cell, ...]


def placements(rows: int, cols: int, length: int) -> list[Ship]:
    """Every straight run of ``length`` cells on the board (a length-1 ship once per cell)."""
    out = [tuple((r, c + k) for k in range(length)) for r in range(rows) for c in range(cols - length + 1)]
    if length > 1:
        out += [tuple((r + k, c) for k in range(length)) for r in range(rows - length + 1) for c in range(cols)]
    return out


def zone(ship: Ship, touch: str) -> set[Cell]:
    """The cells no other ship may cover: the ship's own, and its side (``diagonal``) or all eight
    (``none``) neighbours."""
    if touch == "allowed":
        steps: list[Cell] = []
    elif touch == "diagonal":
        steps = [(0, 1), (1, 0), (0, -1), (-1, 0)]
    else:
        steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
    return set(ship) | {(r + dr, c + dc) for r, c in ship for dr, dc in steps}


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
    options = {n: placements(rows, cols, n) for n in set(lengths)}
    found: list[tuple[Ship, ...]] = []
    row_used, col_used = [0] * rows, [0] * cols

    def over() -> bool:
        return any(t is not None and u > t for u, t in zip(row_used, row_counts)) or any(
            t is not None and u > t for u, t in zip(col_used, col_counts)
        )

    def place(i: int, start: int, chosen: list[Ship], blocked: set[Cell]) -> None:
        if i == len(lengths):
            if satisfied(chosen):
                found.append(tuple(chosen))
            return
        pool = options[lengths[i]]
        first = start if i > 0 and lengths[i] == lengths[i - 1] else 0
        for k in range(first, len(pool)):
            ship = pool[k]
            if any(cell in blocked for cell in ship):
                continue
            for r, c in ship:
                row_used[r] += 1
                col_used[c] += 1
            if not over():
                place(i + 1, k + 1, chosen + [ship], blocked | zone(ship, touch))
            for r, c in ship:
                row_used[r] -= 1
                col_used[c] -= 1

    def satisfied(chosen: list[Ship]) -> bool:
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

    place(0, 0, [], set())
    return found


def shares(rows: int, cols: int, found: list[tuple[Ship, ...]]) -> list[list[float]]:
    """Each cell's share of the solutions ``found``."""
    counts = [[0] * cols for _ in range(rows)]
    for layout in found:
        for ship in layout:
            for r, c in ship:
                counts[r][c] += 1
    return [[v / len(found) for v in line] for line in counts]
