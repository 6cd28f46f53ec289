"""The ``sdd`` engine beyond the contract every engine meets (tests/test_engine_contract.py).

It is the cross-check of the ``native`` engine: an independent compilation (a numpy frontier sweep
over placement variables, materialised in pysdd) of the same ground model. Here: random mid-game states of the paper's larger
boards against enumeration, every sweep direction, conditioning along a game, agreement with the ``problog`` engine on
cheap states, and the
memory budget: exact case splitting when a diagram would not fit, a one-line BudgetExceeded when
even that does not.
"""

from __future__ import annotations

import resource
from functools import cache

import numpy as np
import pytest

from battlelog.engines import make_engine
from battlelog.engines.budget import DEFAULT_BUDGET, memory_budget, task_budget
from battlelog.engines.frontier import DIRECTIONS, sweep_diagram
from battlelog.engines.pysdd_setup import BYTES_PER_NODE
from battlelog.engines.sdd_engine import Compiled, SddEngine
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError, BudgetExceeded
from battlelog.model.ground import Problem, ground
from battlelog.players import make_player
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

from engine_cases import move_asked_of, random_cases, reference, shots
from oracle import all_layouts, brute_marginals
from oracle_states import random_states

ENGINE = SddEngine()


def test_registry_builds_this_engine_and_the_player_can_use_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(make_engine("sdd"), SddEngine)
    state, asked = move_asked_of(SddEngine, monkeypatch, engine="sdd")
    assert asked == [state]  # the move was computed by this engine


def test_a_sink_next_to_another_ship() -> None:
    # Ship 0 sank on A1-A3; B1 and B2 are hits of other ships, touching it.
    state = shots(GameConfig(5, (3, 3, 2)), "A1 hit", "A2 hit", "A3 sunk 0", "B1 hit", "B2 hit", "C1 miss")
    expected, models = reference(state)
    marginals = ENGINE.marginals(state)
    np.testing.assert_allclose(marginals.cells, expected, rtol=0, atol=1e-9)
    assert marginals.models == models


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
def test_every_sweep_direction_counts_the_same_layouts(direction: str) -> None:
    for case in random_cases()[::10]:
        expected, models = reference(case.state)
        problem = Problem.from_model(ground(case.state))
        tally = Compiled.from_diagram(sweep_diagram(problem, direction), problem).tally()
        assert tally.models == models
        np.testing.assert_allclose(tally.board(case.state.size), expected, rtol=0, atol=1e-9)


# ----- larger boards against enumeration ------------------------------------------------------------
LARGER = (GameConfig(6, (4, 3, 3)), GameConfig(7, (5, 5, 4)))


@pytest.fixture(scope="module")
def layouts() -> dict[GameConfig, list]:
    """Every layout of the larger configurations, enumerated once for the module."""
    return {config: all_layouts(config) for config in LARGER}


@pytest.mark.parametrize("config", LARGER, ids=lambda c: c.label())
def test_empty_board_matches_enumeration_and_is_reused(config: GameConfig, layouts: dict) -> None:
    state = GameState.empty(config)
    expected, models = brute_marginals(state, layouts[config])
    workspace = Workspace()
    first = SddEngine(workspace=workspace).marginals(state)
    np.testing.assert_allclose(first.cells, expected, rtol=0, atol=1e-9)
    assert first.models == models and config in workspace.sdd_empty_boards
    again = SddEngine(workspace=workspace).marginals(state)  # the workspace's empty-board answer
    np.testing.assert_array_equal(again.cells, first.cells)
    again.cells[0, 0] = -1.0  # callers get their own copy
    assert SddEngine(workspace=workspace).marginals(state).cells[0, 0] == first.cells[0, 0]


@pytest.mark.parametrize(
    "config, seed", [(LARGER[0], 61), (LARGER[1], 71)], ids=lambda v: v.label() if isinstance(v, GameConfig) else str(v)
)
def test_random_mid_game_states_on_larger_boards(config: GameConfig, seed: int, layouts: dict) -> None:
    for state in random_states(config, 15, seed):
        expected, models = brute_marginals(state, layouts[config])
        marginals = ENGINE.marginals(state)
        np.testing.assert_allclose(marginals.cells, expected, rtol=0, atol=1e-9)
        assert marginals.models == models


# ----- reuse across the moves of a game ---------------------------------------------------------------
def game_states(config: GameConfig, seed: int) -> list[GameState]:
    """Every state of one game of the pdf player, in order."""
    full = play_game(config, layout_for(config, seed, 0), make_player("pdf", game_seeds(seed, 0)[1])).state
    return [full.prefix(k) for k in range(len(full.shots))]


@pytest.fixture
def conditionings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the times an engine conditions its kept SDD instead of compiling."""
    calls: list[int] = []
    original = Compiled.conditioned

    def counted(self: Compiled, problem: Problem) -> Compiled:
        calls.append(self.nodes)
        return original(self, problem)

    monkeypatch.setattr(Compiled, "conditioned", counted)
    return calls


def test_conditioning_along_a_game_matches_enumeration(conditionings: list[int]) -> None:
    engine = SddEngine()
    states = game_states(GameConfig(5, (3, 3, 2)), 7)
    for state in states[1:]:
        expected, models = reference(state)
        marginals = engine.marginals(state)
        np.testing.assert_allclose(marginals.cells, expected, rtol=0, atol=1e-9)
        assert marginals.models == models
    assert len(conditionings) == len(states) - 2  # every state after the first one compiled


def test_an_earlier_state_is_compiled_afresh(conditionings: list[int]) -> None:
    engine = SddEngine()
    states = game_states(GameConfig(5, (3, 3, 2)), 8)
    late, early = states[len(states) // 2], states[3]
    engine.marginals(late)
    np.testing.assert_allclose(engine.marginals(early).cells, reference(early)[0], rtol=0, atol=1e-9)
    assert conditionings == []


def test_without_room_to_condition_the_engine_compiles(conditionings: list[int]) -> None:
    first, second = game_states(GameConfig(5, (3, 3, 2)), 9)[2:4]
    engine = SddEngine(memory_budget=int(1.5 * diagram_bytes(first)))  # fits once, not twice
    engine.marginals(first)
    np.testing.assert_allclose(engine.marginals(second).cells, reference(second)[0], rtol=0, atol=1e-9)
    assert conditionings == []


# ----- against the problog engine -------------------------------------------------------------------
@cache
def cheap_states() -> dict[int, list[GameState]]:
    """By board size, the first three states of the shared list with enough shots that ProbLog answers
    in well under a second (none of the 3x3 states has that many)."""
    picked: dict[int, list[GameState]] = {}
    for case in random_cases():
        if len(case.state.shots) >= 8 and len(picked.setdefault(case.state.size, [])) < 3:
            picked[case.state.size].append(case.state)
    return picked


CHEAP = [(size, index) for size in (4, 5) for index in range(3)]


@pytest.mark.parametrize("size, index", CHEAP, ids=[f"{size}x{size} #{index}" for size, index in CHEAP])
def test_matches_the_problog_engine(size: int, index: int) -> None:
    state = cheap_states()[size][index]  # built here, not while the tests are collected: it plays games
    stock = make_engine("problog").marginals(state)
    np.testing.assert_allclose(ENGINE.marginals(state).cells, stock.cells, rtol=0, atol=1e-9)


# ----- memory budget ---------------------------------------------------------------------------------
MID = shots(GameConfig(5, (3, 3, 2)), "C3 miss")


def diagram_bytes(state: GameState) -> int:
    return sweep_diagram(Problem.from_model(ground(state))).nodes * BYTES_PER_NODE


@pytest.mark.parametrize("fraction", [0.6, 0.3])
def test_over_budget_states_are_split_exactly(fraction: float) -> None:
    expected, models = reference(MID)
    marginals = SddEngine(memory_budget=int(diagram_bytes(MID) * fraction)).marginals(MID)
    np.testing.assert_allclose(marginals.cells, expected, rtol=0, atol=1e-9)
    assert marginals.models == models


def test_split_halves_are_disjoint_and_complete() -> None:
    problem = Problem.from_model(ground(MID))
    empty, covered = problem.split((2, 1))
    assert all((2, 1) not in p.cells for domain in empty.domains for p in domain)
    assert covered.required == problem.required | {(2, 1)}
    whole = SddEngine().count(problem).models
    assert SddEngine().count(empty).models + SddEngine().count(covered).models == whole == reference(MID)[1]


def test_a_tiny_budget_stops_with_one_line() -> None:
    with pytest.raises(BudgetExceeded) as info:
        SddEngine(memory_budget=1000).marginals(MID)
    message = str(info.value)
    assert "\n" not in message and "budget" in message and "5x5 3,3,2" in message


def test_default_budget_follows_the_address_space_limit_and_the_task(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resource, "getrlimit", lambda _: (2 * 2**30, resource.RLIM_INFINITY))
    assert memory_budget() == 2**30
    monkeypatch.setattr(resource, "getrlimit", lambda _: (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert memory_budget() == DEFAULT_BUDGET
    kept = SddEngine()  # built before the task, as a worker's engines are: it follows each task's budget
    with task_budget(123 * 2**20):
        assert memory_budget() == SddEngine().memory_budget == kept.memory_budget == 123 * 2**20
        with task_budget(None):
            assert memory_budget() == 123 * 2**20
    assert memory_budget() == kept.memory_budget == DEFAULT_BUDGET
    assert SddEngine(memory_budget=5000).memory_budget == 5000


def test_fleets_wider_than_a_word_are_a_clear_error() -> None:
    with pytest.raises(BattlelogError, match="at most 64 ships"):
        ENGINE.marginals(GameState.empty(GameConfig(9, (1,) * 65)))


# ----- in a game ------------------------------------------------------------------------------------
def test_the_problog_player_finishes_a_5x5_game() -> None:
    config = GameConfig(5, (3, 3, 2))
    player = make_player("problog", game_seeds(4, 0)[1], engine="sdd")
    result = play_game(config, layout_for(config, 4, 0), player)
    assert result.state.over
    assert config.ship_cells <= result.score < config.cell_count
