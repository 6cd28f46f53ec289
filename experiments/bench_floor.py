"""The native engine's floor: one marginals call on a late state, and one board drawn under a touch rule.

- marginals, cold: the states of greedy games with 20 to 200 consistent layouts (10x10 5,4,3,3,2 with
  touching allowed and with no contact, 6x6 4,3,3), one call each with everything the engine
  remembers (recent states' marginals, listed layouts) forgotten before every call, so each call
  computes from the state alone. Variants in one process, interleaved ABBA, each the minimum over
  rounds: the engine as shipped (states with few layouts are listed, battlelog/engines/native/few.py),
  the same with ``reuse=False`` (nothing remembered, as before battlelog/engines/native/reuse.py: its
  ratio is what remembering the listings costs a call that cannot use them), the same with the compiled
  late-state listing off (each state grounded and listed in Python, as before
  battlelog/engines/native/late.py) and the engine made to
  sweep every state; an A/A pair (the shipped engine against itself) measures the noise of the ratio.
- marginals, in game order: the same late states asked in the order of their game, as a player asks
  them, by an engine that has seen the game's state before the first of them (its recent states'
  marginals forgotten before every call, so each call computes): with reuse (a state a few shots on
  from a listed one is answered by filtering its layouts) and without; ABBA, minima, A/A.
  Absolute times on a shared machine are not trusted; the ratios are. The load (``uptime``) is
  printed before and after.
- boards: ``runner.seeds.layout_for`` under ``diagonal`` and ``none`` (the exact sampler on the
  empty board's model), per board after the first.

usage:
  python experiments/bench_floor.py                # about a minute on 2 cores
  python experiments/bench_floor.py --games 2 --rounds 5 --boards 50
Prints Markdown tables to stdout.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from functools import partial

from battlelog.engines.native import few, jit, ladder
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.workspace import Workspace
from battlelog.players import make_player
from battlelog.report.markdown import duration, markdown_table
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

CONFIGS = (GameConfig(10, (5, 4, 3, 3, 2)), GameConfig(10, (5, 4, 3, 3, 2), Rules(touch="none")), GameConfig(6, (4, 3, 3)))


def late_games(config: GameConfig, games: int, seed: int) -> list[tuple[GameState, list[GameState]]]:
    """Per greedy game, the state before its first with 20 to 200 consistent layouts, and those states in order."""
    workspace = Workspace()
    engine = workspace.engine("native")
    out = []
    for game in range(games):
        states: list[GameState] = []
        player = make_player("problog", game_seeds(seed, game)[1])
        player.use(workspace)
        play_game(config, layout_for(config, seed, game), player, on_shot=states.append)
        late = [t for t, s in enumerate(states[:-1]) if 20 <= (engine.marginals(s).models or 0) <= 200]
        if late:
            out.append((states[late[0] - 1], [states[t] for t in late]))
    return out


def per_call(states: list[GameState], sweep_only: bool, reuse: bool = True, compiled: bool = True) -> float:
    """Seconds per marginals call over ``states``, each computed afresh (nothing remembered); ``compiled=False``:
    with the compiled late-state listing switched off (each state grounded and listed in Python, as before it)."""
    workspace = Workspace()
    engine = NativeEngine(workspace=workspace, reuse=reuse)
    limit, late = few.PAIR_LIMIT, ladder.late_listing
    few.PAIR_LIMIT = 0 if sweep_only else limit
    ladder.late_listing = late if compiled else lambda state, memory_budget: None
    try:
        start = time.perf_counter()
        for state in states:
            workspace.states.clear()
            engine.listings.clear()
            engine.marginals(state)
        return (time.perf_counter() - start) / len(states)
    finally:
        few.PAIR_LIMIT, ladder.late_listing = limit, late


def in_game(games: list[tuple[GameState, list[GameState]]], reuse: bool) -> float:
    """Seconds per marginals call over the late states of ``games`` asked in game order, by an engine that
    has seen each game's state before them (recent states' marginals forgotten before every call)."""
    took, calls = 0.0, 0
    for before, states in games:
        workspace = Workspace()
        engine = NativeEngine(workspace=workspace, reuse=reuse)
        engine.marginals(before)
        for state in states:
            workspace.states.clear()
            start = time.perf_counter()
            engine.marginals(state)
            took += time.perf_counter() - start
            calls += 1
    return took / calls


def abba(a: Callable[[], float], b: Callable[[], float], rounds: int) -> tuple[float, float]:
    """The minima of ``a`` and ``b`` over ``rounds`` ABBA rounds."""
    best_a = best_b = float("inf")
    for r in range(rounds):
        for run in ((a, b) if r % 2 == 0 else (b, a)):
            took = run()
            if run is a:
                best_a = min(best_a, took)
            else:
                best_b = min(best_b, took)
    return best_a, best_b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=4, help="greedy games per board whose late states are timed")
    parser.add_argument("--rounds", type=int, default=8, help="ABBA rounds (each variant's minimum is kept)")
    parser.add_argument("--boards", type=int, default=100, help="boards drawn per touch rule")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    jit.kernels(10**6)  # load the compiled kernel before any clock (as a worker has it)
    print(f"load before (uptime): {load()}")
    rows, ordered = [], []
    for config in CONFIGS:
        games = late_games(config, args.games, args.seed)
        states = [s for _, late in games for s in late]
        shipped, sweeping = partial(per_call, states, False), partial(per_call, states, True)
        listed, swept = abba(shipped, sweeping, args.rounds)
        remembering, forgetting = abba(shipped, partial(per_call, states, False, False), args.rounds)
        compiled, grounded = abba(shipped, partial(per_call, states, False, True, False), args.rounds)
        one, other = abba(shipped, partial(per_call, states, False), args.rounds)
        rows.append([config.label(), str(len(states)), duration(remembering), duration(forgetting),
                     f"{remembering / forgetting:.2f}", duration(grounded), f"{grounded / compiled:.1f}x", duration(swept),
                     f"{swept / listed:.1f}x", f"{other / one:.2f}"])  # fmt: skip
        reusing, fresh = abba(partial(in_game, games, True), partial(in_game, games, False), args.rounds)
        one, other = abba(partial(in_game, games, True), partial(in_game, games, True), args.rounds)
        ordered.append(
            [
                config.label(), f"{len(states)} ({len(games)} games)", duration(reusing), duration(fresh),
                f"{fresh / reusing:.1f}x", f"{other / one:.2f}",
            ]
        )
    head = ["board", "states", "per call", "reuse=False", "per call / reuse=False", "grounded in Python", "grounded / per call",
            "sweeping every state", "sweeping / per call", "A/A ratio"]  # fmt: skip
    print(markdown_table(head, rows, align="lrrrrrrrrr"))
    print()
    print("In game order:")
    print(
        markdown_table(
            ["board", "states", "per call, reuse", "per call, no reuse", "no reuse / reuse", "A/A ratio"], ordered, align="lrrrrr"
        )
    )
    print()
    rows = []
    for touch in ("diagonal", "none"):
        config = GameConfig(10, (5, 4, 3, 3, 2), Rules(touch=touch))
        layout_for(config, args.seed, 0)  # the empty board's model, compiled once per process
        start = time.perf_counter()
        for game in range(1, args.boards + 1):
            layout_for(config, args.seed, game)
        rows.append([config.label(), str(args.boards), duration((time.perf_counter() - start) / args.boards)])
    print(markdown_table(["board", "boards", "per board (after the first)"], rows, align="lrr"))
    print(f"load after (uptime): {load()}")


def load() -> str:
    """``uptime``'s load averages (1, 5 and 15 minutes)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
