"""The files of a duel run: OUT/experiment.json (what decides every duel) and OUT/games.jsonl, one line a duel.

The journal is the experiment runner's (:mod:`battlelog.runner.journal`: one fsynced line per duel, locked, a
torn last line cut off, a directory of another run refused); this module says how a duel run's manifest and
lines are read and checked, and that a duel is named by its number.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from battlelog.errors import FileFormatError
from battlelog.jsonfile import check_keys, read_json
from battlelog.rules.config import GameConfig
from battlelog.runner.journal import JournalFormat
from battlelog.runner.records import MANIFEST, describe_experiment, manifest_of, parse_keyed_lines

RUN = "duel"
#: The manifest's keys: the run's kind, the players in their order, and an experiment's board keys.
MANIFEST_KEYS = ("run", "players", "size", "rows", "cols", "ships", "seed", "rules")
#: A record's keys and the types of their values; ``boards``, ``layouts`` (the boards the players hunt),
#: ``shots`` and ``seconds`` hold one entry per player.
RECORD_TYPES: dict[str, type | tuple[type, ...]] = {
    "game": int, "boards": list, "first": str, "winner": str, "shots": list, "seconds": list, "layouts": list,
}  # fmt: skip


def boards(duel: int) -> tuple[int, int]:
    """The boards the first and the second player hunt in duel ``duel``: 2k and 2k+1, swapped in odd duels."""
    pair = 2 * (duel // 2)
    return (pair, pair + 1) if duel % 2 == 0 else (pair + 1, pair)


def duel_manifest(config: GameConfig, players: tuple[str, str], seed: int) -> dict[str, Any]:
    """experiment.json of a duel run: the players (the first opens the even duels) and the boards' keys."""
    return {"run": RUN, "players": list(players), **manifest_of(config, seed)}


def read_manifest(out: Path) -> dict[str, Any]:
    """OUT/experiment.json of a duel run; anything else is one line."""
    path = out / MANIFEST
    data = read_json(path)
    if not isinstance(data, dict) or data.get("run") != RUN:
        raise FileFormatError(f"{path}: not a duel run's manifest (battlelog duel writes one with \"run\": \"duel\")")
    check_keys(data, MANIFEST_KEYS, str(path))
    players = data.get("players")
    if not isinstance(players, list) or len(players) != 2 or not all(isinstance(p, str) for p in players):
        raise FileFormatError(f"{path}: players must be a list of two player specs")
    return data


def describe(manifest: Mapping[str, Any]) -> str:
    return f"duels of {' against '.join(map(str, manifest.get('players', [])))} on {describe_experiment(manifest)}"


def game_key(record: Mapping[str, Any]) -> int:
    return int(record["game"])


def check_record(record: Any, where: str, manifest: Mapping[str, Any]) -> None:
    """One line: every key with a value of its type, the players this run's, the winner the side that fired last."""
    if not isinstance(record, dict):
        raise FileFormatError(f"{where}: expected a JSON object")
    for key, kind in RECORD_TYPES.items():
        value = record.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise FileFormatError(f"{where}: {key!r} missing or of the wrong type")
    players = manifest["players"]
    if record["game"] < 0 or record["first"] not in players or record["winner"] not in players:
        raise FileFormatError(f"{where}: a duel of other players than this run's ({', '.join(players)})")
    shots = record["shots"]
    sides = ("boards", "layouts", "shots", "seconds")
    if any(len(record[key]) != 2 for key in sides) or not all(isinstance(s, list) for s in shots):
        raise FileFormatError(f"{where}: boards, layouts, shots and seconds must hold one entry per player")
    if record["boards"] != list(boards(record["game"])) or record["first"] != players[record["game"] % 2]:
        raise FileFormatError(f"{where}: not the boards or the opener of duel {record['game']}")
    first, winner = players.index(record["first"]), players.index(record["winner"])
    fired = [len(s) for s in shots]
    # alternating: the opener fired as many shots as the other or one more, and whoever fired last won
    expected = fired[first] - fired[1 - first]
    if expected not in (0, 1) or winner != (first if expected == 1 else 1 - first):
        raise FileFormatError(f"{where}: its shots do not alternate from {record['first']} to a win by {record['winner']}")


def parse_records(data: bytes, source: Path, manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The duels in the complete lines of ``data`` (a torn last line is ignored); a duel twice is refused."""
    return parse_keyed_lines(data, source, manifest, check_record, game_key, lambda r: f"repeats duel {r['game']}")


DUEL_JOURNAL = JournalFormat(read_manifest, describe, parse_records, game_key)
