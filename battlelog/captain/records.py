"""The files of a captain run: OUT/experiment.json (what decides every game) and OUT/games.jsonl.

The journal is the experiment runner's (:mod:`battlelog.runner.journal`: one fsynced line per game,
locked, a torn last line cut off, a directory of another run refused); this module says how a captain
run's manifest and lines are read and checked, and that a game is (captain, board, game).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from battlelog.errors import BattlelogError, FileFormatError
from battlelog.jsonfile import check_keys, read_json
from battlelog.runner.journal import JournalFormat
from battlelog.runner.records import MANIFEST, parse_keyed_lines, read_journal

#: The manifest's keys: the run's kind, then what decides every game's noise and length.
MANIFEST_KEYS = ("run", "seed", "shots", "questions", "noise")
RUN = "captain"
#: A record's keys and the types of their values.
RECORD_TYPES: dict[str, type | tuple[type, ...]] = {
    "captain": str, "player": str, "board": str, "game": int, "seed": int, "noise": (int, float), "status": str,
    "shots": int, "hits": int, "misses": int, "questions": int, "f1": (int, float), "won": bool, "transcript": list,
    "move_median_s": (int, float), "move_seconds": list, "seconds": (int, float),
}  # fmt: skip


def manifest_of(seed: int, shots: int, questions: int, noise: float) -> dict[str, Any]:
    return {"run": RUN, "seed": seed, "shots": shots, "questions": questions, "noise": noise}


def read_manifest(out: Path) -> dict[str, Any]:
    """OUT/experiment.json of a captain run; anything else is one line."""
    path = out / MANIFEST
    data = read_json(path)
    if not isinstance(data, dict) or data.get("run") != RUN:
        raise FileFormatError(f"{path}: not a captain run's manifest (battlelog captain writes one with \"run\": \"captain\")")
    check_keys(data, MANIFEST_KEYS, str(path))
    for key in ("seed", "shots", "questions"):
        if not isinstance(data.get(key), int) or isinstance(data.get(key), bool):
            raise FileFormatError(f"{path}: {key} must be a whole number")
    if isinstance(data.get("noise"), bool) or not isinstance(data.get("noise"), (int, float)):
        raise FileFormatError(f"{path}: noise must be a number")
    return data


def describe(manifest: Mapping[str, Any]) -> str:
    return (
        f"captain games (seed {manifest.get('seed')}, {manifest.get('shots')} shots, {manifest.get('questions')} questions, "
        f"noise {manifest.get('noise')})"
    )


def game_key(record: Mapping[str, Any]) -> tuple[str, str, int]:
    return record["captain"], record["board"], record["game"]


def check_record(record: Any, where: str, manifest: Mapping[str, Any]) -> None:
    """One line: every key with a value of its type, of this run, its counts adding up."""
    if not isinstance(record, dict):
        raise FileFormatError(f"{where}: expected a JSON object")
    for key, kind in RECORD_TYPES.items():
        value = record.get(key)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise FileFormatError(f"{where}: {key!r} missing or of the wrong type")
    if record["seed"] != manifest["seed"] or record["noise"] != manifest["noise"]:
        raise FileFormatError(f"{where}: a game of another seed or noise than this run's")
    shots = sum("shot" in step for step in record["transcript"] if isinstance(step, dict))
    questions = sum("question" in step for step in record["transcript"] if isinstance(step, dict))
    if (
        record["hits"] + record["misses"] != record["shots"]
        or shots != record["shots"]
        or questions != record["questions"]
        or record["shots"] > manifest["shots"]
        or record["questions"] > manifest["questions"]
    ):
        raise FileFormatError(f"{where}: its counts do not add up (hits + misses = shots, the transcript's shots and questions)")


def parse_records(data: bytes, source: Path, manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The games in the complete lines of ``data`` (a torn last line is ignored); a game twice is refused."""
    return parse_keyed_lines(
        data, source, manifest, check_record, game_key,
        lambda r: f"repeats game {r['game']} of {r['captain']} on {r['board']}",
    )  # fmt: skip


def is_captain_run(out: Path) -> bool:
    """Whether ``out`` holds a captain run (its manifest says so); anything unreadable is left to the reader
    of the other kind to refuse."""
    try:
        data = read_json(out / MANIFEST)
    except BattlelogError:
        return False
    return isinstance(data, dict) and data.get("run") == RUN


def load_captain_results(out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The manifest and recorded games of a finished or partial captain run (read only)."""
    manifest = read_manifest(out)
    path, data = read_journal(out)
    return manifest, parse_records(data, path, manifest)


CAPTAIN_JOURNAL = JournalFormat(read_manifest, describe, parse_records, game_key)
