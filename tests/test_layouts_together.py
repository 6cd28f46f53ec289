"""Layouts drawn together, one generator per layout (``Engine.sample_each``, ``seeds.layouts_for``): each is
the layout a draw of one from its generator alone gives, whatever the model (kept, rebuilt, split, weighted),
and an experiment's boards are the ones its records hold from before they were drawn together."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.weights import tracks_touching
from battlelog.errors import BudgetExceeded
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.layout_files import parse_layout
from battlelog.runner.records import manifest_config, manifest_hider
from battlelog.runner.seeds import layout_for, layouts_for

from engine_cases import shots

RESULTS = Path(__file__).resolve().parent.parent / "experiments" / "results" / "priors"

STATES = [
    GameState.empty(GameConfig(5, (3, 2, 2))),
    GameState.empty(GameConfig(6, (4, 3, 3), Rules(touch="none"))),
    GameState.empty(GameConfig(5, (3, 3, 2), Rules(touch="diagonal"), cols=6)),
    GameState.empty(GameConfig(6, (4, 3, 3), prior=Prior(edge=0.8, vertical=-0.3))),
    GameState.empty(GameConfig(6, (4, 3, 3), prior=Prior(touch=0.5))),
    shots(GameConfig(6, (4, 3, 2, 1), prior=Prior(edge=-0.5, touch=-1.0)), "C3 hit", "C4 miss", "A1 miss"),
    shots(GameConfig(5, (3, 2, 2)), "B2 miss", "C3 hit", "A4 miss"),
]


def _alone(state: GameState, seeds: range, budget: int | None = None) -> list[tuple]:
    """Each layout drawn alone, from a new engine and its own generator (what every board was before)."""
    return [NativeEngine(memory_budget=budget).sample(state, 1, np.random.default_rng(seed))[0] for seed in seeds]


@pytest.mark.parametrize("state", STATES, ids=lambda s: f"{s.config.label()}-{len(s.shots)}")
def test_layouts_drawn_together_are_those_drawn_alone(state: GameState) -> None:
    seeds = range(40)
    together = NativeEngine().sample_each(state, [np.random.default_rng(seed) for seed in seeds])
    assert together == _alone(state, seeds)
    assert len(set(together)) > 5  # they differ from one generator to the next


#: States and budgets under which their models are rebuilt as they are read (the 10x10 touch hider's case).
REBUILT = [(STATES[1], 200_000), (STATES[3], 200_000), (STATES[4], 300_000)]


@pytest.mark.parametrize(("state", "budget"), REBUILT, ids=lambda x: x.config.label() if isinstance(x, GameState) else str(x))
def test_layouts_drawn_together_from_rebuilt_models_are_those_drawn_alone(state: GameState, budget: int) -> None:
    engine = NativeEngine(memory_budget=budget)
    assert all(model.rebuilds for model in engine.drawn_from(state, tracks_touching(state)))  # type: ignore[union-attr]
    seeds = range(25)
    assert engine.sample_each(state, [np.random.default_rng(seed) for seed in seeds]) == _alone(state, seeds, budget)


def test_layouts_drawn_together_from_split_models_are_those_drawn_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A state split into cases: each walker draws its case from its own generator first, as one alone does."""
    compile_whole = NativeEngine.compile_model
    depths: list[int] = []

    def split_once(self, problem, order, depth, tracked=False, limit=None):
        depths.append(depth)
        if depth == 0:
            raise BudgetExceeded("forced split")
        return compile_whole(self, problem, order, depth, tracked, limit)

    monkeypatch.setattr(NativeEngine, "compile_model", split_once)
    for state in (STATES[0], STATES[3], STATES[5]):
        seeds = range(30)
        together = NativeEngine().sample_each(state, [np.random.default_rng(seed) for seed in seeds])
        assert together == _alone(state, seeds)
    assert max(depths) >= 1  # the states were split


def test_an_engine_without_together_draws_one_at_a_time() -> None:
    """The base class's ``sample_each`` (an engine whose ``sample`` takes one generator) gives the same layouts."""

    class OneAtATime(NativeEngine):
        samples_together = False

    state = STATES[3]
    rngs = [np.random.default_rng(seed) for seed in range(10)]
    assert OneAtATime().sample_each(state, rngs) == _alone(state, range(10))


@pytest.mark.parametrize("name", ["6x6-clusterer", "6x6-spreader", "6x6-edge-hugger", "6x6-uniform"])
def test_an_experiments_boards_are_the_ones_it_recorded(name: str) -> None:
    """The boards of a recorded experiment (drawn one at a time when it ran) come out of ``layouts_for`` again."""
    manifest = json.loads((RESULTS / name / "experiment.json").read_text())
    config, hider = manifest_config(manifest), manifest_hider(manifest)
    recorded: dict[int, tuple] = {}
    with gzip.open(RESULTS / name / "games.jsonl.gz", "rt") as lines:
        for line in lines:
            record = json.loads(line)
            recorded.setdefault(record["game"], parse_layout(record["layout"], config, name))
    games = sorted(recorded)[:60]
    assert layouts_for(config, manifest["seed"], games, hider) == [recorded[g] for g in games]
    assert layout_for(config, manifest["seed"], games[7], hider) == recorded[games[7]]
