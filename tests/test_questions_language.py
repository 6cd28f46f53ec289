"""The question language: every primitive on a hand-made layout (both evaluators), and bad programs
refused in one line saying where."""

from __future__ import annotations

import numpy as np
import pytest

from battlelog.questions.answers import answer_from_json, answer_to_json
from battlelog.questions.language import ProgramError
from battlelog.questions.layout import Layout, ShipAt, evaluate
from battlelog.questions.scoped import Space, lift_full
from battlelog.questions.space import Fleet, tables_for
from battlelog.questions.typecheck import compile_program
from battlelog.questions.vectorised import evaluate as evaluate_all

NAMES = ("Red", "Blue", "Purple")
# R R R B
# W W W B
# W W W W
# P W W W
LAYOUT = Layout(4, 4, (ShipAt(3, 0, 1), ShipAt(2, 3, 4), ShipAt(1, 12, 1)))

CASES = [
    ("(size Red)", 3), ("(size Blue)", 2), ("(size Purple)", 1), ("(size Water)", 0),
    ("(orient Red)", "H"), ("(orient Blue)", "V"), ("(orient Purple)", None), ("(orient Water)", None),
    ("(touch Red Blue)", True), ("(touch Blue Red)", True), ("(touch Red Purple)", False),
    ("(touch Red Red)", True), ("(touch Purple Purple)", False), ("(touch Water Red)", False),
    ("(color 1-4)", "Blue"), ("(color 4-1)", "Purple"), ("(color 3-3)", "Water"), ("(color 4A)", "Purple"),
    ("(color D1)", "Purple"), ("(color 1D)", "Blue"),
    ("(topleft (coloredTiles Red))", "1-1"), ("(bottomright (coloredTiles Blue))", "2-4"),
    ("(topleft (coloredTiles Water))", "2-1"), ("(bottomright (coloredTiles Water))", "4-4"),
    ("(topleft (setDifference (coloredTiles Red) (coloredTiles Red)))", None),
    ("(rowL 3-2)", 3), ("(colL 3-2)", 2), ("(rowL (topleft (intersection (coloredTiles Red) (coloredTiles Blue))))", 0),
    ("(color (topleft (intersection (coloredTiles Red) (coloredTiles Blue))))", "Water"),
    ("(setSize (coloredTiles Water))", 10), ("(setSize (union (coloredTiles Red) (coloredTiles Blue)))", 5),
    ("(setSize (intersection (coloredTiles Red) (coloredTiles Blue)))", 0),
    ("(setSize (setDifference (set AllTiles) (coloredTiles Water)))", 6), ("(setSize AllTiles)", 16),
    ("(isSubset (coloredTiles Blue) (set 1-4 2-4 3-4))", True), ("(isSubset (coloredTiles Red) (set 1-1 1-2))", False),
    ("(setSize (map (lambda x0 1-1) (set AllColors)))", 3), ("(setSize (unique (map (lambda x0 1-1) (set AllColors))))", 1),
    ("(setSize (unique (map (lambda x0 (topleft (coloredTiles x0))) (set AllColors))))", 3),
    ("(bottomright (map (lambda x0 (bottomright (coloredTiles x0))) (set AllColors)))", "4-1"),
    ("(++ (map (lambda x0 (size x0)) (set AllColors)))", 6), ("(++ (map (lambda x0 (size x0)) AllColors))", 6),
    ("(++ (map (lambda x0 (== (orient x0) H)) (set AllColors)))", 1),
    ("(any (map (lambda y0 (== (rowL y0) 4)) (coloredTiles Purple)))", True),
    ("(any (map (lambda y0 (== (rowL y0) 3)) (coloredTiles Purple)))", False),
    ("(all (map (lambda y0 (== (colL y0) 4)) (coloredTiles Blue)))", True),
    ("(all (map (lambda x0 (> (size x0) 1)) (set AllColors)))", False),
    ("(=== (map (lambda x0 (size x0)) (set Red Blue)))", False), ("(=== (map (lambda x0 (size x0)) (set Red)))", True),
    ("(=== (map (lambda x0 (> (size x0) 1)) (set Red Blue)))", True),
    ("(+ TRUE TRUE)", 2), ("(- (size Red) (size Blue))", 1), ("(+ (size Red) TRUE)", 4), ("(- 1 3)", -2),
    ("(and (touch Red Blue) (not (touch Red Purple)))", True), ("(or FALSE FALSE)", False), ("(and TRUE TRUE FALSE)", False),
    ("(== (color 1-1) Red)", True), ("(== H V)", False), ("(== 1-1 1A)", True), ("(< 2 3)", True), ("(> 2 3)", False),
    ("(++ (map (lambda x0 (++ (map (lambda y0 (== (rowL y0) 1)) (coloredTiles x0)))) (set AllColors)))", 4),
    ("(setSize (set AllColors))", 3), ("(setSize (set Red Red Blue))", 2), ("(setSize (set 1-1 1-1 2-2))", 2),
    ("(orient (color 2-4))", "V"), ("(size (color 3-3))", 0), ("(touch (color 1-1) (color 1-4))", True),
    ("(setSize (coloredTiles (color 2-4)))", 2), ("(== (orient (color 4-1)) (orient Water))", True),
    ("(++ (map (lambda x0 (touch x0 Red)) (set AllColors)))", 2),
    ("(any (map (lambda x0 (any (map (lambda y1 (== (colL y1) 4)) (coloredTiles x0)))) (set Red Purple)))", False),
]  # fmt: skip


def _one_layout_space() -> Space:
    fleet = Fleet(NAMES, ((3,), (2,), (1,)))
    tables = tables_for(4, 4, fleet)
    idx = []
    for table, ship in zip(tables, LAYOUT.ships):
        found = np.flatnonzero(
            (table.start == ship.start) & (table.length == ship.length) & ((table.step == ship.step) | (table.length == 1))
        )
        idx.append(found[:1])
    return Space(tables, np.array(idx, dtype=np.int32), np.ones(1))


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_primitives_on_a_hand_made_layout(text: str, expected: object) -> None:
    program = compile_program(text, NAMES, 4, 4)
    assert answer_to_json(evaluate(program, LAYOUT), program.type, NAMES, 4) == expected
    vector = lift_full(evaluate_all(program, _one_layout_space()), _one_layout_space())
    assert answer_to_json(vector[0], program.type, NAMES, 4) == expected


def test_the_board_is_the_hand_drawn_one() -> None:
    rows = ["".join("WRBP"[v] for v in LAYOUT.board[r * 4 : r * 4 + 4]) for r in range(4)]
    assert rows == ["RRRB", "WWWB", "WWWW", "PWWW"]


BAD = [
    ("", "the program is empty"),
    ("(size Red", "column 1: '(' is never closed"),
    ("(size Red))", "column 11: ')' after the end"),
    ("(siz Red)", "column 2: unknown function 'siz'"),
    ("(size Green)", "column 7: unknown ship 'Green'"),
    ("(== (size Red) H)", "column 16: == compares a number with an orientation"),
    ("(== (size Red) (color 1-1))", "column 16: == compares a number with a colour"),
    ("(size Red Blue)", "column 1: size takes 1 argument, got 2"),
    ("(> (orient Red) 2)", "column 4: > compares numbers, got an orientation"),
    ("(color 7-1)", "column 8: location 7-1 is off the 4x4 board"),
    ("(map (lambda x0 (size x0)) (set AllColors))", "column 1: a program must give"),
    ("(any (map (lambda y0 (size y0)) (coloredTiles Red)))", "column 28: size takes a colour, got a location"),
    ("(any (map (lambda x0 (== x0 Red)) (coloredTiles Red)))", "x0 ranges over a set of colours"),
    ("(size x1)", "column 7: variable x1 is not bound"),
    ("(lambda x0 (size x0))", "lambda is only the first argument of map"),
    ("(size $)", "column 7: '$' is not a literal"),
    ("(touch Red 3)", "column 12: touch takes two ships, got a number"),
    ("(not " * 70 + "TRUE" + ")" * 70, "column 321: nested more than 64 deep"),
    ("(" * 10_000 + "size Red" + ")" * 10_000, "column 65: nested more than 64 deep"),
    ("(== (size Red) \u0663)", "column 16: '\u0663' is not a literal"),  # an Arabic-Indic 3 is not 3
    ("(color \u0661-\u0661)", "column 8: '\u0661-\u0661' is not a literal"),
    ("(== (size Red) 1000001)", "column 16: number 1000001 is larger than 1,000,000"),
    ("(== (size Red) " + "9" * 5000 + ")", "column 16: number 9999"),
    ("(color " + "9" * 5000 + "-1)", "column 8: location 9999"),
    ("(color 99999-1)", "column 8: location 99999-1 is off the 4x4 board"),
    ("(and " + "TRUE " * 25_000 + ")", "the program has 125,006 characters, more than 100,000"),
    # maps over every tile nested three deep: 16 + 256 + 4096 bodies on a 4x4 board (8x8: 262,144, hours)
    (
        "(++ (map (lambda y0 (++ (map (lambda y1 (++ (map (lambda y2 (== (color y2) Red)) AllTiles))) AllTiles))) AllTiles))",
        "column 45: the maps evaluate their bodies up to 4,368 times, more than 1,024",
    ),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_bad_programs_are_one_line_saying_where(text: str, message: str) -> None:
    with pytest.raises(ProgramError) as error:
        compile_program(text, NAMES, 4, 4)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("text", "answer"),
    [("(size Red)", "3"), ("(size Red)", True), ("(touch Red Blue)", 1), ("(color 1-1)", "Green"), ("(orient Red)", "h"),
     ("(topleft (coloredTiles Red))", "9-9"), ("(topleft (coloredTiles Red))", 3),
     ("(topleft (coloredTiles Red))", "9" * 5000 + "-1"), ("(topleft (coloredTiles Red))", "\u0661-\u0661")],
)  # fmt: skip
def test_answers_of_the_wrong_type_are_one_line(text: str, answer: object) -> None:
    program = compile_program(text, NAMES, 4, 4)
    with pytest.raises(ProgramError, match=f"answer is an? {program.type.value}"):
        answer_from_json(answer, program.type, NAMES, 4, 4)


def test_answers_read_back_to_their_values() -> None:
    for text, expected in CASES:
        program = compile_program(text, NAMES, 4, 4)
        value = answer_from_json(expected, program.type, NAMES, 4, 4)
        assert answer_to_json(value, program.type, NAMES, 4) == expected
