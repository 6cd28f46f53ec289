"""What a player may know of its opponent in a duel: the opponent's shots at its fleet, and who shoots them.

A duel's loop (:mod:`battlelog.runner.duel`, the web's game against the computer) hands it to a player
before each of its choices through :meth:`battlelog.players.base.Player.face`; the rules layer knows
nothing of it. Every player but ``racer`` ignores it: they play for the fewest shots on average.
"""

from __future__ import annotations

from dataclasses import dataclass

from battlelog.rules.state import GameState


@dataclass(frozen=True)
class Opponent:
    """The other side of a duel at this player's turn.

    ``state`` is the opponent's game against this player's fleet (its shots and their answers, as the
    opponent sees them), ``player`` its player spec (``rollout``, ``pdf[...]``; ``you`` for the person in
    the web's game; ``racer`` models every opponent as greedy and does not read it yet). This player moves
    next: it wins when the shots it still needs, this one included, are no more than the shots the opponent
    still needs from its next turn on (docs/duel.md, "Playing for the win").
    """

    state: GameState
    player: str
