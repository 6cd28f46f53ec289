"""What each frame of a replay shows: the posterior after k shots, and the shot fired from there.

Frame k (k = 0 .. number of shots) is the game after its first k shots: the exact occupancy
marginals and the number of layouts that fit, the player's scores when the player exposes them
(what it maximised to choose shot k + 1), and shot k + 1 itself. The same frames feed the GIF and
the HTML page.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from battlelog.engines import Engine
from battlelog.engines.solve import solve
from battlelog.players.base import Player, masked
from battlelog.rules.answers import MISS
from battlelog.rules.geometry import Cell, cell_name
from battlelog.rules.state import GameState
from battlelog.views.replay.sources import Game


@dataclass(frozen=True)
class Frame:
    """The game after ``len(state.shots)`` shots."""

    state: GameState
    cells: np.ndarray
    models: int | None
    next_shot: Cell | None
    scores: np.ndarray | None = None

    @property
    def shots(self) -> int:
        return len(self.state.shots)

    def caption(self) -> str:
        """``shot 3: C4 hit, ship 1 sunk`` (under salvo ``volley 2, shot 3: ...``; or ``start``), and the
        layouts left."""
        if self.shots == 0:
            said = "before the first shot"
        else:
            shot = self.state.shots[-1]
            sunk = f", ship {shot.ship} (length {self.state.ships[shot.ship]}) sunk" if shot.ship is not None else ""
            volley = "" if shot.volley is None else f"volley {shot.volley + 1}, "
            said = f"{volley}shot {self.shots}: {cell_name(shot.cell)} {'miss' if shot.result == MISS else 'hit'}{sunk}"
        if self.models is None:
            return said
        return f"{said}; {self.models:,} layout{'s' if self.models != 1 else ''} left"


@dataclass(frozen=True)
class Replay:
    """A game and its frames; ``scorer`` names the player whose scores the frames carry, if any."""

    title: str
    game: Game
    frames: tuple[Frame, ...]
    scorer: str | None = None
    note: str = ""


def build_replay(
    game: Game, engine: Engine, player: Player | None = None, progress: Callable[[int, int], None] | None = None
) -> Replay:
    """Compute every frame of ``game``; ``player``'s scores are kept unless they are the posterior itself.

    The exact player's scores are the occupancy marginals of the unshot cells: showing them again
    beside the heat map would say nothing new, so they are dropped and the replay says why.
    """
    state, frames = game.state, []
    if player is not None:
        player.new_game(state.config)
    for k in range(len(state.shots) + 1):
        prefix = state.prefix(k)
        marginals = solve(prefix, engine, game.source)
        scores = None if player is None else player.scores(prefix)
        next_shot = state.shots[k].cell if k < len(state.shots) else None
        frames.append(Frame(prefix, marginals.cells, marginals.models, next_shot, scores))
        if progress is not None:
            progress(k + 1, len(state.shots) + 1)
    if player is None:
        return Replay(game.title, game, tuple(frames))
    return _with_scores(game, frames, game.player or player.name)


def _with_scores(game: Game, frames: list[Frame], name: str) -> Replay:
    """The replay, keeping the player's scores only where they add to the heat map, with a note saying why not."""
    if all(f.scores is None for f in frames):
        return Replay(game.title, game, tuple(frames), note=f"{name} exposes no scores")
    if all(f.scores is None or _is_posterior(f) for f in frames):
        plain = tuple(Frame(f.state, f.cells, f.models, f.next_shot) for f in frames)
        return Replay(game.title, game, plain, note=f"{name} shoots the most likely cell: its scores are the heat map")
    return Replay(game.title, game, tuple(frames), scorer=name)


def _is_posterior(frame: Frame) -> bool:
    """Whether the frame's scores are its occupancy marginals on the unshot cells."""
    assert frame.scores is not None
    expected = masked(frame.cells, frame.state)
    return bool(np.allclose(np.nan_to_num(frame.scores, nan=-1.0), np.nan_to_num(expected, nan=-1.0), rtol=0, atol=1e-9))


def report_progress(done: int, total: int) -> None:
    """A progress line on standard error, rewritten in place on a terminal (silent elsewhere)."""
    if sys.stderr.isatty():
        print(
            f"\rcomputing the posterior after each shot: {done}/{total}", end="\n" if done == total else "", file=sys.stderr,
            flush=True,
        )
