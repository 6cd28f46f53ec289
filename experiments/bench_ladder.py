"""The native engine's call paths timed on a few representative states: what a change to how the engine
chooses among its shortcuts (battlelog/engines/native/ladder.py) must not slow down.

Each line is the best of ``--rounds`` runs, each in a fresh engine with a workspace of its own (an empty
disk cache), so nothing comes from an earlier run:

- ``empty cold``: the empty 10x10 board (5,4,3,3,2) in a fresh process (run the script alone for it: the
  first line it prints is the only cold one, kernels loaded from numba's disk cache);
- ``empty warm``: the same again, kernels loaded;
- ``game``: every state of a 10x10 game of the ``problog`` player (greedy on the exact marginals, about 40
  shots) asked in order of one engine, as a player asks them; ``game draws``: the same with 200 layouts
  drawn after each (what thompson and rollout players do); ``game prior``: the same under an edge prior;
- a digest of every figure's bytes, which must not change with the code: the same numbers bit for bit.

usage:
  python experiments/bench_ladder.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.workspace import Workspace
from battlelog.players import make_player
from battlelog.rules.config import GameConfig, parse_ships
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import layout_for


def fresh() -> NativeEngine:
    return NativeEngine(workspace=Workspace(Path(tempfile.mkdtemp(prefix="bench-ladder-"))))


def game(config: GameConfig) -> list[GameState]:
    """The states of one game of the greedy exact player on ``config``, the empty one first."""
    states = [GameState.empty(config)]
    play_game(config, layout_for(config, 11, 0), make_player("problog", seed=0), on_shot=states.append)
    return states


def run(states: list[GameState], draws: int) -> str:
    """Every state's marginals asked in order of one fresh engine (and ``draws`` layouts drawn after each): a
    digest of every figure's bytes (the same figures bit for bit give the same digest)."""
    engine, digest = fresh(), hashlib.sha256()
    for k, state in enumerate(states):
        marginals = engine.marginals(state)
        digest.update(marginals.cells.tobytes() + str(marginals.models).encode())
        for values in marginals.placements or ():
            digest.update(values.tobytes())
        if draws:
            digest.update(engine.sample_owners(state, draws, np.random.default_rng(k)).tobytes())
    return digest.hexdigest()[:16]


def best(rounds: int, work: Callable[[], str]) -> tuple[float, str]:
    """The least seconds ``work`` took over ``rounds`` runs, and its checksum."""
    times, check = [], ""
    for _ in range(rounds):
        start = time.perf_counter()
        check = work()
        times.append(time.perf_counter() - start)
    return min(times), check


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    config = GameConfig(10, parse_ships("5,4,3,3,2"))
    empty = [GameState.empty(config)]
    cold, check = best(1, lambda: run(empty, 0))
    print(f"empty cold   {cold * 1e3:8.1f} ms  digest {check}")
    warm, check = best(args.rounds, lambda: run(empty, 0))
    print(f"empty warm   {warm * 1e3:8.1f} ms  digest {check}")
    states = game(config)
    prior = GameConfig(10, parse_ships("5,4,3,3,2"), prior=Prior(edge=0.5))
    weighed = [GameState(prior, s.shots) for s in states]
    for label, work in (
        (f"game ({len(states)})", lambda: run(states, 0)),
        ("game draws", lambda: run(states, 200)),
        ("game prior", lambda: run(weighed, 0)),
    ):
        seconds, check = best(args.rounds, work)
        print(f"{label:12} {seconds * 1e3:8.1f} ms  digest {check}")


if __name__ == "__main__":
    main()
