"""The command line: every bad input is one line on stderr and exit status 2, never a traceback."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import battlelog.commands
from battlelog.cli import COMMANDS, DOCS, main
from battlelog.report.summary import SUMMARY_CSV, SUMMARY_MD
from battlelog.runner.records import GAMES, MANIFEST

from runs import one_line_error


def experiment(out: Path, *extra: str) -> list[str]:
    return ["experiment", "--size", "4", "--ships", "3,2", "--games", "2", "--workers", "1", "--out", str(out), *extra]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small finished experiment, run once through the command line."""
    out = tmp_path_factory.mktemp("finished") / "results"
    assert main(experiment(out, "--players", "random,pdf", "--seed", "3")) == 0
    return out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "--size", "5", "--ships", "3,x"], "fleet '3,x' is not a comma-separated list of ship lengths"),
        (["play", "--size", "5", "--ships", "6"], "ship 0 of length 6 does not fit on a 5x5 board"),
        (["play", "--size", "5", "--ships", "5,5,5,3,3,3"], "fleet 5,5,5,3,3,3 cannot be laid out on a 5x5 board"),
        (["play", "--size", "3", "--ships", "3,3,3,1"], "10 ship cells, more than the 9 cells of a 3x3 board"),
    ],
)
def test_bad_fleets(capsys: pytest.CaptureFixture, argv: list[str], message: str) -> None:
    one_line_error(capsys, argv, message)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--players", "random,oracle"], "unknown player 'oracle'; choose from random, hunt-target, pdf"),
        (["--players", "pdf,pdf"], "player 'pdf' is named twice"),
        (["--players", "nowhere_module:Player"], "player 'nowhere_module:Player': cannot import 'nowhere_module'"),
        (
            ["--players", "battlelog.rules.config:NoSuchPlayer"],
            "module 'battlelog.rules.config' has no class or function 'NoSuchPlayer'",
        ),
        (["--players", " , "], "no players given"),
        (["--games", "0"], "the number of games must be at least 1, got 0"),
        (["--seed", "-1"], "the seed must be a non-negative whole number"),
        (["--workers", "0"], "the number of workers must be at least 1, got 0"),
        (["--memory-limit", "lots"], "--memory-limit 'lots' is not a size such as 512M or 4G (or none)"),
        (["--memory-limit", "0G"], "--memory-limit '0G' is not a size"),
        (["--time-limit", "-3"], "--time-limit '-3' is not a positive number of seconds (or none)"),
        (["--time-limit", "nan"], "--time-limit 'nan' is not a positive number"),
        (["--players", "random,pdf", "--engine", "problog"], "--engine problog: no player here takes an engine (random, pdf)"),
        (["--players", "problog,problog[engine=native]"], "player 'problog[engine=native]' is named twice (both are problog)"),
        (["--players", "mc[samples=lots]"], "player mc: option samples=lots is not a whole number"),
        (["--players", "mc[sample=9]"], "player mc does not take option sample (its options: samples)"),
        (["--players", "mc[samples=2,samples=3]"], "player mc: option samples is given twice"),
        (["--players", "mc[samples=2"], "players 'mc[samples=2': unbalanced brackets"),
        (["--players", "mc[samples=2]x"], "player spec 'mc[samples=2]x' is not NAME or NAME[key=value,...]"),
        (["--players", "mc[samples]"], "player mc: option 'samples' is not key=value"),
        (["--time-limit", "1e300"], "--time-limit '1e300' is more than a year (31536000 s); give none for no limit"),
        (["--memory-limit", "99999999T"], "--memory-limit '99999999T' is more than 1024T; give none for no limit"),
        (
            ["--players", "battlelog.rules.config:GameConfig"],
            "player 'battlelog.rules.config:GameConfig': GameConfig is not a Player subclass",
        ),
        (["--players", "battlelog.players.base:Player"], "player 'battlelog.players.base:Player': Player is abstract"),
        (["--scheduler", "tcp://127.0.0.1:9"], "--scheduler is for --executor dask"),
        (["--executor", "dask", "--scheduler", "tcp://127.0.0.1:9"], "--workers sizes the workers this command starts"),
        (["--executor", "ray"], "--executor: invalid choice: 'ray'"),
    ],
)
def test_bad_experiment_settings(capsys: pytest.CaptureFixture, tmp_path: Path, extra: list[str], message: str) -> None:
    if message.startswith("--executor: invalid choice"):  # argparse's own error: usage line, then the message
        with pytest.raises(SystemExit) as exit_:
            main(experiment(tmp_path / "out", *extra))
        assert exit_.value.code == 2 and message in capsys.readouterr().err
    else:
        one_line_error(capsys, experiment(tmp_path / "out", *extra), message)
    assert not (tmp_path / "out").exists()  # refused before anything ran: not even the directory


@pytest.mark.parametrize(
    "argv, message",
    [
        (["experiment", "--size", "4", "--ships", "3,2", "--out", "{out}", "--memory-limit", "50M"],
         r"the memory limit of 50 MB is below the \d+ MB of address space a worker takes"),
        (["experiment", "--size", "4", "--ships", "3,2", "--out", "{out}", "--time-limit", "1e300"],
         r"--time-limit '1e300' is more than a year"),
        (["experiment", "--size", "4", "--ships", "3,2", "--out", "{out}", "--players", "battlelog.rules.config:GameConfig"],
         r"GameConfig is not a Player subclass"),
        (["experiment", "--size", "6", "--ships", "4,3,3", "--out", "{out}", "--players", "pdf,optimal"],
         r"6x6 4,3,3: enumerating its layouts passes 4,000 \(partial\) layouts, too many for an exact solution here"),
        (["play", "--size", "10", "--ships", "5,4,3,3,2", "--player", "optimal", "--seed", "1"],
         r"10x10 5,4,3,3,2 is too large to solve exactly"),
        (["reproduce", "--out", "{out}", "--config", "4:3,2,2", "--games", "2", "--memory-limit", "50M"],
         r"memory limit of 50 MB is below"),
    ],
)  # fmt: skip
def test_a_refused_run_is_one_line_and_leaves_no_files(tmp_path: Path, argv: list[str], message: str) -> None:
    out = tmp_path / "new" / "results"
    argv = [arg.format(out=out) for arg in argv]
    done = subprocess.run([sys.executable, "-m", "battlelog.cli", *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("battlelog: error: "), done.stderr
    assert re.search(message, done.stderr), done.stderr
    assert list(tmp_path.iterdir()) == []


REPEATED_SHOT = (
    '{"size": 5, "ships": [3, 2], "shots": [{"row": 1, "col": 1, "result": "miss"}, {"row": 1, "col": 1, "result": "miss"}]}',
    "shot 2 repeats cell B2, already shot at shot 1",
)
STATE_ERRORS = [
    ('{"size": 5, "ships": [3, 2], "shots": [', "not valid JSON"),
    ("[5, [3, 2]]", "expected a JSON object with size, ships and shots"),
    ('{"ships": [3, 2], "shots": []}', "missing key 'size'"),
    ('{"size": 5, "shots": []}', "missing key 'ships'"),
    (
        '{"size": 5, "ships": [3, 2], "shots": [{"row": 1, "result": "miss"}]}',
        "shot 1 must be an object with row, col and result",
    ),
    ('{"size": 5, "ships": [6, 2], "shots": []}', "ship 0 of length 6 does not fit on a 5x5 board"),
    ('{"size": 5, "ships": [5, 5, 5, 3, 3, 3], "shots": []}', "fleet 5,5,5,3,3,3 cannot be laid out on a 5x5 board"),
    REPEATED_SHOT,
    (
        '{"size": 5, "ships": [3, 2], "shots": [{"row": 5, "col": 1, "result": "miss"}]}',
        "shot 1 at row 5, column 1 is off the 5x5 board",
    ),
    (
        '{"size": 5, "ships": [3, 2], "shots": [{"row": 0, "col": 0, "result": "hit"}, '
        '{"row": 0, "col": 1, "result": "sunk", "ship": 2}]}',
        "shot 2 sinks ship 2, but the fleet 3,2 has ships 0..1",
    ),
    ('{"size": 5, "ships": [3, 2], "shots": [{"row": 0, "col": 0, "result": "boom"}]}', "shot 1 has result 'boom'"),
    (
        '{"size": 5, "ships": [3, 2], "shot": [{"row": 0, "col": 0, "result": "hit"}]}',
        "unknown key 'shot' (did you mean 'shots'?)",
    ),
    ('{"size": 5, "ships": [3, 2], "shots": [{"row": 0, "col": 0, "result": "hit"}], "shots": []}', "key 'shots' appears twice"),
    (
        '{"size": 5, "ships": [3, 2], "shots": [{"row": 0, "col": 0, "result": "sunk"}]}',
        "shot 1 (A1) is a sunk answer without a ship index",
    ),
]


@pytest.mark.parametrize("command", ["marginals", "script"])
@pytest.mark.parametrize("text, message", STATE_ERRORS)
def test_bad_game_state_files(capsys, tmp_path: Path, command: str, text: str, message: str) -> None:
    path = tmp_path / "state.json"
    path.write_text(text)
    one_line_error(capsys, [command, str(path)], f"{path}: ")  # every error about a file names the file
    one_line_error(capsys, [command, str(path)], message)


@pytest.mark.parametrize("command", ["marginals", "script"])
def test_a_state_file_that_is_not_utf8_is_one_line(capsys, tmp_path: Path, command: str) -> None:
    path = tmp_path / "state.json"
    path.write_bytes(b'{"size": 5, "ships": [3, 2], "shots": []} \xff')
    one_line_error(capsys, [command, str(path)], f"{path}: not UTF-8 text (byte 0xff at offset 42)")


def test_experiment_prints_and_saves_the_summary(finished: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["summarize", str(finished)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"4x4 3,2 with seed 3: 4 games recorded in {finished / GAMES}"
    assert out[1].split() == [
        "|", "player", "|", "games", "|", "failed", "|", "mean", "|", "95%", "CI", "|", "median", "|",
        "std", "|", "min", "|", "max", "|", "ms/move", "|",
    ]  # fmt: skip
    assert [line.split()[1] for line in out[3:5]] == ["random", "pdf"]
    assert out[5:7] == [
        "",
        "Paired differences on the games both players finished (negative: the first player needs fewer shots):",
    ]
    assert out[7].split() == ["|", "difference", "|", "games", "|", "mean", "|", "95%", "CI", "|", "p", "|", "significant", "|"]
    score = {(r["player"], r["game"]): r["score"] for r in map(json.loads, (finished / GAMES).read_text().splitlines())}
    cells = [c.strip() for c in out[9].split("|")[1:-1]]
    assert cells[:3] == [
        "pdf - random",
        "2",
        f"{(score['pdf', 0] - score['random', 0] + score['pdf', 1] - score['random', 1]) / 2:+.2f}",
    ]
    assert out[10:12] == [
        "",
        "Distribution of shots: the fewest shots within which each share of the games finished,"
        " and the chance to finish within k:",
    ]
    assert out[12] == "" and [line.split()[1] for line in out[15:17]] == ["random", "pdf"]
    assert out[17] == f"wrote {finished / SUMMARY_CSV} and {finished / SUMMARY_MD}"
    assert main(["summarize", str(finished / GAMES)]) == 0  # the games file names its directory too
    assert capsys.readouterr().out.splitlines()[:10] == out[:10]


def test_summarize_exports_one_row_per_game_and_plots_the_scores(finished: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["summarize", str(finished), "--csv", "--plots"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == (
        f"wrote {finished / SUMMARY_CSV}, {finished / SUMMARY_MD}, {finished / 'games.csv'}"
        f" and {finished / 'plots' / 'scores.png'}"
    )
    records = {(r["player"], int(r["game"])): r for r in map(json.loads, (finished / GAMES).read_text().splitlines())}
    rows = list(csv.DictReader((finished / "games.csv").open()))
    assert [(r["player"], int(r["game"])) for r in rows] == [("random", 0), ("random", 1), ("pdf", 0), ("pdf", 1)]
    for row in rows:
        record = records[row["player"], int(row["game"])]
        assert (row["status"], int(row["score"]), float(row["seconds"])) == (record["status"], record["score"], record["seconds"])
    png = (finished / "plots" / "scores.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_summarize_retries_failed_games_under_new_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture, test_players: Path
) -> None:
    out = tmp_path / "results"
    dawdler = "battlelog_test_players:Dawdler"  # 0.7 to 1.6 s a game
    assert main(experiment(out, "--players", f"random,{dawdler}", "--time-limit", "0.5")) == 0
    first = capsys.readouterr().out
    assert "played 4 games (2 failed)" in first and f"{dawdler} *" in first and "finished games only" in first
    assert main(["summarize", str(out), "--retry-failed", "--time-limit", "60", "--workers", "2"]) == 0
    second = capsys.readouterr().out
    assert second.startswith("replayed 2 failed games (0 failed again)\n") and "*" not in second
    lines = [json.loads(line) for line in (out / GAMES).read_text().splitlines()]
    assert sorted((r["player"], r["game"], r["status"]) for r in lines) == sorted(
        (p, g, "ok") for p in ("random", dawdler) for g in range(2))
    assert all(r["replaces"]["status"] == "timeout" for r in lines if r["player"] == dawdler)


def test_retry_failed_needs_an_experiment_directory(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    one_line_error(capsys, ["summarize", str(tmp_path), "--retry-failed"], "holds no experiment (no experiment.json)")
    assert list(tmp_path.iterdir()) == []


def test_a_directory_of_another_experiment_is_refused(finished: Path, capsys: pytest.CaptureFixture) -> None:
    before = (finished / GAMES).read_bytes()
    one_line_error(
        capsys,
        experiment(finished, "--players", "random", "--seed", "4"),
        "holds an experiment on 4x4 3,2 with seed 3, not 4x4 3,2 with seed 4: use another output directory",
    )
    assert (finished / GAMES).read_bytes() == before


def _broken_copy(finished: Path, tmp_path: Path, manifest: str | None = None, games: str | None = None) -> Path:
    out = tmp_path / "copy"
    out.mkdir()
    (out / MANIFEST).write_text((finished / MANIFEST).read_text() if manifest is None else manifest)
    (out / GAMES).write_text((finished / GAMES).read_text() if games is None else games)
    return out


def _lines(finished: Path) -> list[str]:
    return (finished / GAMES).read_text().splitlines()


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda f: {"manifest": "{size: 4"}, "experiment.json: not valid JSON"),
        (lambda f: {"manifest": '{"size": 4, "ships": "3,2", "seed": 3}'}, "expected an object with a whole-number size"),
        (lambda f: {"manifest": '{"size": 4, "ships": [9], "seed": 3}'}, "ship 0 of length 9 does not fit on a 4x4 board"),
        (lambda f: {"games": _lines(f)[0] + "\nnot json\n"}, "games.jsonl line 2: not valid JSON"),
        (lambda f: {"games": "[1, 2]\n"}, "games.jsonl line 1: expected a JSON object"),
        (
            lambda f: {"games": json.dumps({k: v for k, v in json.loads(_lines(f)[0]).items() if k != "status"}) + "\n"},
            "games.jsonl line 1: missing key 'status'",
        ),
        (
            lambda f: {"games": json.dumps({**json.loads(_lines(f)[0]), "seed": 8}) + "\n"},
            "line 1: a game of 4x4 3,2 with seed 8, not of this experiment's 4x4 3,2 with seed 3",
        ),
        (lambda f: {"games": _lines(f)[0] + "\n" + _lines(f)[0] + "\n"}, "line 2: repeats game"),
    ],
)
def test_malformed_results_are_one_line_errors(finished, tmp_path, capsys, damage, message) -> None:
    one_line_error(capsys, ["summarize", str(_broken_copy(finished, tmp_path, **damage(finished)))], message)


def test_summarize_needs_an_experiment_directory(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    one_line_error(capsys, ["summarize", str(tmp_path / "nowhere")], "nowhere: no such directory")
    one_line_error(capsys, ["summarize", str(tmp_path)], "holds no experiment (no experiment.json)")
    (tmp_path / GAMES).write_text("{}\n")
    one_line_error(capsys, experiment(tmp_path), "has games.jsonl but no experiment.json")
    one_line_error(capsys, experiment(tmp_path / GAMES), "games.jsonl is not a directory")


def test_help_explains_every_experiment_option(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["experiment", "--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for option in ("--size", "--ships", "--players", "--games", "--seed", "--out", "--workers", "--memory-limit",
                   "--time-limit", "--engine", "--executor", "--scheduler"):  # fmt: skip
        assert f"{option} " in text
    assert "run the same command again to resume" in text and "default: all cores" in text


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "--size", "5", "--ships", "6,2"], "battlelog: error: ship 0 of length 6 does not fit on a 5x5 board"),
        (["summarize", "no/such/dir"], "battlelog: error: no/such/dir: no such directory"),
        (["marginals", "{state}"], f"battlelog: error: {{state}}: {REPEATED_SHOT[1]}"),
        (
            ["play", "--size", "5", "--ships", "3,2", "--seed", "-1"],
            "battlelog: error: --seed -1: the seed must be a non-negative whole number",
        ),
    ],
)
def test_errors_in_a_real_process_are_one_line(tmp_path: Path, argv: list[str], message: str) -> None:
    state = tmp_path / "state.json"
    state.write_text(REPEATED_SHOT[0])
    argv = [arg.format(state=state) for arg in argv]
    message = message.format(state=state)
    done = subprocess.run([sys.executable, "-m", "battlelog.cli", *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == message + "\n" and done.stdout == ""


def test_the_experiment_commands_import_no_heavy_library_until_they_run() -> None:
    """`battlelog --help` builds every command's parser: these modules must import only light ones."""
    code = (
        "import sys\n"
        "import battlelog.commands.common, battlelog.commands.experiment, battlelog.commands.reproduce,"
        " battlelog.commands.summarize\n"
        "from battlelog.cli import build_parser\n"
        "build_parser()\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert "battlelog.commands.experiment" in loaded  # the check itself works
    heavy = {"tqdm", "scipy", "matplotlib", "dask", "distributed", "multiprocessing",
             "battlelog.runner.experiment", "battlelog.report.summary", "battlelog.stats", "battlelog.report.plots",
             "battlelog.report.reproduce", "battlelog.runner.executors.base", "battlelog.runner.executors.local",
             "battlelog.runner.executors.dask_cluster", "battlelog.runner.executors.dask_worker",
             "battlelog.runner.executors.dask_connect", "battlelog.runner.executors.local_worker"}  # fmt: skip
    assert sorted(heavy & loaded) == []


def test_help_lists_every_command_and_points_to_the_docs(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for name, summary in COMMANDS.items():
        assert re.search(rf"^\s+{name}\s+{re.escape(summary[:30])}", text, re.MULTILINE), name
    assert DOCS in " ".join(text.split())


def test_every_command_module_is_listed_and_its_help_points_to_the_docs(capsys: pytest.CaptureFixture) -> None:
    package = Path(battlelog.commands.__file__).parent
    modules = {p.stem for p in package.glob("*.py")} - {"__init__", "common", "boards"}
    assert modules == set(COMMANDS)
    for name in COMMANDS:
        with pytest.raises(SystemExit):
            main([name, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert text.startswith(f"usage: battlelog {name}") and text.endswith(DOCS), name


def test_summarize_where_the_summary_cannot_be_written_shows_the_tables_then_one_line(finished, tmp_path, capsys) -> None:
    out = _broken_copy(finished, tmp_path)
    (out / "summary.csv").mkdir()  # unwritable even as root, as a read-only folder is
    assert main(["summarize", str(out)]) == 2
    printed, err = capsys.readouterr()
    lines = printed.splitlines()
    assert lines[0] == f"4x4 3,2 with seed 3: 4 games recorded in {out / GAMES}"
    assert [line.split()[1] for line in lines[3:5]] == ["random", "pdf"]  # the table's rows are shown
    assert err == (
        f"battlelog: error: {out / 'summary.csv'}: cannot write (it is a folder); the tables above are complete,"
        " the summary files are not written\n"
    )
