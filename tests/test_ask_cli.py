"""`battlelog ask`: the JSON it prints, ranking a bank, and bad input as one line with status 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from battlelog.cli import main
from battlelog.questions import asking
from battlelog.questions.inference import distribution
from battlelog.questions.state import state_from_json
from battlelog.questions.typecheck import compile_program

STATE = {
    "ships": [{"name": "Red", "length": [2, 3]}, {"name": "Blue", "length": 2}],
    "board": ["H,H,H,H", "H,W,H,H", "H,H,R,H", "H,H,H,H"],
    "answers": [{"question": "(== (orient Blue) H)", "answer": True}],
    "noise": 0.1,
}


def _write(tmp_path: Path, data: Any, name: str = "state.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_json_answers_are_typed_and_equal_the_engine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, STATE)
    assert main(["ask", str(path), "(topleft (coloredTiles Red))", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"question", "models", "answers", "entropy", "eig"}
    state = state_from_json(STATE, "state")
    expected = distribution(compile_program(out["question"], state.names, 4, 4), state.space(), 0.1).to_json(4)
    assert out == expected
    assert all(isinstance(a["answer"], str) and "-" in a["answer"] for a in out["answers"])
    assert sum(a["p"] for a in out["answers"]) == pytest.approx(1.0)


def test_a_noisy_yes_no_question_is_worth_less_than_its_entropy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, STATE)
    assert main(["ask", str(path), "(touch Red Blue)", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {type(a["answer"]) for a in out["answers"]} == {bool}
    assert 0 < out["eig"] < out["entropy"]


def test_the_bank_is_ranked_by_eig(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, STATE)
    bank = _write(tmp_path, "# sizes\n(size Red)\n(size Blue)\n\n(touch Red Blue)\n(size Red)\n(color 1-1)\n", "bank.txt")
    assert main(["ask", str(path), "--bank", str(bank), "--json", "--top", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out) == 3
    eigs = [r["eig"] for r in out]
    assert eigs == sorted(eigs, reverse=True)
    assert main(["ask", str(path), "--bank", str(bank)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + 4  # a header and the four distinct programs


def test_text_output_lists_each_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, STATE)
    assert main(["ask", str(path), "(size Red)"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].strip().startswith(("2", "3"))
    assert "expected information gain" in out


@pytest.mark.parametrize(
    ("argv", "state", "message"),
    [
        (["(size Red"], STATE, "'(' is never closed"),
        (["(size Green)"], STATE, "unknown ship 'Green'"),
        (["(== (size Red) (orient Blue))"], STATE, "== compares a number with an orientation"),
        (["(size Red)"], {**STATE, "answers": [{"question": "(size Red)", "answer": "three"}]}, "answer is a number"),
        (["(size Red)"], {**STATE, "answers": [{"question": "(size Blue)", "answer": 3}]}, "no layout"),
        (["(size Red)"], {**STATE, "board": ["W,W,W,W"] * 4}, "no layout of the fleet fits"),
        ([], STATE, "give either a PROGRAM or --bank FILE"),
        (["(size Red)", "--top", "2"], STATE, "--top K takes"),
        (["(size Red)"], "{", "not valid JSON"),
    ],
)
def test_bad_input_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], state: Any, message: str
) -> None:
    path = _write(tmp_path, state)
    assert main(["ask", str(path), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_a_bad_bank_program_is_named_by_its_line_before_any_is_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, STATE)
    bank = _write(tmp_path, "# sizes\n(size Red)\n(size Red)\n\n(size Purple)\n", "bank.txt")
    asked: list[str] = []
    monkeypatch.setattr(asking, "distribution", lambda program, *rest: asked.append(program.text))
    assert main(["ask", str(path), "--bank", str(bank)]) == 2
    assert f"{bank}, line 5: '(size Purple)': column 7: unknown ship 'Purple'" in capsys.readouterr().err
    assert asked == []


def test_a_csv_bank_names_the_line_of_a_bad_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, STATE)
    bank = _write(tmp_path, 'trial,code\n1,(size Red)\n2,"(touch Red\n Blue)"\n3,(size Purple)\n', "bank.csv")
    assert main(["ask", str(path), "--bank", str(bank)]) == 2
    assert f"{bank}, line 5: '(size Purple)'" in capsys.readouterr().err


def test_a_board_text_file_with_the_fleet_as_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = _write(tmp_path, "H,H,W\nR,H,H\nH,H,H\n", "board.txt")
    argv = ["ask", str(board), "(size Red)", "--ships", "Red=2-3,Blue=1", "--length-prior", "sizes", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    data = {"board": ["H,H,W", "R,H,H", "H,H,H"], "ships": [{"name": "Red", "length": [2, 3]}, {"name": "Blue", "length": 1}],
            "length_prior": "sizes"}  # fmt: skip
    state = state_from_json(data, "state")
    assert out == distribution(compile_program("(size Red)", state.names, 3, 3), state.space()).to_json(3)
    assert main(["ask", str(board), "(size Red)", "--ships", "Red,Blue", "--lengths", "2,1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["answers"][0]["answer"] in (1, 2)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ([], "needs --ships"),
        (["--ships", "Red=x"], "'x' is not a whole number"),
        (["--ships", "Red=2", "--lengths", "2"], "names alone"),
        (["--ships", "Red=\u00b2"], "'\u00b2' is not a whole number from 1 to 64"),  # a superscript 2 was a traceback
        (["--ships", "Red=\u0663"], "'\u0663' is not a whole number from 1 to 64"),  # an Arabic-Indic 3 was read as 3
        (["--ships", "Red=2-99999999999"], "'99999999999' is not a whole number from 1 to 64"),  # was a MemoryError
        (["--ships", "Red,Blue", "--lengths", "2,99999999999999999999"], "is not a whole number from 1 to 64"),
        (["--ships", "Red=3"], "ships[0]: length 3 does not fit on a 2x2 board"),
    ],
)
def test_bad_fleet_flags_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str) -> None:
    board = _write(tmp_path, "H,H\nH,H\n", "board.txt")
    assert main(["ask", str(board), "(size Red)", *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("flags", "message"),
    [(["--noise", "\u0660.\u0661"], "is not a finite number (digits 0-9)"), (["--noise", "nan"], "is not a finite number"),
     (["--bank", "bank.txt", "--top", "\u0663"], "is not a whole number (digits 0-9)")],
)  # fmt: skip
def test_numbers_in_other_scripts_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    board = _write(tmp_path, "H,H\nH,H\n", "board.txt")
    _write(tmp_path, "(size Red)\n", "bank.txt")
    argv = ["ask", str(board), *(["(size Red)"] if "--bank" not in flags else []), "--ships", "Red=2", *flags]
    with pytest.raises(SystemExit):  # argparse's usage error, status 2
        main([a.replace("bank.txt", str(tmp_path / "bank.txt")) for a in argv])
    err = capsys.readouterr().err
    assert message in err


def test_flags_beside_a_state_file_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, STATE)
    assert main(["ask", str(path), "(size Red)", "--noise", "0.2"]) == 2
    assert "--noise: the state file gives the fleet and rules" in capsys.readouterr().err
