"""The lower bounds on the optimum: the hit sequences they count against brute force, and every proven
bound at or below the optimum the solver finds on small instances, under several rules."""

from __future__ import annotations

from itertools import permutations

import pytest

from battlelog.optimum.bounds import hit_sequences, lower_bounds
from battlelog.optimum.layouts import LayoutTable
from battlelog.optimum.solver import Solver
from battlelog.rules.config import GameConfig
from battlelog.rules.variants import Rules


def brute_sequences(ships: tuple[int, ...], sinks: str) -> int:
    """Distinct hit-answer sequences: every order in which a fleet's cells can be hit (which ship each
    hit lands on), ship i answering "sunk i" at its last cell, "hit" before."""
    owners = [i for i, length in enumerate(ships) for _ in range(length)]
    seen = set()
    for order in set(permutations(owners)):
        left = list(ships)
        words = []
        for i in order:
            left[i] -= 1
            sunk = left[i] == 0 and sinks != "silent"
            words.append(("sunk", i if sinks == "named" else None) if sunk else ("hit", None))
        seen.add(tuple(words))
    return len(seen)


@pytest.mark.parametrize("ships", [(2,), (2, 1), (3, 2), (2, 2), (3, 2, 2), (4, 3, 2), (3, 3, 2, 1)])
@pytest.mark.parametrize("sinks", ["named", "unnamed", "silent"])
def test_the_hit_sequences_counted_are_those_some_fleet_produces(ships: tuple[int, ...], sinks: str) -> None:
    assert hit_sequences(ships, sinks) == brute_sequences(ships, sinks)


CASES = [
    GameConfig(3, (2,)),
    GameConfig(3, (3,)),
    GameConfig(3, (2, 2)),
    GameConfig(3, (2, 1)),
    GameConfig(4, (2,)),
    GameConfig(4, (3,)),
    GameConfig(4, (4, 4)),
    GameConfig(4, (1, 1)),
    GameConfig(3, (2, 1), Rules("allowed", "unnamed")),
    GameConfig(3, (2, 2), Rules("allowed", "silent")),
    GameConfig(4, (2, 2), Rules("diagonal", "named")),
    GameConfig(4, (3, 2), Rules("none", "silent")),
]


@pytest.mark.parametrize("config", CASES, ids=lambda c: f"{c.label()} {c.rules.text()}")
def test_no_proven_bound_exceeds_the_optimum(config: GameConfig) -> None:
    optimum = Solver(config, memory=1 << 24).optimum()
    layouts = len(LayoutTable.build(config, 10**5))
    bounds = lower_bounds(config, layouts)
    assert bounds.union is not None
    assert bounds.coverage <= bounds.best <= optimum
    assert bounds.union <= bounds.identification  # m(U) >= 1: counting unions can only lower it


def test_the_bounds_command_prints_each_bound_and_refuses_salvo_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from battlelog.cli import main

    assert main(["bounds", "--size", "4", "--ships", "3,2"]) == 0
    out = capsys.readouterr().out
    for name in ("coverage", "identification", "unions", "best proven"):
        assert name in out
    assert main(["bounds", "--size", "4", "--ships", "3,2", "--salvo", "2"]) != 0
    err = capsys.readouterr().err.strip()
    assert "salvo" in err and "\n" not in err
