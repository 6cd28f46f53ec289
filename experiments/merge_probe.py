"""Where the widest level of a sweep spends its merge (docs/speed.md, the 15x15 ceiling): the level's child
keys saved, then merged by the kernel's merge and by a partitioned merge (keys bucketed by hash into
cache-sized tables, renumbered in first-appearance order: the same states, counts and indices), and its
states counted with and without the counts of ships still to place (a transfer matrix over profiles).

usage:
  python experiments/merge_probe.py                  # 15x15 5,4,3,3,2 (a minute to sweep, 2 GB)
  python experiments/merge_probe.py --size 12
Prints a Markdown table to stdout.
"""

from __future__ import annotations

import argparse
import time
import types
from typing import Any

import numba
import numpy as np
from machine import machine_header

from battlelog.engines.native import jit, kernel, layered
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.tables import SweepTables
from battlelog.model.ground import ground_problem
from battlelog.report.markdown import markdown_table
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import IDENTITY

MIX = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True)
def partitioned_merge(
    parent_fwd: np.ndarray, first: np.ndarray, keys: np.ndarray, pbits: int, out_index: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """kernel.merge's result, by hash buckets of 2**pbits: bucket, dedupe per bucket, renumber globally."""
    n, buckets, shift = keys.shape[0], 1 << pbits, np.uint64(64 - pbits)
    hashes, start = np.empty(n, dtype=np.uint64), np.zeros(buckets + 1, dtype=np.int64)
    for t in range(n):
        hashes[t] = keys[t] * MIX
        start[(hashes[t] >> shift) + np.uint64(1)] += 1
    for b in range(buckets):
        start[b + 1] += start[b]
    fill, order = start[:buckets].copy(), np.empty(n, dtype=np.int32)
    for t in range(n):
        b = hashes[t] >> shift
        order[fill[b]] = t
        fill[b] += 1
    widest = np.max(start[1:] - start[:-1])
    bits = 1
    while (1 << bits) < 2 * widest:
        bits += 1
    table, mask = np.empty(1 << bits, dtype=np.int32), np.uint64((1 << bits) - 1)
    local, seen, firsts = np.empty(n, dtype=np.int32), np.zeros(n, dtype=np.bool_), np.empty(n, dtype=np.int32)
    found, bucket_keys = np.zeros(buckets, dtype=np.int64), np.empty(widest, dtype=np.uint64)
    for b in range(buckets):
        table[:] = -1
        k = 0
        for i in range(start[b], start[b + 1]):
            t = order[i]
            slot = hashes[t] & mask
            while True:
                at = table[slot]
                if at < 0:
                    table[slot], bucket_keys[k], firsts[start[b] + k], local[i] = k, keys[t], t, k
                    seen[t] = True
                    k += 1
                    break
                if bucket_keys[at] == keys[t]:
                    local[i] = at
                    break
                slot = (slot + np.uint64(1)) & mask
        found[b] = k
    rank, states, distinct = np.empty(n, dtype=np.int32), np.empty(n, dtype=np.uint64), 0
    for t in range(n):
        if seen[t]:
            rank[t], states[distinct] = distinct, keys[t]
            distinct += 1
    number = np.empty(widest, dtype=np.int32)
    for b in range(buckets):
        for k in range(found[b]):
            number[k] = rank[firsts[start[b] + k]]
        for i in range(start[b], start[b + 1]):
            out_index[order[i]] = number[local[i]]
    fwd = np.zeros(distinct, dtype=np.int64)
    for s in range(parent_fwd.shape[0]):
        for t in range(first[s], first[s + 1]):
            fwd[out_index[t]] += parent_fwd[s]
    return states[:distinct].copy(), fwd


def widest_level(config: GameConfig) -> dict[str, Any]:
    """The merge arguments of the sweep's widest level merged at once (counting the empty board)."""
    original, widest = jit.kernels, {"keys": np.zeros(0, dtype=np.uint64)}

    def saving(states: int) -> Any:
        run = original(states)
        merge = run.merge

        def saved(fwd, first, keys, table, bits, out):
            if len(keys) > len(widest["keys"]):
                widest.update(fwd=fwd.copy(), first=first.copy(), keys=keys.copy())
            return merge(fwd, first, keys, table, bits, out)

        return types.SimpleNamespace(**{**vars(run), "merge": saved})

    layered.jit.kernels = saving
    try:
        NativeEngine().counts(GameState.empty(config))
    finally:
        layered.jit.kernels = original
    return widest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--ships", default="5,4,3,3,2")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    config = GameConfig(args.size, tuple(int(s) for s in args.ships.split(",")))
    print(machine_header(f"The widest level's merge on {config.label()}"))
    level = widest_level(config)
    fwd, first, keys = level["fwd"], level["first"], level["keys"]
    merge = numba.njit(cache=True)(kernel.merge)
    rows: list[list[str]] = []
    times: dict[str, list[float]] = {"kernel merge": [], **{f"partitioned, {1 << b} buckets": [] for b in (6, 8, 10)}}
    for _ in range(args.rounds):
        bits = max(1, (2 * len(keys)).bit_length())
        index = np.empty(len(keys), dtype=np.int32)
        start = time.perf_counter()
        states, counts = merge(fwd, first, keys, np.full(1 << bits, -1, dtype=np.int32), bits, index)
        times["kernel merge"].append(time.perf_counter() - start)
        for b in (6, 8, 10):
            other = np.empty(len(keys), dtype=np.int32)
            start = time.perf_counter()
            got, got_counts = partitioned_merge(fwd, first, keys, b, other)
            times[f"partitioned, {1 << b} buckets"].append(time.perf_counter() - start)
            assert (got == states).all() and (got_counts == counts).all() and (other == index).all(), "the merges disagree"
    for name, took in times.items():
        rows.append([name, f"{len(keys):,}", f"{min(took):.3f}-{max(took):.3f} s", f"{min(took) / len(keys) * 1e9:.0f} ns"])
    print(markdown_table(["merge", "transitions", "time (rounds)", "per transition (best)"], rows))
    tables = SweepTables(ground_problem(GameState.empty(config)), IDENTITY)
    profile = np.uint64((1 << int(tables.count_shift[0])) - 1)
    print(
        f"\nits {len(states):,} states have {len(np.unique(states & profile)):,} profiles (the counts of ships to place masked "
        "out)"
    )


if __name__ == "__main__":
    main()
