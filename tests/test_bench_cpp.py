"""experiments/bench_cpp.py's pieces that need no C++ binary: its arguments, the state's conversion to
the C++ driver's requests and back, reading the driver's answers, and how battlelog's count relates
to the C++ engine's (checked against the independent oracle of tests/oracle.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from battlelog.errors import BattlelogError
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules

import oracle

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
import bench_cpp


def a_state(sinks: str = "named", touch: str = "allowed") -> GameState:
    """A 10x10 standard-fleet state with a miss, hits and a sink of ship 2 (a 3)."""
    config = GameConfig(10, (5, 4, 3, 3, 2), Rules(touch=touch, sinks=sinks))
    state = GameState.empty(config).with_shot(0, 0, "miss").with_shot(4, 4, "hit").with_shot(4, 5, "hit")
    return state.with_shot(4, 6, "sunk", 2 if sinks == "named" else None)


# ----- arguments ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ([], "give the C++ driver with --cpp PATH"),
        (["--cpp", "/no/such/driver"], "--cpp /no/such/driver: no such file"),
        (["--cpp", __file__], "not executable"),
    ],
)
def test_a_missing_or_unusable_driver_is_one_line(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        bench_cpp.parse_args(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_parts_and_rounds_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    driver = tmp_path / "driver"
    driver.write_text("#!/bin/sh\n")
    os.chmod(driver, 0o755)
    assert bench_cpp.parse_args(["--cpp", str(driver)]).cpp == str(driver)
    for argv, says in ((["--only", "empty,bogus"], "unknown part 'bogus'"), (["--rounds", "0"], "--rounds must be at least 1")):
        with pytest.raises(SystemExit):
            bench_cpp.parse_args(["--cpp", str(driver), *argv])
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1


# ----- requests ----------------------------------------------------------------------------------
@pytest.mark.parametrize("sinks", ["named", "unnamed"])
@pytest.mark.parametrize("touch", ["allowed", "none"])
def test_a_request_round_trips_and_says_what_the_state_says(sinks: str, touch: str) -> None:
    state = a_state(sinks, touch)
    request = bench_cpp.to_request(state, "count")
    assert bench_cpp.Request.parse(request.line()) == request
    assert (request.mode, request.rows, request.cols, request.touch, request.ships) == ("count", 10, 10, touch, (5, 4, 3, 3, 2))
    assert [(r, c) for r, c, _, _ in request.shots] == [shot.cell for shot in state.shots]
    assert [a for _, _, a, _ in request.shots] == ["M", "H", "H", "S"]
    # a named sink carries the sunk ship's length (the C++ engine's SUNK(x, L)); an unnamed one 0
    assert request.shots[-1][3] == (3 if sinks == "named" else 0)


def test_a_rectangle_keeps_rows_and_columns_apart() -> None:
    state = GameState.empty(GameConfig(12, (5, 4, 3, 3, 2), cols=10)).with_shot(11, 9, "miss")
    request = bench_cpp.Request.parse(bench_cpp.to_request(state).line())
    assert (request.rows, request.cols, request.shots) == (12, 10, ((11, 9, "M", 0),))


@pytest.mark.parametrize(
    ("rules", "says"), [(Rules(touch="diagonal"), "no touch rule 'diagonal'"), (Rules(sinks="silent"), "no silent sinks")]
)
def test_rules_the_cpp_engine_lacks_are_refused(rules: Rules, says: str) -> None:
    with pytest.raises(bench_cpp.Unsupported, match=says):
        bench_cpp.to_request(GameState.empty(GameConfig(10, (5, 4, 3, 3, 2), rules)))


@pytest.mark.parametrize(
    "line", ["", "marg 10 10 allowed 5 5 4 3", "marg 10 10 allowed 1 2 1 0 0 M", "marg 10 10 allowed 1 2 0 extra"]
)
def test_a_broken_request_is_one_line(line: str) -> None:
    with pytest.raises(BattlelogError, match="not a request to the C"):
        bench_cpp.Request.parse(line)


# ----- answers -----------------------------------------------------------------------------------
def test_answers_are_read_and_errors_named() -> None:
    answer = bench_cpp.Answer.parse("ok 8 1500 1 " + " ".join(["2"] * 5 + ["0"] * 1), 2, 3)
    assert (answer.layouts, answer.seconds, answer.sweeps) == (8, 0.0015, 1)
    assert answer.covering is not None and answer.covering.shape == (2, 3) and answer.covering[1, 2] == 0
    assert bench_cpp.Answer.parse("ok 8 10 1 0 0 0 0 0 0", 2, 3).covering is None  # counted only
    with pytest.raises(BattlelogError, match="answered: err cell shot twice"):
        bench_cpp.Answer.parse("err cell shot twice\n", 2, 3)
    with pytest.raises(BattlelogError, match="gave 5 cells for a 2x3 board"):
        bench_cpp.Answer.parse("ok 8 10 1 0 0 0 0 0", 2, 3)


def test_agreement_compares_counts_through_the_labels_and_marginals() -> None:
    state = GameState.empty(GameConfig(2, (1, 1)))  # 12 labelled layouts, 6 unlabelled; each cell 1/2
    cells = np.full((2, 2), 0.5)
    good = bench_cpp.Answer(6, 0.0, 1, np.full((2, 2), 3.0))
    assert bench_cpp.agreement(state, 12, cells, good) == (True, 0.0)
    same, diff = bench_cpp.agreement(state, 12, cells, bench_cpp.Answer(6, 0.0, 1, np.array([[3.0, 3.0], [3.0, 4.0]])))
    assert same and diff == pytest.approx(1 / 6)
    assert bench_cpp.agreement(state, 12, cells, bench_cpp.Answer(12, 0.0, 1))[0] is False


# ----- battlelog's layouts against the C++ engine's ----------------------------------------------
@pytest.mark.parametrize("sinks", ["named", "unnamed"])
@pytest.mark.parametrize("touch", ["allowed", "none"])
def test_label_factor_matches_the_oracle(sinks: str, touch: str) -> None:
    """Labelled layouts (battlelog's) = boards with equal ships not told apart (the C++ engine's) x
    label_factor, on every prefix of a game of 5x5 3,2,2 played to the end."""
    ships = (3, 2, 2)
    table = oracle.layouts(5, ships, touch)
    config = GameConfig(5, ships, Rules(touch=touch, sinks=sinks))
    rng = np.random.default_rng(7)
    for k in rng.choice(len(table), size=3, replace=False):
        cells = [(int(i) // 5, int(i) % 5) for i in rng.permutation(25)]
        answers = oracle.play(table, int(k), cells, sinks)
        state = GameState.empty(config)
        for t, (cell, (result, ship)) in enumerate(zip(cells, answers)):
            chosen = oracle.posterior(table, list(zip(cells[: t + 1], answers[: t + 1])), sinks)
            state = state.with_shot(*cell, result, ship)
            boards = {frozenset(table.spots[j]) for j in chosen}
            assert len(chosen) == len(boards) * bench_cpp.label_factor(state), (state.shots, len(chosen), len(boards))
            if state.over:
                break
