"""The optimum under any prior (battlelog/optimum/weighted.py, weights.py, policy.py; `battlelog optimal --prior`).

Against an independent brute force (tests/oracle_optimum.py: Bellman's equation over the oracle's layouts
and answers, weighed) on the smallest boards under several rule pairs: random rational weights read from a
file of explicit layout weights (some layouts weighing 0) give exactly the brute force's optimum; a
log-linear prior's optimum lies within its stated tolerance of the brute force's under the float weights of
the spec's formula; the policy tree read back is complete and reaches the optimum on every layout's weight.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from battlelog.cli import main
from battlelog.errors import BattlelogError
from battlelog.optimum.layouts import solvable_layouts
from battlelog.optimum.policy import policy_tree, shots_table
from battlelog.optimum.prior_solver import WeightedSolver
from battlelog.optimum.solver import Solver
from battlelog.optimum.weights import explicit_weights, loglinear_weights
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import Prior
from battlelog.rules.variants import Rules

import oracle
from oracle_optimum import brute_weighted_optimum


def spot_json(ship: int, spot: tuple[int, int, int, bool]) -> dict[str, object]:
    length, row, col, horizontal = spot
    return {"ship": ship, "length": length, "row": row, "col": col, "orientation": "h" if horizontal else "v"}


def write_weights(path: Path, size: int, ships: tuple[int, ...], touch: str, weights: list[Fraction]) -> None:
    """The oracle's layouts with ``weights`` as a weights file (weights as "p/q", whole numbers or decimals)."""
    table = oracle.layouts(size, ships, touch)
    lines = []
    for k, layout in enumerate(table.spots):
        w = weights[k]
        written: object = int(w) if w.denominator == 1 else str(w)
        lines.append(json.dumps({"layout": [spot_json(i, s) for i, s in enumerate(layout)], "weight": written}))
    path.write_text("\n".join(lines) + "\n")


CASES = [
    (3, (2,), "allowed", "named"),
    (3, (2, 1), "allowed", "named"),
    (3, (2, 2), "allowed", "unnamed"),
    (3, (2, 1), "none", "named"),
    (3, (2, 2), "allowed", "silent"),
    pytest.param(4, (2,), "allowed", "named", marks=pytest.mark.slow),  # minutes of exhaustive recursion
    pytest.param(4, (3,), "diagonal", "named", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("size,ships,touch,sinks", CASES)
def test_explicit_weights_equal_brute_force(tmp_path: Path, size: int, ships: tuple[int, ...], touch: str, sinks: str) -> None:
    rng = random.Random(hash((size, ships, touch, sinks)) & 0xFFFF)
    count = len(oracle.layouts(size, ships, touch))
    weights = [Fraction(rng.choice([0, 1, 2, 3, 7]), rng.choice([1, 2, 3, 5])) for _ in range(count)]
    weights[0] = Fraction(5, 2)  # at least one layout can occur
    path = tmp_path / "weights.jsonl"
    write_weights(path, size, ships, touch, weights)
    config = GameConfig(size, ships, Rules(touch, sinks))
    weighted = explicit_weights(solvable_layouts(config), path)
    assert len(weighted.layouts) == sum(w > 0 for w in weights) and weighted.exact
    solver = WeightedSolver(weighted.layouts, weighted.weights)
    optimum = solver.optimum()
    assert optimum == brute_weighted_optimum(size, ships, touch, sinks, tuple(weights))
    # the policy read back: complete on every layout of the table, and its weighed mean is the optimum
    shots = shots_table([policy_tree(solver)], weighted.layouts)[0]
    assert Fraction(int((shots * weighted.weights).sum()), int(weighted.weights.sum())) == optimum


@pytest.mark.parametrize("size,ships,touch,sinks", [(3, (2,), "allowed", "named"), (3, (2, 1), "allowed", "named")])
def test_loglinear_prior_within_its_tolerance(size: int, ships: tuple[int, ...], touch: str, sinks: str) -> None:
    prior = Prior(edge=0.7, vertical=-0.4)
    config = GameConfig(size, ships, Rules(touch, sinks))
    weighted = loglinear_weights(solvable_layouts(config), prior)
    optimum = WeightedSolver(weighted.layouts, weighted.weights).optimum()
    table = oracle.layouts(size, ships, touch)
    floats = oracle.layout_weights(table, edge=0.7, vertical=-0.4)
    scale = 1 << 40
    brute = brute_weighted_optimum(size, ships, touch, sinks, tuple(Fraction(round(w * scale)) for w in floats / floats.max()))
    assert 0 < weighted.tolerance < 1e-9
    assert abs(float(optimum - brute)) <= weighted.tolerance + 1e-9  # the brute force's own rounding at 2**-40


def test_uniform_weights_give_the_uniform_optimum() -> None:
    config = GameConfig(4, (3, 2))
    layouts = solvable_layouts(config)
    solver = WeightedSolver(layouts, np.full(len(layouts), 3, dtype=np.int64))
    assert solver.optimum() == Solver(config).optimum() == Fraction(2311, 264)
    assert len(solver.symmetries) == 8
    assert float(loglinear_weights(layouts, Prior()).tolerance) == 0.0


def test_symmetries_kept_only_where_weights_are() -> None:
    layouts = solvable_layouts(GameConfig(4, (2,)))
    vertical = np.array([1 + int(row[0] >= 12) for row in layouts.placement], dtype=np.int64)  # vertical placements weigh 2
    assert len(WeightedSolver(layouts, vertical).symmetries) == 4  # a transposition swaps the two orientations


def test_optimal_prior_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    weights = [Fraction(k % 3) for k in range(len(oracle.layouts(3, (2,))))]
    path = tmp_path / "w.jsonl"
    write_weights(path, 3, (2,), "allowed", weights)
    assert main(["optimal", "--size", "3", "--ships", "2", "--prior", str(path), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert Fraction(figures["exact"]["optimal"]) == brute_weighted_optimum(3, (2,), "allowed", "named", tuple(weights))
    assert figures["tolerance"] == 0.0 and figures["layouts"] == sum(w > 0 for w in weights)
    assert main(["optimal", "--size", "3", "--ships", "2", "--prior", "edge=1"]) == 0
    assert "within" in capsys.readouterr().out


@pytest.mark.parametrize(
    "line,message",
    [
        ('{"layout": [], "weight": 1}', "must list the 1 ships"),
        ('{"layout": [{"ship": 0, "length": 2, "row": 2, "col": 2, "orientation": "h"}], "weight": 1}', "is no placement"),
        ('{"layout": [{"ship": 0, "length": 2, "row": 0, "col": 0, "orientation": "h"}], "weight": -1}', "must not be negative"),
        ('{"layout": [{"ship": 0, "length": 2, "row": 0, "col": 0, "orientation": "h"}], "weight": "x"}', "must be a number"),
        (
            '{"layout": [{"ship": 0, "length": 2, "row": 0, "col": 0, "orientation": "h"}], "weight": 0}',
            "no layout has a positive weight",
        ),
    ],
)
def test_bad_weights_files_are_one_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "w.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(BattlelogError, match=message):
        explicit_weights(solvable_layouts(GameConfig(3, (2,))), path)


def test_prior_refuses_uniform_only_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["optimal", "--size", "3", "--ships", "2", "--prior", "edge=1", "--players", "pdf"]) == 2
    assert "--players is for the uniform prior" in capsys.readouterr().err
