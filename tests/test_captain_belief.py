"""The captain's belief and spotter against an independent brute force (tests/captain_brute.py).

Small boards (4x4 and 5x4, two or three coloured ships, lengths known only as a list, repeated
lengths included): cell marginals after random shots, with and without noisy answers, on both paths
(the listed named layouts, and the native engine's plain counts forced by a tiny budget); answer
distributions and EIG under noise; the named count from the native count; the spotter's noise.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from captain_brute import Layout, Predicate, chance, eig, layouts, marginals, posterior, tile

from battlelog.captain.belief import Belief, space_cells
from battlelog.captain.boards import TrueBoard, read_true_board
from battlelog.captain.counts import named_layouts
from battlelog.captain.spotter import Spotter
from battlelog.questions.inference import distribution
from battlelog.questions.typecheck import compile_program

NAMES = ("Red", "Green", "Purple")
#: The BattleshipQA boards in the project's shared data folder beside the repository (as
#: tests/test_questions_dataset.py finds them).
BSQA = Path(os.environ.get("BATTLELOG_BSQA") or Path(__file__).resolve().parents[2] / "shared" / "data" / "bsqa")


def _horizontal(cells: frozenset[int], cols: int) -> bool:
    return len({c // cols for c in cells}) == 1


def _touch(a: frozenset[int], b: frozenset[int], cols: int) -> bool:
    return any(abs(x - y) == cols or (abs(x - y) == 1 and x // cols == y // cols) for x in a for y in b)


def questions(cols: int) -> list[tuple[str, Predicate]]:
    """Programs with the same question as a Python predicate on a brute-force layout."""
    return [
        ("(== (size Red) 2)", lambda L: len(L["Red"]) == 2),
        ("(== (orient Green) H)", lambda L: _horizontal(L["Green"], cols)),
        ("(touch Red Green)", lambda L: _touch(L["Red"], L["Green"], cols)),
        ("(== (color 2-3) Red)", lambda L: cols + 2 in L["Red"]),
        ("(any (map (lambda y0 (== (rowL y0) 2)) (coloredTiles Green)))", lambda L: any(c // cols == 1 for c in L["Green"])),
        ("(> (size Green) (size Red))", lambda L: len(L["Green"]) > len(L["Red"])),
    ]


CASES = [(4, 4, (3, 2)), (4, 4, (2, 2)), (4, 4, (3, 2, 2)), (5, 4, (3, 3, 2))]


def _code(layout: Layout, cell: int, names: tuple[str, ...]) -> int:
    shown = tile(layout, cell)
    return 0 if shown is None else names.index(shown) + 1


def _random_game(rows: int, cols: int, lengths: tuple[int, ...], seed: int, noise: float) -> None:
    """Shots and answers in a random order; after each, the belief equals the brute force."""
    names = NAMES[: len(lengths)]
    everything = layouts(rows, cols, names, lengths)
    rng = np.random.default_rng(seed)
    truth = everything[rng.integers(len(everything))]
    belief = Belief(rows, cols, names, lengths, noise)
    shots: dict[int, str | None] = {}
    answers: list[tuple[Predicate, bool]] = []
    asked = questions(cols)
    for cell in rng.permutation(rows * cols)[: rng.integers(2, 8)]:
        if rng.random() < 0.4:
            text, predicate = asked[rng.integers(len(asked))]
            program = compile_program(text, names, rows, cols)
            weighted = posterior(everything, shots, answers, noise)
            p_yes = chance(weighted, predicate)
            result = belief.ask(program)
            assert dict(zip(result.values, result.probabilities)).get(1, 0.0) == pytest.approx(p_yes, abs=1e-9)
            assert result.eig == pytest.approx(eig(p_yes, noise), abs=1e-9)
            given = bool(predicate(truth)) != bool(noise > 0 and rng.random() < 0.3)  # wrong answers under noise
            belief.hear(program, given)
            answers.append((predicate, given))
        belief.shoot(int(cell), _code(truth, int(cell), names))
        shots[int(cell)] = tile(truth, int(cell))
        expected = marginals(posterior(everything, shots, answers, noise), rows * cols)
        assert belief.cells().ravel() == pytest.approx(expected, abs=1e-9)
        assert belief.space() is not None


@pytest.mark.parametrize(("rows", "cols", "lengths"), CASES)
@pytest.mark.parametrize("noise", [0.0, 0.1])
def test_belief_equals_brute_force(rows: int, cols: int, lengths: tuple[int, ...], noise: float) -> None:
    for seed in range(3 if rows * cols < 20 else 1):
        _random_game(rows, cols, lengths, seed, noise)


@pytest.mark.parametrize(("rows", "cols", "lengths"), CASES)
@pytest.mark.parametrize("seed", [7, 8])
def test_counts_before_the_listing_are_exact(rows: int, cols: int, lengths: tuple[int, ...], seed: int) -> None:
    """With a budget of one layout the belief never lists: misses and up to two hits (of one colour
    or two) go to the native engine's counts, which also give the number of named layouts."""
    names = NAMES[: len(lengths)]
    everything = layouts(rows, cols, names, lengths)
    rng = np.random.default_rng(seed)
    truth = everything[rng.integers(len(everything))]
    belief = Belief(rows, cols, names, lengths, 0.1, budget=1)
    shots: dict[int, str | None] = {}
    seen = set()
    for cell in rng.permutation(rows * cols):
        belief.shoot(int(cell), _code(truth, int(cell), names))
        shots[int(cell)] = tile(truth, int(cell))
        counts = belief.counts()
        if counts is None:
            break
        weighted = posterior(everything, shots, [], 0.1)
        listed = belief.space()
        assert listed is None or listed.size <= 1  # a budget of one: listed only when one layout is left
        assert belief.cells().ravel() == pytest.approx(marginals(weighted, rows * cols), abs=1e-9)
        assert named_layouts(counts, len(names), belief.board) == pytest.approx(len(weighted), abs=1e-6)
        hits = [v for v in shots.values() if v is not None]
        seen.add((len(hits), len(set(hits))))
    assert (2, 1) in seen or (2, 2) in seen


def test_two_hits_of_one_colour_and_of_two() -> None:
    """Both kinds of two-hit state, on a board built for each, equal the brute force."""
    names, lengths = NAMES, (3, 2, 2)
    everything = layouts(4, 4, names, lengths)
    cases: list[dict[int, str | None]] = [{5: "Red", 6: "Red", 0: None}, {5: "Red", 9: "Green", 3: None}, {5: "Red", 10: "Green"}]
    for shown in cases:
        belief = Belief(4, 4, names, lengths, 0.0, budget=1)
        for cell, colour in shown.items():
            belief.shoot(cell, 0 if colour is None else names.index(colour) + 1)
        weighted = posterior(everything, shown, [], 0.0)
        assert belief.space() is None and belief.counts() is not None
        assert belief.cells().ravel() == pytest.approx(marginals(weighted, 16), abs=1e-9)


def test_listing_starts_when_the_named_count_fits() -> None:
    """A budget between the empty board's named count and a later one: None first, then the listing."""
    names, lengths = NAMES[:2], (3, 2)
    everything = layouts(4, 4, names, lengths)
    belief = Belief(4, 4, names, lengths, 0.0, budget=len(everything) - 1)
    assert belief.space() is None
    belief.shoot(5, 0)
    space = belief.space()
    assert space is not None and space.size == len(posterior(everything, {5: None}, [], 0.0))


def _board() -> TrueBoard:
    codes = [0] * 16
    for cell in (0, 1, 2):
        codes[cell] = 1
    for cell in (7, 11):
        codes[cell] = 2
    return TrueBoard("t.txt", 4, 4, NAMES[:2], tuple(codes))


def test_spotter_flips_exactly_on_its_draws() -> None:
    board = _board()
    program = compile_program("(== (orient Red) H)", board.names, 4, 4)
    draws = np.array([0.05, 0.5, 0.09, 0.1])
    spotter = Spotter(board, 0.1, draws)
    replies = [spotter.answer(program) for _ in draws]
    assert [r.true_answer for r in replies] == [True] * 4
    assert [r.given_answer for r in replies] == [False, True, False, True]
    truthful = Spotter(board, 0.0, draws)
    assert all(truthful.answer(program).given_answer for _ in draws)
    assert [spotter.shoot(c) for c in (0, 3, 7)] == [1, 0, 2]


@pytest.mark.skipif(not BSQA.is_dir(), reason="needs ../shared/data/bsqa")
def test_on_an_8x8_board_the_kept_space_equals_a_fresh_listing() -> None:
    """Narrowed by shots and reweighed by noisy answers in place, the belief on a BattleshipQA board
    equals the questions package's space listed afresh from the whole state, after every step."""
    board = read_true_board(BSQA / "board_B09.txt")
    belief = Belief(board.rows, board.cols, board.names, board.lengths, 0.1)
    rng = np.random.default_rng(3)
    order = [int(c) for c in rng.permutation(64)]
    for cell in order[:12]:
        belief.shoot(cell, board.codes[cell])
    texts = ["(== (orient Red) H)", "(touch Green Orange)", "(> (size Purple) (size Red))", "(== (color 4-5) Water)"]
    programs = [compile_program(t, board.names, 8, 8) for t in texts]
    for step, cell in enumerate(order[12:20]):
        program = programs[step % len(programs)]
        belief.hear(program, bool(step % 3))  # some answers wrong: the noise keeps every layout
        belief.shoot(cell, board.codes[cell])
        fresh = belief.question_state().space()
        kept = belief.space()
        assert kept is not None and kept.size == fresh.size > 100
        expected = space_cells(fresh)
        assert belief.cells().ravel() == pytest.approx(expected, abs=1e-9)
        for other in programs:
            assert belief.ask(other).probabilities == pytest.approx(distribution(other, fresh, 0.1).probabilities, abs=1e-9)


def test_an_answer_heard_before_the_first_listing_counts_once() -> None:
    names, lengths = NAMES, (3, 2, 2)
    everything = layouts(4, 4, names, lengths)
    program = compile_program("(touch Red Green)", names, 4, 4)
    predicate = questions(4)[2][1]
    belief = Belief(4, 4, names, lengths, 0.1)
    belief.shoot(5, 1)
    belief.hear(program, False)  # nothing listed yet: the listing is made here
    expected = marginals(posterior(everything, {5: "Red"}, [(predicate, False)], 0.1), 16)
    assert belief.cells().ravel() == pytest.approx(expected, abs=1e-9)
