"""A command never writes to an empty or blank output path (``Path("")`` is the current directory)."""

from __future__ import annotations

from pathlib import Path

import pytest

from battlelog.cli import main

FIXTURE = str(Path(__file__).parent / "fixtures" / "midgame_5x5.json")

COMMANDS = {
    "experiment": (
        ["experiment", "--size", "4", "--ships", "3,2", "--players", "random", "--games", "1", "--out", "{}"],
        "--out",
    ),
    "reproduce": (["reproduce", "--quick", "--out", "{}"], "--out"),
    "replay": (["replay", FIXTURE, "--out", "{}"], "--out"),
    "compile": (["compile", FIXTURE, "-o", "{}"], "--output"),
    "script": (["script", FIXTURE, "-o", "{}"], "--output"),
    "summarize": (["summarize", "{}"], "DIR"),
    "advise": (["advise", "--size", "4", "--ships", "3,2", "--state", "{}"], "--state"),
}


@pytest.mark.parametrize("blank", ["", "  "])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_empty_output_path_is_refused_and_nothing_is_written(
    command: str, blank: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    words, option = COMMANDS[command]
    assert main([blank if w == "{}" else w for w in words]) == 2
    err = capsys.readouterr().err
    assert err == f"battlelog: error: {option} is empty: give the name of the file or folder to write\n"
    assert list(tmp_path.iterdir()) == []
