"""The optimal player: plays the exact optimal policy of an instance small enough to solve."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from battlelog.optimum.layouts import solvable_layouts
from battlelog.players.base import Player
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState

if TYPE_CHECKING:
    from battlelog.optimum.solver import Solver

#: One solver per instance and process: solving is the expensive part, and it is the same every game.
_SOLVERS: dict[GameConfig, Solver] = {}


def solver_for(config: GameConfig) -> Solver:
    """The process's solver of ``config``, solved on first use (a one-line error if it is too large)."""
    if config not in _SOLVERS:
        from battlelog.optimum.solver import Solver  # numba: loaded when a game needs it, not by `--help`

        solver = Solver(config)
        solver.optimum()
        _SOLVERS[config] = solver
    return _SOLVERS[config]


class OptimalPlayer(Player):
    """Shoots a shot of an optimal policy: the smallest expected number of shots over all policies.

    Deterministic (among optimal shots it takes the first the search proved optimal), so its exact
    expectation is the optimum itself.
    """

    name = "optimal"

    @classmethod
    def check_board(cls, config: GameConfig, **options: Any) -> None:
        """Only instances the solver takes: a cheap enumeration that stops as soon as it is too large."""
        solvable_layouts(config)

    def new_game(self, config: GameConfig) -> None:
        solver_for(config)

    def candidates(self, state: GameState) -> list[Cell]:
        """The one optimal shot this player takes."""
        return [solver_for(state.config).best_shot(state)]

    def choose(self, state: GameState) -> Cell:
        return solver_for(state.config).best_shot(state)

    def decision_key(self, state: GameState, possible: frozenset[Cell]) -> Hashable:
        """The hits: the shot depends only on the consistent layouts and the hits."""
        return state.hits
