"""Hiders and beliefs: a prior over layouts named on the command line, by preset, text or file.

A *hider* (``battlelog experiment --hider SPEC``) is the prior an experiment's boards are drawn from; a
*belief* (the ``belief`` option of the posterior players) is the prior a player computes with. Both are
named the same way (:func:`parse_prior_spec`):

- ``uniform``: every legal layout equally likely (the default; the boards experiments always had);
- a preset of :data:`PRESETS` (``edge-hugger``, ``edge-avoider``, ``spreader``, ``clusterer``);
- a prior as ``--prior`` takes it: ``edge=1.5,touch=-2`` (``:`` and ``;`` may stand for ``=`` and
  ``,``: ``edge:1.5;touch:-2``, which fits inside a player spec's brackets);
- a JSON file holding ``{"prior": {...}}`` or the prior object itself.

A belief may also be ``hider`` (the experiment's hider, told to the player) or ``learn`` (refitted after
every game from the layouts revealed so far): :data:`BELIEF_WORDS`. See docs/priors.md.

A hider may also be an explicit distribution over layouts (:class:`LayoutHider`): a file of layout weights,
JSON lines ``{"layout": LAYOUT, "weight": w}`` (the format ``battlelog optimal --prior FILE`` reads), or
``adversarial[against=PLAYER]`` (:class:`AdversarialSpec`), the distribution that makes PLAYER need the most
shots. The rules know nothing of players: whoever plays PLAYER works that distribution out and hands it
here as a :class:`LayoutHider` (or, on boards too large for that, a fitted prior). See docs/duel.md.
"""

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

from battlelog.errors import BattlelogError, FileFormatError, RulesError
from battlelog.jsonfile import read_json, read_text
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.layouts import parse_layout, placement_json
from battlelog.rules.prior import UNIFORM, Prior
from battlelog.wording import clip

#: Hiders' habits as priors (theta of docs/rules.md), the habits of the literature on hiding (docs/priors.md:
#: edge and adjacency avoidance, Goh 2023; touching ships, Berry 2011). The magnitudes give a habit one notices but that is
#: still a habit, not a rule: on 10x10 5,4,3,3,2 the ring holds 5.0 ship cells on average under the
#: uniform prior, 7.8 under ``edge-hugger`` and 3.0 under ``edge-avoider``; ships touch along 2.1 cell
#: pairs under the uniform prior, 0.6 under ``spreader`` and 4.1 under ``clusterer`` (docs/priors.md).
PRESETS: dict[str, Prior] = {
    "edge-hugger": Prior(edge=0.3),
    "edge-avoider": Prior(edge=-0.3),
    "spreader": Prior(touch=-1.0),
    "clusterer": Prior(touch=0.5),
}

UNIFORM_NAME = "uniform"
#: Beliefs that are not a prior by themselves: the experiment's hider, and the prior learnt so far.
HIDER, LEARN = "hider", "learn"
BELIEF_WORDS = (HIDER, LEARN)


def parse_prior_spec(text: str, what: str = "--hider") -> Prior:
    """The prior ``text`` names (``uniform``, a preset, a prior text or a JSON file); anything else is one
    line naming ``what`` (the option it came from) and what was expected."""
    text = str(text).strip()
    if text == UNIFORM_NAME:
        return UNIFORM
    if text in PRESETS:
        return PRESETS[text]
    if _is_file(text):
        return prior_from_file(Path(text))
    try:
        return Prior.parse(text.replace(":", "=").replace(";", ","))
    except RulesError as exc:
        if "=" in text or ":" in text:
            raise RulesError(f"{what}: {exc}") from None  # the error names the weight at fault itself
        raise BattlelogError(
            f"{what} {clip(text)!r} is neither uniform, a preset ({', '.join(PRESETS)}), a prior file, "
            f"nor a prior: {exc}"
        ) from None


def _is_file(text: str) -> bool:
    """Whether ``text`` names a file; a name the system refuses to look up (too long, a NUL byte) names none,
    so ``--prior edge=1000...`` is read as a prior, not a traceback."""
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def prior_from_file(path: Path) -> Prior:
    """The prior of a JSON file: ``{"prior": {...}}`` (as ``battlelog learn --json`` writes it, other keys
    ignored) or the prior object itself; anything else is a one-line FileFormatError naming the file."""
    data = read_json(path)
    if isinstance(data, dict) and "prior" in data:
        data = data["prior"]
    try:
        return Prior.from_json(data)
    except RulesError as exc:
        raise FileFormatError(f"{path}: {exc}") from None


def hider_from_json(data: object, where: str, config: GameConfig | None = None) -> Hider:
    """A hider as experiment.json and game records write it: all three weights, not all 0 (the uniform hider
    is left out), or a :class:`LayoutHider`'s object (``{"name", "layouts"}``, read on ``config``'s board);
    anything else is a one-line FileFormatError naming ``where``."""
    if isinstance(data, dict) and "layouts" in data:
        if config is None:
            raise FileFormatError(f"{where}: hider: a distribution over layouts needs the board it is on")
        return LayoutHider.from_json(data, config, where)
    try:
        prior = Prior.from_json(data)
    except RulesError as exc:
        raise FileFormatError(f"{where}: hider: {exc}") from None
    if prior.is_uniform or data != prior.to_json():
        raise FileFormatError(f"{where}: hider must give edge, vertical and touch, not all 0, got {clip(repr(data))}")
    return prior


def spec_text(prior: Hider) -> str:
    """The name a hider goes by: its preset's name, ``uniform``, its text (``edge=0.8,touch=-1``), or a
    layout distribution's own name."""
    if isinstance(prior, LayoutHider):
        return prior.name
    if prior.is_uniform:
        return UNIFORM_NAME
    for name, preset in PRESETS.items():
        if preset == prior:
            return name
    return prior.text()


def canonical_belief(text: str) -> str:
    """A player's ``belief`` option in one spelling per meaning, so that one configuration has one name:
    ``uniform``, ``hider``, ``learn``, a preset's name, or the prior's text (``edge=0.8,touch=-1``; a file
    is replaced by the prior it holds). Anything else is a one-line error."""
    text = str(text).strip()
    if text in BELIEF_WORDS:
        return text
    return spec_text(parse_prior_spec(text, "belief"))


def belief_prior(text: str) -> Prior:
    """The prior of a belief that is one by itself (not ``hider`` or ``learn``, which the experiment
    resolves first): a one-line error otherwise."""
    if text in BELIEF_WORDS:
        raise BattlelogError(f"belief={text} is known only inside an experiment (battlelog experiment), not here")
    return parse_prior_spec(text, "belief")


ADVERSARIAL = "adversarial"
#: The most layouts a :class:`LayoutHider` may weigh (each board's draw bisects their cumulative weights).
LAYOUT_HIDER_LIMIT = 1_000_000


@dataclass(frozen=True)
class AdversarialSpec:
    """``adversarial[against=PLAYER]``: the hider that makes ``against`` (a player spec, unread here) need the
    most shots. Only its name lives in the rules; who plays the player turns it into a :data:`Hider`."""

    against: str

    @property
    def text(self) -> str:
        """The spec as ``--hider`` takes it."""
        return f"{ADVERSARIAL}[against={self.against}]"


def parse_adversarial(text: str) -> AdversarialSpec | None:
    """The :class:`AdversarialSpec` ``text`` names, None when it names none (``adversarial`` without a player,
    or with options other than ``against``, is a one-line error)."""
    text = str(text).strip()
    if text != ADVERSARIAL and not text.startswith(ADVERSARIAL + "["):
        return None
    inner = text[len(ADVERSARIAL) + 1 : -1] if text.endswith("]") else ""
    key, _, player = inner.partition("=")
    if key.strip() != "against" or not player.strip():
        raise BattlelogError(f"--hider {clip(text)!r}: say whose seeker to hide against: adversarial[against=PLAYER]")
    return AdversarialSpec(player.strip())


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


#: Options of the hider a command line names: a prior (uniform included), a distribution over layouts, or
#: an adversary still to be worked out.
Hider = Prior | LayoutHider


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


def parse_hider(text: str, config: GameConfig) -> Hider | AdversarialSpec:
    """What ``--hider`` names on ``config``'s board: a prior (:func:`parse_prior_spec`), a file of layout
    weights, or ``adversarial[against=PLAYER]`` (left for whoever plays PLAYER to work out)."""
    adversary = parse_adversarial(text)
    if adversary is not None:
        return adversary
    if is_layout_weights_file(str(text).strip()):
        return layout_hider_from_file(Path(str(text).strip()), config)
    return parse_prior_spec(text, "--hider")


def is_layout_weights_file(text: str) -> bool:
    """True when ``text`` names a file whose first non-blank line is an object with a ``"layout"`` (a file
    of layout weights, not a prior file)."""
    if not _is_file(text):
        return False
    try:
        first = next((line for line in read_text(Path(text)).splitlines() if line.strip()), "")
        data = json.loads(first)
    except (json.JSONDecodeError, FileFormatError):
        return False
    return isinstance(data, dict) and "layout" in data


__all__ = [
    "ADVERSARIAL",
    "BELIEF_WORDS",
    "HIDER",
    "LEARN",
    "PRESETS",
    "AdversarialSpec",
    "Hider",
    "LayoutHider",
    "belief_prior",
    "canonical_belief",
    "hider_from_json",
    "is_layout_weights_file",
    "layout_hider_from_file",
    "layout_weight",
    "parse_adversarial",
    "parse_hider",
    "parse_prior_spec",
    "prior_from_file",
    "spec_text",
]
