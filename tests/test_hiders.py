"""Hiders: naming a prior (presets, text, files), boards drawn from it against the oracle's weights, and
experiments that record it (and refuse to resume under another)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import pytest
from prior_engine import use_stand_in
from scipy.stats import chisquare

from battlelog.cli import main
from battlelog.errors import BattlelogError
from battlelog.rules.config import GameConfig
from battlelog.rules.hiders import PRESETS, canonical_belief, parse_prior_spec, spec_text
from battlelog.rules.layouts import sample_layout
from battlelog.rules.prior import UNIFORM, Prior
from battlelog.runner.executors import Limits
from battlelog.runner.executors.base import Executor
from battlelog.runner.records import MANIFEST, load_results, placement_json
from battlelog.runner.seeds import game_seeds, layout_for
from battlelog.runner.task import GameTask, Outcome, run_task

import oracle
from runs import one_line_error

SMALL = GameConfig(3, (2, 1))  # 84 layouts: every one is drawn often enough for a chi-square test


class InProcess(Executor):
    """Plays every task in this process (so the stand-in engine a test registered is the one used)."""

    def __init__(self) -> None:
        super().__init__(Limits(1, None, None))

    def start(self, count: int | None = None) -> None:
        pass

    def run(self, tasks: Iterable[GameTask]) -> Iterator[Outcome]:
        for task in tasks:
            yield Outcome(task, run_task(task, measure_peak=False))

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "this process"


def in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in engine, and experiments played in this process."""
    use_stand_in(monkeypatch)
    monkeypatch.setattr("battlelog.commands.experiment.executor_from", lambda args: InProcess())


@pytest.mark.parametrize(
    ("text", "prior"),
    [("uniform", UNIFORM), ("edge-hugger", PRESETS["edge-hugger"]), ("edge=1.5,touch=-2", Prior(edge=1.5, touch=-2.0)),
     ("edge:1.5;touch:-2", Prior(edge=1.5, touch=-2.0)), ("vertical=0", UNIFORM)],
)  # fmt: skip
def test_a_hider_is_named_by_preset_text_or_file(text: str, prior: Prior, tmp_path: Path) -> None:
    assert parse_prior_spec(text) == prior
    for i, data in enumerate(({"prior": prior.to_json(), "stderr": {}}, prior.to_json())):
        path = tmp_path / f"prior{i}.json"
        path.write_text(json.dumps(data))
        assert parse_prior_spec(str(path)) == prior
    assert parse_prior_spec(spec_text(prior)) == prior and canonical_belief(text) == spec_text(prior)


def test_presets_are_habits_of_both_signs() -> None:
    assert PRESETS["edge-hugger"].edge > 0 > PRESETS["edge-avoider"].edge
    assert PRESETS["clusterer"].touch > 0 > PRESETS["spreader"].touch
    assert spec_text(PRESETS["spreader"]) == "spreader" and canonical_belief("touch=-1") == "spreader"


@pytest.mark.parametrize(
    ("text", "message"),
    [("edges=1", "unknown prior feature 'edges'"), ("edge=x", "edge=x is not a finite number"),
     ("hugger", "neither uniform, a preset"), ("edge=1,edge=2", "gives edge twice")],
)  # fmt: skip
def test_a_bad_hider_is_one_line(text: str, message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(BattlelogError, match=message):
        parse_prior_spec(text)
    one_line_error(
        capsys,
        ["experiment", "--size", "3", "--ships", "2,1", "--players", "random", "--hider", text, "--out", str(tmp_path / "x")],
        message,
    )


def test_a_bad_prior_file_is_one_line_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"prior": {"egde": 1}}')
    with pytest.raises(BattlelogError, match=f"{path}: unknown prior feature 'egde'"):
        parse_prior_spec(str(path))


def _index(table: oracle.Layouts) -> dict[tuple[oracle.Spot, ...], int]:
    return {spots: k for k, spots in enumerate(table.spots)}


def test_boards_drawn_from_a_hider_follow_its_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    use_stand_in(monkeypatch)
    hider = Prior(edge=1.0, vertical=-0.5, touch=-1.0)
    table = oracle.layouts(3, (2, 1))
    index = _index(table)
    draws = 6000
    counts = np.zeros(len(table))
    for game in range(draws):
        layout = layout_for(SMALL, 4, game, hider)
        counts[index[tuple((p.length, p.row, p.col, p.horizontal) for p in layout)]] += 1
    weights = oracle.layout_weights(table, edge=1.0, vertical=-0.5, touch=-1.0)
    assert chisquare(counts, draws * weights / weights.sum()).pvalue > 1e-3
    assert chisquare(counts, np.full(len(table), draws / len(table))).pvalue < 1e-9  # the test tells the hider from uniform


def test_same_seed_same_boards_and_uniform_boards_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    config = GameConfig(4, (3, 2))
    uniform = [layout_for(config, 7, game) for game in range(20)]
    assert uniform == [sample_layout(config, np.random.default_rng(game_seeds(7, game)[0])) for game in range(20)]
    use_stand_in(monkeypatch)
    assert uniform == [layout_for(config, 7, game, UNIFORM) for game in range(20)]  # no engine for the uniform hider
    hidden = [layout_for(config, 7, game, PRESETS["clusterer"]) for game in range(20)]
    assert hidden == [layout_for(config, 7, game, PRESETS["clusterer"]) for game in range(20)]
    assert hidden != [layout_for(config, 8, game, PRESETS["clusterer"]) for game in range(20)]


def test_an_experiment_records_its_hider_and_refuses_another(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    in_process(monkeypatch)
    out = tmp_path / "hugger"
    base = [
        "experiment", "--size", "3", "--ships", "2,1", "--players", "random,problog[belief=hider]", "--games", "6", "--seed", "2",
        "--out", str(out),
    ]
    assert main([*base, "--hider", "edge-hugger"]) == 0
    manifest, records = load_results(out)
    assert manifest["hider"] == PRESETS["edge-hugger"].to_json() and len(records) == 12
    for record in records:
        assert record["hider"] == manifest["hider"]
        assert record["layout"] == [placement_json(p) for p in layout_for(SMALL, 2, record["game"], PRESETS["edge-hugger"])]
    assert "hidden by edge-hugger" in capsys.readouterr().out
    one_line_error(capsys, [*base, "--hider", "spreader"], "hidden by edge-hugger with seed 2, not 3x3 2,1 hidden by spreader")
    one_line_error(capsys, base, "hidden by edge-hugger with seed 2, not 3x3 2,1 with seed 2")
    plain = tmp_path / "plain"
    assert main([*base[:-1], str(plain)]) == 0
    assert json.loads((plain / MANIFEST).read_text()) == {"size": 3, "ships": [2, 1], "seed": 2}  # standard manifests unchanged
    assert all("hider" not in r for r in load_results(plain)[1])
