"""Paths a command writes to, as given on the command line."""

from __future__ import annotations

from pathlib import Path

from battlelog.errors import BattlelogError


def output_path(text: str, option: str) -> Path:
    """``text`` as a path a command writes to, refusing an empty or blank one: ``Path("")`` is the current
    directory, so ``--out ""`` would scatter an experiment's files wherever the command happens to run."""
    if not text.strip():
        raise BattlelogError(f"{option} is empty: give the name of the file or folder to write")
    return Path(text)
