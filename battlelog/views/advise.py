"""An advisor for a real game in progress: it suggests the next shot, and learns from your answers.

The session is a sequence of commands, each a line of text (see :data:`HELP`). Every accepted change
of the game is saved at once to the session's file, so quitting, a crash or a closed terminal loses
nothing; an answer that contradicts the earlier ones is refused with the reason and changes nothing.
The suggestion is the most probable unshot cell under the exact posterior, as the problog player
would shoot (the first in reading order when several tie, where that player would draw one). Under
salvo it is a whole volley, the k most probable cells, chosen before any of its answers: the answers
given during a volley change the heat map, not the rest of the volley.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from battlelog.engines import Engine, Inconsistent, Marginals
from battlelog.engines.solve import solve
from battlelog.errors import BattlelogError, StateError
from battlelog.rules.aim import volley_cells, volley_start
from battlelog.rules.answers import SUNK
from battlelog.rules.config import fleet_text
from battlelog.rules.geometry import Cell, cell_name, parse_cell
from battlelog.rules.state import GameState
from battlelog.rules.variants import NAMED, SILENT, UNNAMED
from battlelog.views.console import Quit
from battlelog.views.display import HEAT_LEGEND, heatmap_text, layouts_line, most_likely
from battlelog.wording import clip, count_noun

HELP = """\
commands:
  miss | hit | sunk N     the answer to the suggested shot (N: the index of the ship it sank;
                          plain sunk when sinks are unnamed; no sunk when they are silent);
                          under salvo, to the volley's next shot, one answer a line
  C7 miss | C7 hit | C7 sunk N   you shot another cell: C7, and its answer
  undo                    take back the last shot
  save FILE               write a copy of the game to FILE
  load FILE               continue the game in FILE (saved there from now on)
  show                    the heat map and the suggestion again
  help | quit"""


@dataclass(frozen=True)
class Answer:
    """A shot and its answer; ``cell`` None means the suggested cell, ``ship`` None a sink to infer."""

    cell: Cell | None
    result: str
    ship: int | None = None


@dataclass(frozen=True)
class Command:
    """Any other command: ``undo``, ``save``, ``load``, ``show``, ``help`` or ``quit``, with its file."""

    name: str
    path: str | None = None


# ASCII digits only (battlelog.digits); a ship's index of more than 4 digits is no ship of any fleet
_ANSWER = re.compile(r"(?:(?P<cell>[a-z]\s*[0-9]+)\s+)?(?P<result>miss|hit|sunk)(?:\s+(?P<ship>[0-9]{1,4}))?", re.IGNORECASE)
_FILE_COMMANDS, _PLAIN_COMMANDS = ("save", "load"), ("undo", "show", "help", "quit")


def parse_command(line: str, rows: int, cols: int | None = None) -> Answer | Command:
    """What one line says; anything unknown or malformed is a BattlelogError saying what was expected."""
    text = " ".join(line.split())
    if not text:
        raise BattlelogError("an empty line says nothing: answer miss, hit or sunk N; type help")
    word, *more = line.split(maxsplit=1)
    rest = more[0].strip() if more else ""  # a file name keeps its own spaces
    if word.lower() in _FILE_COMMANDS:
        if not rest:
            raise BattlelogError(f"{word.lower()} needs a file name, e.g. {word.lower()} game.json")
        return Command(word.lower(), rest)
    if word.lower() in _PLAIN_COMMANDS and not rest:
        return Command(word.lower())
    match = _ANSWER.fullmatch(text)
    if match is None:
        raise BattlelogError(f"{clip(repr(text))} is not a command: answer miss, hit or sunk N (or C7 hit ...); type help")
    result = match["result"].lower()
    if match["ship"] is not None and result != SUNK:
        raise BattlelogError(f"only a sunk answer names a ship: {result}, not {result} {match['ship']}")
    cell = parse_cell(match["cell"], rows, cols) if match["cell"] else None
    return Answer(cell, result, None if match["ship"] is None else int(match["ship"]))


@dataclass
class Advisor:
    """The game so far with its posterior, and the file it is saved to after every change."""

    state: GameState
    marginals: Marginals
    engine: Engine
    path: Path
    #: Under salvo: the shots before the current volley and the marginals then, which chose the volley.
    _volley_start: tuple[tuple[object, ...], Marginals] | None = None

    @classmethod
    def start(cls, state: GameState, engine: Engine, path: Path) -> Advisor:
        """A session on ``state``, saved to ``path``; a contradictory state names the shot at fault and
        ``path``, the file it was read from (a new game has none to find)."""
        marginals = solve(state, engine, str(path))
        state.dump(path)
        return cls(state, marginals, engine, path)

    # ----- what the advisor says -------------------------------------------------------------
    @property
    def suggestion(self) -> Cell | None:
        """The cell to shoot next (None once every ship is sunk); under salvo the volley's next cell."""
        if self.state.config.rules.is_salvo:
            plan = self.volley_plan()
            return plan[0] if plan else None
        best = most_likely(self.state, self.marginals.cells)
        return best[0] if best else None

    def volley_plan(self) -> list[Cell]:
        """Under salvo, the cells still to fire in the current volley (a new one when none is under way):
        the most probable unshot cells under the marginals from before the volley's first answer, best
        first (ties in reading order)."""
        state = self.state
        if state.over:
            return []
        start = volley_start(state)
        marginals = self.marginals
        if start < len(state.shots):
            before = state.shots[:start]
            if self._volley_start is None or self._volley_start[0] != before:
                self._volley_start = (before, solve(state.prefix(start), self.engine))
            marginals = self._volley_start[1]
        return volley_cells(state, marginals.cells)

    def view(self, color: bool) -> str:
        """The heat map, what is left afloat, and the suggestion (or the end of the game)."""
        state, marginals = self.state, self.marginals
        lines = [heatmap_text(marginals.cells, state, color=color), HEAT_LEGEND]
        if marginals.models is not None:
            lines.append(layouts_line(marginals.models, "your answers"))
        if state.over:
            took = count_noun(len(state.shots), "shot")
            took = f"{count_noun(state.volleys, 'volley')} ({took})" if state.config.rules.is_salvo else took
            lines.append(f"every ship is sunk after {took} (undo to take back the last answer, or quit)")
            return "\n".join(lines)
        sinks = state.config.rules.sinks
        if sinks == NAMED:
            lines.append(f"ships afloat: {', '.join(f'{ship} (length {state.ships[ship]})' for ship in state.afloat)}")
        elif sinks == UNNAMED:
            lines.append(f"ships sunk: {state.sunk_count} of {len(state.ships)}")
        if state.config.rules.is_salvo:
            lines.append(self._volley_line())
            return "\n".join(lines)
        best = most_likely(state, marginals.cells)
        ties = f"; as likely: {', '.join(map(cell_name, best[1:6]))}{' ...' if len(best) > 6 else ''}" if len(best) > 1 else ""
        lines.append(f"suggested shot: {cell_name(best[0])} ({100 * marginals.cells[best[0]]:.1f}% chance of a hit{ties})")
        return "\n".join(lines)

    def _volley_line(self) -> str:
        """Under salvo: ``suggested shot: A1 (40.0% chance of a hit), shot 1 of volley 2: A1, B2, C3`` --
        the volley's shots still to fire, chosen before its answers, to be answered in this order."""
        volley = self.state.next_volley()[0]
        plan = self.volley_plan()
        chance = 100 * self.marginals.cells[plan[0]]
        done = sum(shot.volley == volley for shot in self.state.shots)
        return (
            f"suggested shot: {cell_name(plan[0])} ({chance:.1f}% chance of a hit), shot {done + 1} of volley {volley + 1}; "
            f"to fire, answered in this order: {', '.join(map(cell_name, plan))}"
        )

    # ----- what the user says ----------------------------------------------------------------
    def handle(self, line: str, color: bool) -> str:
        """Carry out one line and return the reply; refusals start with ``refused:`` and change nothing."""
        try:
            command = parse_command(line, self.state.rows, self.state.cols)
            if isinstance(command, Answer):
                return self.answer(command, color)
            return self.run(command, color)
        except BattlelogError as exc:
            return f"refused: {exc}"

    def answer(self, answer: Answer, color: bool) -> str:
        """Add a shot and its answer, if some layout still fits all the answers."""
        if self.state.over:
            raise StateError("every ship is already sunk: undo first to change an answer")
        cell = self.suggestion if answer.cell is None else answer.cell
        assert cell is not None
        sinks = self.state.config.rules.sinks
        if answer.result == SUNK and sinks == SILENT:
            raise StateError("sinks are silent in this game: a ship's last cell is answered hit, never sunk")
        if answer.result == SUNK and sinks == UNNAMED and answer.ship is not None:
            raise StateError(f"sinks are unnamed in this game: answer sunk, not sunk {answer.ship}")
        inferred = answer.result == SUNK and sinks == NAMED and answer.ship is None
        ship, note = self._sunk_ship(cell) if inferred else (answer.ship, "")
        volley = self.state.next_volley()[0] if self.state.config.rules.is_salvo else None
        state = self.state.with_shot(*cell, answer.result, ship, volley)
        said = f"{cell_name(cell)} {answer.result}" + (f" {ship}" if ship is not None else "") + note
        try:
            marginals = self.engine.marginals(state)
        except Inconsistent as exc:
            # Every earlier state of the session had a layout, so this answer is the one at fault.
            raise StateError(f"{said} contradicts the earlier answers: {exc}") from None
        self._change(state, marginals)
        return f"{said}: saved to {self.path}\n{self.view(color)}"

    def _sunk_ship(self, cell: Cell) -> tuple[int, str]:
        """The ship a sink at ``cell`` sank, when the ships it can have sunk are of one length, and a note
        saying which was taken when there were several."""
        if self.marginals.placements is None:
            raise StateError(f"say which ship sank: sunk N, N the ship's index in the fleet {fleet_text(self.state.ships)}")
        chances = self.marginals.answers(self.state)[cell][2:]
        possible = [ship for ship, p in enumerate(chances) if p > 1e-12]
        if not possible:
            raise StateError(f"no ship afloat can be sunk by a shot at {cell_name(cell)}: some of its cells would still be unhit")
        if len({self.state.ships[ship] for ship in possible}) > 1:
            which = " or ".join(f"{ship} (length {self.state.ships[ship]})" for ship in possible)
            raise StateError(f"a sink at {cell_name(cell)} could be ship {which}: say which, e.g. sunk {possible[0]}")
        # Ships of one length afloat are interchangeable for every later chance: any of them will do,
        # so the lowest index, always the same.
        alike = " and ".join(map(str, possible))
        note = f" (ships {alike} are alike here: taken as ship {possible[0]})" if len(possible) > 1 else ""
        return possible[0], note

    def run(self, command: Command, color: bool) -> str:
        """``undo``, ``save``, ``load``, ``show``, ``help`` or ``quit``."""
        if command.name == "quit":
            raise Quit
        if command.name == "help":
            return HELP
        if command.name == "show":
            return self.view(color)
        if command.name == "save":
            assert command.path is not None
            self.state.dump(command.path)
            return f"saved the game to {command.path} (it is also saved to {self.path} after every answer)"
        if command.name == "load":
            assert command.path is not None
            state = GameState.load(command.path)
            self._change(state, solve(state, self.engine, command.path), Path(command.path))
            return (
                f"continuing the game in {self.path} ({count_noun(len(state.shots), 'shot')}), saved there after every answer\n"
                f"{self.view(color)}"
            )
        if not self.state.shots:
            raise StateError("nothing to undo: no shot yet")
        undone = self.state.shots[-1]
        state = self.state.prefix(len(self.state.shots) - 1)
        self._change(state, self.engine.marginals(state))
        return f"took back {cell_name(undone.cell)} {undone.result}: saved to {self.path}\n{self.view(color)}"

    def _change(self, state: GameState, marginals: Marginals, path: Path | None = None) -> None:
        """Make ``state`` the game and save it (to ``path`` from now on, when given)."""
        target = self.path if path is None else path
        state.dump(target)  # first: a file that cannot be written changes nothing
        self.path, self.state, self.marginals = target, state, marginals
