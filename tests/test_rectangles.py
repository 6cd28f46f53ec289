"""Rectangular boards (R rows x C columns) outside the engines: the configuration, the JSON formats,
boards drawn uniformly, the command line, experiments and the players.

Expected values come from the spec (docs/formats.md, docs/rules.md) and from the independent oracle
(tests/oracle.py), never from battlelog itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chisquare

from battlelog.cli import main
from battlelog.errors import FileFormatError, FleetError
from battlelog.players import make_player
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import parse_cell
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.loop import play_game
from battlelog.runner.records import GAMES, MANIFEST, check_record, read_manifest
from battlelog.runner.seeds import game_seeds, layout_for

import oracle
from runs import experiment_in, one_line_error

FLEET = (5, 4, 3, 3, 2)


# ----- the configuration ---------------------------------------------------------------------------
def test_a_rectangle_has_rows_and_columns_and_a_square_is_unchanged() -> None:
    danish = GameConfig(12, FLEET, cols=10)
    assert (danish.rows, danish.cols, danish.cell_count) == (12, 10, 120)
    assert danish.label() == "12x10 5,4,3,3,2"
    assert GameConfig(8, FLEET, Rules("none"), cols=12).label() == "8x12 5,4,3,3,2 (no contact)"
    assert GameConfig(10, FLEET) == GameConfig(10, FLEET, cols=10) == GameConfig(10, FLEET, Rules(), 10)
    assert GameConfig(10, FLEET).size == 10 and GameConfig(10, FLEET).label() == "10x10 5,4,3,3,2"
    with pytest.raises(FleetError, match="^the 12x10 board is not square: it has rows and columns, not one size$"):
        _ = danish.size


def test_placements_of_a_rectangle_are_counted_from_the_spec() -> None:
    """R x C board, ship of length L: R * (C - L + 1) across, (R - L + 1) * C down (none when negative);
    a ship of length 1 has one placement per cell."""
    for rows, cols, length in ((3, 5, 3), (5, 3, 3), (2, 6, 5), (4, 7, 1)):
        config = GameConfig(rows, (length,), cols=cols)
        across = rows * max(0, cols - length + 1)
        down = max(0, rows - length + 1) * cols if length > 1 else 0
        placements = config.placements(0)
        assert len(placements) == across + down
        assert all(0 <= r < rows and 0 <= c < cols for p in placements for r, c in p.cells)


@pytest.mark.parametrize(
    ("rows", "ships", "cols", "message"),
    [
        (27, (2,), 10, "27 rows is too large: rows are lettered A..Z, so at most 26"),
        (10, (2,), 27, "27 columns is too many: boards are at most 26 wide"),
        (10, (2,), 0, "columns must be a positive whole number, got 0"),
        (0, (2,), 5, "rows must be a positive whole number, got 0"),
        (3, (6,), 5, "ship 0 of length 6 does not fit on a 3x5 board"),
        (2, (3, 3, 3, 3), 5, "fleet 3,3,3,3 has 12 ship cells, more than the 10 cells of a 2x5 board"),
        (2, (3, 2), 4, "fleet 3,2 cannot be laid out on a 2x4 board with no contact"),
    ],
)
def test_bad_rectangles_are_one_line(rows: int, ships: tuple[int, ...], cols: int, message: str) -> None:
    rules = Rules("none") if "no contact" in message else Rules()
    with pytest.raises(FleetError) as exc:
        GameConfig(rows, ships, rules, cols=cols)
    assert str(exc.value) == message


def test_a_ship_that_fits_one_way_only_is_fine() -> None:
    config = GameConfig(2, (5,), cols=6)  # across only
    assert {p.horizontal for p in config.placements(0)} == {True}
    assert parse_cell("B6", 2, 6) == (1, 5)
    with pytest.raises(Exception, match="is not a cell of the 2x6 board \\(rows A..B, columns 1..6"):
        parse_cell("C1", 2, 6)


# ----- JSON ------------------------------------------------------------------------------------------
def test_state_json_writes_size_for_squares_and_rows_cols_for_rectangles(tmp_path: Path) -> None:
    square = GameState.empty(GameConfig(5, (3, 2))).with_shot(0, 0, "miss")
    assert json.dumps(square.to_json()) == '{"size": 5, "ships": [3, 2], "shots": [{"row": 0, "col": 0, "result": "miss"}]}'
    wide = GameState.empty(GameConfig(3, (3, 2), Rules(sinks="unnamed"), cols=5)).with_shot(2, 4, "hit")
    data = wide.to_json()
    assert list(data)[:3] == ["rows", "cols", "ships"] and "size" not in data
    assert GameState.from_json(json.loads(json.dumps(data))) == wide
    wide.dump(tmp_path / "wide.json")
    assert GameState.load(tmp_path / "wide.json") == wide
    as_rows = GameState.from_json({"rows": 5, "cols": 5, "ships": [3, 2], "shots": []})
    assert as_rows.config == GameConfig(5, (3, 2)) and "size" in as_rows.to_json()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"size": 5, "rows": 5, "cols": 5, "ships": [2]},
            "give the board as either size or both rows and cols, got size, rows, cols",
        ),
        ({"rows": 3, "ships": [2]}, "give the board as either size or both rows and cols, got rows"),
        ({"cols": 3, "ships": [2]}, "give the board as either size or both rows and cols, got cols"),
        ({"size": 4, "cols": 3, "ships": [2]}, "got size, cols"),
        ({"rows": "3", "cols": 4, "ships": [2]}, "rows must be a whole number, got '3'"),
        ({"rows": 3, "cols": True, "ships": [2]}, "cols must be a whole number, got True"),
        ({"ships": [2]}, "missing key 'size'"),
    ],
)
def test_bad_boards_in_state_json_are_one_line(data: dict, message: str) -> None:
    with pytest.raises(FileFormatError) as exc:
        GameState.from_json(data, "state.json")
    assert str(exc.value).startswith("state.json: ") and message in str(exc.value) and "\n" not in str(exc.value)


def test_a_shot_off_a_rectangle_is_one_line() -> None:
    with pytest.raises(Exception, match="shot 1 at row 0, column 5 is off the 3x5 board"):
        GameState.from_json({"rows": 3, "cols": 5, "ships": [2], "shots": [{"row": 0, "col": 5, "result": "miss"}]})


def test_marginals_json_of_a_rectangle(capsys: pytest.CaptureFixture) -> None:
    """``rows``, ``cols``, no ``size``; ``cells`` R rows of C, equal to the oracle's; ``size`` on squares."""
    assert main(["marginals", "--rows", "3", "--cols", "5", "--ships", "3,2,1", "--touch", "diagonal", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"rows", "cols", "models", "cells"} and (data["rows"], data["cols"]) == (3, 5)
    table = oracle.layouts(3, (3, 2, 1), "diagonal", 5)
    assert data["models"] == len(table)
    np.testing.assert_allclose(data["cells"], oracle.cell_marginals(table, np.arange(len(table))), atol=1e-9)
    assert main(["marginals", "--rows", "4", "--cols", "4", "--ships", "2", "--json"]) == 0
    square = json.loads(capsys.readouterr().out)
    assert (square["size"], square["rows"], square["cols"]) == (4, 4, 4)


# ----- boards drawn uniformly ----------------------------------------------------------------------
@pytest.mark.parametrize("touch", ["allowed", "diagonal", "none"])
def test_boards_of_a_rectangle_are_uniform(touch: str) -> None:
    """Chi-square over every layout the oracle lists on 3x4 with ships 2 and 1, of the boards of games 0.."""
    table = oracle.layouts(3, (2, 1), touch, 4)
    index = {spots: k for k, spots in enumerate(table.spots)}
    config = GameConfig(3, (2, 1), Rules(touch), cols=4)
    seen: Counter[int] = Counter()
    for game in range(30 * len(table)):
        layout = layout_for(config, 13, game)
        seen[index[tuple((p.length, p.row, p.col, p.horizontal) for p in layout)]] += 1  # KeyError: an illegal layout
    assert len(seen) == len(table)
    assert chisquare(np.array([seen[k] for k in range(len(table))])).pvalue > 1e-3


# ----- players ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("player", ["random", "hunt-target", "parity", "pdf", "problog", "thompson", "info", "lookahead"])
@pytest.mark.parametrize("touch", ["allowed", "none"])
def test_every_player_finishes_a_game_on_a_rectangle(player: str, touch: str) -> None:
    """Every shot on the board, once each, until every ship cell is hit; the layout is legal."""
    config = GameConfig(3, (3, 2, 1), Rules(touch), cols=5)
    layout = layout_for(config, 3, 0)
    assert config.rules.legal(layout, 3, 5)
    result = play_game(config, layout, make_player(player, game_seeds(3, 0)[1]))
    cells = [s.cell for s in result.state.shots]
    assert len(cells) == len(set(cells)) and all(0 <= r < 3 and 0 <= c < 5 for r, c in cells)
    assert {cell for p in layout for cell in p.cells} <= set(cells) and result.score == len(cells)


@pytest.mark.parametrize(("player", "options", "rows", "cols"), [("mc", {"samples": 50}, 3, 5), ("optimal", {}, 2, 3)])
def test_the_sampling_and_optimal_players_finish_a_game_on_a_rectangle(player: str, options: dict, rows: int, cols: int) -> None:
    config = GameConfig(rows, (2, 1), cols=cols)
    layout = layout_for(config, 3, 0)
    result = play_game(config, layout, make_player(player, game_seeds(3, 0)[1], **options))
    cells = [s.cell for s in result.state.shots]
    assert len(cells) == len(set(cells)) and all(0 <= r < rows and 0 <= c < cols for r, c in cells)
    assert {cell for p in layout for cell in p.cells} <= set(cells)


# ----- the command line and experiments -----------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["marginals", "--rows", "3", "--ships", "2"], "--rows needs --cols too (or give --size N for a square board)"),
        (["marginals", "--cols", "3", "--ships", "2"], "--cols needs --rows too"),
        (
            ["marginals", "--size", "3", "--rows", "3", "--cols", "4", "--ships", "2"],
            "give --size N for a square board or --rows R --cols C, not both",
        ),
        (["script", "--rows", "3", "--cols", "27", "--ships", "2"], "27 columns is too many"),
        (["play", "--rows", "2", "--ships", "2"], "--rows needs --cols too"),
        (["play", "--ships", "2"], "give the board: --size N, or --rows R and --cols C"),
        (["optimal", "--rows", "2", "--cols", "3", "--ships", "4"], "ship 0 of length 4 does not fit on a 2x3 board"),
        (
            ["experiment", "--rows", "2", "--size", "2", "--ships", "2", "--players", "random", "--games", "1", "--out", "x"],
            "not both",
        ),
    ],
)
def test_bad_board_options_are_one_line(capsys: pytest.CaptureFixture, argv: list[str], message: str) -> None:
    one_line_error(capsys, argv, message)


def test_script_of_a_rectangle_names_its_rows_and_columns(capsys: pytest.CaptureFixture) -> None:
    assert main(["script", "--rows", "2", "--cols", "4", "--ships", "2"]) == 0
    program = capsys.readouterr().out
    assert "Battleship on a 2x4 board" in program and "rows(2). cols(4)." in program and "size(" not in program
    assert program.count("::place(0,") == 2 * 3 + 4  # 6 across, 4 down


def test_play_on_a_rectangle(capsys: pytest.CaptureFixture) -> None:
    assert main(["play", "--rows", "3", "--cols", "6", "--ships", "3,2", "--player", "pdf", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = max(i for i, line in enumerate(lines) if line.split() == ["1", "2", "3", "4", "5", "6"])
    board = lines[start : start + 4]  # the last board shown: a header and rows A..C of six cells
    assert [line.split()[0] for line in board[1:]] == ["A", "B", "C"] and all(len(line.split()) == 7 for line in board[1:])
    assert "pdf sank 3x6 3,2 in" in out


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return experiment_in(
        tmp_path_factory, "rect", "--rows", "3", "--cols", "5", "--ships", "3,2", "--players", "random,pdf", "--games", "3",
        "--seed", "2",
    )


def test_an_experiment_on_a_rectangle_records_rows_and_cols(wide: Path) -> None:
    assert json.loads((wide / MANIFEST).read_text()) == {"rows": 3, "cols": 5, "ships": [3, 2], "seed": 2}
    manifest = read_manifest(wide)
    config = GameConfig(3, (3, 2), cols=5)
    for k, line in enumerate((wide / GAMES).read_text().splitlines()):
        record = json.loads(line)
        assert record["status"] == "ok" and (record["rows"], record["cols"]) == (3, 5) and "size" not in record
        check_record(record, f"line {k + 1}", manifest)
        board = layout_for(config, 2, record["game"])
        assert [(p["row"], p["col"], p["orientation"]) for p in record["layout"]] == [
            (p.row, p.col, p.orientation) for p in board
        ]
    assert "3x5 3,2 with seed 2" in (wide / "summary.md").read_text()


@pytest.mark.parametrize(
    ("board", "message"),
    [
        (["--size", "5"], "holds an experiment on 3x5 3,2 with seed 2, not 5x5 3,2 with seed 2"),
        (["--rows", "5", "--cols", "3"], "not 5x3 3,2 with seed 2"),
    ],
)
def test_resuming_a_rectangle_with_another_board_is_refused(
    capsys: pytest.CaptureFixture, wide: Path, board: list[str], message: str
) -> None:
    before = (wide / GAMES).read_bytes()
    argv = ["experiment", *board, "--ships", "3,2", "--players", "random", "--games", "3", "--seed", "2", "--workers", "1"]
    one_line_error(capsys, [*argv, "--out", str(wide)], message)
    assert (wide / GAMES).read_bytes() == before


def test_replay_of_a_rectangle(capsys: pytest.CaptureFixture, wide: Path, tmp_path: Path) -> None:
    assert main(["replay", str(wide), "--game", "0", "--player", "pdf", "--out", str(tmp_path / "replay")]) == 0
    assert "pdf on 3x5 3,2 (game 0" in capsys.readouterr().out
    page = next((tmp_path / "replay").glob("*.html")).read_text()
    assert '"rows": 3' in page and '"cols": 5' in page and '"size"' not in page


def test_advise_scripted_on_a_rectangle(tmp_path: Path) -> None:
    """Answers typed on a 3x4 board: A5 is off it (refused), the game is saved as rows and cols, and
    after A1 hit, A2 sunk 0 the 2 lies on A1-A2 and the 1 on one of the 10 other cells."""
    lines = "A1 hit\nA5 miss\nA2 sunk 0\nquit\n"
    argv = [
        sys.executable, "-m", "battlelog.cli", "advise", "--rows", "3", "--cols", "4", "--ships", "2,1", "--state", "game.json",
        "--no-color",
    ]
    done = subprocess.run(argv, input=lines, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "refused: 'A5' is not a cell of the 3x4 board (rows A..C, columns 1..4" in done.stdout
    assert "\n10 layouts fit your answers\n" in done.stdout
    saved = json.loads((tmp_path / "game.json").read_text())
    assert (saved["rows"], saved["cols"]) == (3, 4) and "size" not in saved and len(saved["shots"]) == 2


def test_the_worked_rectangle_of_the_rules_page() -> None:
    """docs/rules.md: 2x3 with ships 2 and 1. Touching allowed: 28 layouts, corners covered in 13,
    the middle column in 16; no contact: 4 layouts, the middle column empty. Counted by the oracle
    and by the native engine."""
    from battlelog.engines import make_engine

    for touch, models, corner, middle in (("allowed", 28, 13, 16), ("none", 4, 3, 0)):
        table = oracle.layouts(2, (2, 1), touch, 3)
        assert len(table) == models
        covered = (table.owner >= 0).sum(axis=0).reshape(2, 3)
        assert covered.tolist() == [[corner, middle, corner]] * 2
        got = make_engine("native").marginals(GameState.empty(GameConfig(2, (2, 1), Rules(touch), cols=3)))
        assert got.models == models
        np.testing.assert_allclose(got.cells, covered / models, atol=1e-12)
