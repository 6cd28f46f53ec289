"""The bit-level pieces the engines, the optimum search and the players share, written once: cell masks as
rows of 64-bit words, the neighbours each touch rule keeps other ships off, how sink rules are coded for
compiled kernels, and the popcount those kernels use.

A bottom module: it imports numpy and the rule names only, never numba. A kernel that needs :func:`popcount`
compiled wraps it with ``battlelog.engines.compiled.njit`` where it is compiled (so a small board that never
compiles a kernel never loads numba: :mod:`battlelog.engines.native.jit`).
"""

from __future__ import annotations

import numpy as np

from battlelog.rules.variants import NAMED, SILENT, UNNAMED

#: Bits per word of a cell mask: cell x is bit x % 64 of word x // 64.
WORD = 64

#: How each sink rule is coded for compiled kernels (the optimum search, the rollout player, the late lister):
#: a sinking shot is answered ``sunk ship i``, ``sunk`` or ``hit``.
SINKS_NAMED, SINKS_UNNAMED, SINKS_SILENT = 0, 1, 2
SINK_CODES = {NAMED: SINKS_NAMED, UNNAMED: SINKS_UNNAMED, SILENT: SINKS_SILENT}

_SIDES = ((-1, 0), (0, -1), (0, 1), (1, 0))
#: Per touch rule, the neighbours of a ship's cell that another ship may not cover (a symmetric set: two ships
#: touch exactly when either one's cells meet the other's halo).
CONTACT: dict[str, tuple[tuple[int, int], ...]] = {
    "allowed": (),
    "diagonal": _SIDES,
    "none": _SIDES + ((-1, -1), (-1, 1), (1, -1), (1, 1)),
}


def words_for(cells: int) -> int:
    """64-bit words of a mask of ``cells`` cells."""
    return (cells + WORD - 1) // WORD


def pack_rows(bits: np.ndarray) -> np.ndarray:
    """Rows of 0/1 over the cells as rows of 64-bit words (cell i is bit i % 64 of word i // 64)."""
    rows, cells = bits.shape
    padded = np.zeros((rows, words_for(cells) * WORD), dtype=np.uint8)
    padded[:, :cells] = bits
    return np.packbits(padded, axis=1, bitorder="little").view(np.uint64)


def halos(boards: np.ndarray, touch: str) -> np.ndarray:
    """Per 0/1 board of ``boards`` (shape: boards x rows x cols), its cells and the neighbours ``touch`` keeps other
    ships off (:data:`CONTACT`)."""
    rows, cols = boards.shape[1:]
    out = boards.copy()
    for dr, dc in CONTACT[touch]:
        to = (slice(None), slice(max(dr, 0), rows + min(dr, 0)), slice(max(dc, 0), cols + min(dc, 0)))
        out[to] |= boards[:, max(-dr, 0) : rows + min(-dr, 0), max(-dc, 0) : cols + min(-dc, 0)]
    return out


def popcount(x: np.uint64) -> int:
    """Number of set bits of a 64-bit word (plain Python over numpy integers; kernels compile it with ``njit``)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))
