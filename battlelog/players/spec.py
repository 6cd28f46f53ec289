"""Player specs: ``NAME`` or ``NAME[key=value,...]``, one configuration of a player, in one canonical text.

A configuration is a player and the options it is built with; the same player with other options is
another configuration, recorded and summarised as a player of its own. Its canonical text (its
``label``) lists the options that differ from the constructor's defaults, sorted by key, so
``problog`` and ``problog[engine=native]`` are one configuration. Values are parsed by the type of
the constructor parameter's default (or its annotation): int, float, str or bool.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from battlelog.digits import real_number, whole_number
from battlelog.errors import BattlelogError
from battlelog.wording import NUMBER_LIMIT, clip

if TYPE_CHECKING:
    from battlelog.players.base import Player

#: The option that names an inference engine, which ``--engine`` sets for every player that takes it.
ENGINE = "engine"

#: Option types a spec can give, by the names annotations spell them with.
_TYPES: dict[str, type] = {"bool": bool, "int": int, "float": float, "str": str}

_SPEC = re.compile(r"([^\[\],=\s]+)(?:\[([^\[\]]*)\])?")


@dataclass(frozen=True)
class PlayerSpec:
    """A player (registered name or ``module:Class``) and the options that differ from its defaults."""

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The canonical text: ``mc[samples=200]``; ``problog`` when every option is the default."""
        if not self.options:
            return self.name
        return f"{self.name}[{','.join(f'{key}={_text(value)}' for key, value in self.options.items())}]"


def spec_name(label: str) -> str:
    """The player name of a spec text, without its options: ``mc`` of ``mc[samples=200]``."""
    return label.partition("[")[0]


def player_spec(text: str, **options: Any) -> PlayerSpec:
    """The canonical configuration of ``text`` (``NAME`` or ``NAME[key=value,...]``) with ``options`` added.

    An option the player does not take, a value not of its type, or an option given both in ``text``
    and in ``options`` with different values is a one-line error.
    """
    name, parameters, given = _given(text)
    canonical = player_class_of(name).canonical_option
    given = {key: canonical(key, value) for key, value in given.items()}
    for key, value in options.items():
        value = canonical(key, _checked(name, key, value, parameters))
        if key in given and given[key] != value:
            raise BattlelogError(f"player {name}: option {key} is given twice ({_text(given[key])} and {_text(value)})")
        given[key] = value
    return PlayerSpec(name, {key: given[key] for key in sorted(given) if parameters[key].default != given[key]})


def parse_players(text: str, engine: str | None = None) -> list[PlayerSpec]:
    """The configurations of a comma-separated list of specs (commas inside brackets separate options).

    ``engine`` (``--engine``) is the engine of every player that takes one and whose spec does not
    set one; given while no player takes one, it would change nothing: a one-line error. Two specs of
    the same configuration are a one-line error too, and so is a text that names no player (``""``).
    """
    specs: dict[str, PlayerSpec] = {}
    takes_engine = False
    parts = _split(text)
    if not parts:  # an empty --player must not mean the default player
        from battlelog.players import PLAYERS

        raise BattlelogError(f"no players given in {clip(repr(text))}; choose from {', '.join(PLAYERS)} (or module:Class)")
    for part in parts:
        name, parameters, given = _given(part)
        takes_engine |= ENGINE in parameters
        spec = player_spec(name, **given, **({ENGINE: engine} if engine and ENGINE in parameters and ENGINE not in given else {}))
        if spec.label in specs:
            raise BattlelogError(f"player {part.strip()!r} is named twice (both are {spec.label})")
        specs[spec.label] = spec
    if engine is not None and not takes_engine:
        raise BattlelogError(f"--engine {engine}: no player here takes an engine ({', '.join(specs)})")
    return list(specs.values())


def _given(text: str) -> tuple[str, dict[str, inspect.Parameter], dict[str, Any]]:
    """The player name of a spec text, its constructor's options, and the options the text gives."""
    match = _SPEC.fullmatch(text.strip())
    if match is None:
        raise BattlelogError(f"player spec {text.strip()!r} is not NAME or NAME[key=value,...]")
    name, inside = match[1], match[2]
    parameters = _parameters(name)
    return name, parameters, dict(_parse_options(name, inside, parameters)) if inside is not None else {}


def _split(text: str) -> list[str]:
    """``text`` split at the commas outside brackets; unbalanced brackets are a one-line error."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth not in (0, 1):
            raise BattlelogError(f"players {clip(repr(text))}: unbalanced brackets")
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise BattlelogError(f"players {clip(repr(text))}: unbalanced brackets")
    parts.append(text[start:])
    return [part for part in parts if part.strip()]


def player_class_of(name: str) -> type[Player]:
    """The player class ``name`` names (the registry, imported late: it imports this module)."""
    from battlelog.players import player_class

    return player_class(name)


def _parameters(name: str) -> dict[str, inspect.Parameter]:
    """The options player ``name`` takes: its constructor's parameters but ``self`` and ``seed``."""
    parameters = inspect.signature(player_class_of(name).__init__).parameters
    return {key: p for key, p in parameters.items() if key not in ("self", "seed") and p.kind is not p.VAR_KEYWORD
            and p.kind is not p.VAR_POSITIONAL}  # fmt: skip


def _parse_options(name: str, inside: str, parameters: Mapping[str, inspect.Parameter]) -> Iterable[tuple[str, Any]]:
    """The ``key=value`` pairs between the brackets, each value of its parameter's type."""
    seen: set[str] = set()
    pairs: list[str] = []
    for pair in inside.split(","):
        # a value may hold commas when it is a list of key=value itself: belief=edge=0.8,touch=-1
        if pairs and pair.partition("=")[0].strip() not in parameters and "=" in pairs[-1].partition("=")[2]:
            pairs[-1] += "," + pair
        else:
            pairs.append(pair)
    for pair in pairs:
        key, equals, value = (part.strip() for part in pair.partition("="))
        if not equals or not key or not value:
            raise BattlelogError(f"player {name}: option {pair.strip()!r} is not key=value")
        if key in seen:
            raise BattlelogError(f"player {name}: option {key} is given twice")
        seen.add(key)
        yield key, _parse_value(name, key, value, parameters)


def _option_type(name: str, key: str, value: object, parameters: Mapping[str, inspect.Parameter]) -> type:
    """The type of option ``key``: its default's, else its annotation's; one of int, float, str, bool."""
    if key not in parameters:
        known = ", ".join(parameters) or "none"
        raise BattlelogError(f"player {name} does not take option {key} (its options: {known})")
    parameter = parameters[key]
    kind = type(parameter.default) if type(parameter.default) in _TYPES.values() else None
    annotation = parameter.annotation
    kind = kind or (
        _TYPES.get(annotation) if isinstance(annotation, str) else annotation if annotation in _TYPES.values() else None
    )
    if kind is None:
        raise BattlelogError(f"player {name}: option {key}={_text(value)} cannot be set here (not an int, float, str or bool)")
    return kind


def _parse_value(name: str, key: str, text: str, parameters: Mapping[str, inspect.Parameter]) -> Any:
    """``text`` as a value of option ``key``'s type; anything else is a one-line error naming all three."""
    kind = _option_type(name, key, text, parameters)
    value: Any = None
    if kind is bool:
        value = {"true": True, "false": False}.get(text.lower())
    elif kind is int:
        value = whole_number(text)  # ASCII digits only (battlelog.digits)
    elif kind is float:
        value = real_number(text)
    elif kind is str:
        value = text
    if value is None:
        raise BattlelogError(f"player {name}: option {key}={clip(text, NUMBER_LIMIT)} is not {_KIND_NAMES[kind]}")
    return value


def _checked(name: str, key: str, value: Any, parameters: Mapping[str, inspect.Parameter]) -> Any:
    """An option given as a value (an API call, a record): of its parameter's type, else a one-line error."""
    kind = _option_type(name, key, value, parameters)
    ok = isinstance(value, kind) and not (isinstance(value, bool) and kind is not bool)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise BattlelogError(f"player {name}: option {key}={_text(value)} is not {_KIND_NAMES[kind]}")
    return value


_KIND_NAMES = {bool: "true or false", int: "a whole number", float: "a finite number", str: "a text"}


def _text(value: Any) -> str:
    """A value as a spec writes it: ``true``/``false`` for booleans, else as Python prints it."""
    return str(value).lower() if isinstance(value, bool) else str(value)


__all__ = ["ENGINE", "PlayerSpec", "parse_players", "player_spec", "spec_name"]
