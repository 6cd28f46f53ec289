"""The optimum solved in pieces (battlelog.optimum.split): every first shot's value and the optimum equal
the exhaustive recursion of tests/oracle_optimum.py under every rule; a record with pieces missing is
completed without searching the others again; a stopped split search keeps what it finished and leaves
no process behind; a record for anything else is refused in one line."""

from __future__ import annotations

import json
import multiprocessing
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from battlelog.cli import main
from battlelog.errors import BattlelogError, BudgetExceeded
from battlelog.optimum import search
from battlelog.optimum.pieces import first_shot_pieces
from battlelog.optimum.solver import WINDOWED, Solver
from battlelog.optimum.split import solve_split
from battlelog.optimum.table import StateTable
from battlelog.rules.config import GameConfig
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules

from oracle_optimum import brute_first_shots, brute_optimum

RULES = [Rules(touch, sinks) for touch in TOUCH_RULES for sinks in SINK_RULES]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.touch}-{r.sinks}")
@pytest.mark.parametrize("ships", [(2, 1), (2, 2), (3, 2)], ids=lambda s: ",".join(map(str, s)))
def test_every_first_shot_and_the_optimum_equal_the_exhaustive_recursion(
    tmp_path: Path, ships: tuple[int, ...], rules: Rules
) -> None:
    result = solve_split(GameConfig(3, ships, rules), tmp_path / "split.json", workers=1, memory=1 << 22)
    brute = brute_first_shots(3, ships, rules.touch, rules.sinks)
    assert result.optimum == brute_optimum(3, ships, rules.touch, rules.sinks)
    # One first shot per class of the square's symmetries (a corner, a side's middle, the centre), each
    # covered by some layout: a cell left out is a certain miss, a shot wasted (one more than the optimum).
    given = {shot.cell: shot.value for shot in result.first_shots}
    assert all(shot.exact for shot in result.first_shots)
    assert set(given) <= {(0, 0), (0, 1), (1, 1)} and len(given) >= 2
    for row, col in {(0, 0), (0, 1), (1, 1)} - set(given):
        assert brute[3 * row + col] == 1 + result.optimum
    for (row, col), value in given.items():
        assert value == brute[3 * row + col]
    assert list(given.values()) == sorted(given.values())


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.touch}-{r.sinks}")
@pytest.mark.parametrize("ships", [(2, 2), (3, 2)], ids=lambda s: ",".join(map(str, s)))
def test_deciding_gives_the_optimum_and_a_true_bound_for_every_shot_it_rules_out(
    tmp_path: Path, ships: tuple[int, ...], rules: Rules
) -> None:
    result = solve_split(GameConfig(3, ships, rules), tmp_path / "split.json", workers=1, memory=1 << 22, decide=True)
    brute = brute_first_shots(3, ships, rules.touch, rules.sinks)
    assert result.optimum == brute_optimum(3, ships, rules.touch, rules.sinks)
    for shot in result.first_shots:
        truth = brute[3 * shot.cell[0] + shot.cell[1]]
        if shot.exact:
            assert shot.value == truth
        else:  # ruled out: a true lower bound, and one that rules it out
            assert result.optimum <= shot.value <= truth


def test_deciding_rules_out_first_shots_and_a_later_run_completes_them(tmp_path: Path) -> None:
    config, path = GameConfig(4, (3, 2)), tmp_path / "split.json"
    full = solve_split(config, tmp_path / "full.json", workers=1, memory=1 << 24)
    values = {shot.cell: shot.value for shot in full.first_shots}
    lines: list[str] = []
    decided = solve_split(config, path, workers=1, memory=1 << 24, decide=True, said=lines.append)
    assert decided.optimum == full.optimum == Fraction(2311, 264)
    out = [shot for shot in decided.first_shots if not shot.exact]
    assert out  # 4x4 3,2: the corner and the edge's middle, against the centre
    for shot in decided.first_shots:
        assert shot.value == values[shot.cell] if shot.exact else decided.optimum <= shot.value <= values[shot.cell]
    assert any("cannot beat the best" in line for line in lines)
    record = json.loads(path.read_text())
    assert record["format"] == 2 and any("at_least" in piece for piece in record["pieces"].values())
    lines.clear()
    assert solve_split(config, path, workers=1, memory=1 << 24, decide=True, said=lines.append).first_shots == decided.first_shots
    assert lines == []  # decided already: nothing searched
    completed = solve_split(config, path, workers=1, memory=1 << 24)  # without --decide: the bounds searched to the end
    assert completed.first_shots == full.first_shots
    assert completed.nodes > decided.nodes  # the bounded searches' cost is kept beside the exact ones'


def test_deciding_in_two_processes_gives_the_optimum(tmp_path: Path) -> None:
    result = solve_split(GameConfig(4, (3, 2)), tmp_path / "split.json", workers=2, memory=1 << 24, decide=True, share_every=0.2)
    assert result.optimum == Fraction(2311, 264)
    assert multiprocessing.active_children() == []
    assert list(tmp_path.glob(".*.table")) == []


def test_a_record_of_the_first_format_is_read_as_it_is(tmp_path: Path) -> None:
    config, path = GameConfig(3, (2, 2)), tmp_path / "split.json"
    whole = solve_split(config, path, workers=1, memory=1 << 22)
    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, "format": 1}))
    lines: list[str] = []
    assert solve_split(config, path, workers=1, memory=1 << 22, said=lines.append).first_shots == whole.first_shots
    assert lines == []


def test_two_processes_give_the_optimum_and_every_piece_once(tmp_path: Path) -> None:
    lines: list[str] = []
    result = solve_split(
        GameConfig(4, (3, 2)), tmp_path / "split.json", workers=2, memory=1 << 24, said=lines.append, every=0.05, share_every=0.2
    )
    assert result.optimum == Fraction(
        2311, 264
    )  # 4x4 3,2's optimum (docs/optimum.md; the whole search: tests/test_optimum_saved.py)
    record = json.loads((tmp_path / "split.json").read_text())
    assert len(record["pieces"]) == 6 == len([line for line in lines if line.startswith("piece ")])
    # Pieces that search for seconds say so meanwhile (0,0 miss: about 700,000 nodes).
    assert any("still searching after" in line for line in lines)
    assert list(tmp_path.glob(".*.table")) == []  # every piece solved: the processes' tables are gone
    assert multiprocessing.active_children() == []


def test_a_record_with_pieces_missing_is_completed_without_searching_the_rest_again(tmp_path: Path) -> None:
    config, path = GameConfig(3, (2, 2)), tmp_path / "split.json"
    whole = solve_split(config, path, workers=1, memory=1 << 22)
    record = json.loads(path.read_text())
    names = sorted(record["pieces"])
    kept = {name: record["pieces"][name] for name in names[::2]}
    path.write_text(json.dumps({**record, "pieces": kept}))
    lines: list[str] = []
    again = solve_split(config, path, workers=1, memory=1 << 22, said=lines.append)
    assert again.optimum == whole.optimum and again.first_shots == whole.first_shots
    searched = [re.search(r"first shot (.+?), \d+ layouts", line) for line in lines if line.startswith("piece ")]
    assert sorted(found.group(1) for found in searched if found) == names[1::2]
    totals = {name: piece["total"] for name, piece in json.loads(path.read_text())["pieces"].items()}
    assert totals == {name: piece["total"] for name, piece in record["pieces"].items()}
    lines.clear()
    solve_split(config, path, workers=1, memory=1 << 22, said=lines.append)  # nothing left: nothing searched
    assert lines == []


def test_a_stopped_split_search_keeps_what_it_finished_and_leaves_no_process(tmp_path: Path) -> None:
    # 4x4 3,2,2: its largest pieces take minutes, so a stop after the first second finds them searching.
    path, config = tmp_path / "split.json", GameConfig(4, (3, 2, 2))
    with pytest.raises(BudgetExceeded, match="pieces searched, kept in"):
        solve_split(config, path, workers=2, memory=1 << 24, seconds=0.0)
    assert multiprocessing.active_children() == []
    if path.exists():  # pieces finished before the stop are kept, each exact
        assert len(json.loads(path.read_text())["pieces"]) < 6
    with pytest.raises(BudgetExceeded, match="0 of 6 pieces searched"):
        solve_split(config, tmp_path / "here.json", workers=1, memory=1 << 24, seconds=0.0)
    assert (tmp_path / ".here.json.0.table").exists()  # what the stopped process solved, to start warm


def test_a_table_left_by_a_stopped_run_warms_the_next_and_goes_when_all_is_solved(tmp_path: Path) -> None:
    config, path = GameConfig(4, (3, 2)), tmp_path / "split.json"
    cold = solve_split(config, path, workers=1, memory=1 << 24)
    solver = Solver(config, settings=WINDOWED, table_file=tmp_path / ".split.json.0.table")
    solver.optimum()  # a table that holds every state of the instance, as a long stopped run would leave it
    solver.save(0.0)
    path.unlink()
    warm = solve_split(config, path, workers=1, memory=1 << 24)
    assert warm.optimum == cold.optimum == Fraction(2311, 264) and warm.first_shots == cold.first_shots
    assert warm.nodes < cold.nodes / 10  # the pieces' states were in the table already
    assert list(tmp_path.glob(".*.table")) == []


def test_a_table_takes_in_another_searchs_entries_keeping_exact_totals_and_raising_bounds(tmp_path: Path) -> None:
    config = GameConfig(4, (3, 2))
    first = Solver(config, settings=WINDOWED, table_file=tmp_path / "a.table")
    assert first.optimum() == Fraction(2311, 264)
    first.save(0.0)
    second = Solver(config, settings=WINDOWED)
    second.absorb(tmp_path / "a.table")
    assert second.optimum() == Fraction(2311, 264) and second.stats[search.NODES] <= 2  # found at the root
    # The merge rule, entry by entry: an exact total stays, a lower bound gives way to a higher one or to a total.
    key = np.array([7, 9], dtype=np.uint64)
    for mine, theirs, kept in [((5, search.EXACT), (9, search.LOWER), (5, search.EXACT)),
                               ((5, search.LOWER), (9, search.LOWER), (9, search.LOWER)),
                               ((5, search.LOWER), (3, search.LOWER), (5, search.LOWER)),
                               ((5, search.LOWER), (6, search.EXACT), (6, search.EXACT))]:  # fmt: skip
        table, other, stats = StateTable.empty(64, 2), StateTable.empty(64, 2), np.zeros(search.STATS, dtype=np.int64)
        search.store(table.arrays, stats, key, mine[0], mine[1], -1, 1)
        search.store(other.arrays, stats, key, theirs[0], theirs[1], -1, 1)
        search.absorb(other.arrays, table.arrays, stats)
        slot = search.find_slot(table.keys, table.flags, key)
        assert (int(table.values[slot]), int(table.flags[slot])) == kept
    missing = Solver(config, settings=WINDOWED)
    missing.absorb(tmp_path / "no such.table")  # nothing to take in: nothing changes
    assert missing.stats[search.STORED] == 0


@pytest.mark.parametrize(
    "text, message",
    [
        ("[]", "not a record of a split search"),
        ('{"format": 1, "instance": "4x4 3,2", "layouts": 264, "pieces": {}}', "a record for another instance"),
        ('{"format": 3, "instance": "3x3 2,2", "layouts": 88, "pieces": {}}', "a record of format 3"),
        (
            '{"format": 1, "instance": "3x3 2,2", "layouts": 88, '
            '"pieces": {"0,0 miss": {"total": -1, "seconds": 1, "nodes": 2}}}',
            "is not",
        ),
        ("{", "split.json"),
        (
            '{"format": 2, "instance": "3x3 2,2", "layouts": 88, '
            '"pieces": {"0,0 miss": {"at_least": "9", "seconds": 1, "nodes": 2}}}',
            "is not",
        ),
    ],
)
def test_a_record_for_anything_else_is_refused_in_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "split.json"
    path.write_text(text)
    with pytest.raises(BattlelogError, match=message) as caught:
        solve_split(GameConfig(3, (2, 2)), path, workers=1, memory=1 << 22)
    assert "\n" not in str(caught.value)


def test_the_optimal_command_prints_every_first_shot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "split.json"
    assert main(["optimal", "--size", "3", "--ships", "2,2", "--split", str(path), "--workers", "1", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    brute = brute_first_shots(3, (2, 2), "allowed", "named")
    assert Fraction(figures["exact"]["optimal"]) == min(brute)
    assert {cell: Fraction(v["exact"]) for cell, v in figures["first_shots"].items()} == {
        f"{r},{c}": brute[3 * r + c] for r, c in [(0, 0), (0, 1), (1, 1)]
    }
    assert not any(v["lower_bound"] for v in figures["first_shots"].values())
    assert main(["optimal", "--size", "3", "--ships", "2,2", "--split", str(path)]) == 0
    out = capsys.readouterr().out
    assert "first shot" in out and "1,1" in out
    for bad, message in [(["--table", str(tmp_path / "t")], "--table and --split"), (["--workers", "0"], "--workers 0")]:
        assert main(["optimal", "--size", "3", "--ships", "2,2", "--split", str(path), *bad]) == 2
        assert message in capsys.readouterr().err
    assert main(["optimal", "--size", "3", "--ships", "2,2", "--workers", "2"]) == 2
    assert "--workers is for --split" in capsys.readouterr().err
    assert main(["optimal", "--size", "3", "--ships", "2,2", "--decide"]) == 2
    assert "--decide is for --split" in capsys.readouterr().err
    decided = tmp_path / "decided.json"
    assert main(["optimal", "--size", "4", "--ships", "3,2", "--split", str(decided), "--decide"]) == 0
    out = capsys.readouterr().out
    assert "2311/264 exactly" in out and "at least" in out and ">= " in out


def test_a_total_asked_below_a_bound_is_exact_under_it_and_a_proven_bound_over_it() -> None:
    # 4x4 3,2, first shot at the corner, a miss: 204 layouts, total 1700 (the split's record above).
    config = GameConfig(4, (3, 2))
    piece = next(p for p in first_shot_pieces(Solver(config)) if p.name(4) == "0,0 miss")
    whole = Solver(config, settings=WINDOWED)
    assert whole.total(piece.layouts, piece.hits) == 1700
    assert Solver(config, settings=WINDOWED).total(piece.layouts, piece.hits, below=1701) == 1700
    for below in (1700, 1650, 1500):
        cut = Solver(config, settings=WINDOWED)
        assert below <= cut.total(piece.layouts, piece.hits, below=below) <= 1700
        assert cut.stats[search.NODES] < whole.stats[search.NODES]  # it stopped short of the exact total
    assert Solver(config).total(piece.layouts, piece.hits, below=1500) >= 1500  # one window, no widening
