"""What outlives one game: engines by name, what they remember, and what the layers above solve once.

Whoever owns a process's work creates one :class:`Workspace` and closes it: an executor's worker
(one per worker, kept across the games it plays, since a deterministic player's early states repeat
from game to game up to a symmetry of the board), or a command. Players are handed it
(:meth:`battlelog.players.base.Player.use`) and engines take it as a constructor argument; a player
or an engine given none makes one of its own. Everything in it is bounded: the native engine's
recent states by :data:`STATE_CAPACITY`, the rest by the number of engines and board
configurations a process meets.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TypeVar, cast

from battlelog.engines import Engine, Marginals, make_engine
from battlelog.engines.native.cache import EmptyBoards, StateCache
from battlelog.rules.config import GameConfig

#: How many recent states the native engine remembers (each a few kB of marginals).
STATE_CAPACITY = 512

Built = TypeVar("Built")


class Workspace:
    """One owner's engines and caches; :meth:`close` releases them all.

    ``cache_dir``: the folder of the native engine's empty boards on disk (default:
    :func:`battlelog.cachedir.cache_dir`, read when a board is stored or looked up).
    """

    def __init__(self, cache_dir: Path | None = None) -> None:
        #: The native engine's marginals of recent states, under the board's symmetries.
        self.states = StateCache(STATE_CAPACITY)
        #: The native engine's empty boards, on disk: shared by every process of the user.
        self.empty_boards = EmptyBoards(cache_dir)
        #: The sdd engine's empty boards, the same in every game of a configuration, by the configuration
        #: the posterior depends on (``GameConfig.posterior``: its rules without the salvo).
        self.sdd_empty_boards: dict[GameConfig, Marginals] = {}
        self._engines: dict[str, Engine] = {}
        self._remembered: dict[Hashable, object] = {}

    def engine(self, name: str) -> Engine:
        """The engine registered as ``name``, built in this workspace on first use (one per name: it
        serves one state at a time, as a player or a command asks)."""
        if name not in self._engines:
            self._engines[name] = make_engine(name, workspace=self)
        return self._engines[name]

    def remember(self, key: Hashable, build: Callable[[], Built]) -> Built:
        """``build()``, called once per ``key`` in this workspace: for what the layers above the
        engines solve once per configuration (the optimal player's solved instance)."""
        if key not in self._remembered:
            self._remembered[key] = build()
        return cast(Built, self._remembered[key])

    def remembers(self, key: Hashable) -> bool:
        """Whether :meth:`remember` has built ``key`` in this workspace."""
        return key in self._remembered

    def close(self) -> None:
        """Close the engines and forget everything (the files on disk stay); the workspace can be used again."""
        for engine in self._engines.values():
            engine.close()
        self._engines.clear()
        self._remembered.clear()
        self.sdd_empty_boards.clear()
        self.states.clear()
