"""The prior over layouts (docs/rules.md, "Priors") in every engine that weighs it, against the oracle.

- the worked examples of docs/rules.md, worked by hand: 3x3 with one ship of 2 under edge=1,
  vertical=-1 (the centre's marginal is 1/(2e + 1)), and 1x3 with two ships of 1 under touch=-1 (the
  middle cell's is 4/(4 + 2e));
- random consistent states under every touch rule and sink rule, on two squares and a rectangle with
  ships of length 1, each under its own random prior (every weight uniform in [-2, 2]): every engine
  whose class weighs priors equals the oracle's weighted marginals (tests/oracle.py) to 1e-9 (cells,
  placements where it gives them, and the unweighted layout count where it counts); the oracle is given
  the whole prior under every touch rule, so that dropping ``touch`` where ships never meet along a side
  is checked too; also a game's moves under two priors, weights near the limit, and the sdd engine
  split over its memory budget. The problog engine on a few (every fourth in the slow test, all with
  ``BATTLELOG_EVERY_STATE=1``), and the stock ``problog`` command on ``battlelog script`` of a state
  under a prior with every weight;
- the program says the prior as the templates' comments say, and the uniform prior adds nothing;
- ``--prior`` on the command line: the weighted marginals, and one-line errors for an unknown feature,
  a weight that is not finite, a prior too strong for the board and a state file with another prior;
  ``compile`` writes the placements' log-weights (a pysdd weighted count with them equals the oracle)
  and refuses a touch weight.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from test_problog_engine import run_stock_problog

from battlelog.cli import main
from battlelog.engines import ENGINES, engine_class, make_engine
from battlelog.model.render import render_program
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState, Shot
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules

import oracle
from oracle_states import EVERY_STATE, oracle_state
from runs import one_line_error

#: The engines whose class says it weighs priors (problog is checked on fewer states: it is slow).
WEIGHING = [name for name in sorted(ENGINES) if engine_class(name).weighs_priors and name != "problog"]
VARIANTS = [(touch, sinks) for touch in TOUCH_RULES for sinks in SINK_RULES]
IDS = [f"{touch}-{sinks}" for touch, sinks in VARIANTS]
#: (rows, cols, fleet, states per rule pair, seed): 14 states per touch and sink rule, 126 in all.
BOARDS = ((4, 4, (2, 1, 1), 6, 31), (3, 3, (2, 1), 4, 32), (3, 4, (2, 1, 1), 4, 33))

Case = tuple[GameState, np.ndarray, np.ndarray]  # a state under its prior, the oracle's posterior, its weights


@cache
def prior_states(touch: str, sinks: str) -> tuple[Case, ...]:
    """Random consistent states on BOARDS, each under a random prior, with the oracle's posterior (indices
    into its layouts) and its layouts' weights under the whole prior.

    The states are drawn as tests/oracle_states.py says."""
    out = []
    for rows, cols, ships, count, seed in BOARDS:
        table = oracle.layouts(rows, ships, touch, cols)
        rng = np.random.default_rng(seed)
        for _ in range(count):
            theta = rng.uniform(-2.0, 2.0, 3)
            config = GameConfig(rows, ships, Rules(touch=touch, sinks=sinks), cols=cols, prior=Prior(*theta))
            state, chosen = oracle_state(config, table, rng)
            out.append((state, chosen, oracle.layout_weights(table, *theta)))
    return tuple(out)


def assert_equals_oracle(name: str, case: Case, engine: object | None = None) -> None:
    state, chosen, weights = case
    table = oracle.layouts(state.rows, state.ships, state.config.rules.touch, state.cols)
    cls = engine_class(name)
    got = (engine or make_engine(name)).marginals(state)  # type: ignore[attr-defined]
    where = f"{name}: {state.config.label()} {state.to_json()['shots']}"
    np.testing.assert_allclose(
        got.cells, oracle.weighted_cell_marginals(table, chosen, weights), rtol=0, atol=1e-9, err_msg=where
    )
    if cls.counts_models:
        assert got.models == len(chosen), where
    if cls.gives_placements:
        expected = oracle.weighted_placement_marginals(table, chosen, weights)
        for i in range(len(state.ships)):
            want = [expected[i].get((p.length, p.row, p.col, p.horizontal), 0.0) for p in state.config.placements(i)]
            np.testing.assert_allclose(got.placements[i], want, rtol=0, atol=1e-9, err_msg=where)


# ---- The worked examples of docs/rules.md, by hand ---------------------------------------------


def test_the_worked_examples_by_hand() -> None:
    """3x3, one ship of 2 under edge=1, vertical=-1: of its 12 placements the 4 across an edge row weigh
    e**2, the 2 across the middle row e, the 4 down an edge column e, the 2 down the middle column 1;
    the centre is covered by the 2 + 2 through the middle: (2e + 2) / (4e**2 + 6e + 2) = 1/(2e + 1).
    1x3, two ships of 1 under touch=-1: 6 layouts, the 4 with the ships side by side weigh 1/e; the
    middle cell is covered in exactly those 4: (4/e) / (4/e + 2) = 4/(4 + 2e)."""
    e = math.e
    table = oracle.layouts(3, (2,))
    centre = oracle.weighted_cell_marginals(table, np.arange(12), oracle.layout_weights(table, 1.0, -1.0))[1, 1]
    assert len(table) == 12 and centre == pytest.approx(1 / (2 * e + 1), abs=1e-12)
    row = oracle.layouts(1, (1, 1), cols=3)
    middle = oracle.weighted_cell_marginals(row, np.arange(6), oracle.layout_weights(row, touch=-1.0))[0, 1]
    assert len(row) == 6 and middle == pytest.approx(4 / (4 + 2 * e), abs=1e-12)
    for name in [*WEIGHING, "problog"]:
        cells = make_engine(name).marginals(GameState.empty(GameConfig(3, (2,), prior=Prior(edge=1.0, vertical=-1.0)))).cells
        assert cells[1, 1] == pytest.approx(1 / (2 * e + 1), abs=1e-9), name
        cells = make_engine(name).marginals(GameState.empty(GameConfig(1, (1, 1), cols=3, prior=Prior(touch=-1.0)))).cells
        assert cells[0, 1] == pytest.approx(4 / (4 + 2 * e), abs=1e-9), name


# ---- Random states under random priors ---------------------------------------------------------


@pytest.mark.parametrize("name", WEIGHING)
@pytest.mark.parametrize(("touch", "sinks"), VARIANTS, ids=IDS)
def test_engines_equal_the_oracle_under_random_priors(name: str, touch: str, sinks: str) -> None:
    cases = prior_states(touch, sinks)
    assert len(cases) == 14 and len({(s.rows, s.cols) for s, _, _ in cases}) == 3
    engine = make_engine(name)  # one engine for every state: its caches must keep priors apart
    for case in cases:
        assert_equals_oracle(name, case, engine)


def test_a_game_under_a_prior_reuses_nothing_of_another_prior() -> None:
    """The sdd engine keeps the last state's SDD for the next move and conditions it: a game's moves
    under one prior (conditioned), then under another, then under both in turn, must each be weighed
    by its own (and the empty board's cache is keyed by the prior too)."""
    case = max(prior_states("allowed", "named"), key=lambda c: len(c[0].shots))
    state, _, _ = case
    table = oracle.layouts(state.rows, state.ships, "allowed", state.cols)
    other = Prior(edge=-1.5, vertical=0.5, touch=1.25)
    moves = range(len(state.shots) + 1)
    order = [(count, state.config.prior) for count in moves] + [(count, other) for count in moves]
    order += [(count, prior) for count in moves for prior in (state.config.prior, other)]
    for name in WEIGHING:
        engine = make_engine(name)
        for count, prior in order:
            prefix = GameState(state.config.with_prior(prior), state.shots[:count])
            answers = [((s.row, s.col), (s.result, s.ship)) for s in prefix.shots]
            chosen = oracle.posterior(table, answers, "named")
            assert_equals_oracle(name, (prefix, chosen, oracle.layout_weights(table, *prior.theta)), engine)


@pytest.mark.parametrize(
    ("touch", "sinks"), [("allowed", "named"), ("allowed", "unnamed"), ("diagonal", "silent"), ("none", "named")]
)
def test_problog_equals_the_oracle_under_random_priors(touch: str, sinks: str) -> None:
    engine = make_engine("problog")
    cases = prior_states(touch, sinks)
    for case in (min(cases, key=lambda c: c[0].config.prior.touch), max(cases, key=lambda c: c[0].config.prior.touch)):
        assert_equals_oracle("problog", case, engine)  # the touch weight's two constructions, where it weighs


@pytest.mark.slow
@pytest.mark.parametrize(("touch", "sinks"), VARIANTS, ids=IDS)
def test_problog_equals_the_oracle_under_more_random_priors(touch: str, sinks: str) -> None:
    engine = make_engine("problog")
    for case in prior_states(touch, sinks)[:: 1 if EVERY_STATE else 4]:
        assert_equals_oracle("problog", case, engine)


def test_weights_near_the_limit_neither_overflow_nor_underflow() -> None:
    """4x4 with ships 3,2,1 under a prior whose log-weights reach 676 of the 700 allowed (edge x 6 ring
    cells, vertical x 2 ships, touch x 24 side pairs), and its negation: still the oracle's marginals."""
    table = oracle.layouts(4, (3, 2, 1))
    shots = (((1, 1), ("hit", None)), ((0, 0), ("miss", None)))
    chosen = oracle.posterior(table, list(shots), "named")
    for theta in ((40.0, -50.0, 14.0), (-40.0, 50.0, -14.0)):
        state = GameState(GameConfig(4, (3, 2, 1), prior=Prior(*theta)), tuple(Shot(*cell, *answer) for cell, answer in shots))
        for name in WEIGHING:
            assert_equals_oracle(name, (state, chosen, oracle.layout_weights(table, *theta)))


def test_the_sdd_engine_split_over_its_budget_weighs_alike() -> None:
    """Over its memory budget the sdd engine counts a problem in parts split on cells, each weighed on
    its own scale (log-mode totals far apart under a strong prior): added up, still the oracle's."""
    from battlelog.engines.frontier import smallest_diagram
    from battlelog.engines.pysdd_setup import BYTES_PER_NODE
    from battlelog.engines.sdd_build import sdd_nodes
    from battlelog.engines.sdd_engine import SddEngine
    from battlelog.model.ground import ground_problem

    table = oracle.layouts(4, (3, 2, 1))
    budget = 1_000_000
    for theta in ((6.0, -3.0, -9.0), (-8.0, 4.0, 7.0)):
        state = GameState(GameConfig(4, (3, 2, 1), prior=Prior(*theta)), (Shot(1, 2, "hit"),))
        assert sdd_nodes(smallest_diagram(ground_problem(state), weigh_touch=True)) * BYTES_PER_NODE > budget  # it must split
        chosen = oracle.posterior(table, [((1, 2), ("hit", None))], "named")
        assert_equals_oracle("sdd", (state, chosen, oracle.layout_weights(table, *theta)), SddEngine(memory_budget=budget))


# ---- What the program says ---------------------------------------------------------------------


def test_the_program_writes_the_prior_as_weights() -> None:
    program = render_program(GameState.empty(GameConfig(3, (2, 1), prior=Prior(edge=1.0, vertical=-0.5, touch=-1.0))))
    assert "%% Prior: edge=1,vertical=-0.5,touch=-1" in program
    assert "exp(2)/" in program and "exp(1.5)/" in program  # across an edge row; down an edge column
    assert "exp(-1)::paid(R1, C1, R2, C2) :- side(R1, C1, R2, C2)." in program
    assert "unpaid(R1, C1, R2, C2) :- both_covered(R1, C1, R2, C2), \\+ paid(R1, C1, R2, C2)." in program
    plain = render_program(GameState.empty(GameConfig(3, (2, 1))))
    assert "exp(" not in plain and "Prior" not in plain and "paid" not in plain and "1/12::place(0, 0, 0, h);" in plain
    # a touch weight where ships never meet along a side is not written; a positive one pays where they do not touch
    assert "paid" not in render_program(GameState.empty(GameConfig(3, (2, 1), Rules(touch="diagonal"), prior=Prior(touch=-1.0))))
    positive = render_program(GameState.empty(GameConfig(3, (2, 1), prior=Prior(touch=0.5))))
    assert "exp(-0.5)::paid(" in positive and "\\+ both_covered(R1, C1, R2, C2), \\+ paid(" in positive


def test_the_stock_problog_command_answers_a_script_under_a_prior(tmp_path: Path) -> None:
    case = max(prior_states("allowed", "unnamed"), key=lambda c: (c[0].rows * c[0].cols, len(c[0].shots)))
    state, chosen, weights = case
    source, program = tmp_path / "state.json", tmp_path / "state.pl"
    state.dump(source)
    assert main(["script", str(source), "-o", str(program)]) == 0
    printed = run_stock_problog(program.read_text(), program)
    table = oracle.layouts(state.rows, state.ships, "allowed", state.cols)
    cells = oracle.weighted_cell_marginals(table, chosen, weights)
    assert set(printed) == set(state.unshot)
    for cell, probability in printed.items():
        assert abs(probability - cells[cell]) <= 5e-9, cell  # %.8g rounding of values below 1


# ---- The command line --------------------------------------------------------------------------


def test_marginals_under_prior_flag(capsys: pytest.CaptureFixture[str]) -> None:
    name = WEIGHING[0]
    assert main(["marginals", "--size", "3", "--ships", "2", "--prior", "edge=1, vertical=-1", "--engine", name, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"size", "rows", "cols", "models", "cells"} and out["models"] == 12
    assert out["cells"][1][1] == pytest.approx(1 / (2 * math.e + 1), abs=1e-9)
    assert main(["marginals", "--size", "3", "--ships", "2", "--prior", "edge=1,vertical=-1", "--engine", name]) == 0
    assert capsys.readouterr().out.startswith("3x3 2 (prior edge=1,vertical=-1) after 0 shots")


@pytest.mark.parametrize("command", ["marginals", "script", "compile", "advise"])
@pytest.mark.parametrize(
    ("prior", "message"),
    [
        ("edg=1", "unknown prior feature 'edg'; expected only edge, vertical, touch"),
        ("edge=nan", "prior weight edge=nan is not a finite number"),
        ("edge=1,edge=2", "prior 'edge=1,edge=2' gives edge twice"),
        ("edge", "prior 'edge' is not a list of feature=weight such as edge=0.8,touch=-1"),
        (
            "touch=30",
            "prior touch=30 is too strong for this board: a layout's log-weight could reach |touch| x 24 = 720, over 700",
        ),
    ],
)
def test_bad_priors_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, prior: str, message: str
) -> None:
    extra = (
        ["-o", str(tmp_path / "m.sdd")]
        if command == "compile"
        else ["--state", str(tmp_path / "a.json")]
        if command == "advise"
        else []
    )
    one_line_error(capsys, [command, "--size", "4", "--ships", "2,2", "--prior", prior, *extra], message)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", ["marginals", "script", "compile", "advise"])
def test_a_state_file_with_another_prior_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"size": 4, "ships": [2], "prior": {"edge": 0.5}, "shots": []}))
    extra = ["-o", str(tmp_path / "m.sdd")] if command == "compile" else []
    source = ["--state", str(path)] if command == "advise" else [str(path)]
    one_line_error(
        capsys, [command, *source, "--prior", "edge=1", *extra], f"{path} holds a game with prior edge=0.5, not --prior edge=1"
    )
    path.write_text(json.dumps({"size": 4, "ships": [2], "shots": []}))
    one_line_error(
        capsys,
        [command, *source, "--prior", "touch=-1", *extra],
        f"{path} holds a game with the uniform prior, not --prior touch=-1",
    )
    assert not (tmp_path / "m.sdd").exists()


def test_script_of_a_state_under_a_prior_with_the_default_engine(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Whether a state is consistent does not depend on the prior: script checks it with any engine."""
    path = tmp_path / "state.json"
    GameState(GameConfig(4, (2, 1), prior=Prior(edge=0.5, touch=-1.0)), (Shot(0, 0, "hit"),)).dump(path)
    assert main(["script", str(path), "--prior", "edge=0.5,touch=-1"]) == 0
    assert "%% Prior: edge=0.5,touch=-1" in capsys.readouterr().out
    GameState(GameConfig(3, (2,), prior=Prior(edge=0.5)), (Shot(0, 0, "miss"), Shot(0, 1, "hit"), Shot(0, 2, "hit"))).dump(path)
    one_line_error(capsys, ["script", str(path)], "contradictory state: shot 3 (A3, hit)")


def test_compile_writes_the_placements_log_weights(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from pysdd.sdd import SddManager, Vtree

    sdd = tmp_path / "m.sdd"
    assert main(["compile", "--size", "3", "--ships", "2,1", "--prior", "edge=0.7,vertical=-1.2", "-o", str(sdd)]) == 0
    assert "84 models" in capsys.readouterr().out
    variables = json.loads(sdd.with_suffix(".vars.json").read_text())
    manager = SddManager.from_vtree(Vtree.from_file(str(sdd.with_suffix(".vtree")).encode()))
    root = manager.read_sdd_file(str(sdd).encode())
    wmc = root.wmc(log_mode=False)
    n = manager.var_count()
    weights = np.ones(2 * n)
    for entry in variables:
        weights[n + entry["variable"] - 1] = math.exp(entry["log_weight"])
    wmc.set_literal_weights_from_array(weights)
    wmc.propagate()
    cells = np.zeros((3, 3))
    for entry in variables:
        p = Placement(entry["ship"], entry["length"], entry["row"], entry["col"], entry["orientation"] == "h")
        for cell in p.cells:
            cells[cell] += wmc.literal_pr(entry["variable"])
    table = oracle.layouts(3, (2, 1))
    np.testing.assert_allclose(
        cells, oracle.weighted_cell_marginals(table, np.arange(len(table)), oracle.layout_weights(table, 0.7, -1.2)), atol=1e-12
    )
    one_line_error(
        capsys,
        ["compile", "--size", "3", "--ships", "2,1", "--prior", "touch=-1", "-o", str(sdd)],
        "touch=-1 weighs pairs of ships",
    )
    # under no contact the touch weight weighs nothing: compiled as the uniform prior
    assert main(["compile", "--size", "3", "--ships", "2,1", "--touch", "none", "--prior", "touch=-1", "-o", str(sdd)]) == 0
