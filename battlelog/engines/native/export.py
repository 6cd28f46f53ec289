"""The native engine's compiled model, written out as an SDD that pysdd (and the SDD package) reads.

The layered graph is already a deterministic, decomposable diagram over the placement variables;
this writes it in pysdd's own terms. Ships are told apart (each ship its own kind), and the
variables are the named placements in the sweep's order: by first swept cell, then ship, then
orientation. Over a right-linear vtree in that order, the state before cell j becomes the SDD node

    OR over its transitions:  (this cell's placement variables all false, or exactly the chosen one true)
                              AND (the node of the state the transition leads to)

built from the last level back, so every apply only assembles finished children. The result has one
model per layout, so pysdd's global model count is the layout count (a test checks this against
the native count). Materialising costs about 420 bytes per SDD node in pysdd, so this is for
boards up to about 7x7 and late states of larger ones; a larger model is refused in one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from battlelog.engines.budget import readable
from battlelog.engines.native.layered import LayeredModel, sweep
from battlelog.engines.native.tables import SweepTables, sweep_order
from battlelog.engines.pysdd_setup import BYTES_PER_NODE, sdd_manager
from battlelog.errors import BudgetExceeded, Inconsistent
from battlelog.model.ground import ground_problem
from battlelog.rules.geometry import Placement
from battlelog.rules.state import GameState


@dataclass(frozen=True)
class CompiledSdd:
    """What was written: the variables (variable i + 1 is ``variables[i]``), the SDD's size, its layouts (``models``)."""

    variables: tuple[Placement, ...]
    nodes: int
    models: int


def placement_variables(tables: SweepTables) -> tuple[list[Placement], dict[tuple[int, int, int], int]]:
    """The named placements in variable order, and each (kind, orientation, swept start)'s variable."""
    n = tables.problem.cols
    variables: list[Placement] = []
    index: dict[tuple[int, int, int], int] = {}
    for j in range(tables.cell_count):
        for k, kind in enumerate(tables.kinds):
            for orientation in (0, 1):
                if tables.starts[k, orientation, j]:
                    cells = (divmod(int(c), n) for c in tables.covered_cells(k, orientation)[:, j])
                    index[k, orientation, j] = len(variables) + 1
                    variables.append(Placement.from_cells(kind.ships[0], cells))
    return variables, index


def compile_state(state: GameState, sdd_path: Path, vtree_path: Path, budget: int) -> CompiledSdd:
    """Compile ``state`` and write its SDD and vtree; raise BudgetExceeded when pysdd could not hold it."""
    problem = ground_problem(state)
    tables = SweepTables(problem, sweep_order(state), merge_kinds=False)
    layered = sweep(tables, budget)
    if layered.paths == 0:
        raise Inconsistent("no layout of the fleet fits all the answers")
    states = sum(level.states for _, level in layered.levels())
    transitions = sum(len(level.child) for _, level in layered.levels())
    if (states + transitions) * BYTES_PER_NODE > budget:
        raise BudgetExceeded(
            f"the SDD of {problem.label()} would have about {states + transitions:,} nodes "
            f"({readable((states + transitions) * BYTES_PER_NODE)} in pysdd), over the budget of {readable(budget)}"
        )
    variables, index = placement_variables(tables)
    manager = sdd_manager(len(variables))
    root = _materialise(layered, index, manager)
    manager.save(str(sdd_path).encode(), root)
    manager.vtree().save(str(vtree_path).encode())
    return CompiledSdd(tuple(variables), root.size(), layered.paths)


def _materialise(layered: LayeredModel, index: dict[tuple[int, int, int], int], manager: Any) -> Any:
    """The SDD of the layered graph, from the last level back to the first."""
    tables = layered.tables
    below = [manager.true()]
    for j, level in reversed(list(layered.levels())):
        here = [index[k, o, j] for k in range(len(tables.kinds)) for o in (0, 1) if (k, o, j) in index]
        choose = {}
        for v in [0, *here]:  # 0: no placement starts here
            cube = manager.true()
            for w in here:
                cube = manager.conjoin(cube, manager.literal(w if w == v else -w))
            choose[v] = cube
        nodes = []
        for s in range(level.states):
            node = manager.false()
            for t in range(int(level.first[s]), int(level.first[s + 1])):
                kind, orientation = divmod(int(level.action[t]) - 1, 2)
                v = 0 if level.action[t] == 0 else index[kind, orientation, j]
                node = manager.disjoin(node, manager.conjoin(choose[v], below[int(level.child[t])]))
            nodes.append(node)
        below = nodes
    return below[0] if below else manager.false()


def variables_json(variables: tuple[Placement, ...]) -> list[dict[str, object]]:
    """The variable map as JSON: variable number, ship, length, canonical cell and orientation."""
    return [
        {"variable": i + 1, "ship": p.ship, "length": p.length, "row": p.row, "col": p.col, "orientation": p.orientation}
        for i, p in enumerate(variables)
    ]


__all__ = ["CompiledSdd", "compile_state", "placement_variables", "variables_json"]
