"""Salvo on the command line: --salvo on every command that takes a board, experiments and their
records, play (and --human), advise through a pipe, and standard games unchanged to the byte."""

from __future__ import annotations

import gzip
import io
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from battlelog.cli import main
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import cell_name
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.records import GAMES, MANIFEST, load_results
from battlelog.runner.seeds import layout_for
from battlelog.runner.task import GameTask, play_task

from oracle import brute_marginals, consistent_layouts
from runs import experiment_in, one_line_error

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def salvo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return experiment_in(
        tmp_path_factory, "salvo", "--size", "4", "--ships", "2,2,1", "--salvo", "ships", "--players", "random,pdf", "--games",
        "3", "--seed", "2",
    )


def test_an_experiment_under_salvo_records_volleys_and_scores_them(capsys, salvo_run: Path) -> None:
    rules = {"touch": "allowed", "sinks": "named", "salvo": "ships"}
    assert json.loads((salvo_run / MANIFEST).read_text()) == {"size": 4, "ships": [2, 2, 1], "seed": 2, "rules": rules}
    records = load_results(salvo_run)[1]
    assert len(records) == 6
    for record in records:
        assert record["rules"] == rules and record["status"] == "ok"
        assert record["score"] == 1 + record["shots"][-1]["volley"]
        assert all("volley" in shot for shot in record["shots"])
    assert main(["summarize", str(salvo_run)]) == 0
    out = capsys.readouterr().out
    assert "4x4 2,2,1 (salvo by ships) with seed 2" in out and "mean volleys" in out and "ms/volley" in out
    assert "needs fewer shots" not in out


@pytest.mark.parametrize(
    ("extra", "message"), [([], "not 4x4 2,2,1 with seed 2"), (["--salvo", "2"], "not 4x4 2,2,1 (salvo 2) with seed 2")]
)
def test_resuming_under_another_salvo_is_refused(capsys, salvo_run: Path, extra: list[str], message: str) -> None:
    before = (salvo_run / GAMES).read_bytes()
    argv = [
        "experiment", "--size", "4", "--ships", "2,2,1", "--players", "random", "--games", "3", "--seed", "2", "--workers", "1",
    ]
    one_line_error(
        capsys,
        [*argv, *extra, "--out", str(salvo_run)],
        "holds an experiment on 4x4 2,2,1 (salvo by ships) with seed 2, " + message,
    )
    assert (salvo_run / GAMES).read_bytes() == before


def test_replay_names_the_volleys(capsys, salvo_run: Path, tmp_path: Path) -> None:
    assert main(["replay", str(salvo_run), "--game", "0", "--player", "pdf", "--out", str(tmp_path)]) == 0
    assert "volley 1, shot 1: " in (tmp_path / "replay.html").read_text()


@pytest.mark.parametrize("command", ["experiment", "play", "advise", "marginals", "script", "compile", "optimal"])
@pytest.mark.parametrize(
    ("value", "message"), [("0", "unknown salvo 0"), ("-1", "unknown salvo '-1'"), ("foo", "unknown salvo 'foo'")]
)
def test_unknown_salvos_are_one_line_on_every_command(capsys, tmp_path: Path, command: str, value: str, message: str) -> None:
    argv = [command, "--size", "4", "--ships", "2,2", "--salvo", value]
    argv += {
        "experiment": ["--out", str(tmp_path / "out")],
        "compile": ["-o", str(tmp_path / "m.sdd")],
        "advise": ["--state", str(tmp_path / "a.json")],
    }.get(command, [])
    one_line_error(capsys, argv, message)
    assert list(tmp_path.iterdir()) == []


def test_salvo_by_ships_with_silent_sinks_and_optimal_under_salvo_are_one_line(capsys, tmp_path: Path) -> None:
    one_line_error(
        capsys,
        ["play", "--size", "4", "--ships", "2", "--salvo", "ships", "--sinks", "silent"],
        "salvo by ships needs sinks announced",
    )
    one_line_error(
        capsys, ["optimal", "--size", "3", "--ships", "2", "--salvo", "2"], "optimal solves games of one shot a turn, not salvo 2"
    )
    argv = ["experiment", "--size", "3", "--ships", "2", "--salvo", "2", "--players", "optimal", "--out", str(tmp_path / "o")]
    one_line_error(capsys, argv, "player optimal does not play salvo 2")


def test_marginals_take_a_salvo_state_and_refuse_a_bad_one(capsys, tmp_path: Path) -> None:
    shots: list[dict[str, Any]] = [
        {"row": 0, "col": 0, "result": "miss", "volley": 0},
        {"row": 1, "col": 1, "result": "hit", "volley": 0},
    ]
    good = {"size": 4, "ships": [2], "rules": {"salvo": 2}, "shots": shots}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(good))
    assert main(["marginals", str(path), "--json"]) == 0
    cells, models = brute_marginals(GameState.from_json(good), consistent_layouts(GameState.from_json(good)))
    data = json.loads(capsys.readouterr().out)
    assert data["models"] == models
    np.testing.assert_allclose(np.array(data["cells"]), cells, atol=1e-12)
    one_line_error(capsys, ["marginals", str(path), "--salvo", "3"], f"{path} holds a game with salvo 2, not --salvo 3")
    bad = {**good, "shots": [*shots, {"row": 2, "col": 2, "result": "miss", "volley": 0}]}
    path.write_text(json.dumps(bad))
    one_line_error(capsys, ["marginals", str(path)], "shot 3 is shot 3 of volley 0, which may have only 2 under salvo 2")


def test_play_shows_volleys_and_scores_them(capsys) -> None:
    assert main(["play", "--size", "4", "--ships", "2,1", "--salvo", "2", "--player", "pdf", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("4x4 2,1 (salvo 2), seed 3") and "volley 1, shot 1: " in out and "volley 1, shot 2: " in out
    last = out.strip().splitlines()[-1]
    assert last.startswith("pdf sank 4x4 2,1 (salvo 2) in ") and " volleys (best possible 2; " in last and "ms per volley" in last


def test_a_human_types_whole_volleys(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    config = GameConfig(3, (2,), Rules(salvo=3))
    layout = layout_for(config, 5, 0)
    ship = set(layout[0].cells)
    order = sorted(ship) + sorted({(r, c) for r in range(3) for c in range(3)} - ship)
    # the first volley over three lines: a bad cell (Z9) and a cell picked twice are refused, and the
    # rest of their line dropped; the cells before them are kept
    first, *rest = [cell_name(c) for c in order]
    lines = [f"{first} Z9", f"{rest[0]} {first}", " ".join(rest[1:])]
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    assert main(["play", "--size", "3", "--ships", "2", "--salvo", "3", "--human", "--seed", "5", "--player", "pdf"]) == 0
    out = capsys.readouterr().out
    assert "'Z9' is not a cell of the 3x3 board" in out and f"{first} was already picked" in out
    assert "you sank 3x3 2 (salvo 3) in 1 volley; pdf needs" in out


def test_advise_suggests_a_volley_and_takes_its_answers_in_turn(capsys, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The test is the opponent, through standard input: it fires each suggested volley whole."""
    config = GameConfig(4, (2, 2), Rules(salvo=3))
    referee = Referee(config, layout_for(config, 7, 0))
    saved = tmp_path / "game.json"
    argv = ["advise", "--no-color", "--size", "4", "--ships", "2,2", "--salvo", "3", "--state", str(saved)]
    state, answers = GameState.empty(config), []
    # First volley: the advisor's three cells are the three most probable on the empty board; answer them.
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(argv) == 0
    out = capsys.readouterr().out
    plan = out.split("answered in this order: ")[1].splitlines()[0].split(", ")
    cells, _ = brute_marginals(state, consistent_layouts(state))
    chosen = [("ABCD".index(name[0]), int(name[1:]) - 1) for name in plan]
    assert (
        len(set(chosen)) == 3 and min(cells[c] for c in chosen) >= max(cells[c] for c in state.unshot if c not in chosen) - 1e-12
    )
    for cell in chosen:
        result, ship = referee.shoot(*cell)
        answers.append(f"{result} {ship}" if ship is not None else result)
        state = state.with_shot(*cell, result, ship, 0)
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(a + "\n" for a in answers)))
    assert main(["advise", "--no-color", "--state", str(saved)]) == 0
    out = capsys.readouterr().out
    assert GameState.load(saved) == state  # the volley's answers went to its cells, in order
    assert "shot 1 of volley 2" in out and "shot 2 of volley 1" in out
    # Volley 2, answered in two sessions: the file continued mid-volley keeps the volley chosen before its answers.
    plan = out.split("answered in this order: ")[-1].splitlines()[0].split(", ")
    first = ("ABCD".index(plan[0][0]), int(plan[0][1:]) - 1)
    result, ship = referee.shoot(*first)
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{result} {ship if ship is not None else ''}\n"))
    assert main(["advise", "--no-color", "--state", str(saved)]) == 0
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["advise", "--no-color", "--state", str(saved)]) == 0
    assert f"shot 2 of volley 2; to fire, answered in this order: {', '.join(plan[1:])}\n" in capsys.readouterr().out


# ----- standard games unchanged --------------------------------------------------------------------
COMMITTED = ROOT / "experiments" / "results" / "players-paper" / "4x4_3-2-2"


@cache
def committed_games() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The committed 4x4 3,2,2 experiment's manifest and its games 0..4 of every player."""
    lines = gzip.decompress((COMMITTED / "games.jsonl.gz").read_bytes()).splitlines()
    first = [json.loads(line) for line in lines if re.search(rb'"game": [0-4],', line)]
    return json.loads((COMMITTED / MANIFEST).read_text()), first


@pytest.mark.parametrize("player", ["random", "hunt-target", "parity", "pdf", "problog"])
def test_standard_games_replay_the_committed_records_to_the_byte(player: str) -> None:
    """The first games of the committed 4x4 3,2,2 experiment, played again: the same shots, written the same."""
    manifest, records = committed_games()
    config = GameConfig(manifest["size"], tuple(manifest["ships"]))
    assert {r["game"] for r in records if r["player"] == player} == set(range(5))
    for record in [r for r in records if r["player"] == player]:
        value = play_task(
            GameTask(
                player, record["options"], config, manifest["seed"], record["game"],
                layout_for(config, manifest["seed"], record["game"]),
            )
        )
        assert json.dumps(value["shots"]) == json.dumps(record["shots"]) and value["score"] == record["score"]
