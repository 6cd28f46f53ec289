"""Every rule variant in the ProbLog program, checked against the independent oracle (tests/oracle.py).

- the program says each rule as it should: ``contact`` evidence on one atom per pair of neighbouring
  cells (side neighbours under ``diagonal``, all eight under ``none``), ``sunk_at`` evidence on every
  hit under ``unnamed``, no sink evidence under ``silent``;
- the ``problog`` engine's cell marginals equal the oracle's to 1e-9 on the worked examples of
  docs/rules.md and on random consistent states of 4x4 boards under every touch rule and sink rule
  (a few per variant here, every eighth of the 80 in the slow test, all of them with
  ``BATTLELOG_EVERY_STATE=1``: each state grounds and compiles a program, one to three seconds);
- ``battlelog script`` of a state with rules, run by the stock ``problog`` command, prints the same
  marginals (to its 8 significant digits).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from problog.formula import LogicFormula
from problog.program import PrologString
from test_problog_engine import run_stock_problog
from test_variant_oracle import variant_states

from battlelog.cli import main
from battlelog.engines import make_engine
from battlelog.engines.solve import solve
from battlelog.errors import Inconsistent, StateError
from battlelog.model.render import render_program
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState, Shot
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules

import oracle
from oracle_states import EVERY_STATE

ENGINE = make_engine("problog")
VARIANTS = [(touch, sinks) for touch in TOUCH_RULES for sinks in SINK_RULES]
IDS = [f"{touch}-{sinks}" for touch, sinks in VARIANTS]


def state_of(size: int, ships: tuple[int, ...], rules: Rules, *shots: tuple[int, int, str]) -> GameState:
    return GameState(GameConfig(size, ships, rules), tuple(Shot(r, c, result) for r, c, result in shots))


def evidence_atoms(state: GameState) -> list[str]:
    """The ground evidence atoms of the program, as ProbLog grounds them (without propagation)."""
    formula = LogicFormula.create_from(PrologString(render_program(state)))
    return [str(name) for name, _ in formula.evidence()]


def assert_equals_oracle(state: GameState, chosen: np.ndarray | None = None) -> None:
    """The problog engine's cell marginals against the oracle's posterior (computed here unless given)."""
    touch, sinks = state.config.rules.touch, state.config.rules.sinks
    table = oracle.layouts(state.size, state.ships, touch)
    if chosen is None:
        answers = [((s.row, s.col), (s.result, s.ship)) for s in state.shots]
        chosen = oracle.posterior(table, answers, sinks)
    where = f"{state.config.label()} {state.to_json()['shots']}"
    np.testing.assert_allclose(
        ENGINE.marginals(state).cells, oracle.cell_marginals(table, chosen), rtol=0, atol=1e-9, err_msg=where
    )


# ---- What the program says ---------------------------------------------------------------------


@pytest.mark.parametrize(("touch", "pairs"), [("allowed", 0), ("diagonal", 12), ("none", 20)])
def test_contact_is_evidence_on_one_atom_per_pair_of_neighbouring_cells(touch: str, pairs: int) -> None:
    # 3x3: 6 + 6 side pairs, and 4 + 4 corner pairs.
    atoms = [a for a in evidence_atoms(GameState.empty(GameConfig(3, (1, 1), Rules(touch=touch)))) if a.startswith("contact(")]
    assert len(atoms) == len(set(atoms)) == pairs
    steps = {(int(r2) - int(r1), int(c2) - int(c1)) for r1, c1, r2, c2 in (a[len("contact("):-1].split(",") for a in atoms)}
    assert steps == {"allowed": set(), "diagonal": {(0, 1), (1, 0)}, "none": {(0, 1), (1, 0), (1, 1), (1, -1)}}[touch]


def test_the_standard_program_has_no_contact_and_no_rules_line() -> None:
    text = render_program(GameState.empty(GameConfig(3, (2, 1))))
    assert "contact" not in text and "step(" not in text and "%% Rules:" not in text and "sunk_at" not in text


def test_unnamed_sinks_are_evidence_on_whichever_ship_covers_the_cell() -> None:
    state = state_of(3, (2, 1), Rules(sinks="unnamed"), (0, 0, "hit"), (2, 2, "miss"), (0, 1, "sunk"))
    atoms = set(evidence_atoms(state))
    assert {"sunk_at(1,0,0)", "sunk_at(3,0,1)"} <= atoms  # the hit at A1, the sink at A2
    assert not any(a.startswith(("sunk_on(", "inside_hits(")) for a in atoms)
    text = render_program(state)
    assert "evidence(sunk_at(1, 0, 0), false).  % shot 1 did not sink the ship covering A1" in text
    assert "evidence(sunk_at(3, 0, 1), true).  % shot 3 sank the ship covering A2" in text
    assert "shot(3, 0, 1, sunk).  % A2" in text


def test_silent_games_have_no_sink_evidence() -> None:
    state = state_of(3, (2, 1), Rules(sinks="silent"), (0, 0, "hit"), (0, 1, "hit"), (2, 2, "miss"))
    atoms = evidence_atoms(state)
    assert not any(a.startswith(("sunk", "inside_hits(")) for a in atoms)
    assert {"occupied(0,0)", "occupied(0,1)", "occupied(2,2)"} <= set(atoms)
    lines = render_program(state).splitlines()
    assert not any("sunk" in line or "inside_hits" in line for line in lines if line.startswith(("evidence(", "shot(")))


# ---- The marginals equal the oracle's ----------------------------------------------------------


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize(
    ("sinks", "shots"),
    [
        ("named", [(0, 0, "hit"), (0, 1, "sunk")]),  # docs/rules.md: 7 layouts (touching allowed)
        ("unnamed", [(0, 0, "hit"), (0, 1, "sunk")]),  # 8 layouts
        ("silent", [(0, 0, "hit"), (0, 1, "hit")]),  # 10 layouts
        ("unnamed", [(1, 1, "sunk"), (0, 1, "miss")]),
        ("silent", [(1, 1, "hit")]),
    ],
)
def test_worked_examples_on_3x3(touch: str, sinks: str, shots: list[tuple[int, int, str]]) -> None:
    rules = Rules(touch=touch, sinks=sinks)
    if sinks == "named":
        state = GameState(
            GameConfig(3, (2, 1), rules), tuple(Shot(r, c, result, 0 if result == "sunk" else None) for r, c, result in shots)
        )
    else:
        state = state_of(3, (2, 1), rules, *shots)
    table = oracle.layouts(3, (2, 1), touch)
    answers = [((s.row, s.col), (s.result, s.ship)) for s in state.shots]
    chosen = oracle.posterior(table, answers, sinks)
    if touch == "allowed" and len(shots) == 2 and shots[0] == (0, 0, "hit"):
        assert len(chosen) == {"named": 7, "unnamed": 8, "silent": 10}[sinks]
    if len(chosen):
        assert_equals_oracle(state, chosen)
        return
    # No layout fits (e.g. no contact: a sunk 1 on B2 leaves no room for the 2): the engine refuses the
    # state, and the one line people see names the first shot after which the oracle has no layout left.
    with pytest.raises(Inconsistent):
        ENGINE.marginals(state)
    first = next(k for k in range(1, len(answers) + 1) if not len(oracle.posterior(table, answers[:k], sinks)))
    with pytest.raises(StateError) as refused:
        solve(state, ENGINE)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"contradictory state: shot {first} ("), message


def sample(touch: str, sinks: str, per_fleet: int) -> list[tuple[GameState, np.ndarray]]:
    """``per_fleet`` states of each 4x4 fleet of tests/test_variant_oracle.py (3,2,1 and 2,2,1,1), spread
    over its list."""
    states = [s for s in variant_states(sinks, touch) if s[0].size == 4]
    fleets = sorted({s.ships for s, _ in states})
    out = []
    for ships in fleets:
        mine = [s for s in states if s[0].ships == ships]
        out += [mine[k] for k in np.linspace(0, len(mine) - 1, per_fleet).astype(int)]
    return out


@pytest.mark.parametrize(("touch", "sinks"), VARIANTS, ids=IDS)
def test_problog_equals_the_oracle(touch: str, sinks: str) -> None:
    for state, chosen in sample(touch, sinks, 2):
        assert_equals_oracle(state, chosen)


@pytest.mark.slow
@pytest.mark.parametrize(("touch", "sinks"), VARIANTS, ids=IDS)
def test_problog_equals_the_oracle_on_more_4x4_states(touch: str, sinks: str) -> None:
    states = [s for s in variant_states(sinks, touch) if s[0].size == 4]
    assert len(states) == 80
    for state, chosen in states[:: 1 if EVERY_STATE else 8]:
        assert_equals_oracle(state, chosen)


# ---- The stock problog command answers `battlelog script` --------------------------------------


def script_marginals_match(state: GameState, tmp_path: Path) -> None:
    source, program = tmp_path / "state.json", tmp_path / "state.pl"
    state.dump(source)
    assert main(["script", str(source), "-o", str(program)]) == 0
    printed = run_stock_problog(program.read_text(), program)
    cells = ENGINE.marginals(state).cells
    assert set(printed) == set(state.unshot)
    for cell, probability in printed.items():
        assert abs(probability - cells[cell]) <= 5e-9, cell  # %.8g rounding of values below 1


@pytest.mark.parametrize(("touch", "sinks"), VARIANTS, ids=IDS)
def test_stock_problog_command_answers_the_script(touch: str, sinks: str, tmp_path: Path) -> None:
    state = max((s for s, _ in sample(touch, sinks, 2)), key=lambda s: len(s.shots))  # the most evidence
    script_marginals_match(state, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize(("touch", "sinks"), VARIANTS, ids=IDS)
def test_stock_problog_command_answers_the_script_on_more_states(touch: str, sinks: str, tmp_path: Path) -> None:
    # Each state is a `problog` process (seconds): the middle one of each fleet's three (all three with
    # BATTLELOG_EVERY_STATE=1), not one of the quick test's.
    chosen = sample(touch, sinks, 3)
    for k, (state, _) in enumerate(chosen if EVERY_STATE else chosen[1::3]):
        (tmp_path / str(k)).mkdir()
        script_marginals_match(state, tmp_path / str(k))
