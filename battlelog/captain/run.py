"""A captain run: every captain on every board, K games each, each game journalled as it ends.

Games are played in the order board, game, captain, so that an interrupted run has compared its
captains on the same games; a rerun of the same command skips the games already recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from battlelog.captain import DEFAULT_THRESHOLD
from battlelog.captain.bank import default_bank, file_bank
from battlelog.captain.boards import TrueBoard
from battlelog.captain.captains import CAPTAINS, Captain
from battlelog.captain.game import play_game
from battlelog.captain.records import CAPTAIN_JOURNAL, game_key, manifest_of
from battlelog.errors import BattlelogError
from battlelog.questions.typecheck import Program
from battlelog.runner.journal import open_journal


@dataclass(frozen=True)
class Settings:
    """What decides every game of a run, and the captains' options."""

    seed: int = 0
    shots: int = 40
    questions: int = 15
    noise: float = 0.1
    threshold: float = DEFAULT_THRESHOLD
    bank: Path | None = None  # a bank file in place of the default bank
    human: Path | None = None  # the human programs' CSV of the default bank


def bank_for(board: TrueBoard, settings: Settings) -> list[Program]:
    if settings.bank is not None:
        return file_bank(settings.bank, board.names, board.rows, board.cols)
    return default_bank(settings.human, board.rows, board.cols, board.names, board.lengths)


def captains_for(names: Sequence[str], bank: list[Program], settings: Settings) -> list[Captain]:
    bank_name = settings.bank.name if settings.bank is not None else None
    return [CAPTAINS[name](bank, settings.threshold, bank_name) for name in names]


def check_boards(boards: Sequence[TrueBoard]) -> None:
    names = [board.name for board in boards]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise BattlelogError(f"--board: two boards named {repeated[0]}: a game is recorded by its board's file name")


def run_captains(
    boards: Sequence[TrueBoard], names: Sequence[str], games: int, out: Path, settings: Settings,
    report: Callable[[dict[str, Any]], None] = lambda record: None,
) -> list[dict[str, Any]]:
    """Play what is not recorded yet; returns every record of the run's boards and captains."""
    check_boards(boards)
    banks = {board.name: bank_for(board, settings) for board in boards}  # a bad bank is refused before any game
    manifest = manifest_of(settings.seed, settings.shots, settings.questions, settings.noise)
    with open_journal(out, manifest, CAPTAIN_JOURNAL) as journal:
        done = {game_key(r) for r in journal.records}
        for board in boards:
            captains = captains_for(names, banks[board.name], settings)
            for game in range(games):
                for captain in captains:
                    if (captain.label, board.name, game) in done:
                        continue
                    record = play_game(
                        board, captain, game=game, seed=settings.seed, shots=settings.shots,
                        questions=settings.questions, noise=settings.noise,
                    )  # fmt: skip
                    journal.append(record)
                    report(record)
        labels = {c.label for c in captains_for(names, [], settings)}
        wanted = {b.name for b in boards}
        return [r for r in journal.records if r["captain"] in labels and r["board"] in wanted and r["game"] < games]
