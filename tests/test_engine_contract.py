"""What every registered engine promises, checked on every engine in battlelog.engines.ENGINES.

One suite for all (in the spirit of scikit-learn's ``parametrize_with_checks``): exact marginals
equal to brute-force enumeration to 1e-9 on the shared random consistent states and on hand-derived
sunk / not-sunk cases, the layout count where the engine gives one, placement marginals and answer
probabilities on the engines whose class says they give them (``Engine.gives_placements``, which every
case holds each engine to), and contradictions raised as ``Inconsistent`` and located at the right
shot. A new engine added to the registry is tested here without writing a line. One engine instance,
built by a workspace as players get theirs, answers every case, which also checks that whatever it
caches between calls never changes an answer. The problog engine, tens of times slower than the others
(it grounds and compiles the ProbLog program of every state), meets every third random state: some
forty on four boards, against all of them for the others (the suite's time is bounded; the full set
is ``BATTLELOG_EVERY_STATE=1``).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from battlelog.engines import ENGINES, Engine, Inconsistent, engine_class, locate_fault
from battlelog.engines.workspace import Workspace
from battlelog.model.ground import ground
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState

from engine_cases import (
    ContradictoryCase,
    HandCase,
    RandomCase,
    contradictory_cases,
    hand_cases,
    random_cases,
    reference,
    reference_answers,
    reference_placements,
    shots,
)
from oracle_states import EVERY_STATE

#: The engines whose class says they give placement marginals: only they meet the placement cases.
PLACEMENT_ENGINES = [name for name in sorted(ENGINES) if engine_class(name).gives_placements]


def build(name: str) -> Iterator[Engine]:
    workspace = Workspace()
    built = workspace.engine(name)
    assert built.name == name and type(built) is engine_class(name) and workspace.engine(name) is built
    yield built
    workspace.close()


@pytest.fixture(scope="module", params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    yield from build(request.param)


#: Engines that meet only every k-th random state, and k (see the module's docstring).
THINNED = {} if EVERY_STATE else {"problog": 3}


def engine_states() -> list[tuple[str, RandomCase]]:
    """Every engine with the random states it meets."""
    return [(name, case) for name in sorted(ENGINES) for case in random_cases()[:: THINNED.get(name, 1)]]


@pytest.fixture(scope="module")
def engines() -> Iterator[dict[str, Engine]]:
    """One instance of each engine, built when a test first asks for it and closed at the end."""
    workspace = Workspace()

    class Lazy(dict[str, Engine]):
        def __missing__(self, name: str) -> Engine:
            engine = self[name] = workspace.engine(name)
            assert engine.name == name and type(engine) is engine_class(name)
            return engine

    yield Lazy()
    workspace.close()


@pytest.fixture(scope="module", params=PLACEMENT_ENGINES)
def placement_engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    yield from build(request.param)


def check(engine: Engine, state: GameState, cells: np.ndarray, models: int) -> None:
    """The engine's marginals are ``cells`` to 1e-9, its layout count ``models`` if it gives one, and it
    gives placement marginals exactly when its class says so."""
    marginals = engine.marginals(state)
    np.testing.assert_allclose(marginals.cells, cells, rtol=0, atol=1e-9)
    assert marginals.models == (models if engine.counts_models else None)
    assert (marginals.placements is not None) == engine.gives_placements


@pytest.mark.parametrize("name, case", engine_states(), ids=[f"{name}-{case.id}" for name, case in engine_states()])
def test_matches_brute_force_on_random_states(engines: dict[str, Engine], name: str, case: RandomCase) -> None:
    check(engines[name], case.state, *reference(case.state))


@pytest.mark.parametrize("case", random_cases()[::4], ids=lambda c: c.id)
def test_placement_marginals_and_answer_probabilities(placement_engine: Engine, case: RandomCase) -> None:
    marginals = placement_engine.marginals(case.state)
    assert marginals.placements is not None
    for ship, expected in enumerate(reference_placements(case.state)):
        np.testing.assert_allclose(marginals.placements[ship], expected, rtol=0, atol=1e-9)
    answers = marginals.answers(case.state)
    np.testing.assert_allclose(answers, reference_answers(case.state), rtol=0, atol=1e-9)
    unshot = np.array([answers[cell].sum() for cell in case.state.unshot])
    np.testing.assert_allclose(unshot, 1.0, rtol=0, atol=1e-9)


@pytest.mark.parametrize("case", hand_cases(), ids=lambda c: c.id)
def test_sunk_and_not_sunk_evidence_by_hand(engine: Engine, case: HandCase) -> None:
    expected, models = reference(case.state)
    np.testing.assert_allclose(expected, case.expected_cells(), rtol=0, atol=1e-12)  # the hand answer is right
    check(engine, case.state, expected, models)


def test_small_boards_by_hand(engine: Engine) -> None:
    # One ship of length 2 on 2x2: four placements, each cell covered by two of them.
    check(engine, GameState.empty(GameConfig(2, (2,))), np.full((2, 2), 0.5), 4)
    # Two ships of length 1 on 2x2, A1 missed: 3 * 2 layouts, each other cell covered in 2 * 2.
    check(engine, shots(GameConfig(2, (1, 1)), "A1 miss"), np.array([[0, 2 / 3], [2 / 3, 2 / 3]]), 6)
    # A finished game: the one layout left is the truth.
    done = shots(GameConfig(3, (2,)), "A1 hit", "A2 sunk 0")
    check(engine, done, np.array([[1, 1, 0], [0, 0, 0], [0, 0, 0]]), 1)


@pytest.mark.parametrize("case", contradictory_cases(), ids=lambda c: c.id)
def test_contradictions_are_inconsistent_and_located(engine: Engine, case: ContradictoryCase) -> None:
    with pytest.raises(Inconsistent):
        engine.marginals(case.state)
    engine.marginals(case.state.prefix(case.fault - 1))  # the shots before the fault are fine
    assert f"shot {case.fault} (" in str(locate_fault(case.state, engine))


def test_inconsistency_that_pruning_misses_is_one_line(engine: Engine) -> None:
    # Every ship keeps placements and every hit is coverable, but no layout covers both hits:
    # the single ship cannot be A1-A2 (not announced sunk) and nothing else covers A1 and C3.
    state = shots(GameConfig(3, (2,)), "A1 hit", "C3 hit")
    assert ground(state).empty_reason() is None
    with pytest.raises(Inconsistent) as info:
        engine.marginals(state)
    assert "\n" not in str(info.value)
