"""The value of the hiding and seeking game on a small board, by a double oracle over exact best responses.

The hider picks a distribution over the layouts, the seeker a mixture of policies; the seeker pays the
shots it fires. The value is the minimax of expected shots. The double oracle keeps a few policies and a
few hider strategies, solves the matrix game between them exactly (:mod:`battlelog.optimum.matrix_game`),
and asks each side's best response to the other's mixture:

- the seeker's best response to the hider's distribution is the optimum under it as a prior
  (:class:`~battlelog.optimum.prior_solver.WeightedSolver`, exact);
- the hider's best response to the seeker's mixture is the layout it finds latest on average.

When neither beats the restricted game's value, that value is the game's, and both mixtures prove it.

**Symmetry.** The game is unchanged by the board's symmetries and the relabellings of equal ships, so it
has a hider strategy that is uniform on each orbit of layouts and a seeker strategy that plays each policy
and all its images alike (average any optimal strategy over the group). The hider's pure strategies here are
therefore orbits (uniform over the orbit's layouts), and a policy against an orbit pays its mean over the
orbit; the best response of the seeker is solved under a prior the whole group keeps (so the weighted search
uses every symmetry), and the certificate's seeker plays each policy's images with equal shares.

**Ties.** Among the policies optimal against the hider's distribution, the search picks one that is also
best against the uniform hider (each layout's weight is M x its probability scaled to integers, plus 1, with
M above any policy's total under the uniform weights): every layout keeps a positive weight, so the policy
is complete, and the policies added are good beyond the hider's current support, which steadies the loop.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from battlelog.optimum.group import Symmetries
from battlelog.optimum.layouts import LayoutTable, solvable_layouts
from battlelog.optimum.matrix_game import solve_matrix_game
from battlelog.optimum.policy import Tree, policy_tree, shots_table
from battlelog.optimum.prior_solver import WeightedSolver, layout_images
from battlelog.optimum.weighted import TOTAL_LIMIT
from battlelog.optimum.weights import layout_json
from battlelog.rules.config import GameConfig


@dataclass
class GameValue:
    """The value of one instance and the strategies that prove it."""

    config: GameConfig
    layouts: LayoutTable
    value: Fraction
    uniform_optimum: Fraction
    #: The hider's distribution: (layout index, probability), every layout of positive probability.
    hider: list[tuple[int, Fraction]]
    #: The seeker's mixture: (probability, complete policy tree), the images of each policy merged.
    seeker: list[tuple[Fraction, Tree]]
    iterations: int
    #: True when the seeker's last best response was exact, so the hider's distribution is proven to hold the
    #: seeker to the value; False when it was found under rounded weights (:meth:`DoubleOracle.seeker_weights`):
    #: then the seeker's mixture still proves the value an upper bound, and no policy found beats the hider.
    proven: bool
    #: Seconds in each part of the loop: the seeker's best responses, the hider's, the matrix games.
    seconds: dict[str, float] = field(default_factory=dict)
    #: The value of the restricted game after each iteration, and each iteration's best-response bounds.
    trace: list[dict[str, str]] = field(default_factory=list)

    def certificate(self) -> dict[str, Any]:
        """The JSON certificate of docs/duel.md: checkable without battlelog."""
        config = self.config
        touch = {} if config.rules.touch == "allowed" else {"touch": config.rules.touch}
        sinks = {} if config.rules.sinks == "named" else {"sinks": config.rules.sinks}
        return {
            **config.board_json(),
            "ships": list(config.ships),
            **touch,
            **sinks,
            "value": str(self.value),
            **({} if self.proven else {"hider_proven": False}),
            "uniform_optimum": str(self.uniform_optimum),
            "hider": [{"layout": layout_json(config, self.layouts.placement[lay]), "p": str(p)} for lay, p in self.hider],
            "seeker": [{"p": str(p), "tree": tree} for p, tree in self.seeker],
        }


def orbits(images: np.ndarray) -> list[np.ndarray]:
    """The orbits of the layouts under the group whose images are ``images[g, lay]``, each sorted, in the order
    of their smallest layout."""
    seen = np.zeros(images.shape[1], dtype=bool)
    out = []
    for lay in range(images.shape[1]):
        if not seen[lay]:
            orbit = np.unique(images[:, lay])
            seen[orbit] = True
            out.append(orbit)
    return out


def tree_image(tree: Tree, symmetries: Symmetries, g: int, cols: int) -> Tree:
    """The policy ``tree`` seen through element ``g``: every shot moved by its cells' map, every "sunk i"
    renamed by its ships' map (it fires on g(L) what ``tree`` fires on L, as many shots)."""
    if tree is None:
        return None
    r, c = tree["shot"]
    moved: dict[str, Any] = {"shot": list(symmetries.cell(g, (r, c), cols))}
    for branch, child in tree.items():
        if branch in ("miss", "hit"):
            moved[branch] = tree_image(child, symmetries, g, cols)
        elif branch == "sunk":
            if isinstance(child, dict) and "shot" not in child and all(k.isdigit() for k in child):  # named: ship -> tree
                moved[branch] = {
                    str(int(symmetries.ships[g, int(i)])): tree_image(t, symmetries, g, cols) for i, t in child.items()
                }
            else:
                moved[branch] = tree_image(child, symmetries, g, cols)
    return moved


class DoubleOracle:
    """The double-oracle loop on one instance (see the module)."""

    def __init__(self, config: GameConfig, memory: int = 1 << 30) -> None:
        self.config, self.memory = config, memory
        self.layouts = solvable_layouts(config)
        self.symmetries = Symmetries.of(config)
        self.orbits = orbits(layout_images(self.layouts, self.symmetries))
        self.orbit_of = np.empty(len(self.layouts), dtype=np.int64)
        for k, orbit in enumerate(self.orbits):
            self.orbit_of[orbit] = k
        #: Any policy's total over the layouts under uniform weights is below this.
        self.tie_scale = len(self.layouts) * config.cell_count + 1
        self.trees: list[Tree] = []
        self.payoffs: list[list[Fraction]] = []  # payoffs[t][o]: tree t's mean shots over orbit o
        self.seconds = {"seeker": 0.0, "hider": 0.0, "matrix": 0.0}

    def add_tree(self, tree: Tree) -> None:
        shots = shots_table([tree], self.layouts)[0]
        self.trees.append(tree)
        self.payoffs.append([Fraction(int(shots[orbit].sum()), len(orbit)) for orbit in self.orbits])

    def seeker_weights(self, hider: dict[int, Fraction]) -> tuple[np.ndarray, bool]:
        """Integer layout weights for the seeker's best response to ``hider``, and whether that response is
        exact. Best: each layout's probability over one common denominator, times :attr:`tie_scale`, plus 1
        (ties go to the uniform hider's best; see the module). When that passes int64, the probabilities alone
        (exact, no tie rule); when even those do, the probabilities rounded to the finest integers int64 allows
        (a good policy, but not proven best: the loop may then stop short of proving the value)."""
        per_layout = {o: p / len(self.orbits[o]) for o, p in hider.items() if p > 0}
        scale = math.lcm(*(q.denominator for q in per_layout.values()))
        room = TOTAL_LIMIT // (self.config.ship_cells * self.config.cell_count)
        exact = np.zeros(len(self.layouts), dtype=object)
        for o, q in per_layout.items():
            exact[self.orbits[o]] = int(q * scale)
        if scale * self.tie_scale + len(self.layouts) < room:
            return (exact * self.tie_scale + 1).astype(np.int64), True
        if scale < room:
            return exact.astype(np.int64), True
        fine = room // (2 * self.tie_scale)
        rounded = np.array([int(Fraction(int(w) * fine, scale)) for w in exact], dtype=np.int64)
        return rounded * self.tie_scale + 1, False

    def seeker_best(self, hider: dict[int, Fraction]) -> tuple[Tree, Fraction, bool]:
        """A best policy against the orbit distribution ``hider``, its exact expected shots against it, and
        whether it is proven best (:meth:`seeker_weights`)."""
        start = time.perf_counter()
        weights, exact = self.seeker_weights(hider)
        solver = WeightedSolver(self.layouts, weights, self.memory, self.symmetries)
        solver.total(np.arange(len(self.layouts), dtype=np.int32), 0)
        tree = policy_tree(solver)
        self.seconds["seeker"] += time.perf_counter() - start
        shots = shots_table([tree], self.layouts)[0]
        value = sum((Fraction(int(shots[self.orbits[o]].sum()), len(self.orbits[o])) * p for o, p in hider.items()), Fraction(0))
        return tree, value, exact

    def hider_means(self, seeker: list[Fraction]) -> list[Fraction]:
        """Each orbit's mean shots against the seeker's mixture (over :attr:`trees`)."""
        start = time.perf_counter()
        means = [sum((q * self.payoffs[t][o] for t, q in enumerate(seeker) if q), Fraction(0)) for o in range(len(self.orbits))]
        self.seconds["hider"] += time.perf_counter() - start
        return means

    def solve(
        self, progress: Callable[[str], None] | None = None, max_iterations: int = 1000, columns_added: int = 4
    ) -> GameValue:
        """Run the loop to the value (or raise after ``max_iterations``); each iteration adds the seeker's best
        response and up to ``columns_added`` orbits that beat the restricted value, the best first."""
        first, uniform, _ = self.seeker_best({o: Fraction(len(orbit), len(self.layouts)) for o, orbit in enumerate(self.orbits)})
        self.add_tree(first)
        means = self.hider_means([Fraction(1)])
        columns = [max(range(len(means)), key=lambda o: means[o])]
        trace: list[dict[str, str]] = []
        for iteration in range(1, max_iterations + 1):
            start = time.perf_counter()
            game = solve_matrix_game([[row[o] for o in columns] for row in self.payoffs])
            self.seconds["matrix"] += time.perf_counter() - start
            hider = {o: p for o, p in zip(columns, game.columns) if p}
            tree, low, proven = self.seeker_best(hider)
            means = self.hider_means(list(game.rows))
            high = max(means)
            trace.append(
                {
                    "value": str(game.value),
                    "seeker_best": str(low),
                    "hider_best": str(high),
                    "seconds": f"{sum(self.seconds.values()):.1f}",
                }
            )
            if progress is not None:
                progress(f"iteration {iteration}: {len(self.trees)} policies, {len(columns)} hider orbits; restricted value "
                         f"{float(game.value):.6f}, bounds [{float(low):.6f}, {float(high):.6f}]; "
                         f"{sum(self.seconds.values()):.0f} s")  # fmt: skip
            gaining = sorted(
                (o for o in range(len(means)) if means[o] > game.value and o not in columns), key=lambda o: -means[o]
            )
            columns += gaining[:columns_added]
            if low < game.value:
                self.add_tree(tree)
            elif not gaining:  # low >= value >= high, and low <= value <= high always: all three equal
                return self._result(game.value, uniform, hider, list(game.rows), iteration, trace, proven)
        raise RuntimeError(f"no equilibrium after {max_iterations} iterations")

    def _result(self, value: Fraction, uniform: Fraction, hider: dict[int, Fraction], seeker: list[Fraction], iterations: int,
                trace: list[dict[str, str]], proven: bool) -> GameValue:  # fmt: skip
        """The strategies over layouts and complete trees: each orbit's share spread evenly over its layouts, each
        policy's over its images (identical trees merged)."""
        layouts = sorted((int(lay), p / len(self.orbits[o])) for o, p in hider.items() for lay in self.orbits[o])
        mixture: dict[str, tuple[Fraction, Tree]] = {}
        group = len(self.symmetries)
        for q, tree in zip(seeker, self.trees):
            if not q:
                continue
            for g in range(group):
                image = tree_image(tree, self.symmetries, g, self.config.cols)
                key = repr(image)
                before = mixture.get(key, (Fraction(0), image))[0]
                mixture[key] = (before + q / group, image)
        return GameValue(
            self.config,
            self.layouts,
            value,
            uniform,
            layouts,
            list(mixture.values()),
            iterations,
            proven,
            dict(self.seconds),
            trace,
        )


def game_value(config: GameConfig, progress: Callable[[str], None] | None = None, memory: int = 1 << 30) -> GameValue:
    """The value of ``config``'s hiding and seeking game with the strategies that prove it."""
    return DoubleOracle(config, memory).solve(progress)


__all__ = ["DoubleOracle", "GameValue", "game_value", "orbits", "tree_image"]
