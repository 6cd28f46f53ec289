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
from battlelog.errors import BattlelogError, BudgetExceeded
from battlelog.rules.config import GameConfig
from battlelog.rules.layouts import sample_layout
from battlelog.rules.variants import TOUCH_RULES, Rules
from battlelog.tallies.count import count, solve
from battlelog.tallies.make import make, single_hints
from battlelog.tallies.puzzle import PIECES, Puzzle, read_puzzle

import oracle

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


THREE = {"size": 3, "ships": [1, 1]}  # two singles fit on 3x3 with no contact


@pytest.mark.parametrize(
    "text,words",
    [
        (json.dumps({**THREE, "ships": [1, 1, 1], "row_counts": [1, 1, 0]}), "sum to 2, but the fleet has 3"),
        (json.dumps({**THREE, "row_counts": [4, None, None]}), "larger than the 3 cells"),
        ("ROW 1 1\nCOLUMN 1 1\n2\nHINT 0 0 W\nHINT 0 0 C\n", "hints contradict"),
        ("ROW 1 1\nCOLUMN 1 1\n1\nHINT 0 0 X\n", "unknown piece letter X"),
        (json.dumps({**THREE, "hints": [{"row": 5, "col": 0, "piece": "water"}]}), "off the 3x3 board"),
        (json.dumps({**THREE, "row_counts": [1, 1, 0], "col_counts": [2, 0, 0]}), "no solution"),
        (json.dumps({"size": 2, "ships": [1, 1]}), "cannot be laid out on a 2x2 board with no contact"),
        ("ROW \u0663 1\nCOLUMN 1 1\n0\n", "digits 0-9"),  # an Arabic-Indic 3 is not read as 3
        ("ROW 1 1\nCOLUMN 1 1\n\u00b2\n", "the number of hints"),  # a superscript 2 passes isdigit, not int
        ("ROW 1 1\nCOLUMN 1 1\n1\nHINT \u00b2 0 W\n", "HINT row col X"),
        ("ROW 1" + "0" * 5000 + " 1\nCOLUMN 1 1\n0\n", "got 1000"),  # more digits than int() converts
        ("ROW 1 1\nCOLUMN 1 1\n" + "9" * 5000 + "\n", "the number of hints"),
        (json.dumps({**THREE, "row_counts": [10**400, 0, 0]}), "tally 10000000000000000... is larger"),
        ('{"size": ' + "[" * 10000 + "]" * 10000 + "}", "nested too deeply"),
        ('{"size": 3, "size": 4}', "'size' appears twice"),
        (json.dumps({**THREE, "ship": [1]}), "did you mean 'ships'"),
        (json.dumps({"size": 100}), "at most 26"),
        (json.dumps({"size": 10, "ships": [1] * 500}), "more than the 100 cells"),
        ("[" * 10000 + "]" * 10000, "nested too deeply"),  # JSON, though not an object: not read as text
        (json.dumps([THREE]), "a puzzle must be a JSON object"),
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


def test_a_file_that_is_not_utf8_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "puzzle.txt"
    path.write_bytes(b"ROW \xff 1\n")
    assert main(["bimaru", str(path)]) == 2
    err = capsys.readouterr().err
    assert "not UTF-8" in err and err.count("\n") == 1


def test_the_budget_counts_every_step_and_refuses_past_it() -> None:
    puzzle = Puzzle(5, 5, (3, 2, 1), (None,) * 5, (None,) * 5, touch="none")
    result = count(puzzle)
    assert result.steps > 0 and count(puzzle, budget=result.steps).solutions == result.solutions
    with pytest.raises(BudgetExceeded, match=f"more than {result.steps - 1:,} steps"):
        count(puzzle, budget=result.steps - 1)


def test_an_empty_10x10_puzzle_is_refused_in_one_line_by_the_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.json"
    path.write_text(json.dumps({"size": 10}))
    assert main(["bimaru", str(path), "--budget", "20000"]) == 2
    err = capsys.readouterr().err
    assert "more than 20,000 steps" in err and "--budget" in err and err.count("\n") == 1


def test_the_fleet_and_touch_rule_of_a_text_puzzle_are_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.txt"
    path.write_text("ROW 2 0 1 0\nCOLUMN 1 1 0 1\n1\nHINT 0 0 L\n")
    found = tallies_brute.solutions(4, 4, (2, 1), (2, 0, 1, 0), (1, 1, 0, 1), {(0, 0): "left"}, "diagonal")
    assert main(["bimaru", str(path), "--ships", "2,1", "--touch", "diagonal", "--count"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("lr..  2\n") and f"{len(found)} solution " in out


def test_a_wrong_piece_name_in_json_is_refused() -> None:
    with pytest.raises(BattlelogError, match="unknown piece 'sub'"):
        read_puzzle(json.dumps({"size": 3, "ships": [1], "hints": [{"row": 0, "col": 0, "piece": "sub"}]}))


@pytest.mark.parametrize(
    "text", ["ROW 1 0\nCOLUMN 1 0\n0\n", json.dumps({"size": 3, "row_counts": [1, 0, 0], "col_counts": [1, 0, 0]})]
)
def test_a_puzzle_without_a_fleet_says_the_default_fleet_was_used_and_how_to_give_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    path = tmp_path / "small"
    path.write_text(text)
    assert main(["bimaru", str(path)]) == 2
    err = capsys.readouterr().err
    assert "does not fit" in err and "no fleet was given" in err and "4,3,3,2,2,2,1,1,1,1" in err and "--ships" in err
    assert err.count("\n") == 1
    assert main(["bimaru", str(path), "--ships", "1"]) == 0
    assert capsys.readouterr().out.startswith("c")


def test_a_fleet_given_that_does_not_fit_is_not_blamed_on_the_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "small.txt"
    path.write_text("ROW 1 0\nCOLUMN 1 0\n0\n")
    assert main(["bimaru", str(path), "--ships", "3"]) == 2
    err = capsys.readouterr().err
    assert "does not fit" in err and "no fleet was given" not in err


@pytest.mark.parametrize("touch", TOUCH_RULES)
def test_the_brute_force_with_no_tallies_counts_the_oracles_layouts_of_a_rectangle(touch: str) -> None:
    ships = (3, 2, 1, 1)
    names = prod(factorial(n) for n in Counter(ships).values())
    found = tallies_brute.solutions(3, 5, ships, (None,) * 3, (None,) * 5, {}, touch)
    assert len(found) * names == len(oracle.layouts(3, ships, touch, cols=5)) > 0
    assert count(Puzzle(3, 5, ships, (None,) * 3, (None,) * 5, touch=touch)).solutions == len(found)


def test_the_widest_board_is_bounded_by_the_budget_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "wide.json"
    path.write_text(json.dumps({"size": 26, "ships": [5, 4, 3, 3, 2, 2, 2, 1, 1, 1, 1]}))
    assert main(["bimaru", str(path), "--budget", "20000"]) == 2
    err = capsys.readouterr().err
    assert "more than 20,000 steps" in err and err.count("\n") == 1


def full_tallies(size: int, ships: tuple[int, ...], touch: str, seed: int) -> Puzzle:
    """``random_puzzle`` with every tally given (the placement search's case), its hints kept."""
    rng = np.random.default_rng(seed)
    layout = sample_layout(GameConfig(size, ships, Rules(touch=touch)), rng)
    cells = [cell for p in layout for cell in p.cells]
    rows = tuple(sum(r == i for r, _ in cells) for i in range(size))
    cols = tuple(sum(c == i for _, c in cells) for i in range(size))
    return Puzzle(size, size, ships, rows, cols, random_puzzle(size, ships, touch, seed).hints, touch)


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize("size,ships", CASES)
def test_with_every_tally_given_the_search_equals_the_brute_force(size: int, ships: tuple[int, ...], touch: str) -> None:
    for seed in range(4):
        hinted = full_tallies(size, ships, touch, 100 + seed)
        puzzle = hinted if seed % 2 else hinted.with_hints({})  # without hints: more solutions
        found = tallies_brute.solutions(size, size, ships, puzzle.row_counts, puzzle.col_counts, puzzle.hints, touch)
        result = count(puzzle, marginals=True)
        assert result.solutions == len(found)
        if not found:
            assert result.cells is None and result.solution is None
            continue
        assert result.cells is not None and result.solution is not None
        assert np.allclose(result.cells, tallies_brute.shares(size, size, found), atol=1e-9, rtol=0)
        shown = {(r, c): ch for r, line in enumerate(result.solution) for c, ch in enumerate(line) if ch != "."}
        assert any(
            shown == {cell: tallies_brute.piece(ship, cell)[0].replace("s", "c") for ship in layout for cell in ship}
            for layout in found
        )


def test_the_search_counts_its_nodes_against_the_budget_and_refuses_past_it() -> None:
    puzzle = full_tallies(7, (4, 3, 2), "none", 7)
    result = count(puzzle)
    assert result.steps > 1 and count(puzzle, budget=result.steps).solutions == result.solutions >= 1
    with pytest.raises(BudgetExceeded, match=f"more than {result.steps - 1:,} steps"):
        count(puzzle, budget=result.steps - 1)


def shows(layout: tuple[tuple[tuple[int, int], ...], ...], cell: tuple[int, int]) -> str:
    """How ``cell`` shows in a brute-force solution: a ship's piece, or water."""
    return next((tallies_brute.piece(ship, cell) for ship in layout if cell in ship), "water")


@pytest.mark.parametrize("seed", range(3))
def test_a_made_puzzle_is_unique_its_layout_and_no_hint_can_be_dropped(seed: int) -> None:
    ships = (3, 2, 2, 1)
    puzzle, pieces = make(6, ships, seed)
    solve_with = lambda hints: tallies_brute.solutions(6, 6, ships, puzzle.row_counts, puzzle.col_counts, hints, "none")  # noqa: E731
    found = solve_with(puzzle.hints)
    assert len(found) == 1
    assert {cell: shows(found[0], cell) for cell in pieces} == pieces
    for cell in puzzle.hints:
        assert len(solve_with({c: p for c, p in puzzle.hints.items() if c != cell})) > 1
    more, _ = make(6, ships, seed, extra=3)
    assert len(more.hints) == len(puzzle.hints) + 3 and set(puzzle.hints.items()) <= set(more.hints.items())


@pytest.mark.parametrize("seed", range(4))
def test_the_single_hints_are_exactly_those_that_leave_one_solution(seed: int) -> None:
    puzzle = full_tallies(6, (3, 2, 1, 1), "none", 200 + seed)
    found = tallies_brute.solutions(6, 6, puzzle.ships, puzzle.row_counts, puzzle.col_counts, puzzle.hints, "none")
    expected = {
        (cell, piece)
        for cell in ((r, c) for r in range(6) for c in range(6))
        if cell not in puzzle.hints
        for piece in PIECES
        if piece != "ship" and sum(shows(layout, cell) == piece for layout in found) == 1
    }
    assert set(single_hints(puzzle)) == expected


def test_the_command_makes_a_puzzle_that_reads_back_unique(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bimaru", "--make", "--size", "6", "--ships", "3,2,2,1", "--seed", "4"]) == 0
    text = capsys.readouterr().out
    path = tmp_path / "made.txt"
    path.write_text(text)
    assert text.startswith("ROW ") and main(["bimaru", str(path), "--ships", "3,2,2,1", "--count"]) == 0
    assert "unique solution" in capsys.readouterr().out
    assert main(["bimaru", str(path), "--ships", "3,2,2,1", "--single-hints"]) == 0
    assert capsys.readouterr().out.strip() == "already unique"
    two = tmp_path / "two.txt"
    two.write_text("ROW 1 0 0 1\nCOLUMN 1 0 0 1\n0\n")  # two singles on opposite corners, either diagonal
    assert main(["bimaru", str(two), "--ships", "1,1", "--single-hints"]) == 0
    assert capsys.readouterr().out.split("\n")[:2] == ["HINT 0 0 W", "HINT 0 0 C"]
    assert main(["bimaru"]) == 2
    err = capsys.readouterr().err
    assert "--make" in err and err.count("\n") == 1


@pytest.mark.parametrize("touch", TOUCH_RULES)
def test_the_search_counts_and_shares_puzzles_of_many_solutions_like_the_brute_force(touch: str) -> None:
    ships = (2, 2, 1, 1, 1)  # small ships and no hints: tens of solutions under every tally
    for seed in range(300, 304):
        puzzle = full_tallies(6, ships, touch, seed).with_hints({})
        found = tallies_brute.solutions(6, 6, ships, puzzle.row_counts, puzzle.col_counts, {}, touch)
        result = count(puzzle, marginals=True)
        assert result.solutions == len(found) >= 1 and result.cells is not None
        assert np.allclose(result.cells, tallies_brute.shares(6, 6, found), atol=1e-9, rtol=0)
