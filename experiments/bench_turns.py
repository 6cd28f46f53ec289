"""Turned sweeps against whole ones: the native engine with and without counting a state as two cases by its
longest ship's orientation (battlelog/engines/native/turns.py), on empty boards and along whole games.

For each board: the empty board counted by a fresh engine (kernels loaded first; the best of ``--rounds``), turned
(``NativeEngine()``) and whole (``NativeEngine(turn=False)``); then ``--games`` games of the pdf player (layouts of
seed 11, drawn as experiments draw them), every state asked in order by a fresh engine per game and mode (its own
workspace, so nothing comes from a cache), the empty state included. Every count is checked equal between the two
modes (layouts and per-cell counts); a difference stops the run. Prints a markdown table.

With ``--per-state``, also every state of those games that a fresh engine sweeps (not listed), alone: the best of two
fresh engines per mode, and how many of them turning made faster or slower and by how much (a small sweep pays
its per-level cost twice when turned).

usage:
  python experiments/bench_turns.py
  python experiments/bench_turns.py --boards 10:5,4,3,3,2 15:5,4,3,3,2 --games 2 --rounds 1
  python experiments/bench_turns.py --boards 10:4,3,3,2,2,2,1,1,1,1:none --games 2
  python experiments/bench_turns.py --boards 10:5,4,3,3,2 12:5,4,3,3,2 --games 4 --per-state
  python experiments/bench_turns.py --boards 12x10:5,4,3,3,2 8x12:5,4,3,3,2 --max-skew 4   # why long boards are not turned
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from battlelog.engines.native import ladder, turns
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.workspace import Workspace
from battlelog.players import make_player
from battlelog.rules.config import GameConfig, parse_ships
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import layout_for

BOARDS = ("10:5,4,3,3,2", "10:5,4,3,3,2:none", "12x10:5,4,3,3,2", "12:5,4,3,3,2", "10:4,3,3,2,2,2,1,1,1,1:none", "15:5,4,3,3,2")


def board(text: str) -> GameConfig:
    """``ROWS[xCOLS]:FLEET[:TOUCH]`` as a game configuration."""
    shape, fleet, *touch = text.split(":")
    rows, _, cols = shape.partition("x")
    return GameConfig(int(rows), parse_ships(fleet), Rules(touch=touch[0] if touch else "allowed"), cols=int(cols or rows))


def engine(turn: bool) -> NativeEngine:
    """A fresh engine with a workspace of its own (an empty disk cache: nothing is read from earlier runs)."""
    return NativeEngine(workspace=Workspace(Path(tempfile.mkdtemp(prefix="bench-turns-"))), turn=turn)


def timed(turn: bool, states: list[GameState]) -> tuple[float, list[tuple[int, np.ndarray]]]:
    """Seconds for a fresh engine to answer ``states`` in order, and each answer's layouts and per-cell counts."""
    asker = engine(turn)
    start = time.perf_counter()
    counts = [asker.counts(state) for state in states]
    return time.perf_counter() - start, [(c.models, c.cells) for c in counts]


def same(a: list[tuple[int, np.ndarray]], b: list[tuple[int, np.ndarray]]) -> bool:
    return all(x[0] == y[0] and np.array_equal(x[1], y[1]) for x, y in zip(a, b))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", nargs="+", default=list(BOARDS), help="ROWS[xCOLS]:FLEET[:TOUCH] (default: %(default)s)")
    parser.add_argument("--games", type=int, default=2, help="games of the pdf player per board (default: 2)")
    parser.add_argument("--rounds", type=int, default=2, help="empty-board rounds per mode, the best kept (default: 2)")
    parser.add_argument("--per-state", action="store_true", help="also time every swept state of the games alone")
    parser.add_argument(
        "--max-skew",
        type=int,
        default=turns.MAX_SKEW,
        help=f"turn rectangles whose sides differ by at most this (default: {turns.MAX_SKEW})",
    )
    args = parser.parse_args()
    turns.MAX_SKEW = args.max_skew  # what a longer rectangle would cost turned
    engine(True).counts(GameState.empty(board("6:4,3,2")))  # load the compiled kernels before timing anything
    per_state: list[tuple[str, GameState]] = []
    print("| board | empty board, whole | turned | whole / turned | a game, whole | turned | whole / turned | states |")
    print("|:--|--:|--:|--:|--:|--:|--:|--:|")
    for text in args.boards:
        config = board(text)
        empty = [GameState.empty(config)]
        whole_empty = min(timed(False, empty)[0] for _ in range(args.rounds))
        turned_empty = min(timed(True, empty)[0] for _ in range(args.rounds))
        whole_games = turned_games = 0.0
        states_asked = 0
        for game in range(args.games):
            states = [GameState.empty(config)]
            play_game(config, layout_for(config, 11, game), make_player("pdf", seed=game), on_shot=states.append)
            per_state.extend((config.label(), state) for state in states[1:] if args.per_state)
            whole_time, whole = timed(False, states)
            turned_time, turned = timed(True, states)
            if not same(whole, turned):
                raise SystemExit(f"{config.label()}, game {game}: turned counts differ from whole ones")
            whole_games, turned_games, states_asked = (
                whole_games + whole_time, turned_games + turned_time, states_asked + len(states)
            )
        games = max(1, args.games)
        print(
            f"| {config.label()} | {whole_empty:.2f} s | {turned_empty:.2f} s | {whole_empty / turned_empty:.1f}x "
            f"| {whole_games / games:.2f} s | {turned_games / games:.2f} s | {whole_games / max(turned_games, 1e-9):.1f}x "
            f"| {states_asked} |"
        )

    if per_state:
        states_alone(per_state)


def listed(state: GameState) -> bool:
    """Whether a fresh engine lists ``state``'s layouts (one of the ladder's listing rungs answers it) rather than sweeping."""
    ask = ladder.Ask(engine(True), state, ladder.COUNTS)
    listings = [rung for rung in ladder.LADDER if rung.name.endswith("-listing") and ask.want in rung.wants]
    return any(rung.answer(ask) is not None for rung in listings)


def states_alone(states: list[tuple[str, GameState]]) -> None:
    """Each swept state alone, whole and turned (the best of two fresh engines each): a table per board of how many
    turning made faster and slower, the sums, and the worst loss."""
    print("\n| board | swept states | whole, summed | turned, summed | turned faster on | slower on | worst loss |")
    print("|:--|--:|--:|--:|--:|--:|--:|")
    for label in dict.fromkeys(label for label, _ in states):
        whole_sum = turned_sum = worst = 0.0
        faster = slower = swept = 0
        for _, state in ((lab, st) for lab, st in states if lab == label):
            if listed(state):
                continue  # listed, not swept: turning never applies
            whole = min(timed(False, [state])[0] for _ in range(2))
            turned = min(timed(True, [state])[0] for _ in range(2))
            swept, whole_sum, turned_sum = swept + 1, whole_sum + whole, turned_sum + turned
            faster, slower = faster + (turned < whole), slower + (turned >= whole)
            worst = max(worst, turned - whole)
        print(f"| {label} | {swept} | {whole_sum:.2f} s | {turned_sum:.2f} s | {faster} | {slower} | {worst * 1e3:.1f} ms |")


if __name__ == "__main__":
    main()
