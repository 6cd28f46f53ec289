"""`battlelog reproduce` on a tiny version: every file is written and its numbers follow from the games."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from battlelog.cli import main
from battlelog.players import PLAYERS as REGISTERED
from battlelog.report.paper import PLAYERS, paper_table, random_closed_form
from battlelog.report.plots import player_color
from battlelog.rules.config import GameConfig

GAMES = 6


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reproduce")
    status = main(
        ["reproduce", "--out", str(out), "--games", str(GAMES), "--seed", "3", "--workers", "2",
         "--config", "4:3,2,2", "--config", "5:3,2", "--config", "4:3,2,2"]  # the repeat is played once
    )  # fmt: skip
    assert status == 0
    return out


def _records(out: Path, slug: str) -> list[dict]:
    return [json.loads(line) for line in (out / slug / "games.jsonl").read_text().splitlines()]


def test_paper_table_is_the_papers() -> None:
    rows = paper_table()
    assert [(r.config.size, r.config.ships) for r in rows] == [
        (4, (3, 2, 2)), (5, (3, 2)), (5, (3, 3, 2)), (6, (4, 3, 3)), (6, (5, 5, 4)), (7, (5, 5, 4))
    ]  # fmt: skip
    assert rows[2].means == {"random": 22.5, "hunt-target": 18.9, "pdf": 14.3, "problog": 14.5}


def test_random_closed_form() -> None:
    # K(M+1)/(K+1): 7 ship cells on 16 cells -> 7 * 17 / 8
    assert random_closed_form(GameConfig(4, (3, 2, 2))) == pytest.approx(14.875)


def test_every_file_is_written(tiny: Path) -> None:
    for name in ("results.md", "results.csv", "paired.csv", "report.md"):
        assert (tiny / name).stat().st_size > 0, name
    for name in ("scores_4x4_3-2-2.png", "scores_5x5_3-2.png", "means_vs_paper.png"):
        assert (tiny / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    for slug in ("4x4_3-2-2", "5x5_3-2"):
        assert (tiny / slug / "summary.csv").exists()
        records = _records(tiny, slug)
        assert sorted((r["player"], r["game"]) for r in records) == sorted(
            (p, g) for p in PLAYERS for g in range(GAMES)
        )


def test_results_follow_from_the_games(tiny: Path) -> None:
    rows = list(csv.DictReader((tiny / "results.csv").open()))
    assert len(rows) == 2 * len(PLAYERS)
    paper = {(r.config.size, r.config.ships): r.means for r in paper_table()}
    for row in rows:
        ships = tuple(int(s) for s in row["ships"].split(","))
        slug = f"{row['board']}x{row['board']}_{'-'.join(map(str, ships))}"
        scores = [r["score"] for r in _records(tiny, slug) if r["player"] == row["player"] and r["status"] == "ok"]
        assert int(row["games"]) == len(scores) == GAMES
        assert float(row["mean"]) == pytest.approx(np.mean(scores))
        assert float(row["ci_low"]) < float(row["mean"]) < float(row["ci_high"]) or np.std(scores) == 0
        assert float(row["paper"]) == paper[(int(row["board"]), ships)][row["player"]]
        # every score is a legal game length: at least the fleet's cells, at most the board's
        assert sum(ships) <= min(scores) and max(scores) <= int(row["board"]) ** 2


def test_paired_differences_follow_from_the_games(tiny: Path) -> None:
    rows = list(csv.DictReader((tiny / "paired.csv").open()))
    assert {(r["a"], r["b"]) for r in rows} == {("problog", "pdf"), ("pdf", "hunt-target")}
    for row in rows:
        ships = tuple(int(s) for s in row["ships"].split(","))
        slug = f"{row['board']}x{row['board']}_{'-'.join(map(str, ships))}"
        by = {(r["player"], r["game"]): r["score"] for r in _records(tiny, slug)}
        diffs = [by[row["a"], g] - by[row["b"], g] for g in range(GAMES)]
        assert float(row["mean_a_minus_b"]) == pytest.approx(np.mean(diffs))
        significant = float(row["ci_high"]) < 0 or float(row["ci_low"]) > 0
        assert row["significant"] == str(significant)


def test_report_shows_command_and_random_check(tiny: Path) -> None:
    report = (tiny / "report.md").read_text()
    assert "battlelog reproduce --out" in report and "--seed 3" in report
    assert report.count("--config 4:3,2,2") == 1 and "--config 5:3,2`" in report
    assert "14.875" in report  # the closed form of 4x4 3,2,2 in the random check
    assert "plots/means_vs_paper.png" in report


def test_rerun_resumes_without_replaying(tiny: Path) -> None:
    before = {slug: (tiny / slug / "games.jsonl").read_text() for slug in ("4x4_3-2-2", "5x5_3-2")}
    assert main(["reproduce", "--out", str(tiny), "--games", str(GAMES), "--seed", "3", "--workers", "1",
                 "--config", "4:3,2,2", "--config", "5:3,2"]) == 0  # fmt: skip
    for slug, text in before.items():
        assert (tiny / slug / "games.jsonl").read_text() == text


def test_unknown_configuration_is_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "--out", str(tmp_path), "--config", "9:9"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("battlelog: error:") and "\n" not in err


def test_random_closed_form_matches_the_exact_distribution() -> None:
    """Mean and sd of the last of K marked cells among M, from P(X = x) = C(x-1, K-1) / C(M, K)."""
    from math import comb, sqrt

    from battlelog.report.paper import random_closed_form_sd

    for config in (GameConfig(4, (3, 2, 2)), GameConfig(5, (3, 2)), GameConfig(7, (5, 5, 4))):
        k, m = config.ship_cells, config.cell_count
        pmf = {x: comb(x - 1, k - 1) / comb(m, k) for x in range(k, m + 1)}
        mean = sum(x * p for x, p in pmf.items())
        sd = sqrt(sum(x * x * p for x, p in pmf.items()) - mean**2)
        assert random_closed_form(config) == pytest.approx(mean, rel=1e-12)
        assert random_closed_form_sd(config) == pytest.approx(sd, rel=1e-12)


def test_every_registered_player_is_drawn_in_a_colour_of_its_own() -> None:
    colors = [player_color(name) for name in REGISTERED]
    assert len(set(colors)) == len(colors)
    mine = player_color("mymodule:MyPlayer")
    assert mine == player_color("mymodule:MyPlayer") and mine not in colors
