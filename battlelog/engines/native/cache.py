"""What the native engine remembers between calls: in its workspace, and on disk across processes.

- :class:`StateCache`: marginals of recent states, keyed by canonical form under the board's eight
  symmetries (four under a prior that weighs vertical ships) and bounded in size; a
  :class:`~battlelog.engines.workspace.Workspace` holds one. In an experiment a worker plays game after game in one
  workspace, and a deterministic player's first
  shots differ between games only by a symmetry of the board (the empty board's best cells are the
  four central ones, and so on), so the early, expensive states repeat.
- :class:`EmptyBoards`: the empty board of a configuration, on disk in the user's cache folder,
  keyed by board, fleet, touch rule (the one rule that changes an empty board), prior and :data:`FORMAT`,
  so that a new process answers the first move at once.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from battlelog.cachedir import cache_dir
from battlelog.engines.base import Marginals
from battlelog.engines.canonical import PosteriorKey, canonical_form
from battlelog.rules.config import GameConfig, format_ships
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import Symmetry
from battlelog.rules.variants import ALLOWED

#: Bump when what is stored (or how it is computed) changes: older files are then ignored.
FORMAT = 1


def transformed(marginals: Marginals, symmetry: Symmetry, config: GameConfig) -> Marginals:
    """The marginals of the image of a state, from the state's own."""
    placements = None
    if marginals.placements is not None:
        placements = []
        for ship, values in enumerate(marginals.placements):
            out = np.empty_like(values)
            out[symmetry.placement_order(config, ship)] = values
            placements.append(out)
    return Marginals(symmetry.board(marginals.cells), marginals.models, None if placements is None else tuple(placements))


class StateCache:
    """Marginals of recently seen states, least recently used dropped first, under symmetry."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[PosteriorKey, Marginals] = OrderedDict()

    def get(self, state: GameState, canonical: tuple[PosteriorKey, Symmetry] | None = None) -> Marginals | None:
        """The state's marginals if remembered; ``canonical`` is its canonical form, when already known."""
        key, symmetry = canonical or canonical_form(state)
        found = self._entries.get(key)
        if found is None:
            return None
        self._entries.move_to_end(key)
        return transformed(found, symmetry.inverse, state.config)

    def put(self, state: GameState, marginals: Marginals, canonical: tuple[PosteriorKey, Symmetry] | None = None) -> None:
        key, symmetry = canonical or canonical_form(state)
        self._entries[key] = transformed(marginals, symmetry, state.config)
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


class EmptyBoards:
    """Marginals of empty boards, one small file per board and fleet (a missing or damaged file is recomputed)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory

    def path(self, config: GameConfig) -> Path:
        directory = self.directory if self.directory is not None else cache_dir()
        touch = "" if config.rules.touch == ALLOWED else f"_touch-{config.rules.touch}"
        prior = config.effective_prior
        weighed = "" if prior.is_uniform else f"_prior-{prior.text()}"
        return (
            directory / f"native-v{FORMAT}" / f"{config.shape}_{format_ships(config.ships).replace(',', '-')}{touch}{weighed}.npz"
        )

    @staticmethod
    def meta(config: GameConfig) -> dict[str, Any]:
        """What a file records of its configuration (the touch rule only when it is not ``allowed`` and
        the prior only when it is not uniform, so that the files written before either existed still count)."""
        out: dict[str, Any] = {"format": FORMAT, **config.board_json(), "ships": list(config.ships)}
        if config.rules.touch != ALLOWED:
            out["touch"] = config.rules.touch
        if not config.effective_prior.is_uniform:
            out["prior"] = config.effective_prior.to_json()
        return out

    def load(self, config: GameConfig) -> Marginals | None:
        path = self.path(config)
        try:
            with np.load(path) as data:
                meta = json.loads(str(data["meta"]))
                if meta != self.meta(config):
                    return None
                placements = tuple(np.array(data[f"ship{i}"]) for i in range(len(config.ships)))
                return Marginals(np.array(data["cells"]), int(str(data["models"])), placements)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            return None

    def save(self, config: GameConfig, marginals: Marginals) -> None:
        """Write atomically; a cache that cannot be written is not an error (the answer is still right)."""
        path = self.path(config)
        meta = json.dumps(self.meta(config))
        arrays: dict[str, Any] = {f"ship{i}": p for i, p in enumerate(marginals.placements or ())}
        arrays.update(meta=np.array(meta), models=np.array(str(marginals.models)), cells=marginals.cells)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            scratch = path.with_suffix(f".{os.getpid()}.tmp.npz")
            np.savez(scratch, **arrays)
            scratch.replace(path)
        except OSError:
            return
