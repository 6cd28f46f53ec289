"""The rules on the command line: --touch and --sinks on every command that takes a board, the rules
in experiment.json and the game records, and the boards drawn under them (exactly, from the seed)."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chisquare

from battlelog.captain import records as captain_records
from battlelog.cli import main
from battlelog.errors import FileFormatError
from battlelog.rules.config import GameConfig
from battlelog.rules.layouts import sample_layout
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner import duel_records
from battlelog.runner.records import GAMES, MANIFEST, check_record, read_manifest
from battlelog.runner.seeds import game_seeds, layout_for

import oracle
from runs import experiment_in, one_line_error

ROOT = Path(__file__).resolve().parent.parent




# ----- boards drawn under the rules ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("touch", "size", "ships"), [("none", 4, (3, 2, 1)), ("none", 4, (2, 2, 1)), ("diagonal", 3, (2, 1)), ("diagonal", 4, (2, 2))]
)
def test_boards_under_contact_rules_are_uniform_over_legal_layouts(touch: str, size: int, ships: tuple[int, ...]) -> None:
    """Chi-square over every layout the oracle lists, of the boards of games 0.. of one seed."""
    table = oracle.layouts(size, ships, touch)
    index = {spots: k for k, spots in enumerate(table.spots)}
    config = GameConfig(size, ships, Rules(touch))
    seen: Counter[int] = Counter()
    for game in range(30 * len(table)):
        layout = layout_for(config, 11, game)
        seen[index[tuple((p.length, p.row, p.col, p.horizontal) for p in layout)]] += 1  # KeyError: an illegal layout
    assert chisquare(np.array([seen[k] for k in range(len(table))])).pvalue > 1e-3


@pytest.mark.parametrize("touch", ["diagonal", "none"])
def test_the_same_seed_gives_the_same_boards(touch: str) -> None:
    config = GameConfig(6, (3, 2, 2), Rules(touch))
    boards = [layout_for(config, 5, game) for game in range(20)]
    assert boards == [layout_for(config, 5, game) for game in range(20)]
    assert len(set(boards)) > 10 and all(config.rules.legal(board, 6) for board in boards)
    assert boards != [layout_for(config, 6, game) for game in range(20)]


def test_ships_that_may_touch_keep_their_boards() -> None:
    """Touching allowed: the whole-layout rejection sampler on the game's layout stream, as always (the
    sink rule does not change the boards either)."""
    for rules in (Rules(), Rules(sinks="unnamed"), Rules(sinks="silent")):
        config = GameConfig(5, (3, 3, 2), rules)
        for game in range(5):
            expected = sample_layout(GameConfig(5, (3, 3, 2)), np.random.default_rng(game_seeds(7, game)[0]))
            assert layout_for(config, 7, game) == expected


# ----- experiments ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def no_contact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return experiment_in(
        tmp_path_factory, "rules", "--size", "6", "--ships", "3,2,2", "--touch", "none", "--players", "random,problog", "--games",
        "4", "--seed", "1",
    )


def test_an_experiment_under_no_contact_end_to_end(no_contact: Path) -> None:
    rules = {"touch": "none", "sinks": "named"}
    assert json.loads((no_contact / MANIFEST).read_text()) == {"size": 6, "ships": [3, 2, 2], "seed": 1, "rules": rules}
    records = [json.loads(line) for line in (no_contact / GAMES).read_text().splitlines()]
    assert sorted((r["player"], r["game"]) for r in records) == sorted((p, g) for p in ("random", "problog") for g in range(4))
    config = GameConfig(6, (3, 2, 2), Rules("none"))
    for record in records:
        assert record["status"] == "ok" and record["rules"] == rules
        layout = [(p["ship"], p["length"], p["row"], p["col"], p["orientation"]) for p in record["layout"]]
        board = layout_for(config, 1, record["game"])
        assert layout == [(p.ship, p.length, p.row, p.col, p.orientation) for p in board]
        assert config.rules.legal(board, 6)  # no two ships in contact, not even at a corner
    assert "6x6 3,2,2 (no contact) with seed 1" in (no_contact / "summary.md").read_text()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "holds an experiment on 6x6 3,2,2 (no contact) with seed 1, not 6x6 3,2,2 with seed 1"),
        (["--touch", "diagonal"], "not 6x6 3,2,2 (corner contact only) with seed 1"),
        (["--touch", "none", "--sinks", "unnamed"], "not 6x6 3,2,2 (no contact, sinks unnamed) with seed 1"),
    ],
)
def test_resuming_with_other_rules_is_refused(capsys, no_contact: Path, extra: list[str], message: str) -> None:
    before = (no_contact / GAMES).read_bytes()
    argv = [
        "experiment", "--size", "6", "--ships", "3,2,2", "--players", "random", "--games", "4", "--seed", "1", "--workers", "1",
    ]
    one_line_error(capsys, [*argv, *extra, "--out", str(no_contact)], message)
    assert (no_contact / GAMES).read_bytes() == before


def test_summarize_and_replay_name_the_rules(capsys, no_contact: Path, tmp_path: Path) -> None:
    assert main(["summarize", str(no_contact)]) == 0
    assert capsys.readouterr().out.startswith("6x6 3,2,2 (no contact) with seed 1: 8 games recorded")
    assert main(["replay", str(no_contact), "--game", "1", "--player", "problog", "--out", str(tmp_path / "replay")]) == 0
    assert "problog on 6x6 3,2,2 (no contact) (game 1" in capsys.readouterr().out


def test_standard_manifests_have_no_rules_and_read_back_unchanged() -> None:
    """Every committed experiment.json reads strictly (a duel's or a captain run's by its own reader) and is
    written back byte for byte; those of the standard rules (all but the rule-variants experiments) have no
    ``rules`` key, those under experiments/results/variants/ name rules other than the standard ones."""
    readers = {captain_records.RUN: captain_records.read_manifest, duel_records.RUN: duel_records.read_manifest}
    manifests = sorted((ROOT / "experiments").rglob(MANIFEST))
    assert manifests
    for path in manifests:
        run = json.loads(path.read_text()).get("run")
        manifest = readers.get(run, read_manifest)(path.parent)
        if "variants" in path.relative_to(ROOT / "experiments").parts:
            assert manifest["rules"] != {"touch": "allowed", "sinks": "named"}
        else:
            assert "rules" not in manifest
        assert json.dumps(manifest) + "\n" == path.read_text()


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"touch": "sideways", "sinks": "named"}, "unknown touch rule 'sideways'"),
        ({"touch": "none"}, "rules must name both touch and sinks"),
        ({"touch": "allowed", "sinks": "named"}, "only rules other than the standard ones"),
        ({"touch": "none", "sinks": "named", "volley": 5}, "unknown rules key 'volley'"),
        ({"touch": "none", "sinks": "named", "salvo": 0}, "unknown salvo 0"),
        ({"touch": "none", "sinks": "named", "salvo": 1}, "only rules other than the standard ones"),
        ("none", "rules must be an object"),
    ],
)
def test_a_manifest_s_rules_are_read_strictly(tmp_path: Path, rules: object, message: str) -> None:
    (tmp_path / MANIFEST).write_text(json.dumps({"size": 6, "ships": [3, 2, 2], "seed": 1, "rules": rules}))
    with pytest.raises(FileFormatError) as exc:
        read_manifest(tmp_path)
    assert str(exc.value).startswith(f"{tmp_path / MANIFEST}: ") and message in str(exc.value) and "\n" not in str(exc.value)


def test_a_manifest_with_an_unknown_key_or_an_impossible_fleet_is_refused(tmp_path: Path) -> None:
    (tmp_path / MANIFEST).write_text(json.dumps({"size": 6, "ships": [3, 2, 2], "seed": 1, "rule": {}}))
    with pytest.raises(FileFormatError, match="unknown key 'rule'"):
        read_manifest(tmp_path)
    (tmp_path / MANIFEST).write_text(
        json.dumps({"size": 3, "ships": [2, 2, 1], "seed": 1, "rules": {"touch": "none", "sinks": "named"}})
    )
    with pytest.raises(Exception, match="cannot be laid out on a 3x3 board with no contact"):
        read_manifest(tmp_path)


def test_game_records_carry_and_are_checked_against_the_rules(no_contact: Path) -> None:
    manifest = read_manifest(no_contact)
    record = json.loads((no_contact / GAMES).read_text().splitlines()[0])
    check_record(record, "line 1", manifest)
    for rules in (None, {"touch": "none", "sinks": "unnamed"}, {"touch": "none"}):
        other = {k: v for k, v in record.items() if k != "rules"} | ({} if rules is None else {"rules": rules})
        with pytest.raises(FileFormatError, match="not of this experiment's 6x6 3,2,2 \\(no contact\\) with seed 1"):
            check_record(other, "line 1", manifest)
    with pytest.raises(
        FileFormatError, match="a game of 6x6 3,2,2 \\(no contact\\) with seed 1, not of this experiment's 6x6 3,2,2 with seed 1"
    ):
        check_record(record, "line 1", {"size": 6, "ships": [3, 2, 2], "seed": 1})


# ----- the flags on every command ------------------------------------------------------------------
def test_play_shows_the_rules(capsys) -> None:
    argv = [
        "play", "--size", "5", "--ships", "3,2", "--touch", "diagonal", "--sinks", "unnamed", "--player", "random", "--seed", "2",
    ]
    assert main([*argv, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("5x5 3,2 (corner contact only, sinks unnamed), seed 2")
    assert "random sank 5x5 3,2 (corner contact only, sinks unnamed) in " in out


@pytest.mark.parametrize("touch", ["allowed", "diagonal", "none"])
def test_marginals_count_the_layouts_of_the_rule(capsys, touch: str) -> None:
    assert main(["marginals", "--size", "4", "--ships", "2,2", "--touch", touch, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["models"] == len(oracle.layouts(4, (2, 2), touch))


def test_compile_under_the_rules(capsys, tmp_path: Path) -> None:
    assert (
        main(["compile", "--size", "4", "--ships", "2,2", "--touch", "none", "--sinks", "silent", "-o", str(tmp_path / "m.sdd")])
        == 0
    )
    assert "pysdd reads it back: 196 models" in capsys.readouterr().out


def test_script_takes_the_rules(capsys) -> None:
    """The program under the rules, or (until the templates know them) a one-line refusal naming the rule."""
    status = main(["script", "--size", "3", "--ships", "2,1", "--touch", "none"])
    out, err = capsys.readouterr()
    if status == 0:
        assert out and not err
    else:
        assert status == 2 and err.count("\n") == 1 and "no contact" in err, err


def test_optimal_takes_the_flags_and_its_refusal_names_the_rule(capsys) -> None:
    assert main(["optimal", "--size", "3", "--ships", "2,1", "--touch", "none", "--sinks", "silent", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rules"] == {"touch": "none", "sinks": "silent"}
    one_line_error(
        capsys,
        ["optimal", "--size", "6", "--ships", "3,3,2,2", "--touch", "diagonal"],
        "6x6 3,3,2,2 (corner contact only): enumerating",
    )


def advise(capsys, monkeypatch: pytest.MonkeyPatch, argv: list[str], lines: list[str]) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    assert main(["advise", "--no-color", *argv]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def test_advise_under_unnamed_sinks_takes_a_plain_sunk(capsys, monkeypatch, tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    out = advise(
        capsys, monkeypatch, ["--size", "4", "--ships", "2,1", "--sinks", "unnamed", "--state", str(saved)],
        ["A1 hit", "A2 sunk", "A3 sunk 1"],
    )
    assert out.startswith("4x4 2,1 (sinks unnamed): saving the game to")
    assert "A2 sunk: saved to" in out and "ships sunk: 1 of 2" in out
    assert "refused: sinks are unnamed in this game: answer sunk, not sunk 1" in out
    state = GameState.load(saved)
    assert state.config.rules == Rules(sinks="unnamed") and [s.result for s in state.shots] == ["hit", "sunk"]
    assert state.shots[-1].ship is None
    # continued from the file: the rules come with it (and flags that agree are welcome)
    out = advise(capsys, monkeypatch, ["--state", str(saved), "--sinks", "unnamed"], ["B1 sunk"])
    assert "B1 sunk: saved to" in out and "every ship is sunk after 3 shots" in out


def test_advise_under_silent_sinks_refuses_sunk(capsys, monkeypatch, tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    out = advise(
        capsys, monkeypatch, ["--size", "4", "--ships", "2,1", "--sinks", "silent", "--touch", "none", "--state", str(saved)],
        ["A1 sunk", "A1 hit"],
    )
    assert out.startswith("4x4 2,1 (no contact, sinks silent): saving")
    assert "refused: sinks are silent in this game: a ship's last cell is answered hit, never sunk" in out
    assert "ships afloat" not in out and "ships sunk" not in out
    assert [s.result for s in GameState.load(saved).shots] == ["hit"]


@pytest.mark.parametrize("command", ["marginals", "script", "compile"])
def test_a_state_file_with_other_rules_than_the_flags_is_one_line(capsys, tmp_path: Path, command: str) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"size": 4, "ships": [2], "rules": {"sinks": "silent"}, "shots": []}))
    extra = ["-o", str(tmp_path / "m.sdd")] if command == "compile" else []
    one_line_error(
        capsys, [command, str(path), "--sinks", "unnamed", *extra], f"{path} holds a game with sinks silent, not --sinks unnamed"
    )
    one_line_error(
        capsys, [command, str(path), "--touch", "none", *extra], f"{path} holds a game with touch allowed, not --touch none"
    )
    assert not (tmp_path / "m.sdd").exists()


def test_advise_refuses_a_saved_game_under_other_rules(capsys, tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"size": 4, "ships": [2], "rules": {"touch": "none"}, "shots": []}))
    one_line_error(
        capsys, ["advise", "--state", str(path), "--touch", "diagonal"], "holds a game with touch none, not --touch diagonal"
    )
    one_line_error(
        capsys,
        ["advise", "--state", str(path), "--size", "4", "--ships", "2"],
        "holds a game on 4x4 2 (no contact), not on 4x4 2",
    )


@pytest.mark.parametrize("command", ["experiment", "play", "advise", "marginals", "script", "compile", "optimal"])
@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--touch", "sideways", "unknown touch rule 'sideways'; choose one of allowed, diagonal, none"),
        ("--sinks", "loud", "unknown sinks rule 'loud'; choose one of named, unnamed, silent"),
    ],
)
def test_unknown_rule_names_are_one_line(capsys, tmp_path: Path, command: str, flag: str, value: str, message: str) -> None:
    argv = [command, "--size", "4", "--ships", "2,2", flag, value]
    argv += {
        "experiment": ["--out", str(tmp_path / "out")],
        "compile": ["-o", str(tmp_path / "m.sdd")],
        "advise": ["--state", str(tmp_path / "a.json")],
    }.get(command, [])
    one_line_error(capsys, argv, message)
    assert list(tmp_path.iterdir()) == []


def test_a_fleet_that_does_not_fit_under_the_flags_is_one_line(capsys, tmp_path: Path) -> None:
    one_line_error(
        capsys,
        ["marginals", "--size", "3", "--ships", "2,2,1", "--touch", "none"],
        "fleet 2,2,1 cannot be laid out on a 3x3 board with no contact",
    )
    one_line_error(
        capsys,
        ["experiment", "--size", "3", "--ships", "2,2,1", "--touch", "none", "--out", str(tmp_path / "o")],
        "with no contact",
    )
