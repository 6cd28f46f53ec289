"""Numbers read from what people type or write in files: ASCII digits only.

Python's ``int`` and ``float`` read any Unicode decimal digit (``int("٣")`` is 3, so is ``int("３")``) and
underscores (``int("1_0")`` is 10), so a fleet typed as ``٣,٢`` would be played as ``3,2`` and echoed
back in digits the user never typed. battlelog reads a number only as the file formats and every other
tool write it: an optional sign and the digits 0-9 (a real number may add a point and an exponent).
At the bottom of the package, beside :mod:`battlelog.wording`: it imports nothing of battlelog.
"""

from __future__ import annotations

import math
import re

_WHOLE = re.compile(r"[+-]?[0-9]+")
_REAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def whole_number(text: str) -> int | None:
    """The integer ``text`` writes in ASCII digits (spaces around allowed), else None; also None for
    more digits than Python converts (4300), which no count battlelog takes comes near."""
    text = text.strip()
    if _WHOLE.fullmatch(text) is None:
        return None
    try:
        return int(text)
    except ValueError:  # more digits than sys.get_int_max_str_digits()
        return None


def real_number(text: str) -> float | None:
    """The finite real number ``text`` writes in ASCII digits (``-0.5``, ``1e-3``), else None: no
    ``inf``, ``nan``, underscores or other scripts' digits; None too where it overflows to infinity."""
    text = text.strip()
    if _REAL.fullmatch(text) is None:
        return None
    value = float(text)
    return value if math.isfinite(value) else None
