"""How battlelog words what it prints: counts with their nouns, and user input echoed in messages.

At the bottom of the package (it imports nothing of battlelog), so that the rules' error messages and
the views say "1 hit" and "2 hits" by the same rule, and no message repeats a megabyte of input.
"""

from __future__ import annotations

#: The most characters of user input that a message repeats.
ECHO_LIMIT = 60


def count_noun(count: int, noun: str) -> str:
    """``1 layout``, ``56 layouts``: English plurals of the nouns battlelog counts (all take an s)."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` as a message repeats it: at most ``limit`` characters, cut with `...` (a whole line of
    input must not become a line of error)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: The most characters of a number that a message repeats (a size of 10**400 is not echoed whole).
NUMBER_LIMIT = 20


def number_text(value: int | float) -> str:
    """``value`` as a message repeats it: whole when short, else its first digits and `...`."""
    try:
        return clip(str(value), NUMBER_LIMIT)
    except ValueError:  # str() refuses an int of more than 4300 digits
        return "a number of over 4300 digits"
