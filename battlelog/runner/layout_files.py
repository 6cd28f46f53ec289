"""Layouts to learn a prior from: JSON lines, each with a ``layout`` in the game-record format.

An experiment's games.jsonl (or games.jsonl.gz) works as it is: every player of game g met the same
board, so records with the same ``seed``, ``game`` and layout are one draw, counted once. Anything a
game could not have had is one line naming the file and the line: not JSON, no layout, another board or
fleet, a placement off the board, two ships on one cell or in contact the rules forbid
(:func:`parse_layout`, which the replay reads a record's layout with too).
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from battlelog.errors import BattlelogError, FileFormatError, RulesError
from battlelog.jsonfile import named_file, parse_json
from battlelog.rules.config import GameConfig, board_from_json, format_ships
from battlelog.rules.geometry import Placement
from battlelog.rules.layouts import parse_layout
from battlelog.rules.state import GameState
from battlelog.rules.variants import ALLOWED, Rules
from battlelog.wording import clip


@dataclass(frozen=True)
class Observed:
    """One game to learn from: its layout, and its final state (the shots) when the record has them."""

    layout: tuple[Placement, ...]
    state: GameState | None
    where: str


def read_layouts(paths: Iterable[str | Path], config: GameConfig) -> tuple[list[Observed], int]:
    """Every distinct game of the files (repeats of one game by several players counted once), and how
    many repeats were skipped. No game at all is a one-line error."""
    seen: set[tuple[Any, ...]] = set()
    out: list[Observed] = []
    repeats = 0
    for path in map(named_file, paths):
        lines = _lines(path)
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{path} line {number}"
            record = parse_json(line, where)
            if not isinstance(record, dict) or "layout" not in record:
                raise FileFormatError(f"{where}: expected a JSON object with a layout (a game record)")
            _check_board(record, config, where)
            layout = parse_layout(record["layout"], config, where)
            if "seed" in record and "game" in record:
                key = (repr(record["seed"]), repr(record["game"]), layout)
                if key in seen:
                    repeats += 1
                    continue
                seen.add(key)
            out.append(Observed(layout, _state(record, config, where), where))
    if not out:
        raise BattlelogError(f"no layouts in {', '.join(map(str, paths))}: nothing to learn from")
    return out, repeats


def _lines(path: Path) -> list[bytes]:
    """The file's lines (a ``.gz`` file unpacked); unreadable or empty is one line."""
    try:
        data = path.read_bytes()
        data = gzip.decompress(data) if path.suffix == ".gz" else data
    except (OSError, EOFError) as exc:
        raise FileFormatError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    if not data.strip():
        raise FileFormatError(f"{path}: empty: no layouts to learn from")
    return data.split(b"\n")


def _check_board(record: Mapping[str, Any], config: GameConfig, where: str) -> None:
    """A record that names a board or fleet must name this one."""
    if any(key in record for key in ("size", "rows", "cols")) and board_from_json(record, where) != (config.rows, config.cols):
        raise FileFormatError(f"{where}: a game on another board, not {config.shape}")
    if "ships" in record and record["ships"] != list(config.ships):
        raise FileFormatError(f"{where}: a game of fleet {clip(repr(record['ships']))}, not {format_ships(config.ships)}")
    try:
        touch = Rules.from_json(record["rules"]).touch if "rules" in record else ALLOWED
    except RulesError as exc:
        raise FileFormatError(f"{where}: {exc}") from None
    if touch != config.rules.touch:
        raise FileFormatError(f"{where}: a game under touch {touch}, not {config.rules.touch} (give --touch {touch})")


def _state(record: Mapping[str, Any], config: GameConfig, where: str) -> GameState | None:
    """The game's final state from the record's shots (None when it has none), under ``config``'s rules."""
    shots = record.get("shots")
    if not shots:
        return None
    return GameState.from_json(
        {**config.board_json(), "ships": list(config.ships), "rules": config.rules.to_json(), "shots": shots}, where
    )


__all__ = ["Observed", "parse_layout", "read_layouts"]
