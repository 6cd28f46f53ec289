"""The ``marginals`` and ``script`` commands, run in-process through battlelog.cli.main."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from battlelog.cli import main
from battlelog.engines import ENGINES
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import cell_name
from battlelog.rules.state import GameState

from engine_cases import reference

FIXTURES = Path(__file__).parent / "fixtures"
MID_GAME = FIXTURES / "midgame_5x5.json"
CONTRADICTORY = FIXTURES / "contradictory_5x5.json"


def succeeds(capsys: pytest.CaptureFixture, argv: list[str]) -> str:
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0 and err == "", err
    return out


def fails_in_one_line(capsys: pytest.CaptureFixture, argv: list[str], message: str) -> None:
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("battlelog: error: ") and message in err, err


def test_json_is_the_specs_marginals_format(capsys: pytest.CaptureFixture) -> None:
    data = json.loads(succeeds(capsys, ["marginals", str(MID_GAME), "--engine", "problog", "--json"]))
    assert set(data) == {"size", "rows", "cols", "models", "cells"}  # size only on a square board
    assert data["size"] == 5 and data["models"] is None
    np.testing.assert_allclose(data["cells"], reference(GameState.load(MID_GAME))[0], rtol=0, atol=1e-9)


def test_empty_board_from_size_and_ships(capsys: pytest.CaptureFixture) -> None:
    data = json.loads(succeeds(capsys, ["marginals", "--size", "4", "--ships", "3,2,2", "--json"]))
    expected, _ = reference(GameState.empty(GameConfig(4, (3, 2, 2))))
    np.testing.assert_allclose(data["cells"], expected, rtol=0, atol=1e-9)


def test_heat_map_without_colour_when_not_a_terminal(capsys: pytest.CaptureFixture) -> None:
    out = succeeds(capsys, ["marginals", str(MID_GAME)])
    assert "\x1b[" not in out
    rows = [words for words in map(str.split, out.splitlines()) if words and words[0] in list("ABCDE")]
    assert [row[0] for row in rows] == list("ABCDE")
    assert rows[0][1] == "o" and rows[2][4:6] == ["X", "#"]  # A1 miss, C4 hit, C5 sunk
    cells = reference(GameState.load(MID_GAME))[0]
    assert float(rows[1][1]) == pytest.approx(100 * cells[1, 0], abs=0.05)  # B1 as a percentage
    state = GameState.load(MID_GAME)
    best = max(state.unshot, key=lambda cell: cells[cell])
    assert f"most likely: {cell_name(best)} ({100 * cells[best]:.1f}%)" in out


def test_colour_only_on_a_terminal_unless_switched_off(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert "\x1b[" in succeeds(capsys, ["marginals", "--size", "3", "--ships", "2"])
    assert "\x1b[" not in succeeds(capsys, ["marginals", "--size", "3", "--ships", "2", "--no-color"])


@pytest.mark.parametrize("command", ["marginals", "script"])
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_contradictory_state_names_the_first_shot_at_fault(capsys: pytest.CaptureFixture, command: str, engine: str) -> None:
    fails_in_one_line(capsys, [command, str(CONTRADICTORY), "--engine", engine], "shot 3 (E5, sunk ship 0)")


def test_no_color_is_honoured(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in succeeds(capsys, ["marginals", "--size", "3", "--ships", "2"])
    monkeypatch.setenv("NO_COLOR", "")  # https://no-color.org: only a non-empty value switches colour off
    assert "\x1b[" in succeeds(capsys, ["marginals", "--size", "3", "--ships", "2"])


def test_counts_are_singular_when_there_is_one(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"size": 3, "ships": [3], "shots": [{"row": 0, "col": 0, "result": "hit"}]}))
    out = succeeds(capsys, ["marginals", str(one)])
    assert "after 1 shot:" in out and "2 layouts fit the answers" in out  # A1-A3 or A1-C1
    one.write_text(json.dumps({"size": 3, "ships": [3], "shots": [{"row": 0, "col": 0, "result": "hit"},
                                                                 {"row": 1, "col": 0, "result": "miss"}]}))  # fmt: skip
    out = succeeds(capsys, ["marginals", str(one)])
    assert "after 2 shots:" in out and "\n1 layout fits the answers\n" in out and "layouts" not in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["marginals"], "give a game-state file, or both --size and --ships"),
        (["marginals", "--size", "4"], "give a game-state file, or both --size and --ships"),
        (["marginals", str(MID_GAME), "--size", "4", "--ships", "2"], "not both"),
        (["marginals", "missing.json"], "missing.json: cannot read"),
        (["marginals", "--size", "3", "--ships", "4"], "does not fit on a 3x3 board"),
        (["script", "--ships", "2,2"], "give a game-state file, or both --size and --ships"),
    ],
)
def test_bad_input_is_one_line(capsys: pytest.CaptureFixture, argv: list[str], message: str) -> None:
    fails_in_one_line(capsys, argv, message)


def test_a_file_that_is_not_json_is_one_line(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{size: 5")
    fails_in_one_line(capsys, ["marginals", str(bad)], "not valid JSON")
    fails_in_one_line(capsys, ["script", str(bad)], "not valid JSON")


def test_unknown_engine_is_refused_by_the_parser(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["marginals", str(MID_GAME), "--engine", "no-such-engine"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def problog_marginals(program: str, size: int) -> np.ndarray:
    """The ``occupied(R,C)`` probabilities ProbLog computes from ``program``; NaN where it has no query."""
    from problog import get_evaluatable
    from problog.program import PrologString

    out = np.full((size, size), np.nan)
    for term, probability in get_evaluatable("sdd").create_from(PrologString(program)).evaluate().items():
        match = re.fullmatch(r"occupied\((\d+),(\d+)\)", str(term))
        assert match, term
        out[int(match[1]), int(match[2])] = probability
    return out


def unshot_reference(state: GameState) -> np.ndarray:
    """Brute-force marginals of the unshot cells (the program queries only those), NaN on the shot ones."""
    cells = reference(state)[0]
    for cell in state.shot_cells:
        cells[cell] = np.nan
    return cells


def test_script_prints_a_program_whose_marginals_are_brute_forces(capsys: pytest.CaptureFixture) -> None:
    printed = succeeds(capsys, ["script", str(MID_GAME)])
    state = GameState.load(MID_GAME)
    np.testing.assert_allclose(problog_marginals(printed, 5), unshot_reference(state), rtol=0, atol=1e-9)


def test_script_writes_the_program_to_a_file(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    target = tmp_path / "empty.pl"
    assert succeeds(capsys, ["script", "--size", "4", "--ships", "3,2,2", "-o", str(target)]) == ""
    empty = GameState.empty(GameConfig(4, (3, 2, 2)))
    np.testing.assert_allclose(problog_marginals(target.read_text(), 4), unshot_reference(empty), rtol=0, atol=1e-9)


def test_script_output_that_cannot_be_written_is_one_line(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    fails_in_one_line(capsys, ["script", str(MID_GAME), "-o", str(tmp_path / "no" / "such" / "dir.pl")], "cannot write")
