"""Greedy with an optimal endgame: the exact marginal's most probable cell until few layouts are left,
then the exact optimal policy over them (:mod:`battlelog.optimum.endgame`)."""

from __future__ import annotations

from typing import Any

from battlelog.engines import DEFAULT_ENGINE, engine_class
from battlelog.errors import BattlelogError
from battlelog.players.base import Seed
from battlelog.players.belief import DEFAULT_BELIEF
from battlelog.players.exact import ExactPlayer
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState

#: Layouts at or below which the endgame is played optimally: every 10x10 greedy-game state with at
#: most 20 was solved within the node budget, median 31 ms, at most 1.9 s (docs/optimum.md, bench_endgame.py).
DEFAULT_LAYOUTS = 20


class EndgamePlayer(ExactPlayer):
    """Greedy (the ``problog`` player) while the posterior holds more than ``layouts`` layouts, then an
    optimal shot of the endgame over the consistent layouts (uniform prior, single shots, any touch and
    sink rule). Deterministic in the endgame (the search's first optimal shot)."""

    name = "endgame"

    def __init__(self, seed: Seed = None, engine: str = DEFAULT_ENGINE, layouts: int = DEFAULT_LAYOUTS) -> None:
        if isinstance(layouts, bool) or not isinstance(layouts, int) or layouts < 1:
            raise BattlelogError(f"player endgame needs a whole number layouts of at least 1, got {layouts!r}")
        super().__init__(seed, engine)
        if not engine_class(engine).counts_models:
            raise BattlelogError(f"player endgame needs an engine that counts layouts; {engine!r} does not")
        self.layouts = layouts

    @classmethod
    def check_board(cls, config: GameConfig, engine: str = DEFAULT_ENGINE, belief: str = DEFAULT_BELIEF, **options: Any) -> None:
        """Single shots and uniform layouts only: the optimal endgame is a policy of single shots over
        equally likely layouts."""
        if config.rules.is_salvo:
            raise BattlelogError(f"player endgame does not play {config.rules.text()}: its endgame fires one shot a turn")
        if not config.prior.is_uniform:
            raise BattlelogError("player endgame assumes uniform layouts; this board has a prior")
        super().check_board(config, engine, belief)

    def endgame(self, state: GameState) -> Cell | None:
        """The optimal endgame's shot, or None while the posterior holds more than ``layouts`` layouts."""
        from battlelog.optimum.endgame import solve_endgame  # numba: loaded when a game needs it

        models = self._engine.marginals(state).models
        if models is None or models > self.layouts:
            return None
        solved = solve_endgame(state, self.layouts)
        return None if solved is None else solved.cell

    def candidates(self, state: GameState) -> list[Cell]:
        """The endgame's one shot, or greedy's tied cells."""
        cell = self.endgame(state)
        return [cell] if cell is not None else super().candidates(state)
