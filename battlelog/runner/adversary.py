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

from battlelog.errors import BattlelogError
from battlelog.optimum.layouts import LayoutTable
from battlelog.optimum.weights import layout_placements
from battlelog.players import check_player, make_player
from battlelog.players.evaluate import NotExact, long_walk, shots_by_layout
from battlelog.players.spec import player_spec
from battlelog.rules.config import GameConfig
from battlelog.rules.hiders import AdversarialSpec, Hider, LayoutHider
from battlelog.runner.adversary_fit import EstimatedWorst, FittedHider, estimate_worst, fit_adversary, fit_seed, mean_shots

#: The most layouts the exact walk lists (4x4 3,2 has 264, 5x5 3,2 956, 4x4 3,2,2 3,200); past it the hider
#: is fitted, or refused when no games are allowed for a fit.
EXACT_LAYOUTS = 5_000
#: The most cells on which the optimal player is a seeker here: its optimum is solved in seconds to minutes
#: up to 4x4 (4x4 3,2,2: 26-238 s under each rule), and took two sittings on 5x5 3,2 (docs/optimum.md).
OPTIMAL_CELLS = 16


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


def check_seeker(player: str, config: GameConfig) -> None:
    """Refuse in one line a seeker that cannot play ``config`` at all, or whose every game would first
    solve an optimum for hours: the optimal player beyond :data:`OPTIMAL_CELLS` cells."""
    check_player(player, config)
    if player_spec(player).name == "optimal" and config.cell_count > OPTIMAL_CELLS:
        raise BattlelogError(
            f"player optimal: solving the optimum of {config.label()} can take hours (docs/optimum.md); as a seeker "
            f"here it plays boards of at most {OPTIMAL_CELLS} cells"
        )


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
    check_seeker(player, config)
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


def adversarial_hider(spec: AdversarialSpec, config: GameConfig, seed: int, games: int,
                      progress: Callable[[str], None] | None = None) -> tuple[Hider, str]:  # fmt: skip
    """The hider ``spec`` names on ``config``, and one line saying what it is: exact where every layout can be
    played, else (when ``games`` > 0) estimated (every layout listed) or a prior fitted, within ``games`` games
    from ``seed``."""
    check_seeker(spec.against, config)
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
