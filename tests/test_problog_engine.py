"""The ``problog`` engine beyond the contract every engine meets (tests/test_engine_contract.py).

Here: the rendered program run by the stock ``problog`` command gives the same marginals, and the
answer does not depend on ProbLog's evidence propagation.
"""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from problog import get_evaluatable
from problog.program import PrologString

from battlelog.engines import make_engine
from battlelog.engines.problog_engine import ProblogEngine, board_from_queries
from battlelog.model.render import render_program
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState

from engine_cases import hand_cases, random_cases, shots

ENGINE = ProblogEngine()


def test_registry_builds_this_engine() -> None:
    assert isinstance(make_engine("problog"), ProblogEngine)


def test_answers_must_cover_exactly_the_unshot_cells() -> None:
    state = shots(GameConfig(2, (2,)), "A1 miss")
    with pytest.raises(RuntimeError):
        board_from_queries(state, {})


def problog_command() -> str:
    """The ``problog`` script installed next to this Python (the stock command line)."""
    script = Path(sys.executable).with_name("problog")
    assert script.exists(), f"the problog command is not installed next to {sys.executable}"
    return str(script)


CLI_LINE = re.compile(r"^occupied\((\d+),(\d+)\):\s+(\S+)\s*$")


def run_stock_problog(program: str, path: Path) -> dict[tuple[int, int], float]:
    """Marginals printed by ``problog path`` (8 significant digits, one ``occupied(R,C): p`` per line)."""
    path.write_text(program)
    done = subprocess.run([problog_command(), str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    matches = [CLI_LINE.match(line) for line in lines]
    assert all(matches), lines
    return {(int(m[1]), int(m[2])): float(m[3]) for m in matches if m}


@cache
def cli_states() -> tuple[GameState, GameState]:
    """A state with misses, hits, two sinks and an afloat ship, and a hand case with a forced answer."""
    sunk = [c.state for c in random_cases() if c.state.size == 5 and len(c.state.sinks) >= 2 and c.state.afloat]
    return sunk[0], hand_cases()[1].state


@pytest.mark.parametrize("which", [0, 1], ids=["5x5 two sinks", "hand case"])
def test_stock_problog_command_gives_the_same_marginals(which: int, tmp_path: Path) -> None:
    state = cli_states()[which]  # built here, not while the tests are collected: it plays games
    printed = run_stock_problog(render_program(state), tmp_path / "state.pl")
    cells = ENGINE.marginals(state).cells
    assert set(printed) == set(state.unshot)
    for cell, probability in printed.items():
        assert abs(probability - cells[cell]) <= 5e-9, cell  # %.8g rounding of values below 1


def test_meaning_does_not_depend_on_evidence_propagation() -> None:
    # ProbLog's Python API does not propagate evidence unless asked, the command line does: the
    # program must mean the same either way.
    state = cli_states()[0]
    plain = get_evaluatable("sdd").create_from(PrologString(render_program(state))).evaluate()
    np.testing.assert_allclose(board_from_queries(state, plain), ENGINE.marginals(state).cells, rtol=0, atol=1e-9)
