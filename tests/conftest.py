"""Shared fixtures: a module of misbehaving test players that the experiment's workers can import.

The players live in a throw-away module written to a temporary directory that is put on sys.path
(worker processes are spawned with the parent's sys.path) and, for command-line subprocesses, on
PYTHONPATH. The experiment names them as ``battlelog_test_players:Name``, so the production
player registry never sees them.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import durations
import pytest

TEST_PLAYERS = "battlelog_test_players"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--record-durations", metavar="FILE", help="write each test's seconds to FILE (tests/durations.py)")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``slow`` every test that took :data:`durations.FAST_LIMIT` seconds or more in the committed record."""
    slow = durations.slow_tests(durations.read_record(durations.RECORD), (item.nodeid for item in items))
    for item in items:
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)


def pytest_configure(config: pytest.Config) -> None:
    """Every test run (each xdist worker too) caches empty boards and opening books in a folder of its
    own, empty at the start, as on the CI's fresh machine: a cache filled by an earlier run (or by older
    code) must never answer for the engine under test."""
    import tempfile

    os.environ["BATTLELOG_CACHE_DIR"] = tempfile.mkdtemp(prefix="battlelog-test-cache-")
    record = config.getoption("--record-durations")
    if record and not hasattr(config, "workerinput"):  # the controller sees every worker's reports
        header = f"seconds per test (setup + call + teardown): python -m pytest {' '.join(config.invocation_params.args)}"
        config.pluginmanager.register(durations.Recorder(Path(record), header), "battlelog-durations")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the run's cache folder."""
    import shutil

    shutil.rmtree(os.environ.pop("BATTLELOG_CACHE_DIR", ""), ignore_errors=True)


_SOURCE = '''
"""Players that fail on purpose, for the experiment runner's tests."""

import os
import sys
import time

import numpy as np

from battlelog.players.random import RandomPlayer


class MemoryHog(RandomPlayer):
    """Asks for 64 GB at its first move: more than any worker's memory limit allows."""

    def choose(self, state):
        bytearray(64 * 2**30)
        return super().choose(state)


class Aborter(RandomPlayer):
    """Dies as a C library does when malloc fails (pysdd calls abort())."""

    def choose(self, state):
        os.abort()


class Sleeper(RandomPlayer):
    """Never finishes its first move."""

    def choose(self, state):
        time.sleep(3600)


class Broken(RandomPlayer):
    """Raises an ordinary error at its first move."""

    def choose(self, state):
        raise RuntimeError("this player is broken\\non purpose")


class Grower(RandomPlayer):
    """Fills 100 MB more every 10 ms at its first move, up to 3 GB, and holds it: a game that only ends
    when the cluster stops it for memory.

    The pauses let the worker announce the game while it grows. Holding the memory means that no
    timing decides the outcome: the game cannot end by itself before the nanny looks (as it did when
    it freed its 3 GB after 0.3 s). After 60 s it gives up and plays on, so that a cluster that never
    stops it fails the test instead of hanging it.
    """

    def choose(self, state):
        if not state.shots:
            blocks = []
            for _ in range(30):
                blocks.append(b"x" * (100 * 2**20))
                time.sleep(0.01)
            time.sleep(60)
        return super().choose(state)


class Exiter(RandomPlayer):
    """Ends its worker process with exit status 3 at its first move, as a careless library might."""

    def choose(self, state):
        os._exit(3)


class Quitter(RandomPlayer):
    """Calls sys.exit(3) at its first move."""

    def choose(self, state):
        sys.exit(3)


class Segfaulter(RandomPlayer):
    """Dies of SIGSEGV at its first move (a crash, not a lack of memory)."""

    def choose(self, state):
        os.kill(os.getpid(), 11)


class Ballast(RandomPlayer):
    """Touches 200 MB at its first move, so the game's peak memory must show it."""

    def choose(self, state):
        if not state.shots:
            ballast = b"x" * (200 * 2**20)
            del ballast
        return super().choose(state)


class Slow(RandomPlayer):
    """A random player that takes 5 ms per move: slow enough to interrupt a run mid-way."""

    def choose(self, state):
        time.sleep(0.005)
        return super().choose(state)


class BudgetTeller(RandomPlayer):
    """Fails at its first move with the engine memory budget it sees, so that a test can read it in the record."""

    def choose(self, state):
        from battlelog.engines.budget import memory_budget

        raise RuntimeError(f"budget {memory_budget()}")


class Dawdler(RandomPlayer):
    """A random player that takes 0.1 s per move: at least 0.7 s for a 4x4 3,2,2 game, at most 1.6 s."""

    def choose(self, state):
        time.sleep(0.1)
        return super().choose(state)


class NumpyChooser(RandomPlayer):
    """Shoots a random unshot cell given as numpy integers, as np.unravel_index gives them."""

    def choose(self, state):
        row, col = super().choose(state)
        return np.unravel_index(row * state.size + col, (state.size, state.size))


class FloatChooser(RandomPlayer):
    """Names its cell with floats."""

    def choose(self, state):
        return (1.0, 0.5)


class OffBoard(RandomPlayer):
    """Shoots off the board."""

    def choose(self, state):
        return (0, state.size)


class Malformed(RandomPlayer):
    """Answers with a cell's name instead of a cell."""

    def choose(self, state):
        return "A1"


class Victim(RandomPlayer):
    """At its first move of a game, writes its process id to the file ``mark`` and waits to be killed;
    once the mark exists it plays as the random player."""

    def __init__(self, seed=None, mark=""):
        super().__init__(seed)
        self.mark = mark

    def choose(self, state):
        if not state.shots and not os.path.exists(self.mark):
            with open(self.mark + ".tmp", "w") as out:
                out.write(str(os.getpid()))
            os.replace(self.mark + ".tmp", self.mark)
            time.sleep(3600)
        return super().choose(state)


class SelfKiller(RandomPlayer):
    """Kills its own process with SIGKILL at its first move, as kill -9 from outside would."""

    def choose(self, state):
        os.kill(os.getpid(), 9)


class Tunable(RandomPlayer):
    """A random player with an option, to check that options are recorded and compared."""

    def __init__(self, seed=None, level=1):
        super().__init__(seed)
        self.level = level
'''


@pytest.fixture(scope="session")
def test_players(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The directory holding the ``battlelog_test_players`` module, on sys.path for the session."""
    directory = tmp_path_factory.mktemp("players")
    (directory / f"{TEST_PLAYERS}.py").write_text(textwrap.dedent(_SOURCE))
    sys.path.insert(0, str(directory))
    yield directory
    sys.path.remove(str(directory))
    sys.modules.pop(TEST_PLAYERS, None)


@pytest.fixture
def subprocess_env(test_players: Path) -> dict[str, str]:
    """Environment for running ``python -m battlelog.cli`` with the test players importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(test_players), env.get("PYTHONPATH")]))
    return env
