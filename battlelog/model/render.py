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

Every rule variant (docs/rules.md) is written in the templates, which choose their clauses by the
rules' names in the context.
"""

from __future__ import annotations

from typing import Any

from battlelog.rules.config import format_ships
from battlelog.rules.geometry import cell_name
from battlelog.rules.state import GameState
from battlelog.rules.variants import NAMED
from battlelog.templating import environment

#: The template that renders a whole program; it includes the others.
PROGRAM_TEMPLATE = "battleship.pl.j2"


def program_context(state: GameState) -> dict[str, Any]:
    """The plain data the templates render: numbers, names and lists, no ProbLog syntax.

    ``rules`` holds the names of the touch and sink rules, by which the templates choose what to
    write; ``afloat`` (the ships not announced sunk) is known, and listed, only when sinks are named."""
    config = state.config
    rules = config.rules
    return {
        "rows": config.rows,
        "cols": config.cols,
        "rules": {"touch": rules.touch, "sinks": rules.sinks},
        "fleet": format_ships(config.ships),
        "ships": [
            {
                "id": ship,
                "length": length,
                "placements": [
                    {
                        "row": p.row,
                        "col": p.col,
                        "orientation": p.orientation,
                        "cells": [{"row": r, "col": c} for r, c in p.cells],
                    }
                    for p in config.placements(ship)
                ],
            }
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
        "unshot": [{"row": r, "col": c, "name": cell_name((r, c))} for r, c in state.unshot],
    }


def render_program(state: GameState) -> str:
    """The ProbLog program of ``state``: its queries are ``occupied(Row, Col)`` for every unshot cell."""
    return environment().get_template(PROGRAM_TEMPLATE).render(program_context(state))
