"""Learn a hider's prior from layouts: the maximum-likelihood weights (edge, vertical, touch) and their standard errors.

FILE... are JSON lines, each holding a "layout" in the game-record format (docs/formats.md): an
experiment's games.jsonl (or .jsonl.gz) works as it is, each game counted once however many players met
it. The board, fleet and touch rule are given as for an experiment and every layout must be one of
theirs. The fit is exact: the gradient is the layouts' mean features minus the prior's expected ones,
computed exactly on the empty board by the engine, and damped Newton steps climb to the maximum; the
standard errors come from the Fisher information (n times the features' covariance). A feature no layout
can differ in (touch when ships never meet along a side) stays 0, and so does one whose layouts all lie
at the end of its range (no finite maximum); both are said.

--partial learns from what the shooter saw instead of the layouts: each game's shots and answers (EM over
the hidden part, with the exact posterior of each game's final state as the E-step); games without shots
(failed ones) are skipped.

The prior printed can be given back as --hider, or as a player's belief. See docs/priors.md.

examples:
  battlelog learn results/hugger/games.jsonl --size 6 --ships 3,2,2
  battlelog learn results/hugger/games.jsonl --size 6 --ships 3,2,2 --json > prior.json
  battlelog learn results/hugger/games.jsonl --size 10 --ships 5,4,3,3,2 --features edge,vertical
  battlelog experiment --size 6 --ships 3,2,2 --players 'problog[belief=prior.json]' --games 100 --out results/told
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from battlelog.commands.boards import add_board_arguments, config_from
from battlelog.engines.fit import Fit, fit_partial, fit_prior, weighted_engine
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError
from battlelog.rules.prior import FEATURES, layout_features, parse_features
from battlelog.runner.layout_files import read_layouts
from battlelog.wording import count_noun


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="JSON-lines files of game records (a layout per line)")
    add_board_arguments(parser)
    parser.add_argument(
        "--partial", action="store_true", help="learn from each game's shots and answers only (EM), not its layout"
    )
    parser.add_argument("--json", action="store_true", help='print {"prior": ..., "stderr": ..., "layouts": n, "loglik": ...}')
    parser.add_argument(
        "--features", default="all", metavar="LIST",
        help="the weights to fit, e.g. edge,vertical (default: all); the others stay 0. Leaving touch out spares "
        "the engine counting touching pairs: far faster on large boards",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    config = config_from(args)
    learnt = parse_features(args.features)
    observed, repeats = read_layouts(args.files, config)
    workspace = Workspace()
    try:
        engine = weighted_engine(workspace)
        if args.partial:
            states = [o.state for o in observed if o.state is not None]
            if not states:
                raise BattlelogError(f"--partial learns from shots, and no game in {', '.join(args.files)} has any")
            repeats += len(observed) - len(states)
            fit = fit_partial(engine, config, states, learnt=learnt)
        else:
            totals = np.sum([layout_features(o.layout, config.rows, config.cols) for o in observed], axis=0)
            fit = fit_prior(engine, config, totals, len(observed), learnt=learnt)
    finally:
        workspace.close()
    if args.json:
        print(json.dumps(fit.to_json()))
        return 0
    print(_text(fit, config.label(), repeats, args.partial))
    return 0


def _text(fit: Fit, board: str, repeats: int, partial: bool) -> str:
    """The fit for people: one line per weight with its standard error, then the prior as --hider takes it."""
    seen = "games seen through their shots" if partial else "layouts"
    skipped = f" ({count_noun(repeats, 'record')} skipped: repeats of a game, or without shots)" if repeats else ""
    lines = [f"{board}: the prior fitted to {fit.layouts} {seen}{skipped}"]
    for name, value in zip(FEATURES, fit.prior.theta):
        error = fit.stderr.get(name)
        note = f"  +- {error:.4f}" if error is not None else f"  ({fit.fixed.get(name, 'left at 0')})"
        lines.append(f"  {name:<9}{value:+.4f}{note}")
    lines.append(f"log-likelihood {fit.loglik:.4f}")
    lines.append(f"as --hider or belief=: {fit.prior.text() or 'uniform'}")
    return "\n".join(lines)
