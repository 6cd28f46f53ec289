"""Player registry: a plain dict from the name used on the command line to the class."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from importlib import import_module
from typing import Any

import numpy as np

from battlelog.errors import BattlelogError
from battlelog.players.base import Player
from battlelog.players.endgame import EndgamePlayer
from battlelog.players.exact import ExactPlayer
from battlelog.players.hunt_target import HuntTargetPlayer
from battlelog.players.info import InfoPlayer
from battlelog.players.lookahead import LookaheadPlayer
from battlelog.players.mc import MonteCarloPlayer
from battlelog.players.optimal import OptimalPlayer
from battlelog.players.parity import ParityPlayer
from battlelog.players.pdf import PdfPlayer
from battlelog.players.racer import RacerPlayer
from battlelog.players.random import RandomPlayer
from battlelog.players.rollout import RolloutPlayer
from battlelog.players.spec import player_spec
from battlelog.players.thompson import ThompsonPlayer
from battlelog.rules.config import GameConfig

PLAYERS: dict[str, type[Player]] = {
    cls.name: cls
    for cls in (
        RandomPlayer, HuntTargetPlayer, PdfPlayer, ExactPlayer, ParityPlayer, ThompsonPlayer, InfoPlayer,
        LookaheadPlayer, MonteCarloPlayer, OptimalPlayer, RolloutPlayer, RacerPlayer, EndgamePlayer,
    )
}


def make_player(spec: str, seed: int | np.random.SeedSequence | None = None, **options: Any) -> Player:
    """Build the player of ``spec`` (a registered name or ``module:Class``, with or without
    ``[key=value,...]``, see :mod:`battlelog.players.spec`) with ``options`` added (for example
    ``engine="sdd"``); an option the player does not take is a one-line error."""
    configuration = player_spec(spec, **options)
    return player_class(configuration.name)(seed, **configuration.options)


def check_player(spec: str, config: GameConfig, options: Mapping[str, Any] | None = None) -> None:
    """Refuse in one line, before any game, what would fail every game: an unknown player, an option it
    does not take, or a board it (or its engine) cannot play."""
    configuration = player_spec(spec, **(options or {}))
    player_class(configuration.name).check_board(config, **configuration.options)


def player_class(spec: str) -> type[Player]:
    """The Player subclass ``spec`` names.

    ``spec`` is a registered name (``pdf``) or ``module:Class`` naming your own Player subclass; the
    module must be importable (on sys.path / PYTHONPATH) in the workers too. This keeps test-only
    and experimental players out of the production registry. Anything else is a one-line error
    here, before any game is played.
    """
    if spec in PLAYERS:
        return PLAYERS[spec]
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise BattlelogError(
            f"unknown player {spec!r}; choose from {', '.join(PLAYERS)} or give module:Class of your own player"
        )
    try:
        module = import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - the user's module may fail in any way while importing
        raise BattlelogError(f"player {spec!r}: cannot import {module_name!r} ({type(exc).__name__}: {exc})") from None
    cls = getattr(module, attribute, None)
    if cls is None:
        raise BattlelogError(f"player {spec!r}: module {module_name!r} has no class or function {attribute!r}")
    if not (isinstance(cls, type) and issubclass(cls, Player)):
        raise BattlelogError(f"player {spec!r}: {attribute} is not a Player subclass (see battlelog.players.base)")
    if inspect.isabstract(cls):
        raise BattlelogError(f"player {spec!r}: {attribute} is abstract (it does not implement choose)")
    return cls


__all__ = ["PLAYERS", "Player", "check_player", "make_player", "player_class"]
