"""The rollout player (docs/rollout.md) against references written here from the spec and the pdf rule.

- the compiled base policy plays, shot for shot, the games of the pdf player's density rule with ties
  in reading order (``battlelog.players.pdf.density``, numpy), under every touch and sink rule;
- a rollout's estimate of a cell is the expected shots of "that cell, then the base policy", computed
  here over every consistent layout of the independent oracle (tests/oracle.py): exactly when the
  player lists every layout (the base policy is then exact greedy), within four standard errors when
  it samples (the base policy is then the pdf rule);
- listing every layout, the rollout player is never worse than exact greedy (exact expectations);
- options are checked in one line, and a game is reproducible from its seed.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from battlelog.errors import BattlelogError
from battlelog.optimum.layouts import LayoutTable
from battlelog.players import make_player
from battlelog.players.evaluate import expected_shots
from battlelog.players.pdf import density
from battlelog.players.rollout import RolloutPlayer
from battlelog.players.rollout_kernel import simulated_game
from battlelog.players.rollout_tables import start_of, tables
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

import oracle

TOUCHES, SINKS = ("allowed", "diagonal", "none"), ("named", "unnamed", "silent")


# ----- the reference: the pdf rule, ties in reading order, against an oracle layout ------------------
def _answer(owner: np.ndarray, hits: set[int], x: int, sinks: str) -> tuple[str, int | None]:
    """The spec's answer of the layout ``owner`` to a shot at cell x when ``hits`` are hit."""
    ship = int(owner[x])
    if ship < 0:
        return "miss", None
    if sinks == "silent" or not {y for y in np.flatnonzero(owner == ship)} <= hits | {x}:
        return "hit", None
    return "sunk", ship if sinks == "named" else None


def _base_shot(state: GameState) -> int:
    """The first unshot cell in reading order of highest pdf density."""
    score = density(state).ravel().astype(float)
    for r, c in state.shot_cells:
        score[r * state.cols + c] = -np.inf
    return int(np.argmax(score))


def _shoot(state: GameState, owner: np.ndarray, x: int) -> GameState:
    hits = {r * state.cols + c for r, c in state.hits}
    result, ship = _answer(owner, hits, x, state.config.rules.sinks)
    return state.with_shot(x // state.cols, x % state.cols, result, ship)


def _reference_game(state: GameState, owner: np.ndarray, first: int = -1) -> list[int]:
    """The cells shot from ``state`` to the end: ``first`` (unless -1), then the base policy."""
    cells: list[int] = []
    ship_cells = int((owner >= 0).sum())
    while len(state.hits) < ship_cells:
        x = first if first >= 0 and not cells else _base_shot(state)
        cells.append(x)
        state = _shoot(state, owner, x)
    return cells


def _state_of(config: GameConfig, owner: np.ndarray, cells: list[int]) -> GameState:
    state = GameState.empty(config)
    for x in cells:
        state = _shoot(state, owner, x)
    return state


def _kernel_game(state: GameState, owner: np.ndarray, first: int = -1) -> list[int]:
    left = np.array([sum(1 for x in np.flatnonzero(owner == i) if divmod(int(x), state.cols) not in state.hits)
                     for i in range(len(state.ships))], dtype=np.int64)  # fmt: skip
    record = np.zeros(state.config.cell_count + 1, dtype=np.int64)
    shots = simulated_game(tables(state.config), start_of(state), owner.astype(np.int64), left, first, record)
    return [int(x) for x in record[:shots]]


@pytest.mark.parametrize(("touch", "sinks"), list(product(TOUCHES, SINKS)))
def test_the_compiled_base_policy_plays_the_pdf_rule_shot_for_shot(touch: str, sinks: str) -> None:
    for size, ships in ((5, (3, 2, 1)), (4, (3, 2, 2))):
        config = GameConfig(size, ships, Rules(touch, sinks))
        table = oracle.layouts(size, ships, touch)
        rng = np.random.default_rng([size, len(ships), 3])
        for k in rng.choice(len(table), size=4, replace=False):
            owner = table.owner[k]
            whole = _reference_game(GameState.empty(config), owner)
            assert _kernel_game(GameState.empty(config), owner) == whole
            # from a mid-game state (sinks already known, read by start_of), and with a first shot imposed
            middle = _state_of(config, owner, whole[: len(whole) // 2])
            assert _kernel_game(middle, owner) == whole[len(whole) // 2 :]
            first = int(rng.choice([x for x in range(config.cell_count) if divmod(x, size) not in middle.shot_cells]))
            assert _kernel_game(middle, owner, first) == _reference_game(middle, owner, first)


# ----- the rollout estimate against enumeration ----------------------------------------------------------
def _greedy_total(rows: list[np.ndarray], hits: set[int], shot: set[int], first: int, sinks: str, ship_cells: int) -> int:
    """The shots of "``first`` (unless -1), then exact greedy" summed over the layouts ``rows`` (all those
    consistent with the game so far, equally likely): greedy shoots the unshot cell most of them cover,
    the first in reading order on ties; each answer keeps the layouts that give it."""
    if not rows or len(hits) == ship_cells:
        return 0
    x = first
    if x < 0:
        covered = np.sum([row >= 0 for row in rows], axis=0)
        x = max((y for y in range(len(covered)) if y not in shot), key=lambda y: (covered[y], -y))
    groups: dict[tuple[str, int | None], list[np.ndarray]] = {}
    for row in rows:
        groups.setdefault(_answer(row, hits, x, sinks), []).append(row)
    return len(rows) + sum(
        _greedy_total(group, hits | ({x} if answer[0] != "miss" else set()), shot | {x}, -1, sinks, ship_cells)
        for answer, group in groups.items()
    )


def _consistent_rows(state: GameState) -> list[np.ndarray]:
    """The oracle's layouts consistent with ``state``, as owner rows."""
    config = state.config
    table = oracle.layouts(config.rows, config.ships, config.rules.touch)
    chosen = oracle.posterior(table, [(s.cell, (s.result, s.ship)) for s in state.shots], config.rules.sinks)
    return [table.owner[k] for k in chosen]


def _exact_totals(state: GameState, cells: list[tuple[int, int]]) -> tuple[list[int], int]:
    """Per cell, the shots of "that cell, then exact greedy" summed over every consistent layout."""
    rows, n = _consistent_rows(state), state.cols
    hits, shot = {r * n + c for r, c in state.hits}, {r * n + c for r, c in state.shot_cells}
    sinks, ship_cells = state.config.rules.sinks, state.config.ship_cells
    return [_greedy_total(rows, hits, shot, r * n + c, sinks, ship_cells) for r, c in cells], len(rows)


def _pdf_totals(state: GameState, cells: list[tuple[int, int]]) -> tuple[list[int], int]:
    """Per cell, the shots of "that cell, then the pdf rule" summed over every consistent layout."""
    rows = _consistent_rows(state)
    return [sum(len(_reference_game(state, row, r * state.cols + c)) for row in rows) for r, c in cells], len(rows)


def _rollout(spec: str, seed: int = 0) -> RolloutPlayer:
    player = make_player(spec, seed)
    assert isinstance(player, RolloutPlayer)
    return player


def _midgame(config: GameConfig, seed: int, shots: int) -> GameState:
    owner = oracle.layouts(config.rows, config.ships, config.rules.touch).owner
    rng = np.random.default_rng(seed)
    truth = owner[int(rng.integers(len(owner)))]
    return _state_of(config, truth, _reference_game(GameState.empty(config), truth)[:shots])


@pytest.mark.parametrize(("touch", "sinks"), [("allowed", "named"), ("allowed", "unnamed"), ("diagonal", "silent")])
def test_listing_every_layout_the_rollouts_are_the_exact_expectations(touch: str, sinks: str) -> None:
    config = GameConfig(5, (3, 2), Rules(touch, sinks))
    for seed, shots in ((2, 3), (3, 6)):
        state = _midgame(config, seed, shots)
        player = _rollout("rollout[candidates=3]")
        _, exact, cells, rollouts = player.evaluate(state)
        totals, layouts = _exact_totals(state, cells)
        assert exact and rollouts.shape == (len(cells), layouts)
        assert rollouts.sum(axis=1).tolist() == totals


def test_sampled_rollouts_are_within_their_sampling_error() -> None:
    config = GameConfig(5, (3, 2))
    state = _midgame(config, 4, 2)
    player = _rollout("rollout[candidates=2,samples=400,exact=0]", 7)
    _, exact, cells, rollouts = player.evaluate(state)
    totals, layouts = _pdf_totals(state, cells)
    assert not exact and rollouts.shape == (len(cells), 400)
    for row, total in zip(rollouts, totals):
        error = row.std(ddof=1) / np.sqrt(len(row))
        assert abs(row.mean() - total / layouts) <= 4 * error, (row.mean(), total / layouts, error)


# ----- policy improvement, exactly ---------------------------------------------------------------------
def _base_expectation(config: GameConfig) -> Fraction:
    """Exact greedy's (ties in reading order) expected shots, over every oracle layout."""
    rows = _consistent_rows(GameState.empty(config))
    return Fraction(_greedy_total(rows, set(), set(), -1, config.rules.sinks, config.ship_cells), len(rows))


@pytest.mark.parametrize(
    "config",
    [GameConfig(3, (2, 1)), GameConfig(4, (3,)), GameConfig(4, (3, 2)), GameConfig(4, (2, 2), Rules("allowed", "silent")),
     GameConfig(4, (3, 2), Rules("diagonal", "unnamed"))],
    ids=lambda c: c.label(),
)  # fmt: skip
def test_listing_every_layout_the_rollout_player_is_never_worse_than_exact_greedy(config: GameConfig) -> None:
    player = make_player("rollout[candidates=3]", 0)
    rollout = expected_shots(player, LayoutTable.build(config, 10**6))
    assert rollout <= _base_expectation(config)


# ----- options, seeds, rules -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "message"),
    [("rollout[candidates=0]", "candidates a whole number of at least 1"),
     ("rollout[samples=1]", "samples a whole number of at least 2"),
     ("rollout[exact=-1]", "exact a whole number of at least 0"),
     ("rollout[margin=-0.5]", "margin a finite number of at least 0"),
     ("rollout[engine=sdd]", "the sdd engine does not"), ("rollout[samples=many]", "is not a whole number")],
)  # fmt: skip
def test_bad_options_are_one_line_errors(spec: str, message: str) -> None:
    with pytest.raises(BattlelogError, match=message) as error:
        make_player(spec, 0)
    assert "\n" not in str(error.value)


def test_a_sampled_game_is_reproducible_from_its_seed() -> None:
    config = GameConfig(6, (4, 3, 3))
    layout = layout_for(config, 101, 0)
    games = [
        play_game(config, layout, make_player("rollout[samples=100,exact=50]", game_seeds(101, 0)[1])).state for _ in range(2)
    ]
    assert games[0] == games[1] and games[0].over


def test_it_plays_rectangles_sampled_and_listed() -> None:
    config = GameConfig(4, (3, 2, 2), cols=6)
    for spec in ("rollout[samples=50,exact=0]", "rollout"):
        result = play_game(config, layout_for(config, 101, 1), make_player(spec, game_seeds(101, 1)[1]))
        assert result.state.over and config.ship_cells <= result.score <= config.cell_count
