"""What battlelog prints about counts and about input: "1 hit", not "1 hits"; a fleet named by its
size when it would not fit on a line; no line of input repeated whole in a message."""

from __future__ import annotations

from pathlib import Path

import pytest

from battlelog.cli import main
from battlelog.errors import BattlelogError, FileFormatError, StateError
from battlelog.rules.config import GameConfig, parse_ships
from battlelog.rules.state import GameState
from battlelog.wording import clip, count_noun


def test_counts_take_the_plural_only_when_not_one() -> None:
    assert [count_noun(n, "layout") for n in (0, 1, 2, 1234)] == ["0 layouts", "1 layout", "2 layouts", "1,234 layouts"]
    assert clip("abc", 3) == "abc" and clip("abcd", 3) == "..." and clip("x" * 100) == "x" * 57 + "..."


def test_a_sink_after_one_hit_says_one_hit() -> None:
    with pytest.raises(StateError, match=r"sinks ship 0 of length 2 after only 1 hit$"):
        GameState.empty(GameConfig(4, (2,))).with_shot(0, 0, "sunk", 0)


def test_a_huge_fleet_is_named_by_its_size_in_one_short_line() -> None:
    with pytest.raises(BattlelogError) as refused:
        GameConfig(5, (3,) * 1000)
    assert str(refused.value) == "fleet (1,000 ships, 3,000 cells) has 3000 ship cells, more than the 25 cells of a 5x5 board"
    assert GameConfig(26, (1,) * 676).label() == "26x26 (676 ships, 676 cells)"
    assert GameConfig(10, (5, 4, 3, 3, 2)).label() == "10x10 5,4,3,3,2"


@pytest.mark.parametrize(
    "data",
    [
        {"size": 5, "ships": ["x"] * 1000},
        {"size": "9" * 1000, "ships": [2]},
        {"size": 5, "ships": [2], "shots": [{"row": "r" * 1000, "col": 0, "result": "miss"}]},
        {"size": 5, "ships": [2], "shots": [{"row": 0, "col": 0, "result": "m" * 1000}]},
        {"size": 5, "ships": [2], "k" * 1000: 1},
    ],
)
def test_messages_repeat_at_most_a_little_of_a_file(data: dict) -> None:
    with pytest.raises(BattlelogError) as refused:
        GameState.from_json(data)
    assert len(str(refused.value)) < 200, str(refused.value)


def test_a_bad_fleet_on_the_command_line_is_echoed_clipped() -> None:
    with pytest.raises(BattlelogError, match=r"^fleet '3,3,3,.*\.\.\.' is not a comma-separated list") as refused:
        parse_ships("3," * 1000 + "x")
    assert len(str(refused.value)) < 150


def test_a_repeated_long_key_is_clipped(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"' + "k" * 1000 + '": 1, "' + "k" * 1000 + '": 2}')
    with pytest.raises(FileFormatError) as refused:
        GameState.load(path)
    assert len(str(refused.value)) < 100 + len(str(path))


def test_one_game_is_one_game(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "one"
    argv = [
        "experiment", "--size", "4", "--ships", "2", "--players", "random", "--games", "1", "--workers", "1", "--out", str(out),
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert (
        "played 1 game (0 failed); 0 games recorded before this run" in printed
        and f": 1 game recorded in {out / 'games.jsonl'}" in printed
    )
