"""A board a player's engine cannot count is refused in one line before the first game, leaving no files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from battlelog.cli import main
from battlelog.engines import engine_class
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.tables import SweepTables
from battlelog.errors import BattlelogError
from battlelog.model.ground import ground_problem
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import IDENTITY
from battlelog.runner.experiment import Experiment

TOO_WIDE = (
    "the native engine packs a frontier state into 64 bits, and a game on 26x26 5,4,3,3,2 needs 86 "
    "(27 fields of 3 bits and 5 bits of ship counts)"
)
#: The empty board fits a 64-bit key (3 bits per field, 4 bits of counts: 61), a game after six sinks does not.
SPLIT = GameConfig(18, (5, 3, 3, 3, 3, 3, 3, 3))


def six_sinks() -> GameState:
    """SPLIT after sinking six of its 3-ships one by one: every ship is now a kind of its own."""
    state = GameState.empty(SPLIT)
    for i in range(6):
        state = state.with_shot(2 * i, 0, "hit").with_shot(2 * i, 1, "hit").with_shot(2 * i, 2, "sunk", 1 + i)
    return state


def test_the_native_check_is_the_bound_its_tables_meet_mid_game() -> None:
    assert SweepTables(ground_problem(GameState.empty(SPLIT)), IDENTITY).key_bits == 61  # the empty board fits
    with pytest.raises(
        BattlelogError, match=re.escape("18x18 5,3,3,3,3,3,3,3 needs 65 (19 fields of 3 bits and 8 bits of ship counts)")
    ):
        NativeEngine().marginals(six_sinks())  # six sinks later, the game dies
    with pytest.raises(
        BattlelogError, match=re.escape("a game on 18x18 5,3,3,3,3,3,3,3 needs 65 (19 fields of 3 bits and 8 bits")
    ):
        NativeEngine.check_board(SPLIT)
    NativeEngine.check_board(GameConfig(18, (5, 4, 3, 3, 2)))  # 3 * 19 + 5 = 62 bits: accepted


def test_the_sdd_engine_refuses_more_than_64_ships() -> None:
    with pytest.raises(BattlelogError, match="the sdd engine handles fleets of at most 64 ships, not 65"):
        engine_class("sdd").check_board(GameConfig(9, (1,) * 65))
    engine_class("sdd").check_board(GameConfig(26, (5, 4, 3, 3, 2)))  # no limit of the board's size


@pytest.mark.parametrize(
    "player, options, other",
    [("problog", {}, "problog"), ("info", {"engine": "native"}, "problog"), ("thompson", {}, None), ("lookahead", {}, "sdd")],
)
def test_an_experiment_with_a_board_its_engine_cannot_count_is_refused(
    player: str, options: dict[str, str], other: str | None
) -> None:
    with pytest.raises(BattlelogError, match=re.escape(TOO_WIDE)):
        Experiment(GameConfig(26, (5, 4, 3, 3, 2)), (player,), 2, 0, {player: options} if options else {})
    if other is not None:  # another engine the player can use may (thompson samples only on the native engine)
        Experiment(GameConfig(26, (5, 4, 3, 3, 2)), (player,), 2, 0, {player: {"engine": other}})


def test_an_option_the_player_does_not_take_is_refused_before_any_game() -> None:
    with pytest.raises(BattlelogError, match=re.escape("player pdf does not take option engine (its options: none)")):
        Experiment(GameConfig(5, (3, 2)), ("pdf",), 2, 0, {"pdf": {"engine": "sdd"}})


@pytest.mark.parametrize(
    "words",
    [
        [
            "experiment", "--size", "26", "--ships", "5,4,3,3,2", "--players", "problog", "--games", "2", "--workers", "1",
            "--out", "{out}",
        ],
        ["play", "--size", "26", "--ships", "5,4,3,3,2", "--player", "problog", "--quiet"],
        ["advise", "--size", "26", "--ships", "5,4,3,3,2", "--state", "{out}"],
    ],
    ids=["experiment", "play", "advise"],
)
def test_commands_refuse_such_a_board_in_one_line_and_write_nothing(
    words: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main([w.format(out=out) for w in words]) == 2
    assert capsys.readouterr().err == f"battlelog: error: {TOO_WIDE}\n"
    assert not out.exists()


def test_replay_refuses_a_game_its_engine_cannot_count_before_making_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state.json"
    six_sinks().dump(state)
    out = tmp_path / "replay"
    assert main(["replay", str(state), "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith(
        "battlelog: error: the native engine packs a frontier state into 64 bits, and a game on 18x18"
    )
    assert not out.exists()
