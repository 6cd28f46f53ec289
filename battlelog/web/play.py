"""A game against the computer: ``/api/play/new``, ``/api/play/shoot``, ``/api/play/heat``.

The computer's fleet is hidden on the server (a :class:`Referee` per side); the page only learns the
answers, and the layout once the game is over. The board comes as a game state without shots (the file
format, read by its own reader); the computer's player is one of the registry's names, never
``module:Class``: no request loads code. Games are kept in memory under an unguessable
id, each belonging to the address that started it (:class:`battlelog.web.games.Games`). Every answer
carries each side's live chance to win (:mod:`battlelog.web.chances`), and the computer's player is told
your progress before each of its shots (``racer`` plays to beat you).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from battlelog.engines import DEFAULT_ENGINE
from battlelog.engines.solve import solve
from battlelog.errors import BattlelogError
from battlelog.players import PLAYERS, Player, check_player, make_player
from battlelog.players.opponent import Opponent
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, Placement
from battlelog.rules.layouts import layouts_overlap, sample_layout
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState
from battlelog.web.chances import live_chances
from battlelog.web.games import Games
from battlelog.web.requests import WebError, client_of, game_state, json_object, read_body
from battlelog.web.service import MAX_CELLS, EngineService, check_budget
from battlelog.wording import count_noun


def layout_json(layout: tuple[Placement, ...]) -> list[dict[str, Any]]:
    return [{"ship": p.ship, "length": p.length, "row": p.row, "col": p.col, "horizontal": p.horizontal} for p in layout]


def read_fleet(raw: Any, config: GameConfig) -> tuple[Placement, ...]:
    """The player's fleet: one placement per ship, on the board, legal under the touch rule."""
    if not isinstance(raw, list) or len(raw) != len(config.ships):
        raise BattlelogError(f"fleet must list {len(config.ships)} placements, one per ship")
    layout = []
    for ship, item in enumerate(raw):
        where = f"fleet: ship {ship}"
        item = json_object(item, ("ship", "length", "row", "col", "horizontal"), ("row", "col", "horizontal"))
        if item.get("ship", ship) != ship or item.get("length", config.ships[ship]) != config.ships[ship]:
            raise BattlelogError(f"{where} must be ship {ship} of length {config.ships[ship]}, in fleet order")
        if not isinstance(item["horizontal"], bool):
            raise BattlelogError(f"{where}: horizontal must be true or false")
        if not all(isinstance(item[k], int) and not isinstance(item[k], bool) for k in ("row", "col")):
            raise BattlelogError(f"{where}: row and col must be whole numbers")
        placement = Placement(ship, config.ships[ship], item["row"], item["col"], item["horizontal"])
        if placement not in config.placements(ship):
            raise BattlelogError(f"{where} does not lie on the board")
        layout.append(placement)
    if layouts_overlap(layout) or not config.rules.legal(layout, config.rows, config.cols):
        raise BattlelogError(f"fleet: ships overlap or touch where the rules ({config.rules.text() or 'standard'}) forbid it")
    return tuple(layout)


@dataclass
class Match:
    """One game: your fleet and the computer's, each behind a referee, and what each side has shot."""

    computer: Player
    your_fleet: Referee
    its_fleet: Referee
    yours: GameState  # your shots at the computer's fleet
    its: GameState  # the computer's shots at your fleet
    rng: np.random.Generator  # the live chances' draws
    winner: str | None = None
    chances: dict[str, Any] | None = None  # each side's chance to win (not under salvo): battlelog.web.chances
    lock: threading.Lock = field(default_factory=threading.Lock)

    def close(self) -> None:
        """Release the computer player's engine (the game is dropped)."""
        self.computer.close()

    def view(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "you": self.yours.to_json(), "computer": self.its.to_json(), "winner": self.winner, "chances": self.chances,
        }  # fmt: skip
        out["fleet"] = layout_json(self.your_fleet.layout)
        if self.winner is not None:
            out["reveal"] = layout_json(self.its_fleet.layout)
        if self.yours.config.rules.is_salvo:  # your next volley's size, and the volleys each side began
            out["salvo"] = {
                "next": 0 if self.winner else self.yours.next_volley()[1],
                "you": self.yours.volleys,
                "computer": self.its.volleys,
            }
        return out

    def reckon(self) -> dict[str, Any]:
        """The view with each side's chance to win worked out afresh (one shot a turn only); runs on a worker thread."""
        if not self.yours.config.rules.is_salvo:
            engine = self.computer.workspace.engine(DEFAULT_ENGINE)
            self.chances = live_chances(self.yours, self.its, self.winner, engine, self.rng)
        return self.view()

    def fire(self, cells: list[Cell]) -> dict[str, Any]:
        """Your shot (your volley, under salvo), then, unless it ended the game, the computer's; runs on
        a worker thread. A volley is checked whole before any of it is fired."""
        with self.lock:
            if self.winner is not None:
                raise WebError(f"the game is over: {'you' if self.winner == 'you' else 'the computer'} won", 409)
            volley, size = self.yours.next_volley()
            if len(cells) != size:
                raise BattlelogError(f"your volley is {count_noun(size, 'shot')}: send {size} cells, not {len(cells)}")
            unshot = set(self.yours.unshot)
            for k, cell in enumerate(cells):
                if cell not in unshot or cell in cells[:k]:
                    raise BattlelogError(f"row {cell[0]}, col {cell[1]} is off the board or already shot")
            self.yours = fired(self.its_fleet, self.yours, cells, volley)
            if self.its_fleet.over:
                self.winner = "you"
                return self.reckon()
            volley, size = self.its.next_volley()
            self.computer.face(Opponent(self.yours, "you"))  # a racer plays to beat you; the others ignore it
            picks = (
                self.computer.choose_volley(self.its, size)
                if self.its.config.rules.is_salvo
                else [self.computer.choose(self.its)]
            )
            self.its = fired(self.your_fleet, self.its, picks, volley)
            if self.your_fleet.over:
                self.winner = "computer"
            return self.reckon()


def fired(referee: Referee, state: GameState, cells: list[Cell], volley: int) -> GameState:
    """``state`` after the shots at ``cells``, answered by ``referee`` (one volley under salvo, whose
    rest is not fired once its fleet is sunk: the game is over)."""
    salvo = state.config.rules.is_salvo
    for cell in cells:
        if referee.over:
            break
        state = state.with_shot(*cell, *referee.shoot(*cell), volley if salvo else None)
    return state


def _games(request: Request) -> Games[Match]:
    games: Games[Match] = request.app.state.games
    return games


def _match(request: Request, data: dict[str, Any]) -> Match:
    return _games(request).get(client_of(request), data["game"])


async def new_game(request: Request) -> JSONResponse:
    data = json_object(await read_body(request), ("board", "player", "fleet", "seed"), ("board", "player"))
    state = game_state(data["board"], "board")
    if state.shots:
        raise BattlelogError("board: a new game has no shots yet")
    config = state.config
    check_budget(config)
    name = data["player"]
    if not isinstance(name, str) or name not in PLAYERS:
        raise BattlelogError(f"unknown player {str(name)[:40]!r}; choose from {', '.join(sorted(PLAYERS))}")
    check_player(name, config)
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63):
        raise BattlelogError("seed must be a whole number from 0")
    rng = np.random.default_rng(seed)
    fleet = sample_layout(config, rng) if data.get("fleet") is None else read_fleet(data["fleet"], config)
    computer = make_player(name, int(rng.integers(2**63)))
    computer.new_game(config)
    its_fleet = Referee(config, sample_layout(config, rng))
    match = Match(computer, Referee(config, fleet), its_fleet, state, state, np.random.default_rng(rng.integers(2**63)))
    try:
        game = _games(request).add(client_of(request), match)
    except WebError:
        computer.close()
        raise
    service: EngineService = request.app.state.service
    return JSONResponse({"game": game, **await service.run(match.reckon, client_of(request))})


async def shoot(request: Request) -> JSONResponse:
    """Your shot ``row``, ``col``, or under salvo your volley ``cells`` ([{"row", "col"}, ...]), and the
    computer's answer to it."""
    data = json_object(await read_body(request), ("game", "row", "col", "cells"), ("game",))
    match = _match(request, data)
    if "cells" in data:
        if "row" in data or "col" in data or not isinstance(data["cells"], list) or len(data["cells"]) > MAX_CELLS:
            raise BattlelogError("send either row and col, or cells: a list of {row, col}")
        items = [json_object(item, ("row", "col"), ("row", "col")) for item in data["cells"]]
        cells = [(item["row"], item["col"]) for item in items]
    elif "row" in data and "col" in data:
        cells = [(data["row"], data["col"])]
    else:
        raise BattlelogError("send row and col (or, under salvo, cells: a list of {row, col})")
    if not all(isinstance(v, int) and not isinstance(v, bool) for cell in cells for v in cell):
        raise BattlelogError("row and col must be whole numbers")
    service: EngineService = request.app.state.service
    return JSONResponse(await service.run(lambda: match.fire(cells), client_of(request)))


async def heat(request: Request) -> JSONResponse:
    """The computer's view of your board: the exact chance that each of your cells holds a ship."""
    data = json_object(await read_body(request), ("game",), ("game",))
    match = _match(request, data)
    service: EngineService = request.app.state.service
    marginals = await service.run(lambda: solve(match.its, service.engine()), client_of(request))
    return JSONResponse(marginals.to_json())


ROUTES = [
    Route("/api/play/new", new_game, methods=["POST"]),
    Route("/api/play/shoot", shoot, methods=["POST"]),
    Route("/api/play/heat", heat, methods=["POST"]),
]
