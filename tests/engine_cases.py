"""The game states every exact engine is checked on, so that all engines meet the same list.

- :func:`random_cases`: consistent mid-game states from :func:`brute.random_states` (uniform
  layouts, random shots answered truly, sinks included) on the paper's smallest configurations,
  compared with brute-force enumeration.
- :func:`hand_cases`: small states where the sunk / not-sunk evidence decides the answer, each with
  marginals derived by hand (written next to it), so that an engine and the brute-force reference
  cannot share a misreading of the spec.
- :func:`contradictory_cases`: states no layout satisfies, with the first shot at fault.

An engine test only needs ``for case in random_cases(): engine.marginals(case.state)`` compared
with ``reference(case.state)``; see tests/test_problog_engine.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pytest

from battlelog.engines.base import Engine
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement, cell_name
from battlelog.rules.state import GameState, Shot

from oracle import all_layouts, brute_answers, brute_marginals, brute_placements
from oracle_states import random_states

#: (config, number of states, seed). 105 states on the paper's three smallest configurations, plus
#: a few on a tiny board with ships of length 1 (one placement per cell, two ships alike). The
#: ``problog`` engine needs 0.3-0.6 s per state here (mostly ProbLog's grounding; near-empty
#: 5x5 3,3,2 states under a second), so no configuration needs thinning out to stay near a minute.
RANDOM_MIX: tuple[tuple[GameConfig, int, int], ...] = (
    (GameConfig(4, (3, 2, 2)), 40, 41),
    (GameConfig(5, (3, 2)), 35, 52),
    (GameConfig(5, (3, 3, 2)), 30, 53),
    (GameConfig(3, (2, 1, 1)), 10, 31),
)


@dataclass(frozen=True)
class EngineCase:
    """A consistent game state to compare an engine on; ``id`` names it in pytest's output."""

    id: str
    state: GameState


@dataclass(frozen=True)
class HandCase(EngineCase):
    """A state with its marginals derived by hand: ``expected`` maps cell names to probabilities;
    every unshot cell not listed has probability 0."""

    expected: dict[str, float]

    def expected_cells(self) -> np.ndarray:
        """The hand-derived board: the listed cells, 1 for hits, 0 elsewhere."""
        n = self.state.size
        cells = np.zeros((n, n))
        for cell in self.state.hits:
            cells[cell] = 1.0
        names = {cell_name((r, c)): (r, c) for r in range(n) for c in range(n)}
        for name, probability in self.expected.items():
            cells[names[name]] = probability
        return cells


@dataclass(frozen=True)
class ContradictoryCase(EngineCase):
    """A state that no layout satisfies; ``fault`` is the 1-based number of the first shot at fault."""

    fault: int


@dataclass(frozen=True)
class RandomCase:
    """State ``index`` of ``random_states(config, count, seed)``, built when a test first asks for it.

    Building the states plays games, which collecting the tests does not need: a case names its
    state cheaply (``id``) and plays the games of its configuration once per process.
    """

    config: GameConfig
    count: int
    seed: int
    index: int

    @property
    def id(self) -> str:
        return f"{self.config.label()} #{self.index}"

    @property
    def state(self) -> GameState:
        return _random_states(self.config, self.count, self.seed)[self.index]


@cache
def _random_states(config: GameConfig, count: int, seed: int) -> tuple[GameState, ...]:
    return tuple(random_states(config, count, seed))


def random_cases() -> list[RandomCase]:
    """The random consistent states of :data:`RANDOM_MIX`, in a fixed order (no game played yet)."""
    return [RandomCase(config, count, seed, i) for config, count, seed in RANDOM_MIX for i in range(count)]


@cache
def _layouts(config: GameConfig) -> list[tuple[Placement, ...]]:
    return all_layouts(config)


def reference(state: GameState) -> tuple[np.ndarray, int]:
    """Brute-force marginals and model count (every layout of the configuration enumerated once)."""
    return brute_marginals(state, _layouts(state.config))


def reference_placements(state: GameState) -> tuple[np.ndarray, ...]:
    """Brute-force placement marginals, per ship in config.placements order."""
    return brute_placements(state, _layouts(state.config))


def reference_answers(state: GameState) -> np.ndarray:
    """Brute-force answer probabilities: what a referee says of each unshot cell, over consistent layouts."""
    return brute_answers(state, _layouts(state.config))


def shots(config: GameConfig, *answers: str) -> GameState:
    """A state from answers such as ``"A1 hit"``, ``"B2 miss"``, ``"A3 sunk 0"``."""
    fired = []
    for answer in answers:
        name, result, *ship = answer.split()
        fired.append(Shot(ord(name[0]) - ord("A"), int(name[1:]) - 1, result, int(ship[0]) if ship else None))
    return GameState(config, tuple(fired))


def hand_cases() -> list[HandCase]:
    """States where sunk and not-sunk evidence change the answer, with hand-derived marginals."""
    two_twos = GameConfig(3, (2, 2))
    return [
        # Neither ship may lie on A1-A2 (it would have been announced sunk), so A1 and A2 belong to
        # different ships: one is A1-B1, the other A2-A3 or A2-B2 (either ship either role): 4 layouts.
        HandCase("not sunk yet: two hits in a row are two ships", shots(two_twos, "A1 hit", "A2 hit"),
                 {"B1": 1.0, "A3": 0.5, "B2": 0.5}),
        # Ship 0 lies inside H_2 = {A1, A2} (not inside the later H_3), so it is A1-A2; ship 1 covers A3
        # without overlapping it: A3-B3. Reading "inside the hits" as the final H_3 would allow A2-A3.
        HandCase("sunk means inside the hits up to that shot", shots(two_twos, "A1 hit", "A2 sunk 0", "A3 hit"),
                 {"B3": 1.0}),
        # Ship 0 (length 2) sank at B3 inside {B1, B2, B3}: it is B2-B3 (A3 and C3 are not hits). B1 is
        # ship 1's, which cannot use B2: A1-B1 or B1-C1.
        HandCase("two adjacent ships in one hit run", shots(two_twos, "B1 hit", "B2 hit", "B3 sunk 0"),
                 {"A1": 0.5, "C1": 0.5}),
        # Ship 1 (length 2) sank at A3 inside {A1, A2, A3}: it is A2-A3. Ship 0 (length 3) covers A1
        # without A2: A1-B1-C1.
        HandCase("a hit run longer than the ship that sank in it",
                 shots(GameConfig(4, (3, 2)), "A1 hit", "A2 hit", "A3 sunk 1"),
                 {"B1": 1.0, "C1": 1.0}),
        # Ship 0 sank at A3 inside {A1, A2, B1, B2, A3}: it is A1-A2-A3 (A4 and B3 are not hits).
        # Ship 1 must cover B1 and B2 outside row A: B1-B2-B3.
        HandCase("two ships side by side",
                 shots(GameConfig(4, (3, 3)), "A1 hit", "B1 hit", "A2 hit", "B2 hit", "A3 sunk 0"),
                 {"B3": 1.0}),
    ]


def contradictory_cases() -> list[ContradictoryCase]:
    """States that pass the structural checks of GameState but that no layout satisfies."""
    return [
        ContradictoryCase("the diagonal misses leave no room for a 4",
                          shots(GameConfig(4, (4,)), "A1 miss", "B2 miss", "C3 miss", "D4 miss", "A4 miss"),
                          fault=4),
        ContradictoryCase("a sunk ship that cannot fit the hits",
                          shots(GameConfig(5, (3, 2)), "A1 hit", "C3 hit", "E5 sunk 0"), fault=3),
        ContradictoryCase("the only ship was hit all over but not announced sunk",
                          shots(GameConfig(3, (2,)), "A1 hit", "A2 hit"), fault=2),
    ]


__all__ = [
    "RANDOM_MIX",
    "ContradictoryCase",
    "EngineCase",
    "HandCase",
    "RandomCase",
    "arguments_to",
    "contradictory_cases",
    "hand_cases",
    "move_asked_of",
    "random_cases",
    "reference",
    "reference_answers",
    "reference_placements",
    "shots",
]


def arguments_to(cls: type, method: str, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Spy on ``cls.method`` (a method of one argument) for the rest of the test: the list it fills with
    the argument of every call, in order; each call still runs the real method."""
    seen: list[Any] = []
    real = getattr(cls, method)

    def spy(self: Any, argument: Any) -> Any:
        seen.append(argument)
        return real(self, argument)

    monkeypatch.setattr(cls, method, spy)
    return seen


def move_asked_of(
    engine_class: type[Engine], monkeypatch: pytest.MonkeyPatch, **options: Any
) -> tuple[GameState, list[GameState]]:
    """A problog player built with ``options`` chooses one move on a 4x4 state: that state, and the
    states ``engine_class`` was asked for meanwhile (the move was its work when they are the state)."""
    from battlelog.players import make_player

    asked: list[GameState] = arguments_to(engine_class, "marginals", monkeypatch)
    state = shots(GameConfig(4, (3, 2)), "B2 miss")
    player = make_player("problog", 0, **options)
    player.new_game(state.config)
    assert player.choose(state) in state.unshot
    return state, asked
