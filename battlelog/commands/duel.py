"""Race two players in alternating duels on paired boards, each told the other's progress (docs/duel.md).

Duels come in pairs on a pair of boards: in duel 2k the first player of --players hunts board 2k of an
experiment with the same --seed and opens, the second hunts board 2k+1; in duel 2k+1 they swap boards and
the second opens (so --duels is even). The players shoot in turn; before each shot a player is told the
opponent's shots at its fleet (only racer uses it: it plays to finish first); the first to sink the fleet
it hunts wins. Each duel is one line of OUT/games.jsonl, written as it ends: run the same command again to
resume, or with a larger --duels to extend the run. Prints the first player's win rate over the pairs with
its paired 95% interval and the one-sided sign test over the pairs against 0.5.

example:
  battlelog duel --players racer,rollout --size 7 --ships 5,5,4 --duels 100 --seed 1 --out results/duel
"""

from __future__ import annotations

import argparse
import json
import sys

from battlelog.commands.boards import add_board_arguments, add_engine_argument, config_from, output_path, whole
from battlelog.errors import BattlelogError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_board_arguments(parser)
    parser.add_argument(
        "--players", required=True, metavar="A,B", help="the two players, e.g. racer,rollout (A opens the even duels)"
    )
    parser.add_argument(
        "--duels", type=whole, metavar="N", default=100, help="duels, numbered 0.., an even number (default: 100)"
    )
    parser.add_argument(
        "--seed", type=whole, default=0, help="root seed: decides every board and every player's draws (default: 0)"
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="output directory for experiment.json and games.jsonl")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    add_engine_argument(parser)


def run(args: argparse.Namespace) -> int:
    from battlelog.players.spec import parse_players
    from battlelog.report.duel_run import duel_summary, summary_lines
    from battlelog.runner.duel import DuelRun, run_duels
    from battlelog.runner.records import GAMES

    out = output_path(args.out, "--out")
    config = config_from(args)
    specs = parse_players(args.players, args.engine)
    if len(specs) != 2:
        raise BattlelogError(f"--players: a duel is between two players, got {len(specs)} ({', '.join(s.label for s in specs)})")
    if args.duels < 2 or args.duels % 2:
        raise BattlelogError(f"--duels must be even and at least 2 (duels come in pairs on a pair of boards), got {args.duels}")
    duel_run = DuelRun(config, (specs[0], specs[1]), args.duels, args.seed)
    labels = duel_run.players
    start = f"{config.label()} with seed {args.seed}: duels 0..{args.duels - 1} of {labels[0]} against {labels[1]}"
    print(f"{start} -> {out / GAMES}", file=sys.stderr if args.json else sys.stdout, flush=True)
    try:
        records = run_duels(duel_run, out)
    except KeyboardInterrupt:
        print("battlelog: interrupted; every finished duel is recorded: run the same command again to resume", file=sys.stderr)
        return 130
    summary = duel_summary(records, labels)
    print(json.dumps(summary) if args.json else "\n".join(summary_lines(summary)))
    return 0
