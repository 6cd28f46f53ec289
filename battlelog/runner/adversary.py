"""The hider who hides against a seeker (``--hider adversarial[against=PLAYER]``), worked out by playing it.

The rules know a hider only as a distribution over layouts (:mod:`battlelog.rules.hiders`); this module
plays the seeker to find the one it does worst against, and hands the rules that distribution:

- **Exact** (every layout listed, at most :data:`EXACT_LAYOUTS`, and the player's choices a uniform draw
  among cells its state fixes, :meth:`Player.candidates`): each layout's expected shots exactly, over every
  way the player's ties fall (:func:`battlelog.players.evaluate.shots_by_layout`). The hider who maximises
  the seeker's expected shots puts all its mass on the layouts of the largest expectation (any mixture of
  them does as well, none does better); it spreads it evenly over them: a :class:`LayoutHider`.
- **Estimated** (every layout listed, but the player samples, or its exact walk is known to be long): each
  layout's mean shots over a few games, the layout of the largest mean taken, and its mean measured again on
  fresh games with a 95% interval (:class:`EstimatedWorst`; the hider is that one layout).
- **Fitted** (larger boards): the prior of the log-linear family
  (:data:`battlelog.rules.prior.FEATURES`) under which the seeker's mean shots are largest, found by a seeded
  coordinate search on common random numbers (every theta tried meets boards drawn from the same streams,
  and the player the same seeds), within a budget of games; the winner's mean is then measured on fresh
  boards, with its 95% interval (:class:`FittedHider`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError
from battlelog.optimum.layouts import LayoutTable
from battlelog.optimum.weights import layout_placements
from battlelog.players import check_player, make_player
from battlelog.players.evaluate import NotExact, long_walk, shots_by_layout
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.hiders import AdversarialSpec, Hider, LayoutHider
from battlelog.rules.prior import FEATURES, Prior
from battlelog.rules.variants import ALLOWED
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import layouts_for

#: The most layouts the exact walk lists (4x4 3,2 has 264, 5x5 3,2 956, 4x4 3,2,2 3,200); past it the hider
#: is fitted, or refused when no games are allowed for a fit.
EXACT_LAYOUTS = 5_000
#: The weights a fit searches among: each in [-BOUND, BOUND], in steps from STEP halved down to LAST_STEP.
BOUND, STEP, LAST_STEP = 4.0, 1.0, 0.25
#: The spawn key of the fit's own boards, apart from any experiment's (game g's boards are key (g, 0)).
_FIT_KEY = 0xAD


class NotPlayable(BattlelogError):
    """The seeker cannot be played against every layout exactly: too many layouts, or no exact expectation."""


@dataclass(frozen=True)
class LayoutShots:
    """Each layout of ``table`` with the exact expected shots ``player`` needs on it."""

    player: str
    table: LayoutTable
    shots: tuple[Fraction, ...]

    @property
    def worst(self) -> Fraction:
        """The most expected shots of any layout: the adversarial hider's mean."""
        return max(self.shots)

    def support(self) -> list[int]:
        """The layouts of the largest expected shots (indices into ``table``)."""
        return [k for k, s in enumerate(self.shots) if s == self.worst]

    def mean_over(self, layouts: Sequence[int]) -> Fraction:
        """The expected shots against a hider uniform over ``layouts``."""
        return Fraction(sum((self.shots[k] for k in layouts), Fraction(0)), len(layouts))

    @property
    def uniform(self) -> Fraction:
        """The expected shots against the uniform hider."""
        return self.mean_over(range(len(self.shots)))

    def hider(self, name: str) -> LayoutHider:
        """The adversarial hider: uniform over :meth:`support`."""
        config = self.table.config
        return LayoutHider.of(name, {layout_placements(config, self.table.placement[k]): 1 for k in self.support()})


def layout_table(config: GameConfig) -> LayoutTable:
    """Every layout of ``config`` for the exact walk; one line when there are more than :data:`EXACT_LAYOUTS`."""
    try:
        return LayoutTable.build(config, EXACT_LAYOUTS)
    except BattlelogError:
        raise NotPlayable(
            f"{config.label()} has more than {EXACT_LAYOUTS:,} layouts (or more than 64 cells), too many to play a seeker "
            "against every one"
        ) from None


def layout_shots(player: str, config: GameConfig, table: LayoutTable | None = None) -> LayoutShots:
    """Each layout's exact expected shots for ``player`` (a player spec) on ``config``; one line when the player
    samples (no exact expectation) or its walk is known to be long."""
    check_player(player, config)
    table = layout_table(config) if table is None else table
    seeker = make_player(player, 0)
    try:
        if long_walk(seeker, table):
            raise NotExact(f"player {player}'s exact walk on {config.label()} is known to take too long")
        return LayoutShots(player, table, tuple(Fraction(s) for s in shots_by_layout(seeker, table)))
    except NotExact as exc:
        raise NotPlayable(str(exc)) from None
    finally:
        seeker.close()


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
    from battlelog.report.stats import mean_ci  # scipy: loaded by a fit, not by `experiment --help`

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


def adversarial_hider(spec: AdversarialSpec, config: GameConfig, seed: int, games: int,
                      progress: Callable[[str], None] | None = None) -> tuple[Hider, str]:  # fmt: skip
    """The hider ``spec`` names on ``config``, and one line saying what it is: exact where every layout can be
    played, else (when ``games`` > 0) estimated (every layout listed) or a prior fitted, within ``games`` games
    from ``seed``."""
    try:
        table = layout_table(config)
    except NotPlayable as exc:
        if games <= 0:
            raise _refused(exc) from None
        fitted = fit_adversary(spec.against, config, seed, games, progress)
        return fitted.prior, f"{fitted.text(spec.against)}, fitted: {exc}"
    try:
        shots = layout_shots(spec.against, config, table)
    except NotPlayable as exc:
        if games <= 0:
            raise _refused(exc) from None
        estimated = estimate_worst(spec.against, table, seed, games)
        return LayoutHider.of(spec.text, {estimated.layout: 1}), f"{estimated.text(spec.against, len(table))}: {exc}"
    hider = shots.hider(spec.text)
    return hider, (
        f"adversarial hider against {spec.against}: {len(hider.layouts)} of {len(shots.table)} layouts, each needing "
        f"{shots.worst} = {float(shots.worst):.4f} expected shots (uniform hider: {float(shots.uniform):.4f}), exact"
    )


def _refused(exc: NotPlayable) -> BattlelogError:
    """The one line of an adversary that cannot be played exactly when no games are allowed for another."""
    return BattlelogError(f"adversarial hider: {exc}; give --adversary-games N to estimate or fit one instead")


__all__ = [
    "EXACT_LAYOUTS",
    "EstimatedWorst",
    "FittedHider",
    "LayoutShots",
    "NotPlayable",
    "adversarial_hider",
    "estimate_worst",
    "fit_adversary",
    "fit_seed",
    "layout_shots",
    "layout_table",
    "mean_shots",
]
