"""The compiled search for the optimal policy: depth-first branch and bound over belief states.

A belief state is (C, H): the layouts still consistent with the answers (indices into a
:class:`~battlelog.optimum.layouts.LayoutTable`) and the hit cells. That is all the future depends
on: misses only matter through C, and every future answer of a layout follows from the layout and H.
Values are integer totals: ``T(C, H)`` is the sum over the layouts of C of the shots still to fire,

    T(C, H) = 0                                     when every ship cell is hit,
    T(C, H) = |C| + min_x  sum_a T(C_a, H_a)        otherwise,

where C_a are the layouts giving answer a at x (as the sink rule words it: "sunk ship i", "sunk",
or under silent sinks only "hit"; the game ends when every ship cell is hit under every rule). The
expected number of shots is T / |C|, so the search never rounds. Only cells that some layout of C
covers are worth a shot: a certain miss leaves C unchanged and costs a shot.

The table of solved states is keyed by a canonical form of (C, H) under the instance's symmetries.
(C, H) itself is too big to store, but H with, per ship, the set P_i of its placements found in C
determines C: C is exactly the layouts legal under the touch rule drawn from the P_i that cover H
(under every sink rule an answer constrains one ship's placement, by the per-ship tests of
docs/rules.md, or the union of ships; each P_i placement appears in some consistent layout, so it
passes its ship's test). That key takes N*N + sum_i |placements of i| bits. The symmetries
(:mod:`battlelog.optimum.group`) map legal layouts to legal ones under every touch rule (they keep
side and corner neighbours) and answers to answers under every sink rule (a relabelling renames
"sunk ship i", and changes nothing when sinks are unnamed or silent).

``search(C, H, beta)`` returns T(C, H) exactly when it is below ``beta``; otherwise some value in
[beta, T(C, H)], a lower bound (fail-high). Lower bounds found this way are stored too. Per action,
the children's lower bounds are summed first and the action is dropped as soon as solved children
plus bounds of the rest reach the best total so far (the expectimax "star1" cut). Each child gets
the window left over by its siblings.
"""

from __future__ import annotations

import numpy as np

from battlelog import bits
from battlelog.bits import SINKS_NAMED, SINKS_SILENT
from battlelog.engines.compiled import njit
from battlelog.rules.answers import HIT_CODE, MISS_CODE, SUNK_CODE

#: Slots of the shared statistics array (the progress thread reads them while the search runs).
(
    NODES, STORED, EVICTED, STOP, ROOT_DONE, ROOT_TOTAL, ROOT_BEST, EXACT_STORED, MAY_GROW, NODE_LIMIT, EXPANDED, ROOT_LOWER
) = range(12)
#: (EXPANDED counts the nodes whose shots were tried: neither found in the table nor cut by a bound;
#: ROOT_LOWER is the best lower bound on the root's total proven so far, by the solver's windows.)
STATS = 12
#: Values of stats[STOP]: why the search was asked to stop (to grow the table, or to save it, the caller
#: searches again at once: the table keeps everything solved).
RUNNING, STOP_ASKED, STOP_TO_GROW, STOP_TO_SAVE = 0, 1, 2, 3

#: Table flags.
EMPTY, LOWER, EXACT = 0, 1, 2

#: Option slots: what the search may use, so that each device's worth can be measured; and, not a
#: device, how the sink rule words a sinking shot (``layouts.SINKS_NAMED``, ``SINKS_UNNAMED`` or
#: ``SINKS_SILENT``).
OPT_BOUND, OPT_ORDER, OPT_SINKS, OPT_UPPER = range(4)
#: Lower bounds (see lower_bound): remaining ship cells only; plus the next shot's chance of a miss;
#: plus the misses expected before the next hit.
BOUND_CELLS, BOUND_ONE_STEP, BOUND_MISSES, BOUND_SHIPS = 0, 1, 2, 3
#: OPT_UPPER: states of at least this many layouts get greedy's exact total as an upper bound (see
#: policy_total); 0 = never. An options array of three slots (the endgame's) means 0.
#: Move orders: 0 = board order; 1 = by the actions' lower bounds.
ORDER_BOARD, ORDER_BOUND, ORDER_COVER = 0, 1, 2

#: Returned when the search was told to stop (no table entry is written on the way back).
STOPPED = -1
INFINITE = 1 << 62
#: Slots probed for a key before an entry is replaced.
PROBES = 32


#: Number of set bits of a 64-bit word (:func:`battlelog.bits.popcount`, compiled; the rollout kernels call it too).
popcount = njit(cache=True)(bits.popcount)


@njit(cache=True)
def _mix(x: np.uint64) -> np.uint64:
    """splitmix64's finaliser: spreads a word's bits over the whole word."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def finished_cells(layouts, hits, placement, ship_masks, present):
    """The cells of the ships that are over: one placement in every layout of C, all of it hit. Such a ship
    changes no future answer and, with one placement, pairs with each placement of the others exactly once,
    so (C, H) has the value of the same state without it: the key leaves it and its cells out, and states
    that differ only in where a sunk ship lay share one entry. ``present[i, k]``: some layout of C puts ship
    i on its placement k (filled here)."""
    ships = present.shape[0]
    for lay in layouts:
        for i in range(ships):
            present[i, placement[lay, i]] = True
    over = np.uint64(0)
    first = layouts[0]
    for i in range(ships):
        cells = ship_masks[first, i]
        if (cells & ~hits) == 0 and present[i].sum() == 1:
            over |= cells
            present[i, :] = False
    return over


@njit(cache=True)
def canonical_key(layouts, hits, placement, ship_masks, cell_perm, ship_perm, plc_perm, offsets, words):
    """The smallest packed key of (C, H) over the symmetry group (ships that are over left out: see
    finished_cells), the element reaching it, and which elements fix the state (its stabiliser)."""
    groups, ships = ship_perm.shape
    most = plc_perm.shape[2]
    present = np.zeros((ships, most), dtype=np.bool_)
    live_hits = hits & ~finished_cells(layouts, hits, placement, ship_masks, present)
    packed = np.zeros((groups, words), dtype=np.uint64)
    n_cells = cell_perm.shape[1]
    for g in range(groups):
        for x in range(n_cells):
            if (live_hits >> np.uint64(x)) & np.uint64(1):
                b = cell_perm[g, x]
                packed[g, b >> 6] |= np.uint64(1) << np.uint64(b & 63)
        for i in range(ships):
            base = offsets[ship_perm[g, i]]
            for k in range(most):
                if present[i, k]:
                    b = base + plc_perm[g, i, k]
                    packed[g, b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    best = 0
    for g in range(1, groups):
        for w in range(words):
            if packed[g, w] != packed[best, w]:
                if packed[g, w] < packed[best, w]:
                    best = g
                break
    stabiliser = np.zeros(groups, dtype=np.bool_)
    for g in range(groups):
        same = True
        for w in range(words):
            if packed[g, w] != packed[0, w]:
                same = False
                break
        stabiliser[g] = same
    return packed[best].copy(), best, stabiliser


@njit(cache=True)
def _home(keys, key):
    """The first slot of ``key``'s probe window."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for w in range(key.shape[0]):
        h = _mix(h ^ key[w])
    return np.int64(h & np.uint64(keys.shape[0] - 1))


@njit(cache=True)
def _same_key(keys, slot, key):
    for w in range(key.shape[0]):
        if keys[slot, w] != key[w]:
            return False
    return True


@njit(cache=True)
def find_slot(keys, flags, key):
    """The slot holding ``key``, or -1."""
    mask = keys.shape[0] - 1
    slot = _home(keys, key)
    for _ in range(PROBES):
        if flags[slot] == EMPTY:
            return -1
        if _same_key(keys, slot, key):
            return slot
        slot = (slot + 1) & mask
    return -1


@njit(cache=True)
def store(table, stats, key, value, flag, action, work):
    """Write an entry. When the key's window of PROBES slots is full, the entry whose search cost the
    fewest nodes (``work``) gives way: only speed is lost, an evicted state is searched again when
    needed, and the costly ones stay. ``table`` is (keys, values, flags, actions, works)."""
    keys, values, flags, actions, works = table
    mask = keys.shape[0] - 1
    slot = _home(keys, key)
    victim = -1
    evicting = True
    for _ in range(PROBES):
        if flags[slot] == EMPTY:
            victim, evicting = slot, False
            stats[STORED] += 1
            if stats[MAY_GROW] and 4 * stats[STORED] > 3 * keys.shape[0]:
                stats[STOP] = STOP_TO_GROW  # finish this write, then unwind: the caller grows the table
            break
        if _same_key(keys, slot, key):
            if flags[slot] == EXACT or (flag == LOWER and values[slot] >= value):
                return
            victim, evicting = slot, False
            break
        if victim < 0 or works[slot] < works[victim]:
            victim = slot
        slot = (slot + 1) & mask
    if evicting:
        stats[EVICTED] += 1
    if flags[victim] == EXACT:
        stats[EXACT_STORED] -= 1
    if flag == EXACT:
        stats[EXACT_STORED] += 1
    for w in range(key.shape[0]):
        keys[victim, w] = key[w]
    values[victim] = value
    flags[victim] = flag
    actions[victim] = action
    works[victim] = work


@njit(cache=True)
def rehash(table, bigger, stats):
    """Copy every entry of ``table`` into the larger table ``bigger``."""
    stats[STORED] = 0
    absorb(table, bigger, stats)


@njit(cache=True)
def absorb(entries, table, stats):
    """Store every entry of ``entries`` (a table's arrays) in ``table``, as the search stores its own: an exact
    total already there stays, a lower bound gives way to an exact total or a higher bound. Every entry is
    true of its state whoever found it, so a table may take in another search's of the same instance."""
    keys, values, flags, actions, works = entries
    for slot in range(keys.shape[0]):
        if flags[slot] != EMPTY:
            store(table, stats, keys[slot], values[slot], flags[slot], actions[slot], works[slot])


@njit(cache=True)
def _count_cells(cells, counts):
    """Add one to ``counts[x]`` for every bit x set in ``cells``."""
    while cells:
        low = cells & (~cells + np.uint64(1))
        counts[popcount(low - np.uint64(1))] += 1
        cells ^= low


@njit(cache=True)
def _cover(layouts, hits, union, n_cells):
    """How many of ``layouts`` cover each cell not yet hit."""
    cover = np.zeros(n_cells, dtype=np.int64)
    for lay in layouts:
        _count_cells(union[lay] & ~hits, cover)
    return cover


@njit(cache=True)
def lower_bound(n, remaining, cover, bound):
    """A lower bound on T of a state with ``n`` layouts and ``remaining`` unhit ship cells, where
    ``cover[x]`` layouts cover unshot cell x.

    Every layout needs its ``remaining`` hits. On top of that, the shots a policy fires until its
    next hit are misses, and while every shot so far has missed the policy's shots are a fixed
    sequence: after k of them at least n - (the k largest cover counts, summed) layouts are still
    missed. Summing over k counts misses before the next hit (BOUND_MISSES); its first term alone is
    the one-step bound (BOUND_ONE_STEP).
    """
    if remaining == 0:
        return 0
    if n == 1 or bound == BOUND_CELLS:
        return n * remaining
    if bound == BOUND_ONE_STEP:
        return n * remaining + n - cover.max()
    return n * remaining + _hunt_misses(cover, n)


@njit(cache=True)
def _hunt_misses(counts, n):
    """The misses before the first hit of a search among ``n`` placements, ``counts[x]`` of which cover
    cell x: after k misses at most the k largest counts are ruled out (lower_bound's argument)."""
    ranked = np.sort(counts)[::-1]
    misses = 0
    covered = 0
    for c in ranked:
        covered += c
        if covered >= n:
            break
        misses += n - covered
    return misses


@njit(cache=True)
def ship_bound(layouts, hits, ship_masks, placement, most):
    """A lower bound on the misses still to come, summed over ``layouts``: the largest over the ships i
    of the misses before i's first hit when the other ships' placements are known.

    Why it holds for every policy: telling the shooter the other ships' placements before play cannot
    raise the optimum (any policy can ignore what it is told). Given them (a group of layouts that
    agree on every ship but i), the layouts differ only in ship i's placement; if no hit cell lies on
    ship i there, every shot before i's first hit is on a known ship cell (no miss, no news) or a miss
    or hit on i, so until that hit the shots off the known cells are a fixed sequence and after k of
    them at most the k largest cover counts of i's placements are ruled out. The misses counted are
    misses of every policy, and each layout's remaining ship cells (counted apart) are hits.
    """
    n = layouts.shape[0]
    ships = ship_masks.shape[1]
    n_cells = 64
    best = 0
    keys = np.empty(n, dtype=np.int64)
    counts = np.zeros(n_cells, dtype=np.int64)
    for i in range(ships):
        for j in range(n):
            key = 0
            for s in range(ships):
                if s != i:
                    key = key * most + placement[layouts[j], s]
            keys[j] = key
        order = np.argsort(keys)
        total = 0
        start = 0
        while start < n:
            stop = start
            while stop < n and keys[order[stop]] == keys[order[start]]:
                stop += 1
            if stop - start > 1:
                counts[:] = 0
                afloat = 0
                for k in range(start, stop):
                    rest = ship_masks[layouts[order[k]], i] & ~hits
                    if rest:
                        afloat += 1
                        _count_cells(rest, counts)
                total += _hunt_misses(counts, afloat)
            start = stop
        best = max(best, total)
    return best


@njit(cache=True)
def orbit_cells(cover, stabiliser, cell_perm):
    """The candidate shots of a state: the cells some layout covers (``cover[x] > 0``), one per orbit of the
    state's stabiliser (the smallest cell of each), in increasing order."""
    n_cells = cover.shape[0]
    cells = np.empty(n_cells, dtype=np.int64)
    count = 0
    for x in range(n_cells):
        if cover[x] == 0:
            continue
        representative = True
        for h in range(stabiliser.shape[0]):
            if stabiliser[h] and cell_perm[h, x] < x:
                representative = False
                break
        if representative:
            cells[count] = x
            count += 1
    return cells[:count]


@njit(cache=True)
def _answers(layouts, hits, x, ship_masks, owner, sinks, answer, sizes):
    """Fill ``answer[j]`` with the answer code a shot at ``x`` gets under layout ``layouts[j]`` (miss,
    hit, or sunk by the sink rule), and ``sizes[code]`` with how many layouts give each."""
    bit = np.uint64(1) << np.uint64(x)
    for j in range(layouts.shape[0]):
        lay = layouts[j]
        ship = owner[lay, x]
        kind = MISS_CODE
        if ship >= 0:
            kind = HIT_CODE
            if (ship_masks[lay, ship] & ~(hits | bit)) == 0 and sinks != SINKS_SILENT:
                kind = SUNK_CODE + (ship if sinks == SINKS_NAMED else 0)
        answer[j] = kind
        sizes[kind] += 1


@njit(cache=True)
def _child(layouts, answer, kind, size):
    """The ``size`` layouts of ``layouts`` whose answer is ``kind``, in order: one child belief state."""
    child = np.empty(size, dtype=np.int32)
    k = 0
    for j in range(layouts.shape[0]):
        if answer[j] == kind:
            child[k] = layouts[j]
            k += 1
    return child


@njit(cache=True)
def _forced_cell(layouts, hits, cover, ship_masks, owner, sinks):
    """An unshot cell whose shot tells nothing, now or later, else -1: T(C, H) = |C| + T(C, H + x) there.

    x must be hit in every layout of C, with one answer, and firing it now must not change what any other
    shot says: then removing x from any policy's tree (each branch fires it once, since the game ends only
    when every ship cell is hit) gives a policy from (C, H + x) that sees at least as much, one shot per
    layout sooner, and firing x first costs exactly that. Three cases qualify: silent sinks (every hit says
    "hit"); x sinks a ship in every layout (nothing later can sink it); or, sinks named, x is a hit on the
    same ship i in every layout (firing it early only moves "sunk i" to the shot that now completes i,
    which tells no more than x would have). Not a hit on different ships with sinks named: shot late, x
    would say which ship it sinks, and nothing else might.
    """
    n = layouts.shape[0]
    for x in range(cover.shape[0]):
        if cover[x] != n:
            continue
        bit = np.uint64(1) << np.uint64(x)
        kind, same_ship = -1, -1
        for j in range(n):
            lay = layouts[j]
            ship = owner[lay, x]
            code = HIT_CODE
            if (ship_masks[lay, ship] & ~(hits | bit)) == 0 and sinks != SINKS_SILENT:
                code = SUNK_CODE + (ship if sinks == SINKS_NAMED else 0)
            if j == 0:
                kind, same_ship = code, ship
            elif code != kind:
                kind = -2
                break
            elif ship != same_ship:
                same_ship = -1
        if kind < 0:
            continue
        if sinks == SINKS_SILENT or kind >= SUNK_CODE or (sinks == SINKS_NAMED and same_ship >= 0):
            return x
    return -1


@njit(cache=True, nogil=True)
def _policy_total(layouts, hits, ship_masks, owner, union, fleet_cells, sinks):
    """The exact total (summed over ``layouts``) of the shots that the deterministic greedy policy
    "shoot the unshot cell the most layouts cover, the lowest such cell on ties" still fires.

    It is the value of a policy, so it is at least the optimum T(layouts, hits): an admissible upper
    bound, which gives the branch and bound a window from a state's first action on (its value is
    found by walking the policy's own tree, each node splitting the layouts by the answers).
    """
    n = layouts.shape[0]
    remaining = fleet_cells - popcount(hits)
    if remaining == 0:
        return 0
    if n == 1:
        return remaining
    n_cells = owner.shape[1]
    cover = _cover(layouts, hits, union, n_cells)
    x = np.argmax(cover)
    bit = np.uint64(1) << np.uint64(x)
    kinds = ship_masks.shape[1] + 2
    answer = np.empty(n, dtype=np.int8)
    sizes = np.zeros(kinds, dtype=np.int64)
    _answers(layouts, hits, x, ship_masks, owner, sinks, answer, sizes)
    total = n
    for kind in range(kinds):
        if sizes[kind] == 0:
            continue
        after = hits if kind == MISS_CODE else hits | bit
        total += _policy_total(_child(layouts, answer, kind, sizes[kind]), after, ship_masks, owner, union, fleet_cells, sinks)
    return total


@njit(cache=True, nogil=True)
def _ply_bound(layouts, hits, plies, ship_masks, owner, placement, union, fleet_cells, sinks, most):
    """A lower bound on T(layouts, hits) from ``plies`` shots of full expansion: the least over the
    covered cells x of |C| plus the children's bounds, the ship bound (and the misses before the next
    hit) at the leaves. Since T is |C| plus the least over x of the children's T, and an optimal x is
    covered (an uncovered cell costs a shot and changes nothing), the bound holds. No table: for
    proving bounds on boards the search cannot finish."""
    n = layouts.shape[0]
    remaining = fleet_cells - popcount(hits)
    if remaining == 0:
        return 0
    if n == 1:
        return remaining
    n_cells = owner.shape[1]
    cover = _cover(layouts, hits, union, n_cells)
    leaf = max(
        lower_bound(n, remaining, cover, BOUND_MISSES), n * remaining + ship_bound(layouts, hits, ship_masks, placement, most)
    )
    if plies == 0:
        return leaf
    kinds = ship_masks.shape[1] + 2
    answer = np.empty(n, dtype=np.int8)
    best = INFINITE
    for x in range(n_cells):
        if cover[x] == 0:
            continue
        bit = np.uint64(1) << np.uint64(x)
        sizes = np.zeros(kinds, dtype=np.int64)
        _answers(layouts, hits, x, ship_masks, owner, sinks, answer, sizes)
        total = n
        for kind in range(kinds):
            if sizes[kind] == 0:
                continue
            after = hits if kind == MISS_CODE else hits | bit
            child = _child(layouts, answer, kind, sizes[kind])
            total += _ply_bound(child, after, plies - 1, ship_masks, owner, placement, union, fleet_cells, sinks, most)
            if total >= best:
                break
        best = min(best, total)
    return max(best, leaf)


@njit(cache=True, nogil=True)
def _search(
    layouts, hits, beta, depth, ship_masks, owner, placement, union, cell_perm, ship_perm, plc_perm,
    offsets, words, fleet_cells, table, stats, options,
):
    """T(layouts, hits) if it is below ``beta``, else a lower bound of at least ``beta`` (see the
    module's docstring); STOPPED when ``stats[STOP]`` was set."""
    n = layouts.shape[0]
    remaining = fleet_cells - popcount(hits)
    if remaining == 0:
        return 0
    if n == 1:
        return remaining
    if stats[STOP]:
        return STOPPED
    stats[NODES] += 1
    if stats[NODE_LIMIT] and stats[NODES] > stats[NODE_LIMIT]:  # a budget in nodes: the same for every run
        stats[STOP] = STOP_ASKED
        return STOPPED
    start = stats[NODES]
    key, g, stabiliser = canonical_key(layouts, hits, placement, ship_masks, cell_perm, ship_perm, plc_perm, offsets, words)
    keys, values, flags = table[0], table[1], table[2]
    slot = find_slot(keys, flags, key)
    known = 0
    if slot >= 0:
        if flags[slot] == EXACT:
            return values[slot]
        known = values[slot]
    n_cells = owner.shape[1]
    ships = ship_masks.shape[1]
    bound = options[OPT_BOUND]
    sinks = options[OPT_SINKS]

    # How many layouts cover each unshot cell: the one-step bound, and which cells are worth a shot.
    cover = _cover(layouts, hits, union, n_cells)
    forced = _forced_cell(layouts, hits, cover, ship_masks, owner, sinks)
    if forced >= 0:  # a shot every layout answers alike: take it now (see _forced_cell), no choice to search
        value = _search(
            layouts, hits | (np.uint64(1) << np.uint64(forced)), beta - n, depth + 1, ship_masks, owner, placement, union,
            cell_perm, ship_perm, plc_perm, offsets, words, fleet_cells, table, stats, options,
        )  # fmt: skip
        if value == STOPPED:
            return STOPPED
        value += n
        exact = value < beta
        store(
            table, stats, key, value, EXACT if exact else LOWER, cell_perm[g, forced] if exact else -1, stats[NODES] - start + 1
        )
        return value
    lower = max(known, lower_bound(n, remaining, cover, bound))
    if bound == BOUND_SHIPS and lower < beta:
        lower = max(lower, n * remaining + ship_bound(layouts, hits, ship_masks, placement, plc_perm.shape[2]))
    if lower >= beta:
        store(table, stats, key, lower, LOWER, -1, 1)
        return lower
    upper_from = options[OPT_UPPER] if options.shape[0] > OPT_UPPER else 0
    if upper_from and n >= upper_from:
        # Greedy's total is a policy's: T <= upper. Equal bounds settle the state; otherwise a window
        # of upper + 1 still returns T exactly (T < upper + 1) and prunes every action that passes it.
        upper = _policy_total(layouts, hits, ship_masks, owner, union, fleet_cells, sinks)
        if lower >= upper:
            store(table, stats, key, upper, EXACT, cell_perm[g, np.argmax(cover)], 1)
            return upper
        beta = min(beta, upper + 1)

    stats[EXPANDED] += 1
    # Candidate shots: one per orbit of the state's stabiliser, among cells some layout covers.
    cells = orbit_cells(cover, stabiliser, cell_perm)
    count = cells.shape[0]

    # Each candidate's answers, bucket sizes and children's bounds.
    kinds = ships + 2
    answer = np.empty((count, n), dtype=np.int8)
    sizes = np.zeros((count, kinds), dtype=np.int64)
    child_lower = np.zeros((count, kinds), dtype=np.int64)
    action_lower = np.zeros(count, dtype=np.int64)
    child_cover = np.zeros((kinds, n_cells), dtype=np.int64)
    for a in range(count):
        x = cells[a]
        bit = np.uint64(1) << np.uint64(x)
        child_cover[:, :] = 0
        for j in range(n):
            lay = layouts[j]
            ship = owner[lay, x]
            if ship < 0:
                kind = MISS_CODE
                after = hits
            else:
                after = hits | bit
                kind = HIT_CODE
                if (ship_masks[lay, ship] & ~after) == 0 and sinks != SINKS_SILENT:
                    kind = SUNK_CODE + (ship if sinks == SINKS_NAMED else 0)
            answer[a, j] = kind
            sizes[a, kind] += 1
            _count_cells(union[lay] & ~after, child_cover[kind])
        total = n
        for kind in range(kinds):
            if sizes[a, kind]:
                left = remaining if kind == MISS_CODE else remaining - 1
                child_lower[a, kind] = lower_bound(sizes[a, kind], left, child_cover[kind], bound)
                total += child_lower[a, kind]
        action_lower[a] = total

    if options[OPT_ORDER] == ORDER_BOUND:
        order = np.argsort(action_lower, kind="mergesort")
    elif options[OPT_ORDER] == ORDER_COVER:  # the most probable cell first, then by bound
        order = np.argsort(action_lower - np.int64(1 << 40) * cover[cells], kind="mergesort")
    else:
        order = np.arange(count)
    if depth == 0:
        stats[ROOT_TOTAL] = count
        stats[ROOT_DONE] = 0

    best = beta
    best_cell = -1
    floor = INFINITE  # the least lower bound over the actions that did not beat ``best``
    for a in order:
        if depth == 0:
            stats[ROOT_DONE] += 1
        if action_lower[a] >= best:
            floor = min(floor, action_lower[a])
            if options[OPT_ORDER] == ORDER_BOUND:
                break
            continue
        x = cells[a]
        bit = np.uint64(1) << np.uint64(x)
        running = action_lower[a]
        kind_order = np.argsort(-sizes[a], kind="mergesort")
        complete = True
        for kind in kind_order:
            size = sizes[a, kind]
            if size == 0:
                continue
            child = _child(layouts, answer[a], kind, size)
            after = hits if kind == MISS_CODE else hits | bit
            running -= child_lower[a, kind]
            value = _search(
                child, after, best - running, depth + 1, ship_masks, owner, placement, union, cell_perm, ship_perm,
                plc_perm, offsets, words, fleet_cells, table, stats, options,
            )
            if value == STOPPED:
                return STOPPED
            running += value
            if running >= best:
                complete = False
                break
        if complete:
            best = running
            best_cell = x
            if depth == 0:
                stats[ROOT_BEST] = best
        else:
            floor = min(floor, running)
    if best_cell >= 0:
        store(table, stats, key, best, EXACT, cell_perm[g, best_cell], stats[NODES] - start + 1)
        return best
    floor = max(floor, lower)
    store(table, stats, key, floor, LOWER, -1, stats[NODES] - start + 1)
    return floor


# numba caches a recursive function badly when a recursive call's argument types differ from the outer
# call's (numba issues #6061, #6713): a process that loads such an entry from the disk cache aborts on an
# unresolved symbol or crashes. Each recursive search below is therefore entered through a function that
# gives it one signature (layouts int32, as its children are; hits uint64; counts int64), so that its
# recursive calls are always the outer call's own.


@njit(cache=True, nogil=True)
def policy_total(layouts, hits, ship_masks, owner, union, fleet_cells, sinks):
    """:func:`_policy_total`, entered with one signature (see above)."""
    return _policy_total(
        layouts.astype(np.int32), np.uint64(hits), ship_masks, owner, union, np.int64(fleet_cells), np.int64(sinks)
    )


@njit(cache=True, nogil=True)
def ply_bound(layouts, hits, plies, ship_masks, owner, placement, union, fleet_cells, sinks, most):
    """:func:`_ply_bound`, entered with one signature (see above)."""
    return _ply_bound(
        layouts.astype(np.int32), np.uint64(hits), np.int64(plies), ship_masks, owner, placement, union,
        np.int64(fleet_cells), np.int64(sinks), np.int64(most),
    )  # fmt: skip


@njit(cache=True, nogil=True)
def search(
    layouts, hits, beta, depth, ship_masks, owner, placement, union, cell_perm, ship_perm, plc_perm,
    offsets, words, fleet_cells, table, stats, options,
):
    """:func:`_search`, entered with one signature (see above)."""
    return _search(
        layouts.astype(np.int32), np.uint64(hits), np.int64(beta), np.int64(depth), ship_masks, owner, placement, union,
        cell_perm, ship_perm, plc_perm, offsets, words, np.int64(fleet_cells), table, stats, options,
    )  # fmt: skip
