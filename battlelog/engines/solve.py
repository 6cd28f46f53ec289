"""Exact marginals for the commands: a state no layout fits becomes the error naming the shot at fault.

Engines only say that a state is contradictory (:class:`Inconsistent`); people need to know which
of their answers made it so, which :func:`battlelog.engines.locate_fault` finds.
"""

from __future__ import annotations

from battlelog.engines import Engine, Inconsistent, Marginals, locate_fault, make_engine
from battlelog.engines.base import check_tally_support
from battlelog.rules.prior import UNIFORM
from battlelog.rules.state import GameState


def solve(state: GameState, engine: Engine, source: str | None = None) -> Marginals:
    """The engine's marginals; a contradictory state becomes the error naming the first shot at fault
    (and ``source``, the file the state was read from, when there is one); an engine that does not weigh the
    state's tallies refuses it in one line."""
    check_tally_support(engine, state)
    try:
        return engine.marginals(state)
    except Inconsistent:
        raise locate_fault(state, engine, source) from None


def check_consistent(state: GameState, engine_name: str, source: str | None = None) -> None:
    """Refuse a state that no layout satisfies, with the error :func:`solve` gives. Every layout has a
    positive weight under any prior, so the state is checked under the uniform one, which every engine weighs."""
    if not state.shots and not state.tallied:
        return  # the fleet fits the board (GameConfig checks it), so the empty board has layouts
    if not state.config.prior.is_uniform:
        state = GameState(state.config.with_prior(UNIFORM), state.shots, row_counts=state.row_counts, col_counts=state.col_counts)
    engine = make_engine(engine_name)
    try:
        solve(state, engine, source)
    finally:
        engine.close()
