"""A player whose shots a person types at the console, for ``battlelog play --human``."""

from __future__ import annotations

from battlelog.errors import ShotError
from battlelog.players.base import Player
from battlelog.rules.geometry import Cell, cell_name, parse_cell
from battlelog.rules.state import GameState
from battlelog.views.console import Quit, ask


class HumanPlayer(Player):
    """A player whose shots are typed at the console as cell names (``C7``); ``quit`` gives up.

    Not in the registry: it plays only through ``battlelog play --human``. A line that is not a
    cell of the board, or a cell already shot, is explained and asked again, never a lost turn.
    """

    name = "you"

    def choose(self, state: GameState) -> Cell:
        while True:
            line = ask(f"shot {len(state.shots) + 1}> ")
            if line is None or line.strip().lower() in ("quit", "q"):
                raise Quit(state)
            if not line.strip():
                continue
            try:
                cell = parse_cell(line, state.rows, state.cols)
            except ShotError as exc:
                print(exc)
                continue
            if cell in state.shot_cells:
                print(f"{cell_name(cell)} was already shot; choose another cell")
                continue
            return cell
