"""The table of solved belief states: a hash table of canonical keys, compiled code reads and writes it.

Each entry holds a canonical key, the total (exact, or a lower bound), its flag, the best shot in the
canonical frame, and the search nodes the entry cost (what eviction spares). The compiled side is in
:mod:`battlelog.optimum.search` (``find_slot``, ``store``, ``rehash``); this is its Python shape.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from battlelog.optimum import search
from battlelog.rules.config import GameConfig

#: Slots of a new table: grown by doubling (while the memory allows) when three quarters are used.
FIRST_CAPACITY = 1 << 14


@dataclass(frozen=True)
class StateTable:
    """The solved belief states: canonical key, total (exact, or a lower bound), flag, best shot in
    the canonical frame, and the search nodes the entry cost (what eviction spares)."""

    keys: np.ndarray
    values: np.ndarray
    flags: np.ndarray
    actions: np.ndarray
    works: np.ndarray

    @classmethod
    def empty(cls, capacity: int, words: int) -> StateTable:
        return cls(
            np.zeros((capacity, words), dtype=np.uint64),
            np.zeros(capacity, dtype=np.int64),
            np.zeros(capacity, dtype=np.int8),
            np.full(capacity, -1, dtype=np.int8),
            np.zeros(capacity, dtype=np.int64),
        )

    @staticmethod
    def entry_bytes(words: int) -> int:
        return 8 * words + 8 + 1 + 1 + 8

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.keys, self.values, self.flags, self.actions, self.works

    def grown(self, stats: np.ndarray) -> StateTable:
        """A table twice as large holding every entry of this one."""
        bigger = StateTable.empty(2 * len(self), self.keys.shape[1])
        search.rehash(self.arrays, bigger.arrays, stats)
        return bigger


__all__ = ["FIRST_CAPACITY", "StateTable"]


@dataclass(frozen=True)
class KeyShape:
    """How a belief state's canonical key is laid out for ``config`` (the cells' hit bits, then each ship's
    placement bits from ``offsets``, in ``words`` 64-bit words) and the largest table ``memory`` holds (a power
    of two, at least 1,024 slots): one definition for every solver that keys states this way."""

    offsets: np.ndarray
    words: int
    capacity: int

    @classmethod
    def of(cls, config: GameConfig, memory: int) -> KeyShape:
        counts = [len(config.placements(i)) for i in range(len(config.ships))]
        offsets = np.cumsum([config.cell_count, *counts[:-1]]).astype(np.int64)
        words = -(-(config.cell_count + sum(counts)) // 64)
        return cls(offsets, words, 1 << max(10, (memory // StateTable.entry_bytes(words)).bit_length() - 1))

    def first_table(self) -> StateTable:
        """An empty table of the first size (grown by doubling up to ``capacity``)."""
        return StateTable.empty(min(FIRST_CAPACITY, self.capacity), self.words)
