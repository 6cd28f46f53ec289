"""The value of the hiding and seeking game on a small board: the minimax of expected shots.

The hider chooses a distribution over the layouts, the seeker a mixture of policies, the seeker pays the
shots it fires. The value is found by a double oracle: the matrix game between the policies and hider
strategies found so far is solved exactly, then the seeker's best response (the optimum under the hider's
distribution as a prior) and the hider's (the layout the seeker's mixture finds latest) are added until
neither gains. It is printed as an exact fraction beside the uniform optimum (what the seeker achieves
when the hider lays out the fleet uniformly): the value is at least that, and more when some layouts are
harder to find. --json prints a certificate anyone can check: the hider's distribution (layouts as game
records write them), and the seeker's mixture of complete policy trees (docs/duel.md). Progress goes to
stderr. Single shots, under the touch and sink rules given; boards of at most 16 cells.

examples:
  battlelog value --size 3 --ships 2
  battlelog value --size 4 --ships 3,2 --json > 4x4-3,2.json
  battlelog value --size 4 --ships 2,2 --touch none
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from battlelog.commands.boards import add_board_arguments, config_from
from battlelog.commands.common import parse_memory
from battlelog.errors import BattlelogError

#: Boards past this many cells are refused: each best response is an exact search, and the loop needs many.
MAX_CELLS = 16


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_board_arguments(parser)
    parser.add_argument(
        "--json", action="store_true", help="print the certificate as JSON: value, hider's distribution, seeker's policy trees"
    )
    parser.add_argument(
        "--memory", default="1G", metavar="SIZE", help="memory for each best response's table of solved states (default: 1G)"
    )


def run(args: argparse.Namespace) -> int:
    from battlelog.optimum.value import game_value

    config = config_from(args)
    if config.rules.is_salvo:
        raise BattlelogError(f"value solves games of one shot a turn, not {config.rules.text()}")
    if config.cell_count > MAX_CELLS:
        raise BattlelogError(
            f"{config.label()}: boards of more than {MAX_CELLS} cells are refused (the double oracle solves many exact searches)"
        )
    memory = parse_memory(args.memory) or 1 << 30
    start = time.perf_counter()
    result = game_value(config, progress=lambda line: print(line, file=sys.stderr, flush=True), memory=memory)
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps(result.certificate()))
        return 0
    gain = result.value - result.uniform_optimum
    print(f"{config.label()}: {len(result.layouts):,} layouts; the value of the game is {float(result.value):.4f} shots "
          f"({result.value} exactly), the uniform optimum {float(result.uniform_optimum):.4f} ({result.uniform_optimum}): "
          f"the hider gains {float(gain):.4f}")  # fmt: skip
    if not result.proven:
        print("note: the hider's distribution was too fine for the exact search's int64 totals: its last best response was "
              "found under weights rounded to 2**-40 or so; the value above is proven an upper bound (the seeker's mixture), "
              "and no policy found beats the hider")  # fmt: skip
    print(f"hider: {len(result.hider)} layouts of positive probability; seeker: {len(result.seeker)} policies (images included)")
    parts = ", ".join(f"{name} {value:.1f} s" for name, value in result.seconds.items())
    print(f"{result.iterations} iterations in {seconds:.1f} s (best responses and matrix games: {parts})")
    return 0
