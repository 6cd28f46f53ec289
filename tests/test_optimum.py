"""The exact optimum and exact expectations, against references that share none of their code.

The reference optimum (:func:`brute_optimum`) is Bellman's equation over the complete tree of shot
histories: at every history it tries every unshot cell that some layout left covers and answers each
layout's shot as the rules say, from the layout's own cells. The minimum over all policies of an
expectation over layouts splits, history by history, into exactly this minimum, so it is the
exhaustive minimum over every policy. A cell no layout left covers is a certain miss: it costs a shot
and changes no answer to come (answers depend on ships' cells only), so a policy that skips it does at
least as well and the minimum never needs it; for the same reason the future depends only on the
layouts left and which of their cells are shot, the one thing it is cached on. It has no bounds, no
symmetries, no answer codes.

Instances are as small as show what each test is about (3x4 rather than 4x4 where four symmetries do
as well as eight): the exact walks of some players grow by tens with the board's cells.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from functools import cache
from typing import Any

import pytest

from battlelog.engines.workspace import Workspace
from battlelog.optimum import search
from battlelog.optimum.layouts import LayoutTable
from battlelog.optimum.solver import Settings, Solver
from battlelog.optimum.table import StateTable
from battlelog.players import PLAYERS, make_player
from battlelog.players.evaluate import NotExact, expected_shots
from battlelog.players.pdf import PdfPlayer
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.runner.loop import play_game
from battlelog.runner.seeds import game_seeds, layout_for
from battlelog.stats import mean_ci

from oracle import all_layouts

Cell = tuple[int, int]


def brute_optimum(config: GameConfig) -> Fraction:
    """The smallest expected number of shots over all policies, by exhaustive recursion.

    Cells are bits of plain integers (bit r * C + c on a board of C columns), each ship of each layout one mask.
    """
    n = config.cols
    layouts = [[(sum(1 << (r * n + c) for r, c in p.cells), p.ship) for p in layout] for layout in all_layouts(config)]
    everything = [sum(mask for mask, _ in layout) for layout in layouts]

    def answer(layout: list[tuple[int, int]], shot: int, bit: int) -> str:
        for mask, ship in layout:
            if mask & bit:
                return f"sunk {ship}" if mask & ~shot == bit else "hit"
        return "miss"

    def value(shot: int, alive: frozenset[int]) -> Fraction:
        covered = 0
        for i in alive:
            covered |= everything[i]
        return covered_value(shot & covered, alive, covered)

    @cache
    def covered_value(shot: int, alive: frozenset[int], covered: int) -> Fraction:
        if all(everything[i] & ~shot == 0 for i in alive):
            return Fraction(0)
        best: Fraction | None = None
        for x in range(config.cell_count):
            bit = 1 << x
            if shot & bit or not covered & bit:
                continue
            groups: dict[str, list[int]] = {}
            for i in alive:
                groups.setdefault(answer(layouts[i], shot, bit), []).append(i)
            expected = sum((Fraction(len(g), len(alive)) * value(shot | bit, frozenset(g)) for g in groups.values()), Fraction(0))
            best = expected if best is None else min(best, expected)
        assert best is not None  # some ship cell is unshot, so some covered cell is
        return 1 + best

    return value(0, frozenset(range(len(layouts))))


TINY = [
    GameConfig(3, (2,)),
    GameConfig(4, (2,)),  # about 5 s of exhaustive recursion
    GameConfig(3, (2, 2)),
    GameConfig(3, (2, 1)),
    GameConfig(3, (3,)),
    GameConfig(2, (2, 1), cols=4),  # rectangles: four symmetries, not eight
    GameConfig(3, (2, 2), cols=2),
    GameConfig(3, (3, 2), cols=4),  # the instance tests/test_optimum_saved.py searches
]


@pytest.mark.parametrize("config", TINY, ids=lambda c: c.label())
def test_the_solver_equals_the_exhaustive_minimum_over_all_policies(config: GameConfig) -> None:
    # 3x3 2,2: two ships of one length, so the relabelling symmetry is used as well as the square's.
    assert Solver(config, memory=1 << 22).optimum() == brute_optimum(config)


@cache
def optimum(config: GameConfig) -> Fraction:
    return Solver(config, memory=1 << 24).optimum()


SETTINGS = [
    Settings(symmetries=False),
    Settings(bound=search.BOUND_CELLS),
    Settings(bound=search.BOUND_ONE_STEP),
    Settings(order=search.ORDER_BOARD),
]
#: Each device off on a square (eight symmetries) and a rectangle (four); 4x4 3,2 without symmetries
#: takes 25 s, so the square without them is 4x4 3 (with them, 4x4 3,2 takes 2-4 s a setting).
SWITCHED = [(GameConfig(4, (3,) if not s.symmetries else (3, 2)), s) for s in SETTINGS] + [
    (GameConfig(3, (3, 2), cols=4), s) for s in SETTINGS
]


@pytest.mark.parametrize(("config", "settings"), SWITCHED, ids=lambda v: v.label() if isinstance(v, GameConfig) else str(v))
def test_every_search_device_can_be_switched_off_without_changing_the_optimum(config: GameConfig, settings: Settings) -> None:
    assert Solver(config, memory=1 << 24, settings=settings).optimum() == optimum(config)


def test_a_table_too_small_for_the_states_only_costs_time() -> None:
    # 16,384 slots for the 44,837 states this instance stores: entries are replaced, the answer stays exact.
    config = GameConfig(4, (3, 2))
    large = Solver(config, memory=1 << 24)
    small = Solver(config, memory=StateTable.entry_bytes(1) * (1 << 14))
    assert small.optimum() == large.optimum()
    assert len(small.table) == 1 << 14 and small.stats[search.EVICTED] > 100 * max(1, large.stats[search.EVICTED])
    assert len(large.table) > 1 << 14  # the large one grew instead


def test_the_optimal_player_scores_the_optimum_exactly_over_every_layout() -> None:
    # The optimal player is deterministic, so playing it once on every layout gives its expectation.
    config = GameConfig(4, (3, 2))
    player = make_player("optimal", 0)
    scores = [play_game(config, layout, player).score for layout in all_layouts(config)]
    solver = Solver(config, memory=1 << 24)
    assert Fraction(sum(scores), len(scores)) == solver.optimum()


def test_the_optimal_player_solves_an_instance_once_per_workspace(monkeypatch: pytest.MonkeyPatch) -> None:
    solves: list[int] = []
    solve = Solver.optimum

    def counted(self: Solver, *args: Any, **kwargs: Any) -> Fraction:
        solves.append(1)
        return solve(self, *args, **kwargs)

    monkeypatch.setattr(Solver, "optimum", counted)
    config = GameConfig(3, (2, 1))
    workspace = Workspace()
    for game in range(3):  # as a worker plays them: a new player each game, one workspace
        player = make_player("optimal", game_seeds(0, game)[1])
        player.use(workspace)
        play_game(config, layout_for(config, 0, game), player)
    assert len(solves) == 1
    play_game(config, layout_for(config, 0, 0), make_player("optimal", 0))  # a workspace of its own
    assert len(solves) == 2


@cache
def exact(name: str, config: GameConfig) -> Fraction:
    player = make_player(name, 0)
    try:
        return expected_shots(player, LayoutTable.build(config, 10**6))
    finally:
        player.close()


#: Players with an exact expectation: all but those that sample beyond their ties.
EXACT_PLAYERS = sorted(set(PLAYERS) - {"mc", "thompson"})


BOUNDED = (GameConfig(3, (2, 1)), GameConfig(3, (3,), cols=4))
#: Two ships of one length (relabelled by the solver) run every exact player but hunt-target, whose
#: random hunting fans out: 22 s of exact walk on 3x4 2,2, 147 s and 2 GB on 4x4 2,2
#: (`battlelog optimal --size 4 --ships 2,2 --players hunt-target`); it is bounded on the two
#: instances above, and on 4x4 3,2 by `battlelog optimal`.
TWINS = GameConfig(3, (2, 2), cols=4)


@pytest.mark.parametrize(
    ("config", "name"),
    [(config, name) for config in BOUNDED for name in EXACT_PLAYERS]
    + [pytest.param(TWINS, name, marks=pytest.mark.slow) for name in EXACT_PLAYERS if name != "hunt-target"],
    ids=lambda value: value.label() if isinstance(value, GameConfig) else value,
)
def test_no_player_beats_the_optimum_and_the_optimal_player_reaches_it(config: GameConfig, name: str) -> None:
    if name == "optimal":
        assert exact(name, config) == optimum(config)
    else:
        assert exact(name, config) >= optimum(config)


@pytest.mark.parametrize("config", BOUNDED, ids=lambda c: c.label())
def test_exact_expectations_order_the_baselines_as_their_games_do(config: GameConfig) -> None:
    assert exact("random", config) > exact("hunt-target", config) > exact("problog", config)


@pytest.mark.parametrize(
    "config",
    [GameConfig(3, (2,)), GameConfig(3, (2, 1)), GameConfig(3, (3, 2), cols=4), GameConfig(3, (3, 2, 2), cols=4)],
    ids=lambda c: c.label(),
)
def test_random_is_exactly_the_negative_hypergeometric_mean(config: GameConfig) -> None:
    k, m = config.ship_cells, config.cell_count
    assert exact("random", config) == Fraction(k * (m + 1), k + 1)


@pytest.mark.parametrize("config", [GameConfig(3, (2,)), GameConfig(3, (2, 1))], ids=lambda c: c.label())
def test_the_answer_splitting_walk_gives_random_the_same_exact_mean(config: GameConfig) -> None:
    # The walk every other player takes, forced on the blind player: both walks are checked.
    k, m = config.ship_cells, config.cell_count
    table = LayoutTable.build(config, 10**6)
    assert expected_shots(make_player("random", 0), table, blind=False) == Fraction(k * (m + 1), k + 1)


class FirstOfTies(PdfPlayer):
    """pdf that takes the first of its tied cells: deterministic, so its exact expectation is its mean
    score over every layout. Its choices depend on what pdf's do, so pdf's decision key holds."""

    name = "pdf-first"

    def candidates(self, state: GameState) -> list[Cell]:
        return super().candidates(state)[:1]

    def choose(self, state: GameState) -> Cell:
        return self.candidates(state)[0]


def test_the_walk_of_a_deterministic_player_equals_its_games_on_every_layout() -> None:
    config = GameConfig(4, (3, 2))
    player = FirstOfTies(0)
    scores = [play_game(config, layout, player).score for layout in all_layouts(config)]
    assert expected_shots(player, LayoutTable.build(config, 10**6)) == Fraction(sum(scores), len(scores))


def test_the_walk_averages_over_ties_as_the_games_do() -> None:
    # pdf ties on its first shots; 4,000 games with their own seeds must bracket its exact mean
    # within a 99.9% interval narrower than 0.1 shot either side.
    config = GameConfig(3, (3, 2), cols=4)
    scores = [play_game(config, layout_for(config, 5, i), make_player("pdf", game_seeds(5, i)[1])).score for i in range(4000)]
    interval = mean_ci(scores, confidence=0.999)
    assert interval.contains(float(exact("pdf", config)))
    assert interval.half_width is not None and interval.half_width < 0.1


def test_a_player_that_samples_has_no_exact_expectation() -> None:
    with pytest.raises(NotExact, match="player mc does not choose uniformly"):
        expected_shots(make_player("mc", 0, samples=10), LayoutTable.build(GameConfig(3, (2,)), 100))


def test_the_optimal_command_prints_the_optimum_beside_each_players_exact_expectation(capsys: pytest.CaptureFixture[str]) -> None:
    from battlelog.cli import main

    assert main(["optimal", "--size", "3", "--ships", "2", "--players", "random,problog,lookahead,mc", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    config = GameConfig(3, (2,))
    assert (figures["size"], figures["ships"], figures["layouts"]) == (3, [2], 12)
    assert Fraction(figures["exact"]["optimal"]) == brute_optimum(config)
    assert figures["optimal"] == pytest.approx(float(brute_optimum(config)))
    assert set(figures["players"]) == {"random", "problog", "lookahead"} and "mc" in figures["not_exact"]
    assert Fraction(figures["exact"]["random"]) == Fraction(2 * 10, 3)
    assert all(Fraction(figures["exact"][name]) >= Fraction(figures["exact"]["optimal"]) for name in figures["players"])


def test_the_optimal_command_refuses_an_unknown_player_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from battlelog.cli import main

    assert main(["optimal", "--size", "3", "--ships", "2", "--players", "oracle"]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown player 'oracle'" in err and "\n" not in err


def test_the_optimal_command_solves_alone_by_default_and_reports_the_solvers_memory(capsys: pytest.CaptureFixture[str]) -> None:
    from battlelog.cli import main

    assert main(["optimal", "--size", "3", "--ships", "2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["players"] == {} and figures["walks_seconds"] is None and figures["walks_peak_mb"] is None
    assert 0 < figures["solve_peak_mb"] <= figures["peak_memory_mb"] + 1  # the process peak, floored to MB
    assert main(["optimal", "--size", "3", "--ships", "2", "--players", "pdf"]) == 0
    out = capsys.readouterr().out
    assert "players' exact walks: " in out and re.search(r"solved in .* peak memory \d+ MB\)", out)


def test_the_optimal_player_is_one_row_the_optimum_and_takes_no_walk(capsys: pytest.CaptureFixture[str]) -> None:
    from battlelog.cli import main

    assert main(["optimal", "--size", "3", "--ships", "2", "--players", "optimal,mc[samples=3]"]) == 0
    out = capsys.readouterr().out.splitlines()
    header = next(k for k, line in enumerate(out) if line.split()[:1] == ["player"])  # not "players' exact walks"
    rows = [line.split()[0] for line in out[header + 1 :]]
    assert rows == ["optimal", "mc[samples=3]"]


def test_a_walk_known_to_be_long_is_warned_of_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from battlelog.cli import main
    from battlelog.players import evaluate
    from battlelog.players.parity import ParityPlayer

    assert main(["optimal", "--size", "3", "--ships", "2", "--players", "hunt-target,pdf"]) == 0
    assert "warning" not in capsys.readouterr().err  # 3x3: about a second
    monkeypatch.setattr(evaluate, "LONG_WALK_CELLS", 8)  # as if 3x3 were large; parity's 12 layouts are few
    monkeypatch.setattr(ParityPlayer, "long_walk_layouts", 10)
    assert main(["optimal", "--size", "3", "--ships", "2", "--players", "hunt-target,pdf,parity"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert [w.split("warning: ")[1].split("'")[0] for w in warnings] == ["hunt-target", "parity"]


def test_only_players_that_hunt_at_random_have_long_walks() -> None:
    from battlelog.players.evaluate import long_walk

    small, large = LayoutTable.build(GameConfig(4, (2,)), 100), LayoutTable.build(GameConfig(4, (3, 2, 2)), 10_000)
    assert {name for name in PLAYERS if long_walk(make_player(name, 0), small)} == {"hunt-target"}  # 24 layouts
    assert {name for name in PLAYERS if long_walk(make_player(name, 0), large)} == {"hunt-target", "parity"}  # 3,200
    assert not long_walk(make_player("hunt-target", 0), LayoutTable.build(GameConfig(3, (2,)), 100))
