"""The rollout player: one step of policy improvement over greedy, with battlelog's exact posterior
(docs/rollout.md).

For the ``candidates`` most probable cells (exact marginals) it plays the game out from this state,
that cell first, and shoots the candidate with the fewest expected shots. When the state has at most
``exact`` consistent layouts (uniform prior) it lists them all and plays each once as the truth, with
exact greedy as the base policy: the estimates are exact, and the player is never worse than greedy
from there (policy improvement). Otherwise it plays ``samples`` layouts drawn exactly from the
posterior, the same for every candidate (common random numbers), with the compiled pdf rule as the
base policy (its own shot among the candidates), and leaves greedy's shot only for a candidate better
by more than ``margin`` standard errors of the paired difference. Kernels:
:mod:`battlelog.players.rollout_kernel`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from battlelog.engines import DEFAULT_ENGINE, Engine, engine_class
from battlelog.engines.base import layout_owners
from battlelog.errors import BattlelogError
from battlelog.players.base import Player, Seed
from battlelog.rules.aim import best_cells
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState

#: Defaults, chosen on training seed 101 (docs/rollout.md).
CANDIDATES, SAMPLES, EXACT, MARGIN = 6, 400, 1000, 2.0


class RolloutPlayer(Player):
    """Shoots the cell whose rollouts (that cell, then the base policy) need the fewest shots on average.

    Ties: the more probable cell, then reading order. Its choice is random only through the drawn
    layouts, so it names candidates for exact evaluation only where it lists every layout.
    """

    name = "rollout"

    @classmethod
    def check_board(cls, config: GameConfig, engine: str = DEFAULT_ENGINE, **options: Any) -> None:
        """A board its engine cannot count is refused before the first game."""
        engine_class(engine).check_board(config)

    def __init__(
        self,
        seed: Seed = None,
        candidates: int = CANDIDATES,
        samples: int = SAMPLES,
        exact: int = EXACT,
        margin: float = MARGIN,
        engine: str = DEFAULT_ENGINE,
    ) -> None:
        super().__init__(seed)
        for key, value, least in (("candidates", candidates, 1), ("samples", samples, 2), ("exact", exact, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise BattlelogError(f"player {self.name} needs {key} a whole number of at least {least}, got {value!r}")
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 <= margin < float("inf"):
            raise BattlelogError(f"player {self.name} needs margin a finite number of at least 0, got {margin!r}")
        if not engine_class(engine).samples:
            raise BattlelogError(f"player {self.name} draws layouts; the {engine} engine does not")
        self.candidates_count, self.samples, self.exact = candidates, samples, exact
        self.margin, self.engine = float(margin), engine

    @property
    def _engine(self) -> Engine:
        return self.workspace.engine(self.engine)

    def choose(self, state: GameState) -> Cell:
        return self.evaluate(state)[0]

    def choose_volley(self, state: GameState, k: int) -> list[Cell]:
        """Under salvo, the ``k`` most probable unshot cells (ties drawn by the player's generator), as
        ``problog`` does: the rollouts simulate single shots, each answered before the next."""
        return best_cells(state.unshot, self._engine.marginals(state).cells, k, self.rng)

    def candidates(self, state: GameState) -> list[Cell] | None:
        """The one cell it shoots where it plays out every consistent layout (exact, deterministic);
        None where it draws layouts."""
        cell, exact = self.evaluate(state)[:2]
        return [cell] if exact else None

    def evaluate(self, state: GameState) -> tuple[Cell, bool, list[Cell], np.ndarray]:
        """The chosen cell, whether every layout was played, the candidates (most probable first) and
        the shots each needed per layout (one row per candidate)."""
        from battlelog.optimum.layouts import SINK_MODES
        from battlelog.players import rollout_kernel as kernel  # numba: loaded by a game, not by `--help`
        from battlelog.players.rollout_tables import listed_layouts, start_of, tables, truths

        config = state.config
        marginals = self._engine.marginals(state)
        top = best_cells(state.unshot, marginals.cells, self.candidates_count)  # ties in reading order
        candidates = [cell for cell in top if marginals.cells[cell] > 0] or top[:1]
        layouts = listed_layouts(state) if config.prior.is_uniform and (marginals.models or 0) <= self.exact else None
        exact = layouts is not None
        if layouts is None:  # the base policy is then the compiled pdf rule: its own shot is a candidate
            board, start = tables(config), start_of(state)
            base = divmod(int(kernel.choice(board, start)), config.cols)
            if base not in candidates:
                candidates = best_cells([*candidates, base], marginals.cells, len(candidates) + 1)
        firsts = [r * config.cols + c for r, c in candidates]
        if len(firsts) == 1:
            return divmod(firsts[0], config.cols), exact, [divmod(firsts[0], config.cols)], np.zeros((1, 0), dtype=np.int64)
        drawn = self._engine.sample_owners(state, self.samples, self.rng) if layouts is None else layout_owners(config, layouts)
        owners, lefts = truths(state, drawn)
        shots = np.zeros((len(firsts), len(owners)), dtype=np.int64)
        if exact:
            shot = np.zeros(config.cell_count, dtype=np.bool_)
            shot[[r * config.cols + c for r, c in state.shot_cells]] = True
            kernel.exact_rollouts(owners, lefts, shot, np.array(firsts, dtype=np.int64), SINK_MODES[config.rules.sinks], shots)
        else:
            kernel.rollouts(board, start, owners, lefts, np.array(firsts, dtype=np.int64), shots)
        chosen = firsts[_best(shots, 0.0 if exact else self.margin)]
        return divmod(chosen, config.cols), exact, [divmod(x, config.cols) for x in firsts], shots


def _best(shots: np.ndarray, margin: float) -> int:
    """The row of fewest total shots (the first on ties: the most probable cell); with ``margin`` > 0 the
    first row (the most probable cell: greedy's shot) unless the best beats it by more than ``margin``
    standard errors of the paired difference."""
    totals = shots.sum(axis=1)
    best = int(np.argmin(totals))
    if best == 0 or margin == 0.0:
        return best
    difference = shots[0] - shots[best]
    error = float(difference.std(ddof=1)) / np.sqrt(len(difference))
    return best if float(difference.mean()) > margin * error else 0
