"""The optimal player: plays the exact optimal policy of an instance small enough to solve."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from battlelog.errors import BattlelogError
from battlelog.optimum.layouts import solvable_layouts
from battlelog.players.base import Player
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState

if TYPE_CHECKING:
    from battlelog.optimum.solver import Solver


def solved(config: GameConfig) -> Solver:
    """A solver of ``config`` with its optimum solved (a one-line error if the instance is too large)."""
    from battlelog.optimum.solver import Solver  # numba: loaded when a game needs it, not by `--help`

    solver = Solver(config)
    solver.optimum()
    return solver


class OptimalPlayer(Player):
    """Shoots a shot of an optimal policy: the smallest expected number of shots over all policies.

    Deterministic (among optimal shots it takes the first the search proved optimal), so its exact
    expectation is the optimum itself. Solving is the expensive part and the same every game, so the
    solved instance is kept in the player's workspace, one per board configuration.
    """

    name = "optimal"

    @classmethod
    def check_board(cls, config: GameConfig, **options: Any) -> None:
        """Only instances the solver takes: a cheap enumeration that stops as soon as it is too large;
        and no salvo (the solved policy is one of single shots)."""
        if config.rules.is_salvo:
            raise BattlelogError(f"player optimal does not play {config.rules.text()}: its solved policy fires one shot a turn")
        solvable_layouts(config)

    def solver(self, config: GameConfig) -> Solver:
        """The workspace's solved instance of ``config``, solved on first need."""
        return self.workspace.remember(("optimum", config), lambda: solved(config))

    def new_game(self, config: GameConfig) -> None:
        self.solver(config)

    def candidates(self, state: GameState) -> list[Cell]:
        """The one optimal shot this player takes."""
        return [self.choose(state)]

    def choose(self, state: GameState) -> Cell:
        return self.solver(state.config).best_shot(state)

    def decision_key(self, state: GameState, possible: frozenset[Cell]) -> Hashable:
        """The hits: the shot depends only on the consistent layouts and the hits."""
        return state.hits
