"""The advise command: a whole game driven through standard input, undo, files, and refused answers."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from battlelog.cli import main
from battlelog.errors import BattlelogError, ShotError
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import cell_name
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState
from battlelog.runner.seeds import layout_for
from battlelog.views.advise import Answer, Command, parse_command

from engine_cases import reference

CONFIG = GameConfig(5, (3, 3, 2))
BOARD = ["--size", "5", "--ships", "3,3,2"]
SUGGESTION = re.compile(r"^suggested shot: ([A-Z]\d+) \((\d+\.\d)% chance of a hit")


@pytest.mark.parametrize(
    "line, command",
    [
        ("miss", Answer(None, "miss")),
        ("  HIT ", Answer(None, "hit")),
        ("sunk 2", Answer(None, "sunk", 2)),
        ("sunk", Answer(None, "sunk")),
        ("c4 hit", Answer((2, 3), "hit")),
        ("E5   sunk 0", Answer((4, 4), "sunk", 0)),
        ("undo", Command("undo")),
        ("save my  game.json ", Command("save", "my  game.json")),
        ("load g.json", Command("load", "g.json")),
        ("quit", Command("quit")),
    ],
)
def test_commands_are_parsed(line: str, command: Answer | Command) -> None:
    assert parse_command(line, 5) == command


@pytest.mark.parametrize(
    "line, error, message",
    [
        ("boom", BattlelogError, "'boom' is not a command"),
        ("   ", BattlelogError, "an empty line says nothing"),
        ("hit 2", BattlelogError, "only a sunk answer names a ship: hit, not hit 2"),
        ("F1 miss", ShotError, "'F1' is not a cell of the 5x5 board"),
        ("save", BattlelogError, "save needs a file name"),
        ("undo 2", BattlelogError, "'undo 2' is not a command"),
    ],
)
def test_malformed_commands_say_what_is_expected(line: str, error: type, message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        parse_command(line, 5)


class Session:
    """``battlelog advise`` in a child process whose standard input and output are pipes."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "battlelog.cli", "advise", *argv],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
        )  # fmt: skip
        self.watchdog = threading.Timer(120, self.proc.kill)  # a hung session fails the test instead of hanging it
        self.watchdog.start()
        self.transcript: list[str] = []

    def reply(self) -> str:
        """Read up to the end of a reply (a suggestion, the end of the game or a refusal) and return that line."""
        assert self.proc.stdout is not None
        while line := self.proc.stdout.readline():
            self.transcript.append(line)
            if SUGGESTION.match(line) or line.startswith(("every ship is sunk", "refused: ")):
                return line.rstrip("\n")
        raise AssertionError("the advisor stopped talking:\n" + "".join(self.transcript[-30:]))

    def say(self, line: str) -> str:
        assert self.proc.stdin is not None
        self.transcript.append(f"> {line}\n")
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.reply()

    def close(self) -> tuple[int, str]:
        """End of input: the exit status and the standard error."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        status = self.proc.wait(timeout=60)
        self.watchdog.cancel()
        return status, self.proc.stderr.read()


def suggested_cell(reply: str, state: GameState) -> tuple[int, int]:
    """The suggested cell, checked to be a most likely unshot cell under the exact posterior."""
    match = SUGGESTION.match(reply)
    assert match, reply
    cell = ("ABCDE".index(match[1][0]), int(match[1][1:]) - 1)
    cells, _ = reference(state)
    best = max(cells[c] for c in state.unshot)
    assert cell in state.unshot and cells[cell] == pytest.approx(best, abs=1e-9)
    assert float(match[2]) == pytest.approx(100 * best, abs=0.05)
    return cell


def test_a_scripted_session_plays_a_whole_game_and_wins(tmp_path: Path) -> None:
    """The test is the opponent: it answers every suggestion from a hidden layout, through a pipe.

    On the way it gives one answer that the rules refuse, one wrong answer that it takes back with
    undo, and one shot at another cell than the suggested one; the file follows every step.
    """
    layout = layout_for(CONFIG, 4, 0)
    referee = Referee(CONFIG, layout)
    saved = tmp_path / "game.json"
    session = Session([*BOARD, "--state", str(saved)], tmp_path)
    try:
        reply, state = session.reply(), GameState.empty(CONFIG)
        detours = set()
        while not referee.over:
            cell = suggested_cell(reply, state)
            if state.hits and "refused" not in detours:
                assert session.say("sunk 99").startswith("refused: shot ")  # no ship 99
                detours.add("refused")
            if len(state.shots) == 2 and "undo" not in detours:
                cells, _ = reference(state)
                doubt = next(c for c in state.unshot if 0 < cells[c] < 1)  # either answer keeps a layout
                lie = "miss" if doubt in {x for p in layout for x in p.cells} else "hit"
                assert not session.say(f"{cell_name(doubt)} {lie}").startswith("refused")
                assert json.loads(saved.read_text())["shots"][-1] == {"row": doubt[0], "col": doubt[1], "result": lie}
                reply = session.say("undo")
                assert json.loads(saved.read_text()) == state.to_json()
                detours.add("undo")
                continue
            words = []
            if len(state.shots) == 4 and "elsewhere" not in detours:
                cell = next(c for c in reversed(state.unshot) if c != cell)  # the user shot another cell
                words.append(cell_name(cell))
                detours.add("elsewhere")
            result, ship = referee.shoot(*cell)
            words += [result] + ([str(ship)] if ship is not None else [])
            reply = session.say(" ".join(words))
            state = state.with_shot(*cell, result, ship)
            assert json.loads(saved.read_text()) == state.to_json()  # saved after every answer
        assert reply == f"every ship is sunk after {len(state.shots)} shots (undo to take back the last answer, or quit)"
        assert session.close() == (0, "")
    finally:
        session.proc.kill()
    assert detours == {"refused", "undo", "elsewhere"}
    assert GameState.load(saved) == state and state.over


def advise(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch, argv: list[str], lines: list[str]) -> str:
    """Run ``battlelog advise ARGV`` in-process with ``lines`` as standard input; its output."""
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    assert main(["advise", *argv]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def test_a_contradictory_answer_is_refused_with_the_reason_and_nothing_is_lost(capsys, monkeypatch, tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    out = advise(capsys, monkeypatch, [*BOARD, "--state", str(saved)], ["A1 hit", "A2 miss", "B1 miss", "show"])
    assert "refused: B1 miss contradicts the earlier answers: no ship can cover the hit at A1" in out
    assert [shot.cell for shot in GameState.load(saved).shots] == [(0, 0), (0, 1)]
    assert out.count("suggested shot: ") == 4  # the start, two answers, and show after the refusal


def test_a_session_continues_from_its_file_and_undo_takes_back_shots(capsys, monkeypatch, tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    advise(capsys, monkeypatch, [*BOARD, "--state", str(saved)], ["C3 hit", "quit", "C4 hit"])
    assert [s.cell for s in GameState.load(saved).shots] == [(2, 2)]  # nothing after quit is read
    out = advise(capsys, monkeypatch, ["--state", str(saved)], ["C4 hit", "undo", "undo", "undo"])
    assert "took back C4 hit" in out and "took back C3 hit" in out and "refused: nothing to undo: no shot yet" in out
    assert GameState.load(saved) == GameState.empty(CONFIG)


def test_save_writes_a_copy_and_load_moves_the_session(capsys, monkeypatch, tmp_path: Path) -> None:
    first, copy = tmp_path / "first.json", tmp_path / "copy.json"
    out = advise(capsys, monkeypatch, [*BOARD, "--state", str(first)], ["A1 miss", f"save {copy}", f"load {copy}", "B2 miss"])
    assert f"continuing the game in {copy} (1 shot)" in out
    assert len(GameState.load(first).shots) == 1 and len(GameState.load(copy).shots) == 2
    nowhere = tmp_path / "no" / "dir.json"
    out = advise(capsys, monkeypatch, ["--state", str(copy)], [f"save {nowhere}", f"load {nowhere}", "C3 miss"])
    assert f"refused: {nowhere}: cannot write" in out and f"refused: {nowhere}: cannot read" in out
    assert len(GameState.load(copy).shots) == 3  # the session went on in its own file


def test_loading_a_contradictory_game_names_the_shot_at_fault(capsys, monkeypatch, tmp_path: Path) -> None:
    bad = Path(__file__).parent / "fixtures" / "contradictory_5x5.json"
    out = advise(capsys, monkeypatch, [*BOARD, "--state", str(tmp_path / "g.json")], [f"load {bad}"])
    assert f"refused: {bad}: contradictory state: shot 3 (E5, sunk ship 0)" in out


def test_a_sink_names_its_ship_or_is_inferred_when_only_one_can_sink(capsys, monkeypatch, tmp_path: Path) -> None:
    saved = tmp_path / "g.json"
    out = advise(capsys, monkeypatch, ["--size", "4", "--ships", "3,2", "--state", str(saved)], ["A1 hit", "A2 sunk"])
    assert "A2 sunk 1: saved" in out  # two hits can only have sunk the ship of length 2
    out = advise(
        capsys, monkeypatch, ["--size", "4", "--ships", "2,2", "--state", str(tmp_path / "h.json")], ["A1 hit", "A2 sunk"]
    )
    assert "A2 sunk 0 (ships 0 and 1 are alike here: taken as ship 0): saved" in out  # equal lengths: either will do
    assert GameState.load(tmp_path / "h.json").shots[-1].ship == 0
    out = advise(
        capsys, monkeypatch, ["--size", "4", "--ships", "3,2", "--state", str(tmp_path / "i.json")],
        ["A1 hit", "A2 hit", "A3 sunk"],
    )
    assert "refused: a sink at A3 could be ship 0 (length 3) or 1 (length 2): say which, e.g. sunk 0" in out


def test_a_new_session_without_a_file_gets_a_fresh_one(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    out = advise(capsys, monkeypatch, BOARD, ["E5 miss"])
    (path,) = tmp_path.glob("advise-*.json")
    assert f"saving the game to {path.name} after every answer (continue it with --state {path.name})" in out
    assert len(GameState.load(path).shots) == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "give --size and --ships for a new game, or --state FILE to continue one"),
        (["--state", "{fixture}", "--size", "5"], "give both --size and --ships, or neither"),
        (["--state", "{tmp}/none.json"], "{tmp}/none.json does not exist: give --size and --ships"),
        (["--state", "{fixture}", "--size", "5", "--ships", "3,2"], "holds a game on 5x5 3,3,2, not on 5x5 3,2"),
        (["--state", "{contradictory}"], "contradictory state: shot 3 (E5, sunk ship 0)"),
    ],
)
def test_bad_sessions_are_one_line_errors(capsys, tmp_path: Path, argv: list[str], message: str) -> None:
    fixtures = Path(__file__).parent / "fixtures"
    names = {"tmp": tmp_path, "fixture": fixtures / "midgame_5x5.json", "contradictory": fixtures / "contradictory_5x5.json"}
    assert main(["advise", *(arg.format(**names) for arg in argv)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("battlelog: error: ") and message.format(**names) in err, err


def test_a_place_that_cannot_be_written_is_one_line_and_save_there_is_refused(capsys, monkeypatch, tmp_path: Path) -> None:
    (tmp_path / "ro").write_text("a regular file: nothing can be written under it, not even as root")
    assert main(["advise", *BOARD, "--state", str(tmp_path / "ro" / "s.json")]) == 2
    err = capsys.readouterr().err
    assert err == f"battlelog: error: {tmp_path / 'ro' / 's.json'}: cannot write (Not a directory)\n"
    out = advise(
        capsys, monkeypatch, [*BOARD, "--state", str(tmp_path / "g.json")], [f"save {tmp_path / 'ro' / 'copy.json'}", "A1 miss"]
    )
    assert f"refused: {tmp_path / 'ro' / 'copy.json'}: cannot write (Not a directory)" in out and "A1 miss: saved to" in out
