"""The exact optimum and exact expectations under every touch and sink rule, against the independent
oracle of tests/oracle.py (its own placements, contact test and simulated referee).

The reference optimum (:func:`brute_optimum`) is Bellman's equation over every shot history, as in
tests/test_optimum.py, with the layouts and the answers of the oracle: at every history it tries
every unshot cell and splits the layouts by the answer each gives under the sink rule. No bounds,
no symmetries, no answer codes, nothing of battlelog.optimum.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from battlelog.optimum.layouts import LayoutTable
from battlelog.optimum.solver import Settings, Solver
from battlelog.players import make_player
from battlelog.players.base import Player
from battlelog.players.evaluate import expected_shots
from battlelog.players.pdf import PdfPlayer
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules
from battlelog.runner.loop import play_game

import oracle
from oracle_optimum import brute_optimum
from oracle_states import random_states
from runs import one_line_error

RULES = [Rules(touch, sinks) for touch in TOUCH_RULES for sinks in SINK_RULES]


def rules_id(rules: Rules) -> str:
    return f"{rules.touch}-{rules.sinks}"


#: 3x3 fleets: 2,1 (ships of different lengths: unnamed sinks still tell them apart by their cells,
#: sometimes), 2,2 (equal ships: named sinks tell which, the relabelling symmetry is used), 3,2.
TINY = [(2, 1), (2, 2), (3, 2)]


@pytest.mark.parametrize("rules", RULES, ids=rules_id)
@pytest.mark.parametrize("ships", TINY, ids=lambda s: ",".join(map(str, s)))
def test_the_solver_equals_the_exhaustive_minimum_under_every_rule(ships: tuple[int, ...], rules: Rules) -> None:
    config = GameConfig(3, ships, rules)
    assert Solver(config, memory=1 << 22).optimum() == brute_optimum(3, ships, rules.touch, rules.sinks)


@pytest.mark.parametrize(
    "rules", [pytest.param(Rules("diagonal", "unnamed"), marks=pytest.mark.slow), Rules("none", "silent")], ids=rules_id
)
def test_the_symmetries_do_not_change_the_optimum_under_a_rule(rules: Rules) -> None:
    # 4x4 2,2: the square's 8 symmetries times the swap of the two ships.
    config = GameConfig(4, (2, 2), rules)
    plain = Solver(config, memory=1 << 24, settings=Settings(symmetries=False)).optimum()
    assert Solver(config, memory=1 << 24).optimum() == plain


def _layout_key(cells_per_ship: list[list[tuple[int, int]]]) -> tuple[frozenset[tuple[int, int]], ...]:
    return tuple(frozenset(cells) for cells in cells_per_ship)


@pytest.mark.parametrize("rules", RULES, ids=rules_id)
def test_the_layouts_and_those_a_state_leaves_are_the_oracles(rules: Rules) -> None:
    config = GameConfig(4, (3, 2, 1), rules)
    table = LayoutTable.build(config, 10**6)
    reference = oracle.layouts(4, config.ships, rules.touch)
    mine = [_layout_key([list(config.placements(i)[k].cells) for i, k in enumerate(row)]) for row in table.placement]
    theirs = [_layout_key([oracle.cells_of(spot) for spot in layout]) for layout in reference.spots]
    assert sorted(mine, key=repr) == sorted(theirs, key=repr)
    position = {key: k for k, key in enumerate(theirs)}
    for state in random_states(config, 30, 7):
        shots = [(shot.cell, (shot.result, shot.ship)) for shot in state.shots]
        expected = set(oracle.posterior(reference, shots, rules.sinks).tolist())
        assert {position[mine[k]] for k in table.consistent(state)} == expected, state.shots


@pytest.mark.parametrize("rules", RULES, ids=rules_id)
def test_the_optimal_player_scores_the_optimum_over_every_layout_under_every_rule(rules: Rules) -> None:
    # Deterministic, so its games on every layout (answered by the referee) average to its expectation.
    # 4x4 3,2 has 120 layouts under diagonal, 104 under none; touching allowed, 3x3 2,2 (40) is as many.
    config = GameConfig(4, (3, 2), rules) if rules.touch != "allowed" else GameConfig(3, (2, 2), rules)
    player = make_player("optimal", 0)
    scores = [play_game(config, layout, player).score for layout in every_layout(config)]
    assert Fraction(sum(scores), len(scores)) == Solver(config, memory=1 << 24).optimum()


def every_layout(config: GameConfig) -> list[tuple[Placement, ...]]:
    """The oracle's layouts of ``config``, as placements a game is played on."""
    return [
        tuple(Placement(i, spot[0], spot[1], spot[2], spot[3]) for i, spot in enumerate(layout))
        for layout in oracle.layouts(config.size, config.ships, config.rules.touch).spots
    ]


@pytest.mark.parametrize("sinks", SINK_RULES)
def test_pdfs_decision_key_walks_as_the_ordered_shots_do(sinks: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # pdf's key merges states whose shots came in different orders; the ordered shots (the base key)
    # merge none. Were pdf's too coarse (a constant key is), its tied choices would be played as another
    # state's and the exact expectations would differ. No contact: the walk keyed by order takes seconds.
    config = GameConfig(3, (2, 1), Rules(touch="none", sinks=sinks))
    table = LayoutTable.build(config, 10**6)
    merged = expected_shots(make_player("pdf", 0), table)
    monkeypatch.setattr(PdfPlayer, "decision_key", Player.decision_key)
    assert expected_shots(make_player("pdf", 0), table) == merged


#: Players walked on 3x3 2,1 under every rule: their exact walks there take seconds. hunt-target and
#: parity key their states by the ordered shots under the touch rules diagonal and none, so their
#: walks fan out (minutes on 3x3 2,1): they are walked on 3x3 2 (the one ship makes every rule alike
#: in outcome, but not in the code that walks it), and hunt-target, which takes 100 s even there
#: under diagonal, only when touching is allowed.
PLAYERS_21 = ("info", "lookahead", "optimal", "pdf", "problog", "random")


def players_2(rules: Rules) -> tuple[str, ...]:
    return ("hunt-target", "parity") if rules.touch == "allowed" else ("parity",)


def players_21(rules: Rules) -> tuple[str, ...]:
    # Touching allowed, parity's walk keys its states coarsely under every sink rule: seconds.
    return PLAYERS_21 + (("parity",) if rules.touch == "allowed" else ())


@pytest.mark.parametrize("rules", [r for r in RULES if not r.is_default], ids=rules_id)
def test_no_player_beats_the_optimum_under_a_rule(rules: Rules) -> None:
    for ships, names in (((2, 1), players_21(rules)), ((2,), players_2(rules))):
        config = GameConfig(3, ships, rules)
        best = brute_optimum(3, ships, rules.touch, rules.sinks)
        table = LayoutTable.build(config, 10**6)
        for name in names:
            player = make_player(name, 0)
            try:
                value = expected_shots(player, table)
            finally:
                player.close()
            assert value == best if name == "optimal" else value >= best, (name, value, best)


def test_the_optimal_command_solves_under_the_rules_it_is_given(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from battlelog.cli import main

    argv = [
        "optimal", "--size", "3", "--ships", "2,2", "--touch", "diagonal", "--sinks", "unnamed", "--players", "problog", "--json",
    ]
    assert main(argv) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["rules"] == {"touch": "diagonal", "sinks": "unnamed"}
    assert figures["layouts"] == len(oracle.layouts(3, (2, 2), "diagonal"))
    assert Fraction(figures["exact"]["optimal"]) == brute_optimum(3, (2, 2), "diagonal", "unnamed")
    assert Fraction(figures["exact"]["problog"]) >= Fraction(figures["exact"]["optimal"])
    assert main(["optimal", "--size", "3", "--ships", "2", "--touch", "none", "--sinks", "silent"]) == 0
    assert "(no contact, sinks silent)" in capsys.readouterr().out


def test_the_optimal_command_refuses_an_instance_too_large_under_a_rule_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    one_line_error(
        capsys, ["optimal", "--size", "6", "--ships", "3,3,2,2", "--touch", "diagonal"], "too many for an exact solution"
    )
