"""The counting kernel: one sweep step forward, one step back. Plain Python in numba's subset.

This module does not import numba. :mod:`battlelog.engines.native.jit` runs these functions as
they are while the levels of a sweep are small (no compilation, no numba import: a 5x5 board
answers in milliseconds from a cold start) and compiles them with numba, cached on disk, once a
level grows large. Every integer is an explicit numpy type, so the two agree bit for bit.

A transition's action is 0 when no placement starts at the cell (the cell is left empty, or it is
covered by a ship started earlier) and ``1 + 2 * kind + orientation`` when a ship of that kind
starts there (orientation 0 horizontal, 1 vertical). See :mod:`battlelog.engines.native.tables`
for the layout of a state's key.

Touch rules. Under ``diagonal`` (``touch == 1``) and ``none`` (``touch == 2``) the key also holds the
occupancy of the last cells swept, and a transition that covers the cell is written only if the
covered cell meets no other ship where the rule forbids it. Of two side-adjacent cells the sweep
meets one last; that one is checked against its left and upper neighbours:

- it continues a horizontal ship (its left neighbour is that ship): the cell above must be empty;
- it continues a vertical ship (the cell above is that ship): the cell to the left must be empty;
- a ship starts on it: the cells to the left and above must both be empty;
- under ``none``, whenever it is covered: the cells above-left and above-right must be empty too
  (a ship is straight, so a corner neighbour is always another ship).

Under ``allowed`` with a prior that weighs touching ships (``touch == 3``) the profile is kept as
under ``diagonal`` but nothing is forbidden: :func:`expand` writes the touching pairs each transition completes,
which :mod:`battlelog.engines.native.weight_kernel` weighs.

Column 0 has no left or above-left neighbour and the last column no above-right one; in row 0 the
profile holds no covered cell yet. The sweep runs over the image of the board under a symmetry
(``tables.symmetry``): both rules are invariant under the board's eight symmetries (a symmetry maps
side neighbours to side neighbours and corner neighbours to corner neighbours), so checking the
image's layouts counts exactly the board's.
"""

from __future__ import annotations

import numpy as np

#: Golden-ratio multiplier of the hash (Fibonacci hashing spreads structured keys well).
_MIX = np.uint64(0x9E3779B97F4A7C15)
_HALF = np.uint64(32)


def expand(
    keys: np.ndarray,
    cell: int,
    cols: int,
    field_bits: int,
    lengths: np.ndarray,
    count_shift: np.ndarray,
    count_mask: np.ndarray,
    starts: np.ndarray,
    required: np.ndarray,
    settled_after: np.uint64,
    touch: int,
    profile_bits: int,
    out_keys: np.ndarray,
    out_action: np.ndarray,
    out_pairs: np.ndarray,
    out_first: np.ndarray,
) -> int:
    """Every transition out of the states ``keys`` at ``cell``; returns how many were written.

    Transitions of state ``s`` go to ``out_*[out_first[s]:out_first[s + 1]]``. A transition that
    would leave a required (hit) cell uncovered, pass the last start of a kind that still has
    ships to place (``settled_after``), or break the touch rule ``touch`` (0 allowed, 1 diagonal,
    2 none; ``profile_bits`` of occupancy profile), is not written: that state has no future.

    Under ``TRACKED`` (3) ``out_pairs`` gets the pairs of side-adjacent cells covered by two different ships that each
    transition completes (0 to 2), read from the profile: of two such cells the sweep meets one last, and counts the pair
    there when it is covered: its left neighbour is another ship unless a vertical ship goes on through it (a horizontal
    one runs on from the left), its upper neighbour unless a vertical one does; a ship starting on the cell is another
    ship than both. Under the other rules ``out_pairs`` is not written (it may be empty).
    """
    col = cell % cols
    last_row = cell >= required.shape[0] - cols
    one = np.uint64(1)
    field = np.uint64((1 << field_bits) - 1)
    col_shift = np.uint64(field_bits * col)
    run_shift = np.uint64(field_bits * cols)
    kinds = lengths.shape[0]
    # The occupancy profile sits just above hrem. A cell that no later cell neighbours is dropped
    # from it, so that states that differ only there merge: after the last column, the cell two rows
    # back (above-left of nothing); in the last row, the cells behind in this row; after the last cell, all.
    profile_shift = np.uint64(field_bits * (cols + 1))
    profile_mask = np.uint64((1 << profile_bits) - 1)
    kept = np.uint64((1 << min(profile_bits, cols)) - 1) if col == cols - 1 else profile_mask
    if last_row:
        kept = np.uint64(0) if col == cols - 1 else kept & ~np.uint64(((1 << (col + 1)) - 1) ^ 1)
    written = 0
    for s in range(keys.shape[0]):
        out_first[s] = written
        key = keys[s]
        below = (key >> col_shift) & field  # ext[col]: a vertical ship covers this cell
        along = (key >> run_shift) & field  # hrem: a horizontal ship covers this cell
        # empty / full: the key with the profile shifted on past this cell, left empty or covered.
        empty = key
        full = key
        left = False  # the cell to the left is covered
        above = False  # the cell above is covered
        corner = False  # under none: the cell above-left or above-right is covered
        pair_left = 0  # TRACKED: the cell to the left is covered (a pair if another ship covers this one)
        pair_above = 0  # TRACKED: the cell above is covered
        if touch > 0:
            profile = (key >> profile_shift) & profile_mask
            empty = (key & ~(profile_mask << profile_shift)) | (((profile << one) & kept) << profile_shift)
            full = empty | ((kept & one) << profile_shift)
            if touch < 3:  # 3 (TRACKED): the profile is kept for a prior's touch weight, nothing is forbidden
                left = col > 0 and (profile & one) != 0
                above = ((profile >> np.uint64(cols - 1)) & one) != 0
            else:
                pair_left = 1 if col > 0 and (profile & one) != 0 else 0
                pair_above = 1 if ((profile >> np.uint64(cols - 1)) & one) != 0 else 0
            if touch == 2:
                above_left = col > 0 and ((profile >> np.uint64(cols)) & one) != 0
                above_right = col < cols - 1 and ((profile >> np.uint64(cols - 2)) & one) != 0
                corner = above_left or above_right
        if below > 0 or along > 0:
            # A horizontal ship goes on: nothing above; a vertical one: nothing to the left.
            if corner or (along > 0 and above) or (below > 0 and left):
                continue
            child = full - (one << run_shift) if along > 0 else full - (one << col_shift)
            if child & settled_after == 0:
                out_keys[written] = child
                out_action[written] = 0
                if touch == 3:
                    out_pairs[written] = pair_above if along > 0 else pair_left
                written += 1
            continue
        if not required[cell] and empty & settled_after == 0:
            out_keys[written] = empty
            out_action[written] = 0
            if touch == 3:
                out_pairs[written] = 0
            written += 1
        if left or above or corner:
            continue  # a ship starting here would touch one
        for k in range(kinds):
            shift = np.uint64(count_shift[k])
            if (key >> shift) & count_mask[k] == 0:
                continue
            length = lengths[k]
            placed = full - (one << shift)
            if starts[k, 0, cell]:
                free = True
                for c in range(col + 1, col + length):
                    if (key >> np.uint64(field_bits * c)) & field != 0:
                        free = False
                        break
                child = placed | (np.uint64(length - 1) << run_shift)
                if free and child & settled_after == 0:
                    out_keys[written] = child
                    out_action[written] = 1 + 2 * k
                    if touch == 3:
                        out_pairs[written] = pair_left + pair_above
                    written += 1
            if starts[k, 1, cell]:
                child = placed | (np.uint64(length - 1) << col_shift)
                if child & settled_after == 0:
                    out_keys[written] = child
                    out_action[written] = 2 + 2 * k
                    if touch == 3:
                        out_pairs[written] = pair_left + pair_above
                    written += 1
    out_first[keys.shape[0]] = written
    return written


def merge(
    parent_fwd: np.ndarray,
    first: np.ndarray,
    child_keys: np.ndarray,
    table: np.ndarray,
    table_bits: int,
    out_index: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct child keys (the next level's states) and their forward counts.

    ``table`` is an all -1 hash table of ``2 ** table_bits`` slots, more than the number of
    transitions; ``out_index[t]`` receives the next-level index of transition t's child.
    """
    transitions = child_keys.shape[0]
    slots = np.uint64(table.shape[0] - 1)
    bits = np.uint64(64 - table_bits)
    states = np.empty(transitions, dtype=np.uint64)
    distinct = 0
    for t in range(transitions):
        key = child_keys[t]
        slot = ((key * _MIX) >> bits) & slots
        while True:
            at = table[slot]
            if at < 0:
                table[slot] = distinct
                states[distinct] = key
                out_index[t] = distinct
                distinct += 1
                break
            if states[at] == key:
                out_index[t] = at
                break
            slot = (slot + np.uint64(1)) & slots
    fwd = np.zeros(distinct, dtype=np.int64)
    for s in range(parent_fwd.shape[0]):
        count = parent_fwd[s]
        for t in range(first[s], first[s + 1]):
            fwd[out_index[t]] += count
    return states[:distinct].copy(), fwd


def insert(
    parent_fwd: np.ndarray,
    first: np.ndarray,
    child_keys: np.ndarray,
    table: np.ndarray,
    states: np.ndarray,
    states_fwd: np.ndarray,
    distinct: int,
    out_index: np.ndarray,
) -> int:
    """:func:`merge`, one slice of a level at a time: the slice's transitions (those of the states whose
    forward counts are ``parent_fwd``, ``first`` counted from the slice's first transition) go into a
    table that lives across slices, so that a level is merged without holding all its child keys at once.

    ``states[:distinct]`` and ``states_fwd[:distinct]`` are the next level's states found so far and
    their forward counts; ``table`` (all -1 at first, fewer than 2**32 slots) indexes them and must keep free slots
    whatever the slice adds. New keys are numbered in the order they first appear, as in :func:`merge`
    (whatever the table's size), so merging the slices in order gives the same states in the same
    order. Returns the number of states found.
    """
    size = np.uint64(table.shape[0])
    for s in range(parent_fwd.shape[0]):
        count = parent_fwd[s]
        for t in range(first[s], first[s + 1]):
            key = child_keys[t]
            slot = (((key * _MIX) >> _HALF) * size) >> _HALF  # the hash's high half, scaled to the table
            while True:
                at = table[slot]
                if at < 0:
                    table[slot] = distinct
                    states[distinct] = key
                    states_fwd[distinct] = count
                    out_index[t] = distinct
                    distinct += 1
                    break
                if states[at] == key:
                    out_index[t] = at
                    states_fwd[at] += count
                    break
                slot += np.uint64(1)
                if slot == size:
                    slot = np.uint64(0)
    return distinct


def rehash(states: np.ndarray, distinct: int, table: np.ndarray) -> None:
    """Index ``states[:distinct]`` in ``table`` (all -1, more slots than states): a grown table for :func:`insert`."""
    size = np.uint64(table.shape[0])
    for i in range(distinct):
        slot = (((states[i] * _MIX) >> _HALF) * size) >> _HALF
        while table[slot] >= 0:
            slot += np.uint64(1)
            if slot == size:
                slot = np.uint64(0)
        table[slot] = i


def collect(
    child_bwd: np.ndarray,
    fwd: np.ndarray,
    first: np.ndarray,
    child: np.ndarray,
    action: np.ndarray,
    allowed: np.ndarray,
    uses: np.ndarray,
) -> np.ndarray:
    """One step back over the transitions whose action is ``allowed`` (all of them but where a kept model is
    counted again without some misses: :mod:`battlelog.engines.native.misses`): each state's backward count,
    and ``uses[a - 1] += fwd * bwd`` per placement action a.

    A state's backward count is the number of ways to complete the board from it; ``fwd * bwd``
    over a transition counts the layouts that take it, so ``uses`` ends up counting, per kind and
    orientation, the layouts with a ship of that kind starting at this cell.
    """
    states = first.shape[0] - 1
    bwd = np.zeros(states, dtype=np.int64)
    for s in range(states):
        total = np.int64(0)
        count = fwd[s]
        for t in range(first[s], first[s + 1]):
            a = action[t]
            if not allowed[a]:
                continue
            ways = child_bwd[child[t]]
            total += ways
            if a > 0:
                uses[a - 1] += count * ways
        bwd[s] = total
    return bwd


def choose(
    child_bwd: np.ndarray, first: np.ndarray, child: np.ndarray, action: np.ndarray, allowed: np.ndarray, at: np.ndarray,
    draws: np.ndarray,
) -> np.ndarray:
    """For walkers at states ``at`` of one level, the transition each takes among those whose action is
    ``allowed``, drawn with probability proportional to the ways to complete the board through it
    (``draws[i]`` uniform in [0, the backward count of ``at[i]``))."""
    out = np.empty(at.shape[0], dtype=np.int64)
    for i in range(at.shape[0]):
        s = at[i]
        left = draws[i]
        t = first[s]
        while True:
            ways = child_bwd[child[t]] if allowed[action[t]] else np.int64(0)
            if left < ways:
                break
            left -= ways
            t += 1
        out[i] = t
    return out
