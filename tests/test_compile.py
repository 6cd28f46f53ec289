"""``battlelog compile``: the native engine's model written as an SDD that pysdd reads and counts alike."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from pysdd.sdd import SddManager, Vtree

from battlelog.cli import main
from battlelog.engines.native.export import compile_state
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState

from engine_cases import shots
from oracle import all_layouts, brute_marginals, brute_placements
from oracle_states import random_states

#: Names of the states the written model is checked on; :func:`state` builds them when a test runs.
STATES = ["empty 4x4 3,2,2", *(f"5x5 3,3,2 random #{i}" for i in range(4)), "5x5 3,2 sunk", "6x6 4,3,3 random #0"]


@cache
def state(name: str) -> GameState:
    """The state called ``name`` in :data:`STATES` (the random ones play games: not at collection)."""
    built = [
        GameState.empty(GameConfig(4, (3, 2, 2))),
        *random_states(GameConfig(5, (3, 3, 2)), 4, seed=17),
        shots(GameConfig(5, (3, 2)), "A1 hit", "A2 hit", "A3 sunk 0", "B1 miss"),
        random_states(GameConfig(6, (4, 3, 3)), 1, seed=3)[0],
    ]
    return dict(zip(STATES, built, strict=True))[name]


def read_back(sdd: Path, vtree: Path) -> tuple[SddManager, object]:
    manager = SddManager.from_vtree(Vtree.from_file(str(vtree).encode()))
    return manager, manager.read_sdd_file(str(sdd).encode())


@pytest.mark.parametrize("name", STATES)
def test_pysdd_counts_the_written_model_as_brute_force_does(name: str, tmp_path: Path) -> None:
    game = state(name)
    layouts = all_layouts(game.config)
    models = brute_marginals(game, layouts)[1]
    written = compile_state(game, tmp_path / "m.sdd", tmp_path / "m.vtree", 2**30)
    assert written.models == models
    manager, root = read_back(tmp_path / "m.sdd", tmp_path / "m.vtree")
    assert manager.global_model_count(root) == models
    # Each variable is one named placement: the models with it true are the layouts with that ship there.
    shares = brute_placements(game, layouts)
    for number, placement in enumerate(written.variables, start=1):
        with_it = manager.global_model_count(manager.conjoin(root, manager.literal(number)))
        where = game.config.placements(placement.ship).index(placement)
        assert with_it == round(shares[placement.ship][where] * models)


def test_the_command_writes_the_sdd_its_vtree_and_the_variable_map(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "empty.sdd"
    assert main(["compile", "--size", "4", "--ships", "3,2,2", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "pysdd reads it back: 3,200 models; the native engine counts 3,200 layouts" in printed
    variables = json.loads(out.with_suffix(".vars.json").read_text())
    assert len(variables) == 16 + 24 + 24  # every placement of the three ships
    assert variables[0] == {"variable": 1, "ship": 0, "length": 3, "row": 0, "col": 0, "orientation": "h"}
    assert out.with_suffix(".vtree").read_text().startswith("c ids of vtree nodes")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--size", "8", "--ships", "5,4,3,3,2"], "the SDD of 8x8 5,4,3,3,2 would have about"),
        (["{contradictory}"], "contradictory state: shot 3 (E5, sunk ship 0)"),
    ],
)
def test_what_cannot_be_written_is_refused_in_one_line(argv, message, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    contradictory = Path(__file__).parent / "fixtures" / "contradictory_5x5.json"
    argv = [a.format(contradictory=contradictory) for a in argv]
    assert main(["compile", *argv, "-o", str(tmp_path / "x.sdd")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize(
    "where, message",
    [
        ("{tmp}/no/such/folder/m.sdd", "m.sdd: cannot write (No such file or directory)"),
        ("{tmp}", ": cannot write (it is a folder)"),
        ("{tmp}/file/m.sdd", "m.sdd: cannot write (Not a directory)"),  # read-only as root: a path under a regular file
        ("{tmp}/m.vtree", "m.vtree: name the SDD file otherwise"),
    ],
)
def test_a_place_that_cannot_be_written_is_one_line_not_a_crash(where: str, message: str, tmp_path: Path) -> None:
    # In a process of its own: before the check, pysdd's save crashed the interpreter (exit 139).
    (tmp_path / "file").write_text("x")
    fixture = Path(__file__).parent / "fixtures" / "midgame_5x5.json"
    argv = [sys.executable, "-m", "battlelog.cli", "compile", str(fixture), "-o", where.format(tmp=tmp_path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr, (done.returncode, done.stderr)
    assert [p.name for p in tmp_path.iterdir()] == ["file"]  # nothing written, no scratch file left


def test_a_read_only_place_is_refused_before_compiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    # Root ignores permission bits: a read-only file system is simulated where files are created (os.open with O_CREAT).
    real_open = os.open

    def read_only(path: object, flags: int, *args: object, **kwargs: object) -> int:
        if flags & os.O_CREAT and str(path).startswith(str(tmp_path)):
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    def compiled(*args: object) -> None:
        raise AssertionError("compiled before the place was checked")

    monkeypatch.setattr(os, "open", read_only)
    monkeypatch.setattr("battlelog.engines.native.export.compile_state", compiled)
    assert main(["compile", "--size", "4", "--ships", "3,2", "-o", str(tmp_path / "m.sdd")]) == 2
    assert capsys.readouterr().err == f"battlelog: error: {tmp_path / 'm.sdd'}: cannot write (Read-only file system)\n"
