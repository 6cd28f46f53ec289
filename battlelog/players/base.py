"""The one interface every player implements, and the shared tie-breaking rule.

Ownership: a constructor only stores the player's parameters (its seed, an engine's name, ...);
what a player computes with (engines and what they remember, a solved optimum) lives in a
:class:`~battlelog.engines.workspace.Workspace`. Whoever owns the work (an executor's worker, a
command) creates one, hands it to each player with :meth:`Player.use` before its first game, and
closes it when done; a player that was handed none (built in a notebook, say) makes its own on
first need and releases it in :meth:`Player.close`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from battlelog.engines.workspace import Workspace
from battlelog.players.opponent import Opponent
from battlelog.rules.aim import best_cells, pick_tied, tied_best
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell
from battlelog.rules.state import GameState

#: What a player may be seeded with: an integer, a seed sequence, or a generator it then owns.
Seed = int | np.random.SeedSequence | np.random.Generator | None


class Player(ABC):
    """Chooses the next shot from what a player sees: the game state, never the hidden layout.

    Every random draw comes from ``self.rng``, built from the ``seed`` given at construction (or
    the generator itself when one is given), so a game is reproducible from its seed.
    """

    name: ClassVar[str]
    #: True when the player's choices depend only on which cells are shot, never on the answers:
    #: exact evaluation then follows every layout down one tree of shot cells.
    blind: ClassVar[bool] = False
    #: True when the player fires the cells in a uniformly random order whatever the answers: its shots on
    #: any layout are then the last of K ship cells' place among M, K(M+1)/(K+1) on average (the exact walk
    #: of every layout apart, 2^M shot sets, is skipped for it).
    uniform_order: ClassVar[bool] = False
    #: For a player that hunts by drawing among many cells at random (its exact walk branches on each
    #: of them): the layouts beyond which that walk is known to be long on boards larger than 3x3 (see
    #: players.evaluate.long_walk); None for the others.
    long_walk_layouts: ClassVar[int | None] = None

    _workspace: Workspace | None = None
    _owns_workspace: bool = False

    def __init__(self, seed: Seed = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def use(self, workspace: Workspace) -> None:
        """Compute in ``workspace`` from now on; its owner closes it, never the player."""
        self._workspace, self._owns_workspace = workspace, False

    @property
    def workspace(self) -> Workspace:
        """The workspace given to :meth:`use`, else one of the player's own, made on first need."""
        if self._workspace is None:
            self._workspace, self._owns_workspace = Workspace(), True
        return self._workspace

    @classmethod
    def canonical_option(cls, key: str, value: Any) -> Any:
        """Option ``key``'s value in its one spelling, so that one configuration has one name (by default
        as given; the posterior players' ``belief`` names a file's prior by its text)."""
        return value

    @classmethod
    def check_board(cls, config: GameConfig, **options: Any) -> None:
        """Refuse, in one line and before any game, a board this player cannot play with these options
        (its constructor's keywords; by default it plays every board). Experiments and ``play`` ask
        before they start (through :func:`battlelog.players.check_player`)."""

    def new_game(self, config: GameConfig) -> None:
        """A new game starts on ``config``: forget whatever belonged to the previous one."""

    def face(self, opponent: Opponent | None) -> None:
        """Told before each choice of a duel how far the opponent has come (None: no duel, or no longer
        known). Players that play for the fewest shots on average ignore it; ``racer`` plays for the win."""

    def scores(self, state: GameState) -> np.ndarray | None:
        """The N x N values this player maximises when it chooses (NaN on shot cells), or None.

        A replay or an advisor shows them to say why the player shoots where it does.
        """
        return None

    @abstractmethod
    def choose(self, state: GameState) -> Cell:
        """The cell to shoot next; it must be on the board and not shot yet."""

    def choose_volley(self, state: GameState, k: int) -> list[Cell]:
        """The ``k`` distinct unshot cells of the next volley (salvo), all chosen before any answer.

        By default a player with :meth:`scores` takes the k best cells (ties drawn by its generator, as
        :meth:`choose` does); one without picks one cell at a time with :meth:`choose`, the cells
        already picked counting as shot (:meth:`GameState.aiming`).
        """
        values = self.scores(state)
        if values is not None:
            return best_cells(state.unshot, values, k, self.rng)
        return self.one_at_a_time(state, k)

    def one_at_a_time(self, state: GameState, k: int) -> list[Cell]:
        """A volley of ``k`` cells picked by :meth:`choose` in turn, each seeing the earlier ones as shot."""
        picked: list[Cell] = []
        for _ in range(k):
            picked.append(self.choose(state.aiming(set(picked)) if picked else state))
        return picked

    def candidates(self, state: GameState) -> list[Cell] | None:
        """The cells ``choose`` draws its shot from, uniformly; None when the choice is not a uniform
        draw among cells the state fixes (a player that samples). Exact evaluation needs it."""
        return None

    def decision_key(self, state: GameState, possible: frozenset[Cell]) -> Hashable:
        """What this player's choices from ``state`` on depend on, besides the layouts still
        consistent with the answers (``possible``: the cells some of them cover). Exact evaluation
        plays two states of a game with equal keys and equal consistent layouts alike, and walks one.
        The default, the ordered shots, is always right; a coarser key merges more states."""
        return state.shots

    def close(self) -> None:
        """Release what the player owns: its own workspace, if it made one (a workspace given to
        :meth:`use` is left to its owner)."""
        if self._owns_workspace and self._workspace is not None:
            self._workspace.close()
            self._workspace, self._owns_workspace = None, False


class ScoringPlayer(Player):
    """A player that shoots the unshot cell with the highest score, ties broken by its generator."""

    @abstractmethod
    def scores(self, state: GameState) -> np.ndarray:
        """The N x N scores of this state (NaN on shot cells)."""

    def candidates(self, state: GameState) -> list[Cell]:
        """The unshot cells tied for the best score."""
        values = self.scores(state)
        cells = state.unshot
        return tied_best(cells, [values[cell] for cell in cells])

    def choose(self, state: GameState) -> Cell:
        return pick_tied(self.candidates(state), self.rng)


def idle_cells(state: GameState, possible: frozenset[Cell]) -> frozenset[Cell]:
    """Cells that no consistent layout covers and that no future hit can put on a target list (no
    neighbour is a cell a ship may still be found on).

    A random draw among unshot cells treats them all alike, so for players that only draw them or
    list neighbours of hits, which idle cells are shot does not matter, only how many are left.
    """
    return _idle_cells(state.rows, state.cols, possible, state.hits)


@lru_cache(maxsize=1 << 16)
def _idle_cells(rows: int, cols: int, possible: frozenset[Cell], hits: frozenset[Cell]) -> frozenset[Cell]:
    """idle_cells, cached: exact evaluation asks for the same few sets again and again."""
    open_cells = possible - hits
    return frozenset(
        (r, c)
        for r in range(rows)
        for c in range(cols)
        if (r, c) not in possible
        and not any(cell in open_cells for cell in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)))
    )


def pick_random(cells: Sequence[Cell], rng: np.random.Generator) -> Cell:
    """A cell drawn uniformly from ``cells``."""
    return cells[int(rng.integers(len(cells)))]


def masked(values: np.ndarray, state: GameState) -> np.ndarray:
    """``values`` as float scores with the shot cells set to NaN (not candidates)."""
    out = np.array(values, dtype=float)
    for cell in state.shot_cells:
        out[cell] = np.nan
    return out
