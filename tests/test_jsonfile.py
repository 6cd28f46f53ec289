"""The strict JSON reader: what Python's json module would end in a traceback, or read until memory runs
out, is a one-line error naming the file, in every command that reads JSON."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from battlelog.cli import main
from battlelog.errors import FileFormatError
from battlelog.jsonfile import parse_json, read_text

#: A state file with a 5000-digit number in it, and one nested 100,000 deep: (text, the error's words).
HOSTILE = [
    ('{"size": 5, "ships": [3, 2], "shots": [], "x": ' + "9" * 5000 + "}", "holds a number of more than 4300 digits"),
    ("[" * 100_000 + "]" * 100_000, "arrays or objects nested too deeply to read"),
]


@pytest.mark.parametrize("text, message", HOSTILE)
def test_parse_refuses_long_numbers_and_deep_nesting_in_one_line(text: str, message: str) -> None:
    for given in (text, text.encode()):
        with pytest.raises(FileFormatError, match=f"^where: .*{message}$"):
            parse_json(given, "where")


@pytest.mark.parametrize(
    ("text", "repeated"),
    [
        ('{"a": 1, "b": 2, "a": 3}', "a"),
        ('{"b": 1, "c": 2, "c": 3, "b": 4}', "c"),  # the first key seen twice, in the text's order
        ('{"b": 1, "c": 2, "b": 3, "c": 4}', "b"),
        ('{"shots": [{"row": 0, "col": 1, "row": 2}]}', "row"),  # in a nested object too
        ('{"x": "y", "x": "y"}', "x"),  # the same value twice too
    ],
)
def test_a_key_repeated_in_an_object_is_refused_by_name(text: str, repeated: str) -> None:
    with pytest.raises(FileFormatError, match=f"^where: key '{repeated}' appears twice in one object$"):
        parse_json(text, "where")


def test_objects_without_a_repeated_key_are_read_whole_in_order() -> None:
    assert list(parse_json('{"b": 1, "a": {"d": [], "c": null}}', "where").items()) == [("b", 1), ("a", {"d": [], "c": None})]


def test_parse_reads_bytes_as_utf8_and_names_the_source_of_other_bytes() -> None:
    assert parse_json('{"a": [1, "é"]}'.encode(), "line 1") == {"a": [1, "é"]}
    with pytest.raises(FileFormatError, match=r"^line 3: not UTF-8 text \(byte 0xff at offset 1\)$"):
        parse_json(b"[\xff]", "line 3")


def test_a_file_larger_than_the_limit_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text("[" + " " * 98 + "]")  # 100 bytes
    assert read_text(path, limit=100) == path.read_text()
    with pytest.raises(FileFormatError, match=r"big.json: larger than 99 bytes"):
        read_text(path, limit=99)


def fails_in_one_line(capsys: pytest.CaptureFixture, argv: list[str], message: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("battlelog: error: ") and message in err, err


def test_marginals_of_an_endless_device_is_refused(capsys: pytest.CaptureFixture) -> None:
    fails_in_one_line(capsys, ["marginals", "/dev/zero"], "/dev/zero: larger than 67,108,864 bytes")


@pytest.mark.parametrize("text, message", HOSTILE)
@pytest.mark.parametrize("command", ["marginals", "replay", "advise"])
def test_commands_reading_a_state_file_refuse_it_in_one_line(
    capsys, tmp_path: Path, command: str, text: str, message: str
) -> None:
    path = tmp_path / "state.json"
    path.write_text(text)
    argv = {"marginals": [str(path)], "replay": [str(path), "--out", str(tmp_path / "r")], "advise": ["--state", str(path)]}
    fails_in_one_line(capsys, [command, *argv[command]], f"{path}: {message}")


@pytest.mark.parametrize("text, message", HOSTILE)
def test_loading_such_a_file_in_advise_is_refused_and_the_session_goes_on(
    capsys, monkeypatch, tmp_path: Path, text, message
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    monkeypatch.setattr("sys.stdin", io.StringIO(f"load {bad}\nA1 miss\n"))
    assert main(["advise", "--size", "4", "--ships", "3,2", "--state", str(tmp_path / "game.json")]) == 0
    out, err = capsys.readouterr()
    assert err == "" and f"refused: {bad}: {message}" in out and "A1 miss: saved to" in out


@pytest.mark.parametrize("text, message", HOSTILE)
@pytest.mark.parametrize("where", ["experiment.json", "games.jsonl"])
def test_summarize_refuses_such_a_manifest_or_journal_line(capsys, tmp_path: Path, where: str, text: str, message: str) -> None:
    (tmp_path / "experiment.json").write_text('{"size": 4, "ships": [3, 2], "seed": 3}')
    (tmp_path / "games.jsonl").write_text("")
    (tmp_path / where).write_text(text + ("\n" if where == "games.jsonl" else ""))
    source = "games.jsonl line 1" if where == "games.jsonl" else "experiment.json"
    fails_in_one_line(capsys, ["summarize", str(tmp_path)], f"{source}: {message}")
