"""The placement search's compiled part (:mod:`battlelog.tallies.search` builds its arrays and reads its
results). Masks are rows of 64-bit words (cell x is bit x % 64 of word x // 64).

Arrays, per placement k: ``masks[k]`` its cells, ``halos[k]`` the cells its neighbours may not take,
``kind[k]`` its length's index (lengths longest first), ``lines_i[k, :lines_k[k]]`` the lines it lies on
(rows, then ``rows + column``) and ``lines_n`` its cells in each. Per tallied line j: ``lmask[j]`` its
cells and ``lidx[j]`` its index into ``need`` (what each line still needs; a line with no tally needs a
number no placement reaches). ``fleet[kind]``: ships left; ``floor[kind]``: the last placement taken of
that kind (the next one of that length comes after it, so that each set of ships is reached once).
``out``: solutions, steps, budget, whether the budget was exceeded, whether ``first`` holds a solution.
"""

from __future__ import annotations

import numpy as np

from battlelog import bits
from battlelog.engines.compiled import njit

#: Number of set bits of a 64-bit word, compiled here as every kernel compiles it (:func:`battlelog.bits.popcount`).
popcount = njit(cache=True)(bits.popcount)


@njit(cache=True)
def settle(free: np.ndarray, required: np.ndarray, need: np.ndarray, lmask: np.ndarray, lidx: np.ndarray) -> bool:
    """The lines' deductions until none applies (in place): a line whose need is met loses its free
    cells, one that needs all of them requires them. False when a line needs more than it has free or
    a required cell is no longer free."""
    words = free.shape[0]
    changed = True
    while changed:
        changed = False
        for j in range(lmask.shape[0]):
            n = 0
            for w in range(words):
                n += popcount(free[w] & lmask[j, w])
            want = need[lidx[j]]
            if want > n:
                return False
            if n == 0:
                continue
            if want == 0:
                for w in range(words):
                    free[w] &= ~lmask[j, w]
                changed = True
            elif want == n:
                for w in range(words):
                    extra = free[w] & lmask[j, w] & ~required[w]
                    if extra:
                        required[w] |= extra
                        changed = True
    for w in range(words):
        if required[w] & ~free[w]:
            return False
    return True


@njit(cache=True)
def node(free: np.ndarray, required: np.ndarray, alive: np.ndarray, n_alive: int, left: int, depth: int,
         masks: np.ndarray, halos: np.ndarray, kind: np.ndarray, lines_i: np.ndarray, lines_n: np.ndarray,
         lines_k: np.ndarray, need: np.ndarray, fleet: np.ndarray, floor: np.ndarray, lmask: np.ndarray,
         lidx: np.ndarray, stack: np.ndarray, chosen: np.ndarray, first: np.ndarray, out: np.ndarray) -> None:  # fmt: skip
    """Every solution below this node (see :mod:`battlelog.tallies.search`): the placements still
    possible narrowed from the parent's, free cells none covers turned to water, then the next ship of
    the length with the fewest places, each of its places a branch."""
    out[1] += 1
    if out[1] > out[2]:
        out[3] = 1
        return
    words = free.shape[0]
    if left == 0:
        for w in range(words):
            if required[w]:
                return
        for j in range(lidx.shape[0]):
            if need[lidx[j]] != 0:
                return
        out[0] += 1
        for d in range(depth):
            chosen[stack[d]] += 1
        if out[4] == 0:
            out[4] = 1
            first[:depth] = stack[:depth]
        return
    mine = np.empty(n_alive, dtype=np.int64)
    source = alive
    support = np.zeros(words, dtype=np.uint64)
    while True:
        m = 0
        support[:] = 0
        for a in range(n_alive):
            k = source[a]
            kd = kind[k]
            if fleet[kd] == 0 or k <= floor[kd]:
                continue
            ok = True
            for w in range(words):
                if masks[k, w] & ~free[w]:
                    ok = False
                    break
            if ok:
                for s in range(lines_k[k]):
                    if need[lines_i[k, s]] < lines_n[k, s]:
                        ok = False
                        break
            if ok:
                mine[m] = k
                m += 1
                for w in range(words):
                    support[w] |= masks[k, w]
        source = mine
        n_alive = m
        unsupported = False
        for w in range(words):
            if required[w] & ~support[w]:
                return
            if free[w] & ~support[w]:
                unsupported = True
        if not unsupported:
            break
        for w in range(words):
            free[w] &= support[w]
        if not settle(free, required, need, lmask, lidx):
            return
    ways = np.zeros(fleet.shape[0], dtype=np.int64)
    for a in range(n_alive):
        ways[kind[mine[a]]] += 1
    pick = -1
    for kd in range(fleet.shape[0]):
        if ways[kd] < fleet[kd]:
            return
        if fleet[kd] and (pick < 0 or ways[kd] < ways[pick]):
            pick = kd
    below = floor[pick]
    child_free = np.empty(words, dtype=np.uint64)
    child_required = np.empty(words, dtype=np.uint64)
    for a in range(n_alive):
        k = mine[a]
        if kind[k] != pick:
            continue
        for s in range(lines_k[k]):
            need[lines_i[k, s]] -= lines_n[k, s]
        fleet[pick] -= 1
        floor[pick] = k
        stack[depth] = k
        for w in range(words):
            child_free[w] = free[w] & ~(masks[k, w] | halos[k, w])
            child_required[w] = required[w] & ~masks[k, w]
        if settle(child_free, child_required, need, lmask, lidx):
            node(child_free.copy(), child_required.copy(), mine, n_alive, left - 1, depth + 1, masks, halos, kind,
                 lines_i, lines_n, lines_k, need, fleet, floor, lmask, lidx, stack, chosen, first, out)  # fmt: skip
        for s in range(lines_k[k]):
            need[lines_i[k, s]] += lines_n[k, s]
        fleet[pick] += 1
        if out[3]:
            break
    floor[pick] = below
