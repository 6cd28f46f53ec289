"""The native engine under the touch rules (issue 17): ``diagonal`` (ships may meet only at a corner)
and ``none`` (no contact at all), against an enumerator written here from the rules.

- one test per transition rule of the kernel, each on a tiny board where that rule alone decides;
- random small states (3x3 to 6x6, ships of length 1 to 4, misses, hits and sinks) under all three
  rules: layout counts, cell and placement counts equal to enumeration;
- the empty 10x10 board with 5,4,3,3,2 and no contact: 3,851,502,784 layouts, symmetric marginals;
- uniform sampling under ``none``; the caches tell the rules apart.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from battlelog.engines import Marginals
from battlelog.engines.native import few
from battlelog.engines.native.cache import EmptyBoards
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.layered import sweep
from battlelog.engines.native.tables import SweepTables
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError, Inconsistent
from battlelog.model.ground import Problem, ground
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, Placement, ship_placements
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import IDENTITY, SYMMETRIES
from battlelog.rules.variants import Rules

from oracle import consistent

RULES = ("allowed", "diagonal", "none")


@pytest.fixture(autouse=True)
def sweep_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine sweeps every state here, however few its layouts: this file checks the sweep (the
    listing of late states has its own tests, tests/test_native_few.py)."""
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)


@pytest.fixture(autouse=True)
def fresh_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test has its own empty-board folder (engines built without a workspace get a fresh one)."""
    monkeypatch.setenv("BATTLELOG_CACHE_DIR", str(tmp_path / "cache"))


# ----- the enumerator, from the rules ---------------------------------------------------------------
def neighbours(cell: Cell, touch: str) -> list[Cell]:
    """The cells another ship may not occupy next to ``cell``: none when ships may touch; the four
    side neighbours under ``diagonal``; all eight under ``none`` (off-board cells included: harmless)."""
    r, c = cell
    sides = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
    corners = [(r - 1, c - 1), (r - 1, c + 1), (r + 1, c - 1), (r + 1, c + 1)]
    return {"allowed": [], "diagonal": sides, "none": sides + corners}[touch]


def legal(layout: tuple[Placement, ...], touch: str) -> bool:
    """No two ships share a cell, and no cell of one ship is a forbidden neighbour of another's."""
    owner: dict[Cell, int] = {}
    for p in layout:
        for cell in p.cells:
            if cell in owner:
                return False
            owner[cell] = p.ship
    return all(owner.get(x, p.ship) == p.ship for p in layout for cell in p.cells for x in neighbours(cell, touch))


def layouts_of(state: GameState, touch: str) -> list[tuple[Placement, ...]]:
    """Every layout legal under ``touch`` that answers ``state``'s shots as they were answered.

    Backtracking over the ships' placements (those covering a miss skipped), a branch dropped as
    soon as its ships are not legal together; every complete layout is checked against the shots
    with brute.consistent, which reads the spec's evidence literally.
    """
    n, ships = state.size, state.ships
    options = [[p for p in ship_placements(n, n, i, length) if not set(p.cells) & state.misses] for i, length in enumerate(ships)]
    found: list[tuple[Placement, ...]] = []

    def extend(chosen: tuple[Placement, ...]) -> None:
        if len(chosen) == len(ships):
            if consistent(chosen, state):
                found.append(chosen)
            return
        for p in options[len(chosen)]:
            if legal(chosen + (p,), touch):
                extend(chosen + (p,))

    extend(())
    return found


def tally(state: GameState, layouts: list[tuple[Placement, ...]]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Per cell, the layouts covering it; per ship and canonical placement, the layouts using it."""
    n = state.size
    cells = np.zeros((n, n), dtype=np.int64)
    index = [{p: j for j, p in enumerate(ship_placements(n, n, i, length))} for i, length in enumerate(state.ships)]
    placements = [np.zeros(len(ix), dtype=np.int64) for ix in index]
    for layout in layouts:
        for p in layout:
            placements[p.ship][index[p.ship][p]] += 1
            for r, c in p.cells:
                cells[r, c] += 1
    return cells, placements


# ----- random states ----------------------------------------------------------------------------------
#: Fleets per board size: ships of length 1 to 4, some alike.
FLEETS = {
    3: ((2, 1), (1, 1, 1), (2, 2)), 4: ((3, 2, 1), (2, 2, 1), (1, 1, 1, 1)), 5: ((3, 2, 2), (4, 2, 1), (3, 1, 1)),
    6: ((4, 3, 2), (3, 2, 2, 1), (4, 2, 1)),
}


def random_layout(config: GameConfig, touch: str, rng: np.random.Generator) -> tuple[Placement, ...] | None:
    """A layout legal under ``touch``: every ship's placement uniform, the whole layout rejected until legal."""
    options = [config.placements(i) for i in range(len(config.ships))]
    for _ in range(20_000):
        layout = tuple(o[rng.integers(len(o))] for o in options)
        if legal(layout, touch):
            return layout
    return None


def random_state(config: GameConfig, layout: tuple[Placement, ...], shots: int, rng: np.random.Generator) -> GameState:
    """The first ``shots`` shots at random cells, answered truly by ``layout`` (sinks named)."""
    n = config.size
    owner = {cell: p.ship for p in layout for cell in p.cells}
    state = GameState.empty(config)
    hit: set[Cell] = set()
    for flat in rng.permutation(n * n)[:shots]:
        cell = divmod(int(flat), n)
        if cell not in owner:
            state = state.with_shot(*cell, "miss")
            continue
        hit.add(cell)
        ship = owner[cell]
        if hit.issuperset(layout[ship].cells):
            state = state.with_shot(*cell, "sunk", ship)
            if len(state.sinks) == len(layout):
                break
        else:
            state = state.with_shot(*cell, "hit")
    return state


def random_cases(count: int, seed: int) -> list[tuple[GameState, str]]:
    """States whose answers come from a layout legal under the case's rule (so legal under every looser one)."""
    rng = np.random.default_rng(seed)
    out: list[tuple[GameState, str]] = []
    while len(out) < count:
        n = int(rng.integers(3, 7))
        fleet = FLEETS[n][int(rng.integers(3))]
        touch = RULES[int(rng.integers(3))]
        config = GameConfig(n, fleet)
        layout = random_layout(config, touch, rng)
        if layout is None:
            continue
        shots = int(rng.integers(n * n // 4, n * n * 3 // 4 + 1)) if n >= 5 else int(rng.integers(0, n * n // 2 + 1))
        out.append((random_state(config, layout, shots, rng), touch))
    return out


def problem_of(state: GameState, touch: str) -> Problem:
    return dataclasses.replace(Problem.from_model(ground(state)), touch=touch)


# ----- the enumerator itself ----------------------------------------------------------------------------
def test_the_enumerator_agrees_with_the_plain_product_on_small_boards() -> None:
    from itertools import product

    for config in (GameConfig(3, (2, 2)), GameConfig(4, (3, 2, 1))):
        every = list(product(*(config.placements(i) for i in range(len(config.ships)))))
        for touch in RULES:
            assert layouts_of(GameState.empty(config), touch) == [layout for layout in every if legal(layout, touch)]
    # 3x3 with 2,1: 12 domino placements, and the cells left for the single one.
    counts = {touch: len(layouts_of(GameState.empty(GameConfig(3, (2, 1))), touch)) for touch in RULES}
    assert counts == {"allowed": 84, "diagonal": 40, "none": 24}


# ----- each transition rule on its own (row-major sweep, one placement allowed per ship) ----------------
def count(size: int, placements: list[tuple[int, int, int, bool]], touch: str) -> int:
    """Layouts of ships fixed at ``(length, row, col, horizontal)``, swept row-major by the kernel."""
    ships = tuple(length for length, *_ in placements)
    domains = tuple((Placement(i, length, r, c, h),) for i, (length, r, c, h) in enumerate(placements))
    model = sweep(SweepTables(Problem(size, ships, domains, frozenset(), touch), IDENTITY), 2**28)
    return model.paths * model.tables.multiplicity


def test_a_horizontal_ship_goes_on_only_under_an_empty_cell() -> None:
    # . B      B's cell is above A's second cell: A's start at (1,0) has nothing left of or above it,
    # A A      so only A's continuation (cell above taken) can refuse the layout.
    fixed = [(2, 1, 0, True), (1, 0, 1, True)]
    assert (count(2, fixed, "allowed"), count(2, fixed, "diagonal")) == (1, 0)


def test_a_vertical_ship_goes_on_only_beside_an_empty_cell() -> None:
    # . A      B starts at (1,0) with nothing above it; A's second cell (1,1) has B to its left.
    # B A
    fixed = [(2, 0, 1, False), (1, 1, 0, True)]
    assert (count(2, fixed, "allowed"), count(2, fixed, "diagonal")) == (1, 0)


def test_a_ship_starts_only_right_of_an_empty_cell() -> None:
    fixed = [(1, 0, 0, True), (1, 0, 1, True)]  # A B: row 0, nothing above
    assert (count(2, fixed, "allowed"), count(2, fixed, "diagonal")) == (1, 0)


def test_a_ship_starts_only_below_an_empty_cell() -> None:
    fixed = [(1, 0, 0, True), (1, 1, 0, True)]  # A over B: column 0, nothing to the left
    assert (count(2, fixed, "allowed"), count(2, fixed, "diagonal")) == (1, 0)


def test_under_none_nothing_lies_above_left() -> None:
    fixed = [(1, 0, 0, True), (1, 1, 1, True)]  # A . / . B
    assert (count(2, fixed, "diagonal"), count(2, fixed, "none")) == (1, 0)


def test_under_none_nothing_lies_above_right() -> None:
    fixed = [(1, 0, 1, True), (1, 1, 0, True)]  # . A / B .
    assert (count(2, fixed, "diagonal"), count(2, fixed, "none")) == (1, 0)


def test_under_none_a_ship_going_on_meets_no_corner_either() -> None:
    # . . A    B starts at (1,0) clear of everything; its second cell (1,1) has A above-right.
    # B B .
    # . . .
    fixed = [(2, 1, 0, True), (1, 0, 2, True)]
    assert (count(3, fixed, "diagonal"), count(3, fixed, "none")) == (1, 0)


def test_rows_do_not_wrap_around() -> None:
    # The profile holds the last cells swept, across the end of a row: the cell swept just before a
    # row's first cell is not its left neighbour, nor is the one before the last column's above-right,
    # nor is a cell two rows up above-left of a row's first cell.
    beside = [(1, 0, 2, True), (1, 1, 0, True)]  # . . A / B . .
    ends = [(1, 1, 0, True), (1, 1, 2, True)]  # . . . / A . B
    apart = [(1, 0, 2, True), (1, 2, 0, True)]  # . . A / . . . / B . .
    for fixed in (beside, ends, apart):
        assert [count(3, fixed, touch) for touch in RULES] == [1, 1, 1], fixed


# ----- random states against enumeration ----------------------------------------------------------------
CASES = random_cases(60, seed=17)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_random_states_match_enumeration_under_every_rule(case: int) -> None:
    state, _ = CASES[case]
    order = SYMMETRIES[case % len(SYMMETRIES)]
    for touch in RULES:
        layouts = layouts_of(state, touch)
        problem = problem_of(state, touch)
        if not layouts:
            with pytest.raises(Inconsistent):
                NativeEngine().problem_counts(problem, order)
            continue
        cells, placements = tally(state, layouts)
        counts = NativeEngine().problem_counts(problem, order)
        assert counts.models == len(layouts), touch
        np.testing.assert_array_equal(counts.cells, cells, err_msg=touch)
        for mine, theirs in zip(counts.placements, placements):
            np.testing.assert_array_equal(mine, theirs, err_msg=touch)
        marginals = counts.marginals()
        np.testing.assert_allclose(marginals.cells, cells / len(layouts), rtol=0, atol=1e-9)


def test_the_random_states_cover_what_they_should() -> None:
    """Boards 3x3 to 6x6, ships of length 1 to 4, misses, hits and sinks, and layouts under every rule."""
    assert {state.size for state, _ in CASES} == {3, 4, 5, 6}
    assert {length for state, _ in CASES for length in state.ships} == {1, 2, 3, 4}
    assert sum(1 for state, _ in CASES if state.misses) >= 40
    assert sum(1 for state, _ in CASES if state.sinks) >= 10
    assert sum(1 for state, _ in CASES if state.hits - {cell for _, t, cell in state.sinks}) >= 20
    assert {touch for _, touch in CASES} == set(RULES)


# ----- the standard fleet without contact ---------------------------------------------------------------
def empty_problem(size: int, ships: tuple[int, ...], touch: str) -> Problem:
    return Problem(
        size, ships, tuple(ship_placements(size, size, i, length) for i, length in enumerate(ships)), frozenset(), touch
    )


def test_the_empty_10x10_board_without_contact_has_3851502784_layouts_and_the_boards_symmetries() -> None:
    counts = NativeEngine().problem_counts(empty_problem(10, (5, 4, 3, 3, 2), "none"))
    assert counts.models == 3_851_502_784  # 1,925,751,392 with the two 3s alike, times 2
    marginals = counts.marginals()
    for symmetry in SYMMETRIES:
        np.testing.assert_array_equal(symmetry.board(counts.cells), counts.cells)  # exact integers
        np.testing.assert_array_equal(symmetry.board(marginals.cells), marginals.cells)
    assert marginals.cells.sum() == pytest.approx(17.0, abs=1e-12)
    for values in marginals.placements or ():
        assert values.sum() == pytest.approx(1.0, abs=1e-12)


def test_a_frontier_too_wide_for_64_bits_is_refused_naming_the_rule() -> None:
    with pytest.raises(
        BattlelogError, match=r"15x15 5,4,3,3,2 \(touch none\) needs 69 .*16 bits of occupancy for touch none"
    ) as info:
        SweepTables(empty_problem(15, (5, 4, 3, 3, 2), "none"), IDENTITY)
    assert "\n" not in str(info.value)
    SweepTables(empty_problem(15, (5, 4, 3, 3, 2), "allowed"), IDENTITY)  # the standard rule still fits


# ----- sampling and caches, through game states that carry the rule ------------------------------------
def test_samples_under_no_contact_are_legal_and_uniform() -> None:
    state = GameState.empty(GameConfig(5, (3, 2, 1), Rules(touch="none"))).with_shot(2, 2, "miss").with_shot(0, 1, "hit")
    layouts = layouts_of(state, "none")
    assert 50 < len(layouts) < 2000
    draws = NativeEngine().sample(state, 20_000, np.random.default_rng(3))
    seen = {layout: 0 for layout in layouts}
    for layout in draws:
        seen[layout] += 1  # a layout that breaks the rule or the evidence would raise KeyError
    expected = len(draws) / len(layouts)
    assert scipy_stats.chisquare(list(seen.values()), [expected] * len(layouts)).pvalue > 1e-4


def test_the_caches_tell_the_rules_apart(tmp_path: Path) -> None:
    store_dir = tmp_path / "boards"
    answers: dict[str, list[tuple[Marginals, Marginals]]] = {}
    for _ in range(2):  # the second round's empty boards come from the disk
        shared = Workspace(store_dir)  # one state cache for every rule: equal shots must not collide
        for touch in RULES:
            config = GameConfig(5, (3, 2, 2), Rules(touch=touch))
            engine = NativeEngine(workspace=shared)
            empty = engine.marginals(GameState.empty(config))
            shot = engine.marginals(GameState.empty(config).with_shot(1, 1, "hit"))
            answers.setdefault(touch, []).append((empty, shot))
    for touch in RULES:
        problem = empty_problem(5, (3, 2, 2), touch)
        fresh = NativeEngine().problem_counts(problem)
        for empty, shot in answers[touch]:
            assert empty.models == fresh.models
            np.testing.assert_array_equal(empty.cells, fresh.marginals().cells)
            hit = dataclasses.replace(problem, required=frozenset({(1, 1)}))
            assert shot.models == NativeEngine().problem_counts(hit).models
    assert len({answers[touch][0][0].models for touch in RULES}) == 3
    store = EmptyBoards(store_dir)
    assert len({store.path(GameConfig(5, (3, 2, 2), Rules(touch=touch))) for touch in RULES}) == 3
