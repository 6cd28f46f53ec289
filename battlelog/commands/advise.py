"""Advise on a real game in progress: where to shoot next, from the answers your opponent gives.

Shows the heat map (the exact chance that a ship covers each cell) and suggests the most likely
cell, named as the game names cells (rows A.., columns 1..: C7). Answer with what your opponent
said: miss, hit, or sunk N (N: the index of the sunk ship in --ships, counted from 0; plain
"sunk" is enough when the ships it can have sunk are of one length, as they are alike for the
advice). If you shot another cell, say which: C7 hit.
Other commands: undo, save FILE, load FILE, show, help, quit.

The game is saved after every answer (to --state FILE, or to a new advise-DATE-TIME.json), so
nothing is lost: run `battlelog advise --state FILE` to continue it. An answer that contradicts
the earlier ones is refused with the reason and changes nothing. Commands are read from standard
input, so a session can also be scripted: `battlelog advise --state game.json < answers.txt`.

examples:
  battlelog advise --size 10 --ships 5,4,3,3,2
  battlelog advise --size 10 --ships 5,4,3,3,2 --touch none --sinks unnamed   # answer a plain "sunk"
  battlelog advise --size 10 --ships 5,4,3,3,2 --prior edge=0.5 --engine sdd   # if the hider likes the edges
  battlelog advise --state advise-2025-01-31-2015.json      # continue a saved game
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from battlelog.commands.boards import (
    add_board_arguments,
    add_engine_argument,
    add_prior_argument,
    board_from,
    check_rules,
    config_from,
    output_path,
)
from battlelog.engines import DEFAULT_ENGINE, engine_class
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError
from battlelog.files import check_regular
from battlelog.rules.state import GameState
from battlelog.views.advise import HELP, Advisor
from battlelog.views.console import Quit, ask
from battlelog.views.display import use_color


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_board_arguments(parser, required=False)
    add_prior_argument(parser)
    parser.add_argument(
        "--state",
        metavar="FILE",
        help="the game's file: continued if it exists, else started there (default: a new advise-DATE-TIME.json)",
    )
    add_engine_argument(parser, DEFAULT_ENGINE, what="that computes the heat map")
    parser.add_argument(
        "--no-color", action="store_true", help="no colours (default: colour on a terminal unless NO_COLOR is set)"
    )


def session_state(args: argparse.Namespace) -> tuple[GameState, Path]:
    """The game to advise on and its file: the --state file's game, or a new one on --size/--ships."""
    board = board_from(args) is not None
    if board != (args.ships is not None):
        raise BattlelogError("give both --size and --ships, or neither to continue the game in --state FILE")
    if args.state is not None:
        check_regular(output_path(args.state, "--state"))  # read back and written after every answer: never a device or FIFO
    if args.state is not None and Path(args.state).exists():
        state = GameState.load(args.state)
        if board and state.config != config_from(args):
            raise BattlelogError(f"{args.state} holds a game on {state.config.label()}, not on {config_from(args).label()}")
        check_rules(state, args, args.state)
        return state, Path(args.state)
    if not board:
        missing = f"{args.state} does not exist: " if args.state is not None else ""
        raise BattlelogError(f"{missing}give --size and --ships for a new game, or --state FILE to continue one")
    path = Path(args.state or time.strftime("advise-%Y-%m-%d-%H%M%S.json"))
    if args.state is None and path.exists():
        raise BattlelogError(f"{path} already exists: continue it with --state {path}, or wait a second")
    return GameState.empty(config_from(args)), path


def run(args: argparse.Namespace) -> int:
    state, path = session_state(args)
    engine_class(args.engine).check_board(state.config)  # one line now, not after some answers
    color = use_color(sys.stdout, args.no_color)
    workspace = Workspace()
    try:
        advisor = Advisor.start(state, workspace.engine(args.engine), path)
        print(f"{state.config.label()}: saving the game to {path} after every answer (continue it with --state {path})")
        print(f"{HELP}\n\n{advisor.view(color)}", flush=True)
        while (line := ask("answer> ")) is not None:
            if line.strip():
                print(advisor.handle(line, color), flush=True)
    except Quit:
        pass
    finally:
        workspace.close()
    return 0
