"""Every player honours the rules (issue 17): whole games under every touch and sink rule, the cells
the rules make certainly empty never shot by the players that skip them, pdf's density against a
brute-force count of legal placements, and the standard game's shots unchanged."""

from __future__ import annotations

from itertools import pairwise, product

import numpy as np
import pytest

from battlelog.errors import BattlelogError
from battlelog.players import PLAYERS, check_player, make_player
from battlelog.players.info import InfoPlayer
from battlelog.players.knowledge import afloat_lengths, ruled_out, sunk_cells
from battlelog.players.lookahead import LookaheadPlayer
from battlelog.players.pdf import TARGET_WEIGHT, density
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell
from battlelog.rules.layouts import sample_layout
from battlelog.rules.state import GameState, Shot
from battlelog.rules.variants import Rules
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

import oracle

TOUCHES, SINKS = ("allowed", "diagonal", "none"), ("named", "unnamed", "silent")
FLEETS = ((5, (3, 2, 1)), (6, (3, 3, 2)))
#: Players that must never shoot a cell the touch rule makes certainly empty (random is the baseline
#: and ignores the rules; mc estimates, so it may shoot a cell no sample covered).
SKIPPERS = ("hunt-target", "parity", "pdf", "problog", "info", "lookahead", "thompson")
#: Games per board for each player: the heuristic players are cheap.
GAMES = {"random": 3, "hunt-target": 3, "parity": 3, "pdf": 3, "mc": 1}
OPTIONS = {"mc": {"samples": 200}}


# ----- the rules stated again, independently of battlelog ----------------------------------------
def segments(size: int, length: int) -> list[frozenset[Cell]]:
    """Every straight run of ``length`` cells on the board (a single cell once)."""
    out = {frozenset((r, c + k) for k in range(length)) for r in range(size) for c in range(size - length + 1)}
    out |= {frozenset((r + k, c) for k in range(length)) for r in range(size - length + 1) for c in range(size)}
    return sorted(out, key=sorted)


def near(a: Cell, b: Cell, touch: str) -> bool:
    """Whether two distinct cells of different ships would break the touch rule."""
    dr, dc = abs(a[0] - b[0]), abs(a[1] - b[1])
    if touch == "diagonal":
        return dr + dc == 1
    return touch == "none" and max(dr, dc) == 1


def known_sunk(state: GameState) -> set[Cell]:
    """Cells common to every run the ship sunk at each sink may lie on: through the shot's cell,
    inside the hits up to that shot, of the named ship's length (any fleet length when unnamed)."""
    out: set[Cell] = set()
    for t, shot in enumerate(state.shots):
        if shot.result != "sunk":
            continue
        hits = {s.cell for s in state.shots[: t + 1] if s.result != "miss"}
        lengths = {state.ships[shot.ship]} if shot.ship is not None else set(state.ships)
        runs = [run for length in lengths for run in segments(state.size, length) if shot.cell in run and run <= hits]
        out |= set.intersection(*map(set, runs))
    return out


def certainly_empty(state: GameState) -> set[Cell]:
    """Unshot cells the touch rule empties: under ``none`` those at a corner of a hit (a straight
    ship has no cells at a corner of each other), and under ``none`` and ``diagonal`` those touching
    a known cell of a sunk ship (as the rule forbids)."""
    touch = state.config.rules.touch
    hits, sunk = state.hits, known_sunk(state)
    out = set()
    for cell in state.unshot:
        if touch == "none" and any(abs(cell[0] - h[0]) == 1 and abs(cell[1] - h[1]) == 1 for h in hits):
            out.add(cell)
        if any(near(cell, s, touch) for s in sunk):
            out.add(cell)
    return out


def _state(config: GameConfig, *shots: tuple) -> GameState:
    return GameState(config, tuple(Shot(*shot) for shot in shots))


def _config(size: int, ships: tuple[int, ...], touch: str = "allowed", sinks: str = "named") -> GameConfig:
    return GameConfig(size, ships, Rules(touch, sinks))


# ----- whole games under every rule --------------------------------------------------------------
@pytest.mark.parametrize(("touch", "sinks"), list(product(TOUCHES, SINKS)))
@pytest.mark.parametrize("name", sorted(set(PLAYERS) - {"optimal"}))
def test_every_player_finishes_every_game_under_every_rule(name: str, touch: str, sinks: str) -> None:
    for size, ships in FLEETS:
        config = _config(size, ships, touch, sinks)
        check_player(name, config)
        for game in range(GAMES.get(name, 2)):
            layout = sample_layout(config, np.random.default_rng([size, game, 17]))
            states = [GameState.empty(config)]
            player = make_player(name, game, **OPTIONS.get(name, {}))
            try:
                result = play_game(config, layout, player, on_shot=states.append)  # raises on an illegal shot
            finally:
                player.close()
            assert result.state.over and len(result.state.shots) == len(states) - 1
            if name in SKIPPERS:
                for before, after in pairwise(states):
                    shot = after.shots[-1].cell
                    assert shot not in certainly_empty(before), (name, config.label, before.to_json(), shot)


def test_optimal_plays_under_every_rule_and_refuses_only_what_it_cannot_solve() -> None:
    # Its games, and its exact value, are checked under every rule in tests/test_optimum_rules.py.
    for touch, sinks in product(TOUCHES, SINKS):
        config = _config(3, (2, 1), touch, sinks)
        check_player("optimal", config)
        result = play_game(config, sample_layout(config, np.random.default_rng(5)), make_player("optimal", 0))
        assert result.state.over
        with pytest.raises(BattlelogError, match="too many for an exact solution"):
            check_player("optimal", _config(6, (3, 3, 2, 2), touch, sinks))


@pytest.mark.parametrize(("touch", "sinks"), list(product(TOUCHES, SINKS)))
def test_what_the_players_deduce_is_true_of_every_consistent_layout(touch: str, sinks: str) -> None:
    # Games of hunt-target on 5x5 3,2,1; after every shot, against the oracle's consistent layouts:
    # the ruled-out cells (battlelog's and this file's) are covered by none, the known sunk cells are
    # cells of a ship all hit in each, and the ships taken off as certainly sunk are.
    config = _config(5, (3, 2, 1), touch, sinks)
    table = oracle.layouts(5, (3, 2, 1), touch)
    for game in range(2):
        layout = sample_layout(config, np.random.default_rng([9, game]))
        states = [GameState.empty(config)]
        play_game(config, layout, make_player("hunt-target", game), on_shot=states.append)
        final = states[-1]
        codes = oracle.transcripts(table, [s.cell for s in final.shots], sinks)
        alive = np.ones(len(table), dtype=bool)
        for state, code in zip(states[1:], codes):
            alive &= code == oracle.encode((state.shots[-1].result, state.shots[-1].ship), sinks)
            chosen = np.flatnonzero(alive)
            covered = (table.owner[chosen] >= 0).any(axis=0).reshape(5, 5)
            empty = ruled_out(state)
            assert empty >= certainly_empty(state)  # at least what this file states
            assert not any(covered[cell] for cell in empty)
            sunk = sunk_cells(state)
            assert sunk == known_sunk(state)
            hit = np.zeros(25, dtype=bool)
            for r, c in state.hits:
                hit[r * 5 + c] = True
            expected_off = sorted(config.ships)
            for length in afloat_lengths(state):
                expected_off.remove(length)
            for k in chosen:
                owner = table.owner[k]
                down = [i for i in range(3) if hit[owner == i].all()]
                assert all(owner[r * 5 + c] in down for r, c in sunk)
                sunk_lengths = sorted(config.ships[i] for i in down)
                for length in expected_off:  # each ship taken off is sunk in every layout
                    sunk_lengths.remove(length)


# ----- the deductions on hand-made states --------------------------------------------------------
def test_ships_afloat_under_unnamed_and_silent_sinks() -> None:
    ambiguous = _state(_config(6, (3, 3, 2), sinks="unnamed"), (0, 0, "hit"), (0, 1, "hit"), (0, 2, "sunk"))
    assert afloat_lengths(ambiguous) == (3, 3, 2)  # a 3 on A1-A3 or a 2 on A2-A3: neither is certain
    assert sunk_cells(ambiguous) == {(0, 1), (0, 2)}
    two = _state(_config(6, (3, 3, 2), sinks="unnamed"), (0, 0, "miss"), (0, 1, "hit"), (0, 2, "sunk"))
    assert afloat_lengths(two) == (3, 3) and sunk_cells(two) == {(0, 1), (0, 2)}
    # each sink has only a 2 inside the hits of its time (C2-C3, then E5-E6): both 2s are down; a 3
    # is never certain while a 2 is in the fleet, since a 2 fits wherever a 3 does
    both = _state(_config(6, (3, 2, 2), sinks="unnamed"), (2, 1, "hit"), (2, 2, "sunk"), (4, 4, "hit"), (4, 5, "sunk"))
    assert afloat_lengths(both) == (3,)
    silent = _state(_config(6, (3, 3, 2), sinks="silent"), (0, 0, "hit"), (0, 1, "hit"))
    assert afloat_lengths(silent) == (3, 3, 2) and sunk_cells(silent) == set()
    named = _state(_config(6, (3, 3, 2)), (0, 1, "hit"), (0, 2, "sunk", 2))
    assert afloat_lengths(named) == (3, 3) and sunk_cells(named) == {(0, 1), (0, 2)}


def test_the_cells_each_touch_rule_rules_out() -> None:
    shots = ((2, 2, "hit"), (0, 0, "hit"), (0, 1, "sunk", 1))
    assert ruled_out(_state(_config(5, (3, 2, 1)), *shots)) == set()
    diagonal = ruled_out(_state(_config(5, (3, 2, 1), "diagonal"), *shots))
    assert diagonal == {(1, 0), (1, 1), (0, 2)}  # side neighbours of the sunk 2 on A1-A2
    none = ruled_out(_state(_config(5, (3, 2, 1), "none"), *shots))
    assert none == {(1, 0), (1, 1), (0, 2), (1, 2), (1, 1), (1, 3), (3, 1), (3, 3)}


# ----- pdf against a brute-force count -----------------------------------------------------------
def brute_density(state: GameState, afloat: list[int], resolved: set[Cell]) -> np.ndarray:
    """Per cell, the weighted count of every run of each afloat length that covers no miss and no
    resolved cell and has no hit it does not cover touching it as the rule forbids; a run counts
    TARGET_WEIGHT to the number of unresolved hits it covers."""
    n, touch = state.size, state.config.rules.touch
    out = np.zeros((n, n))
    for length in afloat:
        for run in segments(n, length):
            if run & (state.misses | resolved):
                continue
            if any(near(h, x, touch) for h in state.hits - run for x in run):
                continue
            for cell in run:
                out[cell] += TARGET_WEIGHT ** len(run & (state.hits - resolved))
    return out


def _pdf_cases() -> list[tuple[GameState, list[int], set[Cell]]]:
    cases = []
    for touch in TOUCHES:
        # a sunk 1 on C3, a hit at A4, a miss at E1
        named = _state(_config(5, (3, 2, 1), touch), (2, 2, "sunk", 2), (0, 3, "hit"), (4, 0, "miss"))
        cases.append((named, [3, 2], {(2, 2)}))
        # unnamed: B2 hit, B3 sunk: only a 2 fits inside the hits (B2-B3), so the 2 is down
        unnamed = _state(_config(6, (3, 3, 2), touch, "unnamed"), (1, 1, "hit"), (1, 2, "sunk"), (3, 3, "hit"), (0, 5, "miss"))
        cases.append((unnamed, [3, 3], {(1, 1), (1, 2)}))
        # silent: two hits side by side and one apart, nothing resolved, every ship afloat
        silent = _state(_config(6, (3, 3, 2), touch, "silent"), (2, 2, "hit"), (2, 3, "hit"), (4, 4, "hit"), (0, 0, "miss"))
        cases.append((silent, [3, 3, 2], set()))
    return cases


@pytest.mark.parametrize("case", range(9))
def test_pdf_counts_exactly_the_legal_placements(case: int) -> None:
    state, afloat, resolved = _pdf_cases()[case]
    assert sorted(afloat_lengths(state)) == sorted(afloat) and sunk_cells(state) == resolved
    assert np.allclose(density(state), brute_density(state, afloat, resolved), rtol=1e-12, atol=0)


def test_pdf_scores_no_cell_the_touch_rule_empties() -> None:
    for state, _, _ in _pdf_cases():
        scores = density(state)
        for cell in certainly_empty(state):
            assert scores[cell] == 0.0, (state.config.label, cell)
    # and the rule decides: with no contact a sunk 1 on C3 leaves nothing around it
    none = _pdf_cases()[6][0]
    assert none.config.rules.touch == "none"
    assert all(density(none)[r, c] == 0.0 for r in (1, 2, 3) for c in (1, 2, 3))


# ----- info and lookahead score each sink rule's own answers ----------------------------------------
def _oracle_answers(table: oracle.Layouts, state: GameState, cell: Cell, sinks: str) -> dict[int, np.ndarray]:
    """The consistent layouts split by the oracle's answer to a shot at ``cell`` after ``state``."""
    answers = [(s.result, s.ship) for s in state.shots]
    chosen = oracle.posterior(table, list(zip([s.cell for s in state.shots], answers)), sinks)
    codes = oracle.transcripts(table, [s.cell for s in state.shots] + [cell], sinks)[-1][chosen]
    return {int(code): chosen[codes == code] for code in np.unique(codes)}


@pytest.mark.parametrize(("touch", "sinks"), list(product(TOUCHES, SINKS)))
def test_info_and_lookahead_score_the_answers_of_the_sink_rule(touch: str, sinks: str) -> None:
    # A state midway through a game on 4x4 3,2,1 (hunt-target's shots); against the oracle: info's
    # score is the entropy of the answer at each cell, lookahead's two-shot value is P(hit) plus, for
    # each answer, its probability times the best next hit probability (1 when the game is over).
    config = _config(4, (3, 2, 1), touch, sinks)
    table = oracle.layouts(4, (3, 2, 1), touch)
    states = [GameState.empty(config)]
    play_game(config, sample_layout(config, np.random.default_rng(5)), make_player("hunt-target", 1), on_shot=states.append)
    state = states[len(states) // 2]
    info, lookahead = InfoPlayer(0), LookaheadPlayer(0)
    try:
        entropy = info.scores(state)
        marginals = lookahead._engine.marginals(state)  # the engine lookahead computes with
        answers = marginals.answers(state)
        assert answers.shape[2] == {"named": 5, "unnamed": 3, "silent": 2}[sinks]
        total = len(oracle.posterior(table, [(s.cell, (s.result, s.ship)) for s in state.shots], sinks))
        for cell in state.unshot:
            split = _oracle_answers(table, state, cell, sinks)
            p = np.array([len(k) for k in split.values()]) / total
            assert entropy[cell] == pytest.approx(float(-(p * np.log2(p)).sum()), abs=1e-9)
            expected = sum(len(k) for code, k in split.items() if code != -2) / total
            for code, chosen in split.items():
                after = table.owner[chosen] >= 0
                hit = np.zeros(16, dtype=bool)
                for r, c in (*state.hits, cell) if code != -2 else state.hits:
                    hit[r * 4 + c] = True
                if (after <= hit).all():  # every ship cell hit: the game is over
                    expected += len(chosen) / total
                    continue
                unshot = [r * 4 + c for r, c in state.unshot if (r, c) != cell]
                expected += len(chosen) / total * after[:, unshot].mean(axis=0).max()
            assert lookahead.two_shots(state, cell, answers[cell], total) == pytest.approx(expected, abs=1e-9)
    finally:
        info.close()
        lookahead.close()


# ----- the standard game is played as before -----------------------------------------------------
#: FROZEN: the shots (row digit, column digit, in order) each player made on main before players
#: honoured the rules (commit 67e30c9), in games 0 and 1 of seed 17 on the experiment's boards
#: (layout_for, game_seeds). Under the standard rules nothing is ruled out and every ship's fate is
#: named, so the players must shoot exactly as before.
FROZEN = {
    ("random", 5, 0): "33341032433044212324020420310311134214400100412212",
    ("random", 5, 1): "4022201023434114133301311121043230122444",
    ("random", 6, 0): "434211415440552533340312243205132152235010044445020114003022313520535115",
    ("random", 6, 1): "443024123154512321420335132214413420325211054355002550450453",
    ("hunt-target", 5, 0): "33342444142304130332433142202230011000112112",
    ("hunt-target", 5, 1): "402220102343334442343212113001210313140424",
    ("hunt-target", 6, 0): "434232524131514030500515042514355444555334",
    ("hunt-target", 6, 1): "44302412312141321122205142400110524355455453",
    ("parity", 5, 0): "33342444142304130332433142202230011000112112",
    ("parity", 5, 1): "402220102343334442343212113001210313140424",
    ("parity", 6, 0): "423252434131514030503504335524531505251445210003544434",
    ("parity", 6, 1): "4424221333554554534352423241315140213011",
    ("pdf", 5, 0): "223311211203304224341444233231010420400210",
    ("pdf", 5, 1): "22331124143404311302422040004443",
    ("pdf", 6, 0): "332242414340112413545344343115251405",
    ("pdf", 6, 1): "332231412111421403255244300055455453",
}


@pytest.mark.parametrize("key", sorted(FROZEN))
def test_standard_games_are_shot_as_before(key: tuple[str, int, int]) -> None:
    name, size, game = key
    config = GameConfig(size, dict(FLEETS)[size])
    state = play_game(config, layout_for(config, 17, game), make_player(name, game_seeds(17, game)[1])).state
    assert "".join(f"{s.row}{s.col}" for s in state.shots) == FROZEN[key]
