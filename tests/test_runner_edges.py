"""Rough edges of the experiment runner a new user met: players' choices, planning, workers, killed workers."""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import signal
import threading
import time
import tracemalloc
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from battlelog.commands import common
from battlelog.errors import BattlelogError
from battlelog.rules.config import GameConfig
from battlelog.runner.executors import Limits
from battlelog.runner.executors.base import Executor
from battlelog.runner.executors.local import LocalExecutor, death_status
from battlelog.runner.experiment import Experiment, RunReport, run_experiment
from battlelog.runner.records import GAMES, MANIFEST, load_results
from battlelog.runner.task import GameTask, Outcome, run_task

#: Prefix of the test players of tests/conftest.py.
T = "battlelog_test_players:"
SMALL = GameConfig(4, (3, 2, 2))


def play(out: Path, players: tuple[str, ...], games: int, options=None, **limits) -> RunReport:
    settings = {"workers": 2, "memory_bytes": None, "time_seconds": None, **limits}
    with LocalExecutor(Limits(**settings)) as executor:
        return run_experiment(Experiment(SMALL, players, games, 3, options or {}), out, executor, progress=False)


# ----- what a player chooses -------------------------------------------------------------------
def test_numpy_integers_are_a_cell_and_malformed_choices_fail_their_game_only(tmp_path: Path, test_players: Path) -> None:
    players = (T + "NumpyChooser", T + "FloatChooser", T + "OffBoard", T + "Malformed")
    assert play(tmp_path, players, games=2) == RunReport(0, 8, 6)
    game = {(r["player"], r["game"]): r for r in load_results(tmp_path)[1]}
    for g in range(2):
        numpy_game = game[T + "NumpyChooser", g]
        assert numpy_game["status"] == "ok" and 7 <= numpy_game["score"] <= 16
        assert all(type(shot["row"]) is int and type(shot["col"]) is int for shot in numpy_game["shots"])
        assert (game[T + "FloatChooser", g]["status"], game[T + "FloatChooser", g]["message"]) == (
            "error", "ShotError: the player chose (1.0, 0.5), not a cell (two whole numbers: row, column)")
        assert (game[T + "OffBoard", g]["status"], game[T + "OffBoard", g]["message"]) == (
            "error", "ShotError: the player chose row 0, column 4: off the 4x4 board")
        assert (game[T + "Malformed", g]["status"], game[T + "Malformed", g]["message"]) == (
            "error", "ShotError: the player chose 'A1', not a cell (two whole numbers: row, column)")
    # every line reads back, and a resume finds everything recorded
    assert play(tmp_path, players, games=2) == RunReport(8, 0, 0)


def test_options_that_are_not_json_are_refused_before_any_game(tmp_path: Path, test_players: Path) -> None:
    out = tmp_path / "out"
    # a value that JSON cannot hold is refused by the option's type (a finite whole number) before any game
    with pytest.raises(BattlelogError, match=r"player battlelog_test_players:Tunable: option level=nan is not a whole number"):
        play(out, (T + "Tunable",), games=1, options={T + "Tunable": {"level": float("nan")}})
    assert not out.exists()


def test_the_journal_never_writes_a_line_it_could_not_read_back(tmp_path: Path) -> None:
    from battlelog.runner.journal import open_journal

    manifest = {"size": 4, "ships": [3, 2, 2], "seed": 5}
    record = {"player": "random", "game": 0, "status": "ok", "size": 4, "ships": [3, 2, 2], "seed": 5,
              "score": 9, "seconds": float("nan")}  # fmt: skip
    with (
        open_journal(tmp_path, manifest) as journal,
        pytest.raises(BattlelogError, match="game 0 of player random cannot be recorded"),
    ):
        journal.append(record)
    assert not (tmp_path / GAMES).exists() and not (tmp_path / MANIFEST).exists()


# ----- planning in bounded memory --------------------------------------------------------------
class FirstTasks(Executor):
    """Plays the first ``count`` tasks in this process, then stops drawing (as an interrupted run would)."""

    def __init__(self, count: int) -> None:
        super().__init__(Limits(1, None, None))
        self.count = count

    def start(self, count: int | None = None) -> None:
        pass

    def run(self, tasks: Iterable[GameTask]) -> Iterator[Outcome]:
        for task in itertools.islice(tasks, self.count):
            yield Outcome(task, run_task(task, measure_peak=False))

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "this process"


def test_an_experiment_of_many_games_is_planned_without_listing_them(tmp_path: Path) -> None:
    experiment = Experiment(SMALL, ("random", "hunt-target"), 200_000, 3)
    tracemalloc.start()
    try:
        report = run_experiment(experiment, tmp_path, FirstTasks(3), progress=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report == RunReport(0, 3, 0)
    assert peak < 5 * 2**20  # listing the 400,000 (player, game) pairs takes tens of MB
    assert run_experiment(experiment, tmp_path, FirstTasks(2), progress=False) == RunReport(3, 2, 0)


# ----- how many workers ------------------------------------------------------------------------
def test_no_more_workers_start_than_there_are_games_to_play(tmp_path: Path) -> None:
    with LocalExecutor(Limits(8, None, None)) as executor:
        report = run_experiment(Experiment(SMALL, ("random",), 2, 3), tmp_path, executor, progress=False)
        assert report == RunReport(0, 2, 0)
        assert len(multiprocessing.active_children()) == 2  # the idle workers, before the executor closes


def test_more_workers_than_cores_is_warned_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(common, "available_cores", lambda: 2)
    parser = argparse.ArgumentParser()
    common.add_limit_arguments(parser)
    assert common.limits_from(parser.parse_args(["--workers", "64"])).workers == 64
    assert capsys.readouterr().err == (
        "battlelog: warning: 64 workers on 2 cores share them: games run slower, and their time limits count the waiting\n"
    )
    common.limits_from(parser.parse_args(["--workers", "2"]))
    assert capsys.readouterr().err == ""


# ----- a worker killed mid-game ----------------------------------------------------------------
def test_a_worker_killed_from_outside_is_replayed_once_and_memory_stays_memory(tmp_path: Path, test_players: Path) -> None:
    mark = tmp_path / "victim.pid"

    def kill_when_marked() -> None:
        deadline = time.monotonic() + 60
        while not mark.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(int(mark.read_text()), signal.SIGKILL)

    killer = threading.Thread(target=kill_when_marked)
    killer.start()
    players = (T + "Victim", T + "SelfKiller", T + "MemoryHog")
    report = play(tmp_path / "out", players, games=1, options={T + "Victim": {"mark": str(mark)}}, memory_bytes=2**30)
    killer.join()
    assert report == RunReport(0, 3, 2)
    game = {r["player"].partition("[")[0]: r for r in load_results(tmp_path / "out")[1]}  # the Victim is recorded with its option
    victim, killed, hog = game[T + "Victim"], game[T + "SelfKiller"], game[T + "MemoryHog"]
    assert victim["status"] == "ok" and victim["retried"] == (
        "the worker process was killed by SIGKILL with no trace of a lack of memory while playing; played again by a fresh worker"
    )
    assert killed["status"] == "error" and killed["message"] == (
        "the worker process was killed by SIGKILL with no trace of a lack of memory while playing, a second time: "
        "not played a third time")
    assert killed["retried"].startswith("the worker process was killed by SIGKILL")
    assert hog["status"] == "memory" and hog["message"].startswith("MemoryError") and hog["retried"] is None


def test_a_kill_counted_by_the_oom_killer_is_memory() -> None:
    assert death_status(-signal.SIGKILL, oom_killed=True) == (
        "memory", "the worker process was killed by SIGKILL by the kernel's out-of-memory killer")
    assert death_status(-signal.SIGKILL)[0] is None
    assert death_status(-signal.SIGABRT)[0] == "memory"
