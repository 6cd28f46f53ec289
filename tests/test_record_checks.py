"""Records a game could not have produced are refused in one line naming the file and line, wherever they are read."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from battlelog.cli import main
from battlelog.errors import BattlelogError, FileFormatError
from battlelog.rules.config import GameConfig
from battlelog.runner.records import GAMES, MANIFEST, game_record, load_results
from battlelog.runner.seeds import layout_for
from battlelog.runner.task import GameTask, Outcome, run_task
from battlelog.views.replay.sources import load_game

SMALL = GameConfig(4, (3, 2, 2))  # 7 ship cells on 16 cells
MANIFEST_JSON = {"size": 4, "ships": [3, 2, 2], "seed": 5}


def finished_record(game: int = 0) -> dict[str, Any]:
    """A real finished game of the random player on SMALL."""
    task = GameTask("random", {}, SMALL, 5, game, layout_for(SMALL, 5, game))
    outcome = Outcome(task, run_task(task, measure_peak=False))
    assert outcome.result.status == "ok"
    return game_record(outcome)


def write_experiment(out: Path, records: list[dict[str, Any]]) -> Path:
    out.mkdir()
    (out / MANIFEST).write_text(json.dumps(MANIFEST_JSON))
    (out / GAMES).write_text("".join(json.dumps(r) + "\n" for r in records))  # json.dumps writes NaN as NaN
    return out


def other_score(record: dict[str, Any]) -> int:
    """A possible score that is not this game's."""
    return record["score"] - 1 if record["score"] > 7 else record["score"] + 1


def unhit(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its first hit turned into a miss."""
    shots = [dict(s) for s in record["shots"]]
    first = next(s for s in shots if s["result"] == "hit")
    first["result"] = "miss"
    return {**record, "shots": shots}


DAMAGES: list[tuple[Callable[[dict[str, Any]], dict[str, Any]], str]] = [
    (
        lambda r: {**r, "score": 1},
        "a finished game's score must be a whole number from 7 (the fleet's cells) to 16 (the board's cells), got 1",
    ),
    (
        lambda r: {**r, "score": 1000000},
        "a finished game's score must be a whole number from 7 (the fleet's cells) to 16 (the board's cells), got 1000000",
    ),
    (
        lambda r: {**r, "score": 9.0},
        "a finished game's score must be a whole number from 7 (the fleet's cells) to 16 (the board's cells), got 9.0",
    ),
    (lambda r: {**r, "seconds": float("nan")}, "seconds must be a finite number >= 0, got nan"),
    (lambda r: {**r, "seconds": float("inf")}, "seconds must be a finite number >= 0, got inf"),
    (lambda r: {**r, "seconds": -1}, "seconds must be a finite number >= 0, got -1"),
    (lambda r: {**r, "move_max_s": "slow"}, "move_max_s must be a finite number >= 0, got 'slow'"),
    (lambda r: {**r, "peak_mb": float("nan")}, "peak_mb must be a finite number >= 0, got nan"),
    (
        lambda r: {**r, "status": "error", "score": None, "shots": [], "seconds": float("nan")},
        "seconds must be a finite number >= 0",
    ),
    (lambda r: {**r, "score": other_score(r)}, "a finished game of score {score} needs {score} shots, got {shots}"),
    (unhit, "a finished game's shots must hit the fleet's 7 cells, but 6 of them are hits"),
]


@pytest.mark.parametrize("damage, message", DAMAGES)
def test_an_impossible_record_is_refused_naming_its_file_and_line(tmp_path: Path, damage, message: str) -> None:
    good = finished_record(0)
    bad = damage(finished_record(1))
    out = write_experiment(tmp_path / "out", [good, bad])
    expected = f"{out / GAMES} line 2: " + message.format(score=bad["score"], shots=len(bad["shots"]))
    with pytest.raises(FileFormatError, match=re.escape(expected)):
        load_results(out)


def test_summarize_refuses_impossible_scores_instead_of_averaging_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [finished_record(0), {**finished_record(1), "score": 1000000}]
    out = write_experiment(tmp_path / "out", records)
    assert main(["summarize", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"battlelog: error: {out / GAMES} line 2: a finished game's score must be a whole number from 7 "
        "(the fleet's cells) to 16 (the board's cells), got 1000000\n"
    )


def test_the_records_a_game_gives_pass(tmp_path: Path) -> None:
    records = [finished_record(g) for g in range(3)]
    out = write_experiment(tmp_path / "out", records)
    assert load_results(out) == (MANIFEST_JSON, records)


def test_replay_refuses_an_impossible_or_failed_record_file(tmp_path: Path) -> None:
    record = finished_record(0)
    path = tmp_path / "game.json"
    path.write_text(json.dumps({**record, "seconds": float("nan")}))
    with pytest.raises(FileFormatError, match=re.escape(f"{path}: seconds must be a finite number >= 0, got nan")):
        load_game(path)
    path.write_text(json.dumps({**record, "score": 2}))
    with pytest.raises(FileFormatError, match=re.escape(f"{path}: a finished game's score must be a whole number from 7")):
        load_game(path)
    path.write_text(json.dumps({**record, "status": "timeout", "score": None, "shots": []}))
    with pytest.raises(BattlelogError, match=re.escape(f"{path}: game failed (timeout): there is nothing to replay")):
        load_game(path)
    path.write_text(json.dumps(record))
    assert load_game(path).player == "random"
