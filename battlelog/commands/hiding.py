"""``--hider`` and ``--adversary-games``: who lays out the fleet, named the same way by every command that draws boards."""

from __future__ import annotations

import argparse

from battlelog.commands.boards import whole
from battlelog.rules.config import GameConfig
from battlelog.rules.hiders import PRESETS, AdversarialSpec, Hider, parse_hider

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

    found, line = adversarial_hider(hider, config, seed, args.adversary_games)
    print(line, flush=True)
    return found
