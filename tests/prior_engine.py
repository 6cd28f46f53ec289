"""A stand-in weighted engine for small boards: brute force over the oracle's layouts, with the prior's
weights written literally from the spec (tests/oracle.py), none of battlelog's counting.

It has the interface the native engine gains for priors (``weighs_priors``, weighted ``marginals`` and
``sample``, ``feature_expectations`` and ``log_partition``), so the code that uses priors is tested
against brute force. Tests put it in the engine registry under the default engine's name with
:func:`use_stand_in`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest

from battlelog.engines import ENGINES, Engine, Marginals
from battlelog.errors import Inconsistent
from battlelog.rules.geometry import Placement
from battlelog.rules.prior import FEATURES
from battlelog.rules.state import GameState

import oracle

#: The largest board (in layouts) the stand-in takes.
MAX_LAYOUTS = 200_000


@cache
def _table(rows: int, cols: int, ships: tuple[int, ...], touch: str) -> tuple[oracle.Layouts, np.ndarray]:
    """The oracle's layouts and each one's (edge, vertical, touch), written from the spec."""
    table = oracle.layouts(rows, ships, touch, cols=cols)
    assert len(table) <= MAX_LAYOUTS
    features = np.stack([np.log(oracle.layout_weights(table, **{name: 1.0})) for name in ("edge", "vertical", "touch")], axis=1)
    return table, np.rint(features)


class StandInEngine(Engine):
    """Exact weighted posterior by enumeration (small boards only)."""

    name = "native"
    counts_models = True
    gives_placements = True
    samples = True
    weighs_priors = True

    def __init__(self, **options: Any) -> None:
        self.calls = 0

    def _posterior(self, state: GameState) -> tuple[oracle.Layouts, np.ndarray, np.ndarray, np.ndarray]:
        """The table, the consistent layouts' indices, their normalised weights and their features."""
        self.calls += 1
        config = state.config
        table, features = _table(config.rows, config.cols, config.ships, config.rules.touch)
        shots = [(shot.cell, (shot.result, shot.ship)) for shot in state.shots]
        chosen = oracle.posterior(table, shots, config.rules.sinks)
        if not len(chosen):
            raise Inconsistent("no layout fits")
        log_w = features[chosen] @ np.array(config.effective_prior.theta)
        return table, chosen, log_w, features[chosen]

    def marginals(self, state: GameState) -> Marginals:
        table, chosen, log_w, _ = self._posterior(state)
        w = np.exp(log_w - log_w.max())
        w /= w.sum()
        cells = (w[:, None] * (table.owner[chosen] >= 0)).sum(axis=0).reshape(table.size, table.cols)
        placements = []
        for i in range(len(state.ships)):
            index = {(p.length, p.row, p.col, p.horizontal or p.length == 1): k for k, p in enumerate(state.config.placements(i))}
            out = np.zeros(len(index))
            for weight, k in zip(w, chosen):
                out[index[table.spots[k][i]]] += weight
            placements.append(out)
        return Marginals(cells, len(chosen), tuple(placements))

    def sample(self, state: GameState, count: int, rng: np.random.Generator) -> list[tuple[Placement, ...]]:
        table, chosen, log_w, _ = self._posterior(state)
        w = np.exp(log_w - log_w.max())
        picks = rng.choice(chosen, size=count, p=w / w.sum())
        return [tuple(Placement(i, *spot) for i, spot in enumerate(table.spots[k])) for k in picks]

    def feature_expectations(self, state: GameState, features: tuple[str, ...] = FEATURES) -> np.ndarray:
        _, _, log_w, values = self._posterior(state)
        w = np.exp(log_w - log_w.max())
        return np.asarray((w / w.sum()) @ values)[[FEATURES.index(f) for f in features]]

    def log_partition(self, state: GameState) -> float:
        _, _, log_w, _ = self._posterior(state)
        top = log_w.max()
        return float(top + np.log(np.exp(log_w - top).sum()))


def use_stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the default engine's name build the stand-in for the rest of the test (this process only)."""
    monkeypatch.setitem(ENGINES, "native", "prior_engine:StandInEngine")
