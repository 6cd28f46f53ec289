"""The rollout player's compiled part: the base policy (the pdf player's density rule, ties in reading
order) and whole simulated games under it, thousands per move.

A simulated game's knowledge is what the pdf player knows from the answers (``battlelog.players.pdf``
and ``battlelog.players.knowledge``): the cells it may not count (misses and the cells certainly of
sunk ships, ``blocked``), the hits, the hits not explained by a sink (``open_hits``), and how many
ships of each length are afloat. Masks are rows of 64-bit words (cell x is bit x % 64 of word x // 64).
The hidden truth of a simulated game is one layout: ``owner[x]``, the ship on cell x (or -1), and
``left[i]``, ship i's cells not hit yet.

Sink rules (``sinks``): 0 named, 1 unnamed, 2 silent, as ``battlelog.optimum.layouts`` numbers them.
A sink resolves the cells common to every placement that may be the sunk ship (of its length when
named, of any length of the fleet when unnamed) through the sinking shot's cell inside the hits; a
named sink takes its ship off the fleet, an unnamed one a ship of its length when only one length
fits. This is :func:`battlelog.players.knowledge.sunk_cells` and ``afloat_lengths`` step by step
(:func:`battlelog.players.rollout_density.sink`).

A simulated game keeps the base policy's density up to date shot by shot (:func:`play_counted`,
:mod:`battlelog.players.rollout_density`) where its sums are exact in float64, as on every standard
board; elsewhere it recounts it at every move (:func:`play_out`, :func:`base_choice`): the same shots.
"""

from __future__ import annotations

import numpy as np

from battlelog.bits import SINKS_NAMED, SINKS_SILENT
from battlelog.engines.compiled import njit
from battlelog.optimum.search import popcount
from battlelog.players.rollout_density import density, shot_at, sink, sunk


@njit(cache=True)
def base_choice(masks, cells, counts, halos, touch, blocked, hits, open_hits, shot, afloat, n_cells, powers, score):
    """The base policy's shot: the unshot cell of highest density, the first in reading order on ties.

    A placement of a length with ships afloat counts when it covers no blocked cell and (``touch``)
    no hit lies in its halo; it weighs ``powers[k]`` per afloat ship, k the open hits it covers.
    ``score`` is scratch space of ``n_cells``. -1 when every cell is shot.
    """
    words = blocked.shape[0]
    score[:] = 0
    for j in range(counts.shape[0]):
        ships = afloat[j]
        if ships == 0:
            continue
        for p in range(counts[j]):
            fits = True
            k = 0
            for w in range(words):
                if masks[j, p, w] & blocked[w]:
                    fits = False
                    break
                if touch and halos[j, p, w] & hits[w]:
                    fits = False
                    break
                k += popcount(masks[j, p, w] & open_hits[w])
            if not fits:
                continue
            weight = ships * powers[k]
            for c in range(cells.shape[2]):
                x = cells[j, p, c]
                if x < 0:
                    break
                score[x] += weight
    return _best_unshot(score, shot, n_cells)


@njit(cache=True, inline="always")
def _best_unshot(score, shot, n_cells):
    """The unshot cell of highest score, the first in reading order on ties; -1 when every cell is shot."""
    best, chosen = -1.0, -1
    for x in range(n_cells):
        if (shot[x >> 6] >> np.uint64(x & 63)) & np.uint64(1):
            continue
        if score[x] > best:
            best, chosen = score[x], x
    return chosen


@njit(cache=True)
def play_out(tables, start, owner, left, first, record, scratch):
    """Shots to finish one simulated game from ``start`` against the truth ``owner``/``left``: ``first``
    (unless -1), then the base policy until every ship cell is hit. ``record`` receives the cells shot."""
    masks, cells, counts, halos, touch, sinks, n_cells, powers = (
        tables[0], tables[1], tables[2], tables[3], tables[6], tables[7], tables[8], tables[9]
    )
    blocked0, hits0, open0, shot0, afloat0 = start
    blocked, hits, open_hits, shot, afloat = blocked0.copy(), hits0.copy(), open0.copy(), shot0.copy(), afloat0.copy()
    ships_left = left.copy()
    score, common = scratch
    remaining = 0
    for i in range(ships_left.shape[0]):
        remaining += ships_left[i]
    shots = 0
    while remaining > 0:
        if shots == 0 and first >= 0:
            x = first
        else:
            x = base_choice(masks, cells, counts, halos, touch, blocked, hits, open_hits, shot, afloat, n_cells, powers, score)
        if x < 0:
            return -1  # every cell shot and a ship cell still unhit: the truth was not a layout of this state
        record[shots] = x
        shots += 1
        word, bit = x >> 6, np.uint64(1) << np.uint64(x & 63)
        shot[word] |= bit
        ship = owner[x]
        if ship < 0:
            blocked[word] |= bit
            continue
        hits[word] |= bit
        open_hits[word] |= bit
        ships_left[ship] -= 1
        remaining -= 1
        if ships_left[ship] == 0 and sinks != SINKS_SILENT:
            sink(tables, x, ship, hits, blocked, open_hits, afloat, common)
    return shots


@njit(cache=True)
def play_counted(tables, start, standing, owner, left, first, record, scratch):
    """:func:`play_out` with the density kept up to date shot by shot from ``standing`` (the standings and
    scores of ``start``: :mod:`battlelog.players.rollout_density`), not recounted: the same shots
    where every sum is exact (``tables[10]``)."""
    sinks, n_cells = tables[7], tables[8]
    blocked, hits, open_hits, shot, afloat = start[0].copy(), start[1].copy(), start[2].copy(), start[3].copy(), start[4].copy()
    alive, opened, score, common, before, was_afloat = scratch
    alive[:], opened[:], score[:] = standing
    ships_left = left.copy()
    remaining, shots = ships_left.sum(), 0
    while remaining > 0:
        x = first if shots == 0 and first >= 0 else _best_unshot(score, shot, n_cells)
        if x < 0:
            return -1  # as play_out: the truth was not a layout of this state
        record[shots] = x
        shots += 1
        word, bit = x >> 6, np.uint64(1) << np.uint64(x & 63)
        shot[word] |= bit
        ship = owner[x]
        if ship < 0:
            blocked[word] |= bit
            shot_at(tables, x, False, afloat, alive, opened, score)
            continue
        hits[word] |= bit
        open_hits[word] |= bit
        shot_at(tables, x, True, afloat, alive, opened, score)
        ships_left[ship] -= 1
        remaining -= 1
        if ships_left[ship] == 0 and sinks != SINKS_SILENT and remaining > 0:
            before[:], was_afloat[:] = blocked, afloat
            sink(tables, x, ship, hits, blocked, open_hits, afloat, common)
            sunk(tables, before, blocked, was_afloat, afloat, alive, opened, score)
    return shots


@njit(cache=True)
def rollouts(tables, start, owners, lefts, firsts, out):
    """``out[c, s]``: the shots to finish when ``firsts[c]`` is shot and then the base policy plays,
    with layout s as the truth (every candidate against the same layouts: common random numbers)."""
    record = np.empty(tables[8] + 1, dtype=np.int64)
    prepared = _prepared(tables, start)
    for c in range(firsts.shape[0]):
        for s in range(owners.shape[0]):
            out[c, s] = _play(tables, start, prepared, owners[s], lefts[s], firsts[c], record)


@njit(cache=True)
def _prepared(tables, start):
    """A move's scratch space and, where every sum is exact (``tables[10]``), the standings of ``start``,
    counted once for all its simulated games."""
    size, n, words = tables[0].shape[0] * tables[0].shape[1], tables[8], start[0].shape[0]
    standing = (np.zeros(size, dtype=np.bool_), np.zeros(size, dtype=np.int64), np.zeros(n, dtype=np.float64))
    if tables[10]:
        density(tables, start, standing[0], standing[1], standing[2])
    scratch = (np.empty(size, dtype=np.bool_), np.empty(size, dtype=np.int64), np.empty(n, dtype=np.float64),
               np.empty(words, dtype=np.uint64), np.empty(words, dtype=np.uint64), np.empty_like(start[4]))  # fmt: skip
    return standing, scratch


@njit(cache=True)
def _play(tables, start, prepared, owner, left, first, record):
    """One simulated game: the density kept up to date where that is exact, else recounted at every move."""
    standing, scratch = prepared
    if tables[10]:
        return play_counted(tables, start, standing, owner, left, first, record, scratch)
    return play_out(tables, start, owner, left, first, record, (scratch[2], scratch[3]))


@njit(cache=True)
def choice(tables, start):
    """The base policy's shot in the state ``start`` describes (-1 when every cell is shot)."""
    masks, cells, counts, halos, touch, n_cells, powers = (
        tables[0], tables[1], tables[2], tables[3], tables[6], tables[8], tables[9]
    )
    blocked, hits, open_hits, shot, afloat = start
    return base_choice(
        masks, cells, counts, halos, touch, blocked, hits, open_hits, shot, afloat, n_cells, powers, np.empty(n_cells)
    )


@njit(cache=True)
def simulated_game(tables, start, owner, left, first, record):
    """One game played out as :func:`rollouts` plays it, its shots written to ``record``; their number."""
    return _play(tables, start, _prepared(tables, start), owner, left, first, record)


@njit(cache=True)
def _code(left, ship, sinks):
    """The answer a layout gives to a hit on ``ship`` with ``left`` of its cells unhit before it: -1
    hit, else (its last cell) 100 + ship named, 100 unnamed, -1 silent."""
    if left > 1 or sinks == SINKS_SILENT:
        return -1
    return 100 + ship if sinks == SINKS_NAMED else 100


@njit(cache=True)
def exact_rollouts(owners, lefts, shot0, firsts, sinks, out):
    """``out[c, t]``: the shots to finish when ``firsts[c]`` is shot and then exact greedy plays, layout t
    the truth, where ``owners``/``lefts`` are every layout consistent with the state (each equally likely).

    Exact greedy shoots the unshot cell covered by the most layouts still consistent with the simulated
    answers (the first in reading order on ties): with every layout listed its counts are the exact
    marginals, and the truth being one of them is no bias, since it is one of them."""
    layouts, n = owners.shape
    most = 0
    for t in range(layouts):
        covered = 0
        for x in range(n):
            covered += owners[t, x] >= 0
        most = max(most, covered)
    cells = np.full((layouts, most), -1, dtype=np.int64)
    base = np.zeros(n, dtype=np.int64)
    for t in range(layouts):
        k = 0
        for x in range(n):
            if owners[t, x] >= 0:
                cells[t, k] = x
                k += 1
                base[x] += 1
    count = np.empty(n, dtype=np.int64)
    alive = np.empty(layouts, dtype=np.int64)
    left = np.empty_like(lefts)
    shot = np.empty(n, dtype=np.bool_)
    for c in range(firsts.shape[0]):
        for t in range(layouts):
            count[:] = base
            left[:, :] = lefts
            shot[:] = shot0
            for p in range(layouts):
                alive[p] = p
            living = layouts
            remaining = 0
            for i in range(lefts.shape[1]):
                remaining += lefts[t, i]
            shots = 0
            while remaining > 0:
                x = firsts[c]
                if shots > 0:
                    best, x = -1, -1
                    for y in range(n):
                        if not shot[y] and count[y] > best:
                            best, x = count[y], y
                shots += 1
                shot[x] = True
                ship = owners[t, x]
                truth = -2 if ship < 0 else _code(left[t, ship], ship, sinks)
                kept = 0
                for i in range(living):
                    p = alive[i]
                    q = owners[p, x]
                    answer = -2 if q < 0 else _code(left[p, q], q, sinks)
                    if answer != truth:
                        for k in range(most):
                            y = cells[p, k]
                            if y < 0:
                                break
                            count[y] -= 1
                        continue
                    if q >= 0:
                        left[p, q] -= 1
                    alive[kept] = p
                    kept += 1
                living = kept
                if ship >= 0:
                    remaining -= 1
            out[c, t] = shots
