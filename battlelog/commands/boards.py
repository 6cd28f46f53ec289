"""Arguments that name a board, a game state, a seed, an engine or a path to write, parsed the same way everywhere.

Only light modules are imported here: the commands that must start fast (``script``, ``marginals``)
build their parsers from these.
"""

from __future__ import annotations

import argparse
import secrets
from pathlib import Path

from battlelog.digits import real_number, whole_number
from battlelog.engines import DEFAULT_ENGINE, ENGINES
from battlelog.errors import BattlelogError
from battlelog.rules.config import GameConfig, parse_ships
from battlelog.rules.hiders import parse_prior_spec
from battlelog.rules.prior import FEATURES, Prior
from battlelog.rules.state import GameState
from battlelog.rules.variants import ALLOWED, NAMED, SINK_RULES, TOUCH_RULES, Rules, parse_salvo
from battlelog.wording import NUMBER_LIMIT, clip, number_text


def whole(text: str) -> int:
    """argparse's type of a whole-number option: ASCII digits only (:mod:`battlelog.digits`: ``--size ٣``
    is refused, not read as 3), a bad value echoed in a few characters."""
    value = whole_number(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"{clip(text, NUMBER_LIMIT)!r} is not a whole number (digits 0-9)")
    return value


def real(text: str) -> float:
    """argparse's type of a real-number option: finite, ASCII digits only, a bad value echoed short."""
    value = real_number(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"{clip(text, NUMBER_LIMIT)!r} is not a finite number (digits 0-9)")
    return value


def add_board_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """``--size`` (or ``--rows`` and ``--cols``) and ``--ships``, and the rules: ``--touch``, ``--sinks`` and ``--salvo``.

    The board is checked by :func:`board_from` rather than by argparse, so that giving it wrongly is one line."""
    parser.add_argument("--size", type=whole, help="board size N (an N x N board); or --rows and --cols")
    parser.add_argument("--rows", type=whole, help="rows R of an R x C board, lettered A.. (with --cols, instead of --size)")
    parser.add_argument("--cols", type=whole, help="columns C of an R x C board (with --rows, instead of --size)")
    parser.add_argument("--ships", required=required, help="fleet as comma-separated ship lengths, e.g. 5,4,3,3,2")
    add_rules_arguments(parser)


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """``--touch``, ``--sinks`` and ``--salvo`` (default None: not given, so the standard rules or a state file's).

    The names are checked by :class:`Rules` rather than by argparse, so an unknown one is a one-line error."""
    parser.add_argument(
        "--touch",
        metavar="{" + ",".join(TOUCH_RULES) + "}",
        help=f"how ships may touch: {ALLOWED} (default), diagonal (only at a corner) or none (no contact at all)",
    )
    parser.add_argument(
        "--sinks",
        metavar="{" + ",".join(SINK_RULES) + "}",
        help=f"how sinks are announced: {NAMED} (default: sunk ship i), unnamed (sunk, not which) or silent (only hit)",
    )
    parser.add_argument(
        "--salvo",
        metavar="K|ships",
        help="a turn is a volley of K shots chosen before any answer, or one per ship afloat (ships); "
        "the score counts volleys (default 1: one shot a turn)",
    )


def add_prior_argument(parser: argparse.ArgumentParser) -> None:
    """``--prior`` (default None: not given, so the uniform prior or a state file's), checked by :func:`prior_from`."""
    parser.add_argument(
        "--prior",
        metavar="PRIOR",
        help=f"weigh each layout exp(theta . f) over the features {', '.join(FEATURES)} (ship cells on the outer ring, "
        "vertical ships, side pairs of cells of two different ships), e.g. edge=0.8,touch=-1, or a preset such as edge-hugger, "
        "or a prior file (default: uniform; docs/rules.md, docs/priors.md)",
    )


def prior_from(args: argparse.Namespace) -> Prior | None:
    """The prior ``--prior`` names, or None where it is not given (or the command takes none)."""
    text = getattr(args, "prior", None)
    return None if text is None else parse_prior_spec(text, "--prior")


def rules_from(args: argparse.Namespace) -> Rules:
    """The rules named by ``--touch``, ``--sinks`` and ``--salvo`` (the standard ones where not given)."""
    return Rules(args.touch or ALLOWED, args.sinks or NAMED, 1 if args.salvo is None else parse_salvo(args.salvo))


def board_from(args: argparse.Namespace) -> tuple[int, int] | None:
    """``(rows, cols)`` named by ``--size N`` or by ``--rows R --cols C``, None when neither is given;
    giving both forms, or only one of --rows and --cols, is a one-line error."""
    size, rows, cols = args.size, args.rows, args.cols
    if size is not None and (rows is not None or cols is not None):
        raise BattlelogError("give --size N for a square board or --rows R --cols C, not both")
    if (rows is None) != (cols is None):
        given, missing = ("--rows", "--cols") if cols is None else ("--cols", "--rows")
        raise BattlelogError(f"{given} needs {missing} too (or give --size N for a square board)")
    if size is not None:
        return size, size
    return None if rows is None else (rows, cols)


def config_from(args: argparse.Namespace) -> GameConfig:
    """The GameConfig named by ``--size`` (or ``--rows``/``--cols``), ``--ships``, ``--touch``, ``--sinks``
    and, where the command takes it, ``--prior`` (validated: a fleet must fit, a prior must not overflow)."""
    board = board_from(args)
    if board is None:
        raise BattlelogError("give the board: --size N, or --rows R and --cols C")
    prior = prior_from(args)
    config = GameConfig(board[0], parse_ships(args.ships), rules_from(args), cols=board[1])
    return config if prior is None else config.with_prior(prior)


def check_rules(state: GameState, args: argparse.Namespace, source: str) -> None:
    """A game from ``source`` under the rules ``--touch``/``--sinks``/``--salvo`` (and the prior ``--prior``)
    name where given: other rules, or another prior, are a one-line error."""
    named = rules_from(args)  # an unknown rule name is refused as such, whatever the file says
    prior = prior_from(args)
    if prior is not None and prior != state.config.prior:
        kept = f"prior {state.config.prior.text()}" if not state.config.prior.is_uniform else "the uniform prior"
        raise BattlelogError(f"{source} holds a game with {kept}, not --prior {clip(args.prior)}")
    rules = state.config.rules
    salvo = None if args.salvo is None else named.salvo
    for option, given, held in (
        ("--touch", args.touch, rules.touch),
        ("--sinks", args.sinks, rules.sinks),
        ("--salvo", salvo, rules.salvo),
    ):
        if given is not None and given != held:
            raise BattlelogError(f"{source} holds a game with {option[2:]} {held}, not {option} {given}")


def add_state_arguments(parser: argparse.ArgumentParser) -> None:
    """A game-state file, or ``--size`` (or ``--rows``/``--cols``) and ``--ships`` for the empty board;
    the rules' options and ``--prior`` with either."""
    parser.add_argument("state", nargs="?", help="game-state JSON file (format: docs/formats.md)")
    add_board_arguments(parser, required=False)
    add_prior_argument(parser)


def state_from(args: argparse.Namespace) -> GameState:
    """The state named on the command line: exactly one of a file or --size with --ships."""
    board = board_from(args) is not None or args.ships is not None
    if args.state is not None and board:
        raise BattlelogError("give either a game-state file or --size and --ships, not both")
    if args.state is not None:
        state = GameState.load(args.state)
        check_rules(state, args, args.state)
        return state
    if board_from(args) is None or args.ships is None:
        raise BattlelogError(
            "give a game-state file, or both --size and --ships for the empty board "
            "(--rows and --cols instead of --size for a rectangle)"
        )
    return GameState.empty(config_from(args))


def add_engine_argument(
    parser: argparse.ArgumentParser,
    default: str | None = None,
    what: str = "of every player that takes one and does not name its own",
) -> None:
    """``--engine``: an inference engine, one of the registry's names."""
    parser.add_argument(
        "--engine",
        choices=sorted(ENGINES),
        default=default,
        help=f"inference engine {what} (default: {DEFAULT_ENGINE}); all engines give the same marginals",
    )


def add_seed_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--seed``, checked by :func:`seed_from`; without it a fresh seed is drawn (and shown)."""
    parser.add_argument("--seed", type=whole, help=f"seed of {what} (default: a fresh one, shown so the game can be replayed)")


def seed_from(args: argparse.Namespace) -> int:
    """The seed given, or a fresh one; a negative seed is a one-line error before anything runs."""
    if args.seed is None:
        return secrets.randbelow(2**32)
    if args.seed < 0:
        raise BattlelogError(f"--seed {number_text(args.seed)}: the seed must be a non-negative whole number")
    return int(args.seed)


def output_path(text: str, option: str) -> Path:
    """``text`` as a path a command writes to, refusing an empty or blank one: ``Path("")`` is the current
    directory, so ``--out ""`` would scatter an experiment's files wherever the command happens to run."""
    if not text.strip():
        raise BattlelogError(f"{option} is empty: give the name of the file or folder to write")
    return Path(text)
