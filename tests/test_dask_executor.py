"""The dask executor keeps the runner's promises on a cluster: a LocalCluster, and a scheduler and workers
started as separate processes on 127.0.0.1, as on a real cluster.

Shown on both: the records equal a local run's, game for game (timing fields aside); a worker killed
mid-game loses no game and plays none twice (the game is played again once, and says why); a game
the cluster stops for memory is a `memory` failure while the others finish; the per-game time limit
holds; the engine's memory budget travels with the task; an interrupted client resumes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from battlelog.errors import BattlelogError
from battlelog.rules.config import GameConfig
from battlelog.runner.executors import Limits
from battlelog.runner.executors.base import Executor
from battlelog.runner.executors.dask_cluster import START_TOPIC, DaskExecutor
from battlelog.runner.executors.local import LocalExecutor
from battlelog.runner.experiment import Experiment, RunReport, run_experiment
from battlelog.runner.records import GAMES, load_results

from runs import check_interrupted_runs_resume

distributed = pytest.importorskip("distributed")

T = "battlelog_test_players:"
SMALL = GameConfig(4, (3, 2, 2))


@pytest.fixture(autouse=True)
def _environment_restored() -> Iterator[None]:
    """dask's nannies write their workers' settings (MALLOC_TRIM_THRESHOLD_, OMP_NUM_THREADS, PYTHONHASHSEED)
    into the environment of the process that starts a local cluster, at every worker start, and leave them:
    the xdist worker's later tests would start their subprocesses with them (a memory test's subprocess
    then returned freed memory to the system that a lone run kept, and measured differently)."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def same_games() -> Experiment:
    """Four players on six boards: the baselines, the exact player (its engine in the worker) and one slow enough
    (0.7 to 1.6 s a game) that a worker killed as it starts one of its games is killed mid-game. Needs the test players."""
    return Experiment(SMALL, ("random", "pdf", "problog", T + "Dawdler"), 6, 13, {"problog": {"engine": "sdd"}})


#: What may differ between two runs of the same games: how long they took, how much memory, and a retry's reason.
TIMING = {"seconds", "move_median_s", "move_max_s", "peak_mb", "retried"}
GiB = 2**30


def run(executor: Executor, out: Path, experiment: Experiment | None = None) -> RunReport:
    with executor:
        return run_experiment(experiment or same_games(), out, executor, progress=False)


def games(out: Path) -> dict[tuple[str, int], dict]:
    """The records of ``out`` by (player, game), timing fields left out."""
    return {(r["player"], r["game"]): {k: v for k, v in r.items() if k not in TIMING} for r in load_results(out)[1]}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory, test_players: Path) -> dict[tuple[str, int], dict]:
    """same_games() played by the local executor: what every cluster run must equal."""
    out = tmp_path_factory.mktemp("local")
    assert run(LocalExecutor(Limits(2, None, None)), out) == RunReport(0, 24, 0)
    return games(out)


@contextmanager
def kill_at_start(scheduler: str, kill: Callable[[str], bool], nth: int = 2) -> Iterator[list[str]]:
    """Watch the cluster's game starts; at the ``nth`` start of a Dawdler game (or a later one), kill the worker
    that plays it with ``kill(address)`` (which says False to spare that worker). So the kill lands mid-game.

    Yields the list of killed worker addresses (filled as it happens).
    """
    watcher = distributed.Client(scheduler, timeout=30)
    killed: list[str] = []
    seen = [0]
    lock = threading.Lock()

    def on_start(event: tuple) -> None:
        with lock:
            if "Dawdler" not in event[1]["key"]:
                return
            seen[0] += 1
            worker = event[1]["worker"]
            if not killed and seen[0] >= nth and kill(worker):
                killed.append(worker)

    watcher.subscribe_topic(START_TOPIC, on_start)
    try:
        yield killed
    finally:
        watcher.unsubscribe_topic(START_TOPIC)
        watcher.close()


def check_one_retry(out: Path, killed: list[str], local_run: dict) -> None:
    """Every game once, equal to the local run, and exactly the killed game played again, saying so."""
    assert len(killed) == 1
    records = load_results(out)[1]  # no (player, game) twice, or this raises
    assert len(records) == 24 and all(r["status"] == "ok" for r in records)
    assert games(out) == local_run
    retried = [r for r in records if r["retried"]]
    assert len(retried) == 1 and retried[0]["retried"].startswith(f"worker {killed[0]} was lost while it played this game")


# ----- a LocalCluster ----------------------------------------------------------------------------------
def test_a_local_cluster_plays_the_local_games_and_replays_a_killed_workers_game(
    tmp_path: Path, local_run: dict, test_players: Path
) -> None:
    executor = DaskExecutor(Limits(2, 2 * GiB, 120))
    with executor:
        executor.start()
        pids = executor.client.run(os.getpid)  # worker address -> process id

        def kill(worker: str) -> bool:
            os.kill(pids[worker], signal.SIGKILL)  # its nanny starts a new worker
            return True

        with kill_at_start(executor.client.scheduler.address, kill) as killed:
            report = run_experiment(same_games(), tmp_path, executor, progress=False)
    assert report == RunReport(0, 24, 0)
    check_one_retry(tmp_path, killed, local_run)
    assert all(r["peak_mb"] > 10 for r in load_results(tmp_path)[1])  # one thread per worker: peaks are measured


def test_a_local_cluster_left_with_no_worker_stops_in_one_line(tmp_path: Path, test_players: Path) -> None:
    """A cluster whose workers are gone for good (here scaled to none) would leave the run waiting forever."""
    executor = DaskExecutor(Limits(1, 2 * GiB, None))
    executor.no_worker_wait = 2.0
    with executor:
        executor.start()
        executor._cluster.scale(0)
        start = time.monotonic()
        with pytest.raises(BattlelogError) as error:
            run_experiment(same_games(), tmp_path, executor, progress=False)
    assert time.monotonic() - start < 30
    assert str(error.value).startswith("the local dask cluster has had no worker for 2 s") and "\n" not in str(error.value)


class _LeavesBeforeTheFetch(DaskExecutor):
    """Its cluster loses its only worker at the worst moment: after a game has ended and the client has seen
    it end, just before the client fetches its result (its client scales the cluster to none first)."""

    def start(self, count: int | None = None) -> None:
        super().start(count)
        self._client = _ScalesDownBeforeFetching(self._client, self)


class _ScalesDownBeforeFetching:
    """A dask client whose first fetch of results (``gather``, or a ``sync`` call around one) is preceded by
    scaling the executor's cluster to no worker; everything else goes to the real client."""

    def __init__(self, client: object, executor: DaskExecutor) -> None:
        self._real, self._executor, self._left = client, executor, False

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)

    def _leave(self) -> None:
        if not self._left:
            self._left = True
            self._executor._cluster.scale(0)
            while self._real.nthreads():  # type: ignore[attr-defined]
                time.sleep(0.05)

    def gather(self, *args: object, **kwargs: object) -> object:
        self._leave()
        return self._real.gather(*args, **kwargs)  # type: ignore[attr-defined]

    def sync(self, *args: object, **kwargs: object) -> object:
        self._leave()
        return self._real.sync(*args, **kwargs)  # type: ignore[attr-defined]


def test_a_worker_that_leaves_before_its_result_is_fetched_stops_the_run_in_one_line(tmp_path: Path) -> None:
    """The fetch of an ended game whose worker left is bounded: without a worker left, the run stops in one
    line instead of waiting forever for the scheduler to play the game again."""
    executor = _LeavesBeforeTheFetch(Limits(1, 2 * GiB, None))
    executor.no_worker_wait, executor.fetch_wait = 2.0, 2.0
    outcome: list[BaseException | RunReport] = []

    def play() -> None:
        try:
            outcome.append(run(executor, tmp_path, Experiment(SMALL, ("random",), 1, 13)))
        except BaseException as error:  # noqa: BLE001 - handed to the test thread
            outcome.append(error)

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "the run still waits for a result whose worker left"
    assert len(outcome) == 1 and isinstance(outcome[0], BattlelogError), outcome
    assert str(outcome[0]).startswith("the local dask cluster has had no worker for 2 s") and "\n" not in str(outcome[0])
    games_file = tmp_path / GAMES
    assert not games_file.exists() or games_file.read_text() == ""  # the lost game is not recorded as played


@pytest.mark.slow
def test_on_a_local_cluster_failed_games_get_their_reason_and_the_others_finish(tmp_path: Path, test_players: Path) -> None:
    players = ("random", T + "Sleeper", T + "Quitter", T + "Broken", T + "BudgetTeller", T + "Exiter")
    start = time.monotonic()
    limited, hungry = tmp_path / "limited", tmp_path / "memory"
    assert run(DaskExecutor(Limits(2, 700 * 2**20, 2.5)), limited, Experiment(SMALL, players, 2, 5)) == RunReport(0, 12, 10)
    # The memory-hungry game runs without a time limit: under one, a busy machine could let the limit
    # pass before the nanny stops the worker and the client hears of it, and record a timeout.
    report = run(DaskExecutor(Limits(2, 700 * 2**20, None)), hungry, Experiment(SMALL, ("random", T + "Grower"), 2, 5))
    assert report == RunReport(0, 4, 2)
    assert time.monotonic() - start < 90
    game = {(r["player"], r["game"]): r for r in load_results(limited)[1]}
    beside = {(r["player"], r["game"]): r for r in load_results(hungry)[1]}
    for g in range(2):
        assert game["random", g]["status"] == "ok" and beside["random", g]["status"] == "ok"
        grower = beside[T + "Grower", g]
        sleeper, quitter, broken, teller, exiter = (
            game[T + name, g] for name in ("Sleeper", "Quitter", "Broken", "BudgetTeller", "Exiter")
        )
        assert (
            grower["status"] == "memory" and "restarted worker tcp://" in grower["message"] and "for memory" in grower["message"]
        )
        assert grower["retried"] is None  # a game that ran out of memory is not played again
        assert sleeper["status"] == "timeout" and sleeper["message"] == "no result within the time limit of 2.5 s"
        assert 2.5 <= sleeper["seconds"] < 4
        assert (quitter["status"], quitter["message"]) == ("error", "the game's code exited with status 3")
        assert (broken["status"], broken["message"]) == ("error", "RuntimeError: this player is broken on purpose")
        assert teller["message"] == f"RuntimeError: budget {350 * 2**20}"  # half the memory limit, sent with the task
        assert exiter["status"] == "error" and exiter["message"].startswith("the worker playing it was lost twice")
        assert exiter["retried"].startswith("worker tcp://") and exiter["retried"].endswith("played again on another worker")


@pytest.mark.slow
def test_an_interrupted_client_of_a_local_cluster_resumes(tmp_path: Path, subprocess_env: dict) -> None:
    out = tmp_path / "results"
    argv = [sys.executable, "-m", "battlelog.cli", "experiment", "--size", "5", "--ships", "3,3,2",
            "--players", f"random,{T}Slow", "--games", "24", "--seed", "9", "--out", str(out), "--executor", "dask",
            "--workers", "2"]  # fmt: skip
    check_interrupted_runs_resume(argv, subprocess_env, out, 48)


# ----- a scheduler and workers as separate processes ------------------------------------------------
DASK = str(Path(sys.executable).parent / "dask")


def start_scheduler(tmp: Path, allowed_failures: int | None = 0) -> tuple[subprocess.Popen, str]:
    """A `dask scheduler` on 127.0.0.1 (with battlelog's required setting unless told otherwise), and its address."""
    env = dict(os.environ)
    if allowed_failures is not None:
        env["DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES"] = str(allowed_failures)
    file = tmp / "scheduler.json"
    process = subprocess.Popen(
        [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(file)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        # The scheduler creates the file before it writes it: read it only once it holds a whole address.
        try:
            return process, json.loads(file.read_text())["address"]
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            time.sleep(0.05)
    stop(process)
    raise AssertionError(f"the dask scheduler wrote no address to {file} in 60 s")


def start_worker(address: str, env: dict[str, str], name: str) -> subprocess.Popen:
    """A `dask worker` (a nanny and its worker process, in their own process group), as on another machine."""
    return subprocess.Popen(
        [DASK, "worker", address, "--nthreads", "1", "--memory-limit", "700MB", "--no-dashboard", "--name", name],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip


def stop(process: subprocess.Popen) -> None:
    """End a process group this test started (machine gone): SIGKILL, then reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(timeout=30)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, test_players: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """A scheduler and two workers, each its own process; (scheduler address, environment with the test players)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(test_players), os.environ.get("PYTHONPATH")])))
    scheduler, address = start_scheduler(tmp_path_factory.mktemp("scheduler"))
    workers = [start_worker(address, env, f"w{i}") for i in range(2)]
    try:
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, env
    finally:
        for process in [*workers, scheduler]:
            stop(process)


@pytest.mark.xdist_group("dask-processes")
def test_a_worker_lost_mid_game_on_a_cluster_costs_no_game_and_repeats_none(
    tmp_path: Path, cluster: tuple[str, dict], local_run: dict
) -> None:
    address, env = cluster
    victim = start_worker(address, env, "victim")
    try:
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(3, timeout=60)
            victim_address = next(a for a, w in client.scheduler_info(n_workers=-1)["workers"].items() if w["name"] == "victim")

        def kill(worker: str) -> bool:
            if worker != victim_address:
                return False
            os.killpg(victim.pid, signal.SIGKILL)  # the nanny and its worker: the machine is gone
            return True

        with kill_at_start(address, kill, nth=1) as killed:
            report = run(DaskExecutor(Limits(1, 2 * GiB, 120), scheduler=address), tmp_path)
    finally:
        stop(victim)
    assert report == RunReport(0, 24, 0)
    check_one_retry(tmp_path, killed, local_run)


@pytest.mark.xdist_group("dask-processes")
def test_on_a_cluster_a_game_stopped_for_memory_fails_alone_under_the_budget_it_was_sent(
    tmp_path: Path, cluster: tuple[str, dict]
) -> None:
    address, _ = cluster
    experiment = Experiment(SMALL, ("random", T + "Grower", T + "BudgetTeller"), 2, 5)
    # The workers' own limit is 700 MB; the experiment's 1 GiB only sets the engines' budget: half of it.
    assert run(DaskExecutor(Limits(1, GiB, 120), scheduler=address), tmp_path, experiment) == RunReport(0, 6, 4)
    game = {(r["player"], r["game"]): r for r in load_results(tmp_path)[1]}
    for g in range(2):
        assert game["random", g]["status"] == "ok"
        assert game[T + "Grower", g]["status"] == "memory" and "for memory" in game[T + "Grower", g]["message"]
        assert game[T + "BudgetTeller", g]["message"] == f"RuntimeError: budget {GiB // 2}"


@pytest.mark.xdist_group("dask-processes")
def test_an_interrupted_client_of_a_cluster_resumes(tmp_path: Path, cluster: tuple[str, dict]) -> None:
    address, env = cluster
    out = tmp_path / "results"
    argv = [sys.executable, "-m", "battlelog.cli", "experiment", "--size", "5", "--ships", "3,3,2",
            "--players", f"random,{T}Slow", "--games", "24", "--seed", "9", "--out", str(out), "--executor", "dask",
            "--scheduler", address]  # fmt: skip
    check_interrupted_runs_resume(argv, env, out, 48)


def test_a_scheduler_that_replays_tasks_itself_is_refused_before_anything_runs(tmp_path: Path) -> None:
    scheduler, address = start_scheduler(tmp_path, allowed_failures=None)  # dask's default: three deaths per task
    try:
        replays = (r"allowed-failures 3\); battlelog decides that itself, so start the scheduler as "
                   r"`DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=0 dask scheduler`")
        with pytest.raises(BattlelogError, match=replays):
            run(DaskExecutor(Limits(1, GiB, 60), scheduler=address), tmp_path / "out", Experiment(SMALL, ("random",), 1, 0))
    finally:
        stop(scheduler)
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "out" / GAMES).exists()
