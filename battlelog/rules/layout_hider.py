"""A hider that is an explicit distribution over layouts: listed layouts with whole weights, drawn exactly,
read from a file of layout weights (JSON lines ``{"layout": LAYOUT, "weight": w}``, the format ``battlelog
optimal --prior FILE`` reads) or from an experiment's records. See docs/duel.md."""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from pathlib import Path
from typing import Any

import numpy as np

from battlelog.errors import FileFormatError, RulesError
from battlelog.jsonfile import read_text
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.layouts import parse_layout, placement_json
from battlelog.wording import clip

#: The most layouts a :class:`LayoutHider` may weigh (each board's draw bisects their cumulative weights).
LAYOUT_HIDER_LIMIT = 1_000_000


@dataclass(frozen=True)
class LayoutHider:
    """A hider that draws layout i with probability ``weights[i] / sum(weights)``: an explicit distribution
    over layouts (those not listed weigh 0). ``weights`` are positive whole numbers with no common factor,
    so equal distributions are equal objects and the draw is exact."""

    name: str
    layouts: tuple[tuple[Placement, ...], ...]
    weights: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.layouts or len(self.layouts) != len(self.weights) or min(self.weights) < 1:
            raise RulesError("a distribution over layouts needs at least one layout, each with a positive whole weight")
        if len(self.layouts) > LAYOUT_HIDER_LIMIT or len(set(self.layouts)) != len(self.layouts):
            raise RulesError(f"a distribution over layouts lists each layout once, at most {LAYOUT_HIDER_LIMIT:,} of them")

    @classmethod
    def of(cls, name: str, weighted: Mapping[tuple[Placement, ...], Fraction | int]) -> LayoutHider:
        """The hider of ``weighted`` (layout: weight, any positive scale; weight 0 left out), its weights
        brought to whole numbers without a common factor, the layouts in a fixed order (sorted)."""
        kept = sorted(((layout, Fraction(w)) for layout, w in weighted.items() if w > 0), key=lambda item: _layout_key(item[0]))
        if not kept:
            raise RulesError(f"{name}: no layout has a positive weight")
        scale = math.lcm(*(w.denominator for _, w in kept))
        whole = [int(w * scale) for _, w in kept]
        common = math.gcd(*whole)
        return cls(name, tuple(layout for layout, _ in kept), tuple(w // common for w in whole))

    @property
    def is_uniform(self) -> bool:
        """Never the uniform prior itself (even when it spreads evenly over every layout): its boards are
        drawn from its own list."""
        return False

    def probabilities(self) -> list[Fraction]:
        """Each listed layout's probability, exactly."""
        total = sum(self.weights)
        return [Fraction(w, total) for w in self.weights]

    def draw(self, rng: np.random.Generator) -> tuple[Placement, ...]:
        """A layout drawn exactly from the distribution: a whole number below the total weight, uniformly
        (numpy's bounded integers are exact), then the layout whose share of the cumulative weights holds it."""
        total = sum(self.weights)
        k = int(rng.integers(total)) if total < 1 << 63 else _big_uniform(rng, total)
        return self.layouts[bisect.bisect_right(list(accumulate(self.weights)), k)]

    def to_json(self) -> dict[str, Any]:
        """What experiment.json and game records hold: ``{"name", "layouts": [{"layout", "weight"}]}``."""
        return {
            "name": self.name,
            "layouts": [
                {"layout": [placement_json(p) for p in layout], "weight": w} for layout, w in zip(self.layouts, self.weights)
            ],
        }

    def weight_lines(self) -> str:
        """The distribution as a file of layout weights (JSON lines, ``optimal --prior FILE``'s format)."""
        return "".join(json.dumps(entry) + "\n" for entry in self.to_json()["layouts"])

    @classmethod
    def from_json(cls, data: Any, config: GameConfig, where: str) -> LayoutHider:
        """:meth:`to_json`'s object read back on ``config``'s board: one line naming ``where`` when malformed."""
        if not isinstance(data, dict) or set(data) != {"name", "layouts"} or not isinstance(data["name"], str):
            raise FileFormatError(f'{where}: hider must be {{"name": TEXT, "layouts": [{{"layout", "weight"}}, ...]}}')
        if not isinstance(data["layouts"], list):
            raise FileFormatError(f"{where}: hider: layouts must be a list")
        return _weighted_hider(data["name"], data["layouts"], config, where)


def _layout_key(layout: tuple[Placement, ...]) -> tuple[tuple[int, int, int, bool], ...]:
    """A layout's place in a :class:`LayoutHider`'s fixed order: its placements' cells and orientations."""
    return tuple((p.ship, p.row, p.col, p.horizontal) for p in layout)


def _big_uniform(rng: np.random.Generator, total: int) -> int:
    """A whole number uniform below ``total`` (at least 2**63) by rejection on random bits."""
    bits = total.bit_length()
    while True:
        words = rng.integers(0, 1 << 62, size=(bits + 61) // 62)
        k = sum(int(w) << (62 * i) for i, w in enumerate(words)) & ((1 << bits) - 1)
        if k < total:
            return k


def layout_weight(value: Any, where: str) -> Fraction:
    """A weight as a file of layout weights writes it: a whole number, a decimal (read as the decimal it
    spells: 0.1 is 1/10) or ``"p/q"``; never negative."""
    try:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError
        weight = Fraction(value) if isinstance(value, (int, str)) else Fraction(repr(value))
    except (ValueError, ZeroDivisionError):
        raise FileFormatError(f'{where}: weight must be a number or a fraction "p/q", got {clip(repr(value))}') from None
    if weight < 0:
        raise FileFormatError(f"{where}: weight must not be negative, got {clip(repr(value))}")
    return weight


def _weighted_hider(name: str, entries: Sequence[Any], config: GameConfig, where: str) -> LayoutHider:
    """A :class:`LayoutHider` of ``{"layout", "weight"}`` entries on ``config``'s board."""
    weighted: dict[tuple[Placement, ...], Fraction] = {}
    for number, entry in enumerate(entries, 1):
        at = f"{where}: layout {number}"
        if not isinstance(entry, dict) or set(entry) != {"layout", "weight"}:
            raise FileFormatError(f'{at}: each must be {{"layout": [...], "weight": w}}')
        layout = parse_layout(entry["layout"], config, at)
        if layout in weighted:
            raise FileFormatError(f"{at}: this layout is given twice")
        weighted[layout] = layout_weight(entry["weight"], at)
    try:
        return LayoutHider.of(name, weighted)
    except RulesError as exc:
        raise FileFormatError(f"{where}: {exc}") from None


def layout_hider_from_file(path: Path, config: GameConfig) -> LayoutHider:
    """The hider of a file of layout weights (JSON lines ``{"layout": LAYOUT, "weight": w}``), named by the file."""
    entries = []
    for number, line in enumerate(read_text(path).splitlines(), 1):
        if line.strip():
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise FileFormatError(f"{path}:{number}: not JSON ({exc.msg})") from None
    return _weighted_hider(str(path), entries, config, str(path))
