"""The compiled late-state lister's loop (:mod:`battlelog.engines.native.late` explains it; :mod:`.jit`
compiles it once the process has loaded numba). One self-contained function, as numba compiles it."""

from __future__ import annotations

import numpy as np


def list_layouts(cells, masks, halos, start, miss, hit_at, sunk, sinks, pair_limit):
    """Ground each ship's placements by the answers, then list the layouts (see late.py). ``sinks``: 0 named,
    1 unnamed, 2 silent. Returns (the ships' order, covered cells packed, placements chosen), or three empty
    arrays when a ship would test more than ``pair_limit`` (partial layout, placement) pairs."""
    ships = start.shape[0] - 1
    words = masks.shape[1]
    named_sinks = np.zeros(ships, dtype=np.int64)
    if sinks == 0:
        for x in range(sunk.shape[0]):
            if sunk[x] >= 0:
                named_sinks[sunk[x]] += 1
    # Ground: each ship's placements that give the recorded answers, in canonical order.
    domain = np.empty(start[ships], dtype=np.int64)
    size = np.zeros(ships, dtype=np.int64)
    for ship in range(ships):
        for k in range(start[ship], start[ship + 1]):
            hits, last, announced, at_last, naming, length, passes = 0, -1, 0, False, 0, 0, True
            for j in range(cells.shape[1]):
                x = cells[k, j]
                if x < 0:
                    break
                length += 1
                if miss[x]:
                    passes = False
                    break
                t = hit_at[x]
                if t < 0:
                    continue
                hits += 1
                if t > last:
                    last, at_last = t, False
                if sunk[x] >= 0 and (sinks == 1 or sunk[x] == ship):
                    announced += 1
                    naming += sinks == 0
                    if t == last:
                        at_last = True
            if not passes or (sinks == 0 and naming != named_sinks[ship]):  # a miss on it, or a sink naming it off it
                continue
            if sinks != 2 and ((announced != 1 or not at_last) if hits == length else announced != 0):
                continue  # sunk by its last hit, and only then
            domain[start[ship] + size[ship]] = k
            size[ship] += 1
    order = np.argsort(size, kind="mergesort")  # fewest placements first, ties by ship number
    empty = (np.empty(0, dtype=np.int64), np.empty((0, words), dtype=np.uint64), np.empty((0, ships), dtype=np.int64))
    # List: one ship after another, each placement joining every partial layout whose blocked cells it misses.
    covered = np.zeros((1, words), dtype=np.uint64)
    blocked = np.zeros((1, words), dtype=np.uint64)
    chosen = np.zeros((1, ships), dtype=np.int64)
    for column in range(ships):
        ship = order[column]
        count = covered.shape[0]
        if count * size[ship] > pair_limit:
            return empty
        new_covered = np.empty((count * size[ship], words), dtype=np.uint64)
        new_blocked = np.empty((count * size[ship], words), dtype=np.uint64)
        new_chosen = np.empty((count * size[ship], ships), dtype=np.int64)
        m = 0
        for p in range(count):
            for d in range(size[ship]):
                k = domain[start[ship] + d]
                fits = True
                for w in range(words):
                    if blocked[p, w] & masks[k, w]:
                        fits = False
                        break
                if not fits:
                    continue
                for w in range(words):
                    new_covered[m, w] = covered[p, w] | masks[k, w]
                    new_blocked[m, w] = blocked[p, w] | halos[k, w]
                new_chosen[m, :column] = chosen[p, :column]
                new_chosen[m, column] = k - start[ship]
                m += 1
        covered, blocked, chosen = new_covered[:m], new_blocked[:m], new_chosen[:m]
    # Keep the layouts that cover every hit.
    required = np.zeros(words, dtype=np.uint64)
    for x in range(hit_at.shape[0]):
        if hit_at[x] >= 0:
            required[x >> 6] |= np.uint64(1) << np.uint64(x & 63)
    m = 0
    for i in range(covered.shape[0]):
        whole = True
        for w in range(words):
            if covered[i, w] & required[w] != required[w]:
                whole = False
        if whole:
            covered[m] = covered[i]
            chosen[m] = chosen[i]
            m += 1
    return order, covered[:m].copy(), chosen[:m].copy()
