"""Game states: what the shots say, the spec's JSON format and structural validation."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from battlelog.errors import FileFormatError, FleetError, StateError, WriteError
from battlelog.players import make_player
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState, Shot
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import layout_for

CONFIG = GameConfig(5, (3, 3, 2))

#: The spec's format; ship 1 lies on C3-C5 and sinks at shot 3, then a miss on A1 and a hit on A2.
SPEC_EXAMPLE = {
    "size": 5,
    "ships": [3, 3, 2],
    "shots": [
        {"row": 2, "col": 3, "result": "hit"},
        {"row": 2, "col": 4, "result": "hit"},
        {"row": 2, "col": 2, "result": "sunk", "ship": 1},
        {"row": 0, "col": 0, "result": "miss"},
        {"row": 0, "col": 1, "result": "hit"},
    ],
}


def test_what_the_shots_say() -> None:
    state = GameState.from_json(SPEC_EXAMPLE)
    assert state.config == CONFIG
    assert state.misses == {(0, 0)}
    assert state.hits == {(2, 3), (2, 4), (2, 2), (0, 1)}
    assert state.hits_after(1) == {(2, 3), (2, 4)}
    assert state.hits_after(2) == {(2, 3), (2, 4), (2, 2)}
    assert state.sinks == ((1, 2, (2, 2)),)
    assert state.afloat == (0, 2) and not state.over
    assert len(state.unshot) == 20 and not set(state.unshot) & state.shot_cells
    assert state.prefix(2).shots == state.shots[:2]
    assert state.with_shot(4, 4, "miss").shots[-1] == Shot(4, 4, "miss")


def test_json_round_trip(tmp_path: Path) -> None:
    state = GameState.from_json(SPEC_EXAMPLE)
    assert state.to_json() == SPEC_EXAMPLE
    assert GameState.from_json(json.loads(json.dumps(state.to_json()))) == state
    path = tmp_path / "state.json"
    state.dump(path)
    assert GameState.load(path) == state
    finished = play_game(CONFIG, layout_for(CONFIG, 3, 0), make_player("pdf", 3)).state
    assert finished.over and GameState.from_json(finished.to_json()) == finished
    assert GameState.from_json({"size": 5, "ships": [3, 3, 2]}) == GameState.empty(CONFIG)  # shots may be left out


def _shots(*shots: tuple) -> list[dict]:
    out = []
    for row, col, result, *ship in shots:
        out.append({"row": row, "col": col, "result": result, **({"ship": ship[0]} if ship else {})})
    return out


@pytest.mark.parametrize(
    "shots, message",
    [
        (_shots((0, 0, "miss"), (0, 0, "hit")), "shot 2 repeats cell A1, already shot at shot 1"),
        (_shots((5, 0, "miss")), "shot 1 at row 5, column 0 is off the 5x5 board"),
        (_shots((0, -1, "miss")), "shot 1 at row 0, column -1 is off the 5x5 board"),
        (_shots((0, 0, "splash")), "shot 1 has result 'splash'"),
        (_shots((0, 0, "hit"), (0, 1, "sunk", 3)), "shot 2 sinks ship 3, but the fleet 3,3,2 has ships 0..2"),
        (_shots((0, 0, "sunk")), "shot 1 (A1) is a sunk answer without a ship index: say which of ships 0..2"),
        (_shots((0, 0, "hit"), (0, 1, "sunk", 2), (1, 0, "hit"), (1, 1, "sunk", 2)), "shot 4 sinks ship 2 again"),
        (_shots((0, 0, "hit", 1)), "shot 1 is a hit but names ship 1"),
        (_shots((0, 0, "hit"), (0, 1, "sunk", 0)), "shot 2 sinks ship 0 of length 3 after only 2 hits"),
    ],
)
def test_states_that_break_the_rules_name_the_shot_at_fault(shots: list[dict], message: str) -> None:
    with pytest.raises(StateError, match=message.replace("(", r"\(").replace(")", r"\)")) as error:
        GameState.from_json({"size": 5, "ships": [3, 3, 2], "shots": shots})
    assert "\n" not in str(error.value)


def test_no_shot_after_the_last_sink_and_no_more_hits_than_ship_cells() -> None:
    config = GameConfig(3, (1,))
    with pytest.raises(StateError, match="shot 2 .* comes after every ship was already sunk"):
        GameState(config, (Shot(0, 0, "sunk", 0), Shot(0, 1, "miss")))
    with pytest.raises(StateError, match="hit number 2, more than the 1 ship cells"):
        GameState(config, (Shot(0, 0, "hit"), Shot(0, 1, "hit")))


@pytest.mark.parametrize(
    "data, message",
    [
        ([1, 2], "expected a JSON object with size, ships and shots"),
        ({"ships": [2]}, "missing key 'size'"),
        ({"size": 5}, "missing key 'ships'"),
        ({"size": "5", "ships": [2]}, "size must be a whole number"),
        ({"size": 5, "ships": "3,2"}, "ships must be a list of whole numbers"),
        ({"size": 5, "ships": [3, True]}, "ships must be a list of whole numbers"),
        ({"size": 5, "ships": [2], "shots": {}}, "shots must be a list"),
        ({"size": 5, "ships": [2], "shots": [{"row": 1, "col": 1}]}, "shot 1 must be an object with row, col and result"),
        ({"size": 5, "ships": [2], "shots": [{"row": 1.5, "col": 1, "result": "miss"}]}, "shot 1 has row 1.5"),
    ],
)
def test_malformed_json_is_a_file_format_error(data: object, message: str) -> None:
    with pytest.raises(FileFormatError, match=message):
        GameState.from_json(data, source="state.json")


@pytest.mark.parametrize(
    "data, message",
    [
        (
            {"size": 5, "ships": [2], "shot": [{"row": 0, "col": 0, "result": "hit"}]},
            "unknown key 'shot' (did you mean 'shots'?)",
        ),
        (
            {"size": 5, "ships": [2], "fleet": [2]},
            "unknown key 'fleet'; expected only 'size', 'rows', 'cols', 'ships', 'rules', 'prior', 'row_counts', 'col_counts', "
            "'shots'",
        ),
        ({"size": 5, "ships": [2], "shots": [{"row": 0, "column": 0, "result": "hit"}]}, "shot 1: unknown key 'column'"),
        (
            {"size": 5, "ships": [2], "shots": [{"row": 0, "col": 0, "result": "sunk", "shp": 0}]},
            "shot 1: unknown key 'shp' (did you mean 'ship'?)",
        ),
    ],
)
def test_unknown_keys_are_named_not_ignored(data: dict, message: str) -> None:
    with pytest.raises(FileFormatError, match=re.escape(f"state.json: {message}")):
        GameState.from_json(data, source="state.json")


def test_a_repeated_key_is_refused_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "twice.json"
    path.write_text('{"size": 5, "ships": [2], "shots": [{"row": 0, "col": 0, "result": "hit"}], "shots": []}')
    with pytest.raises(FileFormatError, match=f"{re.escape(str(path))}: key 'shots' appears twice in one object"):
        GameState.load(path)
    path.write_text('{"size": 5, "ships": [2], "shots": [{"row": 0, "col": 0, "result": "hit", "result": "miss"}]}')
    with pytest.raises(FileFormatError, match="key 'result' appears twice"):
        GameState.load(path)


def test_a_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    text = '{"size": 5, "ships": [2], "shots": [], "note": "café"}'
    path.write_bytes(text.encode("latin-1"))
    where = f"not UTF-8 text (byte 0xe9 at offset {text.index('é')})"
    with pytest.raises(FileFormatError, match=f"{re.escape(str(path))}: {re.escape(where)}"):
        GameState.load(path)
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + json.dumps(SPEC_EXAMPLE).encode())  # a byte-order mark is still UTF-8
    assert GameState.load(bom) == GameState.from_json(SPEC_EXAMPLE)


def test_dump_replaces_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    GameState.from_json(SPEC_EXAMPLE).dump(path)
    GameState.empty(CONFIG).dump(path)
    assert GameState.load(path) == GameState.empty(CONFIG)
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]  # no scratch file left behind
    with pytest.raises(WriteError, match="cannot write"):
        GameState.empty(CONFIG).dump(tmp_path / "no" / "such" / "dir.json")


def test_a_state_of_an_impossible_fleet_is_a_fleet_error() -> None:
    with pytest.raises(FleetError, match="does not fit on a 5x5 board"):
        GameState.from_json({"size": 5, "ships": [6], "shots": []})


def test_load_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(FileFormatError, match="missing.json: cannot read"):
        GameState.load(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"size": 5, "ships": [3, 2],\n "shots": [}')
    with pytest.raises(FileFormatError, match=r"broken.json: not valid JSON \(.* at line 2\)"):
        GameState.load(broken)
