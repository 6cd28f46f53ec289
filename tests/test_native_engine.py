"""The ``native`` engine beyond the contract every engine meets (tests/test_engine_contract.py).

Here: the standard 10x10 game (its layout count and symmetric marginals), late-game 10x10 states
against enumeration, 8x8 mid-game states against the independent ``sdd`` path, exact uniform
sampling, the interpreted and compiled kernels agreeing bit for bit, the caches, the memory budget,
and the one-line refusals.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy import stats as scipy_stats

from battlelog.engines import make_engine, progress
from battlelog.engines import workspace as workspace_module
from battlelog.engines.base import layout_owners
from battlelog.engines.native import cache, few, jit, layered
from battlelog.engines.native.engine import NativeEngine
from battlelog.engines.native.tables import SweepTables, sweep_order
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError, BudgetExceeded
from battlelog.model.ground import Problem, ground
from battlelog.players import make_player
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import IDENTITY, SYMMETRIES
from battlelog.rules.variants import Rules
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for

from engine_cases import move_asked_of, shots
from oracle import all_layouts, brute_marginals, consistent, consistent_layouts

STANDARD = GameConfig(10, (5, 4, 3, 3, 2))


@pytest.fixture(autouse=True)
def sweep_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine sweeps every state here, however few its layouts: this file checks the sweep (the
    listing of late states has its own tests, tests/test_native_few.py)."""
    monkeypatch.setattr(few, "PAIR_LIMIT", 0)


@pytest.fixture(autouse=True)
def own_disk_cache(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test has its own empty-board folder (and every engine below a workspace of its own unless given one)."""
    monkeypatch.setenv("BATTLELOG_CACHE_DIR", str(tmp_path / "cache"))


def engine(workspace: Workspace | None = None) -> NativeEngine:
    return NativeEngine(workspace=workspace)


def pdf_game(config: GameConfig, seed: int) -> GameState:
    """The finished game of the pdf player on game 0's board of ``seed`` (an engine-independent history)."""
    return play_game(config, layout_for(config, seed, 0), make_player("pdf", game_seeds(seed, 0)[1])).state


def test_the_problog_player_uses_this_engine_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    state, asked = move_asked_of(NativeEngine, monkeypatch)  # no engine named
    assert asked == [state]  # the move was computed by this engine


# ----- the standard game ------------------------------------------------------------------------------
def test_the_empty_standard_board_has_30093975536_layouts_and_the_boards_symmetries() -> None:
    marginals = engine().marginals(GameState.empty(STANDARD))
    assert marginals.models == 30_093_975_536
    for symmetry in SYMMETRIES:
        np.testing.assert_array_equal(symmetry.board(marginals.cells), marginals.cells)  # exact, not approximate
    assert marginals.cells.sum() == pytest.approx(17.0, abs=1e-12)  # 17 ship cells in every layout
    assert marginals.placements is not None
    for values in marginals.placements:
        assert values.sum() == pytest.approx(1.0, abs=1e-12)  # each ship lies somewhere
        assert values.min() > 0  # and nowhere is impossible on an empty board
    assert marginals.cells[0, 0] == pytest.approx(0.0800, abs=5e-5)  # corner and centre, as published
    assert marginals.cells[4, 4] == pytest.approx(0.2136, abs=5e-5)


@functools.cache
def late_states() -> tuple[tuple[int, GameState], ...]:
    """Late states of three 10x10 games (with the game's seed), from the end back to where about two
    thousand layouts remain; built when a test first asks (it plays games), not at collection."""
    out = []
    for seed in (1, 2, 3):
        full = pdf_game(STANDARD, seed)
        for count in range(len(full.shots) - 1, 0, -1):
            state = full.prefix(count)
            if engine().counts(state).models > 2000:
                break
            out.append((seed, state))
    return tuple(out[::3])


@pytest.mark.parametrize("seed", (1, 2, 3))
def test_late_10x10_states_match_enumeration(seed: int) -> None:
    states = [state for game, state in late_states() if game == seed]
    assert states
    for state in states:
        layouts = consistent_layouts(state)
        expected, models = brute_marginals(state, layouts)
        marginals = engine().marginals(state)
        assert marginals.models == models, f"{len(state.shots)} shots"
        np.testing.assert_allclose(marginals.cells, expected, rtol=0, atol=1e-9, err_msg=f"{len(state.shots)} shots")


#: The 8x8 states: the pdf player's game of each seed, after that many shots.
MID_STATES = ((4, 12), (5, 18), (6, 24), (7, 30))


@pytest.mark.parametrize("seed, count", MID_STATES, ids=[f"8x8 {count} shots" for _, count in MID_STATES])
def test_8x8_mid_game_states_match_the_sdd_engine(seed: int, count: int) -> None:
    state = pdf_game(GameConfig(8, (5, 4, 3, 3, 2)), seed).prefix(count)
    mine, theirs = engine().marginals(state), make_engine("sdd").marginals(state)
    assert mine.models == theirs.models
    np.testing.assert_allclose(mine.cells, theirs.cells, rtol=0, atol=1e-9)
    assert mine.placements is not None and theirs.placements is not None
    for a, b in zip(mine.placements, theirs.placements):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)


def test_every_sweep_order_gives_the_same_exact_counts() -> None:
    state = pdf_game(GameConfig(7, (5, 5, 4)), 9).prefix(14)
    problem = Problem.from_model(ground(state))
    reference = None
    for symmetry in SYMMETRIES:
        model = layered.sweep(SweepTables(problem, symmetry), 2**30)
        uses = model.uses()
        assert uses.sum() == model.paths * 3  # every layout places its three ships once
        if reference is None:
            reference = model.paths
        assert model.paths == reference
    assert sweep_order(GameState.empty(STANDARD)) == IDENTITY
    corner = shots(STANDARD, "J10 hit")
    assert sweep_order(corner).cell((9, 9), 10) == (0, 0)  # the sweep starts where the evidence is


# ----- the kernel ---------------------------------------------------------------------------------------
def test_the_interpreted_and_compiled_kernels_agree_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    state = pdf_game(GameConfig(7, (5, 5, 4)), 3).prefix(6)
    tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state))
    jit.kernels(jit.COMPILE_ABOVE + 1)  # compile (or load) the numba kernel
    compiled = layered.sweep(tables, 2**30)
    monkeypatch.setattr(jit, "kernels", lambda states: jit._interpreted)
    interpreted = layered.sweep(tables, 2**30)
    assert compiled.paths == interpreted.paths > 0
    for (_, a), (_, b) in zip(compiled.levels(), interpreted.levels(), strict=True):
        for field in ("fwd", "first", "child", "action"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    np.testing.assert_array_equal(compiled.uses(), interpreted.uses())


def test_counts_that_could_overflow_64_bits_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layered, "COUNT_LIMIT", 1e4)  # 7x7 5,5,4 passes 10,000 partial layouts early
    with pytest.raises(BattlelogError, match="too many to count exactly in 64 bits") as info:
        engine().marginals(GameState.empty(GameConfig(7, (5, 5, 4))))
    assert "\n" not in str(info.value)


def test_a_board_whose_frontier_does_not_fit_64_bits_is_refused() -> None:
    with pytest.raises(BattlelogError, match=r"packs a frontier state into 64 bits, and 21x21 5 needs 67") as info:
        engine().marginals(GameState.empty(GameConfig(21, (5,))))
    assert "\n" not in str(info.value)


# ----- sampling -----------------------------------------------------------------------------------------
SAMPLED = shots(GameConfig(4, (3, 2, 2)), "B2 miss", "C3 hit", "A4 miss")


def test_samples_are_consistent_and_uniform() -> None:
    layouts = [layout for layout in all_layouts(SAMPLED.config) if consistent(layout, SAMPLED)]
    draws = engine().sample(SAMPLED, 20_000, np.random.default_rng(5))
    assert all(consistent(layout, SAMPLED) for layout in draws)
    seen = {layout: 0 for layout in layouts}
    for layout in draws:
        seen[layout] += 1  # a layout outside the consistent set would raise KeyError
    expected = len(draws) / len(layouts)
    assert scipy_stats.chisquare(list(seen.values()), [expected] * len(layouts)).pvalue > 1e-4
    again = engine().sample(SAMPLED, 50, np.random.default_rng(5))
    assert again == engine().sample(SAMPLED, 50, np.random.default_rng(5))  # reproducible from the generator


OWNED = [
    SAMPLED,
    shots(GameConfig(10, (5, 4, 3, 3, 2)), "E5 miss", "F6 hit", "F7 hit", "D4 miss"),
    shots(GameConfig(6, (4, 3, 3), Rules(touch="none", sinks="unnamed")), "B2 hit", "B3 miss", "C2 hit", "D2 hit", "E2 sunk"),
    shots(GameConfig(7, (4, 3, 2, 2), prior=Prior(edge=0.8, touch=-1.0)), "D4 hit", "A1 miss"),
]


@pytest.mark.parametrize("state", OWNED, ids=lambda state: state.config.label())
def test_owners_drawn_are_the_layouts_sampled_from_the_same_generator(state: GameState) -> None:
    """``sample_owners`` reads the draws without building placements: the same generator calls in the same
    order, so the same layouts as ``sample`` in the same order (the rollout player's decisions rely on it)."""
    for seed in range(3):
        fast = engine().sample_owners(state, 200, np.random.default_rng(seed))
        np.testing.assert_array_equal(fast, layout_owners(state.config, engine().sample(state, 200, np.random.default_rng(seed))))


def test_owners_drawn_from_a_split_state_are_the_layouts_sampled(forced_split: list[int]) -> None:
    fast = NativeEngine().sample_owners(SAMPLED, 500, np.random.default_rng(4))
    np.testing.assert_array_equal(
        fast, layout_owners(SAMPLED.config, NativeEngine().sample(SAMPLED, 500, np.random.default_rng(4)))
    )
    assert forced_split == [1, 1, 1, 1]


def test_draws_from_a_model_drawn_from_before_are_those_of_a_new_model() -> None:
    """The backward counts kept after a first draw give the draws a new model gives, kept levels or
    rebuilt ones (a budget that keeps only segment starts, and one that leaves no room to keep them)."""
    state = pdf_game(GameConfig(6, (4, 3, 3)), 2).prefix(6)
    tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state))
    whole = layered.sweep(tables, 2**31)
    for budget, keep in ((2**31, True), (2**31, False), (whole.nbytes + 1, True)):
        used = layered.sweep(tables, budget, keep_levels=keep)
        used.draw(7, np.random.default_rng(1))
        for seed in (2, 3):
            again = layered.sweep(tables, budget, keep_levels=keep).draw(9, np.random.default_rng(seed))
            np.testing.assert_array_equal(used.draw(9, np.random.default_rng(seed)), again)
        assert bool(used._drawing and used._drawing[1]) == (keep and budget > whole.nbytes * 2)


# ----- caches -------------------------------------------------------------------------------------------
def test_a_state_and_its_images_share_one_cache_entry_and_agree_exactly() -> None:
    state = pdf_game(GameConfig(7, (5, 5, 4)), 4).prefix(9)
    fresh = {s: NativeEngine().counts(s.state(state)).marginals() for s in SYMMETRIES}
    workspace = Workspace()
    first = engine(workspace).marginals(state)
    for symmetry in SYMMETRIES:
        image = symmetry.state(state)
        cached = engine(workspace).marginals(image)
        np.testing.assert_array_equal(cached.cells, fresh[symmetry].cells)
        np.testing.assert_array_equal(cached.cells, symmetry.board(first.cells))
        assert cached.placements is not None
        for a, b in zip(cached.placements, fresh[symmetry].placements or ()):
            np.testing.assert_array_equal(a, b)
    assert len(workspace.states) == 1


def test_a_workspace_kept_across_games_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # A worker plays game after game in one workspace: the players fill its cache of recent states,
    # which stays capped.
    monkeypatch.setattr(workspace_module, "STATE_CAPACITY", 8)
    config = GameConfig(5, (3, 3, 2))
    workspace = Workspace()
    for game in range(4):
        player = make_player("problog", game_seeds(1, game)[1])
        player.use(workspace)
        play_game(config, layout_for(config, 1, game), player)
        assert len(workspace.states) <= 8
    assert len(workspace.states) == 8


def test_the_empty_board_is_stored_on_disk_and_read_back(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "boards"
    config = GameConfig(7, (5, 5, 4))
    first = engine(Workspace(folder)).marginals(GameState.empty(config))
    path = Workspace(folder).empty_boards.path(config)
    assert path.is_file() and f"native-v{cache.FORMAT}" in str(path)

    def no_counting(self, state):
        raise AssertionError("counted again instead of reading the stored board")

    monkeypatch.setattr(NativeEngine, "counts", no_counting)
    again = engine(Workspace(folder)).marginals(GameState.empty(config))  # a new workspace: only the disk knows it
    np.testing.assert_array_equal(again.cells, first.cells)
    assert again.models == first.models
    path.write_bytes(b"not a numpy file")  # damaged: ignored, then recomputed
    monkeypatch.undo()
    np.testing.assert_array_equal(engine(Workspace(folder)).marginals(GameState.empty(config)).cells, first.cells)


# ----- memory budget and progress -----------------------------------------------------------------------
@functools.cache
def mid_game() -> GameState:
    """A 7x7 state five shots into the pdf player's game (built when a test asks: it plays a game)."""
    return pdf_game(GameConfig(7, (5, 5, 4)), 12).prefix(5)


EIGHT = GameState.empty(GameConfig(8, (5, 4, 3, 3, 2)))


def peak_bytes(state: GameState, keep_levels: bool = True) -> int:
    """The most memory the engine's sweep of ``state`` needs at once, keeping every level or not."""
    tables = SweepTables(Problem.from_model(ground(state)), sweep_order(state))
    return layered.sweep(tables, 2**31, keep_levels=keep_levels).peak


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The split depth of every layered model the engines build (depth > 0: the state was split)."""
    built: list[int] = []
    original = NativeEngine.compile_model

    def counted(self, problem, order, depth, tracked=False, limit=None):
        built.append(depth)
        return original(self, problem, order, depth, tracked, limit)

    monkeypatch.setattr(NativeEngine, "compile_model", counted)
    return built


def test_a_model_over_budget_keeps_segment_starts_and_rebuilds_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layered, "PACK", False)  # rebuilt, not unpacked: tests/test_native_packed.py
    tables = SweepTables(Problem.from_model(ground(EIGHT)), IDENTITY)
    kept = layered.sweep(tables, 2**31)
    lean = layered.sweep(tables, int(kept.peak * 0.9))
    assert not kept.rebuilds and lean.rebuilds and lean.peak <= kept.peak * 0.9
    assert lean.nbytes < kept.nbytes / 5  # segment starts only
    assert lean.paths == kept.paths
    np.testing.assert_array_equal(lean.uses(), kept.uses())
    np.testing.assert_array_equal(lean.draw(300, np.random.default_rng(3)), kept.draw(300, np.random.default_rng(3)))
    assert peak_bytes(EIGHT, keep_levels=False) < kept.peak * 0.6  # what rebuilding saves at the peak


def test_states_that_do_not_fit_even_rebuilt_are_split_exactly(compiles: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Splitting, with recomputing segment starts turned off (the engine now recomputes at this budget
    instead of splitting: tests/test_native_recompute.py)."""
    monkeypatch.setattr(layered, "RECOMPUTE", False)
    monkeypatch.setattr(layered, "PACK", False)  # the budget below is a fraction of the peak without packed levels
    whole = NativeEngine().counts(EIGHT)
    # Rebuilt levels taken a slice at a time fit down to about 0.8 of the rebuilt peak: below, it is split
    # (the whole board swept at once: turned, its cases are smaller: tests/test_native_turns.py).
    split = NativeEngine(memory_budget=int(peak_bytes(EIGHT, keep_levels=False) * 0.78), turn=False).counts(EIGHT)
    assert max(compiles) >= 1  # it was split
    assert split.models == whole.models
    np.testing.assert_array_equal(split.cells, whole.cells)
    for a, b in zip(split.placements, whole.placements):
        np.testing.assert_array_equal(a, b)


@pytest.fixture
def forced_split(monkeypatch: pytest.MonkeyPatch, compiles: list[int]) -> list[int]:
    """Engines split every state once, whatever its size, so that splitting can be checked on small boards."""
    counted = NativeEngine.compile_model

    def refuse_whole(self, problem, order, depth, tracked=False, limit=None):
        if depth == 0:
            raise BudgetExceeded("forced split")
        return counted(self, problem, order, depth, tracked, limit)

    monkeypatch.setattr(NativeEngine, "compile_model", refuse_whole)
    return compiles


def test_a_split_state_gives_exact_counts_and_uniform_samples(forced_split: list[int]) -> None:
    state = SAMPLED
    layouts = [layout for layout in all_layouts(state.config) if consistent(layout, state)]
    counts = NativeEngine(turn=False).counts(state)  # turned, each of two cases would be split
    assert forced_split == [1, 1] and counts.models == len(layouts)
    np.testing.assert_allclose(counts.cells / counts.models, brute_marginals(state, layouts)[0], rtol=0, atol=1e-12)
    draws = NativeEngine().sample(state, 12_000, np.random.default_rng(8))
    seen = np.array([draws.count(layout) for layout in layouts])
    assert seen.sum() == len(draws)
    assert scipy_stats.chisquare(seen, np.full(len(layouts), len(draws) / len(layouts))).pvalue > 1e-4


def test_the_empty_board_s_model_is_kept_for_the_next_game_s_draws(compiles: list[int]) -> None:
    """Each game's first draws read it (its marginals come from disk): kept, it is not swept again, and its
    draws are a new model's; not kept when it takes more than a quarter of the budget."""
    empty = GameState.empty(SAMPLED.config)
    kept = NativeEngine()
    first = kept.sample_owners(empty, 50, np.random.default_rng(1))
    kept.sample(SAMPLED, 10, np.random.default_rng(2))  # the next state's model replaces the last one kept
    swept = len(compiles)
    np.testing.assert_array_equal(kept.sample_owners(empty, 50, np.random.default_rng(1)), first)
    assert len(compiles) == swept
    np.testing.assert_array_equal(NativeEngine().sample_owners(empty, 50, np.random.default_rng(1)), first)
    size = kept.memory.board[2].nbytes if kept.memory.board is not None else 0
    tight = NativeEngine(memory_budget=4 * size - 1)
    tight.sample(empty, 1, np.random.default_rng(1))
    tight.sample(SAMPLED, 1, np.random.default_rng(2))
    tight.sample(empty, 1, np.random.default_rng(1))
    assert tight.memory.board is None and len(compiles) == swept + 4


def test_a_tiny_budget_stops_with_one_line() -> None:
    with pytest.raises(BudgetExceeded) as info:
        NativeEngine(memory_budget=1000).marginals(mid_game())
    message = str(info.value)
    assert "\n" not in message and "memory budget of 1 kB" in message and "7x7 5,5,4" in message


def test_progress_is_reported_to_a_listener_and_to_no_one_else() -> None:
    seen: list[tuple[str, float | None]] = []
    with progress.listening(lambda what, done: seen.append((what, done))):
        engine().counts(mid_game())
    fractions = [done for _, done in seen if done is not None]
    assert len(fractions) == len(seen)  # the native engine measures its work: it never reports None
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) == 49
    assert {what for what, _ in seen} == {"7x7 5,5,4"}
    engine().counts(mid_game())  # no listener: nothing to call
    assert len(seen) == 49
