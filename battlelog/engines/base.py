"""The engine interface: a game state in, the occupancy marginal of every cell out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from battlelog.errors import BattlelogError, Inconsistent, StateError
from battlelog.rules.answers import HIT_CODE, MISS_CODE, SUNK_CODE
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement, cell_name
from battlelog.rules.state import GameState
from battlelog.rules.variants import NAMED, SILENT, UNNAMED


@dataclass(frozen=True)
class Marginals:
    """What an engine knows of the posterior of one state.

    ``cells[r, c]`` is the probability that a ship covers (r, c); ``models`` counts the layouts
    consistent with the state (None where the engine does not count). ``placements[i][k]``, where
    the engine gives it, is the probability that ship i lies at ``config.placements(i)[k]``: the
    finer posterior that answer probabilities, samplers and lookahead players need.
    """

    cells: np.ndarray
    models: int | None = None
    placements: tuple[np.ndarray, ...] | None = None

    def answers(self, state: GameState) -> np.ndarray:
        """``out[r, c, a]``: the probability that a shot at (r, c) is answered ``a``.

        ``a`` is an answer code (``battlelog.rules.answers``): 0 miss, 1 a hit that sinks nothing, and
        by the sink rule ``2 + i`` "sunk ship i" (``named``), ``2`` "sunk" (``unnamed``), nothing more
        (``silent``: a sinking shot is answered "hit"). A shot at x sinks a ship exactly when the ship
        lies on x and the rest of its cells are already hit, so these follow from the placement
        marginals. Cells already shot are all zero.
        """
        if self.placements is None:
            raise BattlelogError("this engine gives no placement marginals, so no answer probabilities")
        ships, sinks = len(state.ships), state.config.rules.sinks
        out = np.zeros((state.rows, state.cols, SUNK_CODE + {NAMED: ships, UNNAMED: 1, SILENT: 0}[sinks]))
        hits = state.hits
        for ship in range(ships) if sinks != SILENT else ():
            code = SUNK_CODE + (ship if sinks == NAMED else 0)
            for p, probability in zip(state.config.placements(ship), self.placements[ship]):
                if probability == 0.0:
                    continue
                unhit = [cell for cell in p.cells if cell not in hits]
                if len(unhit) == 1:
                    out[unhit[0]][code] += probability
        out[:, :, MISS_CODE] = 1.0 - self.cells
        out[:, :, HIT_CODE] = self.cells - out[:, :, SUNK_CODE:].sum(axis=2)
        for cell in state.shot_cells:
            out[cell] = 0.0
        return np.clip(out, 0.0, 1.0)

    def to_json(self) -> dict[str, Any]:
        """The spec's marginals format: ``rows`` and ``cols``, and ``size`` too when the board is square."""
        rows, cols = (int(n) for n in self.cells.shape)
        return {
            **({"size": rows} if rows == cols else {}),
            "rows": rows,
            "cols": cols,
            "models": None if self.models is None else int(self.models),
            "cells": [[float(v) for v in row] for row in self.cells],
        }


class Engine(ABC):
    """Computes exact occupancy marginals of the spec's model for any game state.

    Engines may cache work across calls (for example across the moves of one game) but must give
    the same answer as a fresh engine for every state. Every engine's constructor takes a
    ``workspace`` keyword (:class:`battlelog.engines.workspace.Workspace`): where what it remembers
    beyond one game lives; an engine given none makes its own.
    """

    name: ClassVar[str]
    #: Whether ``Marginals.models`` is filled in (the number of layouts consistent with the state).
    counts_models: ClassVar[bool] = False

    #: Whether ``Marginals.placements`` is filled in (and so ``Marginals.answers`` can be asked).
    gives_placements: ClassVar[bool] = False

    #: Whether, under the uniform prior, every probability in ``Marginals`` is an integer count divided by
    #: ``models`` and rounded once, so that counts can be read back from it (:mod:`battlelog.engines.remainder`).
    exact_ratios: ClassVar[bool] = False

    #: Whether :meth:`sample` draws layouts.
    samples: ClassVar[bool] = False

    #: Whether :meth:`sample` also takes one generator per layout (``count`` of them), drawing for each the
    #: layout a draw of one from it alone would (:meth:`sample_each`).
    samples_together: ClassVar[bool] = False

    #: Whether a prior other than the uniform one (``config.prior``) is weighed; an engine that does not
    #: refuses such a state in one line (:func:`check_prior_support`) rather than answer as if uniform.
    weighs_priors: ClassVar[bool] = False

    #: Whether row and column tallies (``state.row_counts``, ``state.col_counts``) are weighed as evidence; an engine that
    #: does not refuses a state with tallies in one line (:func:`check_tally_support`) rather than answer as if it had none.
    weighs_tallies: ClassVar[bool] = False

    @classmethod
    def check_board(cls, config: GameConfig) -> None:
        """Refuse, in one line and without building anything, a board this engine cannot count (by default
        it counts every board, given time and memory): players ask before the first game."""

    @abstractmethod
    def marginals(self, state: GameState) -> Marginals:
        """Exact marginals of ``state``; raises :class:`Inconsistent` when no layout fits it."""

    def sample(self, state: GameState, count: int, rng: np.random.Generator) -> list[tuple[Placement, ...]]:
        """``count`` layouts drawn independently and uniformly from those consistent with ``state``."""
        raise BattlelogError(f"the {self.name} engine cannot draw layouts; use an engine that samples")

    def sample_each(self, state: GameState, rngs: Sequence[np.random.Generator]) -> list[tuple[Placement, ...]]:
        """One layout per generator: the one ``sample(state, 1, rng)`` draws from it (an experiment's boards,
        each from its game's generator). An engine whose ``sample`` takes a generator per layout
        (``samples_together``) draws them in one walk through the model, the same layouts."""
        if self.samples_together:
            return self.sample(state, len(rngs), rngs) if rngs else []  # type: ignore[arg-type]  # such an engine's sample takes a sequence
        return [self.sample(state, 1, rng)[0] for rng in rngs]

    def sample_owners(self, state: GameState, count: int, rng: np.random.Generator) -> np.ndarray:
        """The layouts :meth:`sample` draws, as ``owner[s, x]`` (:func:`layout_owners`); an engine may draw
        the same ones without building their placements, for players that read thousands a move."""
        return layout_owners(state.config, self.sample(state, count, rng))

    def close(self) -> None:
        """Release the compiled models the engine holds (what its workspace holds is the workspace's)."""


def layout_owners(config: GameConfig, layouts: list[tuple[Placement, ...]]) -> np.ndarray:
    """``owner[s, x]``: the ship of layout s on row-major cell x, or -1."""
    owners = np.full((len(layouts), config.cell_count), -1, dtype=np.int64)
    for s, layout in enumerate(layouts):
        for placement in layout:
            for r, c in placement.cells:
                owners[s, r * config.cols + c] = placement.ship
    return owners


def check_prior_support(engine: type[Engine] | Engine, config: GameConfig) -> None:
    """Refuse, in one line, a configuration whose prior ``engine`` does not weigh."""
    if not engine.weighs_priors and not config.effective_prior.is_uniform:
        raise BattlelogError(f"the {engine.name} engine does not weigh priors yet: it cannot answer {config.label()}")


def check_tally_support(engine: type[Engine] | Engine, state: GameState) -> None:
    """Refuse, in one line, a state with tallies that ``engine`` does not weigh."""
    if state.tallied and not engine.weighs_tallies:
        raise BattlelogError(
            f"the {engine.name} engine does not weigh tallies (row_counts, col_counts) yet: use the native or problog engine"
        )


def locate_fault(state: GameState, engine: Engine, source: str | None = None) -> StateError:
    """The error for an inconsistent state, naming the first shot after which no layout fits, and the
    file the state came from (``source``) when it came from one.

    Scans prefixes in order (consistency of prefixes need not be monotone, so no bisection); only
    called on the error path. Tallies are given before any shot: every prefix keeps them, and when they
    leave no layout on their own, the error says so instead of blaming a shot.
    """
    where = "" if source is None else f"{source}: "
    if state.tallied:
        try:
            engine.marginals(state.prefix(0))
        except Inconsistent as exc:
            fleet = ",".join(map(str, state.ships))
            return StateError(f"{where}contradictory state: the tallies leave no layout of fleet {fleet} ({exc})")
    if state.shots:
        for count in range(1, len(state.shots) + 1):
            try:
                engine.marginals(state.prefix(count))
            except Inconsistent as exc:
                shot = state.shots[count - 1]
                answer = shot.result + (f" ship {shot.ship}" if shot.ship is not None else "")
                evidence = "the answers and the tallies" if state.tallied else "the answers"
                return StateError(
                    f"{where}contradictory state: shot {count} ({cell_name(shot.cell)}, {answer}) leaves no layout "
                    f"of fleet {','.join(map(str, state.ships))} consistent with {evidence} ({exc})"
                )
    return StateError(f"{where}contradictory state: no layout fits the state")
