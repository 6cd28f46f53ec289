"""The racer: the rollout player playing to finish first rather than to need the fewest shots on average.

A duel is won by finishing first, and the shot that needs the fewest shots on average is not always the
one most likely to win: a side far behind should gamble on a quick finish, a side far ahead on a sure one.
Told its opponent's progress (:class:`~battlelog.players.opponent.Opponent`), the racer estimates the
distribution of the opponent's remaining shots (:func:`battlelog.players.race.remaining_shots`: greedy
in the opponent's place, on layouts of the opponent's exact posterior over this player's fleet, drawn
from a stream of their own) and, for each of the rollout player's candidates, the chance that its own
remaining shots (that cell, then the base policy, on the same layouts for every candidate: common random
numbers) are no more than the opponent's. It leaves the rollout player's shot only for a candidate with a
higher chance to win (when it samples, by more than ``margin`` standard errors of the paired difference).

Without an opponent (not in a duel: ``play``, ``experiment``, exact evaluation) it is the rollout player,
shot for shot; so too where every candidate wins surely or loses surely (an opponent far behind or far
ahead), where the chance to win cannot tell them apart.
"""

from __future__ import annotations

import numpy as np

from battlelog.engines import DEFAULT_ENGINE
from battlelog.errors import BattlelogError
from battlelog.players.base import Seed
from battlelog.players.opponent import Opponent
from battlelog.players.race import remaining_shots, survival
from battlelog.players.rollout import CANDIDATES, EXACT, MARGIN, SAMPLES, RolloutPlayer
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState

#: Layouts drawn of the opponent's posterior per move when they are too many to list.
RIVALS = 400


class RacerPlayer(RolloutPlayer):
    """Shoots the candidate most likely to finish before the opponent; the rollout player without one."""

    name = "racer"

    def __init__(
        self,
        seed: Seed = None,
        candidates: int = CANDIDATES,
        samples: int = SAMPLES,
        exact: int = EXACT,
        margin: float = MARGIN,
        engine: str = DEFAULT_ENGINE,
        rivals: int = RIVALS,
    ) -> None:
        super().__init__(seed, candidates, samples, exact, margin, engine)
        if isinstance(rivals, bool) or not isinstance(rivals, int) or rivals < 1:
            raise BattlelogError(f"player racer needs rivals a whole number of at least 1, got {rivals!r}")
        self.rivals = rivals
        self.opponent: Opponent | None = None
        self.rival_rng = self.rng.spawn(1)[0]  # the opponent's draws: its own moves stay the rollout player's

    def new_game(self, config: GameConfig) -> None:
        self.opponent = None

    def face(self, opponent: Opponent | None) -> None:
        self.opponent = opponent

    def candidates(self, state: GameState) -> list[Cell] | None:
        """The rollout player's, without an opponent; in a duel its choice depends on the opponent: None."""
        return super().candidates(state) if self.opponent is None else None

    def choose(self, state: GameState) -> Cell:
        cell, exact, cells, shots = self.evaluate(state)
        if self.opponent is None or len(cells) == 1:
            return cell
        return cells[self.race(cells.index(cell), shots, exact)]

    def win_chances(self, shots: np.ndarray) -> np.ndarray:
        """Per candidate (row) and layout (column) of ``shots``, the chance to finish no later than the opponent."""
        assert self.opponent is not None
        theirs, _ = remaining_shots(self.opponent.state, self._engine, self.rivals, self.exact, self.rival_rng)
        return survival(theirs, shots)

    def race(self, base: int, shots: np.ndarray, exact: bool) -> int:
        """The candidate row to shoot: ``base`` (the rollout player's) unless another wins more often."""
        return raced(self.win_chances(shots), base, 0.0 if exact else self.margin)


def raced(wins: np.ndarray, base: int, margin: float) -> int:
    """The row of ``wins`` of highest mean (the first on ties), if it beats row ``base``: at all when
    ``margin`` is 0 (every layout listed), else by more than ``margin`` standard errors of the paired
    difference; otherwise ``base``."""
    means = wins.mean(axis=1)
    best = int(np.argmax(means))
    if means[best] <= means[base]:
        return base
    if margin == 0.0:
        return best
    difference = wins[best] - wins[base]
    error = float(difference.std(ddof=1)) / np.sqrt(len(difference))
    return best if float(difference.mean()) > margin * error else base
