"""Compiled templates kept on disk (battlelog.templating.CompiledTemplates): a second process renders
without compiling, and a damaged, stale or unwritable cache changes nothing that is rendered."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from battlelog.templating import CompiledTemplates, template_dir

NAME = "battleship.pl.j2"


def _environment(directory: Path, templates: Path | None = None) -> jinja2.Environment:
    """A fresh environment (no template in memory) over ``templates`` with compiled files in ``directory``."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates or template_dir()),
        undefined=jinja2.StrictUndefined,
        bytecode_cache=CompiledTemplates(directory),
    )


def _forbid_compiling(environment: jinja2.Environment, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the template was compiled again")

    monkeypatch.setattr(environment, "compile", refuse)


def test_a_second_environment_loads_the_compiled_template_without_compiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _environment(tmp_path).get_template(NAME)
    assert [path.suffix for path in tmp_path.iterdir()] == [".jinja"]
    second = _environment(tmp_path)
    _forbid_compiling(second, monkeypatch)
    assert isinstance(second.get_template(NAME), jinja2.Template)
    templates, compiled = tmp_path / "templates", tmp_path / "compiled"
    templates.mkdir()
    (templates / "t.j2").write_text("{% for i in range(n) %}{{ i }}{% endfor %}")
    assert _environment(compiled, templates).get_template("t.j2").render(n=3) == "012"
    third = _environment(compiled, templates)
    _forbid_compiling(third, monkeypatch)
    assert third.get_template("t.j2").render(n=5) == "01234"


def test_the_refusal_to_compile_would_be_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: with no compiled file, the template is compiled."""
    environment = _environment(tmp_path)
    _forbid_compiling(environment, monkeypatch)
    with pytest.raises(AssertionError, match="compiled again"):
        environment.get_template(NAME)


def test_a_damaged_file_is_compiled_again_and_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _environment(tmp_path).get_template(NAME)
    (path,) = tmp_path.iterdir()
    good = path.read_bytes()
    for damage in (b"", b"garbage", good[: len(good) // 2]):
        path.write_bytes(damage)
        assert isinstance(_environment(tmp_path).get_template(NAME), jinja2.Template)
        assert len(path.read_bytes()) > len(damage)
        reader = _environment(tmp_path)
        _forbid_compiling(reader, monkeypatch)
        assert isinstance(reader.get_template(NAME), jinja2.Template)  # the replacement is whole


def test_an_edited_template_is_rendered_as_edited(tmp_path: Path) -> None:
    templates, compiled = tmp_path / "templates", tmp_path / "compiled"
    templates.mkdir()
    (templates / "t.j2").write_text("one {{ x }}")
    assert _environment(compiled, templates).get_template("t.j2").render(x=1) == "one 1"
    (templates / "t.j2").write_text("two {{ x }}")
    assert _environment(compiled, templates).get_template("t.j2").render(x=1) == "two 1"


def test_a_folder_that_cannot_be_written_renders_the_same(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "t.j2").write_text("{% for i in range(n) %}{{ i }}{% endfor %}")
    assert _environment(blocked / "compiled", templates).get_template("t.j2").render(n=4) == "0123"
    assert blocked.read_text() == "not a folder"
