"""The record of an experiment, read: file names, the manifest, one JSON line per game, and its schema.

An output directory holds:
  experiment.json   board size, fleet and seed, the rules when they are not the standard ones and the
                    hider's prior when it is not uniform: what decides game i's board (a rerun must match it)
  games.jsonl       one JSON line per game, failed ones included (written by :mod:`battlelog.runner.journal`);
                    a hider that is a distribution over layouts only by name, size and digest
                    (:func:`hider_reference`: experiment.json holds it whole)

A finished experiment may be archived with its journal gzipped (games.jsonl.gz, as the results in
the repository are): it reads as the plain one. Everything read here goes through the strict JSON
reader, and a record that could not have come from a game (a score below the fleet's cells, a time
that is not a number) is refused with a one-line error naming its line.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from battlelog.errors import BattlelogError, FileFormatError, RulesError
from battlelog.jsonfile import check_keys, parse_json, read_json
from battlelog.rules.answers import HIT, SUNK
from battlelog.rules.config import GameConfig, board_from_json, format_ships
from battlelog.rules.hiders import Hider, hider_from_json, spec_text
from battlelog.rules.layouts import placement_json
from battlelog.rules.prior import UNIFORM, Prior
from battlelog.rules.variants import Rules
from battlelog.runner.task import OK, STATUSES, Outcome
from battlelog.wording import clip

MANIFEST, GAMES, ARCHIVE = "experiment.json", "games.jsonl", "games.jsonl.gz"

#: A game's identity in an experiment: (player, game index).
Key = tuple[str, int]


#: The keys of experiment.json, in the order written: ``size`` for a square board, ``rows`` and ``cols``
#: for a rectangle; ``rules`` only when they are not the standard ones, ``hider`` only when not uniform.
MANIFEST_KEYS = ("size", "rows", "cols", "ships", "seed", "rules", "hider")


def manifest_of(config: GameConfig, seed: int, hider: Hider = UNIFORM) -> dict[str, Any]:
    """experiment.json of an experiment on ``config`` with root ``seed`` whose boards are drawn from
    ``hider``: the standard rules and the uniform hider are left out, so the manifests of standard games
    are what they always were."""
    manifest: dict[str, Any] = {**config.board_json(), "ships": list(config.ships), "seed": seed}
    if not config.rules.is_default:
        manifest["rules"] = config.rules.to_json()
    if not hider.is_uniform:
        manifest["hider"] = hider.to_json()
    return manifest


def hider_reference(hider: Mapping[str, Any]) -> dict[str, Any]:
    """What a game record holds of its experiment's hider: a prior whole (a few numbers), a distribution over
    layouts by its name, its number of layouts and the SHA-256 of its canonical JSON, which experiment.json
    holds whole (a record of 4x4 3,2 against random's adversary, all 264 layouts, was 42 KB)."""
    layouts = hider.get("layouts")
    if not isinstance(layouts, list):
        return dict(hider)
    text = json.dumps(hider, sort_keys=True, separators=(",", ":"))
    return {"name": hider.get("name"), "count": len(layouts), "sha256": hashlib.sha256(text.encode()).hexdigest()}


def is_reference(hider: Any) -> bool:
    """Whether a record's hider is a reference to its experiment's (:func:`hider_reference`), not the hider."""
    return isinstance(hider, dict) and "sha256" in hider


def manifest_hider(manifest: Mapping[str, Any], where: str = MANIFEST) -> Hider:
    """The hider a manifest says the boards were drawn from (a malformed one is one line naming ``where``)."""
    return hider_from_json(manifest["hider"], where, manifest_config(manifest)) if "hider" in manifest else UNIFORM


def manifest_config(manifest: Mapping[str, Any]) -> GameConfig:
    """The board, fleet and rules a manifest (read by :func:`read_manifest`) names."""
    rules = Rules.from_json(manifest["rules"]) if "rules" in manifest else Rules()
    rows, cols = board_from_json(manifest, MANIFEST)
    return GameConfig(rows, tuple(manifest["ships"]), rules, cols=cols)


def describe_experiment(manifest: Mapping[str, Any]) -> str:
    """``5x5 3,3,2 with seed 7`` (``5x5 3,3,2 (no contact) with seed 7`` under other rules): what a
    manifest (or a game record) says the boards are."""
    ships = manifest["ships"]
    fleet = format_ships(ships) if isinstance(ships, list) else repr(ships)
    rules = ""
    if "rules" in manifest:
        try:
            rules = f" ({Rules.from_json(manifest['rules']).text() or 'standard rules'})"
        except RulesError:
            rules = f" (rules {manifest['rules']!r})"
    try:
        hider = f" hidden by {spec_text(manifest_hider(manifest))}" if "hider" in manifest else ""
    except BattlelogError:
        hider = f" (hider {clip(repr(manifest['hider']))})"
    return f"{board_text(manifest)} {fleet}{rules}{hider} with seed {manifest['seed']}"


def board_text(manifest: Mapping[str, Any]) -> str:
    """``12x10`` from a manifest or record's ``size`` or ``rows`` and ``cols`` (``?`` for what is missing)."""
    if "size" in manifest:
        return f"{manifest['size']}x{manifest['size']}"
    return f"{manifest.get('rows', '?')}x{manifest.get('cols', '?')}"


def read_manifest(out: Path) -> dict[str, Any]:
    """experiment.json of ``out``; a missing or malformed directory or file is a one-line error."""
    if not out.exists():
        raise BattlelogError(f"{out}: no such directory")
    if not out.is_dir():
        raise BattlelogError(f"{out} is not a directory")
    path = out / MANIFEST
    if not path.is_file():
        raise FileFormatError(f"{out} holds no experiment (no {MANIFEST})")
    manifest = read_json(path)
    ok = (
        isinstance(manifest, dict)
        and isinstance(manifest.get("seed"), int) and not isinstance(manifest.get("seed"), bool)
        and isinstance(manifest.get("ships"), list)
        and all(isinstance(s, int) and not isinstance(s, bool) for s in manifest["ships"])
    )
    if not ok:
        raise FileFormatError(
            f"{path}: expected an object with a whole-number size (or rows and cols) and seed and a list of ships"
        )
    check_keys(manifest, MANIFEST_KEYS, str(path))
    rows, cols = board_from_json(manifest, str(path))
    try:
        rules = Rules.from_json(manifest["rules"]) if "rules" in manifest else Rules()
    except RulesError as exc:
        raise FileFormatError(f"{path}: {exc}") from None
    if "rules" in manifest and (rules.is_default or manifest["rules"] != rules.to_json()):
        raise FileFormatError(
            f"{path}: rules must name both touch and sinks, and only rules other than the standard ones, "
            f"got {clip(repr(manifest['rules']))}"
        )
    config = GameConfig(rows, tuple(manifest["ships"]), rules, cols=cols)  # a fleet that cannot exist is an error here too
    hider = manifest_hider(manifest, str(path))
    try:
        if isinstance(hider, Prior):
            config.with_prior(hider)  # too strong for the board: refused as --hider would be
    except RulesError as exc:
        raise FileFormatError(f"{path}: hider: {exc}") from None
    return manifest_of(config, manifest["seed"], hider)


def check_record(record: Any, where: str, manifest: Mapping[str, Any]) -> None:
    """One line of games.jsonl: the keys the summary needs, of this experiment, with values a game could have given."""
    if not isinstance(record, dict):
        raise FileFormatError(f"{where}: expected a JSON object")
    for key in ("player", "game", "status", "ships", "seed", "score", "seconds"):
        if key not in record:
            raise FileFormatError(f"{where}: missing key {key!r}")
    board_from_json(record, where)
    if not isinstance(record["player"], str) or not isinstance(record["game"], int) or record["status"] not in STATUSES:
        raise FileFormatError(f"{where}: needs a player name, a whole-number game and a status in {', '.join(STATUSES)}")
    expected = dict(manifest)
    if is_reference(record.get("hider")) and "hider" in manifest:
        expected["hider"] = hider_reference(manifest["hider"])  # records before references hold it whole
    if {k: record[k] for k in MANIFEST_KEYS if k in record} != expected:
        raise FileFormatError(
            f"{where}: a game of {describe_experiment(record)}, not of this experiment's {describe_experiment(manifest)}"
        )
    check_game_values(record, where)


#: Optional measurements of a game record: None, or a finite number >= 0.
TIMES = ("move_median_s", "move_max_s", "peak_mb")


def check_game_values(record: Mapping[str, Any], where: str) -> None:
    """The values of a game record (of a board its size and ships give) that a game could have produced:
    times and sizes finite and >= 0 (``seconds`` whenever present), and for a finished game a possible
    score with its shots. Records of an experiment and record files given to ``replay`` alike."""
    for key in ("seconds", *TIMES):
        if key in record and (key == "seconds" or record[key] is not None) and not _duration(record[key]):
            raise FileFormatError(f"{where}: {key} must be a finite number >= 0, got {record[key]!r}")
    if record.get("status") == OK:
        _check_finished(record, where)


def _duration(value: Any) -> bool:
    """Whether ``value`` is a finite number >= 0 (a time or a size), as a game record stores them."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def _check_finished(record: Mapping[str, Any], where: str) -> None:
    """A finished game could have been played: its score lies between the fleet's cells (every shot a hit)
    and the board's cells (every cell shot), and its shots, when recorded, are that many and hit every ship cell.
    Under salvo the score counts volleys: from 1 to the board's cells, the volleys of its shots."""
    rows, cols = board_from_json(dict(record), where)
    rules = record.get("rules")
    if isinstance(rules, dict) and rules.get("salvo", 1) != 1:
        _check_volleys(record, where, rows * cols)
        return
    fleet, cells, score = sum(record["ships"]), rows * cols, record.get("score")
    if not isinstance(score, int) or isinstance(score, bool) or not fleet <= score <= cells:
        raise FileFormatError(
            f"{where}: a finished game's score must be a whole number from {fleet} (the fleet's cells) "
            f"to {cells} (the board's cells), got {score!r}"
        )
    shots = record.get("shots")
    if shots is None:
        return
    if not isinstance(shots, list) or len(shots) != score:
        count = len(shots) if isinstance(shots, list) else repr(shots)
        raise FileFormatError(f"{where}: a finished game of score {score} needs {score} shots, got {count}")
    _check_hits(shots, fleet, where)


def _check_hits(shots: list[Any], fleet: int, where: str) -> None:
    """A finished game's shots hit every ship cell: exactly ``fleet`` of them are hits."""
    hits = sum(isinstance(shot, dict) and shot.get("result") in (HIT, SUNK) for shot in shots)
    if hits != fleet:
        raise FileFormatError(f"{where}: a finished game's shots must hit the fleet's {fleet} cells, but {hits} of them are hits")


def _check_volleys(record: Mapping[str, Any], where: str, cells: int) -> None:
    """A finished salvo game: a score of 1 to the board's cells volleys, and its shots, when recorded,
    in that many volleys (the last numbered score - 1), hitting every ship cell."""
    fleet, score = sum(record["ships"]), record.get("score")
    if not isinstance(score, int) or isinstance(score, bool) or not 1 <= score <= cells:
        raise FileFormatError(
            f"{where}: a finished salvo game's score (its volleys) must be a whole number from 1 to {cells}, got {score!r}"
        )
    shots = record.get("shots")
    if shots is None:
        return
    last = shots[-1].get("volley") if isinstance(shots, list) and shots and isinstance(shots[-1], dict) else None
    if last != score - 1:
        raise FileFormatError(
            f"{where}: a finished salvo game of score {score} needs shots in volleys 0..{score - 1}, the last in volley {last!r}"
        )
    _check_hits(shots, fleet, where)


def game_key(record: Mapping[str, Any]) -> Key:
    """A game's identity in an experiment's journal."""
    return record["player"], record["game"]


def conflict(
    games: Mapping[Any, Mapping[str, Any]], record: Mapping[str, Any], key: Callable[[Mapping[str, Any]], Any] = game_key
) -> str | None:
    """Why ``record`` may not join ``games`` (it repeats a game and does not replay a failure), else None."""
    earlier = games.get(key(record))
    if earlier is not None and not (earlier["status"] != OK and record.get("replaces")):
        return f"repeats game {record['game']} of player {record['player']}"
    return None


def parse_records(data: bytes, source: Path, manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The games in the complete lines of ``data``, a replayed game in place of its failure.

    A torn last line (a run killed mid-write) is ignored.
    """
    games: dict[Key, dict[str, Any]] = {}
    for number, line in enumerate(data.split(b"\n")[:-1], start=1):
        where = f"{source} line {number}"
        record = parse_json(line, where)
        check_record(record, where, manifest)
        refused = conflict(games, record)
        if refused:
            raise FileFormatError(f"{where}: {refused}")
        games[record["player"], record["game"]] = record  # a replay keeps the place of the failure it replaces
    return list(games.values())


def journal_path(out: Path) -> Path:
    """The games file of ``out`` that is read: games.jsonl, or the archive when only it is there."""
    return out / ARCHIVE if not (out / GAMES).exists() and (out / ARCHIVE).exists() else out / GAMES


def load_results(out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The manifest and recorded games of a finished or partial experiment (read only)."""
    manifest = read_manifest(out)
    path, data = read_journal(out)
    return manifest, parse_records(data, path, manifest)


def parse_keyed_lines(
    data: bytes, source: Path, manifest: Mapping[str, Any], check: Callable[[Any, str, Mapping[str, Any]], None],
    key: Callable[[Mapping[str, Any]], Any], repeats: Callable[[Mapping[str, Any]], str],
) -> list[dict[str, Any]]:
    """The records in the complete lines of ``data`` (a torn last line is ignored), each checked by ``check``;
    a record whose ``key`` came before is refused with ``repeats(record)``. For the runs that never replace a
    record (duels, captain games); an experiment's replays replace their failures (:func:`parse_records`)."""
    seen: dict[Any, dict[str, Any]] = {}
    for number, line in enumerate(data.split(b"\n")[:-1], start=1):
        where = f"{source} line {number}"
        record = parse_json(line, where)
        check(record, where, manifest)
        if key(record) in seen:
            raise FileFormatError(f"{where}: {repeats(record)}")
        seen[key(record)] = record
    return list(seen.values())


def read_journal(out: Path) -> tuple[Path, bytes]:
    """The games file of ``out`` that is read (:func:`journal_path`) and its bytes, unzipped (empty when there is
    none yet); one line when it cannot be read. For every kind of run journalled by the runner's journal."""
    path = journal_path(out)
    try:
        data = b"" if not path.exists() else gzip.decompress(path.read_bytes()) if path.name == ARCHIVE else path.read_bytes()
    except OSError as exc:  # gzip.BadGzipFile and EOFError of a cut archive included
        raise FileFormatError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except EOFError:
        raise FileFormatError(f"{path}: a gzip file cut short") from None
    return path, data


def game_record(outcome: Outcome, replaces: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One line of games.jsonl.

    ``seconds`` is the players' thinking time (all moves) of a finished game, and the time until the
    failure of a failed one; ``peak_mb`` the worker's peak resident memory during the game (None when
    the worker was killed, or shared with other games); ``shots`` are in the spec's format, empty for
    a failed game; ``retried`` why the game was played a second time (its worker was lost), else None;
    ``replaces`` the status and message of the failed game this one replays, else None.
    """
    task, result = outcome.task, outcome.result
    value = result.value or {}
    rules = {} if task.config.rules.is_default else {"rules": task.config.rules.to_json()}
    hider = {} if task.hider.is_uniform else {"hider": hider_reference(task.hider.to_json())}
    return {
        "player": task.player,
        "options": task.options,
        **task.config.board_json(),
        "ships": list(task.config.ships),
        **rules,
        **hider,
        "seed": task.seed,
        "game": task.game,
        "status": result.status,
        "message": result.message,
        "score": value.get("score"),
        "seconds": value.get("seconds", round(result.seconds, 3)),
        "move_median_s": value.get("move_median_s"),
        "move_max_s": value.get("move_max_s"),
        "peak_mb": result.peak_mb,
        "layout": [placement_json(p) for p in task.layout],
        "shots": value.get("shots", []),
        "retried": outcome.retried,
        "replaces": None if replaces is None else {"status": replaces["status"], "message": replaces["message"]},
    }
