"""numba for every compiled module of battlelog, with its disk cache safe to fill from several processes.

numba keeps a function's compiled code in an index file and numbered data files beside it. Two processes
that compile the same function for different argument types into an empty cache at the same time can
both pick data file 1: the index then names one signature and the file holds the other's machine code,
and a later process that loads it jumps into the wrong code and crashes (numba issues #4807, #10128: an
experiment's workers, or the test suite's, on a fresh install). Here every read and write of a cache
entry holds an exclusive lock on a file beside the index, so each is whole. Where files cannot be locked
(no ``fcntl``, a read-only cache), numba goes on as it would.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any


def numba_module() -> ModuleType:
    """numba, its cache files locked (:func:`lock_cache_files`)."""
    import numba

    lock_cache_files()
    return numba


def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit`` (the decorator, with or without options), its cache files locked."""
    return numba_module().njit(*args, **options)


@functools.cache
def lock_cache_files() -> None:
    """Make numba's loads and saves of a cache entry hold the entry's lock file (once per process)."""
    from numba.core import caching

    files = caching.IndexDataCacheFile
    files.load = _holding_lock(files.load)  # type: ignore[method-assign]
    files.save = _holding_lock(files.save)  # type: ignore[method-assign]


def _holding_lock(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def locked(self: Any, *args: Any) -> Any:
        with file_lock(Path(self._index_path + ".lock")):
            return method(self, *args)

    return locked


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (created if need be) while inside; none where files cannot be locked."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        yield
        return
    try:
        handle = open(path, "a+b")  # noqa: SIM115 - held open for the lock's lifetime below
    except OSError:  # a cache folder numba only reads: nothing is written to race with
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
