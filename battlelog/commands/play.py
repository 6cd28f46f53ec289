"""Play one game on a random layout (uniform, or drawn by --hider) and show it shot by shot.

A player of the registry shoots (--player, default pdf), or with --human you do: type a cell such as
C7 at each prompt (quit to give up); at the end your score is shown beside the exact player's on the
same board. The layout and the player's random choices come from --seed; without it a fresh seed is
drawn and shown, so any game can be played again.

examples:
  battlelog play --size 6 --ships 4,3,3 --player pdf --seed 3
  battlelog play --size 5 --ships 3,3,2 --player problog --quiet
  battlelog play --size 5 --ships 3,3,2 --player 'lookahead[width=3]' --engine sdd
  battlelog play --size 7 --ships 5,5,4 --human
"""

from __future__ import annotations

import argparse

from battlelog.commands.boards import add_board_arguments, add_engine_argument, add_seed_argument, config_from, seed_from
from battlelog.commands.common import add_hider_arguments, hider_from
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError
from battlelog.players import PLAYERS, Player, check_player, make_player
from battlelog.players.spec import PlayerSpec, parse_players
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement, cell_name
from battlelog.rules.hiders import spec_text
from battlelog.rules.state import GameState
from battlelog.rules.variants import SHIPS
from battlelog.runner.loop import GameResult, play_game
from battlelog.runner.seeds import game_seeds, layout_for
from battlelog.views.console import Quit
from battlelog.views.display import BOARD_LEGEND, board_text
from battlelog.views.human import HumanPlayer
from battlelog.wording import count_noun


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_board_arguments(parser)
    parser.add_argument(
        "--player",
        metavar="SPEC",
        help=f"who shoots (default: pdf); with --human, whose score yours is compared with (default: problog): one of "
        f"{', '.join(PLAYERS)} or module:Class, with options as NAME[key=value,...], e.g. mc[samples=200]",
    )
    parser.add_argument("--human", action="store_true", help="you shoot, typing cells such as C7 (quit to give up)")
    add_seed_argument(parser, "the layout and of the player's random choices")
    add_hider_arguments(parser)
    add_engine_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="show only the final board and the score")


def answer_text(state: GameState) -> str:
    """``C7 -> sunk ship 2 (length 3)``: the last shot of ``state`` and its answer."""
    shot = state.shots[-1]
    sunk = f" ship {shot.ship} (length {state.ships[shot.ship]})" if shot.ship is not None else ""
    return f"{cell_name(shot.cell)} -> {shot.result}{sunk}"


def _play(config: GameConfig, layout: tuple[Placement, ...], player: Player, show: bool, referee_view: bool) -> GameResult:
    """One game of ``player`` on ``layout`` in a workspace of this command, each shot shown as it is
    answered when ``show``."""

    def on_shot(state: GameState) -> None:
        volley = state.shots[-1].volley
        print(f"{'' if volley is None else f'volley {volley + 1}, '}shot {len(state.shots)}: {answer_text(state)}")
        print(board_text(state, layout if referee_view else None), end="\n\n")

    workspace = Workspace()
    player.use(workspace)
    try:
        return play_game(config, layout, player, on_shot=on_shot if show else None)
    finally:
        player.close()
        workspace.close()


def run(args: argparse.Namespace) -> int:
    config = config_from(args)
    seed = seed_from(args)
    if args.human and args.quiet:
        raise BattlelogError("--quiet would hide the board you are shooting at: give --human or --quiet, not both")
    specs = parse_players(("problog" if args.human else "pdf") if args.player is None else args.player, args.engine)
    if len(specs) != 1:
        raise BattlelogError(f"--player {args.player}: name one player")
    spec = specs[0]
    check_player(spec.label, config)
    hider = hider_from(args, config, seed)
    layout = layout_for(config, seed, 0, hider)
    hidden = "" if hider.is_uniform else f" hidden by {spec_text(hider)}"
    print(f"{config.label()}{hidden}, seed {seed} (play this board again with --seed {seed})")
    print(BOARD_LEGEND if not args.human else "legend: . not shot, o miss, X hit; type a cell such as C3, or quit")
    if args.human:
        return _human_game(config, layout, seed, spec)
    result = _play(config, layout, make_player(spec.label, game_seeds(seed, 0)[1]), show=not args.quiet, referee_view=True)
    if args.quiet:
        print(board_text(result.state, layout))
    print(
        f"{spec.label} sank {config.label()} in {count_noun(result.score, score_unit(config))} "
        f"({best_possible(config)}{1000 * result.seconds / result.score:.1f} ms per "
        f"{'volley' if config.rules.is_salvo else 'move'})"
    )
    return 0


def score_unit(config: GameConfig) -> str:
    """What a score counts: shots, or under salvo volleys."""
    return "volley" if config.rules.is_salvo else "shot"


def best_possible(config: GameConfig) -> str:
    """``best possible 17; ``: the least score (every shot a hit; under salvo K, every volley all hits),
    empty under salvo by ships."""
    salvo = config.rules.salvo
    if salvo == SHIPS:
        return ""
    return f"best possible {-(-config.ship_cells // int(salvo))}; "


def _human_game(config: GameConfig, layout: tuple[Placement, ...], seed: int, rival: PlayerSpec) -> int:
    """You shoot at ``layout``; then ``rival`` plays the same board, and the two scores are compared."""
    print(board_text(GameState.empty(config)), end="\n\n")
    try:
        yours = _play(config, layout, HumanPlayer(), show=True, referee_view=False).score
    except Quit as stopped:
        print("you stopped; the ships were here (with your shots):")
        print(board_text(stopped.state or GameState.empty(config), layout))
        return 0
    print(f"{rival.label} now plays the same board ...", flush=True)
    theirs = _play(config, layout, make_player(rival.label, game_seeds(seed, 0)[1]), show=False, referee_view=True).score
    unit = score_unit(config)
    print(f"you sank {config.label()} in {count_noun(yours, unit)}; {rival.label} needs {count_noun(theirs, unit)} "
          "on the same board"
          f"{f' ({best_possible(config)[:-2]})' if best_possible(config) else ''}")  # fmt: skip
    return 0
