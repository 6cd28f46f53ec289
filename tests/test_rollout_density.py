"""The rollout base policy's density kept up to date (battlelog/players/rollout_density.py) plays the games
of the density recounted at every move (``base_choice``, which tests/test_rollout.py checks against the pdf
rule): the same shots, game for game, under every touch and sink rule, from game states met in play.
They may differ only where a score's sum is inexact in float64, where the kernel recounts instead.
"""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from battlelog.engines.native.engine import NativeEngine
from battlelog.players.rollout_density import density
from battlelog.players.rollout_kernel import base_choice, choice, rollouts
from battlelog.players.rollout_tables import exact_sums, start_of, tables, truths
from battlelog.rules.config import GameConfig
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.seeds import layout_for

TOUCHES, SINKS = ("allowed", "diagonal", "none"), ("named", "unnamed", "silent")


def _states(config: GameConfig, game: int) -> list[GameState]:
    """The states of one game on a seeded board, the base policy shooting (now and then another cell)."""
    referee, state, rng = Referee(config, layout_for(config, 5, game)), GameState.empty(config), np.random.default_rng(game)
    out = []
    while not referee.over:
        out.append(state)
        x = int(choice(tables(config), start_of(state)))
        if rng.random() < 0.3:
            x = int(rng.choice([r * config.cols + c for r, c in state.unshot]))
        row, col = divmod(x, config.cols)
        state = state.with_shot(row, col, *referee.shoot(row, col))
    return out


@pytest.mark.parametrize(("touch", "sinks"), list(product(TOUCHES, SINKS)))
def test_the_kept_density_plays_the_recounted_games(touch: str, sinks: str) -> None:
    for size, ships in ((6, (4, 3, 3)), (7, (4, 3, 2, 2))):
        config = GameConfig(size, ships, Rules(touch, sinks))
        board = tables(config)
        recounted = (*board[:10], False, *board[11:])
        assert board[10]  # the sums are exact: the density is kept, not recounted
        rng = np.random.default_rng([size, 1])
        for state in _states(config, 0)[::2]:
            owners, lefts = truths(state, NativeEngine().sample_owners(state, 40, rng))
            unshot = [r * size + c for r, c in state.unshot]
            firsts = np.array([-1, *rng.choice(unshot, size=min(3, len(unshot)), replace=False)], dtype=np.int64)
            kept, again = (np.zeros((len(firsts), len(owners)), dtype=np.int64) for _ in range(2))
            rollouts(board, start_of(state), owners, lefts, firsts, kept)
            rollouts(recounted, start_of(state), owners, lefts, firsts, again)
            np.testing.assert_array_equal(kept, again)


@pytest.mark.parametrize("sinks", SINKS)
def test_a_state_s_counted_density_is_the_recount(sinks: str) -> None:
    """Bit for bit, on the standard board's states, so that ties fall the same way."""
    config = GameConfig(10, (5, 4, 3, 3, 2), Rules(sinks=sinks))
    board = tables(config)
    size = board[0].shape[0] * board[0].shape[1]
    for state in _states(config, 1)[::3]:
        start = start_of(state)
        score, recount = np.zeros(config.cell_count), np.zeros(config.cell_count)
        density(board, start, np.zeros(size, dtype=np.bool_), np.zeros(size, dtype=np.int64), score)
        blocked, hits, open_hits, shot, afloat = start
        base_choice(
            board[0], board[1], board[2], board[3], board[6], blocked, hits, open_hits, shot, afloat, board[8], board[9], recount
        )
        np.testing.assert_array_equal(score, recount)


def test_sums_are_exact_only_below_two_to_the_53() -> None:
    assert exact_sums([(180, 1, 2), (160, 2, 3), (140, 1, 4), (120, 1, 5)])  # the standard game
    assert not exact_sums([(6, 1, 8)])  # one 8-cell placement weighs 10^16 at its heaviest: above 2^53
    assert not tables(GameConfig(12, (9, 2)))[10]  # the kernel recounts there
