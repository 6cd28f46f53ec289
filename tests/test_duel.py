"""Duels: the loop against a hand simulation of alternating play, what each side is told, the records
reproducible from the seed and resumed after an interruption, and the command's one-line errors."""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import TEST_PLAYERS

from battlelog.cli import main
from battlelog.errors import BattlelogError
from battlelog.players.base import Player
from battlelog.players.opponent import Opponent
from battlelog.players.spec import player_spec
from battlelog.report.duel_run import duel_summary, pair_scores, sign_test
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell
from battlelog.rules.layouts import placement_json, sample_layout
from battlelog.rules.state import GameState
from battlelog.runner.duel import DuelRun, play_duel, run_duels
from battlelog.runner.duel_records import DUEL_JOURNAL
from battlelog.runner.records import GAMES
from battlelog.runner.seeds import layout_for

from runs import run_until

CONFIG = GameConfig(4, (3, 2))


class Sweeper(Player):
    """Shoots the cells in a fixed order (reading order, or its reverse) and remembers what it was told."""

    name = "sweeper"

    def __init__(self, seed: Any = None, reverse: bool = False) -> None:
        super().__init__(seed)
        self.reverse = reverse
        self.told: list[tuple[int, Opponent | None]] = []
        self.opponent: Opponent | None = None

    def face(self, opponent: Opponent | None) -> None:
        self.opponent = opponent

    def choose(self, state: GameState) -> Cell:
        self.told.append((len(state.shots), self.opponent))
        order = sorted(state.unshot, reverse=self.reverse)
        return order[0]


def _finish(layout: Any, reverse: bool) -> int:
    """The shots a sweep needs to hit every ship cell: worked out from the layout alone."""
    cells = sorted(r * 4 + c for placement in layout for r, c in placement.cells)
    return 16 - cells[0] if reverse else cells[-1] + 1


def _without_times(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in record.items() if key != "seconds"} for record in records]


@pytest.mark.parametrize("first", [0, 1])
def test_the_loop_is_alternating_play_as_worked_out_by_hand(first: int) -> None:
    rng = np.random.default_rng(first)
    for _ in range(40):
        targets = (sample_layout(CONFIG, rng), sample_layout(CONFIG, rng))
        a, b = Sweeper(), Sweeper(reverse=True)
        record = play_duel(CONFIG, targets, (a, b), ("a", "b"), first)
        t = (_finish(targets[0], False), _finish(targets[1], True))
        # the opener wins when it needs no more shots than the other; the other only when it needs fewer
        winner = first if t[first] <= t[1 - first] else 1 - first
        assert record["winner"] == "ab"[winner] and record["first"] == "ab"[first]
        assert len(record["shots"][winner]) == t[winner]
        assert len(record["shots"][1 - winner]) == t[winner] - (winner == first)
        assert record["shots"][0] == [list(divmod(x, 4)) for x in range(len(record["shots"][0]))]
        # before each of its shots a side is told the other's game against its fleet, a turn behind or level
        for side, player in enumerate((a, b)):
            other = record["shots"][1 - side]
            for fired, opponent in player.told:
                assert opponent is not None and opponent.player == "ab"[1 - side]
                behind = fired + (side != first)
                assert [list(shot.cell) for shot in opponent.state.shots] == other[:behind]


def _run(out: Path, duels: int, seed: int = 3, stop_after: int | None = None) -> list[dict[str, Any]]:
    specs = (player_spec("racer[samples=30,exact=0,rivals=30]"), player_spec("rollout[samples=30,exact=0]"))
    run = DuelRun(CONFIG, specs, duels, seed)
    seen: list[dict[str, Any]] = []

    def report(record: dict[str, Any]) -> None:
        seen.append(record)
        if stop_after is not None and len(seen) == stop_after:
            raise KeyboardInterrupt

    return run_duels(run, out, report)


def test_duels_are_reproducible_from_the_seed_and_resume_where_they_stopped(tmp_path: Path) -> None:
    whole = _run(tmp_path / "whole", 6)
    assert [r["game"] for r in whole] == list(range(6))
    assert {r["first"] for r in whole[::2]} == {"racer[exact=0,rivals=30,samples=30]"}
    # a pair of duels: the same two boards, swapped, each side's hunted layout that board of an experiment
    assert [r["boards"] for r in whole[:4]] == [[0, 1], [1, 0], [2, 3], [3, 2]]
    for record in whole:
        for side in (0, 1):
            board = [placement_json(p) for p in layout_for(CONFIG, 3, record["boards"][side])]
            assert record["layouts"][side] == board
    assert _without_times(_run(tmp_path / "again", 6)) == _without_times(whole)
    assert _without_times(_run(tmp_path / "other", 6, seed=4)) != _without_times(whole)
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path / "cut", 6, stop_after=2)
    with open(tmp_path / "cut" / GAMES, "ab") as handle:  # a kill in the middle of a line
        handle.write(b'{"game": 2, "first": "rac')
    assert _without_times(_run(tmp_path / "cut", 6)) == _without_times(whole)
    assert len((tmp_path / "cut" / GAMES).read_text().splitlines()) == 6
    journal = tmp_path / "cut" / GAMES
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert DUEL_JOURNAL.parse(journal.read_bytes(), journal, DUEL_JOURNAL.read_manifest(tmp_path / "cut")) == lines


def test_a_record_whose_shots_do_not_alternate_is_refused(tmp_path: Path) -> None:
    whole = _run(tmp_path / "d", 1)[0]
    manifest = DUEL_JOURNAL.read_manifest(tmp_path / "d")
    broken = {**whole, "winner": next(p for p in manifest["players"] if p != whole["winner"])}
    with pytest.raises(BattlelogError, match="do not alternate"):
        DUEL_JOURNAL.parse(json.dumps(broken).encode() + b"\n", tmp_path, manifest)


def test_the_command_prints_the_win_rate_of_its_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "duel"
    argv = ["duel", "--players", "racer[samples=20,exact=0],pdf", "--size", "4", "--ships", "3,2", "--duels", "4", "--seed", "1"]
    assert main([*argv, "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    records = [json.loads(line) for line in (out / GAMES).read_text().splitlines()]
    won = sum(r["winner"] == "racer[exact=0,samples=20]" for r in records)
    assert summary["duels"] == 4 and summary["pairs"] == 2 and summary["wins"]["p"] == won / 4
    assert summary["racer[exact=0,samples=20] opens"]["duels"] == 2


def _records(outcomes: str) -> list[dict[str, Any]]:
    """Hand-made duel outcomes, a duel a letter: the winner."""
    return [{"game": d, "winner": w, "first": "ab"[d % 2]} for d, w in enumerate(outcomes)]


def test_the_win_rate_is_over_pairs_and_the_test_is_the_sign_test_over_them() -> None:
    records = _records("aa" * 9 + "ab" * 6 + "bb" * 3 + "a")  # 9 pairs won twice, 6 split, 3 lost twice, one lone duel
    assert pair_scores(records, "a") == [1.0] * 9 + [0.5] * 6 + [0.0] * 3
    summary = duel_summary(records, ("a", "b"))
    assert summary["pairs"] == 18 and summary["duels"] == 37 and summary["wins"]["p"] == pytest.approx(12 / 18)
    # 9 of the 12 unsplit pairs won: P(X >= 9) for X ~ Binomial(12, 1/2), summed here
    assert summary["p_value"] == pytest.approx(sum(math.comb(12, k) for k in range(9, 13)) / 2**12)
    assert summary["wins"]["low"] < 12 / 18 < summary["wins"]["high"]
    assert sign_test([0.5, 0.5]) == 1.0


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--players", "racer,rollout,pdf"], "between two players"),
        (["--players", "racer,racer"], "named twice"),
        (["--players", "racer,nobody"], "unknown player"),
        (["--players", "racer,pdf", "--salvo", "ships"], "salvo"),
        (["--players", "racer,pdf", "--duels", "0"], "even"),
        (["--players", "racer,pdf", "--duels", "3"], "even"),
        (["--players", "racer[rivals=0],pdf"], "rivals"),
        (["--players", "racer[candidates=0],pdf"], "player racer needs candidates"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], expected: str) -> None:
    status = main(["duel", "--size", "4", "--ships", "3,2", "--out", str(tmp_path / "d"), *extra])
    err = capsys.readouterr().err
    assert status == 2 and expected in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "d").exists()


def test_a_directory_of_another_run_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(tmp_path / "d", 1)
    status = main(["duel", "--size", "4", "--ships", "3,2", "--players", "pdf,racer", "--out", str(tmp_path / "d")])
    err = capsys.readouterr().err
    assert status == 2 and "holds an experiment on duels of" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow  # two interpreters started: some 10 s
def test_a_killed_run_resumes_to_the_uninterrupted_records(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    out, config = tmp_path / "killed", GameConfig(5, (3, 3, 2))
    players = ("random", f"{TEST_PLAYERS}:Slow")  # 5 ms a move: slow enough to kill mid-way
    argv = [sys.executable, "-m", "battlelog.cli", "duel", "--size", "5", "--ships", "3,3,2", "--players", ",".join(players),
            "--duels", "24", "--seed", "4", "--out", str(out)]  # fmt: skip
    status, _ = run_until(argv, subprocess_env, out / GAMES, 3, signal.SIGKILL)
    assert status == -signal.SIGKILL and 3 <= len((out / GAMES).read_bytes().split(b"\n")) - 1 < 24
    finished = subprocess.run(argv, env=subprocess_env, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    lines = DUEL_JOURNAL.parse((out / GAMES).read_bytes(), out / GAMES, DUEL_JOURNAL.read_manifest(out))
    resumed = sorted(lines, key=lambda r: r["game"])
    whole = run_duels(DuelRun(config, (player_spec(players[0]), player_spec(players[1])), 24, 4), tmp_path / "whole")
    assert _without_times(resumed) == _without_times(whole)
