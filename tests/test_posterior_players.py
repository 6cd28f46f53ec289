"""Players beyond greedy, each checked against its definition by brute force over the consistent layouts:
info, thompson and lookahead on the exact posterior, mc's sampled estimate, and parity's hunting lattice."""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest
from scipy import stats as scipy_stats

from battlelog.engines import make_engine
from battlelog.engines.chain import LayoutChain
from battlelog.errors import BattlelogError
from battlelog.players import Player, make_player
from battlelog.players.info import answer_entropy
from battlelog.players.parity import hunting_cells
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, Placement
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for
from battlelog.stats import paired_difference

import oracle
from oracle import brute_answers, brute_marginals, consistent_layouts
from oracle_states import random_states

SMALL = GameConfig(4, (3, 2, 2))


def _states(count: int, seed: int) -> list[GameState]:
    """Random consistent mid-game states of SMALL, at least one shot in."""
    return [s for s in random_states(SMALL, 3 * count, seed) if s.shots][:count]


def candidates(player: Player, state: GameState) -> set[Cell]:
    """The cells ``player`` draws its shot from (every player here has them)."""
    found = player.candidates(state)
    assert found is not None
    return set(found)


def scores_of(player: Player, state: GameState) -> np.ndarray:
    """The scores ``player`` maximises (every player here has them)."""
    found = player.scores(state)
    assert found is not None
    return found


def _covered(layout) -> set:
    return {cell for placement in layout for cell in placement.cells}


# ----- info --------------------------------------------------------------------------------------
def test_info_shoots_the_cell_whose_answer_is_most_uncertain() -> None:
    # Entropies from brute-force answer frequencies; info's candidates must be exactly the best of
    # them (ties broken towards the likeliest hit).
    player = make_player("info", 0)
    for state in _states(25, 3):
        layouts = consistent_layouts(state)
        answers = brute_answers(state, layouts)
        marginals, _ = brute_marginals(state, layouts)
        entropy = answer_entropy(answers)
        cells = state.unshot
        top = max(entropy[c] for c in cells)
        best = [c for c in cells if entropy[c] >= top - 1e-12]
        likeliest = max(marginals[c] for c in best)
        assert candidates(player, state) == {c for c in best if marginals[c] >= likeliest - 1e-12}


def test_info_prefers_an_even_bet_to_a_sure_hit() -> None:
    # One ship of 2 in a 1-wide corridor of a 3x3 board: after a hit at the centre of the middle row
    # with the rest of the row missed, the ship is vertical through the centre: (0,1) or (2,1), each
    # a 1/2 bet (1 bit), while no cell is a sure hit; info shoots one of them.
    config = GameConfig(3, (2,))
    state = GameState.empty(config).with_shot(1, 1, "hit").with_shot(1, 0, "miss").with_shot(1, 2, "miss")
    assert candidates(make_player("info", 0), state) == {(0, 1), (2, 1)}
    entropy = answer_entropy(make_engine("native").marginals(state).answers(state))
    assert entropy[0, 1] == pytest.approx(1.0) and entropy[0, 0] == 0.0


# ----- thompson ----------------------------------------------------------------------------------
def test_thompson_shoots_the_likeliest_cell_of_a_layout_drawn_from_the_posterior() -> None:
    # The law of its shot, by brute force: draw a consistent layout uniformly; the shot is the most
    # probable unshot cell it covers (ties split evenly). 3,000 seeded shots must fit that law.
    state = next(s for s in _states(40, 5) if 20 <= len(consistent_layouts(s)) <= 400)
    layouts = consistent_layouts(state)
    marginals, _ = brute_marginals(state, layouts)
    law: dict[Cell, float] = defaultdict(float)
    for layout in layouts:
        covered = [c for c in _covered(layout) if c not in state.shot_cells]
        top = max(marginals[c] for c in covered)
        tied = [c for c in covered if marginals[c] >= top - 1e-12]
        for cell in tied:
            law[cell] += 1 / (len(tied) * len(layouts))
    shots = Counter(make_player("thompson", seed).choose(state) for seed in range(3000))
    assert set(shots) <= set(law)
    cells = sorted(law)
    observed = np.array([shots[c] for c in cells])
    expected = np.array([law[c] * 3000 for c in cells])
    if len(cells) > 1:
        assert scipy_stats.chisquare(observed, expected).pvalue > 1e-4


def test_thompson_on_a_state_with_one_layout_left_only_shoots_that_layout() -> None:
    for state in _states(60, 7):
        layouts = consistent_layouts(state)
        if len(layouts) == 1:
            cell = make_player("thompson", 1).choose(state)
            assert cell in _covered(layouts[0]) and cell not in state.shot_cells
            return
    pytest.fail("no state with a single consistent layout among the random states")


def test_thompson_needs_an_engine_that_samples() -> None:
    with pytest.raises(BattlelogError, match="player thompson needs an engine that samples layouts; 'sdd' does not"):
        make_player("thompson", 0, engine="sdd")


# ----- lookahead ---------------------------------------------------------------------------------
def _two_shots_brute(state: GameState, cell: Cell, layouts: list[tuple[Placement, ...]]) -> float:
    """Expected hits of a shot at ``cell`` and the greedy shot after it, by grouping the layouts by answer."""
    groups: dict = {}
    for layout in layouts:
        ship = next((p for p in layout if cell in p.cells), None)
        if ship is None:
            groups.setdefault("miss", []).append(layout)
            continue
        hits = state.hits | {cell}
        key = f"sunk {ship.ship}" if all(c in hits for c in ship.cells) else "hit"
        groups.setdefault(key, []).append(layout)
    value = 0.0
    for key, group in groups.items():
        share = len(group) / len(layouts)
        value += share * (key != "miss")
        after = state.with_shot(*cell, "sunk", int(key.split()[1])) if key.startswith("sunk") else state.with_shot(*cell, key)
        if after.over:
            value += share
            continue
        marginals, _ = brute_marginals(after, group)
        value += share * max(marginals[c] for c in after.unshot)
    return value


def test_lookahead_values_its_candidates_by_the_exact_two_shot_expectation() -> None:
    player = make_player("lookahead", 0, width=3)
    checked = 0
    for state in _states(15, 11):
        layouts = consistent_layouts(state)
        marginals, _ = brute_marginals(state, layouts)
        scores = scores_of(player, state)
        by_probability = sorted(state.unshot, key=lambda c: -marginals[c])
        for cell in by_probability[:3]:
            if marginals[cell] > marginals[by_probability[3]] + 1e-12:  # a clear top-3 member
                assert scores[cell] == pytest.approx(_two_shots_brute(state, cell, layouts), abs=1e-9)
                checked += 1
        # the candidates' values are never below a non-candidate's one-shot value
        assert np.nanmax(scores) >= max(marginals[c] for c in state.unshot) - 1e-12
    assert checked >= 15


def test_lookahead_plays_greedy_above_its_layout_bound() -> None:
    state = GameState.empty(SMALL)
    bounded = scores_of(make_player("lookahead", 0, max_layouts=1), state)
    greedy = scores_of(make_player("problog", 0), state)
    np.testing.assert_allclose(bounded, greedy, atol=1e-15)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"width": 0}, "player lookahead needs a whole number"),  # the right type, refused by the player
        ({"max_layouts": 1.5}, "player lookahead: option max_layouts=1.5 is not a whole number"),  # by the spec
        ({"width": True}, "player lookahead: option width=true is not a whole number"),
    ],
)
def test_lookahead_options_are_whole_numbers(option: dict[str, object], message: str) -> None:
    with pytest.raises(BattlelogError, match=message):
        make_player("lookahead", 0, **option)


# ----- mc ----------------------------------------------------------------------------------------
def test_mc_marginals_converge_to_the_exact_ones() -> None:
    # The error of the chain's estimate shrinks like 1 / sqrt(samples): at 40,000 samples every cell
    # is within 0.02 of brute force on every state, and the mean error falls as the samples grow.
    errors: dict[int, list[float]] = {100: [], 2_000: [], 40_000: []}
    for k, state in enumerate(_states(8, 13)):
        exact, _ = brute_marginals(state)
        for samples in errors:
            estimate = LayoutChain(state).occupancy(samples, 20, np.random.default_rng(k))
            errors[samples].append(float(np.abs(estimate - exact).max()))
    assert max(errors[40_000]) < 0.02
    assert np.mean(errors[100]) > np.mean(errors[2_000]) > np.mean(errors[40_000])


@pytest.mark.parametrize(("size", "touch"), [(4, "diagonal"), (5, "none")])
def test_mc_marginals_converge_to_the_exact_ones_under_a_touch_rule(size: int, touch: str) -> None:
    # Twenty chains of 2,000 samples each per state, seeded apart, so their estimates are independent
    # and their spread is the estimate's own error, autocorrelation included. Each cell's mean over
    # the chains must sit within a two-sided t bound of the oracle's exact marginal (19 degrees of
    # freedom, 1e-3 shared over every cell of every state); cells the layouts never cover, or always
    # do, exactly.
    config = GameConfig(size, (3, 2, 2), Rules(touch))
    table = oracle.layouts(size, config.ships, touch)
    posterior = {
        s: oracle.posterior(table, [(shot.cell, (shot.result, shot.ship)) for shot in s.shots], "named")
        for s in random_states(config, 40, 29)
    }
    states = [s for s, chosen in posterior.items() if s.shots and len(chosen) >= 4][:6]  # something left to estimate
    chains, samples = 20, 2_000
    bound = scipy_stats.t.ppf(1 - 1e-3 / (2 * len(states) * size * size), chains - 1)
    for k, state in enumerate(states):
        exact = oracle.cell_marginals(table, posterior[state])
        estimates = np.array([LayoutChain(state).occupancy(samples, 20, np.random.default_rng([k, c])) for c in range(chains)])
        certain = (exact == 0) | (exact == 1)
        assert (estimates[:, certain] == exact[certain]).all(), state.shots
        error = np.abs(estimates.mean(axis=0) - exact)[~certain]
        spread = estimates.std(axis=0, ddof=1)[~certain] / np.sqrt(chains)
        assert (error <= bound * spread).all(), (state.shots, float((error / spread).max()), bound)


def test_mc_needs_a_positive_whole_number_of_samples() -> None:
    with pytest.raises(BattlelogError, match="player mc needs a whole number of samples of at least 1, got 0"):
        make_player("mc", 0, samples=0)


# ----- parity ------------------------------------------------------------------------------------
def test_every_placement_of_a_ship_afloat_covers_a_hunting_cell() -> None:
    config = GameConfig(7, (4, 3, 3))
    for state in random_states(config, 20, 17):
        lattice = set(hunting_cells(state))
        for ship in state.afloat:
            for placement in config.placements(ship):
                cells = set(placement.cells)
                if not cells & state.shot_cells:
                    assert cells & lattice, (placement, state.shots)


def test_parity_beats_hunt_target_on_the_standard_board() -> None:
    config = GameConfig(10, (5, 4, 3, 3, 2))
    games = 300
    scores = {
        name: [play_game(config, layout_for(config, 2, i), make_player(name, game_seeds(2, i)[1])).score for i in range(games)]
        for name in ("parity", "hunt-target")
    }
    difference = paired_difference(scores["parity"], scores["hunt-target"])
    assert difference.interval.high is not None and difference.interval.high < 0, difference
