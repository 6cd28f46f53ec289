"""The experiment runner: statistics, worker processes under limits, records, resuming."""

from __future__ import annotations

import fcntl
import math
import re
import statistics
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from battlelog.errors import BattlelogError
from battlelog.players import make_player
from battlelog.report.markdown import p_value
from battlelog.report.summary import SUMMARY_CSV, SUMMARY_MD, paired_scores, summarize_records, summary_table, write_summary
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.runner.executors import Limits
from battlelog.runner.executors.local import LocalExecutor
from battlelog.runner.experiment import Experiment, RunReport, run_experiment
from battlelog.runner.loop import play_game
from battlelog.runner.records import GAMES, load_results
from battlelog.runner.seeds import game_seeds, layout_for
from battlelog.stats import independent_difference, mean_ci, paired_difference, summarize_scores

from runs import check_interrupted_runs_resume

#: Prefix of the misbehaving players of tests/conftest.py.
T = "battlelog_test_players:"
SMALL = GameConfig(4, (3, 2, 2))


def play(out: Path, players: tuple[str, ...], games: int, seed: int = 5, options=None, **limits) -> RunReport:
    experiment = Experiment(SMALL, players, games, seed, options or {})
    settings = {"workers": 2, "memory_bytes": None, "time_seconds": None, **limits}
    with LocalExecutor(Limits(**settings)) as executor:
        return run_experiment(experiment, out, executor, progress=False)


# ----- statistics ------------------------------------------------------------------------------
def test_mean_ci_is_the_student_t_interval() -> None:
    ci = mean_ci([1, 2, 3, 4, 5])
    half = 2.7764451051977987 * math.sqrt(2.5 / 5)  # t(0.975, 4 dof) * s / sqrt(n), with s^2 = 2.5
    assert (ci.mean, ci.n) == (3.0, 5)
    assert ci.low == pytest.approx(3 - half, rel=1e-12)
    assert ci.high == pytest.approx(3 + half, rel=1e-12)


def test_mean_ci_edge_cases() -> None:
    one = mean_ci([7])
    assert one.mean == 7 and one.low is None and one.high is None and not one.contains(7)
    flat = mean_ci([4, 4, 4])
    assert (flat.low, flat.high) == (4, 4)
    with pytest.raises(ValueError):
        mean_ci([])
    with pytest.raises(ValueError):
        mean_ci([1.0, float("nan")])


def test_mean_ci_covers_the_true_mean_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(3)
    covered = sum(mean_ci(rng.normal(10.0, 3.0, size=8)).contains(10.0) for _ in range(4000))
    assert 0.94 < covered / 4000 < 0.96  # binomial sd 0.0034 around 0.95


def test_summarize_scores() -> None:
    scores = [3, 1, 4, 1, 5, 9, 2, 6]
    s = summarize_scores(scores)
    assert (s.n, s.mean, s.median, s.min, s.max) == (8, 31 / 8, 3.5, 1, 9)
    # Squared deviations from 3.875 sum to 52.875, so s^2 = 52.875 / 7; t(0.975, 7 dof) = 2.365 in the tables.
    assert s.std == pytest.approx(math.sqrt(52.875 / 7), rel=1e-12)
    half = 2.364624251592784 * math.sqrt(52.875 / 7 / 8)
    assert s.ci is not None and (s.ci.mean, s.ci.n, s.ci.confidence) == (31 / 8, 8, 0.95)
    assert s.ci.low == pytest.approx(31 / 8 - half, rel=1e-12) and s.ci.high == pytest.approx(31 / 8 + half, rel=1e-12)
    assert summarize_scores([]).n == 0 and summarize_scores([]).mean is None
    assert summarize_scores([5]).std is None


def test_paired_difference_is_the_paired_t_test() -> None:
    a, b = [10, 12, 9, 14, 11, 13], [12, 15, 9, 17, 12, 13]
    d = paired_difference(a, b)
    reference = scipy_stats.ttest_rel(a, b)
    assert d.mean == pytest.approx(-1.5)
    assert d.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    # a - b = -2, -3, 0, -3, -1, 0: squared deviations from -1.5 sum to 9.5, s^2 = 9.5 / 5; t(0.975, 5 dof) = 2.571.
    half = 2.5705818356363146 * math.sqrt(9.5 / 5 / 6)  # 1.4465: the interval is [-2.947, -0.053]
    assert (d.interval.mean, d.interval.n) == (-1.5, 6)
    assert d.interval.low == pytest.approx(-1.5 - half, rel=1e-12) and d.interval.high == pytest.approx(-1.5 + half, rel=1e-12)
    assert d.significant is True  # the interval lies below 0
    assert paired_difference(b, a).significant is True  # and mirrored above it
    assert paired_difference([3, 4, 5], [1, 2, 3]).p_value == 0.0  # constant difference 2: certain
    assert not paired_difference([1, 2], [1, 2]).significant
    with pytest.raises(ValueError):
        paired_difference([1, 2], [1])


def test_independent_difference_is_welchs_test() -> None:
    a, b = [10, 12, 9, 14, 11, 13, 10], [12, 15, 9, 17, 12]
    d = independent_difference(a, b)
    reference = scipy_stats.ttest_ind(a, b, equal_var=False)
    assert d.mean == pytest.approx(sum(a) / 7 - sum(b) / 5, rel=1e-12)
    assert d.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    # Welch: s_a^2 = 20.857/6, s_b^2 = 38.8/4; dof from the Welch-Satterthwaite formula.
    va, vb = (sum((x - sum(a) / 7) ** 2 for x in a) / 6) / 7, (sum((x - sum(b) / 5) ** 2 for x in b) / 4) / 5
    dof = (va + vb) ** 2 / (va**2 / 6 + vb**2 / 4)
    half = scipy_stats.t.ppf(0.975, dof) * math.sqrt(va + vb)
    assert d.interval.low == pytest.approx(d.mean - half, rel=1e-12) and d.interval.n == 5
    assert not d.significant and reference.pvalue > 0.05
    assert independent_difference([3, 3, 3], [1, 1]).p_value == 0.0  # no spread: the difference is certain
    with pytest.raises(ValueError):
        independent_difference([1, 2], [1])


# ----- running games ---------------------------------------------------------------------------
def test_every_player_plays_the_same_boards_as_it_would_in_process(tmp_path: Path) -> None:
    players = ("random", "hunt-target", "pdf")
    assert play(tmp_path, players, games=5, seed=11) == RunReport(0, 15, 0)
    manifest, records = load_results(tmp_path)
    assert manifest == {"size": 4, "ships": [3, 2, 2], "seed": 11}
    assert sorted((r["player"], r["game"]) for r in records) == sorted((p, g) for p in players for g in range(5))
    for r in records:
        layout = layout_for(SMALL, 11, r["game"])
        alone = play_game(SMALL, layout, make_player(r["player"], game_seeds(11, r["game"])[1]))
        assert (r["status"], r["message"], r["options"]) == ("ok", None, {})
        assert r["layout"] == [
            {"ship": p.ship, "length": p.length, "row": p.row, "col": p.col, "orientation": p.orientation}
            for p in layout
        ]
        assert r["shots"] == alone.state.to_json()["shots"]
        assert r["score"] == alone.score == len(r["shots"])
        assert GameState.from_json({"size": 4, "ships": [3, 2, 2], "shots": r["shots"]}).over
        assert 0 < r["move_median_s"] <= r["move_max_s"] <= r["seconds"]
        assert 10 < r["peak_mb"] < 1000


def test_summary_files_agree_with_the_records(tmp_path: Path) -> None:
    play(tmp_path, ("pdf", "random"), games=6, seed=2)
    manifest, records = load_results(tmp_path)
    rows = summarize_records(records)
    assert [row.player for row in rows] == ["random", "pdf"]  # the registry's order, weakest first
    for row in rows:
        mine = [r for r in records if r["player"] == row.player]
        scores = [r["score"] for r in mine]
        mean, sd = statistics.fmean(scores), statistics.stdev(scores)
        half = float(scipy_stats.t.ppf(0.975, len(scores) - 1)) * sd / math.sqrt(len(scores))  # the t interval by hand
        s = row.scores
        assert (s.n, s.median, s.min, s.max) == (6, statistics.median(scores), min(scores), max(scores))
        assert s.mean == pytest.approx(mean, rel=1e-12) and s.std == pytest.approx(sd, rel=1e-12)
        assert s.ci is not None and s.ci.n == 6 and s.ci.mean == pytest.approx(mean, rel=1e-12)
        assert s.ci.low == pytest.approx(mean - half, rel=1e-12) and s.ci.high == pytest.approx(mean + half, rel=1e-12)
        assert row.seconds_per_move == pytest.approx(sum(r["seconds"] for r in mine) / sum(r["score"] for r in mine))
    write_summary(tmp_path, manifest, rows)
    lines = (tmp_path / SUMMARY_CSV).read_text().splitlines()
    assert lines[0].startswith("player,games,failed,failed_memory,failed_timeout,failed_error,mean,ci_low,ci_high")
    assert lines[1].startswith(f"random,6,0,0,0,0,{rows[0].scores.mean}")
    markdown = (tmp_path / SUMMARY_MD).read_text()
    assert markdown.startswith("# 4x4 3,2,2 with seed 2\n") and summary_table(rows) in markdown


def test_failed_games_are_recorded_with_their_reason_and_the_others_finish(tmp_path: Path, test_players: Path) -> None:
    players = ("random", T + "MemoryHog", T + "Aborter", T + "Broken", T + "Sleeper")
    report = play(tmp_path, players, games=2, memory_bytes=2**30, time_seconds=1.5)
    assert (report.played, report.failed) == (10, 8)
    records = load_results(tmp_path)[1]
    game = {(r["player"], r["game"]): r for r in records}
    for g in range(2):
        assert game["random", g]["status"] == "ok"
        hog, aborted, broken, sleeper = (game[T + name, g] for name in ("MemoryHog", "Aborter", "Broken", "Sleeper"))
        assert hog["status"] == "memory" and hog["message"].startswith("MemoryError")
        assert aborted["status"] == "memory" and "SIGABRT" in aborted["message"] and aborted["peak_mb"] is None
        assert broken["status"] == "error" and broken["message"] == "RuntimeError: this player is broken on purpose"
        assert sleeper["status"] == "timeout" and "1.5 s" in sleeper["message"] and sleeper["seconds"] >= 1.5
        for failed in (hog, aborted, broken, sleeper):
            assert failed["score"] is None and failed["shots"] == [] and len(failed["layout"]) == 3
    rows = {row.player: row for row in summarize_records(records)}
    assert rows["random"].scores.n == 2 and rows["random"].failed == 0
    assert rows[T + "Sleeper"].failures == {"timeout": 2} and rows[T + "Sleeper"].scores.n == 0
    assert paired_scores(records, "random", T + "Broken") == ([], [])  # no game that both finished
    assert re.search(r"\| +2 \(2 memory\) \|", summary_table(list(rows.values())))


def test_a_worker_that_exits_by_itself_is_an_error_with_its_status_not_memory(tmp_path: Path, test_players: Path) -> None:
    players = ("random", T + "Exiter", T + "Quitter", T + "Segfaulter")
    assert play(tmp_path, players, games=2) == RunReport(0, 8, 6)
    game = {(r["player"], r["game"]): r for r in load_results(tmp_path)[1]}
    for g in range(2):
        assert game["random", g]["status"] == "ok"
        assert (game[T + "Exiter", g]["status"], game[T + "Exiter", g]["message"]) == (
            "error", "the worker process exited by itself with status 3 while playing")
        assert (game[T + "Quitter", g]["status"], game[T + "Quitter", g]["message"]) == (
            "error", "the game's code exited with status 3")
        assert (game[T + "Segfaulter", g]["status"], game[T + "Segfaulter", g]["message"]) == (
            "error", "the worker process was killed by SIGSEGV while playing")


def test_failures_are_marked_in_the_summary_and_never_averaged(tmp_path: Path, test_players: Path) -> None:
    play(tmp_path, ("random", T + "Broken"), games=3)
    rows = summarize_records(load_results(tmp_path)[1])
    table = summary_table(rows)
    lines = table.splitlines()
    assert lines[2].split("|")[1].strip() == "random" and lines[3].split("|")[1].strip() == f"{T}Broken *"
    assert lines[3].split("|")[3].strip() == "3 (3 error)" and lines[3].split("|")[4].strip() == "-"  # no mean of nothing
    assert table.endswith("* some games of this player failed: its statistics are over its finished games only "
                          "(failures are counted, not scored)")  # fmt: skip
    play(tmp_path / "clean", ("random",), games=2)
    assert "*" not in summary_table(summarize_records(load_results(tmp_path / "clean")[1]))


def test_peak_memory_is_measured_per_game(tmp_path: Path, test_players: Path) -> None:
    # One worker plays Ballast then random on each board: the random game right after the
    # ballast must not inherit its peak, or the high-water mark was not reset.
    play(tmp_path, (T + "Ballast", "random"), games=2, workers=1)
    peak = {(r["player"], r["game"]): r["peak_mb"] for r in load_results(tmp_path)[1]}
    for g in range(2):
        assert peak[T + "Ballast", g] >= 200
        assert peak["random", g] < peak[T + "Ballast", g] - 150


def test_a_memory_limit_too_small_for_any_worker_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(BattlelogError, match=r"memory limit of 50 MB is below the \d+ MB"):
        play(tmp_path, ("random",), games=1, memory_bytes=50 * 2**20)


# ----- the output directory --------------------------------------------------------------------
def test_a_rerun_extends_on_the_same_boards_without_replaying(tmp_path: Path) -> None:
    play(tmp_path, ("random",), games=3)
    before = (tmp_path / GAMES).read_bytes()
    assert play(tmp_path, ("random", "pdf"), games=5) == RunReport(3, 7, 0)
    assert (tmp_path / GAMES).read_bytes().startswith(before)
    records = load_results(tmp_path)[1]
    assert len(records) == 10
    layouts: dict[int, list] = {}
    for r in records:
        assert layouts.setdefault(r["game"], r["layout"]) == r["layout"]
    assert play(tmp_path, ("random", "pdf"), games=5) == RunReport(10, 0, 0)
    random, pdf = paired_scores(records, "random", "pdf")
    score = {(r["player"], r["game"]): r["score"] for r in records}
    assert (random, pdf) == ([score["random", g] for g in range(5)], [score["pdf", g] for g in range(5)])


def test_a_directory_of_another_experiment_is_refused(tmp_path: Path, test_players: Path) -> None:
    play(tmp_path, ("random",), games=1, seed=1)
    with pytest.raises(BattlelogError, match="holds an experiment on 4x4 3,2,2 with seed 1, not 4x4 3,2,2 with seed 2"):
        play(tmp_path, ("random",), games=1, seed=2)
    tunable = T + "Tunable"
    play(tmp_path, (tunable,), games=1, seed=1, options={tunable: {"level": 2}})
    assert load_results(tmp_path)[1][-1]["options"] == {"level": 2}
    assert load_results(tmp_path)[1][-1]["player"] == f"{tunable}[level=2]"
    play(tmp_path, (tunable,), games=1, seed=1, options={tunable: {"level": 3}})  # another configuration: a player of its own
    assert [r["player"] for r in load_results(tmp_path)[1]] == ["random", f"{tunable}[level=2]", f"{tunable}[level=3]"]


def test_a_torn_last_line_is_ignored_then_repaired(tmp_path: Path) -> None:
    play(tmp_path, ("random",), games=2)
    path = tmp_path / GAMES
    complete = path.read_bytes()
    path.write_bytes(complete + b'{"player": "random", "ga')  # a run killed in the middle of a write
    assert len(load_results(tmp_path)[1]) == 2
    assert play(tmp_path, ("random",), games=3) == RunReport(2, 1, 0)
    assert path.read_bytes().startswith(complete) and len(load_results(tmp_path)[1]) == 3


def test_two_runs_cannot_write_one_directory_at_once(tmp_path: Path) -> None:
    play(tmp_path, ("random",), games=1)
    with open(tmp_path / GAMES, "ab") as other_run:
        fcntl.flock(other_run.fileno(), fcntl.LOCK_EX)
        with pytest.raises(BattlelogError, match="in use by another running experiment"):
            play(tmp_path, ("random",), games=2)


def test_unknown_players_and_bad_settings_are_refused_before_anything_runs() -> None:
    with pytest.raises(BattlelogError, match="unknown player 'best'"):
        Experiment(SMALL, ("best",), 1, 0)
    with pytest.raises(BattlelogError, match="cannot import 'no_such_module_here'"):
        Experiment(SMALL, ("no_such_module_here:Player",), 1, 0)
    with pytest.raises(BattlelogError, match="named twice"):
        Experiment(SMALL, ("pdf", "pdf"), 1, 0)
    with pytest.raises(BattlelogError, match="at least 1"):
        Experiment(SMALL, ("pdf",), 0, 0)
    with pytest.raises(BattlelogError, match="workers must be at least 1"):
        Limits(workers=0)


# ----- interrupting ------------------------------------------------------------------------------
def test_an_interrupted_or_killed_run_resumes_without_replaying_games(tmp_path: Path, subprocess_env: dict) -> None:
    out = tmp_path / "results"
    argv = [sys.executable, "-m", "battlelog.cli", "experiment", "--size", "5", "--ships", "3,3,2",
            "--players", f"random,{T}Slow", "--games", "24", "--seed", "9", "--out", str(out), "--workers", "1"]  # fmt: skip
    check_interrupted_runs_resume(argv, subprocess_env, out, 48)


def test_a_p_value_below_what_a_double_holds_is_printed_as_a_bound_not_as_zero() -> None:
    assert [p_value(v) for v in (0.0, 1e-320, 2e-37, 0.0329, None)] == ["<1e-300", "<1e-300", "2e-37", "0.033", "-"]
