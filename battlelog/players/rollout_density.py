"""The rollout base policy's density kept up to date shot by shot, instead of recounted at every simulated
move (:func:`battlelog.players.rollout_kernel.base_choice` recounts it: the reference).

A placement's standing is whether it counts (``alive``: it covers no blocked cell, no hit lies in its halo
under a touch rule, and ships of its length are afloat) and the open hits it covers (``opened``); it
weighs ``afloat * powers[opened]``, and a cell's score is the sum of the weights of the living
placements over it. A shot changes only the placements over its cell (and, under a touch rule, those
whose halo holds it); a sink changes those over the cells it resolves and those of the sunk length.
Placements are numbered ``v = j * most + p`` (length j, placement p, ``most`` the table's width).

Why the same shots as the recount: every weight and every sum of them is an integer below 2^53 where
the tables say so (``tables[10]``, :func:`battlelog.players.rollout_tables.exact_sums`), so float64
adds and subtracts them exactly, in any order, and each score equals the recount's bit for bit.
"""

from __future__ import annotations

import numpy as np

from battlelog.bits import SINKS_NAMED
from battlelog.engines.compiled import njit
from battlelog.optimum.search import popcount


@njit(cache=True)
def density(tables, start, alive, opened, score):
    """Every placement's standing and every cell's score in the state ``start`` describes."""
    masks, cells, counts, halos, touch, powers = tables[0], tables[1], tables[2], tables[3], tables[6], tables[9]
    blocked, hits, open_hits, afloat = start[0], start[1], start[2], start[4]
    most = masks.shape[1]
    score[:] = 0
    alive[:] = False
    for j in range(counts.shape[0]):
        if afloat[j] == 0:
            continue
        for p in range(counts[j]):
            fits, k = True, 0
            for w in range(blocked.shape[0]):
                if (masks[j, p, w] & blocked[w]) != 0 or (touch and (halos[j, p, w] & hits[w]) != 0):
                    fits = False
                    break
                k += popcount(masks[j, p, w] & open_hits[w])
            if fits:
                alive[j * most + p], opened[j * most + p] = True, k
                _add(cells[j, p], afloat[j] * powers[k], score)


@njit(cache=True, inline="always")
def _add(placed, weight, score):
    """Add ``weight`` to the score of each cell of a placement (``placed``: its cells, -1 after the last)."""
    for c in range(placed.shape[0]):
        if placed[c] < 0:
            break
        score[placed[c]] += weight


@njit(cache=True, inline="always")
def _drop_over(listed, x, tables, afloat, alive, opened, score):
    """Placements ``listed[x]`` (those over cell x, or those whose halo holds it) stop counting."""
    powers, placed, length = tables[9], tables[13], tables[15]
    for i in range(listed.shape[1]):
        v = listed[x, i]
        if v < 0:
            break
        if alive[v]:
            alive[v] = False
            _add(placed[v], -(afloat[length[v]] * powers[opened[v]]), score)


@njit(cache=True, inline="always")
def shot_at(tables, x, hit, afloat, alive, opened, score):
    """The standings after a shot at cell x: a miss blocks x; a hit opens it (one more open hit for the
    placements over it) and, under a touch rule, rules out the placements whose halo holds it."""
    powers, covering, haloing, placed, length = tables[9], tables[11], tables[12], tables[13], tables[15]
    if not hit:
        _drop_over(covering, x, tables, afloat, alive, opened, score)
        return
    for i in range(covering.shape[1]):
        v = covering[x, i]
        if v < 0:
            break
        if alive[v]:
            ships = afloat[length[v]]
            _add(placed[v], ships * powers[opened[v] + 1] - ships * powers[opened[v]], score)
            opened[v] += 1
    if tables[6]:
        _drop_over(haloing, x, tables, afloat, alive, opened, score)


@njit(cache=True)
def sunk(tables, before, blocked, was_afloat, afloat, alive, opened, score):
    """The standings after a sink changed the knowledge from ``before`` blocked and ``was_afloat`` to
    ``blocked`` and ``afloat``: the placements over newly blocked cells stop counting (open hits leave
    only with them), then those of a length with fewer ships afloat weigh less (nothing at none left)."""
    cells, counts, most, powers, covering = tables[1], tables[2], tables[0].shape[1], tables[9], tables[11]
    for w in range(blocked.shape[0]):
        fresh = blocked[w] & ~before[w]
        for b in range(64):
            if (fresh >> np.uint64(b)) & np.uint64(1):
                _drop_over(covering, w * 64 + b, tables, was_afloat, alive, opened, score)
    for j in range(counts.shape[0]):
        if afloat[j] == was_afloat[j]:
            continue
        for p in range(counts[j]):
            v = j * most + p
            if alive[v]:
                _add(cells[j, p], afloat[j] * powers[opened[v]] - was_afloat[j] * powers[opened[v]], score)
                alive[v] = afloat[j] > 0


@njit(cache=True)
def sink(tables, x, ship, hits, blocked, open_hits, afloat, common):
    """Update the knowledge after ship ``ship`` is sunk by the shot at cell ``x`` (``hits`` include it):
    the placements that may be the sunk ship are among those over x (``tables[11]``, by ascending length)."""
    fleet_index, sinks, covering, masks, length = tables[5], tables[7], tables[11], tables[14], tables[15]
    words = hits.shape[0]
    for w in range(words):
        common[w] = ~np.uint64(0)
    fitting_lengths, last = 0, -1
    for i in range(covering.shape[1]):
        v = covering[x, i]
        if v < 0:
            break
        j = length[v]
        if sinks == SINKS_NAMED and j != fleet_index[ship]:
            continue
        inside = True
        for w in range(words):
            if masks[v, w] & ~hits[w]:
                inside = False
                break
        if inside:
            if j != last:
                fitting_lengths += 1
                last = j
            for w in range(words):
                common[w] &= masks[v, w]
    if fitting_lengths == 0:
        return
    for w in range(words):
        blocked[w] |= common[w]
        open_hits[w] &= ~common[w]
    if sinks == SINKS_NAMED:
        afloat[fleet_index[ship]] -= 1
    elif fitting_lengths == 1 and afloat[last] > 0:
        afloat[last] -= 1
