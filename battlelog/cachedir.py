"""Where battlelog keeps what it can recompute (empty boards, the web app's opening book, compiled
templates): one folder per user, chosen in one place so that every cache moves together."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """``$BATTLELOG_CACHE_DIR``, else ``$XDG_CACHE_HOME/battlelog``, else ``~/.cache/battlelog``."""
    explicit = os.environ.get("BATTLELOG_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "battlelog"
