"""Tallies as evidence in a game state (issue 40): the state's row and column counts, read, written and kept by
everything that copies a state, keyed by every cache, and weighed by every engine exactly as the oracle says."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_problog_engine import run_stock_problog

from battlelog.cli import main
from battlelog.engines import ENGINES, engine_class, make_engine
from battlelog.engines.base import Engine, layout_owners
from battlelog.engines.canonical import canonical_form, model_key, posterior_key
from battlelog.engines.native import ladder, tallied
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.solve import solve
from battlelog.errors import BattlelogError, BudgetExceeded, FileFormatError, Inconsistent, StateError
from battlelog.model.render import render_program
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import UNIFORM, Prior
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import SYMMETRIES, symmetries_of
from battlelog.rules.variants import SINK_RULES, TOUCH_RULES, Rules

import oracle

TALLIED: dict[str, Any] = {
    "size": 4,
    "ships": [3, 2],
    "row_counts": [1, None, 3, 0],
    "col_counts": [None, 2, None, 1],
    "shots": [{"row": 2, "col": 1, "result": "hit"}, {"row": 0, "col": 0, "result": "miss"}],
}


# ----- the state -----------------------------------------------------------------------------------------------
def test_json_round_trip_and_untallied_files_unchanged(tmp_path: Path) -> None:
    state = GameState.from_json(TALLIED)
    assert state.row_counts == (1, None, 3, 0) and state.col_counts == (None, 2, None, 1) and state.tallied
    assert state.to_json() == TALLIED
    path = tmp_path / "state.json"
    state.dump(path)
    assert GameState.load(path) == state
    plain = {key: value for key, value in TALLIED.items() if not key.endswith("_counts")}
    assert GameState.from_json(plain).to_json() == plain and not GameState.from_json(plain).tallied
    nulls = GameState.from_json({**plain, "row_counts": [None] * 4})  # a list of nulls gives nothing
    assert nulls == GameState.from_json(plain) and "row_counts" not in nulls.to_json()


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("row_counts", [1, 2], "row_counts must be a list of 4 entries (null or a whole number), got [1, 2]"),
        ("col_counts", "1,2,3,4", "col_counts must be a list of 4 entries"),
        ("row_counts", [True, 0, 0, 0], "row_counts[0] is True: a tally is null or a whole number from 0 to 4"),
        ("row_counts", [1, 1.0, 0, 0], "row_counts[1] is 1.0: a tally is null or a whole number from 0 to 4"),
        ("col_counts", [0, 0, -1, 0], "col_counts[2] is -1: a tally is null or a whole number from 0 to 4"),
        ("col_counts", [0, 0, 0, 5], "col_counts[3] is 5: a tally is null or a whole number from 0 to 4"),
    ],
)
def test_bad_tallies_are_one_line(key: str, value: object, message: str) -> None:
    with pytest.raises(FileFormatError, match=re.escape(f"state.json: {message}")) as caught:
        GameState.from_json({**TALLIED, key: value}, source="state.json")
    assert "\n" not in str(caught.value)


def test_rectangle_lines_have_their_own_lengths() -> None:
    data = {"rows": 2, "cols": 5, "ships": [2], "row_counts": [5, 0], "col_counts": [2, 0, 0, 0, 0]}
    assert GameState.from_json(data).col_counts == (2, 0, 0, 0, 0)
    with pytest.raises(FileFormatError, match=re.escape("col_counts[0] is 3: a tally is null or a whole number from 0 to 2")):
        GameState.from_json({**data, "col_counts": [3, 0, 0, 0, 0]})
    with pytest.raises(StateError, match="row_counts must be a list of 2 entries"):
        GameState(GameState.from_json(data).config, row_counts=(1, 0, 0))


def test_every_copy_of_a_state_keeps_its_tallies() -> None:
    state = GameState.from_json(TALLIED)
    grown = state.with_shot(3, 3, "miss")
    assert (grown.row_counts, grown.col_counts) == (state.row_counts, state.col_counts)
    assert grown == GameState.from_json({**TALLIED, "shots": TALLIED["shots"] + [{"row": 3, "col": 3, "result": "miss"}]})
    aiming = state.aiming({(3, 3)})
    assert (aiming.row_counts, aiming.col_counts) == (state.row_counts, state.col_counts)
    assert state.prefix(1).row_counts == state.row_counts and state.prefix(0).col_counts == state.col_counts
    assert state.with_tallies(None, None) == GameState(state.config, state.shots) != state
    assert hash(state.with_tallies(None, None)) == hash(GameState(state.config, state.shots))


def test_symmetry_moves_tallies_with_their_lines() -> None:
    state = GameState.from_json(TALLIED)
    for symmetry in SYMMETRIES:
        image = symmetry.state(state)
        # each line's tally is the image line's: count the cells of the image of row r (or column c)
        for r, count in enumerate(state.row_counts or ()):
            cells = {symmetry.cell((r, c), 4) for c in range(4)}
            assert _image_tally(image, cells) == count
        for c, count in enumerate(state.col_counts or ()):
            cells = {symmetry.cell((r, c), 4) for r in range(4)}
            assert _image_tally(image, cells) == count
        assert posterior_key(image) == posterior_key(state, symmetry)


def _image_tally(image: GameState, cells: set[tuple[int, int]]) -> int | None:
    """The tally the image gives the line made of ``cells``: a row's or a column's."""
    rows = {r for r, _ in cells}
    if len(rows) == 1:
        return (image.row_counts or (None,) * image.rows)[rows.pop()]
    return (image.col_counts or (None,) * image.cols)[cells.pop()[1]]


def test_cache_keys_tell_tallies_apart() -> None:
    """Every key the engines' caches use differs between a state and the same shots without (or with other)
    tallies: a key that dropped them would answer a tallied state from an untallied entry."""
    state = GameState.from_json(TALLIED)
    others = [
        state.with_tallies(None, None),
        state.with_tallies(state.row_counts, None),
        state.with_tallies((1, None, 2, 1), state.col_counts),
        state.with_tallies(state.col_counts, state.row_counts),
    ]
    for other in others:
        assert posterior_key(other) != posterior_key(state)
        assert model_key(other) != model_key(state)
        assert canonical_form(other)[0] != canonical_form(state)[0]
    # on one row, a row's tally and the columns' are told apart under every symmetry
    row = GameState.from_json({"rows": 1, "cols": 3, "ships": [2], "row_counts": [2]})
    cols = row.with_tallies(None, (1, 1, 0))
    assert not {posterior_key(row, s) for s in symmetries_of(1, 3)} & {posterior_key(cols, s) for s in symmetries_of(1, 3)}
    assert json.loads(json.dumps(state.to_json())) == TALLIED


# ----- the oracle ----------------------------------------------------------------------------------------------
def test_oracle_filters_layouts_by_tallies_as_counted_by_hand() -> None:
    """A 2x2 board and one ship of 2 has four layouts (two across, two down): a row of 2 leaves the top one; columns
    of 1 and 1 leave the two across; a column of 2 with a row of 2 leaves none."""
    config = GameState.from_json({"size": 2, "ships": [2]}).config
    table = oracle.layouts(2, (2,))
    assert len(table) == 4
    assert oracle.tallied(table, (2, None), None).sum() == 1
    assert oracle.tallied(table, None, (1, 1)).sum() == 2
    assert oracle.tallied(table, (2, None), (2, None)).sum() == 0
    cells, models = oracle.brute_marginals(GameState(config, row_counts=(2, None)))
    assert models == 1 and cells.tolist() == [[1.0, 1.0], [0.0, 0.0]]
    cells, models = oracle.brute_marginals(GameState(config, col_counts=(1, 1)))
    assert models == 2 and cells.tolist() == [[0.5, 0.5], [0.5, 0.5]]
    with pytest.raises(ValueError, match="no consistent layout"):
        oracle.brute_marginals(GameState(config, row_counts=(2, None), col_counts=(2, None)))


# ----- random tallied states and their brute-force posterior ---------------------------------------------------------
#: (rows, cols, fleet): small squares and a rectangle, ships of equal length and of length 1 among them.
BOARDS = ((4, 4, (3, 2, 2)), (5, 5, (3, 2)), (3, 5, (3, 2, 1)), (4, 4, (2, 2, 1)))
#: A prior weighing all three features.
PRIOR = Prior(0.7, -0.4, 0.3)


@dataclass(frozen=True)
class Tallied:
    """A consistent state with tallies taken from its true layout, and the oracle's posterior: models and cells."""

    state: GameState
    models: int
    cells: np.ndarray


def random_tallied(count: int, seed: int, priors: bool = True) -> list[Tallied]:
    """``count`` states on :data:`BOARDS` under random rules (every touch rule, every sink rule, :data:`PRIOR` in about
    a third when ``priors``): a uniform layout of the oracle's, random shots answered by its referee, and each row's and
    column's true tally given with probability 1/2."""
    rng = np.random.default_rng(seed)
    out = []
    for trial in range(count):
        rows, cols, ships = BOARDS[trial % len(BOARDS)]
        touch, sinks = TOUCH_RULES[int(rng.integers(3))], SINK_RULES[int(rng.integers(3))]
        prior = PRIOR if priors and rng.random() < 1 / 3 else UNIFORM
        table = oracle.layouts(rows, ships, touch, cols)
        config = GameConfig(rows, ships, Rules(touch=touch, sinks=sinks), cols=cols, prior=prior)
        k = int(rng.integers(len(table)))
        cells = [divmod(int(x), cols) for x in rng.permutation(rows * cols)[: int(rng.integers(0, rows * cols // 2))]]
        state = GameState(config)
        for cell, (result, ship) in zip(cells, oracle.play(table, k, cells, sinks)):
            if state.over:
                break
            state = state.with_shot(*cell, result, ship)
        covered = (table.owner[k] >= 0).reshape(rows, cols)
        row_counts = tuple(int(v) if rng.random() < 0.5 else None for v in covered.sum(axis=1))
        col_counts = tuple(int(v) if rng.random() < 0.5 else None for v in covered.sum(axis=0))
        state = state.with_tallies(row_counts, col_counts)
        chosen = oracle.posterior(table, [(s.cell, (s.result, s.ship)) for s in state.shots], sinks)
        chosen = chosen[oracle.tallied(table, state.row_counts, state.col_counts)[chosen]]
        weights = oracle.layout_weights(table, *prior.theta)
        out.append(Tallied(state, len(chosen), oracle.weighted_cell_marginals(table, chosen, weights)))
    return out


def check_engine(engine: Engine, cases: list[Tallied]) -> None:
    """``engine`` gives every case's oracle cells to 1e-9 and its number of layouts."""
    for case in cases:
        got = engine.marginals(case.state)
        where = json.dumps(case.state.to_json())
        assert got.models == case.models, where
        np.testing.assert_allclose(got.cells, case.cells, rtol=0, atol=1e-9, err_msg=where)


# ----- the native engine ---------------------------------------------------------------------------------------------
def test_native_listing_equals_the_oracle() -> None:
    cases = random_tallied(160, 40)
    assert {c.state.config.rules.touch for c in cases} == set(TOUCH_RULES)
    assert {c.state.config.rules.sinks for c in cases} == set(SINK_RULES)
    assert any(not c.state.config.prior.is_uniform for c in cases) and any(c.state.sunk_shots for c in cases)
    check_engine(NativeEngine(), cases)


def test_native_puzzle_counter_equals_the_oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    """With listing made to give up at once, the states whose evidence is a puzzle's are counted as puzzles, exactly;
    the others are refused in one line."""
    monkeypatch.setattr(tallied, "PAIR_LIMIT", 0)
    cases = random_tallied(60, 41, priors=False)
    puzzles = [c for c in cases if tallied.is_puzzle(c.state)]
    assert len(puzzles) >= 20 and any(c.state.hits for c in puzzles)
    check_engine(NativeEngine(), puzzles)
    others = [c for c in cases if not tallied.is_puzzle(c.state)]
    for case in others:
        with pytest.raises(BudgetExceeded, match="too many layouts to list") as caught:
            NativeEngine().marginals(case.state)
        assert "\n" not in str(caught.value)


def test_counts_and_weights_of_the_native_engine_agree_with_its_marginals() -> None:
    """``counts`` and ``weighted`` (what players and the prior's fit read) see the tallies too."""
    engine = NativeEngine()
    for case in random_tallied(12, 42):
        state = case.state
        assert engine.counts(state).models == case.models
        np.testing.assert_allclose(engine.weighted(state).cells, case.cells, rtol=0, atol=1e-9)


def test_draws_of_a_tallied_state_follow_its_posterior() -> None:
    """Layouts drawn from tallied states (under a prior too) are consistent with them, every cell is covered about as
    often as the oracle's marginal says (4000 draws: within 0.04, some five standard deviations), and the draws are the
    generator's: the same from the same seed, one per generator, the owners those of the layouts."""
    engine = NativeEngine()
    several = [c for c in random_tallied(40, 50) if c.models >= 4]
    weighed = [c for c in several if not c.state.config.prior.is_uniform][:2]
    assert len(weighed) == 2
    for case in weighed + [c for c in several if c.state.config.prior.is_uniform][:2]:
        state = case.state
        drawn = engine.sample(state, 4000, np.random.default_rng(1))
        assert all(oracle.consistent(layout, state) for layout in set(drawn))
        share = np.zeros((state.rows, state.cols))
        for layout in drawn:
            for placement in layout:
                for cell in placement.cells:
                    share[cell] += 1 / len(drawn)
        np.testing.assert_allclose(share, case.cells, rtol=0, atol=0.04, err_msg=json.dumps(state.to_json()))
        assert engine.sample(state, 5, np.random.default_rng(2)) == engine.sample(state, 5, np.random.default_rng(2))
        rngs = [np.random.default_rng(k) for k in range(3)]
        assert engine.sample_each(state, rngs) == [engine.sample(state, 1, np.random.default_rng(k))[0] for k in range(3)]
        owners = engine.sample_owners(state, 5, np.random.default_rng(3))
        assert (owners == layout_owners(state.config, engine.sample(state, 5, np.random.default_rng(3)))).all()


def test_no_rung_of_the_ladder_is_asked_about_a_tallied_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """No rung sees tallies, so none may be asked (every want), even after the same shots were asked without them."""
    engine = NativeEngine()
    case = random_tallied(1, 49, priors=False)[0]
    engine.marginals(case.state.with_tallies(None, None))  # what the rungs remember: this state's shots, untallied

    def refuse(ask: object) -> None:
        raise AssertionError("a rung was asked about a tallied state")

    for rung in ladder.LADDER:
        monkeypatch.setattr(rung, "answer", refuse)
    assert engine.counts(case.state).models == case.models
    np.testing.assert_allclose(engine.weighted(case.state).cells, case.cells, rtol=0, atol=1e-9)
    assert all(oracle.consistent(layout, case.state) for layout in engine.sample(case.state, 20, np.random.default_rng(0)))
    with pytest.raises(BattlelogError, match="a state with tallies has no models to draw from"):
        engine.drawn_from(case.state)


def test_a_tallied_state_never_meets_the_cache_entry_of_its_shots_without_tallies() -> None:
    """One engine (one workspace: its marginals cache and its empty boards on disk), asked a state without tallies and
    then the same shots with them, and the other way round: each answer is its own posterior's."""
    for case in random_tallied(16, 43, priors=False) + _empty_boards():
        state, plain = case.state, case.state.with_tallies(None, None)
        _, plain_models = oracle.brute_marginals(plain)
        for order in ((plain, state), (state, plain)):
            engine = NativeEngine()
            for asked in order:
                got = engine.marginals(asked)
                assert got.models == (case.models if asked.tallied else plain_models), json.dumps(asked.to_json())
        if case.models != plain_models:
            assert NativeEngine().marginals(state).models != NativeEngine().marginals(plain).models


def _empty_boards() -> list[Tallied]:
    """Empty 4x4 boards with a few tallies (the engine keeps the empty board's marginals on disk)."""
    config = GameConfig(4, (3, 2))
    out = []
    for row_counts, col_counts in (((2, None, 0, 3), None), (None, (1, 1, 1, 2)), ((1, 1, 1, 2), (0, 1, 1, 3))):
        state = GameState(config, row_counts=row_counts, col_counts=col_counts)
        cells, models = oracle.brute_marginals(state)
        out.append(Tallied(state, models, cells))
    return out


@pytest.mark.parametrize(
    "row_counts, col_counts, shots, message",
    [
        ((2, None, None, None), None, [(0, 0, "hit"), (0, 1, "hit"), (0, 2, "hit")], "row A's tally 2 does not fit its 3 hits"),
        (
            None,
            (None, 2, None, None),
            [(r, 1, "miss") for r in range(3)],
            "column 2's tally 2 does not fit its 0 hits and 1 cells",
        ),
        ((2, 2, 2, 0), None, [], "the row tallies sum to 6, but the fleet has 5 ship cells"),
        (None, (4, 4, None, None), [], "the column tallies sum to 8, but the fleet has 5 ship cells"),
        ((1, 0, 1, 3), None, [], "no layout of the fleet fits all the answers and the tallies"),
    ],
)
def test_tallies_the_rest_rules_out_are_inconsistent(row_counts: Any, col_counts: Any, shots: list, message: str) -> None:
    state = GameState(GameConfig(4, (3, 2), Rules(sinks="silent")), row_counts=row_counts, col_counts=col_counts)
    for row, col, result in shots:
        state = state.with_shot(row, col, result)
    with pytest.raises(Inconsistent, match=re.escape(message)) as caught:
        NativeEngine().marginals(state)
    assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="no consistent layout"):
        oracle.brute_marginals(state)


def test_solve_says_whether_the_tallies_or_a_shot_are_at_fault() -> None:
    config = GameConfig(4, (3, 2))
    with pytest.raises(StateError, match=r"contradictory state: the tallies leave no layout of fleet 3,2 \("):
        solve(GameState(config, row_counts=(1, 0, 1, 3)), NativeEngine(), "s.json")
    state = GameState(config, row_counts=(0, 0, 2, 3)).with_shot(3, 3, "miss").with_shot(3, 2, "miss")
    with pytest.raises(
        StateError, match=r"s.json: contradictory state: shot 2 \(D3, miss\) leaves no layout .* the answers and the tallies"
    ):
        solve(state, NativeEngine(), "s.json")


# ----- ProbLog, and every other engine ------------------------------------------------------------------------------
def test_problog_engine_equals_the_oracle() -> None:
    """The rendered program's count constraints (templates/evidence.pl.j2) through ProbLog's pipeline: about a second a state."""
    check_cells(make_engine("problog"), random_tallied(8, 45))


@pytest.mark.slow
def test_problog_engine_equals_the_oracle_on_more_states() -> None:
    check_cells(make_engine("problog"), random_tallied(8, 46))


def check_cells(engine: Engine, cases: list[Tallied]) -> None:
    """``engine``'s cells are every case's oracle cells to 1e-9."""
    for case in cases:
        got = engine.marginals(case.state).cells
        np.testing.assert_allclose(got, case.cells, rtol=0, atol=1e-9, err_msg=json.dumps(case.state.to_json()))


def test_the_stock_problog_command_gives_the_oracle_s_marginals(tmp_path: Path) -> None:
    """``problog`` itself on the rendered program of a state with row and column tallies, hits, a miss and a sink."""
    case = next(
        c for c in random_tallied(40, 47, priors=False) if c.state.sunk_shots and c.state.row_counts and c.state.col_counts
    )
    program = render_program(case.state)
    assert program.count("evidence(row_cells(") == sum(k is not None for k in case.state.row_counts or ())
    printed = run_stock_problog(program, tmp_path / "state.pl")
    assert set(printed) == set(case.state.unshot)
    for cell, probability in printed.items():
        assert abs(probability - case.cells[cell]) <= 5e-9, cell  # %.8g rounding of values below 1


@pytest.mark.parametrize("name", list(ENGINES))
def test_every_engine_weighs_tallies_or_refuses_them_in_one_line(name: str) -> None:
    """What an engine declares (``weighs_tallies``) is what it does: it gives the oracle's marginals of tallied states,
    or refuses them, directly and through ``solve``, in one line; none answers as if the tallies were not there."""
    engine = make_engine(name)
    cases = random_tallied(3, 48, priors=False)
    if engine_class(name).weighs_tallies:
        check_cells(engine, cases)
        return
    for case in cases:
        for ask in (engine.marginals, lambda state: solve(state, engine)):
            with pytest.raises(BattlelogError, match=f"the {name} engine does not weigh tallies") as caught:
                ask(case.state)
            assert "\n" not in str(caught.value)


# ----- the command line ------------------------------------------------------------------------------------------------
FIXTURE = Path(__file__).parent / "fixtures" / "tallies_5x5.json"


@pytest.mark.parametrize("engine", ["native", "problog"])
def test_marginals_command_reads_tallies(engine: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``battlelog marginals tests/fixtures/tallies_5x5.json`` (docs/formats.md): the oracle's cells and count."""
    cells, models = oracle.brute_marginals(GameState.load(FIXTURE))
    assert main(["marginals", str(FIXTURE), "--engine", engine, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(printed["cells"], cells, rtol=0, atol=1e-9)
    assert printed["models"] == (models if engine == "native" else None)
    assert main(["marginals", str(FIXTURE)]) == 0
    assert f"{models} layouts fit the answers and the tallies" in capsys.readouterr().out


def test_the_heat_map_shows_the_tallies_beside_rows_and_below_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["marginals", str(FIXTURE), "--no-color"]) == 0
    lines = capsys.readouterr().out.splitlines()
    state = GameState.load(FIXTURE)
    assert state.row_counts is not None and state.col_counts is not None
    grid = lines[2 : 2 + state.rows]
    assert [line.split()[-1] for line in grid] == ["?" if t is None else str(t) for t in state.row_counts]
    assert lines[2 + state.rows].split() == ["?" if t is None else str(t) for t in state.col_counts]
    assert "its tally of ship cells (? not given)" in lines[4 + state.rows]
    untallied = tmp_path / "untallied.json"
    untallied.write_text(json.dumps(GameState(state.config, state.shots).to_json()))
    assert main(["marginals", str(untallied), "--no-color"]) == 0
    plain = capsys.readouterr().out.splitlines()
    assert len(plain[2].split()) == 1 + state.cols and "tally" not in "\n".join(plain)  # no tally column, no legend


def test_marginals_command_refuses_what_an_engine_cannot_weigh(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["marginals", str(FIXTURE), "--engine", "sdd"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("battlelog: error: the sdd engine does not weigh tallies (row_counts, col_counts) yet")
    assert "\n" not in err
