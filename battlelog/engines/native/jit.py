"""The kernel as plain Python or compiled by numba: whichever is cheaper for the work at hand.

Why numba: the sweep is a tight loop over tens of millions of transitions of 64-bit keys (about
25 million for the empty 10x10 board); numpy cannot vectorise its hash merge, and interpreted Python
is a hundred times too slow. numba compiles the same source to machine code and caches it on disk
(``cache=True``), so only the very first process on a machine pays for compiling.

Importing numba and loading its cache costs about half a second, more than a whole 5x5 or 6x6
board takes interpreted. So a process starts interpreted and switches to the compiled kernel for
good the first time a level has more than :data:`COMPILE_ABOVE` states, or once the levels it has
run interpreted add up to :data:`COMPILE_AFTER` states (about as long as loading numba takes): a
single command on a small board never loads numba, and a worker playing game after game soon does.

The compiled kernel (and the count of interpreted states that decides when to load it) is
process-wide on purpose, unlike the engines' caches of data, which a
:class:`~battlelog.engines.workspace.Workspace` owns: it is code, the same for every engine and
every game, and numba keeps its own process-wide registry of compiled functions anyway.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType, SimpleNamespace

import numpy as np

from battlelog.engines.compiled import numba_module
from battlelog.engines.native import kernel, late_kernel, mask_kernel, pack_kernel, weight_kernel

#: A level with more states than this is worth compiling the kernel for.
COMPILE_ABOVE = 2000
#: Interpreted levels adding up to this many states cost about what loading the compiled kernel does
#: (10-20 us per state interpreted, about 0.5 s to load numba: measured on 4x4 to 6x6 games).
COMPILE_AFTER = 50_000

_compiled: SimpleNamespace | None = None
_interpreted_states = 0
_interpreted = SimpleNamespace(
    expand=kernel.expand, merge=kernel.merge, insert=kernel.insert, rehash=kernel.rehash, collect=kernel.collect,
    choose=kernel.choose, pack_codes=pack_kernel.pack_codes, unpack_codes=pack_kernel.unpack_codes,
    forward_codes=pack_kernel.forward_codes, collect_codes=pack_kernel.collect_codes, forward_allowed=mask_kernel.forward_allowed,
)


def kernels(states: int) -> SimpleNamespace:
    """The kernel functions to use for a level of ``states`` states."""
    global _compiled, _interpreted_states  # noqa: PLW0603 - one compiled kernel per process, built on first need
    _interpreted_states += states
    if _compiled is None and (states > COMPILE_ABOVE or _interpreted_states > COMPILE_AFTER):
        numba = _import_numba()
        jit = numba.njit(cache=True, nogil=True)
        _compiled = SimpleNamespace(
            expand=jit(kernel.expand),
            merge=jit(kernel.merge),
            insert=jit(kernel.insert),
            rehash=jit(kernel.rehash),
            collect=jit(kernel.collect),
            choose=jit(kernel.choose),
            pack_codes=jit(pack_kernel.pack_codes),
            unpack_codes=jit(pack_kernel.unpack_codes),
            forward_codes=jit(pack_kernel.forward_codes),
            collect_codes=jit(pack_kernel.collect_codes),
            forward_allowed=jit(mask_kernel.forward_allowed),
        )
    return _compiled if _compiled is not None else _interpreted


_weights_compiled: SimpleNamespace | None = None
_weights_interpreted = SimpleNamespace(
    settle=weight_kernel.settle, forward=weight_kernel.forward, backward=weight_kernel.backward,
    forward_pair=weight_kernel.forward_pair, backward_pair=weight_kernel.backward_pair, choose=weight_kernel.choose,
)


def weight_kernels(states: int) -> SimpleNamespace:
    """The prior's kernel functions (:mod:`battlelog.engines.native.weight_kernel`) for a level of
    ``states`` states: compiled once the counting kernel is (the same rule decides when)."""
    global _weights_compiled  # noqa: PLW0603 - one compiled kernel per process, built on first need
    if kernels(states) is _interpreted:
        return _weights_interpreted
    if _weights_compiled is None:
        jit = _import_numba().njit(cache=True, nogil=True)
        _weights_compiled = SimpleNamespace(**{name: jit(getattr(weight_kernel, name)) for name in vars(_weights_interpreted)})
    return _weights_compiled


_late_compiled: Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None


def late_lister(load: bool = False) -> Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray]] | None:
    """The compiled late-state lister (:mod:`.late_kernel`) once this process has loaded numba (or now, with
    ``load``), else None: interpreted it would be far slower than the numpy listing it replaces."""
    global _late_compiled  # noqa: PLW0603 - one compiled kernel per process, built on first need
    if _late_compiled is None and (_compiled is not None or load):
        _late_compiled = _import_numba().njit(cache=True, nogil=True)(late_kernel.list_layouts)
    return _late_compiled


def _import_numba() -> ModuleType:
    return numba_module()  # its disk cache safe to fill from several processes (compiled.py)


def quiet() -> np.errstate:
    """Interpreted, the hash multiplies 64-bit integers modulo 2**64 on purpose: no overflow warnings."""
    return np.errstate(over="ignore")
