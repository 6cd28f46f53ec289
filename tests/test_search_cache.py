"""The optimum's recursive searches survive numba's disk cache whatever argument types their callers use.

numba caches a recursive function badly when a recursive call's types differ from the outer call's
(numba #6061, #6713): a process that loads such an entry later aborts ("unresolved symbol") or crashes,
which is how a CI worker died with a segmentation fault in ``ply_bound``. Here processes with one empty
cache folder call ``ply_bound`` and ``policy_total`` in turn with layouts of int64 and int32 and hits as a
Python int or a uint64, the order that broke the unguarded search; every one must answer, and alike."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CALL = """
import sys, numpy as np
from battlelog.optimum import search
from battlelog.optimum.layouts import SINK_MODES
from battlelog.optimum.solver import Solver
from battlelog.rules.config import GameConfig
solver = Solver(GameConfig(3, (2, 1)), memory=1 << 20)
t = solver.layouts
most = solver.symmetries.placements.shape[2]
layouts = np.arange(len(t), dtype=np.int64 if sys.argv[1] == "int64" else np.int32)
hits = 0 if sys.argv[2] == "int" else np.uint64(0)
named = SINK_MODES["named"]
print(search.ply_bound(layouts, hits, 2, t.ship_masks, t.owner, t.placement, t.union, 3, named, most),
      search.policy_total(layouts, hits, t.ship_masks, t.owner, t.union, 3, named))
"""


@pytest.mark.slow
def test_recursive_searches_load_from_the_cache_for_every_caller(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    answers = []
    for layouts, hits in (("int64", "int"), ("int64", "int"), ("int32", "uint64"), ("int32", "int"), ("int64", "uint64")):
        done = subprocess.run([sys.executable, "-c", CALL, layouts, hits], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and done.stdout.strip(), (layouts, hits, done.stderr[-2000:])
        answers.append(done.stdout.strip())
    assert len(set(answers)) == 1  # the same bound and the same greedy total from every entry
