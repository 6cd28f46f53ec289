"""The exact expected score of a player: every layout, and every way its ties can fall.

The game tree is walked from the empty board. At each state the player names the cells it draws
its shot from (:meth:`Player.candidates`); each candidate splits the layouts still consistent with
the answers by the answer they give, and each part continues the game. Summed over layouts,

    T(state, C) = |C| + (1 / |candidates|) * sum over candidates x, answers a of T(state + (x, a), C_a),

with T = 0 once every ship cell is hit (the answers, and so the split, follow the game's sink rule,
and the layouts its touch rule); the expectation is T / (number of layouts), a fraction, exact.
States with equal consistent layouts and equal :meth:`Player.decision_key` are played alike, so each
is walked once.

A blind player (:attr:`Player.blind`: its choices depend only on which cells are shot) plays every
layout down the same tree of shot sets, so the walk needs no split by answers:

    T(S) = (layouts not finished by S) + (1 / |candidates|) * sum over candidates x of T(S + x).

The player still sees real states: the answers of a layout the game is not over for.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction
from typing import Any

import numpy as np

from battlelog.errors import BattlelogError
from battlelog.optimum.layouts import LayoutTable
from battlelog.players.base import Player
from battlelog.rules.answers import decode_answer
from battlelog.rules.geometry import Cell, cell_index, cells_mask
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState
from battlelog.rules.variants import NAMED

#: An exact total: an integer until a tie makes it a fraction.
Total = int | Fraction
#: Told the number of belief states walked so far.
WalkProgress = Callable[[int], None]


#: Cells of a board beyond which the walk of a player that hunts at random can be long (more than
#: about 40 s): it branches on every cell it may draw. Measured with ``expected_shots`` alone on a
#: 2-core machine: on 3x3 (fleets 2, 3, 2,1, 2,2, 3,2) hunt-target and parity take 0.02-1.1 s; on 4x4
#: hunt-target takes 43 s with one ship of 2 (24 layouts), 47 s with one of 3, minutes with 3,2,2,
#: and more than 150 s on 5x5 with one ship of 2; parity, whose lattice narrows its draws, 0.1-3.4 s
#: on 4x4 2, 3 and 3,3 (152 layouts), 7.8 s on 2,2 (448), 15 s on 3,2 (264), 84 s and 574 MB on
#: 3,2,2 (3,200), 1.7 s on 5x5 3. Hence each such player's own layout count
#: (:attr:`Player.long_walk_layouts`): 0 for hunt-target, 1000 for parity.
LONG_WALK_CELLS = 9


def long_walk(player: Player, table: LayoutTable) -> bool:
    """Whether ``player``'s exact walk on ``table``'s instance is known to be long (see LONG_WALK_CELLS)."""
    layouts = player.long_walk_layouts
    return layouts is not None and table.config.cell_count > LONG_WALK_CELLS and len(table) > layouts


class NotExact(BattlelogError):
    """The player's choice is not a uniform draw among cells the state fixes, so it has no exact
    expectation here."""


def expected_shots(
    player: Player, table: LayoutTable, progress: WalkProgress | None = None, every: int = 10_000, blind: bool | None = None
) -> Fraction:
    """The exact expected number of shots ``player`` needs on a uniform layout of ``table.config``.

    ``progress`` is called with the number of states walked so far, every ``every`` new states.
    ``blind`` overrides the player's own :attr:`Player.blind` (the general walk is right for every
    player; the blind one only for blind players).
    """
    if table.config.rules.is_salvo:  # the walks fire single shots: a salvo expectation would be wrong
        raise NotExact(f"exact expectations are of single shots, not {table.config.rules.text()}")
    player.new_game(table.config)
    walk = _blind_walk if (player.blind if blind is None else blind) else _game_walk
    return Fraction(walk(player, table, _Counter(progress, every)), len(table))


class _Counter:
    """Counts the states walked and reports every ``every``."""

    def __init__(self, progress: WalkProgress | None, every: int) -> None:
        self.progress, self.every, self.states = progress, every, 0

    def tick(self) -> None:
        self.states += 1
        if self.progress is not None and self.states % self.every == 0:
            self.progress(self.states)


def _candidates(player: Player, state: GameState) -> list[Cell]:
    cells = player.candidates(state)
    if cells is None:
        raise NotExact(f"player {player.name} does not choose uniformly among cells its state fixes")
    return cells


def _average(count: Any, summed: Any, ways: int) -> Any:
    """One more shot for each unfinished layout, plus the mean of the candidates' totals (a scalar or, per
    layout, an object array)."""
    return count + (summed if ways == 1 else summed * Fraction(1, ways))


def _covered(table: LayoutTable) -> Callable[[np.ndarray], frozenset[Cell]]:
    """The cells some of a set of ``table``'s layouts cover (what :meth:`Player.decision_key` is told),
    remembered by their mask."""
    config = table.config
    known: dict[int, frozenset[Cell]] = {}

    def possible(layouts: np.ndarray) -> frozenset[Cell]:
        mask = int(np.bitwise_or.reduce(table.union[layouts]))
        if mask not in known:
            known[mask] = frozenset(divmod(x, config.cols) for x in range(config.cell_count) if mask >> x & 1)
        return known[mask]

    return possible


def _game_walk(player: Player, table: LayoutTable, counter: _Counter) -> Total:
    """T of the empty board, splitting the layouts by their answers."""
    config = table.config
    size = config.cols
    named = config.rules.sinks == NAMED  # the table's answers follow the sink rule (LayoutTable.answers)
    memo: dict[tuple[bytes, Hashable], Total] = {}
    possible = _covered(table)

    def total(state: GameState, layouts: np.ndarray) -> Total:
        if len(state.hits) == config.ship_cells:
            return 0
        key = (layouts.tobytes(), player.decision_key(state, possible(layouts)))
        if key not in memo:
            cells = _candidates(player, state)
            hits = cells_mask(state.hits, size)
            summed: Total = 0
            for cell in cells:
                answers = table.answers(layouts, hits, cell)
                for answer in np.unique(answers):
                    result, ship = decode_answer(int(answer), named)
                    summed += total(state.with_shot(cell[0], cell[1], result, ship), layouts[answers == answer])
            memo[key] = _average(len(layouts), summed, len(cells))
            counter.tick()
        return memo[key]

    return total(GameState.empty(config), np.arange(len(table), dtype=np.int32))


def _blind_walk(player: Player, table: LayoutTable, counter: _Counter, by_layout: bool = False) -> Any:
    """T of the empty board for a blind player: one tree of shot sets for all layouts (``by_layout``: one T
    per layout, an object array, instead of their sum)."""
    config = table.config
    memo: dict[int, Any] = {}
    board = (1 << config.cell_count) - 1

    def witness(shot: int, state: GameState, layout: int, cell: Cell) -> tuple[GameState, int] | None:
        """The state after ``cell`` as some layout unfinished by ``shot`` answers it, with that layout;
        None when every layout is finished."""
        if int(table.union[layout]) & ~shot:
            answer, ship = _referee(table, layout, state).shoot(*cell)
            return state.with_shot(cell[0], cell[1], answer, ship), layout
        unfinished = np.flatnonzero(table.union & np.uint64(~shot & ((1 << config.cell_count) - 1)))
        if len(unfinished) == 0:
            return None
        layout = int(unfinished[0])
        referee, replay = _referee(table, layout, GameState.empty(config)), GameState.empty(config)
        for earlier in (*state.shots, None):
            where = cell if earlier is None else earlier.cell
            answer, ship = referee.shoot(*where)
            replay = replay.with_shot(where[0], where[1], answer, ship)
        return replay, layout

    def total(state: GameState, layout: int, shot: int) -> Any:
        if shot not in memo:
            cells = _candidates(player, state)
            summed: Any = np.zeros(len(table), dtype=object) if by_layout else 0
            for cell in cells:
                after = shot | 1 << cell_index(cell, config.cols)
                found = witness(after, state, layout, cell)
                if found is not None:
                    summed += total(*found, after)
            unfinished = (table.union & np.uint64(~shot & board)) != 0
            count = unfinished.astype(object) if by_layout else int(np.count_nonzero(unfinished))
            memo[shot] = _average(count, summed, len(cells))
            counter.tick()
        return memo[shot]

    return total(GameState.empty(config), 0, 0)


def _referee(table: LayoutTable, layout: int, state: GameState) -> Referee:
    """A referee of layout number ``layout`` that has answered the shots of ``state``."""
    config = table.config
    referee = Referee(config, tuple(config.placements(i)[k] for i, k in enumerate(table.placement[layout])))
    for shot in state.shots:
        referee.shoot(*shot.cell)
    return referee



def shots_by_layout(player: Player, table: LayoutTable, progress: WalkProgress | None = None, every: int = 10_000) -> list[Total]:
    """The exact expected number of shots ``player`` needs on each layout of ``table`` (``table``'s order),
    over every way its ties fall: what a hider who knows the player weighs each layout by.

    The same walks as :func:`expected_shots` (its mean over the layouts), keeping one total per layout
    instead of their sum.
    """
    if table.config.rules.is_salvo:
        raise NotExact(f"exact expectations are of single shots, not {table.config.rules.text()}")
    player.new_game(table.config)
    if player.uniform_order:
        ship_cells, cells = table.config.ship_cells, table.config.cell_count
        return [Fraction(ship_cells * (cells + 1), ship_cells + 1)] * len(table)
    counter = _Counter(progress, every)
    totals = _blind_walk(player, table, counter, by_layout=True) if player.blind else _layout_walk(player, table, counter)
    return list(totals)


def _layout_walk(player: Player, table: LayoutTable, counter: _Counter) -> np.ndarray:
    """Each layout's T (shots still to fire) from the empty board, an object array of exact totals."""
    config = table.config
    size = config.cols
    named = config.rules.sinks == NAMED
    memo: dict[tuple[bytes, Hashable], np.ndarray] = {}
    possible = _covered(table)

    def totals(state: GameState, layouts: np.ndarray) -> np.ndarray:
        if len(state.hits) == config.ship_cells:
            return np.zeros(len(layouts), dtype=object)
        key = (layouts.tobytes(), player.decision_key(state, possible(layouts)))
        if key not in memo:
            cells = _candidates(player, state)
            hits = cells_mask(state.hits, size)
            summed = np.zeros(len(layouts), dtype=object)
            for cell in cells:
                answers = table.answers(layouts, hits, cell)
                for answer in np.unique(answers):
                    result, ship = decode_answer(int(answer), named)
                    part = answers == answer
                    summed[part] += totals(state.with_shot(cell[0], cell[1], result, ship), layouts[part])
            memo[key] = _average(1, summed, len(cells))
            counter.tick()
        return memo[key]

    return totals(GameState.empty(config), np.arange(len(table), dtype=np.int32))
