"""A level packed small, so that a rebuilt model reads it back without sweeping it again.

When the levels do not all fit the budget, reading the model (its backward pass) rebuilds each
segment from the states at its start: every level expanded again and every transition merged again
through the hash table, about as long as the forward sweep itself (the empty 15x15 board). A level
packed here (about 2 bytes a transition, against 5 a transition and 12 a state for the level) is
read back by one pass over its transitions, with no key and no hash: a segment whose levels are all
packed is unpacked from its start's forward counts, the same arrays, bit for bit.

The packing rests on the order of a level's next states: they are numbered in the order they first
appear among its transitions (:func:`kernel.merge <battlelog.engines.native.kernel.merge>`,
:func:`kernel.insert <battlelog.engines.native.kernel.insert>`), so a transition leads either to
the next state not yet seen (its child is the count of states seen so far, which the reader keeps)
or to one seen before (its index is kept, ``back``). One byte a transition holds its action (bits
0-5), whether its child is new (bit 6) and whether it is its state's last transition (bit 7): the
states' offsets (``first``), with the states that have no transition listed apart (``dead``: states
with no future, near the end of a sweep). A level with more than 63 actions is not packed (:func:`pack`
returns None); nor are the levels of a model whose transitions carry touching pairs (a prior's touch
weight, read from the states' keys: :mod:`battlelog.engines.native.layered` does not pack them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from battlelog.engines.native import jit
from battlelog.engines.native.pack_kernel import ACTION


@dataclass(frozen=True)
class PackedLevel:
    """One level's transitions: ``code`` (uint8, one a transition), ``back`` (int32, the children seen
    before) and ``dead`` (int32, the states with no transition: they have no code)."""

    code: np.ndarray
    back: np.ndarray
    dead: np.ndarray
    #: The level's states, and the next level's.
    states: int
    next_states: int

    @property
    def nbytes(self) -> int:
        return self.code.nbytes + self.back.nbytes + self.dead.nbytes


def packed_bytes(states: int, transitions: int, next_states: int) -> int:
    """The most a level of ``states`` states, ``transitions`` transitions to ``next_states`` states takes packed
    (and while it is packed: its states with no transition are found through a flag each)."""
    return transitions + 4 * (transitions - next_states) + 5 * states


def pack(first: np.ndarray, child: np.ndarray, action: np.ndarray, next_states: int, kinds: int) -> PackedLevel | None:
    """The level packed, or None when it cannot be (see the module's docstring)."""
    if 2 * kinds >= int(ACTION) or len(first) < 2:
        return None
    run = jit.kernels(len(first) - 1)
    code = np.empty(len(child), dtype=np.uint8)
    back = np.empty(len(child) - next_states, dtype=np.int32)  # every next state is new to exactly one transition
    if int(run.pack_codes(first, child, action, code, back)) != len(back):
        return None  # not numbered in the order they first appear: cannot happen for a sweep's level
    dead = np.flatnonzero(first[1:] == first[:-1]).astype(np.int32)
    return PackedLevel(code, back, dead, len(first) - 1, next_states)


def unpack(level: PackedLevel, fwd: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``first``, ``child`` and ``action`` of a packed level whose states' forward counts are ``fwd``, and the next level's
    forward counts."""
    transitions = len(level.code)
    first = np.empty(level.states + 1, dtype=np.int32)
    child = np.empty(transitions, dtype=np.int32)
    action = np.empty(transitions, dtype=np.int8)
    next_fwd = np.zeros(level.next_states, dtype=np.int64)
    jit.kernels(level.states).unpack_codes(level.code, level.back, level.dead, fwd, first, child, action, next_fwd)
    return first, child, action, next_fwd


def forward(level: PackedLevel, fwd: np.ndarray) -> np.ndarray:
    """The next level's forward counts, from those of a packed level's states (``fwd``)."""
    next_fwd = np.zeros(level.next_states, dtype=np.int64)
    jit.kernels(level.states).forward_codes(level.code, level.back, level.dead, fwd, next_fwd)
    return next_fwd


def collect(level: PackedLevel, fwd: np.ndarray, child_bwd: np.ndarray, uses: np.ndarray) -> np.ndarray:
    """One step back through a packed level (as :func:`kernel.collect <battlelog.engines.native.kernel.collect>`):
    its states' backward counts, and each placement's layouts added to ``uses``."""
    out: np.ndarray = jit.kernels(level.states).collect_codes(level.code, level.back, level.dead, fwd, child_bwd, uses)
    return out
