"""Play the BattleshipQA captain-and-spotter game with exact Bayesian captains (docs/captain.md).

Every captain of --captain plays --games games on every --board (a true board file: one line a row
of W or a ship's initial R, G, P, O). The captain knows the ships' lengths as a list, not which colour
has which; a shot shows water or the colour hit; it may fire --shots shots and ask --questions yes/no
questions, which the spotter answers wrongly with chance --noise. Captains: shooter (shoots the most
probable cell under the exact posterior, never asks), asker (asks the bank's question of highest
expected information gain while it exceeds --threshold bits, else shoots as shooter). The bank is the
human programs of the CSV (--human, by default human_question_dataset.csv beside the first board)
read with Blue as Green, and a generated family; --bank FILE gives another (yes/no programs only).

Game g of a board has the same spotter noise for every captain (paired). Each game is one line of
OUT/games.jsonl, written as it ends: run the same command again to resume, or with more games,
captains or boards to extend the run.

example:
  battlelog captain --board data/bsqa/board_B01.txt data/bsqa/board_B02.txt --captain shooter,asker \\
      --shots 40 --questions 15 --noise 0.1 --games 2 --seed 1 --out results/captain
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from battlelog.captain import DEFAULT_THRESHOLD
from battlelog.commands.boards import real, whole
from battlelog.errors import BattlelogError

if TYPE_CHECKING:
    from battlelog.captain.run import Settings

HUMAN_CSV = "human_question_dataset.csv"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--board", nargs="+", required=True, metavar="FILE", help="true board files (W or R, G, P, O a tile)")
    parser.add_argument("--captain", default="shooter,asker", help="captains, comma-separated (default shooter,asker)")
    parser.add_argument("--shots", type=whole, default=40, help="shots a game allows (default 40)")
    parser.add_argument("--questions", type=whole, default=15, help="yes/no questions a game allows (default 15)")
    parser.add_argument("--noise", type=real, default=0.1, help="the chance an answer is wrong, 0 to 0.5 (default 0.1)")
    parser.add_argument("--games", type=whole, default=1, help="games per board and captain (default 1)")
    parser.add_argument("--seed", type=whole, default=0, help="root seed of the spotter's noise and the tie draws")
    parser.add_argument("--out", required=True, metavar="DIR", help="the run's directory (games.jsonl, experiment.json)")
    parser.add_argument(
        "--threshold",
        type=real,
        default=DEFAULT_THRESHOLD,
        help=f"asker: ask when a question's EIG exceeds this (bits, default {DEFAULT_THRESHOLD})",
    )
    parser.add_argument("--bank", metavar="FILE", help="asker: ask from these yes/no programs (one a line, or a CSV with code)")
    parser.add_argument(
        "--human", metavar="CSV", help=f"the human programs of the default bank (default {HUMAN_CSV} beside the first board)"
    )


def settings_from(args: argparse.Namespace) -> Settings:
    from battlelog.captain.run import Settings  # the game's modules load numpy: not for --help

    if not 0 <= args.noise <= 0.5:
        raise BattlelogError(f"--noise must be from 0 to 0.5, got {args.noise:g}")
    if args.shots < 1 or args.games < 1:
        raise BattlelogError("--shots and --games must be at least 1")
    if args.threshold < 0:
        raise BattlelogError(f"--threshold must be at least 0 bits, got {args.threshold:g}")
    if args.bank is not None and args.human is not None:
        raise BattlelogError("--human gives the default bank's programs; --bank replaces the whole bank: give one")
    human = Path(args.human) if args.human is not None else Path(args.board[0]).parent / HUMAN_CSV
    return Settings(
        seed=args.seed, shots=args.shots, questions=args.questions, noise=args.noise, threshold=args.threshold,
        bank=Path(args.bank) if args.bank is not None else None,
        human=human if args.human is not None or human.is_file() else None,
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from battlelog.captain.boards import read_true_board
    from battlelog.captain.captains import captain_names
    from battlelog.captain.run import run_captains
    from battlelog.captain.summary import captain_comparisons, captain_rows, summary_text

    names = captain_names(args.captain)
    settings = settings_from(args)
    boards = [read_true_board(path) for path in args.board]
    records = run_captains(boards, names, args.games, Path(args.out), settings, report=_report)
    print(summary_text(captain_rows(records), captain_comparisons(records)))
    return 0


def _report(record: dict[str, Any]) -> None:
    print(
        f"{record['captain']} {record['board']} game {record['game']}: {record['shots']} shots, {record['hits']} hits, "
        f"{record['questions']} questions, F1 {record['f1']:.3f}{', won' if record['won'] else ''}",
        flush=True,
    )
