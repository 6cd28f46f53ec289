"""Player registry: a plain dict from the name used on the command line to the class."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from battlelog.errors import BattlelogError
from battlelog.players.base import Player
from battlelog.players.exact import ExactPlayer
from battlelog.players.hunt_target import HuntTargetPlayer
from battlelog.players.info import InfoPlayer
from battlelog.players.lookahead import LookaheadPlayer
from battlelog.players.mc import MonteCarloPlayer
from battlelog.players.optimal import OptimalPlayer
from battlelog.players.parity import ParityPlayer
from battlelog.players.pdf import PdfPlayer
from battlelog.players.random import RandomPlayer
from battlelog.players.thompson import ThompsonPlayer

PLAYERS: dict[str, type[Player]] = {
    cls.name: cls
    for cls in (
        RandomPlayer, HuntTargetPlayer, PdfPlayer, ExactPlayer, ParityPlayer, ThompsonPlayer, InfoPlayer,
        LookaheadPlayer, MonteCarloPlayer, OptimalPlayer,
    )
}


def make_player(name: str, seed: int | np.random.SeedSequence | None = None, **options: Any) -> Player:
    """Build the player registered as ``name`` with its options (for example ``engine="sdd"``)."""
    if name not in PLAYERS:
        raise BattlelogError(f"unknown player {name!r}; choose from {', '.join(PLAYERS)}")
    cls = PLAYERS[name]
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self", "seed"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise BattlelogError(f"player {name!r} does not take option(s) {', '.join(unknown)}")
    return cls(seed, **options)


__all__ = ["PLAYERS", "Player", "make_player"]
