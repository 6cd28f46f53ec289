"""Players: the contract every registered player keeps, and each baseline's own behaviour."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from scipy import stats as scipy_stats

from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError
from battlelog.players import PLAYERS, make_player
from battlelog.players.hunt_target import target_list
from battlelog.players.pdf import density, resolved_cells
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState, Shot
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for
from battlelog.stats import mean_ci, paired_difference

PAPER_5X5 = GameConfig(5, (3, 3, 2))


def _state(config: GameConfig, *shots: tuple) -> GameState:
    return GameState(config, tuple(Shot(*shot) for shot in shots))


def _scores(player: str, config: GameConfig, games: int, seed: int = 0) -> list[int]:
    """Scores of ``games`` games on the experiment's boards (game i's layout and player seed)."""
    return [
        play_game(config, layout_for(config, seed, i), make_player(player, game_seeds(seed, i)[1])).score
        for i in range(games)
    ]


# ----- the contract ------------------------------------------------------------------------------
#: Boards for players with costly set-up or moves: problog's one game on a small board keeps it quick;
#: optimal solves its instance first (3x4 3,2 in a tenth of a second, 4x4 3,2 in seconds, 3,2,2 in half a
#: minute); rollout and mc simulate hundreds of games a move (seconds a game on 4x4 3,2,2).
CONTRACT_BOARDS = {
    "problog": GameConfig(3, (2, 1)), "optimal": GameConfig(3, (3, 2), cols=4),
    "rollout": GameConfig(4, (3, 2)), "mc": GameConfig(4, (3, 2)),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_every_player_finishes_legally_and_is_reproducible_from_its_seed(name: str) -> None:
    # Each game twice: by a player with a workspace of its own, and by one in the workspace a worker
    # keeps across its games (what an earlier game left there must not change a shot).
    config = CONTRACT_BOARDS.get(name, GameConfig(4, (3, 2, 2)))
    workspace = Workspace()
    for game in range(1 if name == "problog" else 3):
        layout = layout_for(config, 8, game)
        games = []
        for shared in (False, True):
            player = make_player(name, game_seeds(8, game)[1])
            if shared:
                player.use(workspace)
            try:
                games.append(play_game(config, layout, player).state)  # raises on an illegal or repeated shot
            finally:
                player.close()
        assert games[0].over and games[0] == games[1]
        assert config.ship_cells <= len(games[0].shots) <= config.cell_count
    workspace.close()


def test_a_player_closes_only_the_workspace_it_made() -> None:
    config = GameConfig(4, (3, 2))
    given = Workspace()
    player = make_player("problog", 0, engine="sdd")
    player.use(given)
    play_game(config, layout_for(config, 1, 0), player)
    player.close()
    assert config in given.sdd_empty_boards  # the owner's, untouched by the player's close
    alone = make_player("problog", 0, engine="sdd")
    play_game(config, layout_for(config, 1, 0), alone)
    own = alone.workspace
    assert own is not given and config in own.sdd_empty_boards
    alone.close()
    assert not own.sdd_empty_boards
    given.close()
    assert not given.sdd_empty_boards


def test_unknown_players_and_options_are_one_line_errors() -> None:
    with pytest.raises(BattlelogError, match="unknown player 'oracle'; choose from random, hunt-target, pdf"):
        make_player("oracle")
    with pytest.raises(BattlelogError, match="player pdf does not take option engine"):
        make_player("pdf", 0, engine="sdd")


# ----- random ------------------------------------------------------------------------------------
def test_random_scores_follow_the_negative_hypergeometric_law() -> None:
    config = GameConfig(4, (3, 2, 2))
    k, m = config.ship_cells, config.cell_count
    scores = _scores("random", config, 2000, seed=4)
    assert mean_ci(scores).contains(k * (m + 1) / (k + 1))
    # P(score = s) = C(s-1, k-1) / C(m, k): the last ship cell is the s-th cell of a random order.
    support = np.arange(k, m + 1)
    expected = np.array([comb(s - 1, k - 1) / comb(m, k) for s in support]) * len(scores)
    observed = np.array([scores.count(int(s)) for s in support])
    low = expected < 5  # pool the rare low scores into one bin, as the chi-square test needs
    observed = np.append(observed[~low], observed[low].sum())
    expected = np.append(expected[~low], expected[low].sum())
    assert scipy_stats.chisquare(observed, expected).pvalue > 1e-3


# ----- hunt-target -------------------------------------------------------------------------------
def test_the_target_list_is_first_in_first_out() -> None:
    state = _state(PAPER_5X5, (2, 2, "hit"))
    assert target_list(state) == [(1, 2), (3, 2), (2, 3), (2, 1)]  # N, S, E, W of C3
    state = state.with_shot(1, 2, "miss").with_shot(3, 2, "hit")
    # C3's E and W wait at the front; D3's new neighbours (S, E, W; N is shot) join the back.
    assert target_list(state) == [(2, 3), (2, 1), (4, 2), (3, 3), (3, 1)]
    assert make_player("hunt-target", 0).choose(state) == (2, 3)


def test_hunt_target_skips_the_board_edge_and_hunts_when_the_list_is_empty() -> None:
    corner = _state(PAPER_5X5, (0, 0, "hit"))
    assert target_list(corner) == [(1, 0), (0, 1)]
    done = corner.with_shot(1, 0, "miss").with_shot(0, 1, "miss")
    assert target_list(done) == []
    choices = {make_player("hunt-target", seed).choose(done) for seed in range(40)}
    assert choices <= set(done.unshot) and len(choices) > 10  # random hunting, not a fixed cell


def test_hunt_target_beats_random_and_pdf_beats_hunt_target_on_the_same_boards() -> None:
    random, hunt, pdf = (_scores(name, PAPER_5X5, 200, seed=1) for name in ("random", "hunt-target", "pdf"))
    for better, worse in ((hunt, random), (pdf, hunt)):
        difference = paired_difference(better, worse)
        assert difference.significant and difference.mean < -2 and difference.p_value is not None and difference.p_value < 1e-6


# ----- pdf ---------------------------------------------------------------------------------------
def test_density_on_an_empty_board_counts_placements() -> None:
    # A single domino on 3x3: a corner lies in 2 placements, an edge cell in 3, the centre in 4.
    assert density(GameState.empty(GameConfig(3, (2,)))).tolist() == [[2, 3, 2], [3, 4, 3], [2, 3, 2]]


def test_pdf_fires_next_to_an_unresolved_hit() -> None:
    state = _state(PAPER_5X5, (2, 2, "hit"))
    neighbours = {(1, 2), (3, 2), (2, 1), (2, 3)}
    assert {make_player("pdf", seed).choose(state) for seed in range(10)} <= neighbours
    blocked = state.with_shot(2, 3, "miss").with_shot(2, 1, "miss")
    assert {make_player("pdf", seed).choose(blocked) for seed in range(10)} <= {(1, 2), (3, 2)}


def test_pdf_keeps_hunting_a_hit_that_the_sunk_ship_does_not_explain() -> None:
    # A1 A2 A3 hit, and A3 sinks ship 1 (length 2): ship 1 is A2-A3, so A1 belongs to ship 0
    # (length 3), which can only run down column 1 from A1 without crossing the sunk ship.
    config = GameConfig(5, (3, 2))
    state = _state(config, (0, 0, "hit"), (0, 1, "hit"), (0, 2, "sunk", 1))
    assert resolved_cells(state) == {(0, 1), (0, 2)}
    scores = density(state)
    # B1: across (1), down from A1 through the hit (100), down from B1 (1). C1: one more, down from C1.
    assert (scores[1, 0], scores[2, 0]) == (102, 103)
    assert make_player("pdf", 0).choose(state) == (2, 0)
