"""The sdd engine under the touch rules ``diagonal`` and ``none`` against an independent enumerator.

The reference below is written from the rules, not from the frontier sweep: a layout is one
placement per ship from its domain, no two ships share a cell, no cell of one ship is a forbidden
neighbour of a cell of another (a side neighbour under ``diagonal``; any of the eight neighbours
under ``none``), and every required (hit) cell is covered. It enumerates layouts by backtracking over
the ships, checking those conditions pairwise on cells.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np
import pytest

from battlelog.engines.frontier import DIRECTIONS, sweep_diagram
from battlelog.engines.sdd_engine import Compiled, SddEngine, Tally
from battlelog.engines.workspace import Workspace
from battlelog.model.ground import Problem, ground_problem
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Cell, Placement, ship_placements
from battlelog.rules.state import GameState, Shot
from battlelog.rules.variants import Rules

from engine_cases import arguments_to

RULES = ("allowed", "diagonal", "none")

#: Per rule, the offsets (row, column) at which a cell of another ship is forbidden.
FORBIDDEN: dict[str, frozenset[tuple[int, int]]] = {
    "allowed": frozenset(),
    "diagonal": frozenset({(-1, 0), (1, 0), (0, -1), (0, 1)}),
    "none": frozenset((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)),
}


def compatible(a: Placement, b: Placement, touch: str) -> bool:
    """Two placements of different ships: no shared cell and no forbidden contact between their cells."""
    return all(
        x != y and (y[0] - x[0], y[1] - x[1]) not in FORBIDDEN[touch] for x in a.cells for y in b.cells
    )


@dataclass
class Counts:
    models: int
    cells: np.ndarray
    uses: dict[Placement, int]


def enumerate_layouts(problem: Problem) -> Counts:
    """Every layout of ``problem`` by backtracking over its ships; counts per cell and per placement."""
    size, domains = problem.size, problem.domains
    counts = Counts(0, np.zeros((size, size)), {p: 0 for domain in domains for p in domain})
    chosen: list[Placement] = []

    def extend(ship: int) -> None:
        if ship == len(domains):
            covered = {cell for p in chosen for cell in p.cells}
            if problem.required <= covered:
                counts.models += 1
                for p in chosen:
                    counts.uses[p] += 1
                    for cell in p.cells:
                        counts.cells[cell] += 1
            return
        for p in domains[ship]:
            if all(compatible(q, p, problem.touch) for q in chosen):
                chosen.append(p)
                extend(ship + 1)
                chosen.pop()

    extend(0)
    return counts


def legal(layout: tuple[Placement, ...], touch: str) -> bool:
    return all(compatible(a, b, touch) for a, b in combinations(layout, 2))


def random_problem(rng: np.random.Generator, touch: str) -> Problem:
    """A small problem as a game would leave it: a layout legal under ``touch`` (when rejection finds
    one), random shots answered by it (misses prune the domains, hits are required), and a few more
    placements ruled out at random (as sink evidence does), never the layout's own."""
    layout: tuple[Placement, ...] | None = None
    for _ in range(3):  # a fleet the rule leaves no room for, twice, is kept: its problems count 0
        size = int(rng.integers(3, 7))
        ships = tuple(int(rng.integers(1, min(4, size) + 1)) for _ in range(int(rng.integers(2, 4 if size > 4 else 5))))
        domains = [ship_placements(size, size, i, length) for i, length in enumerate(ships)]
        for _ in range(2000):
            candidate = tuple(domain[int(rng.integers(len(domain)))] for domain in domains)
            if legal(candidate, touch):
                layout = candidate
                break
        if layout is not None:
            break
    covered = {cell for p in layout for cell in p.cells} if layout else set()
    cells = [(r, c) for r in range(size) for c in range(size)]
    shots = [cells[k] for k in rng.permutation(len(cells))[: int(rng.integers(0, size * size // 2 + 1))]]
    misses = {cell for cell in shots if cell not in covered}
    hits = frozenset(cell for cell in shots if cell in covered) if layout else frozenset(shots[:2])
    pruned = tuple(
        tuple(
            p
            for p in domain
            if misses.isdisjoint(p.cells) and ((layout is not None and p == layout[i]) or rng.random() > 0.15)
        )
        for i, domain in enumerate(domains)
    )
    return Problem(size, ships, pruned, hits, touch)


def problems(touch: str, count: int, seed: int) -> list[Problem]:
    """``count`` random problems small enough to enumerate quickly."""
    rng = np.random.default_rng(seed)
    out: list[Problem] = []
    while len(out) < count:
        problem = random_problem(rng, touch)
        if np.prod([len(domain) for domain in problem.domains]) <= 100_000:
            out.append(problem)
    return out


def assert_same(tally: Tally, counts: Counts, problem: Problem) -> None:
    assert tally.models == counts.models
    if counts.models == 0:
        return
    np.testing.assert_allclose(tally.board(problem.size), counts.cells / counts.models, rtol=0, atol=1e-9)
    for p, uses in counts.uses.items():
        assert abs(tally.uses.get(p, 0.0) / tally.models - uses / counts.models) <= 1e-9, p


@pytest.mark.parametrize("touch", RULES)
def test_random_problems_match_enumeration(touch: str) -> None:
    cases = problems(touch, 100, seed={"allowed": 1, "diagonal": 2, "none": 3}[touch])
    counted = 0
    for problem in cases:
        counts = enumerate_layouts(problem)
        assert_same(SddEngine().count(problem), counts, problem)
        counted += counts.models > 0
    assert counted >= 80  # most cases have layouts: the comparison is not only of zeros


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
@pytest.mark.parametrize("touch", ["diagonal", "none"])
def test_every_sweep_direction_counts_the_same_layouts(touch: str, direction: str) -> None:
    for problem in problems(touch, 20, seed=11):
        tally = Compiled.from_diagram(sweep_diagram(problem, direction), problem).tally()
        assert_same(tally, enumerate_layouts(problem), problem)


def test_the_rules_change_the_count() -> None:
    # Two single cells on a 2x2 board: 12 ordered layouts, 4 with the ships on a diagonal, none apart.
    counts = {}
    for touch in RULES:
        domains = tuple(ship_placements(2, 2, i, 1) for i in range(2))
        counts[touch] = SddEngine().count(Problem(2, (1, 1), domains, frozenset(), touch)).models
    assert counts == {"allowed": 12, "diagonal": 4, "none": 0}


def test_a_blocked_hit_that_no_ship_covers_is_not_explained() -> None:
    # 3x3, ships of lengths 2 and 1, ships may meet only at a corner, hits at A1 and A2. Were the
    # single cell at A1 to explain the hit at A2 that its side blocks, layouts with the other ship
    # anywhere would count. The only layouts: the 2-ship on A1-A2 and the 1-ship on one of the four
    # cells that touch neither side of it (B3, C1, C2, C3).
    domains = tuple(ship_placements(3, 3, i, length) for i, length in enumerate((2, 1)))
    problem = Problem(3, (2, 1), domains, frozenset({(0, 0), (0, 1)}), "diagonal")
    counts = enumerate_layouts(problem)
    assert counts.models == 4
    for direction in DIRECTIONS:
        assert_same(Compiled.from_diagram(sweep_diagram(problem, direction), problem).tally(), counts, problem)
    # And when nothing can cover the blocked hit at all, nothing counts.
    singles = tuple(ship_placements(3, 3, i, 1) for i in range(2))
    apart = Problem(3, (1, 1), singles, frozenset({(0, 0), (0, 1)}), "diagonal")
    assert SddEngine().count(apart).models == 0


def state_problem(config: GameConfig, shots: list[tuple[Cell, str]], touch: str) -> Problem:
    state = GameState(config, tuple(Shot(r, c, result) for (r, c), result in shots))
    return replace(ground_problem(state), touch=touch)


def test_conditioning_the_previous_sdd_under_no_contact_equals_compiling_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    config = GameConfig(6, (3, 2, 2))
    # Ships on A1-A3, C1-D1 and F5-F6: apart, not even at a corner.
    moves = [((0, 1), "hit"), ((2, 2), "miss"), ((1, 1), "miss"), ((0, 0), "hit"), ((5, 5), "hit"), ((3, 3), "miss")]
    engine = SddEngine()
    first = state_problem(config, moves[:2], "none")
    assert_same(engine.tally(first), enumerate_layouts(first), first)
    compiled: list[Problem] = arguments_to(SddEngine, "count", monkeypatch)
    for end in range(3, len(moves) + 1):
        problem = state_problem(config, moves[:end], "none")
        tally = engine.tally(problem)
        assert not compiled  # conditioned, not compiled
        fresh = SddEngine().count(problem)
        compiled.clear()
        assert tally.models == fresh.models > 0
        np.testing.assert_allclose(tally.board(6), fresh.board(6), rtol=0, atol=1e-9)
        assert_same(tally, enumerate_layouts(problem), problem)


def test_a_kept_sdd_never_leads_to_another_touch_rule() -> None:
    config = GameConfig(5, (3, 2))
    problem = state_problem(config, [((2, 2), "miss")], "allowed")
    kept = Compiled.from_diagram(sweep_diagram(problem), problem)
    assert kept.leads_to(problem)
    assert not kept.leads_to(replace(problem, touch="none"))
    engine = SddEngine()
    engine.tally(problem)
    apart = replace(problem, touch="none")
    assert engine.tally(apart).models == enumerate_layouts(apart).models  # compiled afresh, not conditioned


def test_the_empty_board_cache_keeps_the_rules_apart() -> None:
    config, apart_config = GameConfig(4, (2, 2)), GameConfig(4, (2, 2), Rules(touch="none"))
    workspace = Workspace()
    standard = SddEngine(workspace=workspace).marginals(GameState.empty(config))
    apart = SddEngine(workspace=workspace).marginals(GameState.empty(apart_config))
    domains = tuple(ship_placements(4, 4, i, 2) for i in range(2))
    assert standard.models == enumerate_layouts(Problem(4, (2, 2), domains, frozenset())).models
    assert apart.models == enumerate_layouts(Problem(4, (2, 2), domains, frozenset(), "none")).models
    assert apart.models < standard.models
    assert set(workspace.sdd_empty_boards) == {config, apart_config}


def test_an_unknown_touch_rule_makes_no_problem() -> None:
    domains = tuple(ship_placements(3, 3, i, 1) for i in range(2))
    with pytest.raises(ValueError, match="unknown touch rule 'sides'"):
        Problem(3, (1, 1), domains, frozenset(), "sides")
