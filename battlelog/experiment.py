"""Experiments: every player plays the same boards in worker processes, and no finished game is lost.

An output directory holds:
  experiment.json   board size, fleet and seed: what decides game i's board (a rerun must match it)
  games.jsonl       one JSON line per game, failed ones included, appended and fsynced as it ends
  summary.csv/.md   the per-player summary (see :func:`write_summary`)

Running an experiment again skips every (player, game) pair already recorded, so an interrupted
run resumes where it stopped, and more games or another player extend it on the same boards.
A failed game (status "memory", "timeout" or "error") counts as recorded: it is not retried.
"""

from __future__ import annotations

import csv
import fcntl
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from tqdm import tqdm

from battlelog.errors import BattlelogError, FileFormatError
from battlelog.game import GameConfig, Placement, format_ships
from battlelog.harness import layout_for
from battlelog.players import PLAYERS
from battlelog.stats import ScoreSummary, summarize_scores
from battlelog.workers import OK, STATUSES, GameTask, Outcome, WorkerPool, available_cores, play_task, player_factory

MANIFEST, GAMES, SUMMARY_CSV, SUMMARY_MD = "experiment.json", "games.jsonl", "summary.csv", "summary.md"


@dataclass(frozen=True)
class Experiment:
    """Who plays (player names or ``module:Class`` specs, with per-player options), where, how often, from which seed."""

    config: GameConfig
    players: tuple[str, ...]
    games: int
    seed: int
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        if not self.players:
            raise BattlelogError("no players given; choose from " + ", ".join(PLAYERS))
        repeated = sorted({p for p in self.players if self.players.count(p) > 1})
        if repeated:
            raise BattlelogError(f"player {repeated[0]!r} is named twice")
        for player in self.players:
            player_factory(player)  # an unknown player is a one-line error now, not a failure per game
        for player in self.options:
            if player not in self.players:
                raise BattlelogError(f"options are given for player {player!r}, who is not playing")
        if self.games < 1:
            raise BattlelogError(f"the number of games must be at least 1, got {self.games}")
        if self.seed < 0:
            raise BattlelogError(f"the seed must be a non-negative whole number, got {self.seed}")

    def options_for(self, player: str) -> dict[str, Any]:
        return dict(self.options.get(player, {}))

    def manifest(self) -> dict[str, Any]:
        """What experiment.json stores: everything that decides the boards."""
        return {"size": self.config.size, "ships": list(self.config.ships), "seed": self.seed}


@dataclass(frozen=True)
class Limits:
    """How games run: worker processes, address-space limit per worker (bytes), time limit per game (s)."""

    workers: int = field(default_factory=available_cores)
    memory_bytes: int | None = 4 * 2**30
    time_seconds: float | None = 600.0

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise BattlelogError(f"the number of workers must be at least 1, got {self.workers}")
        if self.memory_bytes is not None and self.memory_bytes <= 0:
            raise BattlelogError("the memory limit must be positive")
        if self.time_seconds is not None and self.time_seconds <= 0:
            raise BattlelogError("the time limit must be positive")


@dataclass(frozen=True)
class RunReport:
    """What one run did: games found already recorded, games played now, and how many of those failed."""

    recorded_before: int
    played: int
    failed: int


# ----- the output directory ----------------------------------------------------------------------
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


def parse_records(data: bytes, source: Path, manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The games in the complete lines of ``data``; a torn last line (a run killed mid-write) is ignored."""
    records: list[dict[str, Any]] = []
    seen: dict[tuple[str, int], int] = {}
    for number, line in enumerate(data.split(b"\n")[:-1], start=1):
        where = f"{source} line {number}"
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise FileFormatError(f"{where}: not valid JSON") from None
        _check_record(record, where, manifest)
        key = (record["player"], record["game"])
        if key in seen:
            raise FileFormatError(f"{where}: repeats game {key[1]} of player {key[0]} (line {seen[key]})")
        seen[key] = number
        records.append(record)
    return records


def load_results(out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The manifest and recorded games of a finished or partial experiment (read only)."""
    manifest = read_manifest(out)
    path = out / GAMES
    try:
        data = path.read_bytes() if path.exists() else b""
    except OSError as exc:
        raise FileFormatError(f"{path}: cannot read ({exc.strerror})") from None
    return manifest, parse_records(data, path, manifest)


@contextmanager
def _journal(out: Path, experiment: Experiment) -> Iterator[tuple[BinaryIO, list[dict[str, Any]]]]:
    """games.jsonl opened for appending, locked against a second run, with the games already in it.

    Creates the directory and experiment.json on first use, refuses a directory that holds another
    experiment, and cuts off a torn last line so that appends start on a fresh line.
    """
    if out.exists() and not out.is_dir():
        raise BattlelogError(f"{out} is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
        journal = open(out / GAMES, "a+b")  # noqa: SIM115 - closed by the with block below
    except OSError as exc:
        raise BattlelogError(f"{out}: cannot write there ({exc.strerror})") from None
    with journal:
        try:
            fcntl.flock(journal.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BattlelogError(f"{out} is in use by another running experiment") from None
        journal.seek(0)
        data = journal.read()
        wanted = experiment.manifest()
        if (out / MANIFEST).exists():
            stored = read_manifest(out)
            if stored != wanted:
                raise BattlelogError(
                    f"{out} holds an experiment on {describe_experiment(stored)}, "
                    f"not {describe_experiment(wanted)}: use another output directory"
                )
        elif data:
            raise FileFormatError(f"{out} has {GAMES} but no {MANIFEST}: not an experiment directory battlelog wrote")
        else:
            scratch = out / (MANIFEST + ".tmp")
            scratch.write_text(json.dumps(wanted) + "\n")
            scratch.replace(out / MANIFEST)
        records = parse_records(data, out / GAMES, wanted)
        complete = data.rfind(b"\n") + 1
        if complete < len(data):
            os.ftruncate(journal.fileno(), complete)
        yield journal, records


def _append(journal: BinaryIO, record: Mapping[str, Any]) -> None:
    """Write one game as one line and force it to disk, so that a kill loses nothing finished."""
    journal.write((json.dumps(record) + "\n").encode())
    journal.flush()
    os.fsync(journal.fileno())


# ----- running -----------------------------------------------------------------------------------
def _check_options(records: list[dict[str, Any]], experiment: Experiment) -> None:
    """A player's recorded games must have been played with the options asked for now."""
    for record in records:
        player = record["player"]
        if player in experiment.players and record.get("options", {}) != experiment.options_for(player):
            raise BattlelogError(
                f"player {player}'s recorded games used options {record.get('options', {})}, "
                f"not {experiment.options_for(player)}: use another output directory"
            )


def _tasks(experiment: Experiment, done: set[tuple[str, int]]) -> Iterator[GameTask]:
    """The games still to play, game by game (so a partial run has paired results); one layout per game."""
    for game in range(experiment.games):
        waiting = [p for p in experiment.players if (p, game) not in done]
        if waiting:
            layout = layout_for(experiment.config, experiment.seed, game)
            for player in waiting:
                yield GameTask(player, experiment.options_for(player), experiment.config, experiment.seed, game, layout)


def placement_json(placement: Placement) -> dict[str, Any]:
    """A placement as games.jsonl stores it: ship, length, canonical cell and orientation (h/v)."""
    return {
        "ship": placement.ship,
        "length": placement.length,
        "row": placement.row,
        "col": placement.col,
        "orientation": placement.orientation,
    }


def game_record(outcome: Outcome) -> dict[str, Any]:
    """One line of games.jsonl.

    ``seconds`` is the players' thinking time (all moves) of a finished game, and the time until the
    failure of a failed one; ``peak_mb`` the worker's peak resident memory during the game (None when
    the worker was killed); ``shots`` are in the spec's format, empty for a failed game.
    """
    task: GameTask = outcome.task
    value = outcome.value or {}
    return {
        "player": task.player,
        "options": task.options,
        "size": task.config.size,
        "ships": list(task.config.ships),
        "seed": task.seed,
        "game": task.game,
        "status": outcome.status,
        "message": outcome.message,
        "score": value.get("score"),
        "seconds": value.get("seconds", round(outcome.seconds, 3)),
        "move_median_s": value.get("move_median_s"),
        "move_max_s": value.get("move_max_s"),
        "peak_mb": outcome.peak_mb,
        "layout": [placement_json(p) for p in task.layout],
        "shots": value.get("shots", []),
    }


def run_experiment(experiment: Experiment, out: Path, limits: Limits = Limits(), progress: bool = True) -> RunReport:
    """Play every (player, game) pair not yet recorded in ``out``, appending each game as it ends.

    On Ctrl-C the workers are stopped, every finished game stays recorded, and KeyboardInterrupt
    propagates; running the same experiment again resumes.
    """
    with _journal(out, experiment) as (journal, records):
        _check_options(records, experiment)
        done = {(r["player"], r["game"]) for r in records}
        wanted = {(p, g) for p in experiment.players for g in range(experiment.games)}
        todo = len(wanted - done)
        played = failed = 0
        if todo:
            pool = WorkerPool(play_task, min(limits.workers, todo), limits.memory_bytes, limits.time_seconds)
            bar = tqdm(total=todo, desc="games", unit="game", file=sys.stderr, disable=None if progress else True)
            with bar:
                for outcome in pool.run(_tasks(experiment, done)):
                    _append(journal, game_record(outcome))
                    played += 1
                    failed += outcome.status != OK
                    bar.update()
                    if failed:
                        bar.set_postfix(failed=failed, refresh=False)
        return RunReport(len(wanted & done), played, failed)


# ----- summaries ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlayerSummary:
    """One row of the summary: statistics of a player's finished games, and its failures by reason."""

    player: str
    scores: ScoreSummary
    failures: Mapping[str, int]
    seconds_per_move: float | None

    @property
    def failed(self) -> int:
        return sum(self.failures.values())


def _player_order(player: str) -> tuple[int, str]:
    """Registered players in the registry's order (weakest first, as the paper's table), then the rest."""
    names = list(PLAYERS)
    return (names.index(player), "") if player in names else (len(names), player)


def summarize_records(records: list[dict[str, Any]]) -> list[PlayerSummary]:
    """Per-player statistics over finished games; failed games are counted, not scored."""
    by_player: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_player.setdefault(record["player"], []).append(record)
    rows = []
    for player in sorted(by_player, key=_player_order):
        finished = [r for r in by_player[player] if r["status"] == OK]
        failures = Counter(r["status"] for r in by_player[player] if r["status"] != OK)
        moves = sum(r["score"] for r in finished)
        rows.append(
            PlayerSummary(
                player,
                summarize_scores([r["score"] for r in finished]),
                dict(sorted(failures.items())),
                sum(r["seconds"] for r in finished) / moves if moves else None,
            )
        )
    return rows


def paired_scores(records: list[dict[str, Any]], a: str, b: str) -> tuple[list[int], list[int]]:
    """Scores of players ``a`` and ``b`` on the games both finished, in game order, for
    :func:`battlelog.stats.paired_difference` (a game either player failed is left out of both)."""
    finished = {(r["player"], r["game"]): r["score"] for r in records if r["status"] == OK}
    games = sorted(g for (player, g) in finished if player == a and (b, g) in finished)
    return [finished[a, g] for g in games], [finished[b, g] for g in games]


def _number(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _cells(row: PlayerSummary) -> list[str]:
    s = row.scores
    ci = "-" if s.ci is None or s.ci.low is None else f"[{s.ci.low:.2f}, {s.ci.high:.2f}]"
    failed = str(row.failed) + (" (" + ", ".join(f"{n} {why}" for why, n in row.failures.items()) + ")" if row.failed else "")
    ms = None if row.seconds_per_move is None else 1000 * row.seconds_per_move
    per_move = "-" if ms is None else f"{ms:.0f}" if ms >= 100 else f"{ms:.3g}"
    return [
        row.player, str(s.n), failed, _number(s.mean, 2), ci, _number(s.median, 1), _number(s.std, 2),
        _number(s.min, 0), _number(s.max, 0), per_move,
    ]  # fmt: skip


_HEADER = ["player", "games", "failed", "mean", "95% CI", "median", "std", "min", "max", "ms/move"]


def summary_table(rows: list[PlayerSummary]) -> str:
    """The summary as an aligned Markdown table (readable in a terminal as it is)."""
    table = [_HEADER] + [_cells(row) for row in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(_HEADER))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))) + " |"

    rule = "|" + "|".join("-" * (w + 1) + ":" if i else ":" + "-" * (w + 1) for i, w in enumerate(widths)) + "|"
    return "\n".join([line(_HEADER), rule] + [line(cells) for cells in table[1:]])


def _csv_row(row: PlayerSummary) -> dict[str, Any]:
    s = row.scores
    return {
        "player": row.player,
        "games": s.n,
        "failed": row.failed,
        **{f"failed_{status}": row.failures.get(status, 0) for status in STATUSES if status != OK},
        "mean": s.mean,
        "ci_low": None if s.ci is None else s.ci.low,
        "ci_high": None if s.ci is None else s.ci.high,
        "median": s.median,
        "std": s.std,
        "min": s.min,
        "max": s.max,
        "seconds_per_move": row.seconds_per_move,
    }


def write_summary(out: Path, manifest: Mapping[str, Any], rows: list[PlayerSummary]) -> tuple[Path, Path]:
    """summary.csv (one row per player, raw numbers, empty where undefined) and summary.md, in ``out``."""
    csv_path, md_path = out / SUMMARY_CSV, out / SUMMARY_MD
    fields = list(_csv_row(rows[0])) if rows else ["player"]
    with open(csv_path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(_csv_row(row) for row in rows)
    md_path.write_text(f"# {describe_experiment(manifest)}\n\n{summary_table(rows)}\n")
    return csv_path, md_path


__all__ = [
    "Experiment",
    "Limits",
    "PlayerSummary",
    "RunReport",
    "describe_experiment",
    "game_record",
    "load_results",
    "paired_scores",
    "parse_records",
    "read_manifest",
    "run_experiment",
    "summarize_records",
    "summary_table",
    "write_summary",
]
