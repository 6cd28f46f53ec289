"""The journal: failed games replayed in place, nothing lost or recorded twice, nothing left by a refused run."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from battlelog.cli import main
from battlelog.errors import BattlelogError, FileFormatError
from battlelog.players import make_player
from battlelog.rules.config import GameConfig
from battlelog.runner.executors import Limits
from battlelog.runner.executors.local import LocalExecutor
from battlelog.runner.experiment import Experiment, RunReport, retry_failed, run_experiment
from battlelog.runner.journal import open_journal
from battlelog.runner.loop import play_game
from battlelog.runner.records import ARCHIVE, GAMES, MANIFEST, load_results
from battlelog.runner.seeds import game_seeds, layout_for

T = "battlelog_test_players:"
SMALL = GameConfig(4, (3, 2, 2))


def play(out: Path, players: tuple[str, ...], games: int, time_seconds: float | None = None) -> RunReport:
    with LocalExecutor(Limits(2, None, time_seconds)) as executor:
        return run_experiment(Experiment(SMALL, players, games, 5), out, executor, progress=False)


def retry(out: Path, time_seconds: float | None) -> RunReport:
    with LocalExecutor(Limits(2, None, time_seconds)) as executor:
        return retry_failed(out, executor, progress=False)


def test_retry_failed_replays_failures_in_place_under_new_limits(tmp_path: Path, test_players: Path) -> None:
    # Dawdler needs 0.7 to 1.6 s for a game: it cannot finish within 0.5 s, and easily within 60 s.
    assert play(tmp_path, ("random", T + "Dawdler"), games=3, time_seconds=0.5) == RunReport(0, 6, 3)
    before = (tmp_path / GAMES).read_text().splitlines()
    assert retry(tmp_path, time_seconds=60) == RunReport(3, 3, 0)

    after = (tmp_path / GAMES).read_text().splitlines()
    assert len(after) == len(before) == 6  # rewritten: one line per game
    for old, new in zip(before, after):
        old_record, new_record = json.loads(old), json.loads(new)
        assert (old_record["player"], old_record["game"]) == (new_record["player"], new_record["game"])  # same place
        if old_record["status"] == "ok":
            assert new == old  # finished games are untouched, byte for byte
            continue
        assert old_record["status"] == "timeout" and new_record["status"] == "ok"
        assert new_record["replaces"] == {"status": "timeout", "message": old_record["message"]}
        player = make_player(T + "Dawdler", game_seeds(5, new_record["game"])[1])
        alone = play_game(SMALL, layout_for(SMALL, 5, new_record["game"]), player)
        assert new_record["shots"] == alone.state.to_json()["shots"]
    assert retry(tmp_path, time_seconds=60) == RunReport(6, 0, 0)  # nothing failed is left


def test_a_game_that_fails_again_replaces_its_failure_with_the_new_one(tmp_path: Path, test_players: Path) -> None:
    play(tmp_path, (T + "Dawdler",), games=2, time_seconds=0.5)
    assert retry(tmp_path, time_seconds=0.3) == RunReport(0, 2, 2)
    records = load_results(tmp_path)[1]
    assert len(records) == 2 == len((tmp_path / GAMES).read_text().splitlines())
    for record in records:
        assert record["status"] == "timeout" and "0.3 s" in record["message"]
        assert record["replaces"]["status"] == "timeout" and "0.5 s" in record["replaces"]["message"]


def _journal_with(tmp_path: Path, lines: list[dict]) -> Path:
    (tmp_path / MANIFEST).write_text(json.dumps({"size": 4, "ships": [3, 2, 2], "seed": 5}))
    (tmp_path / GAMES).write_text("".join(json.dumps(line) + "\n" for line in lines))
    return tmp_path


def _record(game: int, status: str, **extra: object) -> dict:
    return {"player": "random", "game": game, "status": status, "size": 4, "ships": [3, 2, 2], "seed": 5,
            "score": 10 if status == "ok" else None, "seconds": 0.1, "message": None if status == "ok" else "boom",
            **extra}  # fmt: skip


def test_a_replay_written_before_a_kill_supersedes_its_failure_and_is_compacted_by_the_next_run(tmp_path: Path) -> None:
    replay = _record(1, "ok", replaces={"status": "error", "message": "boom"})
    out = _journal_with(tmp_path, [_record(0, "ok"), _record(1, "error"), _record(2, "ok"), replay])
    assert [(r["game"], r["status"]) for r in load_results(out)[1]] == [(0, "ok"), (1, "ok"), (2, "ok")]
    with open_journal(out, {"size": 4, "ships": [3, 2, 2], "seed": 5}) as journal:
        assert journal.superseded == 1
    lines = [json.loads(line) for line in (out / GAMES).read_text().splitlines()]
    assert lines == [_record(0, "ok"), replay, _record(2, "ok")]


@pytest.mark.parametrize(
    "lines",
    [
        [
            _record(0, "ok"),
            _record(0, "ok", replaces={"status": "error", "message": "boom"}),
        ],  # a finished game is never replayed
        [_record(0, "error"), _record(0, "ok")],  # a second line without "replaces" is a duplicate
    ],
)
def test_a_game_recorded_twice_is_an_error(tmp_path: Path, lines: list[dict]) -> None:
    with pytest.raises(FileFormatError, match="line 2: repeats game 0 of player random"):
        load_results(_journal_with(tmp_path, lines))


def test_the_journal_refuses_to_write_a_game_twice(tmp_path: Path) -> None:
    out = _journal_with(tmp_path, [_record(0, "ok")])
    with open_journal(out, {"size": 4, "ships": [3, 2, 2], "seed": 5}) as journal, pytest.raises(ValueError, match="twice"):
        journal.append(_record(0, "ok"))
    assert len((out / GAMES).read_text().splitlines()) == 1


def test_an_experiment_refused_before_its_first_game_leaves_no_files(tmp_path: Path) -> None:
    experiment = Experiment(SMALL, ("random",), 1, 0)
    too_small = LocalExecutor(Limits(1, 50 * 2**20, None))
    for out in (tmp_path / "new" / "deeper", tmp_path / "empty"):
        if out.name == "empty":
            out.mkdir()
        with too_small, pytest.raises(BattlelogError, match=r"memory limit of 50 MB is below the \d+ MB"):
            run_experiment(experiment, out, too_small, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]  # made by the test, and left empty
    assert list((tmp_path / "empty").iterdir()) == []


def test_a_run_refused_in_another_experiments_directory_leaves_it_as_it_was(tmp_path: Path) -> None:
    (tmp_path / MANIFEST).write_text(json.dumps({"size": 4, "ships": [3, 2, 2], "seed": 1}))
    with pytest.raises(BattlelogError, match="holds an experiment on 4x4 3,2,2 with seed 1, not 4x4 3,2,2 with seed 5"):
        play(tmp_path, ("random",), games=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == [MANIFEST]  # no games.jsonl was left


def test_an_archived_journal_reads_as_the_plain_one_and_must_be_unpacked_to_be_extended(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = _journal_with(tmp_path, [_record(0, "ok"), _record(1, "error")])
    plain = load_results(out)
    (out / ARCHIVE).write_bytes(gzip.compress((out / GAMES).read_bytes()))
    (out / GAMES).unlink()
    assert load_results(out) == plain and len(plain[1]) == 2
    refusal = r"archived journal \(games\.jsonl\.gz\): unpack it with `gunzip"
    with pytest.raises(BattlelogError, match=refusal), open_journal(out, {"size": 4, "ships": [3, 2, 2], "seed": 5}):
        pass
    assert sorted(p.name for p in out.iterdir()) == sorted([ARCHIVE, MANIFEST])  # the refusal touched nothing
    assert main(["summarize", str(out / ARCHIVE)]) == 0
    assert f"2 games recorded in {out / ARCHIVE}" in capsys.readouterr().out
    (out / ARCHIVE).write_bytes(gzip.compress((json.dumps(_record(0, "ok")) + "\n").encode())[:-9])
    with pytest.raises(FileFormatError, match=r"games\.jsonl\.gz: "):
        load_results(out)
