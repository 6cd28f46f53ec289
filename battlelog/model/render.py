"""Render a game state as one self-contained ProbLog program.

All ProbLog text lives in the Jinja templates (``templates/battleship.pl.j2`` and its includes);
this module only gathers what they loop over: the fleet with each ship's canonical placements,
the shots with their answers, the ships still afloat and the cells not shot yet.

Two choices in the templates decide how fast ProbLog's stock pipeline runs on the program: the
cells of each placement are listed as ``covers`` facts (ProbLog grounds them faster than arithmetic
rules that compute them), and "no overlap" is evidence on one ``clash`` atom per cell rather than
on a single ``overlap`` atom, so that ProbLog conjoins many small constraints instead of negating
one large disjunction: by far the larger gain, more than tenfold on 5x5 boards. The touch rules
follow the same style: one ``contact`` atom per pair of neighbouring cells.

A prior other than the uniform one (docs/rules.md, "Priors") is written as weights: ``edge`` and
``vertical`` belong to one placement each, so they become the placements' probabilities in their
ship's annotated disjunction (its weight over the sum of the ship's weights); ``touch`` belongs to
pairs of cells, so it becomes one probabilistic fact and one evidence atom per pair of side-adjacent
cells (templates/rules.pl.j2 explains the construction).

Every rule variant (docs/rules.md) is written in the templates, which choose their clauses by the
rules' names in the context.
"""

from __future__ import annotations

import math
from typing import Any

from battlelog.rules.config import format_ships
from battlelog.rules.geometry import Placement, cell_name
from battlelog.rules.line_counts import Tallies
from battlelog.rules.prior import Prior, placement_log_weight
from battlelog.rules.state import GameState
from battlelog.rules.variants import NAMED
from battlelog.templating import environment

#: The template that renders a whole program; it includes the others.
PROGRAM_TEMPLATE = "battleship.pl.j2"


def program_context(state: GameState) -> dict[str, Any]:
    """The plain data the templates render: numbers, names and lists, no ProbLog syntax.

    ``rules`` holds the names of the touch and sink rules, by which the templates choose what to
    write; ``afloat`` (the ships not announced sunk) is known, and listed, only when sinks are named; ``tallies`` lists the
    rows and the columns whose number of ship cells is given (templates/evidence.pl.j2 writes each as a count constraint).
    ``prior`` is the prior as it weighs this board's layouts (no ``touch`` where ships never meet along
    a side); a ship is ``weighted`` when its placements' weights differ, and then each placement has
    its log-weight and the ship the sum of its weights (``total``); ``touch_factor`` is exp(-|touch|),
    the probability of the fact a side pair pays (templates/rules.pl.j2)."""
    config = state.config
    rules = config.rules
    prior = config.effective_prior
    return {
        "rows": config.rows,
        "cols": config.cols,
        "rules": {"touch": rules.touch, "sinks": rules.sinks},
        "prior": {
            "uniform": prior.is_uniform, "text": prior.text(), "touch_factor": math.exp(-abs(prior.touch)), **prior.to_json(),
        },
        "fleet": format_ships(config.ships),
        "ships": [
            _ship(ship, length, config.placements(ship), prior, config.rows, config.cols)
            for ship, length in enumerate(config.ships)
        ],
        "shots": [
            {
                "number": t + 1,
                "row": shot.row,
                "col": shot.col,
                "name": cell_name(shot.cell),
                "result": shot.result,
                "ship": shot.ship,
            }
            for t, shot in enumerate(state.shots)
        ],
        "afloat": list(state.afloat) if rules.sinks == NAMED else [],
        "tallies": {
            "rows": [{"index": r, "count": k, "name": chr(ord("A") + r)} for r, k in _given(state.row_counts)],
            "cols": [{"index": c, "count": k, "name": str(c + 1)} for c, k in _given(state.col_counts)],
        },
        "unshot": [{"row": r, "col": c, "name": cell_name((r, c))} for r, c in state.unshot],
    }


def _given(counts: Tallies | None) -> list[tuple[int, int]]:
    """The lines whose tally is given, with it."""
    return [(k, count) for k, count in enumerate(counts or ()) if count is not None]


def _ship(ship: int, length: int, placements: tuple[Placement, ...], prior: Prior, rows: int, cols: int) -> dict[str, Any]:
    """One ship and its placements; under ``prior`` each placement's log-weight, edge x its cells on the
    outer ring + vertical x [it lies vertically] (its own part of a layout's theta . f)."""
    logs = [placement_log_weight(prior, p, rows, cols) for p in placements]
    return {
        "id": ship,
        "length": length,
        "weighted": len(set(logs)) > 1,
        "total": math.fsum(math.exp(w) for w in logs),
        "placements": [
            {
                "row": p.row,
                "col": p.col,
                "orientation": p.orientation,
                "cells": [{"row": r, "col": c} for r, c in p.cells],
                "log_weight": w,
            }
            for p, w in zip(placements, logs)
        ],
    }


def render_program(state: GameState) -> str:
    """The ProbLog program of ``state``: its queries are ``occupied(Row, Col)`` for every unshot cell."""
    return environment().get_template(PROGRAM_TEMPLATE).render(program_context(state))
