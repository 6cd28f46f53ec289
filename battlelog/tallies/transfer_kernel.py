"""The cell transfer's compiled part (:mod:`battlelog.tallies.transfer` builds its arrays and reads its
results). A state is one int64, a mixed-radix number whose digits are the frontier (per column: ``0`` water,
``1`` a ship cell that does not continue down, ``1 + k`` an open vertical ship of k cells so far), whether the
cell above-left is ship, the open horizontal run, the ship cells of the current row so far, the ships left of
each length and, per tallied column, the ship cells it still needs. ``g`` holds the weights and radices:
``g[0]`` the board's rows, ``g[1]`` its columns, ``g[2]`` the longest ship, ``g[3]`` the touch rule (0 none,
1 diagonal, 2 allowed), ``g[4..6]`` the weights of the above-left bit, the run and the row's cells; the
arrays ``wp`` (per column), ``wf``/``rf`` (per length) and ``wc``/``rc`` (per column, 0 when untallied).
Per cell (``r * cols + c``): ``hint`` the revealed piece's code (-1 none), ``rowroom`` the open cells after it
in its row, ``colroom`` those below it in its column, ``bounds`` what the tallied rows below need and the open
cells after it of untallied rows and of untallied columns; ``rowt`` the row tallies (-1 not given).
"""

from __future__ import annotations

import numpy as np

from battlelog.engines.compiled import njit

#: Letters of a cell by code: water, single, top, bottom, left, right, middle.
LETTERS = ".ctblrm"
#: Fibonacci hashing's multiplier (2**64 over the golden ratio): a state's slot is its top bits of key times this.
_MIX = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def piece_ok(h: int, up: bool, down: bool, left: bool, right: bool) -> bool:
    """Whether a ship cell with these links shows as hint ``h`` (-1 none, 0 water, 1 ship, 2 single, 3 top,
    4 bottom, 5 left, 6 right, 7 middle)."""
    if h == -1 or h == 1:
        return True
    if h == 0:
        return False
    if h == 2:
        return not (up or down or left or right)
    if h == 3:
        return down and not (up or left or right)
    if h == 4:
        return up and not (down or left or right)
    if h == 5:
        return right and not (up or down or left)
    if h == 6:
        return left and not (up or down or right)
    return (left and right) or (up and down)


@njit(cache=True)
def expand(
    key: int,
    r: int,
    c: int,
    g: np.ndarray,
    wp: np.ndarray,
    wf: np.ndarray,
    rf: np.ndarray,
    wc: np.ndarray,
    rc: np.ndarray,
    hint: np.ndarray,
    rowt: np.ndarray,
    rowroom: np.ndarray,
    colroom: np.ndarray,
    bounds: np.ndarray,
    out: np.ndarray,
    cand: np.ndarray,
) -> int:
    """The states after cell (r, c) from ``key`` before it, in ``out[i] = (key, ship, letter code)``; how many."""
    rows, cols, longest, touch = g[0], g[1], g[2], g[3]
    wdg, wrun, wrow = g[4], g[5], g[6]
    p = longest + 1
    v = (key // wp[c]) % p
    dg = (key // wdg) % 2
    run = (key // wrun) % longest
    used = (key // wrow) % (cols + 1)
    left = c > 0 and (key // wp[c - 1]) % p >= 1
    ur = c + 1 < cols and (key // wp[c + 1]) % p >= 1
    h = hint[r * cols + c]
    most = 0
    for length in range(longest, 0, -1):
        if (key // wf[length]) % rf[length] > 0:
            most = length
            break
    last_row, last_col = r == rows - 1, c == cols - 1
    base = key - v * wp[c] - dg * wdg - run * wrun
    if not last_col and v >= 1:
        base += wdg
    cand[:, :] = 0  # per move: new frontier value, new run, finished length, ship, letter
    n = 0
    if v >= 2:
        k = v - 1
        if run > 0 or (touch != 2 and left) or (touch == 0 and (dg or ur)):
            return 0
        if k + 1 < longest and not last_row and most > k + 1 and piece_ok(h, True, True, False, False):
            cand[n, 0], cand[n, 3], cand[n, 4] = v + 1, 1, 6
            n += 1
        if (key // wf[k + 1]) % rf[k + 1] > 0 and piece_ok(h, True, False, False, False):
            cand[n, 0], cand[n, 2], cand[n, 3], cand[n, 4] = 1, k + 1, 1, 3
            n += 1
    elif run > 0:
        if (touch != 2 and v == 1) or (touch == 0 and ur):
            return 0
        if run + 1 < longest and not last_col and most > run + 1 and piece_ok(h, False, False, True, True):
            cand[n, 0], cand[n, 1], cand[n, 3], cand[n, 4] = 1, run + 1, 1, 6
            n += 1
        if (key // wf[run + 1]) % rf[run + 1] > 0 and piece_ok(h, False, False, True, False):
            cand[n, 0], cand[n, 2], cand[n, 3], cand[n, 4] = 1, run + 1, 1, 5
            n += 1
    else:
        if h == -1 or h == 0:
            n += 1  # water: every field zero
        if h != 0 and not (touch != 2 and (v == 1 or left)) and not (touch == 0 and (dg or ur)):
            if (key // wf[1]) % rf[1] > 0 and piece_ok(h, False, False, False, False):
                cand[n, 0], cand[n, 2], cand[n, 3], cand[n, 4] = 1, 1, 1, 1
                n += 1
            if not last_row and most >= 2 and piece_ok(h, False, True, False, False):
                cand[n, 0], cand[n, 3], cand[n, 4] = 2, 1, 2
                n += 1
            if not last_col and most >= 2 and piece_ok(h, False, False, False, True):
                cand[n, 0], cand[n, 1], cand[n, 3], cand[n, 4] = 1, 1, 1, 4
                n += 1
    m = 0
    tally = rowt[r]
    todo, need_cols = cells_left(key, g, wp, wf, rf, wc, rc)
    for i in range(n):
        nxt = base + cand[i, 0] * wp[c] + cand[i, 1] * wrun
        if cand[i, 2] > 0:
            nxt -= wf[cand[i, 2]]
        now = used
        if wc[c] > 0:
            need = (key // wc[c]) % rc[c]
            if cand[i, 3]:
                if need == 0:
                    continue
                need -= 1
                nxt -= wc[c]
            if need > colroom[r * cols + c]:
                continue
        if tally >= 0:
            if cand[i, 3]:
                now += 1
                nxt += wrow
            if now > tally or now + rowroom[r * cols + c] < tally:
                continue
            if last_col:
                nxt -= now * wrow
        low_rows = bounds[r * cols + c, 0] + (tally - now if tally >= 0 and not last_col else 0)
        left_todo = todo - cand[i, 3]
        low_cols = need_cols - (cand[i, 3] if wc[c] > 0 else 0)
        if not (low_rows <= left_todo <= low_rows + bounds[r * cols + c, 1]):
            continue
        if not (low_cols <= left_todo <= low_cols + bounds[r * cols + c, 2]):
            continue
        out[m, 0], out[m, 1], out[m, 2] = nxt, cand[i, 3], cand[i, 4]
        m += 1
    return m


@njit(cache=True)
def cells_left(
    key: int, g: np.ndarray, wp: np.ndarray, wf: np.ndarray, rf: np.ndarray, wc: np.ndarray, rc: np.ndarray
) -> tuple[int, int]:
    """The ship cells still to place (the fleet left less the open ships' cells so far: each ship cell placed
    takes one off) and the cells the tallied columns still need."""
    cols, longest = g[1], g[2]
    todo = 0
    for length in range(1, longest + 1):
        todo += length * ((key // wf[length]) % rf[length])
    for c in range(cols):
        v = (key // wp[c]) % (longest + 1)
        if v >= 2:
            todo -= v - 1
    todo -= (key // g[5]) % longest
    need = 0
    for c in range(cols):
        if wc[c] > 0:
            need += (key // wc[c]) % rc[c]
    return todo, need


@njit(cache=True)
def forward(
    keys: np.ndarray,
    counts: np.ndarray,
    floats: np.ndarray,
    r: int,
    c: int,
    g: np.ndarray,
    wp: np.ndarray,
    wf: np.ndarray,
    rf: np.ndarray,
    wc: np.ndarray,
    rc: np.ndarray,
    hint: np.ndarray,
    rowt: np.ndarray,
    rowroom: np.ndarray,
    colroom: np.ndarray,
    bounds: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The next layer: the states after cell (r, c), sorted, each with its number of ways (exact, int64) and
    the same as a float (to see an overflow of the int64)."""
    bits = 4
    while (1 << bits) < 8 * keys.shape[0]:
        bits += 1
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    table = np.full(1 << bits, -1, dtype=np.int64)  # open addressing: a slot holds a new state's index
    nkeys = np.empty(4 * keys.shape[0], dtype=np.int64)
    ncounts = np.zeros(4 * keys.shape[0], dtype=np.int64)
    nfloats = np.zeros(4 * keys.shape[0], dtype=np.float64)
    out = np.zeros((4, 3), dtype=np.int64)
    cand = np.zeros((4, 5), dtype=np.int64)
    size = 0
    for i in range(keys.shape[0]):
        m = expand(keys[i], r, c, g, wp, wf, rf, wc, rc, hint, rowt, rowroom, colroom, bounds, out, cand)
        for j in range(m):
            k = out[j, 0]
            h = np.int64((np.uint64(k) * _MIX) >> shift)
            while table[h] >= 0 and nkeys[table[h]] != k:
                h = (h + 1) & mask
            if table[h] < 0:
                table[h] = size
                nkeys[size] = k
                size += 1
            ncounts[table[h]] += counts[i]
            nfloats[table[h]] += floats[i]
    order = np.argsort(nkeys[:size])
    return nkeys[:size][order], ncounts[:size][order], nfloats[:size][order]


@njit(cache=True)
def backward(
    keys: np.ndarray,
    after: np.ndarray,
    later: np.ndarray,
    fwd: np.ndarray,
    r: int,
    c: int,
    g: np.ndarray,
    wp: np.ndarray,
    wf: np.ndarray,
    rf: np.ndarray,
    wc: np.ndarray,
    rc: np.ndarray,
    hint: np.ndarray,
    rowt: np.ndarray,
    rowroom: np.ndarray,
    colroom: np.ndarray,
    bounds: np.ndarray,
) -> tuple[np.ndarray, float]:
    """Completions of each state before cell (r, c) from ``later``, those of the sorted states ``after`` it;
    and the solutions with a ship on the cell (forward ways ``fwd`` times completions, over the ship moves)."""
    done = np.zeros(keys.shape[0], dtype=np.float64)
    out = np.zeros((4, 3), dtype=np.int64)
    cand = np.zeros((4, 5), dtype=np.int64)
    ship = 0.0
    for i in range(keys.shape[0]):
        m = expand(keys[i], r, c, g, wp, wf, rf, wc, rc, hint, rowt, rowroom, colroom, bounds, out, cand)
        for j in range(m):
            at = np.searchsorted(after, out[j, 0])
            if at < after.shape[0] and after[at] == out[j, 0]:
                done[i] += later[at]
                if out[j, 1]:
                    ship += fwd[i] * later[at]
    return done, ship


@njit(cache=True)
def finished(keys: np.ndarray, wf: np.ndarray, rf: np.ndarray, longest: int) -> np.ndarray:
    """1.0 for the final states with every ship placed, else 0.0."""
    ok = np.ones(keys.shape[0], dtype=np.float64)
    for i in range(keys.shape[0]):
        for length in range(1, longest + 1):
            if (keys[i] // wf[length]) % rf[length] > 0:
                ok[i] = 0.0
    return ok


@njit(cache=True)
def keep(
    keys: np.ndarray, counts: np.ndarray, floats: np.ndarray, alive: np.ndarray, modulus: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The states whose digits below ``modulus`` (all but the columns' needs) are among the sorted ``alive``."""
    mask = np.zeros(keys.shape[0], dtype=np.bool_)
    for i in range(keys.shape[0]):
        low = keys[i] % modulus
        at = np.searchsorted(alive, low)
        mask[i] = at < alive.shape[0] and alive[at] == low
    return keys[mask], counts[mask], floats[mask]
