"""The cell transfer (battlelog/tallies/transfer.py, the counter for puzzles with tallies missing) against the
independent brute force (tests/tallies_brute.py) on small boards, square and not (the transfer turns a board
when that leaves fewer column counters), every touch rule, with no tallies, some and all, and revealed pieces."""

from __future__ import annotations

import numpy as np
import pytest
import tallies_brute

from battlelog.errors import BudgetExceeded
from battlelog.rules.config import GameConfig
from battlelog.rules.layouts import sample_layout
from battlelog.rules.variants import TOUCH_RULES, Rules
from battlelog.tallies.count import count
from battlelog.tallies.puzzle import Puzzle
from battlelog.tallies.transfer import transfer


def drawn(rows: int, cols: int, ships: tuple[int, ...], touch: str, given: float, seed: int) -> Puzzle:
    """A puzzle from a uniform layout: each tally kept with chance ``given``, up to three true pieces revealed."""
    rng = np.random.default_rng(seed)
    layout = sample_layout(GameConfig(rows, ships, Rules(touch=touch), cols=cols), rng)
    shown = {cell: tallies_brute.piece(p.cells, cell) for p in layout for cell in p.cells}
    keep = lambda counts: tuple(t if rng.random() < given else None for t in counts)  # noqa: E731
    row_counts = keep([sum(r == i for r, _ in shown) for i in range(rows)])
    col_counts = keep([sum(c == i for _, c in shown) for i in range(cols)])
    hints = {}
    for _ in range(int(rng.integers(0, 4))):
        cell = (int(rng.integers(rows)), int(rng.integers(cols)))
        hints[cell] = shown.get(cell, "water")
    return Puzzle(rows, cols, ships, row_counts, col_counts, hints, touch)


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize("rows,cols,ships", [(5, 5, (3, 2, 1)), (4, 6, (2, 2, 1, 1)), (6, 5, (3, 2, 2))])
@pytest.mark.parametrize("given", [0.0, 0.5, 1.0])
def test_counts_shares_and_a_solution_equal_the_brute_force(rows: int, cols: int, ships: tuple[int, ...], touch: str,
                                                            given: float) -> None:  # fmt: skip
    for seed in range(2):
        puzzle = drawn(rows, cols, ships, touch, given, seed)
        found = tallies_brute.solutions(rows, cols, ships, puzzle.row_counts, puzzle.col_counts, puzzle.hints, touch)
        result = transfer(puzzle, 10**7)
        assert result is not None and result.solutions == len(found) > 0  # the drawn layout is one
        assert np.allclose(result.cells, tallies_brute.shares(rows, cols, found), atol=1e-9, rtol=0)
        assert result.solution is not None
        cells = {(r, c) for r, line in enumerate(result.solution) for c, ch in enumerate(line) if ch != "."}
        assert cells in [{cell for ship in layout for cell in ship} for layout in found]


def test_a_false_piece_leaves_no_solution() -> None:
    puzzle = Puzzle(4, 4, (2, 1), (None,) * 4, (None,) * 4, {(0, 0): "middle"}, "none")
    assert tallies_brute.solutions(4, 4, (2, 1), puzzle.row_counts, puzzle.col_counts, puzzle.hints, "none") == []
    result = transfer(puzzle, 10**6)
    assert result is not None and result.solutions == 0 and result.solution is None


def test_the_budget_counts_states_and_refuses_past_it() -> None:
    puzzle = drawn(6, 6, (3, 2, 2, 1), "none", 0.5, 3)
    result = transfer(puzzle, 10**7)
    assert result is not None and result.steps > 1
    again = transfer(puzzle, result.steps)
    assert again is not None and again.solutions == result.solutions
    with pytest.raises(BudgetExceeded, match=f"more than {result.steps - 1:,} steps"):
        transfer(puzzle, result.steps - 1)


@pytest.mark.parametrize("touch", TOUCH_RULES)
def test_one_tally_missing_of_its_lines_is_filled_in_and_counts_as_the_brute_force(touch: str) -> None:
    for seed in range(3):
        whole = drawn(6, 6, (3, 2, 2, 1), touch, 1.0, seed)
        missing = seed % 6
        rows = tuple(None if i == missing else t for i, t in enumerate(whole.row_counts))
        puzzle = Puzzle(6, 6, whole.ships, rows, whole.col_counts, whole.hints, touch)
        found = tallies_brute.solutions(6, 6, whole.ships, rows, whole.col_counts, whole.hints, touch)
        result = count(puzzle, marginals=True)
        assert result.solutions == len(found) > 0 and result.cells is not None
        assert np.allclose(result.cells, tallies_brute.shares(6, 6, found), atol=1e-9, rtol=0)
