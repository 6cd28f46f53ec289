"""numba's disk cache entries are read and written whole under a lock (battlelog/engines/compiled.py): a save
waits while another holds the entry's lock, and every compiled module of battlelog gets numba that way."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from battlelog.engines.compiled import file_lock, lock_cache_files


def test_a_save_waits_for_the_entrys_lock(tmp_path: Path) -> None:
    lock_cache_files()
    from numba.core import caching

    entry = caching.IndexDataCacheFile(str(tmp_path), "f-1.py311", ("stamp", 1))
    index = tmp_path / "f-1.py311.nbi"
    with file_lock(Path(str(index) + ".lock")):  # another process, say, in the middle of writing it
        saving = threading.Thread(target=entry.save, args=("key", ("machine", "code")))
        saving.start()
        time.sleep(0.3)
        assert saving.is_alive() and not index.exists()  # waiting, nothing written
    saving.join(timeout=10)
    assert not saving.is_alive() and index.exists()
    assert entry.load("key") == ("machine", "code")


@pytest.mark.parametrize(
    "code",
    [
        "import battlelog.optimum.search",
        "import battlelog.players.rollout_kernel",
        "import battlelog.engines.chain",
        "from battlelog.engines.native import jit; jit.kernels(10**6)",
    ],
)
def test_every_way_battlelog_takes_numba_locks_its_cache(code: str) -> None:
    """Each in a new process: whichever compiled module comes first, numba's cache files are locked."""
    check = (
        "from numba.core import caching; f = caching.IndexDataCacheFile; "
        "print(hasattr(f.save, '__wrapped__') and hasattr(f.load, '__wrapped__'))"
    )
    out = subprocess.run([sys.executable, "-c", f"{code}\n{check}"], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "True", out.stderr


def test_a_lock_where_no_file_can_be_made_is_no_lock(tmp_path: Path) -> None:
    """The lock file cannot be created: numba goes on unlocked (the block runs, once), and nothing is made."""
    ran = []
    with file_lock(tmp_path / "missing" / "folder" / "x.lock"):
        ran.append(True)
    assert ran == [True]
    assert list(tmp_path.iterdir()) == []
