"""Optimal endgames: the consistent layouts against the oracle, the endgame's value and shot against
an exhaustive recursion written here from the spec, and against the optimum's solver; the player."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from battlelog.errors import BattlelogError
from battlelog.optimum.consistent import consistent_layouts
from battlelog.optimum.endgame import optimal_endgame, solve_endgame
from battlelog.optimum.layouts import LayoutTable
from battlelog.optimum.solver import Solver
from battlelog.players import check_player, make_player
from battlelog.players.evaluate import expected_shots
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import cells_mask
from battlelog.rules.variants import Rules

import oracle
from oracle_states import oracle_state

RULES = [Rules(touch, sinks) for touch in ("allowed", "diagonal", "none") for sinks in ("named", "unnamed", "silent")]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.text())
def test_the_consistent_layouts_are_the_oracles_under_every_rule(rules: Rules) -> None:
    config = GameConfig(4, (3, 2, 2), rules)
    table = oracle.layouts(4, (3, 2, 2), rules.touch)
    rng = np.random.default_rng(7)
    for _ in range(15):
        state, chosen = oracle_state(config, table, rng)
        found = consistent_layouts(state, 10**6)
        assert found is not None
        mine = {tuple(frozenset(config.placements(i)[k].cells) for i, k in enumerate(lay)) for lay in found.layouts}
        theirs = {tuple(frozenset(oracle.cells_of(spot)) for spot in table.spots[k]) for k in chosen}
        assert mine == theirs
        assert len(found) == len(chosen)
        if len(chosen) > 3:
            assert consistent_layouts(state, len(chosen) - 1) is None  # over the limit: refused


# ----- an exhaustive recursion over the consistent layouts, from the spec ------------------------
def answer(layout: tuple[frozenset, ...], hits: frozenset, cell: tuple[int, int], sinks: str) -> tuple:
    """The spec's answer of ``layout`` to a shot at ``cell`` with ``hits`` hit before it."""
    for i, cells in enumerate(layout):
        if cell in cells:
            if cells <= hits | {cell} and sinks != "silent":
                return ("sunk", i if sinks == "named" else None)
            return ("hit",)
    return ("miss",)


class Brute:
    """The least total of shots still to fire over a set of layouts, every policy tried."""

    def __init__(self, sinks: str) -> None:
        self.sinks = sinks
        self.total = cache(self._total)
        self.action = cache(self._action)

    def _total(self, group: frozenset, hit: frozenset) -> int:
        if all(c in hit for cells in next(iter(group)) for c in cells):  # every layout has the same K cells
            return 0
        useful = {c for layout in group for cells in layout for c in cells} - hit
        return len(group) + min(self.action(group, hit, cell) for cell in useful)

    def _action(self, group: frozenset, hit: frozenset, cell: tuple[int, int]) -> int:
        """Shots still to fire after ``cell``, summed over ``group``."""
        parts: dict[tuple, set] = {}
        for layout in group:
            parts.setdefault(answer(layout, hit, cell, self.sinks), set()).add(layout)
        return sum(self.total(frozenset(part), hit | {cell} if a[0] != "miss" else hit) for a, part in parts.items())


def layouts_of(state, found) -> frozenset:
    config = state.config
    return frozenset(tuple(frozenset(config.placements(i)[k].cells) for i, k in enumerate(lay)) for lay in found.layouts)


@pytest.mark.parametrize("rules", RULES[::4] + [Rules("allowed", "silent")], ids=lambda r: r.text())
def test_the_endgame_is_the_exhaustive_optimum_and_its_shot_reaches_it(rules: Rules) -> None:
    config = GameConfig(4, (3, 2, 2), rules)
    table = oracle.layouts(4, (3, 2, 2), rules.touch)
    rng = np.random.default_rng(11)
    checked = 0
    while checked < 12:
        state, chosen = oracle_state(config, table, rng)
        if state.over or len(chosen) > 12:
            continue
        found = consistent_layouts(state, 12)
        solved = solve_endgame(state, 12, found)
        assert solved is not None
        group = layouts_of(state, found)
        brute = Brute(rules.sinks)
        best = brute.total(group, state.hits)
        assert solved.total == best and solved.layouts == len(chosen)
        if len(group) > 1:  # the shot it names reaches the optimum
            assert len(group) + brute.action(group, state.hits, solved.cell) == best
        assert optimal_endgame(state, 12) == (solved.cell, Fraction(best, len(chosen)))
        checked += 1


def test_the_endgame_agrees_with_the_solver_of_the_whole_instance() -> None:
    config = GameConfig(4, (3, 2))
    solver = Solver(config, memory=1 << 24)
    solver.optimum()
    table = oracle.layouts(4, (3, 2))
    rng = np.random.default_rng(3)
    checked = 0
    while checked < 12:
        state, chosen = oracle_state(config, table, rng)
        if state.over or len(chosen) > 60:  # no symmetry here: larger states take seconds
            continue
        solved = solve_endgame(state, 60, max_nodes=0)
        assert solved is not None
        assert solved.total == solver.total(solver.layouts.consistent(state), cells_mask(state.hits, 4))
        checked += 1


def test_the_endgame_player_with_every_layout_in_its_endgame_is_optimal() -> None:
    config = GameConfig(3, (2, 2))
    player = make_player("endgame[layouts=1000]", 0)
    optimum = Solver(config, memory=1 << 24).optimum()
    assert expected_shots(player, LayoutTable.build(config, 10**4)) == optimum
    greedy = make_player("problog[engine=native]", 0)
    assert expected_shots(make_player("endgame[layouts=1]", 0), LayoutTable.build(config, 10**4)) == expected_shots(
        greedy, LayoutTable.build(config, 10**4)
    )  # with the endgame at one layout it is greedy (a known layout is finished in any order)


def test_a_ten_by_ten_endgame_is_solved() -> None:
    from battlelog.runner.loop import play_game
    from battlelog.runner.seeds import layout_for

    config = GameConfig(10, (5, 4, 3, 3, 2))
    state = play_game(config, layout_for(config, 0, 0), make_player("pdf", 0)).state  # a quick player's game
    for t in range(len(state.shots) - 1, 0, -1):
        found = consistent_layouts(state.prefix(t), 8)
        if found is None:
            break
        solved = solve_endgame(state.prefix(t), 8, found)
        assert solved is not None
        assert solved.cell not in state.prefix(t).shot_cells
        assert 1 <= solved.expected <= 100


@pytest.mark.parametrize(
    ("spec", "config", "message"),
    [
        ("endgame[layouts=0]", GameConfig(4, (3, 2)), "whole number layouts of at least 1"),
        ("endgame[layouts=many]", GameConfig(4, (3, 2)), "layouts"),
        ("endgame", GameConfig(4, (3, 2), Rules(salvo=2)), "one shot a turn"),
    ],
)
def test_bad_endgame_options_and_boards_are_one_line(spec: str, config: GameConfig, message: str) -> None:
    with pytest.raises(BattlelogError, match=message) as error:
        check_player(spec, config)
        make_player(spec, 0)
    assert "\n" not in str(error.value)
