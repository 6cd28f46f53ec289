"""The racer: the race's arithmetic, the opponent's remaining shots against an independent recursion, its
choice against the exact chance to win computed here, and the rollout player's choice where theory says so."""

from __future__ import annotations

import numpy as np
import pytest

from battlelog.errors import BattlelogError
from battlelog.players import make_player
from battlelog.players.opponent import Opponent
from battlelog.players.race import chance_to_win, remaining_shots, survival
from battlelog.players.racer import RacerPlayer, raced
from battlelog.players.rollout import RolloutPlayer
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import layout_for

import oracle

CONFIG = GameConfig(4, (3, 2))


# ----- the reference: exact greedy over the oracle's layouts, per truth --------------------------------
def _answer(owner: np.ndarray, hits: set[int], x: int, sinks: str) -> tuple[str, int | None]:
    ship = int(owner[x])
    if ship < 0:
        return "miss", None
    if sinks == "silent" or not set(np.flatnonzero(owner == ship)) <= hits | {x}:
        return "hit", None
    return "sunk", ship if sinks == "named" else None


def _greedy_shots(rows: list[np.ndarray], hits: set[int], shot: set[int], first: int, ship_cells: int) -> list[int]:
    """Per layout of ``rows`` (all those consistent so far) taken as the truth, the shots of "``first``
    (unless -1), then exact greedy" to the end: greedy shoots the unshot cell most layouts still consistent
    with the answers cover, the first in reading order on ties."""
    if len(hits) == ship_cells:
        return [0] * len(rows)
    x = first
    if x < 0:
        covered = np.sum([row >= 0 for row in rows], axis=0)
        x = max((y for y in range(len(covered)) if y not in shot), key=lambda y: (covered[y], -y))
    groups: dict[tuple[str, int | None], list[int]] = {}
    for k, row in enumerate(rows):
        groups.setdefault(_answer(row, hits, x, "named"), []).append(k)
    out = [0] * len(rows)
    for answer, members in groups.items():
        hit = hits | ({x} if answer[0] != "miss" else set())
        after = _greedy_shots([rows[k] for k in members], hit, shot | {x}, -1, ship_cells)
        for k, shots in zip(members, after, strict=True):
            out[k] = 1 + shots
    return out


def _rows(state: GameState) -> list[np.ndarray]:
    table = oracle.layouts(state.rows, state.ships, state.config.rules.touch)
    chosen = oracle.posterior(table, [(s.cell, (s.result, s.ship)) for s in state.shots], state.config.rules.sinks)
    return [table.owner[k] for k in chosen]


def _exact(state: GameState, first: int = -1) -> list[int]:
    n = state.cols
    hits, shot = {r * n + c for r, c in state.hits}, {r * n + c for r, c in state.shot_cells}
    return _greedy_shots(_rows(state), hits, shot, first, state.config.ship_cells)


def _after(config: GameConfig, seed: int, game: int, player: str, shots: int) -> GameState:
    """The state after the first ``shots`` shots of ``player``'s game on board ``game`` of ``seed``."""
    whole = play_game(config, layout_for(config, seed, game), make_player(player, seed)).state
    state = GameState.empty(config)
    for shot in whole.shots[:shots]:
        state = state.with_shot(*shot.cell, shot.result, shot.ship)
    return state


def _racer(opponent: GameState | None, spec: str = "racer", seed: int = 0) -> RacerPlayer:
    player = make_player(spec, seed)
    assert isinstance(player, RacerPlayer)
    player.new_game(CONFIG)
    player.face(None if opponent is None else Opponent(opponent, "pdf"))
    return player


# ----- the arithmetic of the race -------------------------------------------------------------------------
def test_survival_is_the_share_of_the_opponent_needing_at_least_as_many() -> None:
    theirs = np.array([2, 3, 3, 5])
    assert survival(theirs, np.array([1, 2, 3, 4, 5, 6])).tolist() == [1.0, 1.0, 0.75, 0.25, 0.25, 0.0]
    # two independent draws: P(R <= Q) over the 3 x 4 pairs, counted by hand
    assert chance_to_win(np.array([2, 3, 6]), theirs) == pytest.approx((4 + 3 + 0) / 12)


def test_raced_leaves_the_rollout_choice_only_for_a_better_chance() -> None:
    wins = np.array([[0.5, 0.5], [0.5, 0.5], [1.0, 0.0]])
    assert raced(wins, 1, 0.0) == 1  # all tied: the rollout player's row
    better = np.array([[0.5, 0.5], [0.6, 0.7], [0.6, 0.7]])
    assert raced(better, 0, 0.0) == 1  # the first of the best
    noisy = np.array([[1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0]])
    assert raced(noisy, 0, 0.0) == 2
    assert raced(noisy, 0, 2.0) == 0  # better by 0.25 with a standard error of 0.25: not by 2 of them


# ----- the opponent's remaining shots ---------------------------------------------------------------------
@pytest.mark.parametrize(("game", "shots"), [(0, 0), (1, 3), (2, 6)])
def test_listed_remaining_shots_are_exact_greedy_on_every_layout(game: int, shots: int) -> None:
    state = _after(CONFIG, 5, game, "pdf", shots)
    player = _racer(None)
    got, exact = remaining_shots(state, player._engine, 10, 1000, np.random.default_rng(0))
    assert exact
    assert sorted(got.tolist()) == sorted(_exact(state))
    player.close()


def test_sampled_remaining_shots_agree_with_the_exact_mean() -> None:
    state = _after(CONFIG, 5, 1, "pdf", 2)
    player = _racer(None)
    got, exact = remaining_shots(state, player._engine, 4000, 0, np.random.default_rng(1))
    reference = np.array(_exact(state), dtype=float)  # the pdf rule and exact greedy differ little here
    assert not exact and len(got) == 4000
    assert abs(got.mean() - reference.mean()) < 0.25
    player.close()


def test_a_finished_opponent_needs_no_more_shots() -> None:
    layout = layout_for(CONFIG, 0, 0)
    done = play_game(CONFIG, layout, make_player("pdf", 0)).state
    player = _racer(None)
    assert remaining_shots(done, player._engine, 10, 1000, np.random.default_rng(0))[0].tolist() == [0]
    player.close()


# ----- its choice --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("mine", "theirs"), [(0, 0), (3, 5), (5, 3), (6, 8)])
def test_listing_every_layout_it_shoots_the_candidate_of_highest_exact_chance_to_win(mine: int, theirs: int) -> None:
    state, opponent = _after(CONFIG, 7, 0, "pdf", mine), _after(CONFIG, 7, 1, "pdf", theirs)
    player = _racer(opponent)
    rollout_cell, exact, cells, _ = player.evaluate(state)
    assert exact
    q = np.array(_exact(opponent))
    chances = [chance_to_win(np.array(_exact(state, r * CONFIG.cols + c)), q) for r, c in cells]
    best = max(chances)
    expected = rollout_cell if chances[cells.index(rollout_cell)] == best else cells[chances.index(best)]
    assert player.choose(state) == expected
    player.close()


def test_it_differs_from_the_rollout_player_somewhere() -> None:
    """Four shots ahead, the shot most likely to win is not the one of fewest shots on average."""
    state, opponent = _after(CONFIG, 8, 0, "pdf", 4), _after(CONFIG, 8, 1, "pdf", 0)
    racer, rollout = _racer(opponent), make_player("rollout", 0)
    assert racer.choose(state) != rollout.choose(state)
    racer.close()


@pytest.mark.parametrize("behind", [True, False])
def test_with_the_race_decided_either_way_it_is_the_rollout_player(behind: bool) -> None:
    """An opponent far behind (it has not shot: it needs 5 more shots at least; the racer one ship cell, a
    few shots at most) or far ahead (the other way round): every candidate's chance to win is 1, or 0, and the rollout player's
    shot stands."""
    near = _after(CONFIG, 5, 0, "pdf", 3)  # hit, sunk, hit: one ship sunk, the other hit once (4 shots at most)
    assert [shot.result for shot in near.shots] == ["hit", "sunk", "hit"]
    mine, theirs = (near, GameState.empty(CONFIG)) if behind else (GameState.empty(CONFIG), near)
    racer = _racer(theirs)
    _, _, cells, shots = racer.evaluate(mine)
    chances = racer.win_chances(shots)
    assert len(cells) > 1 and (chances == (1.0 if behind else 0.0)).all()
    assert racer.choose(mine) == make_player("rollout", 0).choose(mine)
    racer.close()


def test_without_an_opponent_it_plays_the_rollout_player_s_games_shot_for_shot() -> None:
    config = GameConfig(5, (3, 2))
    for game, spec in ((0, "[exact=0,samples=40]"), (1, "")):
        layout = layout_for(config, 11, game)
        racer = play_game(config, layout, make_player("racer" + spec, game)).state
        rollout = play_game(config, layout, make_player("rollout" + spec, game)).state
        assert racer.shots == rollout.shots


def test_it_is_registered_and_refuses_bad_options_in_one_line() -> None:
    assert isinstance(make_player("racer[rivals=10]"), RolloutPlayer)
    for spec in ("racer[rivals=0]", "racer[rivals=x]", "racer[margin=-1]"):
        with pytest.raises(BattlelogError) as caught:
            make_player(spec)
        assert "\n" not in str(caught.value)
