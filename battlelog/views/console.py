"""Reading what a person types: with a prompt on a terminal, line by line from a pipe or a file.

On a terminal ``input`` shows the prompt and gives line editing; from a pipe or a file the lines are
read as they come, with no prompt, so that a session can be scripted and tested.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from battlelog.rules.state import GameState


class Quit(Exception):
    """The person ended the session (``quit``, or the end of the input); ``state`` is where their game
    stood when it was a game they were playing (``play --human``), so that it can still be shown."""

    def __init__(self, state: GameState | None = None) -> None:
        super().__init__("quit")
        self.state = state


def ask(prompt: str) -> str | None:
    """The next line the user gives (without its newline), or None at the end of the input."""
    if sys.stdin is None:  # started with standard input closed (`<&-`): nothing to read, as at its end
        return None
    if sys.stdin.isatty():
        try:
            return input(prompt)
        except EOFError:
            print()
            return None
    line = sys.stdin.readline()
    return None if line == "" else line.rstrip("\r\n")
