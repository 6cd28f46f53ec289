"""Engine registry. Engines import heavy libraries, so the registry maps names to lazy loaders."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from battlelog.engines.base import Engine, Inconsistent, Marginals, locate_fault
from battlelog.errors import BattlelogError

#: name -> "module:class"; the keys feed the command line's choices.
ENGINES: dict[str, str] = {
    "native": "battlelog.engines.native.engine:NativeEngine",
    "problog": "battlelog.engines.problog_engine:ProblogEngine",
    "sdd": "battlelog.engines.sdd_engine:SddEngine",
}

#: The engine the ``problog`` player uses unless told otherwise.
DEFAULT_ENGINE = "native"


def engine_class(name: str) -> type[Engine]:
    """The class of the engine registered as ``name`` (importing its module, not building anything)."""
    if name not in ENGINES:
        raise BattlelogError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}")
    module, cls = ENGINES[name].split(":")
    found: type[Engine] = getattr(import_module(module), cls)
    return found


def make_engine(name: str, **options: Any) -> Engine:
    """Build the engine registered as ``name``."""
    return engine_class(name)(**options)


__all__ = ["DEFAULT_ENGINE", "ENGINES", "Engine", "Inconsistent", "Marginals", "engine_class", "locate_fault", "make_engine"]
