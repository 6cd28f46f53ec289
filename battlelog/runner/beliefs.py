"""What ``belief=hider`` and ``belief=learn`` mean in game g of an experiment, worked out by any worker alone.

- ``hider``: the experiment's hider (the player is told the truth);
- ``learn``: the prior fitted to the layouts of games 0..g-1 of the same experiment, in game order (the
  boards revealed to the player so far); the option ``features`` (``edge+vertical``, say) names the weights
  fitted, the others stay 0. Those layouts depend only on the root seed, the board and the
  hider (:func:`battlelog.runner.seeds.layout_for`), so a worker regenerates them: no worker waits for
  another, and game g plays the same on any worker, in any order, resumed or not. The fit is the maximum
  of the likelihood times a Gaussian of precision :data:`LEARN_RIDGE` on each weight (a standard normal),
  which keeps the first games' fits finite; game 0 is played with the uniform prior.

A player is built with the belief these resolve to (a prior's text); its record keeps what was asked
(``belief=learn``), so each configuration stays one row.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np

from battlelog.engines.fit import fit_prior, weighted_engine
from battlelog.engines.workspace import Workspace
from battlelog.players.belief import ALL_FEATURES, LEARNT
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.hiders import HIDER, LEARN, Hider, spec_text
from battlelog.rules.prior import FEATURES, UNIFORM, Prior, layout_features, parse_features
from battlelog.runner.seeds import DRAWN_TOGETHER, layouts_for

#: The option that names a player's belief.
BELIEF = "belief"
#: Precision of the Gaussian on each weight that ``belief=learn`` fits under (a standard normal prior).
LEARN_RIDGE = 1.0


def learned_prior(config: GameConfig, seed: int, hider: Hider, game: int, workspace: Workspace,
                  learnt: tuple[str, ...] = FEATURES) -> Prior:  # fmt: skip
    """The prior ``belief=learn`` plays game ``game`` with: the weights of ``learnt`` fitted to the layouts of
    games 0..game-1 (the others 0)."""
    if game == 0:
        return UNIFORM

    def key(g: int) -> tuple[Any, ...]:
        return ("layout-features", config, seed, hider, g)

    # The boards not seen yet are drawn together, the next games' too (remembered, read once those games are over).
    missing = [g for g in range(game + DRAWN_TOGETHER) if not workspace.remembers(key(g))]
    drawn = dict(zip(missing, layouts_for(config, seed, missing, hider))) if any(g < game for g in missing) else {}
    for g in drawn:
        workspace.remember(key(g), partial(_features, drawn, g, config))
    totals = np.array([workspace.remember(key(g), partial(_features, drawn, g, config)) for g in range(game)], dtype=float).sum(
        axis=0
    )
    fitted = workspace.remember(
        ("learnt-prior", config.posterior, tuple(totals), game, learnt),
        lambda: fit_prior(weighted_engine(workspace), config, totals, game, ridge=LEARN_RIDGE, errors=False, learnt=learnt).prior,
    )
    return fitted


def _features(drawn: dict[int, tuple[Placement, ...]], game: int, config: GameConfig) -> tuple[int, int, int]:
    """(edge, vertical, touch) of game ``game``'s layout, among those just ``drawn``."""
    return layout_features(drawn[game], config.rows, config.cols)


def resolved_options(options: Mapping[str, Any], config: GameConfig, seed: int, game: int, hider: Hider,
                     workspace: Workspace | None) -> dict[str, Any]:  # fmt: skip
    """``options`` with ``belief=hider`` or ``belief=learn`` replaced by the prior it means in this game."""
    out = dict(options)
    belief = out.get(BELIEF)
    if belief == HIDER:
        out[BELIEF] = spec_text(hider)
    elif belief == LEARN:
        space = workspace if workspace is not None else Workspace()
        learnt = parse_features(out.pop(LEARNT, ALL_FEATURES))  # resolved: the player is built with the prior
        try:
            out[BELIEF] = spec_text(learned_prior(config, seed, hider, game, space, learnt))
        finally:
            if space is not workspace:
                space.close()
    return out


__all__ = ["BELIEF", "LEARN_RIDGE", "learned_prior", "resolved_options"]
