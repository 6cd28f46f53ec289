"""The games against the computer that the server keeps, and whose they are.

A game is kept under an unguessable id (128 random bits) for the address that started it: to any
other it does not exist. One client cannot push out the games others are playing: it keeps at most
:data:`GAMES_PER_CLIENT` (its own least recently played goes for a new one), and when the server keeps
:data:`MAX_GAMES` a new game takes the place of the least recently played one only once that has been
idle :data:`IDLE` seconds; until then a new game is refused (503, ``Retry-After``).
"""

from __future__ import annotations

import math
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from battlelog.web.requests import WebError

#: How many games the server keeps at once: each computer player keeps its engine's recent states, a few MB at most.
MAX_GAMES = 128
#: How many games one client (address) keeps at once: its least recently played goes when it starts one more.
GAMES_PER_CLIENT = 16
#: Seconds after which a game nobody plays may give way to another client's new one.
IDLE = 10 * 60


class Game(Protocol):
    """What is kept: a game that releases what it holds when it is dropped."""

    def close(self) -> None: ...


G = TypeVar("G", bound=Game)


@dataclass
class Kept(Generic[G]):
    """A game, who started it (an address) and when it was last played (monotonic seconds)."""

    owner: str
    game: G
    played: float


class Games(Generic[G]):
    """The live games, least recently played first. A client keeps at most ``per_client`` (its own
    least recently played goes for a new one); when ``limit`` games are kept, a new one takes the place
    of the least recently played game only if that one has been idle ``idle`` seconds, else it is
    refused (503, ``Retry-After``): one client cannot push out the games others are playing."""

    def __init__(
        self,
        limit: int = MAX_GAMES,
        per_client: int = GAMES_PER_CLIENT,
        idle: float = IDLE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit, self.per_client, self.idle, self._clock = limit, per_client, idle, clock
        self._kept: OrderedDict[str, Kept[G]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def add(self, owner: str, game: G) -> str:
        """Keep ``game`` for ``owner`` (making room as the class says); its new id (128 random bits)."""
        now = self._clock()
        mine = [key for key, kept in self._kept.items() if kept.owner == owner]
        if len(mine) >= self.per_client:
            self._drop(mine[0])
        elif len(self._kept) >= self.limit:
            oldest, kept = next(iter(self._kept.items()))
            if now - kept.played < self.idle:
                wait = math.ceil(self.idle - (now - kept.played))
                message = f"the server keeps {self.limit} games, all played in the last {self.idle:g} s: try again in {wait} s"
                raise WebError(message, 503, retry_after=wait)
            self._drop(oldest)
        key = secrets.token_urlsafe(16)
        self._kept[key] = Kept(owner, game, now)
        return key

    def get(self, owner: str, key: object) -> G:
        """``owner``'s game ``key``, now the most recently played; another client's game is unknown (404)."""
        kept = self._kept.get(key) if isinstance(key, str) else None
        if kept is None or kept.owner != owner:
            raise WebError(f"no game {str(key)[:40]!r}: start one with /api/play/new", 404)
        kept.played = self._clock()
        self._kept.move_to_end(str(key))
        return kept.game

    def _drop(self, key: str) -> None:
        self._kept.pop(key).game.close()

    def close(self) -> None:
        """Drop every game (the server stops)."""
        while self._kept:
            self._drop(next(iter(self._kept)))
