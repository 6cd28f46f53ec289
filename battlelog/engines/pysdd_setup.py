"""The pysdd manager every SDD of battlelog is built in, and what one of its nodes costs.

Both the sdd engine and ``battlelog compile`` (the native model written as an SDD) build diagrams
whose order is already decided by a sweep, so both want the same manager, and both plan their
memory from the same per-node figure before pysdd allocates anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pysdd.sdd import SddManager

#: Resident bytes per SDD node while it is built and counted (pysdd's node, its two elements, the
#: unique table, the WMC arrays), measured with ``experiments/bench_engines.py --measure-bytes``.
BYTES_PER_NODE = 420


def sdd_manager(variables: int) -> SddManager:
    """A manager over a right-linear vtree in variable order 1..n, with automatic minimisation off.

    The vtree must keep the diagram's order: dynamic minimisation would only reshuffle a diagram
    that is already built in its best known order, and it invalidates nodes held from Python.
    pysdd is imported here, when a diagram is built, not when this module is.
    """
    from pysdd.sdd import SddManager, Vtree

    manager = SddManager.from_vtree(Vtree(variables, list(range(1, variables + 1)), "right"))
    manager.auto_gc_and_minimize_off()
    return manager
