"""The rendered ProbLog program, read back with ProbLog's own parser.

Each test rebuilds what the program must say from the game state by itself (placements, cells,
answers) and compares it with the clauses ProbLog parses, so template mistakes show up as wrong
facts, not as string differences.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from problog.logic import Clause, Or, Term
from problog.program import PrologString

from battlelog.model.render import PROGRAM_TEMPLATE, render_program
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.templating import template_dir

from engine_cases import hand_cases, shots

MID_GAME = shots(GameConfig(5, (3, 3, 2)), "C4 hit", "C5 sunk 2", "A1 miss", "B4 hit")


def parsed(state: GameState) -> list[Term]:
    return list(PrologString(render_program(state)))


def facts(state: GameState, functor: str) -> list[tuple]:
    """The arguments of every fact ``functor(...)`` in the program, as Python values."""
    return [
        tuple(a.value if a.is_constant() and isinstance(a.value, int) else str(a) for a in t.args)
        for t in parsed(state)
        if type(t) is Term and t.functor == functor
    ]


def evidence(state: GameState) -> set[tuple[str, str]]:
    """Ground evidence facts as (atom, value) strings; the derived per-cell no-overlap rule is a clause."""
    return {(str(t.args[0]), str(t.args[1])) for t in parsed(state) if type(t) is Term and t.functor == "evidence"}


def test_templates_ship_in_the_repo_and_in_the_package(tmp_path: Path) -> None:
    assert (template_dir() / PROGRAM_TEMPLATE).is_file()
    package = tmp_path / "battlelog"
    package.mkdir()
    assert template_dir(package) == tmp_path / "templates"  # editable checkout: top-level templates/
    (package / "templates").mkdir()
    assert template_dir(package) == package / "templates"  # installed wheel: battlelog/templates


@pytest.mark.parametrize("state", [GameState.empty(GameConfig(4, (3, 2, 1))), MID_GAME], ids=["empty", "mid-game"])
def test_one_annotated_disjunction_per_ship_with_equal_weights(state: GameState) -> None:
    disjunctions = [t for t in parsed(state) if isinstance(t, Or)]
    assert len(disjunctions) == len(state.ships)
    for ship, disjunction in enumerate(disjunctions):
        heads = disjunction.to_list()
        placements = state.config.placements(ship)
        assert {(int(h.args[0]), int(h.args[1]), int(h.args[2]), str(h.args[3])) for h in heads} == {
            (ship, p.row, p.col, p.orientation) for p in placements
        }
        assert len(heads) == len(placements)
        for head in heads:
            assert head.functor == "place"
            assert Fraction(str(head.probability)) == Fraction(1, len(placements))


def test_covers_lists_every_cell_of_every_placement() -> None:
    config = MID_GAME.config
    expected = {
        (ship, p.row, p.col, p.orientation, r, c)
        for ship in range(len(config.ships))
        for p in config.placements(ship)
        for r, c in p.cells
    }
    listed = facts(MID_GAME, "covers")
    assert len(listed) == len(expected) and set(listed) == expected


def test_shots_are_listed_in_order_with_their_answers() -> None:
    assert facts(MID_GAME, "shot") == [(1, 2, 3, "hit"), (2, 2, 4, "sunk(2)"), (3, 0, 0, "miss"), (4, 1, 3, "hit")]


def test_evidence_states_every_answer_and_every_afloat_ship() -> None:
    assert evidence(MID_GAME) == {
        ("occupied(2,3)", "true"),
        ("occupied(2,4)", "true"),
        ("sunk_on(2,2,2,4)", "true"),  # ship 2 sunk by shot 2 at C5
        ("occupied(0,0)", "false"),
        ("occupied(1,3)", "true"),
        ("inside_hits(0,4)", "false"),  # ships 0 and 1 are not inside H_4
        ("inside_hits(1,4)", "false"),
    }


def test_no_overlap_is_evidence_on_every_cell() -> None:
    rules = [t for t in parsed(MID_GAME) if isinstance(t, Clause) and t.head.functor == "evidence"]
    assert [str(r) for r in rules] == ["evidence(clash(R,C),false) :- cell(R,C)"]


def test_queries_are_exactly_the_unshot_cells() -> None:
    queries = [t.args[0] for t in parsed(MID_GAME) if type(t) is Term and t.functor == "query"]
    assert all(q.functor == "occupied" for q in queries)
    assert [(int(q.args[0]), int(q.args[1])) for q in queries] == list(MID_GAME.unshot)


def test_empty_board_has_no_shots_and_no_answer_evidence() -> None:
    state = GameState.empty(GameConfig(4, (3, 2, 2)))
    assert facts(state, "shot") == []
    assert evidence(state) == set()
    assert len([t for t in parsed(state) if type(t) is Term and t.functor == "query"]) == 16


def test_comments_name_cells_as_people_do() -> None:
    text = render_program(hand_cases()[1].state)
    assert "shot(2, 0, 1, sunk(0)).  % A2" in text
    assert "evidence(occupied(0, 2), true).  % shot 3: A3 hit" in text
    assert "query(occupied(2, 2)).  % C3" in text
