"""Each side's live chance to win a game against the computer, shown on the page after every turn.

You shoot next, so you win when the shots you still need, this one included, are no more than the shots the
computer still needs (:mod:`battlelog.players.race`). Each side's remaining shots are those of greedy in its
place, on the layouts of its own exact posterior (what that side knows of the fleet it hunts, never the
fleet itself, so the chance gives nothing away): every consistent layout when there are at most
:data:`EXACT` of them (the chance is then exact for that model), else :data:`SAMPLES` drawn exactly, the two
sides independently (an estimate: its standard error is at most sqrt(1/4000 + 1/4000) = 0.022).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from battlelog.engines.base import Engine
from battlelog.players.race import chance_to_win, remaining_shots
from battlelog.rules.state import GameState

#: Listing every consistent layout of a side up to this many; drawing this many beyond.
EXACT, SAMPLES = 1000, 1000


def live_chances(
    yours: GameState, its: GameState, winner: str | None, engine: Engine, rng: np.random.Generator
) -> dict[str, Any]:
    """``{"you": p, "computer": 1 - p, "method": "exact" | "estimated" | "over"}`` with you about to shoot
    (``yours``: your game against the computer's fleet; ``its``: its game against yours)."""
    if winner is not None:
        return {"you": float(winner == "you"), "computer": float(winner == "computer"), "method": "over"}
    mine, listed = remaining_shots(yours, engine, SAMPLES, EXACT, rng)
    theirs, listed_too = remaining_shots(its, engine, SAMPLES, EXACT, rng)
    p = chance_to_win(mine, theirs)
    return {"you": p, "computer": 1.0 - p, "method": "exact" if listed and listed_too else "estimated"}
