"""Every one of the 605 human programs (Grand et al.'s CSV, in Rothe et al.'s language) parses, types
and evaluates on Rothe's 6x6 game, and the vectorised evaluator gives each program's answer on
sampled layouts exactly as the reference evaluator does, on generated contexts (a hidden layout,
some tiles revealed: Rothe's own boards are not shipped with battlelog)."""

from __future__ import annotations

import csv
import os
import random
from pathlib import Path

import numpy as np
import pytest

from battlelog.questions.inference import distribution
from battlelog.questions.layout import Layout, ShipAt, evaluate
from battlelog.questions.scoped import Space, lift_full
from battlelog.questions.state import state_from_json
from battlelog.questions.typecheck import compile_program
from battlelog.questions.vectorised import evaluate as evaluate_all

# The project's shared data folder lies beside the repository (../shared), in CI as on a developer's machine;
# BATTLELOG_BSQA names another copy. In CI a missing copy fails the tests instead of skipping them.
DATASET = Path(
    os.environ.get("BATTLELOG_BSQA") or Path(__file__).resolve().parents[2] / "shared" / "data" / "bsqa"
) / "human_question_dataset.csv"
NAMES = ("Blue", "Red", "Purple")
pytestmark = pytest.mark.skipif(
    not DATASET.exists() and not os.environ.get("CI"), reason=f"the BattleshipQA data is not at {DATASET}"
)


def programs() -> list[str]:
    with DATASET.open() as handle:
        return [row["code"] for row in csv.DictReader(handle)]


def context(seed: int) -> dict[str, object]:
    """Rothe's game (three ships of length 2-4 on 6x6, sizes prior) with a random part of a layout revealed."""
    data = {"size": 6, "ships": [{"name": n, "length": [2, 3, 4]} for n in NAMES], "length_prior": "sizes"}
    space = state_from_json(data, "rothe").space()
    rng = random.Random(seed)
    truth = _layout(space, rng.randrange(space.size))
    board = [["H"] * 6 for _ in range(6)]
    for cell in rng.sample(range(36), 8):
        board[cell // 6][cell % 6] = "W" if truth.board[cell] == 0 else NAMES[truth.board[cell] - 1][0]
    return {**data, "board": [",".join(row) for row in board]}


def _layout(space: Space, j: int) -> Layout:
    ships = []
    for s, table in enumerate(space.tables):
        p = space.idx[s, j]
        ships.append(ShipAt(int(table.length[p]), int(table.start[p]), int(table.step[p])))
    return Layout(space.rows, space.cols, tuple(ships))


def test_the_dataset_has_605_programs() -> None:
    assert len(programs()) == 605


@pytest.mark.parametrize("seed", [0, 1])
def test_every_program_evaluates_and_equals_the_reference_on_sampled_layouts(seed: int) -> None:
    state = state_from_json(context(seed), "context")
    space = state.space()
    rng = np.random.default_rng(seed)
    sample = rng.choice(space.size, size=min(60, space.size), replace=False)
    layouts = [_layout(space, int(j)) for j in sample]
    for text in dict.fromkeys(programs()):
        program = compile_program(text, NAMES, 6, 6)
        result = distribution(program, space)
        assert sum(result.probabilities) == pytest.approx(1.0)
        values = lift_full(evaluate_all(program, space), space)[sample]
        assert [int(v) for v in values] == [int(evaluate(program, layout)) for layout in layouts], text
