"""The prior's kernel: float64 passes over a layered model's levels, and the occupancy profile settled.

Plain Python in numba's subset, like :mod:`battlelog.engines.native.kernel` (which it reads the key
layout of), run interpreted or compiled by :func:`battlelog.engines.native.jit.weight_kernels`.

A transition's weight is exp of its share of theta . f(layout), which depends only on its action and
its touching pairs (0 to 2, written by :func:`kernel.expand <battlelog.engines.native.kernel.expand>`): the caller
gives each level's weights as a small ``table`` indexed by ``3 * action + pairs``, divided by its largest. A layout's
weight is the product of its transitions'. The passes are the integer ones of the counting kernel with a product by
the weight added, in float64; the caller rescales every level's values so that its largest is 1 and keeps the
logarithms of the scales apart, so nothing overflows or underflows however many levels are multiplied.

The profile is what makes a touch weight's sweep larger than the plain one (the empty 10x10 board's first turned case:
23.3 million states against 3.1 million). Once every ship is placed most of it is never read again, and
:func:`settle` drops those cells from the states' keys so that they merge: 15.5 million states (docs/speed.md, "Priors").
"""

from __future__ import annotations

import numpy as np


def settle(
    keys: np.ndarray, cell: int, cols: int, field_bits: int, profile_shift: int, profile_bits: int,
    count_shift: np.ndarray, count_mask: np.ndarray,
) -> None:  # fmt: skip
    """In place: the occupancy profile of each of ``keys`` (the states before the cell after ``cell``, swept with the
    profile kept for a touch weight) with no ship left to place reduced to the bits a later transition reads.

    With every ship placed, a later cell is covered only by a ship already on the board going on: along a row, the
    cell above it is read (a pair when covered), and that is a cell above the run of the row's horizontal ship;
    down a column, the cell to its left, read at once (the next cell). A cell of this row is above nothing that
    can still be another ship's. So the profile keeps the cell to the left of the next cell when a vertical ship
    covers that one, and the cells above the horizontal run ahead; states that differ elsewhere have the same
    transitions, pairs and weights from here on, and merge.
    """
    col = cell % cols
    one = np.uint64(1)
    field = np.uint64((1 << field_bits) - 1)
    run_shift = np.uint64(field_bits * cols)
    shift = np.uint64(profile_shift)
    profile = np.uint64((1 << profile_bits) - 1)
    counts = np.uint64(0)
    for k in range(count_shift.shape[0]):
        counts |= np.uint64(count_mask[k]) << np.uint64(count_shift[k])
    for s in range(keys.shape[0]):
        key = keys[s]
        if key & counts != 0:
            continue
        kept = np.uint64(0)
        if col < cols - 1:  # the next cell is in this row (after the last column: nothing is read again)
            run = (key >> run_shift) & field
            kept = ((one << run) - one) << (np.uint64(cols) - run)
            if (key >> np.uint64(field_bits * (col + 1))) & field != 0:
                kept |= one
        keys[s] = (key & ~(profile << shift)) | (((key >> shift) & kept) << shift)


def forward(
    fwd: np.ndarray, first: np.ndarray, child: np.ndarray, action: np.ndarray, pairs: np.ndarray, table: np.ndarray,
    out: np.ndarray,
) -> None:
    """One step forward: ``out[child[t]] += fwd[s] * w(t)`` over every transition t of every state s, where
    w(t) is ``table[3 * action[t] + pairs[t]]`` (``pairs`` empty: no touching pairs counted, 0)."""
    counted = pairs.shape[0] > 0
    for s in range(first.shape[0] - 1):
        here = fwd[s]
        for t in range(first[s], first[s + 1]):
            out[child[t]] += here * table[3 * action[t] + (pairs[t] if counted else 0)]


def forward_pair(
    fwd_a: np.ndarray, fwd_b: np.ndarray, first: np.ndarray, child: np.ndarray, action: np.ndarray, pairs: np.ndarray,
    table_a: np.ndarray, table_b: np.ndarray, out_a: np.ndarray, out_b: np.ndarray,
) -> None:  # fmt: skip
    """:func:`forward` under two priors at once (tables ``table_a``, ``table_b``): each transition read once for both,
    the same sums in the same order as two calls."""
    counted = pairs.shape[0] > 0
    for s in range(first.shape[0] - 1):
        here_a = fwd_a[s]
        here_b = fwd_b[s]
        for t in range(first[s], first[s + 1]):
            k = 3 * action[t] + (pairs[t] if counted else 0)
            c = child[t]
            out_a[c] += here_a * table_a[k]
            out_b[c] += here_b * table_b[k]


def backward(
    child_bwd: np.ndarray, fwd: np.ndarray, first: np.ndarray, child: np.ndarray, action: np.ndarray,
    pairs: np.ndarray, table: np.ndarray, uses: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """One step back: each state's weighted ways to finish the board; ``uses[a - 1] += fwd * w(t) * bwd``
    per placement action a, and ``uses[-1]`` the same times the transition's touching ``pairs``."""
    states = first.shape[0] - 1
    placements = uses.shape[0] - 1
    counted = pairs.shape[0] > 0
    bwd = np.zeros(states, dtype=np.float64)
    for s in range(states):
        total = 0.0
        here = fwd[s]
        for t in range(first[s], first[s + 1]):
            touching = pairs[t] if counted else 0
            ways = table[3 * action[t] + touching] * child_bwd[child[t]]
            total += ways
            if action[t] > 0:
                uses[action[t] - 1] += here * ways
            if touching > 0:
                uses[placements] += here * ways * touching
        bwd[s] = total
    return bwd


def backward_pair(
    child_bwd_a: np.ndarray, child_bwd_b: np.ndarray, fwd_a: np.ndarray, fwd_b: np.ndarray, first: np.ndarray,
    child: np.ndarray, action: np.ndarray, pairs: np.ndarray, table_a: np.ndarray, table_b: np.ndarray, uses_a: np.ndarray,
    uses_b: np.ndarray, bwd_a: np.ndarray, bwd_b: np.ndarray,
) -> None:  # fmt: skip
    """:func:`backward` under two priors at once, into ``bwd_a`` and ``bwd_b``: each transition read once for both,
    the same sums in the same order as two calls."""
    placements = uses_a.shape[0] - 1
    counted = pairs.shape[0] > 0
    for s in range(first.shape[0] - 1):
        total_a = 0.0
        total_b = 0.0
        here_a = fwd_a[s]
        here_b = fwd_b[s]
        for t in range(first[s], first[s + 1]):
            touching = pairs[t] if counted else 0
            k = 3 * action[t] + touching
            ways_a = table_a[k] * child_bwd_a[child[t]]
            ways_b = table_b[k] * child_bwd_b[child[t]]
            total_a += ways_a
            total_b += ways_b
            if action[t] > 0:
                uses_a[action[t] - 1] += here_a * ways_a
                uses_b[action[t] - 1] += here_b * ways_b
            if touching > 0:
                uses_a[placements] += here_a * ways_a * touching
                uses_b[placements] += here_b * ways_b * touching
        bwd_a[s] = total_a
        bwd_b[s] = total_b


def choose(
    child_bwd: np.ndarray, first: np.ndarray, child: np.ndarray, action: np.ndarray, pairs: np.ndarray,
    table: np.ndarray, at: np.ndarray, draws: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """For walkers at states ``at`` of one level, the transition each takes, with probability proportional
    to ``w(t) * child_bwd[child[t]]`` (``draws[i]`` uniform in [0, 1))."""
    counted = pairs.shape[0] > 0
    out = np.empty(at.shape[0], dtype=np.int64)
    for i in range(at.shape[0]):
        s = at[i]
        total = 0.0
        for t in range(first[s], first[s + 1]):
            total += table[3 * action[t] + (pairs[t] if counted else 0)] * child_bwd[child[t]]
        left = draws[i] * total
        chosen = -1
        for t in range(first[s], first[s + 1]):
            ways = table[3 * action[t] + (pairs[t] if counted else 0)] * child_bwd[child[t]]
            if ways > 0.0:
                chosen = t  # the last one with a future, should rounding carry ``left`` past the end
                if left < ways:
                    break
                left -= ways
        out[i] = chosen
    return out
