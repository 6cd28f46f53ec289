"""The ``sdd`` engine: the ground model compiled to an SDD with pysdd, all marginals from one pass.

How (and why it is fast where ProbLog's pipeline is not):

1. ``model.ground`` applies every piece of evidence that only rules placements out (misses, sinks,
   not-sunk); what is left is a :class:`~battlelog.model.ground.Problem`.
2. The frontier sweep (battlelog.engines.frontier) turns it into a reduced ordered decision diagram
   over the surviving placements, with numpy, sweeping the board row by row in whichever of four
   directions gives the smallest diagram. Under the touch rules ``diagonal`` and ``none`` its states
   also remember the cells next to placed ships that later placements may not cover.
3. That diagram is materialised node by node in pysdd over a right-linear vtree in the same order
   (an SDD on a right-linear vtree is exactly an ordered decision diagram), so no apply ever sees an
   intermediate result larger than the answer.
4. One weighted model count with unit weights and derivatives (``WmcManager.propagate``) gives the
   number of layouts and, as the derivative of every positive literal, the number of layouts using
   each placement; a cell's marginal is the sum over the placements covering it (ships never overlap).
   Under a prior (docs/rules.md, "Priors") the placements carry their weights, a touch weight adds
   auxiliary variables, and a second count in log mode weighs the layouts (battlelog.engines.sdd_build).

Reuse across moves, measured (experiments/bench_engines.py, "reuse" table): within a game every
state only adds evidence to the one before, so the engine keeps the last SDD and conditions it
(placements newly ruled out are quantified away, each new hit adds one clause). Over whole games
that costs about as much as compiling anew on the large early states and several times less on
the later ones. A cached prior conditioned per move does not scale: on 8x8 with 5,4,3,3,2 the prior
has 16 million nodes, several GB. The empty board's answer, the same in every game of a
configuration, is kept in the engine's workspace (battlelog.engines.workspace).

Memory budget (battlelog.engines.budget): pysdd has no allocation hook, but the sweep knows the node
count before pysdd allocates anything. A problem whose diagram would not fit is split exactly on one open cell (the
layouts that leave it empty and those that cover it: disjoint, together complete) and each half is
compiled, counted and freed in turn; counts add up. When even splitting does not fit, the engine
raises :class:`~battlelog.errors.BudgetExceeded` with a one-line message.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field

import numpy as np
from pysdd.sdd import SddManager, SddNode

from battlelog.engines import budget
from battlelog.engines.base import Engine, Marginals, check_tally_support
from battlelog.engines.budget import readable
from battlelog.engines.frontier import Diagram, check_fleet_size, smallest_diagram
from battlelog.engines.pysdd_setup import BYTES_PER_NODE, sdd_manager
from battlelog.engines.sdd_build import materialise, materialise_weighted, sdd_nodes, weighted_pass
from battlelog.engines.workspace import Workspace
from battlelog.errors import BudgetExceeded, Inconsistent
from battlelog.model.ground import Problem, ground_problem
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.prior import UNIFORM, Prior
from battlelog.rules.state import GameState

#: Bytes per frontier state the sweep keeps (two int32 children) plus its widest level's work arrays.
BYTES_PER_STATE = 32


@dataclass
class Tally:
    """Layout counts of a problem: in total (``models``), and the weight of the layouts, in total
    (``weight``) and per placement (``uses``: those that use it), both times exp(-``scale``). Under the
    uniform prior every layout weighs 1: ``weight`` is ``models`` and ``uses`` count layouts."""

    models: float = 0.0
    uses: dict[Placement, float] = field(default_factory=dict)
    weight: float = 0.0
    scale: float = 0.0

    def add(self, other: Tally) -> None:
        self.models += other.models
        if not other.weight:
            return
        scale = max(self.scale, other.scale) if self.weight else other.scale  # the larger: nothing overflows
        mine, theirs = math.exp(self.scale - scale), math.exp(other.scale - scale)
        if mine != 1.0:
            self.uses = {p: weight * mine for p, weight in self.uses.items()}
        self.weight = self.weight * mine + other.weight * theirs
        for p, weight in other.uses.items():
            self.uses[p] = self.uses.get(p, 0.0) + weight * theirs
        self.scale = scale

    def placements(self, config: GameConfig) -> tuple[np.ndarray, ...]:
        """Per ship, the probability of each of its canonical placements (config.placements order)."""
        return tuple(
            np.array([self.uses.get(p, 0.0) for p in config.placements(ship)]) / self.weight
            for ship in range(len(config.ships))
        )

    def board(self, rows: int, cols: int | None = None) -> np.ndarray:
        """Occupancy marginals: each placement's share of the layouts' weight, added over the cells it covers."""
        cells = np.zeros((rows, rows if cols is None else cols))
        for p, count in self.uses.items():
            for cell in p.cells:
                cells[cell] += count
        return cells / self.weight


class SddEngine(Engine):
    """Exact marginals by frontier compilation into an SDD and one weighted model count per state.

    Keeps the last state's SDD (when it was compiled as one diagram, without splitting) and, when
    the next state only adds evidence to it, as within a game, conditions it instead of compiling.
    Empty boards are kept in the ``workspace`` (None: a workspace of its own); without a
    ``memory_budget`` of its own it uses the one in force at each call.
    """

    name = "sdd"
    counts_models = True
    gives_placements = True
    weighs_priors = True

    def __init__(self, memory_budget: int | None = None, workspace: Workspace | None = None) -> None:
        self._budget = None if memory_budget is None else int(memory_budget)
        self.workspace = Workspace() if workspace is None else workspace
        self._kept: Compiled | None = None

    @property
    def memory_budget(self) -> int:
        """The bytes one call may use: the engine's own budget, else the budget in force now."""
        return budget.memory_budget(self._budget)

    @classmethod
    def check_board(cls, config: GameConfig) -> None:
        """The sweep keeps the set of placed ships in one 64-bit word."""
        check_fleet_size(len(config.ships))

    def marginals(self, state: GameState) -> Marginals:
        """Occupancy marginals of ``state`` and its number of layouts (exact below 2**53); a state with tallies is
        refused in one line (the frontier sweep has no line counts)."""
        check_tally_support(self, state)
        empty_boards = self.workspace.sdd_empty_boards
        key = state.config.posterior  # what the posterior depends on: the rules but their salvo
        if not state.shots and key in empty_boards:
            cached = empty_boards[key]
            return Marginals(cached.cells.copy(), cached.models, cached.placements)
        tally = self.tally(ground_problem(state), state.config.effective_prior)
        if tally.models == 0:
            self._kept = None  # a contradiction is no base for the next move
            raise Inconsistent("no layout of the fleet fits all the answers")
        result = Marginals(tally.board(state.rows, state.cols), round(tally.models), tally.placements(state.config))
        if not state.shots:
            empty_boards[key] = Marginals(result.cells.copy(), result.models, result.placements)
        return result

    def tally(self, problem: Problem, prior: Prior = UNIFORM) -> Tally:
        """Condition the kept SDD when it leads to ``problem`` and there is room, else compile afresh.

        Measured over whole games (experiments/bench_engines.py), conditioning the previous move's
        SDD costs about the same as compiling anew on the early, large states and several times less
        on the later ones; conditioning may need as much memory again as the kept SDD.
        """
        kept, self._kept = self._kept, None
        if kept is None or not kept.leads_to(problem, prior) or 2 * kept.nodes * BYTES_PER_NODE > self.memory_budget:
            del kept  # free it before compiling
            return self.count(problem, prior)
        self._kept = kept.conditioned(problem)
        del kept  # the previous state's nodes are now dead, except those the new SDD shares
        self._kept.collect_garbage()
        return self._kept.tally()

    def diagram(self, problem: Problem, prior: Prior = UNIFORM) -> Diagram:
        """The smallest sweep of ``problem`` (labelled under a touch weight), or BudgetExceeded when its
        SDD would not fit the budget."""
        diagram = smallest_diagram(problem, max_states=self.memory_budget // BYTES_PER_STATE, weigh_touch=bool(prior.touch))
        nodes = sdd_nodes(diagram)
        if nodes * BYTES_PER_NODE > self.memory_budget:
            raise BudgetExceeded(
                f"the SDD of {problem.label()} would have {nodes:,} nodes (about {readable(nodes * BYTES_PER_NODE)})"
            )
        return diagram

    def count(self, problem: Problem, prior: Prior = UNIFORM) -> Tally:
        """Count and weigh ``problem``'s layouts, splitting it on a cell while its diagram exceeds the budget.

        The SDD of an unsplit problem is kept for the next state.
        """
        tally = Tally()
        for part in budget.split_until_it_fits(
            problem, lambda part, depth: self._count_case(part, depth, prior), self.name, self.memory_budget
        ):
            tally.add(part)
        return tally

    def _count_case(self, problem: Problem, depth: int, prior: Prior = UNIFORM) -> Tally:
        compiled = Compiled.from_diagram(self.diagram(problem, prior), problem, prior)
        if depth == 0:
            self._kept = compiled
        return compiled.tally()

    def close(self) -> None:
        self._kept = None


class Compiled:
    """One problem's SDD in its own manager, with what it encodes, so that it can be conditioned.

    Evidence only ever adds constraints: a later state of the same game allows fewer placements and
    requires more hit cells. Its SDD is the kept one with the newly excluded placements forced false
    and quantified away (which removes them, as a fresh compilation would; they keep weight 0 in the
    count), then conjoined with one clause per new hit cell. On an ordered diagram neither step
    yields more than twice the nodes it starts from. Under a prior other than the uniform one,
    ``weights`` are its literals' log-weights and their weights in an unweighted count
    (battlelog.engines.sdd_build), the same in every state.
    """

    def __init__(
        self, manager: SddManager, root: SddNode, var: dict[Placement, int], problem: Problem,
        prior: Prior = UNIFORM, weights: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:  # fmt: skip
        # pysdd references a node while a Python object wraps it: holding ``root`` keeps it alive.
        self.manager, self.root, self.var, self.problem = manager, root, var, problem
        self.prior, self.weights = prior, weights
        self.allowed = frozenset(p for domain in problem.domains for p in domain)
        self.nodes = root.count()

    @classmethod
    def from_diagram(cls, diagram: Diagram, problem: Problem, prior: Prior = UNIFORM) -> Compiled:
        if not prior.is_uniform:
            manager, root, var, log_weights, unit_weights = materialise_weighted(diagram, prior, problem.rows, problem.cols)
            return cls(manager, root, var, problem, prior, (log_weights, unit_weights))
        manager = sdd_manager(max(1, len(diagram.placements)))
        root = materialise(diagram, manager)
        return cls(manager, root, {p: i + 1 for i, p in enumerate(diagram.placements)}, problem)

    def leads_to(self, problem: Problem, prior: Prior = UNIFORM) -> bool:
        """Whether ``problem`` is this one with more evidence (same board, touch rule and prior, more
        hits, fewer placements). Conditioning only excludes placements and requires cells, which is
        right under any touch rule as long as the kept SDD was built under the same one."""
        mine = self.problem
        return (
            self.prior == prior
            and (mine.rows, mine.cols, mine.ships, mine.touch) == (problem.rows, problem.cols, problem.ships, problem.touch)
            and mine.required <= problem.required
            and all(p in self.allowed for domain in problem.domains for p in domain)
        )

    def conditioned(self, problem: Problem) -> Compiled:
        """This SDD with ``problem``'s extra evidence, in the same manager."""
        manager, var = self.manager, self.var
        node = self.root
        allowed = {p for domain in problem.domains for p in domain}
        dropped = sorted((var[p] for p in self.allowed - allowed), reverse=True)
        if dropped:
            cube = manager.true()
            for v in dropped:
                cube = manager.conjoin(cube, manager.literal(-v))
            gone = array("i", [0] * (manager.var_count() + 1))
            for v in dropped:
                gone[v] = 1
            node = manager.exists_multiple_static(gone, manager.conjoin(node, cube))
        for cell in sorted(problem.required - self.problem.required):
            clause = manager.false()
            for p in allowed:
                if cell in p.cells:
                    clause = manager.disjoin(clause, manager.literal(var[p]))
            node = manager.conjoin(node, clause)
        return Compiled(manager, node, var, problem, self.prior, self.weights)

    def collect_garbage(self) -> None:
        """Free the manager's dead nodes once they outnumber the live ones (amortised linear time)."""
        if self.manager.dead_count() > self.manager.live_count():
            self.manager.garbage_collect()

    def tally(self) -> Tally:
        """One weighted model count: the layouts, and (as derivatives) the layouts using each placement.

        Unit weights, except that a placement no longer allowed weighs 0 (quantified away, it is a free
        variable of the manager). With unit weights, d(count)/d(weight of x) counts the models with x true.
        Under a prior, a second count in log mode weighs them.
        """
        if self.root.is_false():
            return Tally()
        wmc = self.root.wmc(log_mode=False)
        weights = np.ones(2 * self.manager.var_count()) if self.weights is None else self.weights[1].copy()
        for p, v in self.var.items():
            if p not in self.allowed:
                weights[self.manager.var_count() + v - 1] = 0.0
        wmc.set_literal_weights_from_array(weights)
        models = wmc.propagate()
        if self.weights is not None:
            del wmc
            log_total, shares = weighted_pass(self.root, self.weights[0], self.var, self.allowed)
            return Tally(models, shares, 1.0, log_total)
        uses = {p: wmc.literal_derivative(self.var[p]) for p in self.allowed}
        return Tally(models, uses, models)
