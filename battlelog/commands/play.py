"""Play one game with one player on a random uniform layout and show it shot by shot.

example:
  battlelog play --size 6 --ships 4,3,3 --player pdf --seed 3
  battlelog play --size 5 --ships 3,3,2 --player problog --quiet
"""

from __future__ import annotations

import argparse

from battlelog.commands.common import add_board_arguments, add_engine_argument, config_from
from battlelog.display import board_text
from battlelog.game import cell_name
from battlelog.harness import game_seeds, layout_for, play_game
from battlelog.players import PLAYERS, make_player
from battlelog.state import GameState

HELP = "play one game and show it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_board_arguments(parser)
    parser.add_argument("--player", default="pdf", choices=sorted(PLAYERS), help="who shoots (default: pdf)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the layout and of the player's random choices")
    add_engine_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="show only the final board and the score")


def run(args: argparse.Namespace) -> int:
    config = config_from(args)
    options = {"engine": args.engine} if args.engine else {}
    layout = layout_for(config, args.seed, 0)
    player = make_player(args.player, game_seeds(args.seed, 0)[1], **options)

    def show(state: GameState) -> None:
        shot = state.shots[-1]
        answer = shot.result + (f" ship {shot.ship} (length {config.ships[shot.ship]})" if shot.ship is not None else "")
        print(f"shot {len(state.shots)}: {cell_name(shot.cell)} -> {answer}")
        print(board_text(state, layout), end="\n\n")

    try:
        result = play_game(config, layout, player, on_shot=None if args.quiet else show)
    finally:
        player.close()
    if args.quiet:
        print(board_text(result.state, layout))
    print(
        f"{args.player} sank {config.label()} in {result.score} shots "
        f"(best possible {config.ship_cells}; {1000 * result.seconds / result.score:.1f} ms per move)"
    )
    return 0
