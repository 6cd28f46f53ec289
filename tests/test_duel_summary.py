"""Distributions and head-to-head tables of `battlelog summarize` (battlelog/report/duel.py).

Exact values on hand-made records (Wilson's interval against scipy's own); the duel's win rates against
a direct turn-by-turn simulation of alternating play on recorded games (each side firing its recorded
shots in turn until its answers have sunk the whole fleet); the command's text and --json.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import binomtest

from battlelog.cli import main
from battlelog.report.duel import Distribution, all_duels, distributions, duel, paired_chance, wilson
from battlelog.runner.records import load_results

RECORDED = Path(__file__).resolve().parent.parent / "experiments" / "results" / "paper-table" / "5x5_3-2"


def record(player: str, game: int, score: int, status: str = "ok") -> dict[str, Any]:
    return {"player": player, "game": game, "status": status, "score": score if status == "ok" else None}


def test_distribution_quantiles_and_within() -> None:
    d = Distribution("p", (5, 7, 7, 9, 12))
    # the smallest k within which at least that share finished: 10% -> 1 game, 50% -> 3 games, 90% -> 5 games
    assert [d.quantile(q) for q in (0.1, 0.25, 0.5, 0.75, 0.9)] == [5, 7, 7, 9, 12]
    assert d.within(6) == 0.2 and d.within(7) == 0.6 and d.within(4) == 0.0 and d.within(12) == 1.0
    assert d.cdf() == {5: 0.2, 6: 0.2, 7: 0.6, 8: 0.6, 9: 0.8, 10: 0.8, 11: 0.8, 12: 1.0}
    assert Distribution("none", ()).quantile(0.5) is None and Distribution("none", ()).cdf() == {}


def test_distributions_skip_failed_games() -> None:
    records = [record("a", 0, 4), record("a", 1, 0, "timeout"), record("a", 2, 6)]
    (only,) = distributions(records)
    assert only.scores == (4, 6) and only.quantile(0.5) == 4


def test_wilson_matches_scipy() -> None:
    for successes, n in ((3, 4), (0, 10), (10, 10), (517, 1000)):
        expected = binomtest(successes, n).proportion_ci(confidence_level=0.95, method="wilson")
        got = wilson(successes, n)
        assert got.p == successes / n
        assert got.low == pytest.approx(expected.low, abs=1e-12) and got.high == pytest.approx(expected.high, abs=1e-12)


def test_duel_exact_on_hand_made_boards() -> None:
    shots_a, shots_b = [3, 5, 4, 6], [4, 5, 2, 7]
    d = duel("a", "b", shots_a, shots_b)
    assert d.games == 4
    assert d.a_starts.p == 3 / 4  # 3 <= 4, 5 <= 5, 6 <= 7
    assert d.b_starts.p == 2 / 4  # 3 < 4, 6 < 7; the tie 5, 5 goes to the starter, B
    assert d.alternating.p == 5 / 8  # per board (1 + 1) / 2, (1 + 0) / 2, 0, (1 + 1) / 2
    # the alternating interval is the paired t interval of the per-board values 1, 1/2, 0, 1
    assert d.alternating.low == pytest.approx(max(0.0, 5 / 8 - 3.182446305284263 * 0.4787135538781691 / 2), abs=1e-9)
    assert d.alternating.high == 1.0


def test_paired_chance_never_collapses_to_a_point() -> None:
    always = paired_chance([1.0] * 20)
    assert always.p == 1.0 and always.high == 1.0 and always.low == pytest.approx(wilson(20, 20).low)
    assert always.low < 1.0


def test_all_duels_pair_boards_both_finished() -> None:
    records = [
        record("pdf", 0, 5),
        record("pdf", 1, 9),
        record("pdf", 2, 7),
        record("random", 0, 8),
        record("random", 1, 6),
        record("random", 2, 0, "error"),
    ]
    (d,) = all_duels(records)
    assert (d.a, d.b, d.games) == ("pdf", "random", 2)  # the stronger player (registry order) is A; game 2 dropped
    assert d.a_starts.p == 0.5 and d.b_starts.p == 0.5


def play_alternating(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """True when ``first`` (shooting first) sinks its opponent's whole fleet before ``second`` does: each side
    fires its recorded shots in turn, and wins when its answers have named every ship sunk."""
    fleet = len(first["layout"])
    sunk = {0: 0, 1: 0}
    sides = (first["shots"], second["shots"])
    for turn in range(2 * max(len(s) for s in sides)):
        side = turn % 2
        shot = turn // 2
        if shot < len(sides[side]) and sides[side][shot]["result"] == "sunk":
            sunk[side] += 1
            if sunk[side] == fleet:
                return side == 0
    raise AssertionError("neither side finished")


def simulated_rate(games: dict[int, dict[str, dict[str, Any]]], a: str, b: str, boards: list[int]) -> float:
    """A's win rate in alternating play on ``boards``: A shoots first on even duels, B on odd ones, each
    board played twice (once each way)."""
    wins = 0
    for g in boards:
        wins += play_alternating(games[g][a], games[g][b])
        wins += not play_alternating(games[g][b], games[g][a])
    return wins / (2 * len(boards))


def test_duel_table_agrees_with_simulated_alternating_play() -> None:
    _, records = load_results(RECORDED)
    games: dict[int, dict[str, dict[str, Any]]] = {}
    for r in records:
        if r["status"] == "ok":
            games.setdefault(r["game"], {})[r["player"]] = r
    a, b = "pdf", "hunt-target"
    boards = sorted(g for g in games if a in games[g] and b in games[g])
    random.Random(0).shuffle(boards)
    fitted, held_out = boards[: len(boards) // 2], boards[len(boards) // 2 :]
    table = duel(a, b, [games[g][a]["score"] for g in fitted], [games[g][b]["score"] for g in fitted])
    # on the same boards, the turn-by-turn play says exactly what the table's rule says
    assert table.alternating.p == pytest.approx(simulated_rate(games, a, b, fitted), abs=1e-12)
    a_first = sum(play_alternating(games[g][a], games[g][b]) for g in fitted) / len(fitted)
    assert table.a_starts.p == pytest.approx(a_first, abs=1e-12)
    # on other boards of the same experiment, play falls inside the table's interval
    assert table.alternating.low <= simulated_rate(games, a, b, held_out) <= table.alternating.high


def test_summarize_duel_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "run"
    shutil.copytree(RECORDED, folder)
    assert main(["summarize", str(folder), "--duel"]) == 0
    text = capsys.readouterr().out
    assert "Distribution of shots" in text and "| pdf - hunt-target" in text
    assert "Head to head" in (folder / "summary.md").read_text()
    assert main(["summarize", str(folder), "--duel", "--json"]) == 0
    captured = capsys.readouterr()
    figures = json.loads(captured.out)
    assert "wrote" in captured.err
    players = {p["player"]: p for p in figures["players"]}
    assert players["pdf"]["within"][str(players["pdf"]["quantiles"]["0.5"])] >= 0.5
    entry = next(d for d in figures["duel"] if (d["a"], d["b"]) == ("pdf", "hunt-target"))
    _, records = load_results(folder)
    scores = {(r["player"], r["game"]): r["score"] for r in records if r["status"] == "ok"}
    boards = sorted(g for (p, g) in scores if p == "pdf" and ("hunt-target", g) in scores)
    assert entry["games"] == len(boards)
    assert entry["a_starts"]["p"] == sum(scores["pdf", g] <= scores["hunt-target", g] for g in boards) / len(boards)
    assert entry["b_starts"]["p"] == sum(scores["pdf", g] < scores["hunt-target", g] for g in boards) / len(boards)
    assert entry["alternating"]["p"] == pytest.approx((entry["a_starts"]["p"] + entry["b_starts"]["p"]) / 2)
    assert set(entry["alternating"]) == {"p", "low", "high"}
    assert main(["summarize", str(folder), "--json"]) == 0
    assert "duel" not in json.loads(capsys.readouterr().out)
