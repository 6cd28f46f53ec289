"""One answer's posterior by subtraction (battlelog/engines/remainder.py) and the lookahead player that uses it.

- on random consistent states under every touch and sink rule, the miss after a shot derived from the
  state's marginals and the other answers' is bit for bit the native engine's own (cells, placements,
  count), and its count is the oracle's;
- what cannot be read back gives None, parts that are not disjoint subsets raise;
- lookahead plays the same shots with and without the derivation, with fewer engine calls.
"""

from __future__ import annotations

import numpy as np
import pytest

from battlelog.engines import Marginals, make_engine
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.remainder import READ_BACK_LIMIT, remainder
from battlelog.players import make_player
from battlelog.rules.answers import MISS_CODE, decode_answer
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import NAMED, SINK_RULES, TOUCH_RULES, Rules
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

import oracle
from oracle_states import oracle_state


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize("sinks", SINK_RULES)
def test_the_derived_miss_is_the_engines_bit_for_bit(sinks: str, touch: str) -> None:
    engine = make_engine("native")
    rng = np.random.default_rng(7)
    checked = 0
    for size, ships in ((4, (3, 2, 1)), (5, (3, 2, 2))):
        table = oracle.layouts(size, ships, touch)
        config = GameConfig(size, ships, Rules(touch=touch, sinks=sinks))
        for _ in range(12):
            state, _chosen = oracle_state(config, table, rng)
            if state.over:
                continue
            whole = engine.marginals(state)
            answers = whole.answers(state)
            assert whole.models is not None
            for cell in state.unshot[:: max(1, len(state.unshot) // 4)]:
                possible = [int(a) for a in np.flatnonzero(answers[cell] > 0.5 / whole.models)]
                if MISS_CODE not in possible or len(possible) < 2:
                    continue
                after = {a: state.with_shot(*cell, *decode_answer(a, sinks == NAMED)) for a in possible}
                derived = remainder(whole, [engine.marginals(after[a]) for a in possible if a != MISS_CODE])
                direct = engine.marginals(after[MISS_CODE])
                assert derived is not None and direct.placements is not None and derived.placements is not None
                assert derived.models == direct.models == len(oracle.posterior(table, _shots(after[MISS_CODE]), sinks))
                assert np.array_equal(derived.cells, direct.cells)
                assert all(np.array_equal(a, b) for a, b in zip(derived.placements, direct.placements))
                checked += 1
    assert checked >= 40


def _shots(state: GameState) -> list[tuple[tuple[int, int], tuple[str, int | None]]]:
    return [(s.cell, (s.result, s.ship)) for s in state.shots]


def test_what_cannot_be_read_back_or_does_not_add_up() -> None:
    cells = np.array([[0.5, 0.25]])
    whole, part = Marginals(cells, 4), Marginals(np.array([[1.0, 0.0]]), 1)
    left = remainder(whole, [part])
    assert left is not None and left.models == 3 and np.array_equal(left.cells, np.array([[1 / 3, 1 / 3]]))
    assert remainder(Marginals(cells, None), [part]) is None  # no count
    assert remainder(Marginals(cells, READ_BACK_LIMIT), [part]) is None  # too large to read back exactly
    assert remainder(whole, [Marginals(cells, 4)]) is None  # nothing left
    with pytest.raises(ValueError, match="not disjoint"):
        remainder(whole, [part, part, part, part, part])  # more layouts than the whole holds
    with pytest.raises(ValueError, match="not disjoint"):
        remainder(whole, [Marginals(np.array([[1.0, 1.0]]), 2)])  # more layouts on B1 than the whole has


@pytest.mark.parametrize("sinks", SINK_RULES)
def test_lookahead_plays_the_same_shots_with_fewer_engine_calls(sinks: str, monkeypatch: pytest.MonkeyPatch) -> None:
    config = GameConfig(6, (4, 3, 3), Rules(sinks=sinks))
    calls = {"n": 0}
    original = NativeEngine.marginals

    def counted(self: NativeEngine, state: GameState) -> Marginals:
        calls["n"] += 1
        return original(self, state)

    monkeypatch.setattr(NativeEngine, "marginals", counted)

    def games() -> tuple[list[list[tuple[int, int]]], int]:
        calls["n"] = 0
        shots = []
        for game in range(3):
            player = make_player("lookahead", game_seeds(4, game)[1])
            shots.append([s.cell for s in play_game(config, layout_for(config, 4, game), player).state.shots])
            player.close()
        return shots, calls["n"]

    derived, fewer = games()
    monkeypatch.setattr(NativeEngine, "exact_ratios", False)
    direct, more = games()
    assert derived == direct
    assert fewer < more
