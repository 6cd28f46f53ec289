"""Arguments that several subcommands share, parsed the same way everywhere."""

from __future__ import annotations

import argparse

from battlelog.game import GameConfig, parse_ships


def add_board_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """``--size`` and ``--ships``."""
    parser.add_argument("--size", type=int, required=required, help="board size N (an N x N board)")
    parser.add_argument("--ships", required=required, help="fleet as comma-separated ship lengths, e.g. 5,4,3,3,2")


def config_from(args: argparse.Namespace) -> GameConfig:
    """The GameConfig named by ``--size`` and ``--ships`` (validated: a fleet must fit)."""
    return GameConfig(args.size, parse_ships(args.ships))
