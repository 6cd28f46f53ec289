"""Late states answered from an earlier state's listed layouts: the native engine's floor within a game.

Once a state's layouts are listed (:mod:`battlelog.engines.native.few`), every later state of the same
game, and every next state a player asks about (lookahead's state plus one shot, the web's advice that
follows a game), has a subset of them. Under the transcript rule (docs/rules.md) a layout fits a state
when, fed its shots in order, it gives the recorded answers; the answers to the first shots do not
depend on the later ones, so the layouts of a state that extends a listed one by a few shots are the
listed layouts that give the new shots' recorded answers. The answer of a layout to shot t at x: a
miss when no ship covers x; else "sunk" when the ship covering x has all its cells shot by shot t
(inside H_t: every shot cell of a ship is a hit in a layout that fits the earlier shots), "hit"
otherwise; a silent game says "hit" either way, a named one says which ship. The touch rule needs no
test: every listed layout keeps it. So a new shot costs a few array operations over the listing,
with no grounding and no listing, which is where a late state's time went (docs/speed.md).

:class:`Listings` keeps the listings of recent states (the packed cells and the placement indices
:func:`~battlelog.engines.native.few.few_layouts` gives, plus each ship's cells), the least recently
used dropped first; a state is looked up by its shots: a remembered state whose shots are its first
ones, at most :data:`MAX_NEW` fewer (the longest such). The filtered listing keeps the rows in the
listed order, and a prior's weights are those of the layouts themselves, so the same figures follow
(counts exactly; under a prior the same sums in another order: equal to about 1e-15).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from battlelog.engines.native.few import LISTING_BYTES, cell_masks
from battlelog.engines.native.tables import key_fields, profile_bits
from battlelog.rules.answers import HIT, MISS
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import NAMED, SILENT

#: Most shots a state may add to a remembered one to be answered from its listing (each costs a few
#: array operations; a state further on is listed afresh, and then remembered).
MAX_NEW = 8
#: Most listings remembered, and most bytes they may hold together (the newest is always kept).
CAPACITY, MEMORY_BYTES = 16, LISTING_BYTES


class Listing:
    """The layouts of one state as :func:`~battlelog.engines.native.few.few_layouts` lists them (the ships'
    ``order``, per layout its ``covered`` cells packed and its placements ``chosen``); what filtering
    needs besides (per column the cells of its ship's placement, the cells shot) is made when first used."""

    def __init__(self, state: GameState, order: list[int], covered: np.ndarray, chosen: np.ndarray) -> None:
        self.config, self.shots = state.config, state.shots
        self.order, self.covered, self.chosen = order, covered, chosen
        self._cells: np.ndarray | None = None
        self._shot: np.ndarray | None = None

    @property
    def layouts(self) -> tuple[list[int], np.ndarray, np.ndarray]:
        """What ``few_layouts`` gives: the order of the ships, the covered cells and the placements chosen."""
        return self.order, self.covered, self.chosen

    @property
    def nbytes(self) -> int:
        """The bytes held once :attr:`cells` is made (the covered cells, the placements, each ship's cells)."""
        return int(self.covered.nbytes * (1 + len(self.order)) + self.chosen.nbytes)

    @property
    def cells(self) -> np.ndarray:
        """Per column and layout, the cells of that column's ship's placement, packed (columns x layouts x words)."""
        if self._cells is None:
            rows, n = self.config.rows, self.config.cols
            self._cells = np.stack(
                [cell_masks(rows, n, self.config.ships[ship])[self.chosen[:, c]] for c, ship in enumerate(self.order)]
            )
        return self._cells

    @property
    def shot(self) -> np.ndarray:
        """The cells shot, packed."""
        if self._shot is None:
            n, words = self.config.cols, self.covered.shape[1]
            bits = np.zeros(words * 64, dtype=np.uint8)
            bits[[s.row * n + s.col for s in self.shots]] = 1
            self._shot = np.packbits(bits, bitorder="little").view(np.uint64)
        return self._shot

    def extended(self, state: GameState) -> Listing:
        """The listing of ``state``, whose first shots are this listing's: the layouts that give its new
        shots' recorded answers (see the module's docstring), in the same order."""
        new = state.shots[len(self.shots) :]
        if not new:
            return self
        n, sinks = state.cols, state.config.rules.sinks
        covered, cells, shot = self.covered, self.cells, self.shot.copy()
        keep = np.ones(len(self.chosen), dtype=bool)
        for s in new:
            x = s.row * n + s.col
            word, bit = x >> 6, np.uint64(1 << (x & 63))
            shot[word] |= bit
            on = (covered[:, word] & bit) != 0
            if s.result == MISS:
                keep &= ~on
                continue
            keep &= on
            if sinks == SILENT:
                continue
            # per column and layout: its ship covers x and every cell of it has been shot
            done = ((cells[:, :, word] & bit) != 0) & ~(cells & ~shot).any(axis=2)
            if s.result == HIT:
                keep &= ~done.any(axis=0)
            elif sinks == NAMED and s.ship is not None:  # a named sink always names its ship
                keep &= done[self.order.index(s.ship)]
            else:
                keep &= done.any(axis=0)
        out = Listing(state, self.order, covered[keep], self.chosen[keep])
        out._cells, out._shot = cells[:, keep], shot
        return out


class Listings:
    """The listings of recent states, least recently used dropped first (by count and by bytes)."""

    def __init__(self, capacity: int = CAPACITY, memory: int = MEMORY_BYTES) -> None:
        self.capacity, self.memory = capacity, memory
        self._entries: list[Listing] = []
        self._bytes = 0  # held by the entries
        #: How many states were answered from a remembered listing, with layouts left (tests read it).
        self.reused = 0

    def find(self, state: GameState) -> Listing | None:
        """The listing of the remembered state with the most of ``state``'s first shots (all of them, or at
        most :data:`MAX_NEW` fewer), marked as just used; None when there is none."""
        shots, count = state.shots, len(state.shots)
        best: Listing | None = None
        for entry in reversed(self._entries):
            m = len(entry.shots)
            near = count - MAX_NEW <= m <= count and (best is None or m > len(best.shots))
            if near and (entry.config is state.config or entry.config == state.config) and shots[:m] == entry.shots:
                best = entry
                if m == count:
                    break
        if best is not None:
            self._entries.remove(best)
            self._entries.append(best)
        return best

    def extend(self, state: GameState) -> Listing | None:
        """The listing of ``state`` from a remembered one (remembered in turn when it has layouts), or None."""
        if not fits_unmerged(state.config):
            return None
        found = self.find(state)
        if found is None:
            return None
        out = found.extended(state)
        if len(out.chosen):
            self.reused += 1
            if out is not found:
                self.remember(out)
        return out

    def remember(self, listing: Listing) -> None:
        """Keep ``listing`` as the most recently used, dropping the least recently used past the bounds."""
        if not fits_unmerged(listing.config):
            return
        self._entries.append(listing)
        self._bytes += listing.nbytes
        while len(self._entries) > 1 and (len(self._entries) > self.capacity or self._bytes > self.memory):
            self._bytes -= self._entries.pop(0).nbytes

    def clear(self) -> None:
        self._entries.clear()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)


@lru_cache(maxsize=64)
def fits_unmerged(config: GameConfig) -> bool:
    """Whether every problem of ``config`` passes the sweep's key check without merging ships (its cheap
    first test, :func:`~battlelog.engines.native.tables.check_problem_bits`, counting touching pairs too):
    then a state answered from a listing would have passed it. Elsewhere (boards at the sweep's limit)
    whether a state passes depends on its domains, so such states are grounded and checked afresh."""
    width = min(config.rows, config.cols)
    field_bits, count_bits = key_fields(max(config.ships), [1] * len(config.ships))
    return field_bits * (width + 1) + profile_bits(config.rules.touch, width, True) + sum(count_bits) <= 64
