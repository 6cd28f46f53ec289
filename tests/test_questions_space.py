"""Exact answer distributions against an independent brute-force enumerator: every layout of named
ships listed with itertools from first principles, the evidence and the priors applied by hand, each
question evaluated layout by layout with the reference evaluator; on random small states with length
lists, ``lengths``, both length priors, named and unnamed hits and noisy answers, to 1e-9."""

from __future__ import annotations

import itertools
import random
import tracemalloc
from collections import defaultdict
from typing import Any

import pytest

from battlelog.errors import FileFormatError, StateError
from battlelog.questions.answers import answer_to_json
from battlelog.questions.inference import distribution
from battlelog.questions.layout import Layout, ShipAt, evaluate
from battlelog.questions.state import state_from_json
from battlelog.questions.typecheck import compile_program

PROGRAMS = [
    "(size {0})", "(orient {1})", "(touch {0} {1})", "(color 1-2)", "(color 2-1)", "(topleft (coloredTiles {0}))",
    "(bottomright (coloredTiles {1}))", "(== (size {0}) (size {1}))", "(> (size {0}) (size {1}))",
    "(++ (map (lambda x0 (size x0)) (set AllColors)))", "(any (map (lambda x0 (touch {0} x0)) (set AllColors)))",
    "(++ (map (lambda x0 (++ (map (lambda y0 (== (rowL y0) 2)) (coloredTiles x0)))) (set AllColors)))",
    "(all (map (lambda x0 (== (orient x0) H)) (set AllColors)))", "(=== (map (lambda x0 (size x0)) (set AllColors)))",
    "(setSize (coloredTiles Water))", "(topleft (coloredTiles Water))", "(orient (color 1-1))", "(size (color 2-2))",
    "(touch (color 1-1) {1})", "(setSize (union (coloredTiles {0}) (coloredTiles {1})))",
    "(isSubset (coloredTiles {0}) (set 1-1 1-2 1-3 2-1))", "(setSize (unique (map (lambda x0 1-1) (set AllColors))))",
    "(bottomright (map (lambda x0 (topleft (coloredTiles x0))) (set AllColors)))",
    "(any (map (lambda y0 (> (colL y0) 2)) (coloredTiles {1})))", "(+ (touch {0} {1}) (== (color 1-1) Water))",
    "(colL (topleft (setDifference (coloredTiles {0}) (coloredTiles {1}))))", "(not (== (color 2-2) {0}))",
]  # fmt: skip
NAMES = ("Red", "Blue", "Purple")


def brute_placements(rows: int, cols: int, lengths: list[int]) -> list[tuple[int, frozenset[tuple[int, int]], str]]:
    """(length, cells, orientation) of every way to lay one ship of one of ``lengths``."""
    out = []
    for length in lengths:
        for r in range(rows):
            for c in range(cols):
                if c + length <= cols:
                    out.append((length, frozenset((r, c + i) for i in range(length)), "H"))
                if length > 1 and r + length <= rows:
                    out.append((length, frozenset((r + i, c) for i in range(length)), "V"))
    return out


def brute_layouts(rows: int, cols: int, options: list[list[int]]) -> list[tuple[Any, ...]]:
    """Every tuple of pairwise disjoint placements, one per ship."""
    per_ship = [brute_placements(rows, cols, lengths) for lengths in options]
    out = []
    for combo in itertools.product(*per_ship):
        cells = [cell for _, ship, _ in combo for cell in ship]
        if len(cells) == len(set(cells)):
            out.append(combo)
    return out


def as_layout(rows: int, cols: int, combo: tuple[Any, ...]) -> Layout:
    ships = []
    for length, cells, orientation in combo:
        r, c = min(cells)
        ships.append(ShipAt(length, r * cols + c, 1 if orientation == "H" else cols))
    return Layout(rows, cols, tuple(ships))


def brute_distribution(data: dict[str, Any], question: str) -> tuple[dict[Any, float], int]:
    """The answer distribution and the number of layouts of positive weight, by listing every layout."""
    rows, cols = len(data["board"]), len(data["board"][0].split(","))
    names = [s["name"] for s in data["ships"]]
    k = len(names)
    if "lengths" in data:
        options = [sorted(set(data["lengths"]))] * k
    else:
        options = [s["length"] if isinstance(s["length"], list) else [s["length"]] for s in data["ships"]]
    everything = brute_layouts(rows, cols, options)
    if "lengths" in data:
        everything = [combo for combo in everything if sorted(p[0] for p in combo) == sorted(data["lengths"])]
    per_assignment: dict[tuple[int, ...], int] = defaultdict(int)
    for combo in everything:
        per_assignment[tuple(p[0] for p in combo)] += 1
    symbols = [row.split(",") for row in data["board"]]
    noise = data.get("noise", 0.0)
    totals: dict[Any, float] = defaultdict(float)
    models = 0
    for combo in everything:
        owner = {cell: names[i] for i, (_, cells, _) in enumerate(combo) for cell in cells}
        fits = True
        for r in range(rows):
            for c in range(cols):
                symbol = symbols[r][c]
                if (
                    (symbol == "W" and (r, c) in owner)
                    or (symbol == "X" and (r, c) not in owner)
                    or (symbol not in ("H", "W", "X") and owner.get((r, c), "")[: len(symbol)] != symbol)
                ):
                    fits = False
        if not fits:
            continue
        weight = 1.0 if data.get("length_prior", "layouts") == "layouts" else 1.0 / per_assignment[tuple(p[0] for p in combo)]
        layout = as_layout(rows, cols, combo)
        for answered in data.get("answers", []):
            program = compile_program(answered["question"], names, rows, cols)
            agrees = answer_to_json(evaluate(program, layout), program.type, names, cols) == answered["answer"]
            if isinstance(answered["answer"], bool) and noise > 0:
                weight *= (1 - noise) if agrees else noise
            elif not agrees:
                weight = 0.0
        if weight == 0:
            continue
        models += 1
        program = compile_program(question, names, rows, cols)
        totals[answer_to_json(evaluate(program, layout), program.type, names, cols)] += weight
    whole = sum(totals.values())
    return {answer: w / whole for answer, w in totals.items()}, models


def random_state(rng: random.Random) -> dict[str, Any]:
    """A random consistent state: a hidden layout, part of the board revealed, a few answers."""
    rows, cols = rng.choice([(2, 3), (3, 3), (3, 4), (4, 3), (2, 4)])
    k = rng.choice([2, 2, 3])
    names = list(NAMES[:k])
    data: dict[str, Any] = {"length_prior": rng.choice(["layouts", "sizes"])}
    if rng.random() < 0.35:
        data["lengths"] = [rng.choice([1, 2, 3]) for _ in names]
        data["ships"] = [{"name": n} for n in names]
        options = [sorted(set(data["lengths"]))] * k
    else:
        options = [sorted(rng.sample([1, 2, 3], rng.choice([1, 2, 3]))) for _ in names]
        data["ships"] = [{"name": n, "length": o if len(o) > 1 or rng.random() < 0.5 else o[0]} for n, o in zip(names, options)]
    layouts = brute_layouts(rows, cols, options)
    if "lengths" in data:
        layouts = [combo for combo in layouts if sorted(p[0] for p in combo) == sorted(data["lengths"])]
    if not layouts:
        return random_state(rng)
    truth = rng.choice(layouts)
    owner = {cell: names[i] for i, (_, cells, _) in enumerate(truth) for cell in cells}
    named = rng.random() < 0.8
    board = []
    for r in range(rows):
        row = []
        for c in range(cols):
            if rng.random() < 0.3:
                ship = owner.get((r, c))
                row.append("W" if ship is None else (rng.choice([ship, ship[0]]) if named else "X"))
            else:
                row.append("H")
        board.append(",".join(row))
    data["board"] = board
    if not named:
        data["rules"] = {"hits": "anonymous"}
    data["noise"] = rng.choice([0.0, 0.0, 0.1, 0.25])
    layout = as_layout(rows, cols, truth)
    data["answers"] = []
    for text in rng.sample(PROGRAMS, rng.choice([0, 1, 2])):
        question = text.format(*names)
        program = compile_program(question, names, rows, cols)
        answer = answer_to_json(evaluate(program, layout), program.type, names, cols)
        if isinstance(answer, bool) and data["noise"] > 0 and rng.random() < 0.3:
            answer = not answer  # a noisy answer may be wrong
        data["answers"].append({"question": question, "answer": answer})
    return data


@pytest.mark.parametrize("seed", range(40))
def test_distributions_equal_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    data = random_state(rng)
    state = state_from_json(data, "state")
    space = state.space()
    names = state.names
    for text in rng.sample(PROGRAMS, 8):
        question = text.format(*names, *names)
        expected, models = brute_distribution(data, question)
        result = distribution(compile_program(question, names, state.rows, state.cols), space, state.noise).to_json(state.cols)
        got = {a["answer"]: a["p"] for a in result["answers"]}
        assert result["models"] == models
        assert set(got) == set(expected), question
        for answer, p in expected.items():
            assert got[answer] == pytest.approx(p, abs=1e-9), (question, answer)


def test_the_random_states_cover_every_feature() -> None:
    states = [random_state(random.Random(seed)) for seed in range(40)]
    assert any("lengths" in s for s in states) and any("lengths" not in s for s in states)
    assert {s["length_prior"] for s in states} == {"layouts", "sizes"}
    assert any(s.get("rules") == {"hits": "anonymous"} for s in states)
    assert any(s["noise"] > 0 and any(isinstance(a["answer"], bool) for a in s["answers"]) for s in states)
    assert any(any(not isinstance(a["answer"], bool) for a in s["answers"]) for s in states)


def test_rothes_space_has_the_papers_count() -> None:
    data = {"size": 6, "ships": [{"name": n, "length": [2, 3, 4]} for n in NAMES]}
    assert state_from_json(data, "state").space().size == 1_653_456


def test_noisy_eig_is_the_binary_channels() -> None:
    data = {"size": 3, "ships": [{"name": "Red", "length": 2}], "noise": 0.1}
    state = state_from_json(data, "state")
    result = distribution(compile_program("(== (orient Red) H)", state.names, 3, 3), state.space(), state.noise)
    assert result.entropy == pytest.approx(1.0)  # 6 horizontal and 6 vertical placements
    assert result.eig == pytest.approx(1 - (-(0.1 * __import__("math").log2(0.1)) - 0.9 * __import__("math").log2(0.9)))


def _balanced_sum(term: str, copies: int) -> str:
    """``term`` added to itself ``copies`` times (a power of 2) in a tree of binary ``+``."""
    return term if copies == 1 else f"(+ {_balanced_sum(term, copies // 2)} {_balanced_sum(term, copies // 2)})"


def test_answers_far_apart_are_counted_without_an_array_spanning_them() -> None:
    data = {"rows": 1, "cols": 2, "ships": [{"name": "Red", "length": [1, 2]}]}
    state = state_from_json(data, "state")
    space = state.space()
    sizes = distribution(compile_program("(size Red)", state.names, 1, 2), space)
    million_a_tile = "(++ (map (lambda y0 1000000) (coloredTiles Red)))"  # two map bodies on a 1x2 board
    program = compile_program(_balanced_sum(million_a_tile, 512), state.names, 1, 2)  # 1,024 map bodies: the most
    tracemalloc.start()
    result = distribution(program, space)  # answers 512,000,000 and 1,024,000,000: a bincount between them is 4 GB
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert result.values == tuple(512 * 1_000_000 * size for size in sizes.values)
    assert result.probabilities == pytest.approx(sizes.probabilities, abs=1e-12)
    assert peak < 50 * 2**20


BAD_STATES = [
    ({"size": 3, "ships": [{"name": "Red", "length": 2}], "answers": [{"question": "(size Red)", "answer": 3}]},
     StateError, "answers[1]"),
    ({"size": 3, "ships": [{"name": "Red", "length": 2}], "answers": [{"question": "(size Red)", "answer": "H"}]},
     FileFormatError, "answer is a number"),
    ({"size": 3, "ships": [{"name": "Red", "length": 2}], "answers": [{"question": "(size Blue)", "answer": 2}]},
     FileFormatError, "unknown ship 'Blue'"),
    ({"size": 3, "ships": [{"name": "Red", "length": 2}], "answers": [{"question": "(size Red", "answer": 2}]},
     FileFormatError, "never closed"),
    ({"board": ["W,W,W", "W,W,W", "W,W,H"], "ships": [{"name": "Red", "length": 2}]}, StateError, "no layout"),
    ({"board": ["R,H", "H,Q"], "ships": [{"name": "Red", "length": 2}]}, FileFormatError, "row 2, column 2: 'Q'"),
    ({"board": ["R,H", "H,H"], "ships": [{"name": "Red", "length": 2}], "rules": {"hits": "anonymous"}},
     FileFormatError, "hits are anonymous"),
    ({"size": 9, "ships": [{"name": "Red", "length": 2}]}, FileFormatError, "more than 64 cells"),
    ({"size": 3, "ships": [{"name": "Red", "length": 0}]}, FileFormatError, "at least 1"),
    ({"size": 3, "ships": [{"name": "Red", "length": 4}]}, FileFormatError, "ships[0]: length 4 does not fit on a 3x3 board"),
    ({"rows": 2, "cols": 5, "ships": [{"name": "Red", "length": [2, 3, 99999999999999999999]}]},  # was an OverflowError
     FileFormatError, "ships[0]: length 99999999999999999999 does not fit on a 2x5 board"),
    ({"size": 3, "ships": [{"name": "Red", "length": list(range(1, 100_000))}]},  # 4 s of placement tables before
     FileFormatError, "ships[0]: length 4 does not fit on a 3x3 board"),
    ({"size": 3, "ships": [{"name": "Red"}, {"name": "Blue"}], "lengths": [2, 4]}, FileFormatError,
     "lengths: length 4 does not fit on a 3x3 board"),
    ({"size": 3, "ships": [{"name": "Red", "length": 2}, {"name": "Red", "length": 2}]},
     FileFormatError, "two ships are named Red"),
    ({"size": 3, "ships": [{"name": "x0", "length": 2}]}, FileFormatError, "not a ship's name"),
    ({"size": 3, "ships": [{"name": "Red"}], "lengths": [2, 3]}, FileFormatError, "one length per ship"),
    ({"size": 3, "ships": [{"name": "Red", "length": 2}], "lengths": [2]}, FileFormatError, "unknown key 'length'"),
    ({"size": 3, "ships": [{"name": "Red", "length": 2}], "length_prior": "colours"}, FileFormatError, "length_prior"),
    ({"size": 3, "ships": [{"name": "Red", "length": 2}], "noise": 0.7}, FileFormatError, "noise"),
    ({"size": 3, "ships": [{"name": "Red", "length": 2}], "shots": []}, FileFormatError, "unknown key 'shots'"),
]  # fmt: skip


@pytest.mark.parametrize(("data", "error", "message"), BAD_STATES)
def test_bad_states_are_one_line(data: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        state_from_json(data, "state.json").space()
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
