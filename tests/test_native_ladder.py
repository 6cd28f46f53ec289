"""Every rung of the native engine's ladder (battlelog/engines/native/ladder.py) against the plain sweep.

Each rung is asked directly, after the histories that give it something to answer from (nothing; the state
before; the state itself; the empty board and the state after), in an engine that turns and lists and in one
that does neither, about the states of a game on each of a fixed set of boards and rules (touch rules, sink
rules, a prior, a rectangle, volleys). It either declines or gives what a fresh engine's plain sweep
(:class:`~battlelog.engines.native.ladder.Sweep`) gives: integer counts equal, the same layouts drawn from the
same generator, weighted posteriors bit for bit where the rung weighs a model the same sweep built (the last
posterior, a kept whole model) and to 1e-12 elsewhere (a listing, two turned cases or a recount add the same
weights in another order). And every rung answers some state, so none is silently dead.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

from battlelog.engines.native import few, ladder
from battlelog.engines.native.counts import Counts
from battlelog.engines.native.draws import draw_owners
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.ladder import COUNTS, DRAW, LADDER, WEIGHTED, Answer, Ask, Rung
from battlelog.engines.native.weights import Weighted, tracks_touching
from battlelog.players import make_player
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import layout_for

#: The boards and rules the rungs are held to: (name, configuration); each plays one game of the pdf player.
CASES: dict[str, GameConfig] = {
    "7x7-allowed-named": GameConfig(7, (4, 3, 3, 2)),
    "6x6-diagonal-unnamed": GameConfig(6, (4, 3, 2), Rules(touch="diagonal", sinks="unnamed")),
    "6x6-none-silent": GameConfig(6, (4, 3, 2), Rules(touch="none", sinks="silent")),
    "7x7-prior": GameConfig(7, (4, 3, 3, 2), prior=Prior(edge=0.5, vertical=-0.3, touch=-0.4)),
    "6x8-rectangle": GameConfig(6, (4, 3, 2), cols=8),
    "6x6-volleys": GameConfig(6, (4, 3, 2), Rules(salvo=2)),
}
#: Engines the histories run in: turning and listing as usual, or neither (every state swept whole).
ENGINES = ("usual", "whole")
#: Rungs whose weighted posterior is the very sweep's, bit for bit, in an engine that sweeps whole.
SAME_SUMS = {"last-weighed", "kept-model"}


@cache
def game(case: str) -> tuple[GameState, ...]:
    """The states of one game on the case's board, the empty one first."""
    config = CASES[case]
    states = [GameState.empty(config)]
    play_game(config, layout_for(config, 5, 0), make_player("pdf", seed=3), on_shot=states.append)
    return tuple(states)


def picked(states: tuple[GameState, ...]) -> list[int]:
    """The states asked about: the first few (sweeps, a miss or two on), one in the middle, one late (listed)."""
    return sorted({0, 1, 2, 3, len(states) // 2, len(states) - 3})


def histories(index: int, last: int) -> Iterator[tuple[int, ...]]:
    """What an engine is asked before state ``index``: nothing, the state before, the state itself, and the empty board
    then the state after (so that the empty board's model is kept but not the last one swept)."""
    yield ()
    if index > 0:
        yield (index - 1,)
    yield (index,)
    if index + 1 <= last:
        yield (0, index + 1)


def ask(engine: NativeEngine, state: GameState, want: str) -> Answer:
    """``want`` asked of ``engine`` as its callers ask it (the whole ladder)."""
    if want == COUNTS:
        return engine.counts(state)
    if want == WEIGHTED:
        return engine.weighted(state)
    return engine.drawn_from(state, tracks_touching(state))


def question(engine: NativeEngine, state: GameState, want: str) -> Ask:
    return Ask(engine, state, want, tracks_touching(state) if want != COUNTS else False)


@cache
def plain(case: str, index: int, want: str) -> Answer:
    """The plain sweep's answer: a fresh engine's last rung, nothing tried before it."""
    engine = NativeEngine(reuse=False, turn=False)
    return ladder.Sweep().answer(question(engine, game(case)[index], want))


def owners(models: Answer, state: GameState) -> np.ndarray:
    """60 layouts drawn from ``models`` by one fixed generator (as ``sample_owners`` draws them)."""
    prior = state.config.effective_prior
    assert not isinstance(models, (Counts, Weighted))
    return draw_owners(models, 60, np.random.default_rng(17), None if prior.is_uniform else prior)


@dataclass(frozen=True)
class Met:
    """Where a rung answered: the case, the state's index, the want, the history and the engine."""

    case: str
    index: int
    want: str
    history: tuple[int, ...]
    engine: str


def check(rung: Rung, got: Answer, met: Met) -> None:
    """``got`` is what the plain sweep gives (see the module's docstring for the tolerances)."""
    state, expected = game(met.case)[met.index], plain(met.case, met.index, met.want)
    where = f"{rung.name}: {met}"
    if met.want == COUNTS:
        assert isinstance(got, Counts) and isinstance(expected, Counts), where
        assert got.models == expected.models, where
        np.testing.assert_array_equal(got.cells, expected.cells, err_msg=where)
        for a, b in zip(got.placements, expected.placements, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=where)
    elif met.want == WEIGHTED:
        assert isinstance(got, Weighted) and isinstance(expected, Weighted), where
        assert got.models == expected.models, where
        counted = 3 if tracks_touching(state) else 2  # E[touch] is asked only of models that count touching pairs (listings do)
        features = (got.features[:counted], expected.features[:counted])
        pairs = [(got.cells, expected.cells), features, *zip(got.placements, expected.placements, strict=True)]
        for a, b in pairs:
            if rung.name in SAME_SUMS and met.engine == "whole":
                np.testing.assert_array_equal(a, b, err_msg=where)
            else:
                np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, err_msg=where)
        assert got.log_z == pytest.approx(expected.log_z, rel=1e-12, abs=1e-12), where
    else:
        np.testing.assert_array_equal(owners(got, state), owners(expected, state), err_msg=where)


def fork(engine: NativeEngine) -> NativeEngine:
    """An engine that remembers what ``engine`` remembers, so that one rung's answer (a sweep replaces the models,
    a listing is remembered) leaves the next rung asked the engine the history made."""
    out = NativeEngine(reuse=engine.reuse, turn=engine.turn)
    out.memory, out.listings = copy.copy(engine.memory), copy.deepcopy(engine.listings)
    return out


@cache
def answered(case: str) -> dict[str, tuple[Met, ...] | AssertionError]:
    """Per rung, where it answered on ``case``'s states, each answer checked against the plain sweep (or the first
    mismatch). Each history is asked once, of one engine, and every rung serving the want is then asked of a fork of it."""
    states, out = game(case), {rung.name: list[Met]() for rung in LADDER}
    failed: dict[str, AssertionError] = {}
    for engine_kind in ENGINES:
        with pytest.MonkeyPatch.context() as patch:
            if engine_kind == "whole":
                patch.setattr(few, "PAIR_LIMIT", 0)  # no listing gives up less: every state is swept
            for want in (COUNTS, WEIGHTED, DRAW):
                rungs = [rung for rung in LADDER if want in rung.wants and rung.name not in failed]
                for index in picked(states):
                    for history in histories(index, len(states) - 1):
                        engine = NativeEngine(reuse=engine_kind == "usual", turn=engine_kind == "usual")
                        for before in history:
                            ask(engine, states[before], want)
                        for rung in rungs:
                            got = rung.answer(question(fork(engine), states[index], want))
                            if got is None or rung.name in failed:
                                continue
                            met = Met(case, index, want, history, engine_kind)
                            try:
                                check(rung, got, met)
                            except AssertionError as error:
                                failed[rung.name] = error
                            out[rung.name].append(met)
    return {name: failed.get(name, tuple(mets)) for name, mets in out.items()}


def met(rung: str, case: str) -> tuple[Met, ...]:
    """Where ``rung`` answered on ``case``'s states; raises the first answer that was not the plain sweep's."""
    found = answered(case)[rung]
    if isinstance(found, AssertionError):
        raise found
    return found


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("rung", [r.name for r in LADDER])
def test_every_rung_declines_or_gives_the_plain_sweep_s_answer(rung: str, case: str) -> None:
    met(rung, case)  # each answer is checked as it is met


@pytest.mark.parametrize("rung", [r.name for r in LADDER])
def test_every_rung_answers_some_state(rung: str) -> None:
    found = [m for case in CASES for m in met(rung, case)]
    assert found, f"{rung} answered none of the ladder test's states: add a state it answers, or drop the rung"


def test_the_ladder_ends_with_the_sweep_that_answers_every_want() -> None:
    assert isinstance(LADDER[-1], ladder.Sweep) and LADDER[-1].wants == {COUNTS, WEIGHTED, DRAW}
    assert len({r.name for r in LADDER}) == len(LADDER)
