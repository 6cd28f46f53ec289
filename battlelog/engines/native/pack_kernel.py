"""The kernels of :mod:`battlelog.engines.native.packed`: a level packed and unpacked, in numba's subset.

Plain Python that :mod:`battlelog.engines.native.jit` runs as it is for small levels and compiles
with numba for large ones (as :mod:`battlelog.engines.native.kernel`).
"""

from __future__ import annotations

import numpy as np

#: Bits of a transition's code byte: its child is new, it is its state's last, and its action.
NEW = np.uint8(64)
LAST = np.uint8(128)
ACTION = np.uint8(63)


def pack_codes(first: np.ndarray, child: np.ndarray, action: np.ndarray, code: np.ndarray, back: np.ndarray) -> int:
    """Kernel: fill ``code`` and ``back`` from a level's ``first``, ``child`` and ``action``; returns how many
    children were seen before (``back``'s length), or -1 when ``back`` is too short (the level's next states are
    not numbered in the order they first appear). A state with no transition has no code: see :func:`unpack_codes`."""
    counter = 0
    seen = 0
    for s in range(first.shape[0] - 1):
        a, b = first[s], first[s + 1]
        for t in range(a, b):
            c = np.uint8(action[t])
            if child[t] == counter:
                c |= NEW
                counter += 1
            else:
                if seen == back.shape[0]:
                    return -1  # more children seen before than ``back`` has room for: not a level in first-appearance order
                back[seen] = child[t]
                seen += 1
            if t == b - 1:
                c |= LAST
            code[t] = c
    return seen


def unpack_codes(
    code: np.ndarray,
    back: np.ndarray,
    dead: np.ndarray,
    fwd: np.ndarray,
    first: np.ndarray,
    child: np.ndarray,
    action: np.ndarray,
    next_fwd: np.ndarray,
) -> None:
    """Kernel: a packed level's ``first``, ``child`` and ``action``, and the next level's forward counts
    (``next_fwd``, all zero at first) from this level's (``fwd``); ``dead``: the states with no
    transition, in increasing order."""
    counter = 0
    seen = 0
    s = 0
    d = 0
    first[0] = 0
    while d < dead.shape[0] and dead[d] == s:
        s += 1
        first[s] = 0
        d += 1
    for t in range(code.shape[0]):
        c = code[t]
        action[t] = np.int8(c & ACTION)
        if c & NEW:
            at = counter
            counter += 1
        else:
            at = back[seen]
            seen += 1
        child[t] = at
        next_fwd[at] += fwd[s]
        if c & LAST:
            s += 1
            first[s] = t + 1
            while d < dead.shape[0] and dead[d] == s:
                s += 1
                first[s] = t + 1
                d += 1


def forward_codes(code: np.ndarray, back: np.ndarray, dead: np.ndarray, fwd: np.ndarray, next_fwd: np.ndarray) -> None:
    """Kernel: the next level's forward counts (``next_fwd``, all zero at first) from a packed level's
    states' (``fwd``): :func:`unpack_codes` without writing the level's arrays."""
    counter = 0
    seen = 0
    s = 0
    d = 0
    while d < dead.shape[0] and dead[d] == s:
        s += 1
        d += 1
    for t in range(code.shape[0]):
        c = code[t]
        if c & NEW:
            at = counter
            counter += 1
        else:
            at = back[seen]
            seen += 1
        next_fwd[at] += fwd[s]
        if c & LAST:
            s += 1
            while d < dead.shape[0] and dead[d] == s:
                s += 1
                d += 1


def collect_codes(
    code: np.ndarray, back: np.ndarray, dead: np.ndarray, fwd: np.ndarray, child_bwd: np.ndarray, uses: np.ndarray
) -> np.ndarray:
    """Kernel: :func:`kernel.collect <battlelog.engines.native.kernel.collect>` read from a packed level:
    each state's backward count, and ``uses[a - 1] += fwd * bwd`` per placement action a."""
    bwd = np.zeros(fwd.shape[0], dtype=np.int64)
    counter = 0
    seen = 0
    s = 0
    d = 0
    while d < dead.shape[0] and dead[d] == s:
        s += 1
        d += 1
    total = np.int64(0)
    for t in range(code.shape[0]):
        c = code[t]
        if c & NEW:
            at = counter
            counter += 1
        else:
            at = back[seen]
            seen += 1
        ways = child_bwd[at]
        total += ways
        a = c & ACTION
        if a > 0:
            uses[a - 1] += fwd[s] * ways
        if c & LAST:
            bwd[s] = total
            total = np.int64(0)
            s += 1
            while d < dead.shape[0] and dead[d] == s:
                s += 1
                d += 1
    return bwd
