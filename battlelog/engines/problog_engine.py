"""The ``problog`` engine: exact marginals through ProbLog's own pipeline, nothing custom.

Render the state's program (battlelog.model.render), ground it with evidence propagation, compile the
ground program to an SDD with ``get_evaluatable("sdd")`` and evaluate every query: the same steps,
with the same options, as ``problog program.pl`` on the command line, so the two agree. (Propagation
is there to mirror the command line; on this encoding it neither helps nor hurts measurably.)
This is the baseline the custom ``sdd`` engine is measured against, so it deliberately uses only
ProbLog's public pipeline; its speed comes from the encoding (see templates/rules.pl.j2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from problog import get_evaluatable
from problog.errors import InconsistentEvidenceError
from problog.logic import Term
from problog.program import PrologString

from battlelog.engines import progress
from battlelog.engines.base import Engine, Marginals
from battlelog.engines.workspace import Workspace
from battlelog.errors import Inconsistent
from battlelog.model.render import render_program
from battlelog.rules.state import GameState


class ProblogEngine(Engine):
    """Renders, grounds, compiles and evaluates one program per state (no caching across states)."""

    name = "problog"
    weighs_priors = True  # the program writes the prior as weights (templates/fleet.pl.j2, rules.pl.j2)
    weighs_tallies = True  # a count constraint per given line (templates/evidence.pl.j2)

    def __init__(self, workspace: Workspace | None = None) -> None:
        """Every engine takes a workspace (:meth:`Workspace.engine` builds them all alike); this one
        remembers nothing between states, so it keeps none."""

    def marginals(self, state: GameState) -> Marginals:
        """Occupancy marginals of ``state``; ``models`` is None (ProbLog does not report a count)."""
        with progress.busy(f"problog engine, {state.config.label()}"):
            return Marginals(board_from_queries(state, evaluate_program(render_program(state))))


def evaluate_program(program: str) -> dict[Term, float]:
    """Probabilities of the program's queries given its evidence, by ProbLog's SDD pipeline.

    ProbLog notices evidence of probability 0 either while propagating it during grounding or
    while weighing it after compilation; both raise InconsistentEvidenceError.
    """
    try:
        formula = get_evaluatable("sdd").create_from(PrologString(program), propagate_evidence=True)
        probabilities: dict[Any, float] = formula.evaluate()
        return probabilities
    except InconsistentEvidenceError:
        raise Inconsistent("ProbLog finds that the evidence has probability 0") from None


def board_from_queries(state: GameState, results: Mapping[Term, float]) -> np.ndarray:
    """The R x C board: the answers to ``occupied(R, C)`` for unshot cells, 1 for hits, 0 for misses."""
    answered = {(int(term.args[0]), int(term.args[1])): float(p) for term, p in results.items()}
    if answered.keys() != set(state.unshot):
        raise RuntimeError("ProbLog's answers do not match the cells the program queried")
    cells = np.zeros((state.rows, state.cols))
    for cell in state.hits:
        cells[cell] = 1.0
    for cell, probability in answered.items():
        cells[cell] = probability
    return cells
