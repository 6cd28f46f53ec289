"""The record of an experiment on disk: experiment.json and games.jsonl, and nothing lost or repeated.

An output directory holds:
  experiment.json   board size, fleet and seed: what decides game i's board (a rerun must match it)
  games.jsonl       one JSON line per game, failed ones included, appended and fsynced as it ends

A finished experiment may be archived with its journal gzipped (games.jsonl.gz, as the results in
the repository are): it reads as before, and a run that would extend it asks for it to be unpacked.

Only the process that runs the experiment writes here (the client of a cluster, never a worker),
under an exclusive lock on games.jsonl. A game appears once. The one exception is a replay of a
failed game (``--retry-failed``): its new line carries ``"replaces"`` (the failure it replaces) and
supersedes the old line; when the replaying run ends, the file is rewritten atomically with the new
line in the old one's place. A run killed at any moment leaves a valid journal: at worst a torn last
line, which is ignored and then cut off by the next run.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from battlelog.errors import BattlelogError, FileFormatError
from battlelog.rules.game import GameConfig, Placement, format_ships
from battlelog.runner.harness import OK, STATUSES

if TYPE_CHECKING:
    from battlelog.runner.executors.base import Outcome

MANIFEST, GAMES, ARCHIVE = "experiment.json", "games.jsonl", "games.jsonl.gz"

#: A game's identity in an experiment: (player, game index).
Key = tuple[str, int]


def describe_experiment(manifest: Mapping[str, Any]) -> str:
    """``5x5 3,3,2 with seed 7``: what a manifest (or a game record) says the boards are."""
    ships = manifest["ships"]
    fleet = format_ships(ships) if isinstance(ships, list) else repr(ships)
    return f"{manifest['size']}x{manifest['size']} {fleet} with seed {manifest['seed']}"


def read_manifest(out: Path) -> dict[str, Any]:
    """experiment.json of ``out``; a missing or malformed directory or file is a one-line error."""
    if not out.exists():
        raise BattlelogError(f"{out}: no such directory")
    if not out.is_dir():
        raise BattlelogError(f"{out} is not a directory")
    path = out / MANIFEST
    if not path.is_file():
        raise FileFormatError(f"{out} holds no experiment (no {MANIFEST})")
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FileFormatError(f"{path}: not a readable JSON file ({exc})") from None
    ok = (
        isinstance(manifest, dict)
        and all(isinstance(manifest.get(k), int) and not isinstance(manifest.get(k), bool) for k in ("size", "seed"))
        and isinstance(manifest.get("ships"), list)
        and all(isinstance(s, int) and not isinstance(s, bool) for s in manifest["ships"])
    )
    if not ok:
        raise FileFormatError(f"{path}: expected an object with a whole-number size and seed and a list of ships")
    GameConfig(manifest["size"], tuple(manifest["ships"]))  # a fleet that cannot exist is an error here too
    return {"size": manifest["size"], "ships": manifest["ships"], "seed": manifest["seed"]}


def _check_record(record: Any, where: str, manifest: Mapping[str, Any]) -> None:
    """One line of games.jsonl: the keys the summary needs, of this experiment."""
    if not isinstance(record, dict):
        raise FileFormatError(f"{where}: expected a JSON object")
    for key in ("player", "game", "status", "size", "ships", "seed", "score", "seconds"):
        if key not in record:
            raise FileFormatError(f"{where}: missing key {key!r}")
    if not isinstance(record["player"], str) or not isinstance(record["game"], int) or record["status"] not in STATUSES:
        raise FileFormatError(f"{where}: needs a player name, a whole-number game and a status in {', '.join(STATUSES)}")
    if {k: record[k] for k in ("size", "ships", "seed")} != dict(manifest):
        raise FileFormatError(f"{where}: a game of {describe_experiment(record)}, not of this experiment's {describe_experiment(manifest)}")
    if record["status"] == OK:
        valid = isinstance(record["score"], int) and isinstance(record["seconds"], (int, float))
        if not valid or record["score"] < 1 or record["seconds"] < 0:
            raise FileFormatError(f"{where}: a finished game needs a positive whole-number score and seconds >= 0")


def _conflict(games: Mapping[Key, Mapping[str, Any]], record: Mapping[str, Any]) -> str | None:
    """Why ``record`` may not join ``games`` (it repeats a game and does not replay a failure), else None."""
    earlier = games.get((record["player"], record["game"]))
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
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise FileFormatError(f"{where}: not valid JSON") from None
        _check_record(record, where, manifest)
        refused = _conflict(games, record)
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
    path = journal_path(out)
    try:
        data = b"" if not path.exists() else gzip.decompress(path.read_bytes()) if path.name == ARCHIVE else path.read_bytes()
    except OSError as exc:  # gzip.BadGzipFile and EOFError of a cut archive included
        raise FileFormatError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except EOFError:
        raise FileFormatError(f"{path}: a gzip file cut short") from None
    return manifest, parse_records(data, path, manifest)


class Journal:
    """games.jsonl of one experiment, open for appending under an exclusive lock, with the games in it."""

    def __init__(self, out: Path, handle: BinaryIO, records: list[dict[str, Any]], superseded: int = 0) -> None:
        self.out = out
        self._handle = handle
        self._games = {(r["player"], r["game"]): r for r in records}
        self.superseded = superseded  # lines in the file that a later replay replaces
        self.appended = 0

    @property
    def records(self) -> list[dict[str, Any]]:
        """Every game recorded so far, replayed ones in place of their failures."""
        return list(self._games.values())

    def append(self, record: dict[str, Any]) -> None:
        """Write one game as one line and force it to disk, so that a kill loses nothing finished."""
        refused = _conflict(self._games, record)
        if refused:
            raise ValueError(f"refusing to write a game twice: {refused}")
        self._handle.write((json.dumps(record) + "\n").encode())
        self._handle.flush()
        os.fsync(self._handle.fileno())
        key = (record["player"], record["game"])
        self.superseded += key in self._games
        self._games[key] = record
        self.appended += 1

    def compact(self) -> None:
        """Rewrite games.jsonl with each replayed game in its failure's place (atomically: write, fsync, rename)."""
        path = self.out / GAMES
        scratch = self.out / (GAMES + ".tmp")
        with open(scratch, "wb") as handle:
            handle.write(b"".join((json.dumps(r) + "\n").encode() for r in self._games.values()))
            handle.flush()
            os.fsync(handle.fileno())
        scratch.replace(path)
        _fsync_directory(self.out)
        self.superseded = 0


def _fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _missing_directories(out: Path) -> list[Path]:
    """``out`` and its ancestors that do not exist yet, deepest first: what creating ``out`` creates."""
    missing = []
    for path in (out, *out.parents):
        if path.exists():
            break
        missing.append(path)
    return missing


@contextmanager
def open_journal(out: Path, manifest: Mapping[str, Any]) -> Iterator[Journal]:
    """The journal of the experiment on ``manifest`` in ``out``, locked against a second run.

    Creates the directory and experiment.json on first use, refuses a directory that holds another
    experiment, and cuts off a torn last line so that appends start on a fresh line. If the block
    ends before a first game is written into an experiment it created (a refusal, Ctrl-C), it removes
    what it created: a refused experiment leaves no files behind.
    """
    if out.exists() and not out.is_dir():
        raise BattlelogError(f"{out} is not a directory")
    if (out / ARCHIVE).exists() and not (out / GAMES).exists():
        raise BattlelogError(f"{out} holds an archived journal ({ARCHIVE}): unpack it with `gunzip {out / ARCHIVE}` to extend it")
    created_dirs = _missing_directories(out)
    created_journal = not (out / GAMES).exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
        handle = open(out / GAMES, "a+b")  # noqa: SIM115 - closed by the with block below
    except OSError as exc:
        raise BattlelogError(f"{out}: cannot write there ({exc.strerror})") from None
    created_manifest = False
    journal = None
    try:
        with handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise BattlelogError(f"{out} is in use by another running experiment") from None
            handle.seek(0)
            data = handle.read()
            if (out / MANIFEST).exists():
                stored = read_manifest(out)
                if stored != dict(manifest):
                    raise BattlelogError(
                        f"{out} holds an experiment on {describe_experiment(stored)}, "
                        f"not {describe_experiment(manifest)}: use another output directory"
                    )
            elif data:
                raise FileFormatError(f"{out} has {GAMES} but no {MANIFEST}: not an experiment directory battlelog wrote")
            else:
                scratch = out / (MANIFEST + ".tmp")
                scratch.write_text(json.dumps(dict(manifest)) + "\n")
                scratch.replace(out / MANIFEST)
                created_manifest = True
            records = parse_records(data, out / GAMES, manifest)
            complete = data.rfind(b"\n") + 1
            if complete < len(data):
                os.ftruncate(handle.fileno(), complete)
            journal = Journal(out, handle, records, superseded=data[:complete].count(b"\n") - len(records))
            try:
                yield journal
            finally:
                if journal.superseded:  # also after an interruption: the journal in memory is what is on disk
                    journal.compact()
    finally:
        if journal is None or not journal.appended:
            created = [name for name, made in ((GAMES, created_journal), (MANIFEST, created_manifest)) if made]
            _remove_created(out, created, created_dirs)


def _remove_created(out: Path, names: list[str], created_dirs: list[Path]) -> None:
    """Undo what a run that recorded no game created: its files in ``out`` and the directories made for it."""
    for name in names:
        (out / name).unlink(missing_ok=True)
    for directory in created_dirs:
        try:
            directory.rmdir()
        except OSError:  # not empty (someone else wrote there) or already gone: leave it
            break


def placement_json(placement: Placement) -> dict[str, Any]:
    """A placement as games.jsonl stores it: ship, length, canonical cell and orientation (h/v)."""
    return {
        "ship": placement.ship,
        "length": placement.length,
        "row": placement.row,
        "col": placement.col,
        "orientation": placement.orientation,
    }


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
    return {
        "player": task.player,
        "options": task.options,
        "size": task.config.size,
        "ships": list(task.config.ships),
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


__all__ = [
    "ARCHIVE",
    "GAMES",
    "MANIFEST",
    "Journal",
    "describe_experiment",
    "game_record",
    "journal_path",
    "load_results",
    "open_journal",
    "parse_records",
    "placement_json",
    "read_manifest",
]
