"""Sink rules in the model stage, checked against the independent oracle (tests/oracle.py).

- the oracle itself on small boards counted by hand;
- for ``named``, the transcript rule prunes to exactly the standard rules' domains;
- random consistent states under every touch rule and sink rule: the native and sdd engines equal the
  oracle to 1e-9 (counts, cell and placement marginals; answer probabilities for the native engine);
- contradictions are located, by every engine. The problog engine is checked against the same oracle in
  tests/test_problog_rules.py (it is too slow for every state here).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import numpy as np
import pytest

from battlelog.engines import Engine, locate_fault, make_engine
from battlelog.engines.native import few
from battlelog.engines.workspace import Workspace
from battlelog.model.ground import ground
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.state import GameState, Shot
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules

import oracle
from oracle_states import oracle_state, random_states

#: (size, fleet, states per rule pair, seed): 120 states per touch and sink rule, ships of length 1 throughout.
CONFIGS = ((4, (3, 2, 1), 40, 1), (4, (2, 2, 1, 1), 40, 2), (5, (3, 2, 1), 40, 3))


def test_oracle_counts_by_hand() -> None:
    """3x3, ships 2 and 1. Allowed: 12 placements of the 2 (6 across, 6 down), the 1 on any of the 7
    cells left: 84. Diagonal: the 2 along an edge row (4 of its 6 across placements) keeps out its 2
    cells and 3 side neighbours, leaving 4 cells; along the middle row it keeps out 7, leaving 2:
    4*4 + 2*2 = 20 across, 20 down: 40. None: along an edge row it keeps out its two rows' 6 cells,
    leaving 3; along the middle row all 9: 4*3 = 12 across, 12 down: 24."""
    assert [len(oracle.layouts(3, (2, 1), t)) for t in ("allowed", "diagonal", "none")] == [84, 40, 24]


def test_oracle_posterior_by_hand() -> None:
    """3x3, ships 2 and 1, touching allowed; shots A1 hit, A2 hit. Named "sunk ship 0" at A2: the 2
    lies on A1-A2, the 1 on any of the 7 other cells: 7 layouts. Unnamed "sunk" at A2: the 2 on
    A1-A2 (7), or the 1 on A2 with the 2 through A1 but not on A2, i.e. down A1-B1 (1): 8 layouts
    (the 1 on A1 would have answered "sunk" at A1).
    Silent "hit" at A2: every layout covering both: the 2 on A1-A2 (7), the 2 down A1-B1 with the 1
    on A2 (1), the 1 on A1 with the 2 on A2-A3 or down A2-B2 (2): 10."""
    table = oracle.layouts(3, (2, 1))
    hit = ((0, 0), ("hit", None))
    assert len(oracle.posterior(table, [hit, ((0, 1), ("sunk", 0))], "named")) == 7
    assert len(oracle.posterior(table, [hit, ((0, 1), ("sunk", None))], "unnamed")) == 8
    assert len(oracle.posterior(table, [hit, ((0, 1), ("hit", None))], "silent")) == 10
    # Named or unnamed, "hit" at A2 instead: the 1 on A1 or A2 would have been sunk, and the 2 on both
    # would have been sunk at A2: no layout (the silent game's 10 all announce a sink there).
    assert len(oracle.posterior(table, [hit, ((0, 1), ("hit", None))], "named")) == 0
    assert len(oracle.posterior(table, [hit, ((0, 1), ("hit", None))], "unnamed")) == 0


def _old_ground_domains(state: GameState) -> tuple[tuple[Placement, ...], ...]:
    """The standard rules' pruning as battlelog had it before rule variants (kept here to compare)."""
    misses, final_hits = state.misses, state.hits
    sunk_at = {ship: (t, cell) for ship, t, cell in state.sinks}
    domains = []
    for ship in range(len(state.ships)):
        if ship in sunk_at:
            t, cell = sunk_at[ship]
            inside = state.hits_after(t)
            allowed = [p for p in state.config.placements(ship) if cell in p.cells and inside.issuperset(p.cells)]
        else:
            allowed = [
                p for p in state.config.placements(ship) if misses.isdisjoint(p.cells) and not final_hits.issuperset(p.cells)
            ]
        domains.append(tuple(allowed))
    return tuple(domains)


def test_named_prunes_exactly_as_the_standard_rules() -> None:
    checked = 0
    for config, count, seed in (
        (GameConfig(5, (3, 3, 2)), 80, 5),
        (GameConfig(4, (3, 2, 1, 1)), 80, 6),
        (GameConfig(6, (4, 3, 2, 2)), 80, 7),
    ):
        for state in random_states(config, count, seed):
            assert ground(state).domains == _old_ground_domains(state)
            checked += 1
    assert checked == 240


@cache
def variant_states(sinks: str, touch: str = "allowed") -> tuple[tuple[GameState, np.ndarray], ...]:
    """Random consistent states under ``touch`` and ``sinks`` with the oracle's posterior (indices into its layouts).

    A layout is drawn uniformly from the oracle's list, shot at until the game is over, answered by
    battlelog's referee (whose answers must be the oracle's), and cut at a random shot."""
    out = []
    for size, ships, count, seed in CONFIGS:
        table = oracle.layouts(size, ships, touch)
        config = GameConfig(size, ships, Rules(touch=touch, sinks=sinks))
        rng = np.random.default_rng(seed)
        out += [oracle_state(config, table, rng) for _ in range(count)]
    return tuple(out)


@pytest.fixture(scope="module", params=["native", "native swept", "sdd"])
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """One instance per engine answers every state of every sink rule: its caches must keep rules apart.
    The native engine lists the layouts of states that have few; "native swept" sweeps every state.
    Each has empty-board files of its own, so that no empty board is answered from another's."""
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "native swept":
            patch.setattr(few, "PAIR_LIMIT", 0)
        yield make_engine(request.param.split()[0], workspace=Workspace(tmp_path_factory.mktemp("cache")))


@pytest.mark.parametrize("touch", TOUCH_RULES)
@pytest.mark.parametrize("sinks", SINK_RULES)
def test_engines_equal_the_oracle(engine: Engine, sinks: str, touch: str) -> None:
    states = variant_states(sinks, touch)
    assert len(states) >= 100
    for state, chosen in states:
        table = oracle.layouts(state.size, state.ships, touch)
        got = engine.marginals(state)
        where = f"{state.config.label()} {state.to_json()['shots']}"
        assert got.models == len(chosen), where
        np.testing.assert_allclose(got.cells, oracle.cell_marginals(table, chosen), atol=1e-9, err_msg=where)
        assert got.placements is not None
        expected = oracle.placement_marginals(table, chosen)
        for i in range(len(state.ships)):
            want = [expected[i].get((p.length, p.row, p.col, p.horizontal), 0.0) for p in state.config.placements(i)]
            np.testing.assert_allclose(got.placements[i], want, atol=1e-9, err_msg=where)


@pytest.mark.parametrize("sinks", SINK_RULES)
def test_answer_probabilities_equal_the_oracle(sinks: str) -> None:
    """``Marginals.answers`` per sink rule against the oracle's literal simulation of one more shot."""
    engine = make_engine("native")
    for state, chosen in variant_states(sinks)[:40]:  # the 4x4 3,2,1 states
        table = oracle.layouts(state.size, state.ships)
        got = engine.marginals(state).answers(state)
        assert got.shape[2] == {"named": 2 + len(state.ships), "unnamed": 3, "silent": 2}[sinks]
        cells = [s.cell for s in state.shots]
        for cell in state.unshot:
            codes = oracle.transcripts(table, [*cells, cell], sinks)[-1][chosen]
            want = np.zeros(got.shape[2])
            for code in codes:
                want[0 if code == -2 else 1 if code == -1 else 2 + int(code)] += 1 / len(chosen)
            np.testing.assert_allclose(got[cell], want, atol=1e-9)


@pytest.mark.parametrize(
    ("rules", "ships", "shots", "fault"),
    [
        # Unnamed: every ship has length 1, so a hit must be a sink: "hit" at A1 is impossible.
        (Rules(sinks="unnamed"), (1, 1), [(0, 0, "hit")], "shot 1 (A1, hit)"),
        # Unnamed: a sunk at B2 right after a miss-free single hit elsewhere that no ship of 2 can join.
        (
            Rules(sinks="unnamed"), (2, 1), [(0, 0, "hit"), (2, 2, "miss"), (1, 1, "sunk"), (0, 1, "miss"), (1, 0, "miss")],
            "shot 5 (B1, miss)",
        ),
        # Silent: one ship of 2 cannot cover two hits in opposite corners.
        (Rules(sinks="silent"), (2,), [(0, 0, "hit"), (2, 2, "hit")], "shot 2 (C3, hit)"),
    ],
)
def test_impossible_answers_are_located(rules: Rules, ships: tuple[int, ...], shots: list, fault: str) -> None:
    state = GameState(GameConfig(3, ships, rules), tuple(Shot(r, c, result) for r, c, result in shots))
    for name in ("native", "sdd", "problog"):
        error = locate_fault(state, make_engine(name))
        assert f"contradictory state: {fault} leaves no layout" in str(error) and "\n" not in str(error)
