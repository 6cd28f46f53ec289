"""The tallies counter against an independent brute force (tests/tallies_brute.py) on random 6x6 and 7x7
puzzles under every touch rule, with random subsets of tallies, revealed pieces and shots; bad puzzles in
one line; the ``bimaru`` command."""

from __future__ import annotations

import json
from collections import Counter
from math import factorial, prod
from pathlib import Path

import numpy as np
import pytest
import tallies_brute

from battlelog.cli import main
from battlelog.errors import BattlelogError
from battlelog.rules.config import GameConfig
from battlelog.rules.layouts import sample_layout
from battlelog.rules.variants import TOUCH_RULES, Rules
from battlelog.tallies.count import count, solve
from battlelog.tallies.puzzle import PIECES, Puzzle, read_puzzle

CASES = [(6, (3, 2, 2, 1)), (6, (3, 3, 1, 1)), (7, (4, 3, 2)), (7, (3, 2, 1))]


def random_puzzle(size: int, ships: tuple[int, ...], touch: str, seed: int) -> Puzzle:
    """A puzzle from a uniform layout: each tally kept with chance 1/2, a few true pieces revealed, a few
    cells shown as water or ship (shots), and sometimes one false piece (so some puzzles have none)."""
    rng = np.random.default_rng(seed)
    layout = sample_layout(GameConfig(size, ships, Rules(touch=touch)), rng)
    shown = {cell: tallies_brute.piece(p.cells, cell) for p in layout for cell in p.cells}
    rows = [sum(1 for (r, _) in shown if r == i) for i in range(size)]
    cols = [sum(1 for (_, c) in shown if c == i) for i in range(size)]
    keep = lambda counts: tuple(t if rng.random() < 0.5 else None for t in counts)  # noqa: E731
    hints: dict[tuple[int, int], str] = {}
    for _ in range(int(rng.integers(0, 4))):
        cell = (int(rng.integers(size)), int(rng.integers(size)))
        truth = shown.get(cell, "water")
        hints[cell] = truth if rng.random() < 0.6 else ("ship" if truth != "water" else "water")
    if rng.random() < 0.2:
        hints[(int(rng.integers(size)), int(rng.integers(size)))] = PIECES[int(rng.integers(len(PIECES)))]
    return Puzzle(size, size, ships, keep(rows), keep(cols), hints, touch)


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize("size,ships", CASES)
def test_counts_shares_and_a_solution_equal_the_brute_force(size: int, ships: tuple[int, ...], touch: str) -> None:
    for seed in range(3):
        puzzle = random_puzzle(size, ships, touch, seed)
        found = tallies_brute.solutions(size, size, ships, puzzle.row_counts, puzzle.col_counts, puzzle.hints, touch)
        result = count(puzzle, marginals=True)
        assert result.solutions == len(found)
        assert result.layouts == len(found) * prod(factorial(n) for n in Counter(ships).values())
        if not found:
            assert result.cells is None and result.solution is None
            continue
        assert result.cells is not None and result.solution is not None
        assert np.allclose(result.cells, tallies_brute.shares(size, size, found), atol=1e-9, rtol=0)
        cells = {(r, c) for r, line in enumerate(result.solution) for c, ch in enumerate(line) if ch != "."}
        assert cells in [{cell for ship in layout for cell in ship} for layout in found]


def test_a_puzzle_that_pins_the_layout_is_unique_and_shows_its_pieces() -> None:
    text = "ROW 2 0 1 0\nCOLUMN 1 1 0 1\n2\nHINT 0 0 L\nHINT 2 3 C\n"
    puzzle = read_puzzle(text, ships=(2, 1), touch="none")
    result = solve(puzzle, marginals=True)
    assert result.solutions == 1 and result.solution == ["lr..", "....", "...c", "...."]
    assert result.cells is not None and result.cells[0][:2] == [1.0, 1.0]


TWO = {"size": 2, "ships": [1, 1]}


@pytest.mark.parametrize(
    "text,words",
    [
        (json.dumps({**TWO, "ships": [1, 1, 1], "row_counts": [1, 1]}), "sum to 2, but the fleet has 3"),
        (json.dumps({**TWO, "row_counts": [3, None]}), "larger than the 2 cells"),
        ("ROW 1 1\nCOLUMN 1 1\n2\nHINT 0 0 W\nHINT 0 0 C\n", "hints contradict"),
        ("ROW 1 1\nCOLUMN 1 1\n1\nHINT 0 0 X\n", "unknown piece letter X"),
        (json.dumps({**TWO, "hints": [{"row": 5, "col": 0, "piece": "water"}]}), "off the 2x2 board"),
        (json.dumps({**TWO, "row_counts": [1, 1], "col_counts": [2, 0]}), "no solution"),
    ],
)
def test_bad_puzzles_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: str) -> None:
    path = tmp_path / "puzzle"
    path.write_text(text)
    assert main(["bimaru", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_the_command_prints_json_with_the_count_and_shares(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    puzzle = {"size": 4, "ships": [2, 1], "row_counts": [2, 0, 1, 0], "col_counts": [1, 1, None, None], "touch": "none"}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(puzzle))
    assert main(["bimaru", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    found = tallies_brute.solutions(4, 4, (2, 1), puzzle["row_counts"], puzzle["col_counts"], {}, "none")  # type: ignore[arg-type]
    assert out["solutions"] == len(found) > 1 and out["unique"] is False and out["layouts"] == len(found)
    assert np.allclose(out["cells"], tallies_brute.shares(4, 4, found), atol=1e-9)
    assert main(["bimaru", str(path), "--count"]) == 0
    assert f"{len(found)} solutions" in capsys.readouterr().out


def test_a_wrong_piece_name_in_json_is_refused() -> None:
    with pytest.raises(BattlelogError, match="unknown piece 'sub'"):
        read_puzzle(json.dumps({"size": 3, "ships": [1], "hints": [{"row": 0, "col": 0, "piece": "sub"}]}))
