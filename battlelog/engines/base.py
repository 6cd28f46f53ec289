"""The engine interface: a game state in, the occupancy marginal of every cell out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from battlelog.errors import StateError
from battlelog.game import cell_name
from battlelog.state import GameState


@dataclass(frozen=True)
class Marginals:
    """``cells[r, c]`` is the posterior probability that a ship covers (r, c); ``models`` counts layouts."""

    cells: np.ndarray
    models: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The spec's marginals format."""
        return {
            "size": int(self.cells.shape[0]),
            "models": None if self.models is None else int(self.models),
            "cells": [[float(v) for v in row] for row in self.cells],
        }


class Inconsistent(StateError):
    """No layout satisfies the evidence of a state (raised by engines, located by locate_fault)."""


class Engine(ABC):
    """Computes exact occupancy marginals of the spec's model for any game state.

    Engines may cache work across calls (for example across the moves of one game) but must give
    the same answer as a fresh engine for every state.
    """

    name: ClassVar[str]
    #: Whether ``Marginals.models`` is filled in (the number of layouts consistent with the state).
    counts_models: ClassVar[bool] = False

    @abstractmethod
    def marginals(self, state: GameState) -> Marginals:
        """Exact marginals of ``state``; raises :class:`Inconsistent` when no layout fits it."""

    def close(self) -> None:
        """Release caches and compiled models."""


def locate_fault(state: GameState, engine: Engine) -> StateError:
    """The error for an inconsistent state, naming the first shot after which no layout fits.

    Scans prefixes in order (consistency of prefixes need not be monotone, so no bisection); only
    called on the error path.
    """
    if state.shots:
        for count in range(1, len(state.shots) + 1):
            try:
                engine.marginals(state.prefix(count))
            except Inconsistent as exc:
                shot = state.shots[count - 1]
                answer = shot.result + (f" ship {shot.ship}" if shot.ship is not None else "")
                return StateError(
                    f"contradictory state: shot {count} ({cell_name(shot.cell)}, {answer}) leaves no layout "
                    f"of fleet {','.join(map(str, state.ships))} consistent with the answers ({exc})"
                )
    return StateError("contradictory state: no layout fits the state")
