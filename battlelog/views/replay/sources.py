"""The game to replay, read from an experiment folder, a game record file, or a game-state file.

A game record (one line of an experiment's games.jsonl) knows the hidden layout and who played; a
state file knows only the shots and answers. Every record is checked against the rules before it is
replayed: its layout must be a valid layout of its fleet, and each recorded answer must be the one
that layout gives, so that a damaged record is an error naming the fault, not a wrong picture.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from battlelog.errors import BattlelogError, FileFormatError, StateError
from battlelog.jsonfile import named_file, read_json
from battlelog.players import PLAYERS
from battlelog.players.spec import spec_name
from battlelog.rules.geometry import Placement, cell_name
from battlelog.rules.hiders import Hider, hider_from_json
from battlelog.rules.prior import UNIFORM
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState
from battlelog.runner.layout_files import parse_layout

#: The file name of an experiment's game records (see battlelog.runner.experiment).
GAMES_FILE = "games.jsonl"


@dataclass(frozen=True)
class Game:
    """The shots of a game with their answers, plus what the source knows about it."""

    state: GameState
    title: str
    layout: tuple[Placement, ...] | None = None
    player: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    #: Where a record's game came from (root seed, game index, hider): what ``belief=hider`` and
    #: ``belief=learn`` mean in it. None, None and uniform for a state file.
    seed: int | None = None
    number: int | None = None
    hider: Hider = UNIFORM
    #: The state file the game was read from, which an error about its answers names (a record's answers
    #: are checked against its layout when it is read).
    source: str | None = None


def load_game(source: str | Path, game: int | None = None, player: str | None = None) -> Game:
    """The game in ``source``: an experiment folder (or its games.jsonl), a record file, or a state file."""
    path = named_file(source)
    if path.is_dir() or path.name == GAMES_FILE:
        return _from_experiment(path if path.is_dir() else path.parent, game, player)
    if game is not None:
        raise BattlelogError(f"--game picks a game of an experiment folder; {path} is a single game")
    data = read_json(path)
    if isinstance(data, dict) and ("layout" in data or "player" in data):  # a game record, not a state
        return game_from_record(data, str(path))
    state = GameState.load(path)
    if player is not None and spec_name(player) not in PLAYERS:
        raise BattlelogError(f"unknown player {player!r} for --player; choose from {', '.join(PLAYERS)}")
    return Game(state, f"{state.config.label()} from {path.name}", player=player, source=str(path))


def _from_experiment(out: Path, game: int | None, player: str | None) -> Game:
    """Game ``game`` of ``player`` in an experiment (the player may be left out when only one played it)."""
    from battlelog.runner.records import MANIFEST, load_results, manifest_hider  # the experiment records are read only here

    manifest, records = load_results(out)
    if game is None:
        numbers = sorted({r["game"] for r in records})
        known = "no games" if not numbers else f"game {numbers[0]}" if len(numbers) == 1 else f"games {numbers[0]}..{numbers[-1]}"
        raise BattlelogError(f"{out} is an experiment: say which game with --game N ({known} recorded)")
    candidates = [r for r in records if r["game"] == game and (player is None or r["player"] == player)]
    if not candidates:
        players = sorted(r["player"] for r in records if r["game"] == game)
        known = f"game {game} was played by {', '.join(players)}" if players else f"it has no game {game}"
        raise BattlelogError(f"{out}: no game {game}{f' of player {player}' if player else ''} ({known})")
    if len(candidates) > 1:
        names = ", ".join(sorted(r["player"] for r in candidates))
        raise BattlelogError(f"{out}: game {game} was played by {names}: say whose with --player")
    record = candidates[0]
    if record["status"] != "ok":
        raise BattlelogError(f"{out}: game {game} of {record['player']} failed ({record['status']}): there is nothing to replay")
    return game_from_record(
        record, f"{out / GAMES_FILE} game {game} of {record['player']}", f"{out.name}, seed {manifest['seed']}",
        manifest_hider(manifest, str(out / MANIFEST)),
    )  # fmt: skip


def game_from_record(record: dict[str, Any], source: str, where: str | None = None, hider: Hider | None = None) -> Game:
    """A game record (a line of games.jsonl), checked: values a game could give, a valid layout that gives
    every recorded answer. ``hider``: the experiment's, which a record may name by its digest only."""
    from battlelog.runner.records import check_game_values, is_reference

    for key in ("ships", "layout", "shots", "player"):
        if key not in record:
            raise FileFormatError(f"{source}: a game record needs {key!r}")
    try:
        state = GameState.from_json(
            {k: record[k] for k in ("size", "rows", "cols", "ships", "rules", "shots") if k in record}, source
        )
    except StateError as exc:
        raise StateError(f"{source}: {exc}") from None
    if record.get("status", "ok") != "ok":
        raise BattlelogError(f"{source}: game failed ({record['status']}): there is nothing to replay")
    layout = parse_layout(record["layout"], state.config, source)
    _check_answers(state, layout, source)
    check_game_values(record, source)
    options = record.get("options") or {}
    if not isinstance(options, dict):
        raise FileFormatError(f"{source}: options must be an object, got {options!r}")
    number = f"game {record['game']}, " if isinstance(record.get("game"), int) else ""
    title = f"{record['player']} on {state.config.label()} ({number}{where or Path(source).name})"
    if hider is None and is_reference(record.get("hider")):
        raise BattlelogError(
            f"{source}: its hider is a distribution over layouts that experiment.json holds: replay the game from "
            "its experiment folder (battlelog replay DIR --game N)"
        )
    if hider is None:
        hider = hider_from_json(record["hider"], source, state.config) if "hider" in record else UNIFORM
    seed, game = (record.get(key) if isinstance(record.get(key), int) else None for key in ("seed", "game"))
    return Game(state, title, layout, str(record["player"]), dict(options), seed, game, hider)


def _check_answers(state: GameState, layout: tuple[Placement, ...], source: str) -> None:
    """Every recorded answer must be the one the layout gives."""
    referee = Referee(state.config, layout)
    for t, shot in enumerate(state.shots):
        result, ship = referee.shoot(*shot.cell)
        if (result, ship) != (shot.result, shot.ship):
            said = result + (f" ship {ship}" if ship is not None else "")
            raise FileFormatError(
                f"{source}: shot {t + 1} ({cell_name(shot.cell)}) is recorded as {shot.result}, but the layout says {said}"
            )
