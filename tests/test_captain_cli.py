"""`battlelog captain`: the JSON lines and transcripts, paired noise, resuming, and bad input.

Small boards (5x5, three ships) keep every game to a fraction of a second; the exactness of the
belief behind the moves is tests/test_captain_belief.py's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from battlelog.captain.bank import default_bank, generated, yes_no
from battlelog.captain.boards import read_true_board
from battlelog.captain.captains import Asker
from battlelog.captain.game import game_streams, play_game
from battlelog.cli import main

BOARDS = {
    "a.txt": ["R,R,R,W,W", "W,W,W,W,G", "W,P,W,W,G", "W,P,W,W,W", "W,W,W,W,W"],
    "b.txt": ["W,W,W,W,W", "G,G,W,W,W", "W,W,W,R,W", "W,W,W,R,W", "P,P,W,R,W"],
}
KEYS = {"captain", "board", "game", "shots", "hits", "misses", "questions", "f1", "won", "transcript"}


def _boards(tmp_path: Path) -> list[str]:
    paths = []
    for name, lines in BOARDS.items():
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return paths


def _run(tmp_path: Path, *extra: str, games: int = 2) -> int:
    return main(
        ["captain", "--board", *_boards(tmp_path), "--captain", "shooter,asker", "--shots", "20", "--questions", "4",
         "--noise", "0.2", "--threshold", "0.1", "--games", str(games), "--seed", "3", "--out", str(tmp_path / "out"), *extra]
    )  # fmt: skip


def _lines(tmp_path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]


def _without_times(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in ("seconds", "move_median_s", "move_seconds")}


def test_every_line_has_the_keys_and_a_transcript_that_agrees_with_the_board(tmp_path: Path) -> None:
    assert _run(tmp_path) == 0
    records = _lines(tmp_path)
    assert len(records) == 2 * 2 * 2
    assert {(r["captain"], r["board"], r["game"]) for r in records} == {
        (c, b, g) for c in ("shooter", "asker[threshold=0.1]") for b in BOARDS for g in range(2)
    }
    most = 1 - (-0.2 * math.log2(0.2) - 0.8 * math.log2(0.8))  # a noisy yes/no answer tells at most this
    asked = 0
    for record in records:
        assert set(record) >= KEYS
        board = read_true_board(tmp_path / record["board"])
        shots = [step for step in record["transcript"] if "shot" in step]
        questions = [step for step in record["transcript"] if "question" in step]
        assert len(shots) + len(questions) == len(record["transcript"])
        assert (len(shots), len(questions)) == (record["shots"], record["questions"])
        for step in shots:
            assert set(step) == {"shot", "answer"}
            r, c = step["shot"]
            code = board.codes[r * board.cols + c]
            assert step["answer"] == ("water" if code == 0 else board.names[code - 1])
        hits = sum(step["answer"] != "water" for step in shots)
        assert (record["hits"], record["misses"]) == (hits, len(shots) - hits)
        assert record["won"] == (hits == board.ship_tiles)
        precision, recall = hits / len(shots), hits / board.ship_tiles
        assert record["f1"] == pytest.approx(2 * precision * recall / (precision + recall))
        for step in questions:
            assert set(step) == {"question", "true_answer", "given_answer", "eig"}
            assert isinstance(step["true_answer"], bool) and isinstance(step["given_answer"], bool)
            assert 0.1 < step["eig"] <= most + 1e-12  # asked only above the threshold
        asked += len(questions)
        assert record["questions"] == 0 or record["captain"].startswith("asker")
    assert asked > 0


def test_every_captain_meets_the_same_noise_draws(tmp_path: Path) -> None:
    """The k-th answer of a game is flipped by the same draw whichever captain asks what."""
    board = read_true_board(_boards(tmp_path)[0])
    noise_rng, _ = game_streams(5, board.name, 1)
    draws = noise_rng.random(6)
    flips = [bool(d < 0.4) for d in draws]
    assert any(flips) and not all(flips)
    seen = []
    bank = yes_no(generated(board.rows, board.cols, board.names, board.lengths), board.names, board.rows, board.cols)
    for captain in (Asker(bank, 0.0), Asker(bank[::-1], 0.0)):
        record = play_game(board, captain, game=1, seed=5, shots=25, questions=6, noise=0.4)
        steps = [s for s in record["transcript"] if "question" in s]
        seen.append([s["question"] for s in steps])
        assert [s["true_answer"] != s["given_answer"] for s in steps] == flips[: len(steps)]
    assert len(seen[0]) >= 3 and seen[0] != seen[1]  # different questions, the same flips


def test_a_rerun_resumes_after_a_partial_file(tmp_path: Path) -> None:
    assert _run(tmp_path) == 0
    journal = tmp_path / "out" / "games.jsonl"
    full = journal.read_text().splitlines(keepends=True)
    journal.write_text("".join(full[:3]) + full[3][:40])  # three games, and a torn fourth line (a kill mid-write)
    assert _run(tmp_path) == 0
    again = journal.read_text().splitlines(keepends=True)
    assert again[:3] == full[:3]  # finished games are kept as they were
    assert len(again) == len(full)
    assert [_without_times(json.loads(x)) for x in again] == [_without_times(json.loads(x)) for x in full]
    assert _run(tmp_path) == 0  # nothing left to play: the file is unchanged
    assert journal.read_text().splitlines(keepends=True) == again


def test_more_games_extend_the_run(tmp_path: Path) -> None:
    assert _run(tmp_path, games=1) == 0
    first = _lines(tmp_path)
    assert _run(tmp_path, games=2) == 0
    both = _lines(tmp_path)
    assert both[: len(first)] == first and len(both) == 2 * len(first)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--captain", "shooter,sailor"], "unknown captain 'sailor'"),
        (["--noise", "0.7"], "--noise must be from 0 to 0.5"),
        (["--human", "HUMAN"], "human.csv, line 3: '(size Blue Red)'"),
        (["--bank", "BANK"], "is not a yes/no question"),
        (["--seed", "4"], "holds an experiment on captain games (seed 3"),
        (["--board", "HIDDEN"], "a true board shows every tile"),
        (["--board", "BENT"], "ship Red's tiles are not one straight run"),
        (["--board", "MISSING"], "missing.txt: cannot read"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: str) -> None:
    (tmp_path / "bank.txt").write_text("(touch Red Green)\n(size Red)\n")
    (tmp_path / "human.csv").write_text("trial,question,code\n1,Is Blue long?,(> (size Blue) 2)\n2,?,(size Blue Red)\n")
    (tmp_path / "hidden.txt").write_text("R,R,H\nW,W,W\nW,G,G\n")
    (tmp_path / "bent.txt").write_text("R,R,W\nW,R,W\nW,G,G\n")
    names = {"BANK": "bank.txt", "HUMAN": "human.csv", "HIDDEN": "hidden.txt", "BENT": "bent.txt", "MISSING": "missing.txt"}
    argv = [str(tmp_path / names[a]) if a in names else a for a in argv]
    if "--seed" in argv:
        assert _run(tmp_path, games=1) == 0
        capsys.readouterr()
    extra = argv if "--board" not in argv else []
    if "--board" in argv:
        code = main(["captain", "--board", argv[1], "--out", str(tmp_path / "other")])
    else:
        code = _run(tmp_path, *extra, games=1)
    err = capsys.readouterr().err
    assert code == 2
    assert expected in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    if "--bank" in argv:
        assert "line 2" in err and not (tmp_path / "out").exists()  # refused before any game


def test_the_default_bank_is_the_human_yes_no_programs_read_with_green_and_the_generated_family(tmp_path: Path) -> None:
    (tmp_path / "human.csv").write_text(
        "trial,question,code\n1,a,(touch Blue Red)\n2,b,(size Blue)\n3,c,(touch Blue Red)\n4,d,(== (color 2-3) Red)\n"
    )
    names, lengths = ("Red", "Green", "Purple", "Orange"), (5, 4, 2, 2)
    bank = [p.text for p in default_bank(tmp_path / "human.csv", 8, 8, names, lengths)]
    assert bank[0] == "(touch Green Red)"  # Blue read as Green; (size Blue) is no yes/no question
    assert "(size Green)" not in bank and len(bank) == len(set(bank))
    family = generated(8, 8, names, lengths)
    assert len(family) == 64 * 4 + 4 * 3 + 4 + 4 * 16 + 6
    tile = "(== (color 2-3) Red)"  # asked by people and in the family: once, where people put it
    assert bank == ["(touch Green Red)", tile, *(f for f in family if f != tile)]


def test_summarize_reads_a_captain_run_and_pairs_its_captains_by_board_and_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path) == 0
    records = _lines(tmp_path)
    capsys.readouterr()
    assert main(["summarize", str(tmp_path / "out"), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    rows = {row["captain"]: row for row in figures["captains"]}
    assert set(rows) == {"shooter", "asker[threshold=0.1]"}
    for captain, row in rows.items():
        mine = [r for r in records if r["captain"] == captain]
        assert row["games"] == len(mine) and row["won"] == sum(r["won"] for r in mine)
        assert row["f1"]["mean"] == pytest.approx(sum(r["f1"] for r in mine) / len(mine), abs=1e-12)
        assert row["f1"]["low"] <= row["f1"]["mean"] <= row["f1"]["high"]
    (pair,) = figures["comparisons"]
    by = {(r["captain"], r["board"], r["game"]): r for r in records}
    games = sorted({(b, g) for _, b, g in by})
    differences = [by[(pair["a"], b, g)]["shots"] - by[(pair["b"], b, g)]["shots"] for b, g in games]
    assert pair["games"] == len(games) == 4
    assert pair["shots"]["mean"] == pytest.approx(sum(differences) / len(differences), abs=1e-12)
    assert main(["summarize", str(tmp_path / "out")]) == 0
    text = capsys.readouterr().out
    assert "captain games (seed 3, 20 shots, 4 questions, noise 0.2): 8 games recorded" in text
    assert f"{pair['a']} - {pair['b']} (4 games): F1 " in text
    assert main(["summarize", str(tmp_path / "out"), "--duel"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds a captain run: --duel is for experiments" in err
