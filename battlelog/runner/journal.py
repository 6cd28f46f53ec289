"""The journal of an experiment: games.jsonl appended one fsynced line per game, and nothing lost or repeated.

Only the process that runs the experiment writes here (the client of a cluster, never a worker),
under an exclusive lock on games.jsonl. A game appears once. The one exception is a replay of a
failed game (``--retry-failed``): its new line carries ``"replaces"`` (the failure it replaces) and
supersedes the old line; when the replaying run ends, the file is rewritten atomically with the new
line in the old one's place. A run killed at any moment leaves a valid journal: at worst a torn last
line, which is ignored and then cut off by the next run. A line that cannot be written whole (a full
disk) is cut back at once (:func:`battlelog.files.append`) and stops the run in one line. Reading
records is :mod:`battlelog.runner.records`.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from battlelog.errors import BattlelogError, FileFormatError, WriteError
from battlelog.files import append, check_regular, write_text
from battlelog.runner.records import (
    ARCHIVE,
    GAMES,
    MANIFEST,
    conflict,
    describe_experiment,
    game_key,
    parse_records,
    read_manifest,
)

#: A game's identity in a journal.
RecordKey = Callable[[Mapping[str, Any]], Any]


@dataclass(frozen=True)
class JournalFormat:
    """What a kind of run records: how its manifest is read and described, how its complete lines are
    read and checked into records (data, the file, the manifest), and what names one game."""

    read_manifest: Callable[[Path], dict[str, Any]]
    describe: Callable[[Mapping[str, Any]], str]
    parse: Callable[[bytes, Path, Mapping[str, Any]], list[dict[str, Any]]]
    key: RecordKey


#: An experiment's journal (``battlelog experiment``).
EXPERIMENT = JournalFormat(read_manifest, describe_experiment, parse_records, game_key)


class Journal:
    """games.jsonl of one experiment, open for appending under an exclusive lock, with the games in it."""

    def __init__(
        self, out: Path, handle: BinaryIO, records: list[dict[str, Any]], superseded: int = 0, key: RecordKey = game_key
    ) -> None:
        self.out = out
        self._handle = handle
        self._key = key
        self._games = {key(r): r for r in records}
        self.superseded = superseded  # lines in the file that a later replay replaces
        self.appended = 0

    @property
    def records(self) -> list[dict[str, Any]]:
        """Every game recorded so far, replayed ones in place of their failures."""
        return list(self._games.values())

    def append(self, record: dict[str, Any]) -> None:
        """Write one game as one line and force it to disk, so that a kill loses nothing finished."""
        refused = conflict(self._games, record, self._key)
        if refused:
            raise ValueError(f"refusing to write a game twice: {refused}")
        try:  # strict JSON (no NaN): every line written must read back, or a resume could not start
            line = json.dumps(record, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise BattlelogError(
                f"{_named(record)} cannot be recorded as JSON ({exc})"
            ) from None
        try:  # the line whole or not at all: a full disk leaves the games before it, and no torn line
            append(self._handle.fileno(), (line + "\n").encode())
        except OSError as exc:
            raise WriteError(
                f"{self.out / GAMES}: cannot record {_named(record)} ({exc.strerror}); "
                f"the {len(self._games)} recorded before it are kept: make room and run the same command again to resume"
            ) from None
        key = self._key(record)
        self.superseded += key in self._games
        self._games[key] = record
        self.appended += 1

    def compact(self) -> None:
        """Rewrite games.jsonl with each replayed game in its failure's place (atomically: write, fsync, rename)."""
        write_text(self.out / GAMES, "".join(json.dumps(r) + "\n" for r in self._games.values()), regular=True)
        self.superseded = 0


def _named(record: Mapping[str, Any]) -> str:
    """``game 3 of player pdf``, or ``game 3`` for a record of a run without one player a game (a duel)."""
    return f"game {record['game']}" + (f" of player {record['player']}" if "player" in record else "")


def _missing_directories(out: Path) -> list[Path]:
    """``out`` and its ancestors that do not exist yet, deepest first: what creating ``out`` creates."""
    missing = []
    for path in (out, *out.parents):
        if path.exists():
            break
        missing.append(path)
    return missing


@contextmanager
def open_journal(
    out: Path, manifest: Mapping[str, Any], kind: JournalFormat = EXPERIMENT
) -> Iterator[Journal]:
    """The journal of the experiment on ``manifest`` in ``out``, locked against a second run.

    ``kind`` says how its files are read: an experiment's by default, another kind of run's (the
    captain's games) with its own.

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
    for name in (GAMES, MANIFEST):  # read back on every run: a device or a FIFO there is refused
        check_regular(out / name)
    try:
        out.mkdir(parents=True, exist_ok=True)
        handle = open(out / GAMES, "a+b", buffering=0)  # noqa: SIM115 - closed by the with block below; unbuffered: see append
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
                stored = kind.read_manifest(out)
                if stored != dict(manifest):
                    raise BattlelogError(
                        f"{out} holds an experiment on {kind.describe(stored)}, "
                        f"not {kind.describe(manifest)}: use another output directory"
                    )
            elif data:
                raise FileFormatError(f"{out} has {GAMES} but no {MANIFEST}: not an experiment directory battlelog wrote")
            else:
                write_text(out / MANIFEST, json.dumps(dict(manifest)) + "\n", regular=True)
                created_manifest = True
            records = kind.parse(data, out / GAMES, manifest)
            complete = data.rfind(b"\n") + 1
            if complete < len(data):
                os.ftruncate(handle.fileno(), complete)
            journal = Journal(out, handle, records, superseded=data[:complete].count(b"\n") - len(records), key=kind.key)
            try:
                yield journal
            except BaseException:
                if journal.superseded:  # also after an interruption: the journal in memory is what is on disk
                    with suppress(WriteError):  # the lines as they are read the same: keep the error that stopped the run
                        journal.compact()
                raise
            if journal.superseded:
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


__all__ = ["EXPERIMENT", "Journal", "JournalFormat", "open_journal"]
