"""Arguments that several subcommands share, parsed the same way everywhere."""

from __future__ import annotations

import argparse

from battlelog.errors import BattlelogError
from battlelog.game import GameConfig, parse_ships
from battlelog.state import GameState


def add_board_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """``--size`` and ``--ships``."""
    parser.add_argument("--size", type=int, required=required, help="board size N (an N x N board)")
    parser.add_argument("--ships", required=required, help="fleet as comma-separated ship lengths, e.g. 5,4,3,3,2")


def config_from(args: argparse.Namespace) -> GameConfig:
    """The GameConfig named by ``--size`` and ``--ships`` (validated: a fleet must fit)."""
    return GameConfig(args.size, parse_ships(args.ships))


def add_state_arguments(parser: argparse.ArgumentParser) -> None:
    """A game-state file, or ``--size``/``--ships`` for the empty board."""
    parser.add_argument("state", nargs="?", help="game-state JSON file (the spec's format)")
    add_board_arguments(parser, required=False)


def state_from(args: argparse.Namespace) -> GameState:
    """The state named on the command line: exactly one of a file or --size with --ships."""
    board = args.size is not None or args.ships is not None
    if args.state is not None and board:
        raise BattlelogError("give either a game-state file or --size and --ships, not both")
    if args.state is not None:
        return GameState.load(args.state)
    if args.size is None or args.ships is None:
        raise BattlelogError("give a game-state file, or both --size and --ships for the empty board")
    return GameState.empty(config_from(args))
