"""Arguments that several subcommands share, parsed the same way everywhere.

Imported by every command's module to build its parser, so only light modules at the top: the
executors' registry builds an executor (and imports its libraries) only when a command runs.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import TYPE_CHECKING

from battlelog.commands.boards import add_board_arguments, add_engine_argument, config_from, whole
from battlelog.digits import real_number
from battlelog.errors import BattlelogError
from battlelog.rules.config import GameConfig
from battlelog.rules.hiders import PRESETS, AdversarialSpec, Hider, parse_hider
from battlelog.runner.executors import (
    DEFAULT_EXECUTOR,
    EXECUTORS,
    MAX_MEMORY_LIMIT,
    MAX_TIME_LIMIT,
    Limits,
    available_cores,
    make_executor,
)
from battlelog.wording import NUMBER_LIMIT, clip

if TYPE_CHECKING:
    from battlelog.runner.executors.base import Executor

# The board and engine arguments live in battlelog.commands.boards, which imports only light modules
# (commands that must start fast use it); they are re-exported here for the experiment commands.


__all__ = ["add_board_arguments", "add_engine_argument", "add_executor_arguments", "add_hider_arguments", "add_limit_arguments",
           "config_from", "executor_from", "hider_from", "limits_from", "parse_memory", "parse_seconds"]  # fmt: skip


_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_memory(text: str) -> int | None:
    """``4G``, ``512M``, ``1.5G`` or a number of bytes; ``none`` for no limit."""
    if text.strip().lower() == "none":
        return None
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)B?\s*", text, re.IGNORECASE)
    if not match or float(match[1]) <= 0:
        raise BattlelogError(f"--memory-limit {clip(text, NUMBER_LIMIT)!r} is not a size such as 512M or 4G (or none)")
    size = float(match[1]) * _UNITS[match[2].upper()]  # 400 nines are inf as a float: refused just below
    if size > MAX_MEMORY_LIMIT:
        raise BattlelogError(
            f"--memory-limit {clip(text, NUMBER_LIMIT)!r} is more than {MAX_MEMORY_LIMIT // 2**40}T; give none for no limit"
        )
    return int(size)


def parse_seconds(text: str) -> float | None:
    """A positive number of seconds; ``none`` for no limit."""
    if text.strip().lower() == "none":
        return None
    seconds = real_number(text)
    if seconds is None or not seconds > 0:
        raise BattlelogError(f"--time-limit {clip(text, NUMBER_LIMIT)!r} is not a positive number of seconds (or none)")
    if seconds > MAX_TIME_LIMIT:
        raise BattlelogError(
            f"--time-limit {clip(text, NUMBER_LIMIT)!r} is more than a year ({MAX_TIME_LIMIT:.0f} s); give none for no limit"
        )
    return seconds


#: A parser or an argument group of one: both take add_argument (argparse names their common base privately).
Arguments = argparse._ActionsContainer


def add_limit_arguments(parser: Arguments) -> None:
    """``--workers``, ``--memory-limit`` and ``--time-limit`` of commands that run experiments."""
    parser.add_argument(
        "--workers",
        type=whole,
        metavar="N",
        help="worker processes playing at once, on this machine (default: all cores)",
    )
    parser.add_argument(
        "--memory-limit",
        metavar="SIZE",
        default="4G",
        help="memory limit of each worker, e.g. 512M or 4G, or none: its address space with --executor local, its "
        "resident memory in a local dask cluster; a game that exceeds it fails with reason 'memory'. Half of it "
        "(at most 2G) is the engine's budget in every game, on any executor (default: 4G)",
    )
    parser.add_argument(
        "--time-limit",
        metavar="SECONDS",
        default="600",
        help="seconds one game may take, or none; a slower game fails with reason 'timeout' (default: 600)",
    )


def limits_from(args: argparse.Namespace) -> Limits:
    """The Limits named by the arguments of :func:`add_limit_arguments`."""
    cores = available_cores()
    workers = cores if args.workers is None else args.workers
    if workers > cores:
        print(f"battlelog: warning: {workers} workers on {cores} cores share them: games run slower, and their time limits "
              "count the waiting", file=sys.stderr)  # fmt: skip
    return Limits(workers, parse_memory(args.memory_limit), parse_seconds(args.time_limit))


def add_executor_arguments(parser: Arguments) -> None:
    """``--executor`` and ``--scheduler``: where the games run."""
    parser.add_argument(
        "--executor",
        choices=sorted(EXECUTORS),
        default=DEFAULT_EXECUTOR,
        help="where games run: local (worker processes of this command) or dask (a dask.distributed cluster: the one "
        "at --scheduler, else a local one of --workers processes; needs pip install 'battlelog[dask]') "
        f"(default: {DEFAULT_EXECUTOR})",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --executor dask: the running cluster's scheduler, e.g. tcp://10.0.0.5:8786 (its workers need "
        "battlelog installed; --memory-limit then only sets the engine's budget, the workers keep their own limit)",
    )


def executor_from(args: argparse.Namespace) -> Executor:
    """The executor named by the arguments of :func:`add_executor_arguments` and :func:`add_limit_arguments`."""
    limits = limits_from(args)
    if args.scheduler is None:
        return make_executor(args.executor, limits)
    if args.executor != "dask":
        raise BattlelogError("--scheduler is for --executor dask")
    if args.workers is not None:
        raise BattlelogError("--workers sizes the workers this command starts; the cluster at --scheduler has its own")
    return make_executor(args.executor, limits, scheduler=args.scheduler)


#: Games a fit of an adversarial hider may play by default (here, so that ``--help`` loads no runner).
FIT_GAMES = 2_000


def add_hider_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hider",
        metavar="SPEC",
        default="uniform",
        help=f"the prior the boards are drawn from: uniform, a preset ({', '.join(PRESETS)}), a prior such as "
        "edge=1.5,touch=-2, a prior file, a file of layout weights (JSON lines {\"layout\", \"weight\"}), or "
        "adversarial[against=PLAYER]: the layouts PLAYER needs the most shots on (docs/duel.md) (default: uniform)",
    )
    parser.add_argument(
        "--adversary-games",
        type=whole,
        metavar="N",
        default=FIT_GAMES,
        help="where --hider adversarial cannot play the seeker against every layout exactly, fit a prior within N "
        f"games instead; 0: refuse (default: {FIT_GAMES})",
    )


def hider_from(args: argparse.Namespace, config: GameConfig, seed: int) -> Hider:
    """The hider ``--hider`` names; an adversary is worked out now (from ``seed``), and what it is printed."""
    hider = parse_hider(args.hider, config)
    if not isinstance(hider, AdversarialSpec):
        return hider
    from battlelog.runner.adversary import adversarial_hider

    found, line = adversarial_hider(
        hider, config, seed, args.adversary_games, lambda step: print(step, file=sys.stderr, flush=True)
    )
    print(line, flush=True)
    return found
