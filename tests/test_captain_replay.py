"""`battlelog replay` on a captain run: the captain's belief after every step against the brute force.

A 5x5 run (two boards of three ships, 3,2,2; a shooter and an asker whose bank is a few questions with
a Python twin each, so that tests/captain_brute.py can weigh the answers independently). The frames'
heat maps must be the brute-force posterior given the shots and the answers the spotter gave, the
list beside each frame the transcript's questions so far; the files are written; bad input is one line.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from captain_brute import Layout, Predicate, layouts, tile
from PIL import Image

from battlelog.captain.boards import read_true_board
from battlelog.captain.transcript import belief_cells, load_captain_game
from battlelog.cli import main
from battlelog.views.replay.captain import CaptainReplay, captain_pictures
from battlelog.views.replay.panels import percent_text

BOARDS = {
    "a.txt": ["R,R,R,W,W", "W,W,W,W,G", "W,P,W,W,G", "W,P,W,W,W", "W,W,W,W,W"],
    "b.txt": ["W,W,W,W,W", "G,G,W,W,W", "W,W,W,R,W", "W,W,W,R,W", "P,P,W,R,W"],
}
NAMES, COLS = ("Red", "Green", "Purple"), 5


def _touch(a: frozenset[int], b: frozenset[int]) -> bool:
    return any(abs(x - y) == COLS or (abs(x - y) == 1 and x // COLS == y // COLS) for x in a for y in b)


#: The asker's bank, each program with the same question asked of a brute-force layout.
BANK: dict[str, Predicate] = {
    "(== (size Red) 3)": lambda L: len(L["Red"]) == 3,
    "(== (size Green) 3)": lambda L: len(L["Green"]) == 3,
    "(== (orient Green) H)": lambda L: len({c // COLS for c in L["Green"]}) == 1,
    "(== (orient Purple) H)": lambda L: len({c // COLS for c in L["Purple"]}) == 1,
    "(touch Red Green)": lambda L: _touch(L["Red"], L["Green"]),
    "(touch Purple Red)": lambda L: _touch(L["Purple"], L["Red"]),
    "(any (map (lambda y0 (== (rowL y0) 2)) (coloredTiles Green)))": lambda L: any(c // COLS == 1 for c in L["Green"]),
    "(any (map (lambda y0 (== (colL y0) 3)) (coloredTiles Red)))": lambda L: any(c % COLS == 2 for c in L["Red"]),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's folder; its boards and bank lie beside it."""
    root = tmp_path_factory.mktemp("captain")
    for name, lines in BOARDS.items():
        (root / name).write_text("\n".join(lines) + "\n")
    (root / "bank.txt").write_text("\n".join(BANK) + "\n")
    argv = ["captain", "--board", str(root / "a.txt"), str(root / "b.txt"), "--captain", "shooter,asker", "--shots", "20",
            "--questions", "5", "--noise", "0.2", "--threshold", "0.05", "--bank", str(root / "bank.txt"), "--games", "1",
            "--seed", "4", "--out", str(root / "out")]  # fmt: skip
    assert main(argv) == 0
    return root / "out"


def _records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "games.jsonl").read_text().splitlines()]


def _asker(run: Path, board: str) -> dict[str, Any]:
    return next(r for r in _records(run) if r["board"] == board and r["captain"] != "shooter")


def _brute_frames(record: dict[str, Any], boards: Path, noise: float) -> list[list[float]]:
    """The brute force's cell marginals before the first step and after each: its layouts, kept while
    they show every shot's tile, each weighed 1 - noise or noise per answer it agrees with or not."""
    board = read_true_board(boards / record["board"])
    weighted = [(layout, 1.0) for layout in layouts(5, 5, NAMES, board.lengths)]
    frames = [_marginals(weighted)]
    for step in record["transcript"]:
        if "shot" in step:
            cell, shown = step["shot"][0] * 5 + step["shot"][1], None if step["answer"] == "water" else step["answer"]
            weighted = [(layout, w) for layout, w in weighted if tile(layout, cell) == shown]
        else:
            agrees, given = BANK[step["question"]], step["given_answer"]
            weighted = [(layout, w * (1 - noise if agrees(layout) == given else noise)) for layout, w in weighted]
        frames.append(_marginals(weighted))
    return frames


def _marginals(weighted: list[tuple[Layout, float]]) -> list[float]:
    """Each cell's chance of a ship (summed over each layout's covered tiles, for speed)."""
    total, covered = sum(w for _, w in weighted), [0.0] * 25
    for layout, w in weighted:
        for cell in frozenset().union(*layout.values()):
            covered[cell] += w
    return [c / total for c in covered]


@pytest.mark.parametrize("board", list(BOARDS))
def test_the_heat_maps_are_the_brute_force_posterior_and_the_list_the_questions_so_far(run: Path, board: str) -> None:
    record = _asker(run, board)
    steps = record["transcript"]
    questions = [s for s in steps if "question" in s]
    assert len(questions) >= 2 and any(s["true_answer"] != s["given_answer"] for s in questions)  # the noise shows
    game = load_captain_game(run, 0, record["captain"], board, None)
    cells = tuple(belief_cells(game))
    expected = _brute_frames(record, run.parent, 0.2)
    assert len(cells) == len(expected) == len(steps) + 1
    for mine, theirs in zip(cells, expected):
        assert mine.ravel().tolist() == pytest.approx(theirs, abs=1e-9)
    sheets = captain_pictures(CaptainReplay(game, cells)).sheets
    for k, sheet in enumerate(sheets):
        asked = [s for s in steps[:k] if "question" in s]
        assert [line.split(" ", 1)[1].split(": said")[0] for line in sheet.notes] == [s["question"] for s in asked]
        assert all(f"said {'yes' if s['given_answer'] else 'no'}" in line for line, s in zip(sheet.notes, asked))
        assert sheet.current == (len(asked) - 1 if k and "question" in steps[k - 1] else None)
        shot = {r * 5 + c for s in steps[:k] if "shot" in s for r, c in [s["shot"]]}
        heat = sheet.panels[0]
        assert [heat.texts[c] for c in range(25) if c not in shot] == [
            percent_text(expected[k][c]) for c in range(25) if c not in shot
        ]
        following = steps[k]["shot"] if k < len(steps) and "shot" in steps[k] else None
        assert sheet.next_cell == (None if following is None else tuple(following))


def test_the_command_writes_the_gif_the_page_and_the_still(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _asker(run, "a.txt")
    out = tmp_path / "replay"
    assert main(["replay", str(run), "--game", "0", "--player", record["captain"], "--board", "a.txt", "--out", str(out)]) == 0
    frames = len(record["transcript"]) + 1
    assert f": {frames} frames" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == ["replay.gif", "replay.html", "replay.png"]
    with Image.open(out / "replay.gif") as gif:
        assert gif.n_frames == frames
    page = (out / "replay.html").read_text()
    embedded = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert embedded
    data = json.loads(embedded[1])
    assert [len(f["notes"]) for f in data["frames"]] == [
        sum("question" in s for s in record["transcript"][:k]) for k in range(frames)
    ]
    assert [p["key"] for p in data["frames"][0]["panels"]] == ["posterior", "board"]


def test_the_boards_folder_is_read_when_the_boards_are_not_beside_the_run(run: Path, tmp_path: Path) -> None:
    moved = tmp_path / "run"
    shutil.copytree(run, moved)  # its boards are not beside the copy
    (tmp_path / "boards").mkdir()
    shutil.copy(run.parent / "b.txt", tmp_path / "boards")
    argv = ["replay", str(moved), "--game", "0", "--player", "shooter", "--board", "b.txt", "--out", str(tmp_path / "r")]
    assert main([*argv, "--boards", str(tmp_path / "boards")]) == 0
    assert (tmp_path / "r" / "replay.gif").is_file()


def _tampered(run: Path, tmp_path: Path, change: Any) -> Path:
    """A copy of the run, boards beside it, with ``change`` applied to the asker's game on a.txt."""
    for name in BOARDS:
        shutil.copy(run.parent / name, tmp_path / name)
    copy = tmp_path / "out"
    shutil.copytree(run, copy)
    records = _records(copy)
    for record in records:
        if record["board"] == "a.txt" and record["captain"] != "shooter":
            change(record["transcript"])
    (copy / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return copy


def _first(kind: str, transcript: list[dict[str, Any]]) -> dict[str, Any]:
    return next(s for s in transcript if kind in s)


@pytest.mark.parametrize(
    ("argv", "change", "expected"),
    [
        (["--player", "shooter", "--board", "a.txt"], None, "say which game with --game N (games 0..0 recorded)"),
        (["--game", "3", "--board", "a.txt"], None, "no game 3 on board a.txt (it has no game 3)"),
        (["--game", "0", "--player", "sailor"], None, "no game 0 of captain sailor (game 0 was played by"),
        (["--game", "0", "--board", "c.txt"], None, "no game 0 on board c.txt"),
        (["--game", "0", "--board", "a.txt"], None, "was played by asker[bank=bank.txt,threshold=0.05], shooter: say which"),
        (["--game", "0", "--player", "shooter"], None, "game 0 was played on a.txt, b.txt: say which with --board NAME"),
        (["--game", "0", "--player", "shooter", "--board", "a.txt", "--boards", "NOWHERE"], None, "--boards"),
        (["--game", "0", "--board", "a.txt", "--player", "ASKER"],
         lambda t: _first("shot", t).update(answer="Orange"), "the shot is recorded as 'Orange', but a.txt shows"),
        (["--game", "0", "--board", "a.txt", "--player", "ASKER"],
         lambda t: _first("question", t).update(eig=0.01), "the EIG is recorded as 0.01, the belief gives"),
        (["--game", "0", "--board", "a.txt", "--player", "ASKER"],
         lambda t: _first("question", t).update(true_answer=not _first("question", t)["true_answer"]),
         "the true answer is recorded as"),
        (["--game", "0", "--board", "a.txt", "--player", "ASKER"],
         lambda t: _first("question", t).update(question="(size Red)"), "is not a yes/no question"),
        (["--game", "0", "--board", "a.txt", "--player", "ASKER"],
         lambda t: _first("shot", t).update(shot=[5, 0]), "a shot is [row, column] on the 5x5 board, not [5, 0]"),
        (["--game", "0", "--board", "a.txt", "--player", "ASKER"],
         lambda t: _first("shot", t).pop("answer"), "a step is {shot, answer} or {question, true_answer, given_answer, eig}"),
        (["--game", "0", "--board", "a.txt", "--player", "ASKER"],
         lambda t: t.__setitem__(-1, dict(_first("shot", t))), "again"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], change: Any, expected: str
) -> None:
    folder = _tampered(run, tmp_path, change or (lambda t: None))
    asker = _asker(run, "a.txt")["captain"]
    argv = [str(tmp_path / "nowhere") if a == "NOWHERE" else asker if a == "ASKER" else a for a in argv]
    assert main(["replay", str(folder), *argv, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and expected in err, err
    assert not (tmp_path / "r").exists()


def test_a_missing_board_names_the_file_looked_for(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moved = tmp_path / "run"
    shutil.copytree(run, moved)
    argv = ["replay", str(moved), "--game", "0", "--player", "shooter", "--board", "a.txt", "--out", str(tmp_path / "r")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path.resolve() / 'a.txt'}: no such board file" in err and "--boards DIR" in err


def test_board_options_are_refused_for_other_sources(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = Path(__file__).parent / "fixtures" / "midgame_5x5.json"
    assert main(["replay", str(state), "--board", "a.txt", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is no captain run: --board and --boards pick a captain run's game" in err
