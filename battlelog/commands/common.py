"""Arguments that several subcommands share, parsed the same way everywhere."""

from __future__ import annotations

import argparse
import re

from battlelog.commands.boards import add_board_arguments, add_engine_argument, config_from
from battlelog.errors import BattlelogError
from battlelog.experiment import Limits
from battlelog.workers import available_cores

# The board and engine arguments live in battlelog.commands.boards, which imports only light modules
# (commands that must start fast use it); they are re-exported here for the experiment commands.
__all__ = ["add_board_arguments", "add_engine_argument", "add_limit_arguments", "config_from", "limits_from",
           "parse_memory", "parse_seconds"]  # fmt: skip


_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_memory(text: str) -> int | None:
    """``4G``, ``512M``, ``1.5G`` or a number of bytes; ``none`` for no limit."""
    if text.strip().lower() == "none":
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)B?\s*", text, re.IGNORECASE)
    if not match or float(match[1]) <= 0:
        raise BattlelogError(f"--memory-limit {text!r} is not a size such as 512M or 4G (or none)")
    return int(float(match[1]) * _UNITS[match[2].upper()])


def parse_seconds(text: str) -> float | None:
    """A positive number of seconds; ``none`` for no limit."""
    if text.strip().lower() == "none":
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds > 0 or seconds == float("inf"):
        raise BattlelogError(f"--time-limit {text!r} is not a positive number of seconds (or none)")
    return seconds


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """``--workers``, ``--memory-limit`` and ``--time-limit`` of commands that run experiments."""
    parser.add_argument(
        "--workers", type=int, metavar="N", default=available_cores(), help="worker processes playing at once (default: all cores)"
    )
    parser.add_argument(
        "--memory-limit",
        metavar="SIZE",
        default="4G",
        help="address-space limit of each worker, e.g. 512M or 4G, or none; a game that exceeds it fails "
        "with reason 'memory' (default: 4G)",
    )
    parser.add_argument(
        "--time-limit",
        metavar="SECONDS",
        default="600",
        help="seconds one game may take, or none; a slower game fails with reason 'timeout' (default: 600)",
    )


def limits_from(args: argparse.Namespace) -> Limits:
    """The Limits named by the arguments of :func:`add_limit_arguments`."""
    return Limits(args.workers, parse_memory(args.memory_limit), parse_seconds(args.time_limit))
