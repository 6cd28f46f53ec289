"""A belief about how the hider lays out the fleet: a layout's weight is exp(theta . f(layout)).

The names are an interface (the state JSON's ``"prior"``, ``--prior``, tools outside battlelog):

- ``edge``: the number of ship cells on the board's outer ring;
- ``vertical``: the number of vertical ships (of length 2 or more: a ship of length 1 has no direction);
- ``touch``: the number of pairs of side-adjacent cells covered by two different ships.

The weights are normalised over the layouts legal under the rules, so all zero is the uniform prior of
the standard game. Under ``diagonal`` and ``none`` no two ships meet along a side, so ``touch`` is
always 0 there and has no effect. See docs/rules.md ("Priors").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from battlelog.digits import real_number
from battlelog.errors import RulesError
from battlelog.rules.geometry import Placement
from battlelog.wording import NUMBER_LIMIT, clip

FEATURES = ("edge", "vertical", "touch")
#: The largest |theta . f| a layout may reach: beyond it the ratio of two layouts' weights leaves
#: float64 (e**709 is its largest power of e), so a prior that could reach it is refused.
LOG_WEIGHT_LIMIT = 700.0


@dataclass(frozen=True)
class Prior:
    """theta of the prior: one weight per feature (``Prior()`` is uniform). Every weight is finite."""

    edge: float = 0.0
    vertical: float = 0.0
    touch: float = 0.0

    def __post_init__(self) -> None:
        for name in FEATURES:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise RulesError(f"prior weight {name} must be a finite number, got {clip(repr(value))}")
            object.__setattr__(self, name, float(value) + 0.0)  # + 0.0: -0.0 is 0.0, so equal priors hash alike

    @property
    def theta(self) -> tuple[float, float, float]:
        """The weights in the order of :data:`FEATURES`."""
        return (self.edge, self.vertical, self.touch)

    @property
    def is_uniform(self) -> bool:
        """True when every weight is 0: every legal layout equally likely."""
        return not any(self.theta)

    def without_touch(self) -> Prior:
        """This prior with ``touch`` 0: what it means where ships never meet along a side."""
        return Prior(self.edge, self.vertical, 0.0)

    def text(self) -> str:
        """The non-zero weights as ``--prior`` takes them: ``edge=0.8,touch=-1``; empty when uniform."""
        return ",".join(f"{name}={_number(value)}" for name, value in zip(FEATURES, self.theta) if value)

    def to_json(self) -> dict[str, float]:
        """The state JSON's ``"prior"`` object: every feature, so a reader needs no defaults."""
        return dict(zip(FEATURES, self.theta))

    @classmethod
    def from_json(cls, data: Any) -> Prior:
        """The state JSON's ``"prior"`` object (missing keys are 0); anything else is a RulesError."""
        if not isinstance(data, dict):
            raise RulesError(f"prior must be an object such as {{\"edge\": 0.8, \"touch\": -1.0}}, got {clip(repr(data))}")
        for key in data:
            if key not in FEATURES:
                raise RulesError(f"unknown prior feature {clip(repr(key))}; expected only {', '.join(map(repr, FEATURES))}")
        return cls(**{key: data[key] for key in FEATURES if key in data})

    @classmethod
    def parse(cls, text: str) -> Prior:
        """``--prior edge=0.8,touch=-1`` (missing features are 0); a malformed one is a RulesError."""
        weights: dict[str, float] = {}
        for part in str(text).split(","):
            match = re.fullmatch(r"\s*([A-Za-z_]+)\s*=\s*(\S+)\s*", part)
            if match is None:
                raise RulesError(f"prior {clip(text)!r} is not a list of feature=weight such as edge=0.8,touch=-1")
            name, value = match.groups()
            if name not in FEATURES:
                raise RulesError(f"unknown prior feature {clip(repr(name))}; expected only {', '.join(FEATURES)}")
            if name in weights:
                raise RulesError(f"prior {clip(text)!r} gives {name} twice")
            weight = real_number(value)  # ASCII digits only, finite (battlelog.digits)
            if weight is None:
                raise RulesError(f"prior weight {name}={clip(value, NUMBER_LIMIT)} is not a finite number")
            weights[name] = weight
        return cls(**weights)


#: The uniform prior.
UNIFORM = Prior()


def parse_features(text: str) -> tuple[str, ...]:
    """The features named in ``text`` (``edge,vertical`` or ``edge+vertical``; ``all`` for every one), in the
    order of :data:`FEATURES`: which weights a fit may move (the others stay 0). An unknown or missing name
    is a one-line error."""
    names = {part.strip().lower() for part in re.split(r"[,+]", text)}
    if names == {"all"}:
        return FEATURES
    unknown = sorted(names - set(FEATURES))
    if unknown or not names:
        raise RulesError(f"features: {clip(text)!r} is not a list of {', '.join(FEATURES)} (or all)")
    return tuple(name for name in FEATURES if name in names)


def features_text(features: tuple[str, ...]) -> str:
    """``features`` as a player option writes them: ``edge+vertical`` (``all`` for every one)."""
    return "all" if set(features) == set(FEATURES) else "+".join(name for name in FEATURES if name in features)


def layout_features(layout: Iterable[Placement], rows: int, cols: int) -> tuple[int, int, int]:
    """``(edge, vertical, touch)`` of a layout on a ``rows`` x ``cols`` board (see the module's doc)."""
    owner: dict[tuple[int, int], int] = {}
    vertical = 0
    for k, placement in enumerate(layout):
        vertical += placement.length >= 2 and not placement.horizontal
        owner.update((cell, k) for cell in placement.cells)
    edge = sum(r in (0, rows - 1) or c in (0, cols - 1) for r, c in owner)
    touch = sum(owner.get((r + dr, c + dc), k) != k for (r, c), k in owner.items() for dr, dc in ((0, 1), (1, 0)))
    return edge, vertical, touch


def placement_log_weight(prior: Prior, placement: Placement, rows: int, cols: int) -> float:
    """The part of a layout's theta . f that one placement carries alone: ``edge`` x its cells on the
    outer ring + ``vertical`` x [it is vertical] (``touch`` belongs to pairs of ships)."""
    edge, vertical, _ = layout_features((placement,), rows, cols)
    return prior.edge * edge + prior.vertical * vertical + 0.0  # + 0.0: never -0.0


def feature_bounds(rows: int, cols: int, ships: tuple[int, ...]) -> tuple[int, int, int]:
    """Upper bounds of ``(edge, vertical, touch)`` over every layout of ``ships`` on the board: what
    :func:`check_prior` weighs theta against."""
    ring = rows * cols - max(rows - 2, 0) * max(cols - 2, 0)
    side_pairs = rows * (cols - 1) + cols * (rows - 1)
    return min(sum(ships), ring), sum(length >= 2 for length in ships), side_pairs


def check_prior(prior: Prior, rows: int, cols: int, ships: tuple[int, ...]) -> None:
    """Refuse, in one line, a prior whose weights could leave float64 on this board (|theta . f| over
    :data:`LOG_WEIGHT_LIMIT` for some layout)."""
    bounds = feature_bounds(rows, cols, ships)
    reach = sum(abs(t) * b for t, b in zip(prior.theta, bounds))
    if reach > LOG_WEIGHT_LIMIT:
        terms = " + ".join(f"|{name}| x {b}" for name, t, b in zip(FEATURES, prior.theta, bounds) if t)
        raise RulesError(
            f"prior {prior.text()} is too strong for this board: a layout's log-weight could reach "
            f"{terms} = {reach:.4g}, over {LOG_WEIGHT_LIMIT:g} (the weights would overflow)"
        )


def _number(value: float) -> str:
    """A weight as short as it reads back exactly: ``1``, ``-0.5``, ``0.30000000000000004``, ``1e+308``
    (a whole number of more than 16 digits in float notation, not written out digit by digit)."""
    return str(int(value)) if value.is_integer() and abs(value) < 1e16 else repr(value)
