"""Lower bounds on the optimum of an instance: no policy averages fewer shots.

coverage: the fleet's cells (every ship cell must be shot). transcripts, identification: the
transcript-counting argument as usually published (K(t) finished answer transcripts of t shots tell
at most K(t) layouts apart), proven only where no two layouts share their ship cells. transcripts,
unions: the same with the layouts sharing each union of ship cells counted (a finished transcript
fixes the union, not the layout): proven on every instance, computed where the layouts can be listed
(boards up to 8x8, at most 2 million layouts). The proofs are in docs/optimum.md ("Lower bounds").
Single shots, uniform layouts, under the touch and sink rules given.

examples:
  battlelog bounds --size 10 --ships 5,4,3,3,2
  battlelog bounds --size 4 --ships 3,2,2 --json
"""

from __future__ import annotations

import argparse
import json

from battlelog.commands.boards import add_board_arguments, config_from
from battlelog.errors import BattlelogError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_board_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the bounds as JSON (fractions exactly as strings too)")


def run(args: argparse.Namespace) -> int:
    from battlelog.engines.native.engine import NativeEngine
    from battlelog.optimum.bounds import lower_bounds
    from battlelog.rules.state import GameState

    config = config_from(args)
    if config.rules.is_salvo:
        raise BattlelogError(f"the bounds are on games of single shots, not {config.rules.text()}")
    engine = NativeEngine()
    try:
        layouts = engine.marginals(GameState.empty(config)).models
    finally:
        engine.close()
    if not layouts:
        raise BattlelogError(f"{config.label()}: no layout fits the board")
    bounds = lower_bounds(config, layouts)
    rows = [
        ("coverage", bounds.coverage),
        ("transcripts, identification", bounds.identification),
        ("transcripts, unions", bounds.union),
    ]
    if args.json:
        out = {"board": config.label(), "layouts": layouts, "best": float(bounds.best), "best_exact": str(bounds.best)}
        for name, value in rows:
            key = name.replace("transcripts, ", "transcripts_")
            out[key] = None if value is None else float(value)
            out[key + "_exact"] = None if value is None else str(value)
        print(json.dumps(out, indent=2))
        return 0
    print(f"{config.label()}: {layouts:,} layouts; lower bounds on the expected shots of any policy")
    for name, value in rows:
        shown = "not computed (too many layouts to list)" if value is None else f"{float(value):.4f}"
        print(f"  {name:<28} {shown}")
    print(f"  {'best proven':<28} {float(bounds.best):.4f}")
    return 0
