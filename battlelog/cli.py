"""The ``battlelog`` command: one subcommand per module in :mod:`battlelog.commands`.

``main(argv)`` can be called from tests. Errors a user can cause (:class:`BattlelogError`) are
printed as one line and exit with status 2; they never show a traceback. So is standard output that
cannot be written (a full disk); a closed pipe (``| head``) stops quietly with status 141, as Unix tools do.

Only the module of the command being run is imported (each module has ``add_arguments(parser)``
and ``run(args) -> int``, and its docstring is the command's ``--help``), so one command's heavy
libraries never slow down another command or ``battlelog --help``.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import Any

from battlelog import __version__
from battlelog.engines import progress
from battlelog.errors import BattlelogError
from battlelog.views.progress_bar import DelayedBar

#: Subcommands in the order ``--help`` lists them, each with its one-line summary.
COMMANDS = {
    "play": "play one game and show it, or shoot yourself with --human",
    "advise": "advise on a real game in progress: where to shoot next, from your answers",
    "replay": "write a replay of a game (heat map after every shot) as an animated GIF and an HTML page",
    "experiment": "play many games with several players and summarise the scores",
    "summarize": "summarise the results of an experiment",
    "duel": "race two players in alternating duels on paired boards, each told the other's progress",
    "script": "print the ProbLog program of a game state",
    "marginals": "show the chance that a ship covers each cell of a game state",
    "compile": "write a state's compiled model as an SDD file that pysdd reads",
    "reproduce": "reproduce the paper's results table, with confidence intervals and plots",
    "optimal": "the exact optimal expected score of a small instance, beside each player's exact expectation",
    "bounds": "lower bounds on the optimal expected score of an instance: coverage and transcript counting",
    "value": "the value of the hiding and seeking game on a small board (hider against seeker), with a certificate",
    "adversary": "each seeker's exact expected shots against the uniform hider and the hiders who hide against each seeker",
    "serve": "serve battlelog in the browser: advice, a game against the computer, experiments to look at",
    "ask": "the exact answer distribution and expected information gain of a question about the hidden layout",
    "captain": "play the BattleshipQA captain game: exact captains that shoot or ask a noisy spotter yes/no questions",
    "bimaru": "solve and count a Bimaru puzzle (row and column tallies) exactly: solution, uniqueness, shares",
    "learn": "fit a hider's prior (edge, vertical, touch) to layouts by maximum likelihood, with standard errors",
}

#: Shown under every ``--help``: where the rules and the file formats are written down.
DOCS = (
    "rules and evidence: docs/rules.md; game-state, marginals and game-record files: docs/formats.md"
    " (in the battlelog repository)"
)


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv``: the top level takes no option with a value, so the first word."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; only ``command``'s module is imported and given its full arguments."""
    parser = argparse.ArgumentParser(
        prog="battlelog",
        description="Battleship by exact Bayesian inference over a relational ProbLog model.",
        epilog=DOCS,
    )
    parser.add_argument("--version", action="version", version=f"battlelog {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, summary in COMMANDS.items():
        if name != command:
            sub.add_parser(name, help=summary)
            continue
        module = import_module(f"battlelog.commands.{name}")
        full = sub.add_parser(
            name, help=summary, description=module.__doc__, epilog=DOCS, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        module.add_arguments(full)
        full.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (argparse's own exits, ``--help`` and usage errors, raise SystemExit)."""
    if sys.stdout is None:  # started with standard output closed (`>&-`): the interpreter has none to print to
        print("battlelog: error: standard output is closed: give it a file (> FILE, or > /dev/null)", file=sys.stderr)
        return 2
    stdout = _watch_stdout()
    try:
        try:
            status = _run(list(sys.argv[1:] if argv is None else argv))
        finally:
            sys.stdout.flush()  # what was printed reaches its reader here, or fails here: never silently at exit
    except (OSError, SystemExit):
        if stdout is None or stdout.failed is None:
            raise  # not standard output's: an OSError is a bug, shown whole; a SystemExit is argparse's
    if stdout is not None and stdout.failed is not None:  # also when the error was swallowed (argparse's --help)
        return _stdout_failed(stdout.failed)
    return status


def _run(argv: list[str]) -> int:
    """Parse ``argv`` and run its command; a user's error is one line on stderr and status 2."""
    args = build_parser(_command_in(argv)).parse_args(argv)
    bar = DelayedBar()
    try:
        with progress.listening(bar):  # an engine call of this process that takes a while shows a bar
            return int(args.run(args) or 0)
    except BattlelogError as exc:
        print(f"battlelog: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("battlelog: interrupted", file=sys.stderr)
        return 130
    finally:
        bar.close()


class _WatchedStdout(io.FileIO):
    """Standard output's descriptor, remembering its first failure: a caller may swallow the error
    (argparse does, printing ``--help``), and a full disk must not then pass for success."""

    failed: OSError | None = None

    def write(self, data: Any) -> int:  # Any: typeshed's ReadableBuffer is private
        try:
            return super().write(data)
        except OSError as exc:
            self.failed = self.failed or exc
            raise


def _watch_stdout() -> _WatchedStdout | None:
    """Make ``sys.stdout`` write through a :class:`_WatchedStdout` (not when a test captures it)."""
    old = sys.stdout
    raw = getattr(getattr(old, "buffer", None), "raw", None)
    if isinstance(raw, _WatchedStdout):  # main() run again in the same process
        return raw
    if old is not sys.__stdout__ or not isinstance(old, io.TextIOWrapper):
        return None
    old.flush()
    raw = _WatchedStdout(old.fileno(), "w", closefd=False)
    unbuffered = not hasattr(old.buffer, "raw")  # PYTHONUNBUFFERED or -u: the text layer writes to the descriptor itself
    sys.stdout = io.TextIOWrapper(
        raw if unbuffered else io.BufferedWriter(raw),
        encoding=old.encoding,
        errors=old.errors,
        line_buffering=old.line_buffering,
        write_through=old.write_through,
    )
    return raw


def _stdout_failed(exc: OSError) -> int:
    """Report standard output's failure: a closed pipe quietly with 141 (as Unix tools do), anything else in one line."""
    _discard_stdout()
    if isinstance(exc, BrokenPipeError):  # the reader went away (e.g. `battlelog script ... | head`)
        return 141
    print(
        f"battlelog: error: cannot write standard output ({exc.strerror or exc}); what was not written is lost", file=sys.stderr
    )
    return 2


def _discard_stdout() -> None:
    """Send what is still buffered for standard output to /dev/null, so that the interpreter's flush at
    exit neither fails again nor prints "Exception ignored" (a test's captured stdout has no descriptor)."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
