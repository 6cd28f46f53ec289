"""A player whose shots a person types at the console, for ``battlelog play --human``."""

from __future__ import annotations

from battlelog.errors import ShotError
from battlelog.players.base import Player
from battlelog.rules.geometry import Cell, cell_name, parse_cell
from battlelog.rules.state import GameState
from battlelog.views.console import Quit, ask
from battlelog.wording import count_noun


class HumanPlayer(Player):
    """A player whose shots are typed at the console as cell names (``C7``); ``quit`` gives up.

    Not in the registry: it plays only through ``battlelog play --human``. A line that is not a
    cell of the board, or a cell already shot, is explained and asked again, never a lost turn.
    """

    name = "you"

    def choose(self, state: GameState) -> Cell:
        return self._cells(state, 1, f"shot {len(state.shots) + 1}")[0]

    def choose_volley(self, state: GameState, k: int) -> list[Cell]:
        """Under salvo: ``k`` cells, typed on one line or several (``A1 B2 C3``), before any answer."""
        return self._cells(state, k, f"volley {state.next_volley()[0] + 1} ({count_noun(k, 'cell')})")

    def _cells(self, state: GameState, k: int, prompt: str) -> list[Cell]:
        """``k`` distinct unshot cells typed at the console (one a line when ``k`` is 1, so ``C 7`` still
        names C7); a bad one is explained, the ones before it are kept."""
        picked: list[Cell] = []
        while len(picked) < k:
            line = ask(f"{prompt}{f', {len(picked)} picked' if picked else ''}> ")
            if line is None or line.strip().lower() in ("quit", "q"):
                raise Quit(state)
            words = line.replace(",", " ").split() if k > 1 else [line] if line.strip() else []
            for word in words[: k - len(picked)]:
                try:
                    cell = parse_cell(word, state.rows, state.cols)
                except ShotError as exc:
                    print(exc)
                    break
                if cell in state.shot_cells or cell in picked:
                    print(
                        f"{cell_name(cell)} was already {'shot' if cell in state.shot_cells else 'picked'}; choose another cell"
                    )
                    break
                picked.append(cell)
        return picked
