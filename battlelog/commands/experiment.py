"""Play many games with several players on the same boards, and summarise their scores.

Every player plays the same boards: game i's layout depends only on --seed and i. Games run in
long-lived worker processes (one per core by default), or on a dask cluster with --executor dask
(the same games, record for record), each game under --memory-limit and --time-limit; a game that
runs out of either (or raises an error) is recorded as failed with the reason, and the experiment
goes on. Each game is appended to OUT/games.jsonl as soon as it ends, by this command alone, so an
interrupted run loses nothing: run the same command again to resume it, or with a larger --games or
more players to extend it on the same boards. Failed games stay failed until you replay them with
`battlelog summarize OUT --retry-failed` (under new limits if you like).

Players are registered names or, for your own players, module:Class (a Player subclass importable
from the workers, e.g. through PYTHONPATH), each with options if you like: mc[samples=200] or
lookahead[width=3,engine=sdd]. Each player with its options is a configuration of its own, recorded
and summarised as its own row (problog[engine=native] is problog: defaults are left out of the name).
--engine is the engine of every player that takes one and does not name its own. --touch and --sinks
set the rules (recorded in OUT/experiment.json; a resumed run must give the same ones). --hider draws the
boards from a prior instead of uniformly (a preset such as edge-hugger, a prior such as edge=1.5,touch=-2,
or a prior file; recorded when not uniform, and a resumed run must give the same one); the posterior
players' belief option (problog[belief=hider], problog[belief=learn], problog[belief=edge=1]) says what
they believe of it. See docs/priors.md.

example:
  battlelog experiment --size 5 --ships 3,3,2 --players random,hunt-target,pdf --games 1000 --seed 7 --out results/
  battlelog experiment --size 5 --ships 3,3,2 --players 'pdf,mc[samples=200],mc[samples=2000]' --games 200
  battlelog experiment --size 6 --ships 3,2,2 --touch none --sinks unnamed --players random,problog --games 100 \\
      --out results/no-contact
  battlelog experiment --size 5 --ships 3,3,2 --players problog --engine problog --games 100 --seed 7 \\
      --out results/ --time-limit 120
  battlelog experiment --size 6 --ships 3,2,2 --hider edge-hugger --players 'problog,problog[belief=hider]' \\
      --games 200 --out results/hugger
  battlelog experiment --size 7 --ships 5,5,4 --players pdf,problog --games 10000 --out results/7x7 \\
      --executor dask --scheduler tcp://10.0.0.5:8786
  battlelog summarize results/
"""

from __future__ import annotations

import argparse
import sys

from battlelog.commands.boards import output_path, whole
from battlelog.commands.common import (
    add_board_arguments,
    add_engine_argument,
    add_executor_arguments,
    add_hider_arguments,
    add_limit_arguments,
    config_from,
    executor_from,
    hider_from,
)
from battlelog.players import PLAYERS
from battlelog.players.spec import parse_players
from battlelog.rules.hiders import spec_text
from battlelog.wording import count_noun


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_board_arguments(parser)
    parser.add_argument(
        "--players",
        metavar="LIST",
        default="random,hunt-target,pdf",
        help=f"comma-separated players, each one of {', '.join(PLAYERS)} or module:Class of your own, with options "
        "as NAME[key=value,...], e.g. mc[samples=200] (default: random,hunt-target,pdf)",
    )
    parser.add_argument("--games", type=whole, metavar="N", default=100, help="games per player, numbered 0.. (default: 100)")
    parser.add_argument(
        "--seed", type=whole, default=0, help="root seed: decides every board and every player's draws (default: 0)"
    )
    add_hider_arguments(parser)
    parser.add_argument(
        "--out", required=True, metavar="DIR", help="output directory for experiment.json, games.jsonl and the summary"
    )
    add_limit_arguments(parser)
    add_executor_arguments(parser)
    add_engine_argument(parser)


def run(args: argparse.Namespace) -> int:
    from battlelog.commands.summarize import recorded_games, show_summary
    from battlelog.runner.experiment import Experiment, run_experiment
    from battlelog.runner.records import GAMES

    out = output_path(args.out, "--out")
    config = config_from(args)
    specs = parse_players(args.players, args.engine)
    players = [spec.label for spec in specs]
    hider = hider_from(args, config, args.seed)
    experiment = Experiment(config, tuple(players), args.games, args.seed, {spec.label: spec.options for spec in specs}, hider)
    executor = executor_from(args)
    start_line = (
        f"{config.label()}{'' if hider.is_uniform else ' hidden by ' + spec_text(hider)} with seed {args.seed}: games "
        f"0..{args.games - 1} for {', '.join(players)} "
        f"on {executor.describe()} -> {out / GAMES}"
    )
    try:
        with executor:  # the line is printed once --out is locked: a run refused as "in use" prints only that
            report = run_experiment(experiment, out, executor, started=lambda: print(start_line, flush=True))
    except KeyboardInterrupt:
        print(
            f"battlelog: interrupted; {count_noun(recorded_games(out), 'game')} recorded in {out / GAMES}, all kept: "
            "run the same command again to resume",
            file=sys.stderr,
        )
        return 130
    print(
        f"played {count_noun(report.played, 'game')} ({report.failed} failed); {count_noun(report.recorded_before, 'game')} "
        "recorded before this run"
    )
    show_summary(out)
    return 0
