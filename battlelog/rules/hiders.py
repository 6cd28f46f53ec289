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

import json
from dataclasses import dataclass
from pathlib import Path

from battlelog.errors import BattlelogError, FileFormatError, RulesError
from battlelog.jsonfile import read_json, read_text
from battlelog.rules.config import GameConfig
from battlelog.rules.layout_hider import LayoutHider, layout_hider_from_file, layout_weight
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
            f"{what} {clip(text)!r} is neither uniform, a preset ({', '.join(PRESETS)}), a prior file, nor a prior: {exc}"
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


#: Options of the hider a command line names: a prior (uniform included), a distribution over layouts, or
#: an adversary still to be worked out.
Hider = Prior | LayoutHider


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
