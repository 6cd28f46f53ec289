"""The value of the game (battlelog/optimum/value.py, matrix_game.py; `battlelog value`).

The certificate is checked as a stranger would, against the independent oracle (tests/oracle.py,
tests/oracle_optimum.py) and nothing of battlelog.optimum: the hider's distribution fed to a brute-force
optimum gives the value; every tree of the seeker's mixture, played against every layout by a referee
written here, is a legal complete policy (cells on the board, never shot twice, a branch for every answer,
null exactly when the fleet is sunk); the mixture's expected shots against its worst layout is the value;
all as exact fractions. The exact matrix-game solver is checked against scipy's LP on random games.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any

import pytest
from scipy.optimize import linprog

from battlelog.cli import main
from battlelog.optimum.matrix_game import solve_matrix_game

import oracle
from oracle_optimum import brute_optimum, brute_weighted_optimum


def oracle_index(table: oracle.Layouts, layout: list[dict[str, Any]]) -> int:
    spots = tuple((s["length"], s["row"], s["col"], s["orientation"] == "h") for s in layout)
    assert [s["ship"] for s in layout] == list(range(len(layout)))
    return table.spots.index(spots)


def play(tree: Any, masks: list[int], size: int, sinks: str) -> int:
    """Shots ``tree`` fires until the ships ``masks`` are all sunk, answered by the oracle's referee."""
    shot, count, node = 0, 0, tree
    fleet = sum(masks)
    while fleet & ~shot:
        assert isinstance(node, dict), "the tree stops before the fleet is sunk"
        r, c = node["shot"]
        assert 0 <= r < size and 0 <= c < size
        bit = 1 << (r * size + c)
        assert not shot & bit, "the tree shoots a cell twice"
        answer = oracle.mask_answer(masks, shot, bit, sinks)
        shot |= bit
        count += 1
        node = node["sunk"][answer.split()[1]] if answer.startswith("sunk ") else node[answer]
    assert node is None, "the tree goes on after the fleet is sunk"
    return count


def check_certificate(certificate: dict[str, Any], size: int, ships: tuple[int, ...], touch: str, sinks: str) -> None:
    table = oracle.layouts(size, ships, touch)
    masks = oracle.layout_masks(table, size)
    value = Fraction(certificate["value"])
    weights = [Fraction(0)] * len(table)
    for entry in certificate["hider"]:
        weights[oracle_index(table, entry["layout"])] += Fraction(entry["p"])
    assert sum(weights) == 1 and min(weights) >= 0
    assert brute_weighted_optimum(size, ships, touch, sinks, tuple(weights)) == value
    shares = [Fraction(entry["p"]) for entry in certificate["seeker"]]
    assert sum(shares) == 1 and min(shares) > 0
    expected = [
        sum((q * play(entry["tree"], masks[k], size, sinks) for q, entry in zip(shares, certificate["seeker"])), Fraction(0))
        for k in range(len(table))
    ]
    assert max(expected) == value
    assert Fraction(certificate["uniform_optimum"]) == brute_optimum(size, ships, touch, sinks) <= value


@pytest.mark.parametrize(
    "size,ships,touch,sinks",
    [
        (3, (2,), "allowed", "named"),
        pytest.param(4, (2,), "allowed", "named", marks=pytest.mark.slow),  # minutes of exhaustive recursion
        (3, (2, 1), "allowed", "named"),
        (3, (2, 2), "none", "named"),
        pytest.param(3, (2, 2), "allowed", "unnamed", marks=pytest.mark.slow),
    ],
)
def test_certificate_checks_against_brute_force(
    capsys: pytest.CaptureFixture[str], size: int, ships: tuple[int, ...], touch: str, sinks: str
) -> None:
    argv = ["value", "--size", str(size), "--ships", ",".join(map(str, ships)), "--json"]
    argv += [] if touch == "allowed" else ["--touch", touch]
    argv += [] if sinks == "named" else ["--sinks", sinks]
    assert main(argv) == 0
    certificate = json.loads(capsys.readouterr().out)
    assert certificate["size"] == size and certificate["ships"] == list(ships)
    assert certificate.get("touch", "allowed") == touch
    check_certificate(certificate, size, ships, touch, sinks)


def test_the_hider_beats_uniform_on_4x4_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["value", "--size", "4", "--ships", "2"]) == 0
    out = capsys.readouterr().out
    assert "4x4 2: 24 layouts" in out and "the hider gains" in out
    value = Fraction(out.split("(")[1].split(" exactly")[0])
    assert value > Fraction(73, 12)  # the uniform optimum: hiding uniformly is not the hider's best


def test_matrix_game_against_scipy() -> None:
    rng = random.Random(3)
    for _ in range(40):
        rows, columns = rng.randint(1, 7), rng.randint(1, 7)
        payoff = [[Fraction(rng.randint(1, 12), rng.randint(1, 3)) for _ in range(columns)] for _ in range(rows)]
        solution = solve_matrix_game(payoff)
        # the minimiser: min u s.t. sum_i q_i payoff[i][j] <= u for every j, q a distribution
        lp = linprog(
            [0.0] * rows + [1.0],
            A_ub=[[float(payoff[i][j]) for i in range(rows)] + [-1.0] for j in range(columns)],
            b_ub=[0.0] * columns,
            A_eq=[[1.0] * rows + [0.0]],
            b_eq=[1.0],
            bounds=[(0, None)] * rows + [(None, None)],
        )
        assert abs(lp.fun - float(solution.value)) < 1e-9


def test_value_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["value", "--size", "5", "--ships", "2"]) == 2
    assert "more than 16 cells" in capsys.readouterr().err
    assert main(["value", "--size", "3", "--ships", "2", "--salvo", "2"]) == 2
    assert "one shot a turn" in capsys.readouterr().err
