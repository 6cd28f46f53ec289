"""The ``battlelog`` command: one subcommand per module in :mod:`battlelog.commands`.

``main(argv)`` can be called from tests. Errors a user can cause (:class:`BattlelogError`) are
printed as one line and exit with status 2; they never show a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import import_module

from battlelog import __version__
from battlelog.errors import BattlelogError

#: Subcommand modules; each has ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.
COMMANDS = ("play", "experiment", "summarize", "script", "marginals", "compile", "reproduce")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="battlelog",
        description="Battleship by exact Bayesian inference over a relational ProbLog model.",
    )
    parser.add_argument("--version", action="version", version=f"battlelog {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = import_module(f"battlelog.commands.{name}")
        command = sub.add_parser(
            name, help=module.HELP, description=module.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except BattlelogError as exc:
        print(f"battlelog: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("battlelog: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `battlelog script ... | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
