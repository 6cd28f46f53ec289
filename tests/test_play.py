"""The play command: a computer player's game, and a human's game typed on standard input."""

from __future__ import annotations

import io
import re

import pytest

from battlelog.cli import main
from battlelog.commands.play import answer_text
from battlelog.players import make_player
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import cell_name
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

CONFIG = GameConfig(4, (3, 2))
BOARD = ["--size", "4", "--ships", "3,2"]


def run(capsys: pytest.CaptureFixture, argv: list[str], status: int = 0) -> str:
    assert main(argv) == status
    out, err = capsys.readouterr()
    assert err == "" if status == 0 else err.count("\n") == 1, err
    return out if status == 0 else err


def test_play_names_its_seed_and_shows_a_legend(capsys: pytest.CaptureFixture) -> None:
    out = run(capsys, ["play", *BOARD, "--seed", "5"]).splitlines()
    assert out[0] == "4x4 3,2, seed 5 (play this board again with --seed 5)"
    assert out[1] == "legend: . not shot, o miss, X hit, # sunk ship, s ship not hit yet"
    expected = play_game(CONFIG, layout_for(CONFIG, 5, 0), make_player("pdf", game_seeds(5, 0)[1])).state
    shots = [f"shot {t}: {answer_text(expected.prefix(t))}" for t in range(1, len(expected.shots) + 1)]
    assert [line for line in out if line.startswith("shot ")] == shots
    assert out[-1].startswith(f"pdf sank 4x4 3,2 in {len(expected.shots)} shots (best possible 5;")


def test_a_one_shot_game_says_shot(capsys: pytest.CaptureFixture) -> None:
    assert (
        run(capsys, ["play", "--size", "1", "--ships", "1", "--seed", "0"])
        .splitlines()[-1]
        .startswith("pdf sank 1x1 1 in 1 shot (")
    )


def test_without_a_seed_a_fresh_one_is_shown_and_replays_the_game(capsys: pytest.CaptureFixture) -> None:
    first = run(capsys, ["play", *BOARD, "--quiet"])
    seed = int(re.match(r"4x4 3,2, seed (\d+) ", first)[1])  # type: ignore[index]
    assert run(capsys, ["play", *BOARD, "--quiet", "--seed", str(seed)]).splitlines()[2:-1] == first.splitlines()[2:-1]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--seed", "-1"], "--seed -1: the seed must be a non-negative whole number"),
        (["--human", "--quiet"], "give --human or --quiet, not both"),
        (["--player", "pdf", "--engine", "sdd"], "--engine sdd: no player here takes an engine (pdf)"),
        (["--player", "pdf,random"], "--player pdf,random: name one player"),
        (["--player", "lookahead[width=two]"], "player lookahead: option width=two is not a whole number"),
    ],
)
def test_bad_play_options_are_one_line(capsys: pytest.CaptureFixture, extra: list[str], message: str) -> None:
    err = run(capsys, ["play", *BOARD, *extra], status=2)
    assert err.startswith("battlelog: error: ") and message in err


def test_a_human_wins_from_standard_input_and_meets_the_exact_players_score(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = layout_for(CONFIG, 9, 0)
    ships = [cell_name(cell) for p in layout for cell in p.cells]
    water = next(cell_name((r, c)) for r in range(4) for c in range(4) if cell_name((r, c)) not in ships)
    typed = [water, "Z9", "", water.lower(), *ships]  # a miss, a bad cell, a blank line, a repeat, then every ship cell
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(typed) + "\n"))
    out = run(capsys, ["play", *BOARD, "--human", "--seed", "9"])
    assert "'Z9' is not a cell of the 4x4 board" in out and f"{water} was already shot; choose another cell" in out
    assert " s " not in out.split("shot 1:")[1]  # the hidden ships are never shown while you play
    exact = play_game(CONFIG, layout, make_player("problog", game_seeds(9, 0)[1])).score
    assert out.splitlines()[-1] == (
        f"you sank 4x4 3,2 in 6 shots; problog needs {exact} shot{'s' if exact > 1 else ''} on the same board (best possible 5)"
    )


def test_a_human_who_quits_sees_the_ships(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("A1\nquit\n"))
    out = run(capsys, ["play", *BOARD, "--human", "--seed", "9"])
    assert "you stopped; the ships were here (with your shots):" in out
    rows = out.rstrip().splitlines()[-4:]
    assert [row.split()[0] for row in rows] == list("ABCD")
    a1 = rows[0].split()[1]
    assert a1 in ("o", "X")  # the shot fired before quitting is on the reveal
    assert sum(row.split().count("s") for row in rows) + (a1 == "X") == CONFIG.ship_cells
    assert sum(row.split().count(mark) for row in rows for mark in "oX#") == 1
