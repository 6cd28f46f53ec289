"""The answers a shot can get, as words (the state files) and as small integers (exact computations)."""

from __future__ import annotations

MISS, HIT, SUNK = "miss", "hit", "sunk"
RESULTS = (MISS, HIT, SUNK)

#: An answer as a small integer, as answer probabilities and exact walks index them: miss, a hit
#: that sinks nothing, and ``SUNK_CODE + i`` for "sunk ship i".
MISS_CODE, HIT_CODE, SUNK_CODE = 0, 1, 2


def decode_answer(code: int, named: bool = True) -> tuple[str, int | None]:
    """The answer and sunk ship (or None) of an answer code, as ``GameState.with_shot`` takes them;
    with ``named`` false (sinks unnamed) a sink names no ship."""
    if code == MISS_CODE:
        return MISS, None
    if code == HIT_CODE:
        return HIT, None
    return SUNK, (code - SUNK_CODE if named else None)
