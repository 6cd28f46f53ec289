"""Replays: reading the game, the frames against brute force, the pictures, the page and the command."""

from __future__ import annotations

import json
import re
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageChops

from battlelog.cli import main
from battlelog.engines import make_engine
from battlelog.errors import BattlelogError, FileFormatError
from battlelog.players import Player, make_player
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.views.replay import colors
from battlelog.views.replay.frames import Frame, Replay, build_replay
from battlelog.views.replay.gif import sheet_image, write_gif, write_still
from battlelog.views.replay.page import render_page
from battlelog.views.replay.panels import (
    HIT_MARK,
    MISS_MARK,
    board_panel,
    frame_panels,
    heat_panel,
    percent_text,
    pictures,
    scores_panel,
)
from battlelog.views.replay.sources import Game, load_game

from engine_cases import reference
from runs import experiment_in

FIXTURES = Path(__file__).parent / "fixtures"
CONFIG = GameConfig(4, (3, 2))


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two games of pdf and problog on 4x4 3,2, played through the command line."""
    return experiment_in(
        tmp_path_factory, "replay", "--size", "4", "--ships", "3,2", "--players", "pdf,problog,random", "--games", "2", "--seed",
        "5",
    )


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


def record_file(tmp_path: Path, record: dict, name: str = "game.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(record))
    return path


# ----- where the game comes from ----------------------------------------------------------------
def test_a_game_of_an_experiment_is_its_record(experiment: Path) -> None:
    record = next(r for r in records(experiment) if r["game"] == 1 and r["player"] == "pdf")
    game = load_game(experiment, 1, "pdf")
    assert game.state.to_json() == {k: record[k] for k in ("size", "ships", "shots")}
    assert [(p.row, p.col, p.orientation) for p in game.layout or ()] == [
        (p["row"], p["col"], p["orientation"]) for p in record["layout"]
    ]
    assert game.player == "pdf" and game.title == "pdf on 4x4 3,2 (game 1, results, seed 5)"
    assert load_game(experiment / "games.jsonl", 1, "pdf") == game  # the games file names its folder


def test_a_record_file_and_a_state_file(experiment: Path, tmp_path: Path) -> None:
    record = next(r for r in records(experiment) if r["player"] == "problog")
    game = load_game(record_file(tmp_path, record))
    assert game.player == "problog" and game.layout is not None and game.options == {}  # the default engine is left out
    state = load_game(FIXTURES / "midgame_5x5.json", player="pdf")
    assert state.layout is None and state.player == "pdf" and len(state.state.shots) == 4


@pytest.mark.parametrize(
    "game, player, message",
    [
        (None, "pdf", "is an experiment: say which game with --game N (games 0..1 recorded)"),
        (7, None, "no game 7 (it has no game 7)"),
        (0, "info", "no game 0 of player info (game 0 was played by pdf, problog, random)"),
        (0, None, "game 0 was played by pdf, problog, random: say whose with --player"),
    ],
)
def test_choosing_a_game_of_an_experiment(experiment: Path, game: int | None, player: str | None, message: str) -> None:
    with pytest.raises(BattlelogError, match=re.escape(message)):
        load_game(experiment, game, player)


def test_a_failed_game_has_nothing_to_replay(experiment: Path, tmp_path: Path) -> None:
    out = tmp_path / "failed"
    out.mkdir()
    (out / "experiment.json").write_text((experiment / "experiment.json").read_text())
    failed = {**records(experiment)[0], "status": "timeout", "score": None, "shots": []}
    (out / "games.jsonl").write_text(json.dumps(failed) + "\n")
    with pytest.raises(
        BattlelogError, match=f"game {failed['game']} of {failed['player']} failed \\(timeout\\): there is nothing to replay"
    ):
        load_game(out, failed["game"], failed["player"])


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda r: {k: v for k, v in r.items() if k != "layout"}, "a game record needs 'layout'"),
        (lambda r: {**r, "layout": r["layout"][:1]}, "layout must list one placement per ship of 4x4 3,2"),
        (
            lambda r: {**r, "layout": [{**r["layout"][0], "row": 9}, r["layout"][1]]},
            "layout entry 0 is not a placement of ship 0",
        ),
        (
            lambda r: {**r, "layout": [r["layout"][0], {**r["layout"][1], "length": 3}]},
            "layout entry 1 is not a placement of ship 1 (length 2)",
        ),
        (lambda r: {**r, "layout": r["layout"][::-1]}, "layout entry 0 is not a placement of ship 0"),
        (lambda r: {**r, "shots": [{**r["shots"][0], "result": "hit" if r["shots"][0]["result"] == "miss" else "miss"}]},
         "shot 1 ({cell}) is recorded as"),
        (lambda r: {**r, "options": [1]}, "options must be an object"),
    ],
)
def test_a_damaged_record_is_refused_naming_the_fault(experiment: Path, tmp_path: Path, damage, message: str) -> None:
    record = next(r for r in records(experiment) if r["player"] == "pdf")
    cell = "ABCD"[record["shots"][0]["row"]] + str(record["shots"][0]["col"] + 1)
    with pytest.raises(FileFormatError, match=re.escape(message.format(cell=cell))):
        load_game(record_file(tmp_path, damage(record)))


def test_overlapping_ships_in_a_record_are_refused(experiment: Path, tmp_path: Path) -> None:
    record = next(r for r in records(experiment) if r["player"] == "pdf")
    first = record["layout"][0]
    on_top = {"ship": 1, "length": 2, "row": first["row"], "col": first["col"], "orientation": first["orientation"]}
    with pytest.raises(FileFormatError, match="two ships on one cell"):
        load_game(record_file(tmp_path, {**record, "layout": [first, on_top], "shots": []}))


# ----- frames ----------------------------------------------------------------------------------------
def _replay(experiment: Path, player: str, game: int = 0) -> Replay:
    source = load_game(experiment, game, player)
    scorer = make_player(player, 0, **source.options)
    return build_replay(source, make_engine("sdd"), scorer)


def shot_mask(state: GameState) -> np.ndarray:
    """True on the cells shot in ``state``."""
    out = np.zeros((state.size, state.size), dtype=bool)
    for cell in state.shot_cells:
        out[cell] = True
    return out


def test_each_frame_is_the_exact_posterior_after_that_many_shots(experiment: Path) -> None:
    replay = _replay(experiment, "pdf")
    final = replay.game.state
    assert len(replay.frames) == len(final.shots) + 1
    for k, frame in enumerate(replay.frames):
        cells, models = reference(final.prefix(k))
        np.testing.assert_allclose(frame.cells, cells, rtol=0, atol=1e-9)
        assert frame.models == models and frame.state == final.prefix(k)
        assert frame.next_shot == (final.shots[k].cell if k < len(final.shots) else None)
    # pdf's scores by hand: on the empty 4x4 board a ship of 3 and one of 2 each cover a cell in
    # (1, 2, 2, 1)[row] + (1, 2, 2, 1)[col] placements; once every ship is sunk no placement is left.
    edge = np.array([1, 2, 2, 1])
    np.testing.assert_array_equal(replay.frames[0].scores, 2 * (edge[:, None] + edge[None, :]))
    np.testing.assert_array_equal(replay.frames[-1].scores, np.where(shot_mask(final), np.nan, 0.0))
    # Every frame gets the scores of its own prefix: a scorer whose scores are the number of shots.
    counted = build_replay(replay.game, make_engine("sdd"), ShotCounter())
    assert len(counted.frames) == len(final.shots) + 1
    for k, frame in enumerate(counted.frames):
        np.testing.assert_array_equal(frame.scores, np.where(shot_mask(final.prefix(k)), np.nan, float(k)))
    assert replay.scorer == "pdf" and replay.note == ""
    assert replay.frames[0].caption() == f"before the first shot; {replay.frames[0].models} layouts left"
    assert replay.frames[-1].caption().endswith("sunk; 1 layout left")


def test_scores_that_are_the_heat_map_or_absent_are_not_shown_twice(experiment: Path) -> None:
    exact = _replay(experiment, "problog")
    assert exact.scorer is None and all(f.scores is None for f in exact.frames)
    assert exact.note == "problog shoots the most likely cell: its scores are the heat map"
    silent = build_replay(load_game(experiment, 0, "random"), make_engine("sdd"), Silent())
    assert silent.scorer is None and silent.note == "random exposes no scores"  # the game's player is named


class Silent(Player):
    """A player that keeps its reasons to itself (Player.scores is None)."""

    name = "silent"

    def choose(self, state: GameState) -> tuple[int, int]:
        return state.unshot[0]


class ShotCounter(Silent):
    """A player whose score of every unshot cell is the number of shots fired so far (NaN on shot cells)."""

    name = "counter"

    def scores(self, state: GameState) -> np.ndarray:
        values = np.full((state.size, state.size), float(len(state.shots)))
        for cell in state.shot_cells:
            values[cell] = np.nan
        return values


def test_scores_are_scaled_from_worst_to_best(experiment: Path) -> None:
    pdf = _replay(experiment, "pdf").frames[2]
    panel = scores_panel(pdf, "pdf")
    scores = pdf.scores
    assert scores is not None
    best = max(pdf.state.unshot, key=lambda cell: scores[cell])
    worst = min(pdf.state.unshot, key=lambda cell: scores[cell])
    assert (
        scores[worst] < scores[best]
        and panel.texts[best[0] * 4 + best[1]] == "100"
        and panel.texts[worst[0] * 4 + worst[1]] == "0"
    )
    flat = _replay(experiment, "random").frames[1]  # every unshot cell alike: all tie for the best
    assert {t for t, m in zip(scores_panel(flat, "random").texts, scores_panel(flat, "random").marks) if not m} == {"100"}


def test_a_contradictory_state_is_refused_naming_the_shot(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    assert main(["replay", str(FIXTURES / "contradictory_5x5.json"), "--out", str(tmp_path / "r")]) == 2
    assert "contradictory state: shot 3 (E5, sunk ship 0)" in capsys.readouterr().err
    assert not (tmp_path / "r" / "replay.html").exists()


# ----- panels ----------------------------------------------------------------------------------------
def test_panels_show_answers_ships_and_numbers() -> None:
    state = GameState.from_json({"size": 4, "ships": [3, 2], "shots": [
        {"row": 0, "col": 0, "result": "miss"}, {"row": 1, "col": 0, "result": "hit"},
        {"row": 1, "col": 1, "result": "sunk", "ship": 1}]})  # fmt: skip
    cells, models = reference(state)
    frame = Frame(state, cells, models, (2, 2))
    heat = heat_panel(frame)
    assert heat.marks[:2] == (MISS_MARK, "") and heat.marks[4:6] == (HIT_MARK, HIT_MARK)
    assert heat.fills[0] == colors.MISS and heat.fills[4] == colors.HIT and heat.fills[5] == colors.SUNK
    assert heat.texts[0] == "" and heat.texts[2] == percent_text(cells[0, 2]) and 0 < cells[0, 2] < 1
    palette = colors.heat_palette()
    assert heat.fills[2] == palette[round(cells[0, 2] * (len(palette) - 1))]
    layout = (CONFIG.placements(0)[7], CONFIG.placements(1)[3])  # ship 0 on D2-D4, ship 1 on B1-B2
    assert [c for p in layout for c in p.cells] == [(3, 1), (3, 2), (3, 3), (1, 0), (1, 1)]
    board = board_panel(state, layout)
    assert board.fills[4] == board.fills[5] == colors.SUNK and board.marks[4] == HIT_MARK
    assert board.texts[13:16] == ("0", "0", "0") and board.fills[13] == colors.SHIP and board.fills[2] == colors.WATER
    assert board.marks[0] == MISS_MARK and board.fills[0] == colors.MISS
    assert [p.key for p in frame_panels(Replay("t", Game(state, "t", layout), (frame,)), frame)] == ["posterior", "board"]


@pytest.mark.parametrize(
    "p, text", [(0.0, "0"), (1e-13, "0"), (0.004, "<1"), (0.0051, "1"), (0.5, "50"), (0.996, ">99"), (1.0, "100")],
)
def test_percentages_say_0_and_100_only_when_certain(p: float, text: str) -> None:
    assert percent_text(p) == text


def test_the_palette_runs_from_white_to_dark_red() -> None:
    palette = colors.heat_palette()
    assert len(palette) == 101 and palette[0] == "#ffffff" and palette[-1] == colors.HEAT_STOPS[-1][1]
    assert colors.text_color(palette[0]) == colors.INK and colors.text_color(palette[-1]) == colors.PAPER


# ----- pictures and page -------------------------------------------------------------------------
def test_the_gif_has_one_image_per_frame_and_the_still_is_the_middle_one(experiment: Path, tmp_path: Path) -> None:
    replay = _replay(experiment, "pdf")
    drawn = pictures(replay)
    write_gif(drawn, tmp_path / "r.gif", seconds_per_frame=0.5)
    write_still(drawn, tmp_path / "r.png", 3)
    with Image.open(tmp_path / "r.gif") as gif:
        assert gif.n_frames == len(replay.frames) and gif.info["loop"] == 0
        images, durations = [], []
        for k in range(gif.n_frames):
            gif.seek(k)
            images.append(gif.convert("RGB"))
            durations.append(gif.info["duration"])
    assert durations[:-1] == [500] * (len(durations) - 1) and durations[-1] == 1500
    assert all(ImageChops.difference(a, b).getbbox() is not None for a, b in pairwise(images))  # every shot shows
    with Image.open(tmp_path / "r.png") as still:
        assert ImageChops.difference(still.convert("RGB"), sheet_image(drawn, drawn.sheets[3])).getbbox() is None


def test_the_page_is_self_contained_and_carries_every_frame(experiment: Path) -> None:
    replay = _replay(experiment, "pdf")
    html = render_page(pictures(replay), 0.5)
    assert not re.search(r"(src|href)\s*=|https?://|<link|@import|url\(", html, re.IGNORECASE)  # nothing to fetch
    embedded = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.DOTALL)
    assert embedded
    data = json.loads(embedded[1])  # what the page's script reads, checked against the game itself
    fired = replay.game.state.shots
    assert data["size"] == 4 and data["delay_ms"] == 500 and len(data["frames"]) == len(fired) + 1
    assert [frame["next"] for frame in data["frames"]] == [shot.row * 4 + shot.col for shot in fired] + [None]
    for k, frame in enumerate(data["frames"]):
        marks = ["."] * 16
        for shot in fired[:k]:
            marks[shot.row * 4 + shot.col] = MISS_MARK if shot.result == "miss" else HIT_MARK
        assert frame["panels"][0]["key"] == "posterior" and frame["panels"][0]["mark"] == "".join(marks)
    first = fired[0]
    posterior = data["frames"][1]["panels"][0]
    assert data["colors"][posterior["fill"][first.row * 4 + first.col]][0] in (colors.MISS, colors.HIT, colors.SUNK)
    assert [p["key"] for p in data["frames"][0]["panels"]] == ["posterior", "board", "scores"]


def test_titles_are_escaped_in_the_page() -> None:
    state = GameState.empty(CONFIG)
    frames = build_replay(Game(state, "<b>x</b> & y"), make_engine("sdd")).frames
    html = render_page(pictures(Replay("<b>x</b> & y", Game(state, "t"), frames)))
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt; &amp; y" in html


# ----- the command -------------------------------------------------------------------------------
def test_the_command_writes_gif_page_and_still(capsys: pytest.CaptureFixture, experiment: Path, tmp_path: Path) -> None:
    out = tmp_path / "new" / "folder"
    assert main(["replay", str(experiment), "--game", "1", "--player", "problog", "--out", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    frames = len(load_game(experiment, 1, "problog").state.shots) + 1
    assert printed[0] == f"problog on 4x4 3,2 (game 1, results, seed 5): {frames} frames"
    assert printed[1] == "problog shoots the most likely cell: its scores are the heat map"
    assert printed[2] == f"wrote {out / 'replay.gif'}, {out / 'replay.html'} and {out / 'replay.png'} (frame {frames // 2})"
    assert sorted(p.name for p in out.iterdir()) == ["replay.gif", "replay.html", "replay.png"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["{exp}", "--out", "{tmp}/r"], "say which game with --game N"),
        (["{state}", "--game", "2", "--out", "{tmp}/r"], "--game picks a game of an experiment folder"),
        (["{state}", "--player", "oracle", "--out", "{tmp}/r"], "unknown player 'oracle' for --player"),
        (["{state}", "--delay", "0", "--out", "{tmp}/r"], "--delay 0.0: give the seconds per frame"),
        (["{tmp}/none.json", "--out", "{tmp}/r"], "none.json: cannot read"),
        (["{state}", "--out", "{state}/r"], "cannot create the folder"),
    ],
)
def test_bad_replays_are_one_line_errors(capsys, experiment: Path, tmp_path: Path, argv: list[str], message: str) -> None:
    names = {"exp": experiment, "tmp": tmp_path, "state": FIXTURES / "midgame_5x5.json"}
    assert main(["replay", *(a.format(**names) for a in argv)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("battlelog: error: ") and message in err, err


def test_a_game_that_cannot_be_replayed_leaves_no_folder(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    out = tmp_path / "replay"
    assert main(["replay", str(FIXTURES / "contradictory_5x5.json"), "--out", str(out)]) == 2
    assert "contradictory state: shot 3 (E5, sunk ship 0)" in capsys.readouterr().err
    assert not out.exists()


def test_the_legend_says_what_the_panels_draw_darkest() -> None:
    state = GameState.from_json({"size": 4, "ships": [3, 2], "shots": [
        {"row": 1, "col": 0, "result": "hit"}, {"row": 1, "col": 1, "result": "sunk", "ship": 1}]})  # fmt: skip
    cells, models = reference(state)
    frame = Frame(state, cells, models, None)
    layout = (CONFIG.placements(0)[7], CONFIG.placements(1)[3])  # ship 1 on B1-B2
    heat, board = heat_panel(frame), board_panel(state, layout)
    assert [i for i, fill in enumerate(heat.fills) if fill == colors.SUNK] == [5]  # the sinking shot only
    assert [i for i, fill in enumerate(board.fills) if fill == colors.SUNK] == [4, 5]  # the whole sunk ship
    html = render_page(pictures(Replay("t", Game(state, "t", layout), (frame,))))
    assert "darkest: the shot that sank a ship (on the hidden board, the whole ship)" in html
    assert "darkest: a sunk ship" not in html
