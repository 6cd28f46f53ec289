"""The hider against a seeker when the seeker cannot be walked exactly (:mod:`battlelog.runner.adversary`):
estimated on every layout from a few games each, or a log-linear prior fitted by a seeded coordinate search
on common random numbers; each reported with the 95% interval of its mean on fresh games."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from battlelog.engines.workspace import Workspace
from battlelog.optimum.layouts import LayoutTable
from battlelog.optimum.weights import layout_placements
from battlelog.players import check_player, make_player
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.prior import FEATURES, Prior
from battlelog.rules.variants import ALLOWED
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import layouts_for

#: The weights a fit searches among: each in [-BOUND, BOUND], in steps from STEP halved down to LAST_STEP.
BOUND, STEP, LAST_STEP = 4.0, 1.0, 0.25
#: The spawn key of the fit's own boards, apart from any experiment's (game g's boards are key (g, 0)).
_FIT_KEY = 0xAD


@dataclass(frozen=True)
class FittedHider:
    """The prior a fit found, its mean shots on fresh boards with a 95% interval, and what the fit cost."""

    prior: Prior
    mean: float
    low: float
    high: float
    uniform_mean: float
    games: int

    def text(self, player: str) -> str:
        """One line for people."""
        return (
            f"adversarial hider against {player}: fitted prior {self.prior.text() or 'uniform'}, {self.mean:.3f} shots "
            f"[{self.low:.3f}, {self.high:.3f}] on fresh boards (uniform {self.uniform_mean:.3f} on the search's boards; "
            f"{self.games} games in all)"
        )


def fit_seed(seed: int) -> int:
    """The root seed of a fit's own boards: derived from ``seed``, apart from any experiment's."""
    return int(np.random.SeedSequence([seed, _FIT_KEY]).generate_state(1)[0])


def mean_shots(player: str, config: GameConfig, prior: Prior, seed: int, games: Sequence[int], workspace: Workspace) -> list[int]:
    """The shots ``player`` needs on games ``games`` of root ``seed`` under ``prior``: boards and the player's
    draws from the streams an experiment uses (:func:`battlelog.runner.seeds.layouts_for`), so every prior
    meets boards of the same random numbers (common random numbers)."""
    from battlelog.runner.seeds import game_seeds

    return [
        _score(player, config, layout, game_seeds(seed, game)[1], workspace)
        for game, layout in zip(games, layouts_for(config, seed, games, prior))
    ]


def _score(
    player: str, config: GameConfig, layout: tuple[Placement, ...], seed: np.random.SeedSequence, workspace: Workspace
) -> int:
    """The shots ``player``, seeded with ``seed``, needs on ``layout``."""
    seeker = make_player(player, seed)
    seeker.use(workspace)
    try:
        return play_game(config, layout, seeker).score
    finally:
        seeker.close()


def _interval(scores: Sequence[int]) -> tuple[float, float, float]:
    """The mean of ``scores`` with its 95% Student-t interval (a point when every score is equal)."""
    from battlelog.stats import mean_ci  # scipy: loaded by a fit, not by `experiment --help`

    interval = mean_ci([float(s) for s in scores])
    if interval.low is None or interval.high is None:
        return interval.mean, interval.mean, interval.mean
    return interval.mean, interval.low, interval.high


@dataclass(frozen=True)
class EstimatedWorst:
    """The layout of the largest mean shots among every layout's few games, and its mean on fresh games with a
    95% interval (the screen's own mean of it is biased up: the largest of many noisy means)."""

    layout: tuple[Placement, ...]
    mean: float
    low: float
    high: float
    uniform_mean: float
    per_layout: int
    games: int

    def text(self, player: str, layouts: int) -> str:
        """One line for people."""
        return (
            f"adversarial hider against {player}: estimated, 1 of {layouts} layouts (the most shots over {self.per_layout} "
            f"games each), {self.mean:.3f} shots [{self.low:.3f}, {self.high:.3f}] on fresh games (uniform "
            f"{self.uniform_mean:.3f} over the screen; {self.games} games in all)"
        )


def estimate_worst(player: str, table: LayoutTable, seed: int, games: int) -> EstimatedWorst:
    """The worst layout of ``table`` for a ``player`` without exact expectations, within ``games`` games: half
    of them spread over every layout (at least one each), the rest on the layout of the largest mean."""
    config = table.config
    check_player(player, config)
    root = fit_seed(seed)
    per = max(1, games // (2 * len(table)))
    final = max(10, games - per * len(table))
    layouts = [layout_placements(config, row) for row in table.placement]
    workspace = Workspace()
    try:
        screen = [
            float(
                np.mean(
                    [
                        _score(player, config, layout, np.random.SeedSequence(root, spawn_key=(k, i)), workspace)
                        for i in range(per)
                    ]
                )
            )
            for k, layout in enumerate(layouts)
        ]
        worst = int(np.argmax(screen))
        scores = [
            _score(player, config, layouts[worst], np.random.SeedSequence(root, spawn_key=(worst, per + i)), workspace)
            for i in range(final)
        ]
    finally:
        workspace.close()
    mean, low, high = _interval(scores)
    return EstimatedWorst(layouts[worst], mean, low, high, float(np.mean(screen)), per, per * len(table) + final)


def fit_adversary(player: str, config: GameConfig, seed: int, games: int,
                  progress: Callable[[str], None] | None = None) -> FittedHider:  # fmt: skip
    """The log-linear prior that maximises ``player``'s mean shots on ``config``, by coordinate search within
    ``games`` games: three quarters for the search (each theta tried on the same boards, a twentieth of the
    budget each), a quarter to measure the winner on fresh boards (see the module)."""
    check_player(player, config)
    features = [f for f in FEATURES if f != "touch" or config.rules.touch == ALLOWED]  # touch means nothing otherwise
    batch = max(10, games // 20)
    final = max(10, games - 15 * batch)
    root = fit_seed(seed)
    search = range(batch)
    used = 0
    workspace = Workspace()
    try:

        def value(theta: dict[str, float]) -> float:
            nonlocal used
            used += batch
            return float(np.mean(mean_shots(player, config, Prior(**theta), root, search, workspace)))

        theta = dict.fromkeys(features, 0.0)
        best = uniform = value(theta)
        if progress is not None:
            progress(f"fitting an adversary against {player}: uniform: {uniform:.3f} shots on {batch} boards")
        step = STEP
        while step >= LAST_STEP and used + 2 * batch <= games - final:
            moved = False
            for name in features:
                for sign in (1.0, -1.0):
                    trial = {**theta, name: min(BOUND, max(-BOUND, theta[name] + sign * step))}
                    if trial == theta or used + batch > games - final:
                        continue
                    score = value(trial)
                    if progress is not None:
                        progress(f"{Prior(**trial).text() or 'uniform'}: {score:.3f} shots on {batch} boards")
                    if score > best:
                        theta, best, moved = trial, score, True
                        break
            if not moved:
                step /= 2
        prior = Prior(**theta)
        measured = mean_shots(player, config, prior, root, range(batch, batch + final), workspace)
    finally:
        workspace.close()
    mean, low, high = _interval(measured)
    return FittedHider(prior, mean, low, high, uniform, used + final)
