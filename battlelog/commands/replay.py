"""Replay a game: the exact posterior after every shot, as an animated GIF and a self-contained HTML page.

Each frame shows the heat map (the chance that a ship covers each cell, given the shots so far), the
hidden board when the source knows it, and the player's scores when the player exposes them (what it
maximised to choose its next shot); the caption names the last shot, its answer and the layouts left,
and a blue frame marks the next shot. The game comes from an experiment folder (--game N, and
--player when several players played it), a game record (one line of games.jsonl in a file of its
own) or a game-state file (shots only: no hidden board; --player NAME shows that player's scores).

A captain run's folder (`battlelog captain --out DIR`) is replayed as a captain's game (--game N,
--player CAPTAIN and --board NAME when several fit): a frame per step, shot or question, with the
captain's exact belief, the true board, and the questions asked so far with their true and given
answers and EIG. The run records only each board's file name: the board is read from --boards DIR,
by default from the folder that holds the run's folder.

Writes, in --out DIR: replay.gif (every frame), replay.html (one page with the frames in it: step
with the buttons or the arrow keys; it needs no server or network) and replay.png (the middle frame).

examples:
  battlelog experiment --size 7 --ships 5,5,4 --players problog --games 1 --seed 0 --out results/one
  battlelog replay results/one --game 0 --out results/one/replay
  battlelog replay state.json --player pdf --out replay/
  battlelog replay results/captain --game 0 --player asker --board board_B01.txt --boards data/bsqa --out replay/
"""

from __future__ import annotations

import argparse
from pathlib import Path

from battlelog.captain.records import is_captain_run
from battlelog.commands.boards import add_engine_argument, output_path, real, whole
from battlelog.engines import DEFAULT_ENGINE, engine_class
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError
from battlelog.jsonfile import named_file
from battlelog.players import PLAYERS, Player, check_player, make_player
from battlelog.players.spec import spec_name
from battlelog.rules.hiders import BELIEF_WORDS
from battlelog.runner.beliefs import BELIEF, resolved_options
from battlelog.runner.records import GAMES
from battlelog.views.replay.panels import Pictures
from battlelog.views.replay.sources import Game, load_game
from battlelog.wording import count_noun


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source",
        help="an experiment folder (or its games.jsonl), a game-record file, a game-state file, or a captain run's folder",
    )
    parser.add_argument(
        "--out", required=True, metavar="DIR", help="folder for replay.gif, replay.html and replay.png (created if needed)"
    )
    parser.add_argument("--game", type=whole, metavar="N", help="which game of the experiment")
    parser.add_argument(
        "--player",
        metavar="NAME",
        help=(
            "whose game of the experiment (of a captain run: the captain); for a state file, the player whose scores "
            f"are shown (one of {', '.join(PLAYERS)})"
        ),
    )
    parser.add_argument("--board", metavar="NAME", help="a captain run: the board file's name of the game (when several)")
    parser.add_argument(
        "--boards",
        metavar="DIR",
        help="a captain run: the folder of its board files (default: the folder that holds the run's folder)",
    )
    add_engine_argument(parser, DEFAULT_ENGINE, what="that computes an experiment's heat maps")
    parser.add_argument(
        "--delay", type=real, default=0.8, metavar="SECONDS", help="seconds per frame when playing (default: 0.8)"
    )


def scoring_player(game: Game) -> Player | None:
    """The player whose scores the replay shows: the game's own player, if it is a registered one (with
    ``belief=hider`` or ``belief=learn`` worked out as in the game's experiment)."""
    if game.player is None or spec_name(game.player) not in PLAYERS:
        return None
    options = game.options
    if options.get(BELIEF) in BELIEF_WORDS:
        if game.seed is None or game.number is None:
            raise BattlelogError(f"belief={options[BELIEF]}: the record names no seed and game, so what it meant is not known")
        options = resolved_options(options, game.state.config, game.seed, game.number, game.hider, None)
    return make_player(spec_name(game.player), 0, **options)


def run(args: argparse.Namespace) -> int:
    if not 0 < args.delay <= 60:
        raise BattlelogError(f"--delay {args.delay}: give the seconds per frame, more than 0 and at most 60")
    out = output_path(args.out, "--out")
    source = named_file(args.source)
    run_folder = source.parent if source.name == GAMES and source.is_file() else source
    if is_captain_run(run_folder):
        return replay_captain(args, run_folder, out)
    if args.board is not None or args.boards is not None:
        raise BattlelogError(f"{args.source} is no captain run: --board and --boards pick a captain run's game")
    game = load_game(args.source, args.game, args.player)
    engine_class(args.engine).check_board(game.state.config)  # one line now, not mid-replay
    if game.player is not None and spec_name(game.player) in PLAYERS:
        check_player(game.player, game.state.config, game.options)
    from battlelog.views.replay.frames import build_replay, report_progress  # numpy work and Pillow: only once the input is good
    from battlelog.views.replay.panels import pictures

    workspace, player = Workspace(), scoring_player(game)
    if player is not None:
        player.use(workspace)
    try:
        replay = build_replay(game, workspace.engine(args.engine), player, progress=report_progress)
    finally:
        workspace.close()
    write_pictures(pictures(replay), out, args.delay)
    return 0


def replay_captain(args: argparse.Namespace, run_folder: Path, out: Path) -> int:
    """The replay of a captain's game: its belief after every step, its questions beside the boards."""
    from battlelog.captain.transcript import belief_cells, load_captain_game
    from battlelog.views.replay.captain import CaptainReplay, captain_pictures
    from battlelog.views.replay.frames import report_progress

    boards = None if args.boards is None else Path(args.boards)
    if boards is not None and not boards.is_dir():
        raise BattlelogError(f"--boards {boards}: no such folder")
    game = load_captain_game(run_folder, args.game, args.player, args.board, boards)
    replay = CaptainReplay(game, tuple(belief_cells(game, progress=report_progress)))
    write_pictures(captain_pictures(replay), out, args.delay)
    return 0


def write_pictures(pictures: Pictures, out: Path, delay: float) -> None:
    """replay.gif, replay.html and replay.png (the middle frame) in ``out``, created only now: a game that
    cannot be replayed leaves no folder behind; then what was written."""
    from battlelog.views.replay.gif import write_gif, write_still
    from battlelog.views.replay.page import write_page

    middle = len(pictures.sheets) // 2
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BattlelogError(f"{out}: cannot create the folder ({exc.strerror})") from None
    try:
        write_gif(pictures, out / "replay.gif", delay)
        write_page(pictures, out / "replay.html", delay)
        write_still(pictures, out / "replay.png", middle)
    except OSError as exc:
        raise BattlelogError(f"{out}: cannot write the replay ({exc.strerror})") from None
    print(f"{pictures.title}: {count_noun(len(pictures.sheets), 'frame')}")
    if pictures.note:
        print(pictures.note)
    print(f"wrote {out / 'replay.gif'}, {out / 'replay.html'} and {out / 'replay.png'} (frame {middle})")
