"""What people type and the files they name, read as they meant it or refused in one short line: numbers in
ASCII digits only and echoed a few characters long, an empty name refused as empty, a file that is not a
table refused as such, a contradictory state file named, and a second experiment on a folder in use
refused before it prints anything."""

from __future__ import annotations

import fcntl
import io
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from battlelog.cli import build_parser, main
from battlelog.commands.common import parse_memory, parse_seconds
from battlelog.digits import real_number, whole_number
from battlelog.errors import BattlelogError
from battlelog.players.spec import parse_players
from battlelog.rules.config import parse_ships
from battlelog.rules.geometry import parse_cell
from battlelog.rules.prior import Prior
from battlelog.runner.records import GAMES
from battlelog.views.advise import parse_command
from battlelog.wording import NUMBER_LIMIT, number_text

from runs import one_line_error

FIXTURES = Path(__file__).parent / "fixtures"
CONTRADICTORY = FIXTURES / "contradictory_5x5.json"
HUGE = "1" + "0" * 400
#: Digits of other scripts that Python's int() and float() read as 0-9.
ARABIC_INDIC, FULL_WIDTH, SUPERSCRIPT_TWO = "٣", "３", "²"


def argparse_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The last line argparse prints for a refused option value (after its usage lines)."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


# ----- an empty player ---------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["play", "--size", "5", "--ships", "3,2", "--player", "", "--seed", "1", "--quiet"],
    ["play", "--size", "5", "--ships", "3,2", "--player", " ", "--seed", "1", "--quiet"],
    ["optimal", "--size", "3", "--ships", "2", "--players", " "],
])  # fmt: skip
def test_an_empty_player_is_refused_not_played_as_the_default(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    one_line_error(capsys, argv, "no players given in")
    assert capsys.readouterr().out == ""


# ----- numbers echoed short ------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["play", "--size", HUGE, "--ships", "3,2"], "board size 10000000000000000... is too large"),
    (["play", "--rows", "5", "--cols", HUGE, "--ships", "3,2"], "10000000000000000... columns is too many"),
    (["play", "--size", "5", "--ships", f"3,{HUGE}"], "ship 1 of length 10000000000000000... does not fit"),
    (["play", "--size", "5", "--ships", "3,2", "--seed", "-" + HUGE], "--seed -1000000000000000...: the seed must be"),
    (["marginals", "--size", "5", "--ships", "3,2", "--prior", "edge=1e308"], "prior edge=1e+308 is too strong for this board"),
    (["marginals", "--size", "5", "--ships", "3,2", "--prior", "edge=" + HUGE],
     "prior weight edge=10000000000000000... is not a finite"),
    (["play", "--size", "5", "--ships", "3,2", "--salvo", HUGE * 12], "unknown salvo '1000000000000000..."),
    (["play", "--size", "5", "--ships", "3,2", "--salvo", HUGE],
     "unknown salvo 10000000000000000...; give a whole number of shots per volley from 1 to 676"),
    (["play", "--size", "5", "--ships", "3,2", "--player", f"mc[samples={HUGE * 12}]"], "option samples=1000000000"),
    (["experiment", "--size", "4", "--ships", "2", "--out", "never", "--memory-limit", "9" * 400],
     "--memory-limit '99999999999999999...' is more"),
])  # fmt: skip
def test_a_huge_number_is_echoed_in_a_few_characters(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    """Each was echoed whole (hundreds of digits), or ended in a traceback (a file name too long to look
    up, more digits than int() converts, a float overflowing int())."""
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and message in err, err
    assert not re.search("[0-9]{21}", err) and not Path("never").exists(), err


def test_an_echoed_number_keeps_at_most_its_first_digits() -> None:
    assert number_text(12345) == "12345"
    assert number_text(10**400) == "1" + "0" * (NUMBER_LIMIT - 4) + "..."
    assert number_text(10**5000) == "a number of over 4300 digits"  # str() itself refuses it


def test_a_prior_names_a_huge_whole_weight_in_float_notation() -> None:
    assert Prior(edge=1e308).text() == "edge=1e+308"
    assert Prior(edge=3.0, touch=-1.0).text() == "edge=3,touch=-1"
    assert Prior.parse(Prior(edge=1e300).text()) == Prior(edge=1e300)


def test_a_whole_number_option_too_long_to_read_is_refused_short(capsys: pytest.CaptureFixture[str]) -> None:
    line = argparse_error(capsys, ["play", "--size", "9" * 5000, "--ships", "3,2"])
    assert line.endswith("argument --size: '99999999999999999...' is not a whole number (digits 0-9)"), line


# ----- ASCII digits only ---------------------------------------------------------------------------------
@pytest.mark.parametrize("digit", [ARABIC_INDIC, FULL_WIDTH])
@pytest.mark.parametrize("option", ["--size", "--seed"])
def test_a_board_or_seed_in_other_digits_is_refused(capsys: pytest.CaptureFixture[str], digit: str, option: str) -> None:
    argv = ["play", "--size", "5", "--ships", "3,2", "--seed", "1", "--quiet"]
    argv[argv.index(option) + 1] = digit
    line = argparse_error(capsys, argv)
    assert f"argument {option}: '{digit}' is not a whole number (digits 0-9)" in line, line


@pytest.mark.parametrize("argv, option", [
    (["play", "--rows", ARABIC_INDIC, "--cols", "5", "--ships", "3,2"], "--rows"),
    (["play", "--rows", "5", "--cols", FULL_WIDTH, "--ships", "3,2"], "--cols"),
    (["experiment", "--size", "4", "--ships", "2", "--games", ARABIC_INDIC, "--out", "never"], "--games"),
    (["experiment", "--size", "4", "--ships", "2", "--workers", FULL_WIDTH, "--out", "never"], "--workers"),
    (["replay", str(FIXTURES / "midgame_5x5.json"), "--out", "never", "--delay", ARABIC_INDIC], "--delay"),
    (["replay", str(FIXTURES / "midgame_5x5.json"), "--out", "never", "--game", ARABIC_INDIC], "--game"),
    (["serve", "--port", FULL_WIDTH], "--port"),
])  # fmt: skip
def test_every_number_option_takes_ascii_digits_only(capsys: pytest.CaptureFixture[str], argv: list[str], option: str) -> None:
    """Parsed only (a port read as 3 would start a server)."""
    with pytest.raises(SystemExit) as exit_:
        build_parser(argv[0]).parse_args(argv)
    assert exit_.value.code == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"argument {option}: " in line and "(digits 0-9)" in line, line


@pytest.mark.parametrize("digits", [f"{ARABIC_INDIC},2", f"{FULL_WIDTH},{FULL_WIDTH}", f"3,{SUPERSCRIPT_TWO}", "3,1_0"])
def test_a_fleet_in_other_digits_is_refused(capsys: pytest.CaptureFixture[str], digits: str) -> None:
    one_line_error(capsys, ["play", "--size", "5", "--ships", digits], f"fleet {digits!r} is not a comma-separated list")


@pytest.mark.parametrize("argv, message", [
    (["marginals", "--size", "5", "--ships", "3,2", "--prior", f"edge=0.{ARABIC_INDIC}"],
     "prior weight edge=0.٣ is not a finite number"),
    (["play", "--size", "5", "--ships", "3,2", "--player", f"mc[samples={FULL_WIDTH}]"],
     "option samples=３ is not a whole number"),
    (["play", "--size", "5", "--ships", "3,2", "--player", f"rollout[margin={ARABIC_INDIC}]"],
     "option margin=٣ is not a finite number"),
    (["experiment", "--size", "4", "--ships", "2", "--out", "never", "--time-limit", FULL_WIDTH],
     "--time-limit '３' is not a positive"),
    (["experiment", "--size", "4", "--ships", "2", "--out", "never", "--memory-limit", f"{ARABIC_INDIC}G"],
     "--memory-limit '٣G' is not a size"),
    (["reproduce", "--out", "never", "--config", f"{SUPERSCRIPT_TWO}:3,2"], "--config '²:3,2' is not SIZE:SHIPS"),
    (["reproduce", "--out", "never", "--config", f"{ARABIC_INDIC}:3,2"], "--config '٣:3,2' is not SIZE:SHIPS"),
])  # fmt: skip
def test_numbers_inside_options_take_ascii_digits_only(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    one_line_error(capsys, argv, message)
    assert not Path("never").exists()


@pytest.mark.parametrize("text", [f"C{ARABIC_INDIC}", f"C{FULL_WIDTH}", f"C1{ARABIC_INDIC}"])
def test_a_cell_in_other_digits_is_no_cell(text: str) -> None:
    assert parse_cell("C13", 26) == (2, 12)
    with pytest.raises(BattlelogError):
        parse_cell(text, 26)


@pytest.mark.parametrize("line", [f"sunk {ARABIC_INDIC}", f"C{FULL_WIDTH} miss", f"C3 sunk {FULL_WIDTH}", "sunk " + "9" * 5000])
def test_an_advise_answer_in_other_digits_is_refused(line: str) -> None:
    assert parse_command("C3 sunk 1", 5).ship == 1  # type: ignore[union-attr]
    with pytest.raises(BattlelogError):
        parse_command(line, 5)


def test_the_readers_take_ascii_digits_and_nothing_else() -> None:
    assert [whole_number(t) for t in ("12", " -3 ", "+0", "1_0", ARABIC_INDIC, "", "1.0", "9" * 5000)] == [
        12, -3, 0, None, None, None, None, None,
    ]
    assert [real_number(t) for t in ("0.5", "-1e-3", ".5", "2.", "inf", "nan", "1e400", FULL_WIDTH, "1_0.5")] == [
        0.5, -1e-3, 0.5, 2.0, None, None, None, None, None,
    ]
    assert parse_ships("5, 4,3") == (5, 4, 3)
    assert parse_memory("1.5G") == int(1.5 * 2**30) and parse_seconds("2.5") == 2.5
    assert parse_players("mc[samples=12]")[0].options == {"samples": 12}


# ----- an empty file name ----------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["marginals", ""],
    ["script", " "],
    ["compile", "", "-o", "never.sdd"],
    ["replay", "", "--out", "never"],
    ["learn", "--size", "5", "--ships", "3,2", ""],
])  # fmt: skip
def test_an_empty_file_name_is_said_to_be_empty(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    """``Path("")`` is the current folder: it was reported as ".: cannot read (Is a directory)"."""
    one_line_error(capsys, argv, "is empty: give the path of the file to read")
    assert not Path("never").exists() and not Path("never.sdd").exists()


# ----- a file that is not a table ----------------------------------------------------------------------
def _pickled(path: Path) -> None:
    np.save(path.open("wb"), np.array([{"a": 1}], dtype=object), allow_pickle=True)


def _object_header(path: Path) -> None:
    with path.open("wb") as out:
        np.savez(out, header=np.array([{}], dtype=object))


@pytest.mark.parametrize(
    "write", [lambda p: p.write_text("hello\n"), _pickled, _object_header, lambda p: p.write_bytes(b"PK\x03\x04junk")]
)
def test_a_file_that_is_not_a_table_is_refused_in_our_words(capsys: pytest.CaptureFixture[str], tmp_path: Path, write) -> None:
    """numpy's message advised loading the file "unsafely using allow_pickle": never passed on."""
    table = tmp_path / "t.table"
    write(table)
    one_line_error(capsys, ["optimal", "--size", "3", "--ships", "2", "--players", "none", "--table", str(table)],
                   f"{table}: not a table of solved states (the file battlelog optimal --table writes)")  # fmt: skip


# ----- a contradictory state file is named -------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["marginals", "{state}"],
    ["marginals", "{state}", "--engine", "sdd"],
    ["script", "{state}"],
    ["compile", "{state}", "-o", "{tmp}/model.sdd"],
    ["advise", "--state", "{state}"],
    ["replay", "{state}", "--out", "{tmp}/replay"],
])  # fmt: skip
def test_a_contradictory_state_file_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    state = tmp_path / "my game.json"
    shutil.copy(CONTRADICTORY, state)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    one_line_error(
        capsys, [arg.format(state=state, tmp=tmp_path) for arg in argv], f"{state}: contradictory state: shot 3 (E5, sunk ship 0)"
    )


def test_a_contradictory_file_loaded_while_advising_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "other.json"
    shutil.copy(CONTRADICTORY, state)
    monkeypatch.setattr("sys.stdin", io.StringIO(f"load {state}\nquit\n"))
    assert main(["advise", "--size", "5", "--ships", "3,2", "--state", str(tmp_path / "new.json"), "--no-color"]) == 0
    assert f"refused: {state}: contradictory state: shot 3" in capsys.readouterr().out


# ----- two experiments on one folder ---------------------------------------------------------------------
def test_the_second_experiment_on_a_folder_prints_nothing_but_in_use(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The start line was printed before the folder was locked, so the refused run said it had started."""
    out = tmp_path / "results"
    out.mkdir()
    with (out / GAMES).open("a+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # a running experiment holds its journal so
        status = main(["experiment", "--size", "4", "--ships", "2", "--games", "1", "--workers", "1", "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert re.fullmatch(rf"battlelog: error: {re.escape(str(out))} is in use by another running experiment\n", captured.err)
