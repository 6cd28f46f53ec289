"""Layout weights for the weighted optimum: exact integers from a prior, or from a file of explicit weights.

The weighted search (:mod:`battlelog.optimum.weighted`) needs one positive integer per layout, and its
totals are exact. Two sources:

- **a file of explicit weights**, JSON lines ``{"layout": LAYOUT, "weight": w}`` with LAYOUT as game records
  write it (ship 0 first, ``{"ship", "length", "row", "col", "orientation"}``) and w a whole number, a
  decimal (read as the decimal it spells: 0.1 is 1/10) or a fraction ``"p/q"``; a layout not listed weighs 0
  and is left out. The weights are scaled by the least common multiple of their denominators, so the
  optimum is **exact** for the weights as written.
- **a log-linear prior** (``edge=0.8``, a preset, a prior file): its weights exp(theta . f) are irrational,
  so each is rounded to an integer on a scale of 2**k (k as large as int64 totals allow, about 45 bits on
  4x4) relative to the largest. The optimum is exact for the rounded weights and within :attr:`tolerance`
  (at most (cells x layouts) / (the rounded weights' sum), about 1e-9 on 4x4) of the prior's own optimum:
  every policy's expectation moves by at most the largest number of shots times the total variation
  between the two distributions.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from battlelog.errors import FileFormatError
from battlelog.jsonfile import read_text
from battlelog.optimum.layouts import LayoutTable
from battlelog.optimum.weighted import TOTAL_LIMIT
from battlelog.rules.config import GameConfig
from battlelog.rules.hiders import layout_weight, parse_prior_spec
from battlelog.rules.prior import Prior, check_prior, layout_features
from battlelog.wording import clip


@dataclass(frozen=True)
class LayoutWeights:
    """Positive integer weights of the layouts of ``layouts`` (those of weight 0 left out of the table)."""

    layouts: LayoutTable
    weights: np.ndarray
    #: 0 when the weights are exactly the prior's (up to one common factor); else a bound on how far any
    #: policy's expected shots under these weights lie from the prior's own.
    tolerance: float = 0.0

    @property
    def exact(self) -> bool:
        return self.tolerance == 0.0

    def probabilities(self) -> list[Fraction]:
        """Each layout's probability, exactly."""
        total = int(self.weights.sum())
        return [Fraction(int(w), total) for w in self.weights]


def subset(layouts: LayoutTable, keep: np.ndarray) -> LayoutTable:
    """The layouts of ``layouts`` at the indices ``keep``, in that order."""
    return LayoutTable(layouts.config, layouts.placement[keep], layouts.ship_masks[keep])


def scale_bits(layouts: LayoutTable) -> int:
    """The largest k such that weights up to 2**k on every layout keep every total within int64."""
    config = layouts.config
    return 61 - math.ceil(math.log2(len(layouts) * config.ship_cells * config.cell_count))


def loglinear_weights(layouts: LayoutTable, prior: Prior) -> LayoutWeights:
    """The prior's weights exp(theta . f) rounded to integers on the finest scale int64 totals allow."""
    config = layouts.config
    features = np.array(
        [layout_features(layout_placements(config, row), config.rows, config.cols) for row in layouts.placement], dtype=float
    )
    logs = features @ np.array(prior.theta)
    scale = float(1 << scale_bits(layouts))
    rounded = np.rint(scale * np.exp(logs - logs.max())).astype(np.int64)
    keep = np.flatnonzero(rounded > 0)
    weights = rounded[keep]
    tolerance = 0.0 if prior.is_uniform else config.cell_count * len(layouts) / float(weights.sum())
    return LayoutWeights(subset(layouts, keep), weights, tolerance)


def layout_placements(config: GameConfig, row: np.ndarray) -> tuple[Any, ...]:
    """The placements (ship 0 first) of one layout of a :class:`LayoutTable` row."""
    return tuple(config.placements(i)[int(k)] for i, k in enumerate(row))


def layout_json(config: GameConfig, row: np.ndarray) -> list[dict[str, Any]]:
    """One layout as game records write it (ship 0 first; ``runner.records.placement_json``, a layer above)."""
    return [
        {"ship": p.ship, "length": p.length, "row": p.row, "col": p.col, "orientation": p.orientation}
        for p in layout_placements(config, row)
    ]


def _layout_index(layouts: LayoutTable, data: Any, where: str, index: dict[tuple[int, ...], int]) -> int:
    """The index in ``layouts`` of a layout written as game records write it."""
    config = layouts.config
    if not isinstance(data, list) or len(data) != len(config.ships):
        raise FileFormatError(f"{where}: layout must list the {len(config.ships)} ships of {config.label()}, ship 0 first")
    row = []
    for i, ship in enumerate(data):
        if not isinstance(ship, dict) or set(ship) != {"ship", "length", "row", "col", "orientation"} or ship["ship"] != i:
            raise FileFormatError(
                f'{where}: ship {i} must be {{"ship": {i}, "length", "row", "col", "orientation"}}, got {clip(repr(ship))}'
            )
        found = [
            k
            for k, p in enumerate(config.placements(i))
            if (p.length, p.row, p.col, p.orientation) == (ship["length"], ship["row"], ship["col"], ship["orientation"])
        ]
        if not found:
            raise FileFormatError(
                f"{where}: ship {i} {clip(repr(ship))} is no placement of a ship of length {config.ships[i]} on {config.shape}"
            )
        row.append(found[0])
    if tuple(row) not in index:
        raise FileFormatError(f"{where}: the layout overlaps or breaks the touch rule {config.rules.touch}")
    return index[tuple(row)]


def explicit_weights(layouts: LayoutTable, path: Path) -> LayoutWeights:
    """The weights of a JSON-lines file (see the module), scaled to integers exactly."""
    index = {tuple(int(k) for k in row): lay for lay, row in enumerate(layouts.placement)}
    given: dict[int, Fraction] = {}
    for number, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise FileFormatError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(data, dict) or set(data) != {"layout", "weight"}:
            raise FileFormatError(f'{where}: each line must be {{"layout": [...], "weight": w}}')
        lay = _layout_index(layouts, data["layout"], where, index)
        if lay in given:
            raise FileFormatError(f"{where}: this layout is given twice")
        given[lay] = layout_weight(data["weight"], where)
    keep = np.array(sorted(lay for lay, w in given.items() if w > 0), dtype=np.int64)
    if len(keep) == 0:
        raise FileFormatError(f"{path}: no layout has a positive weight")
    common = math.lcm(*(given[int(lay)].denominator for lay in keep))
    integers = [int(given[int(lay)] * common) for lay in keep]
    divisor = math.gcd(*integers)
    integers = [w // divisor for w in integers]
    if sum(integers) * layouts.config.ship_cells * layouts.config.cell_count >= TOTAL_LIMIT:
        raise FileFormatError(f"{path}: the weights, over one common denominator, are too large for exact int64 totals")
    return LayoutWeights(subset(layouts, keep), np.array(integers, dtype=np.int64))


def weights_named(layouts: LayoutTable, text: str) -> tuple[LayoutWeights, str]:
    """The weights ``--prior`` names (a file of explicit weights, or a prior as :func:`parse_prior_spec` reads
    it, refused when it could overflow), and how to name them."""
    if is_weights_file(text):
        return explicit_weights(layouts, Path(text)), text
    config = layouts.config
    prior = parse_prior_spec(text, "--prior")
    check_prior(prior, config.rows, config.cols, config.ships)
    return loglinear_weights(layouts, prior), prior.text() or "uniform"


def is_weights_file(text: str) -> bool:
    """True when ``text`` names a file whose first non-blank line is an object with a ``"layout"`` (explicit
    weights), rather than a prior file or a prior spec."""
    path = Path(text)
    if not path.is_file():
        return False
    try:
        first = next((line for line in read_text(path).splitlines() if line.strip()), "")
        data = json.loads(first)
    except (json.JSONDecodeError, FileFormatError):
        return False
    return isinstance(data, dict) and "layout" in data


__all__ = [
    "LayoutWeights",
    "explicit_weights",
    "is_weights_file",
    "layout_json",
    "layout_placements",
    "loglinear_weights",
    "scale_bits",
    "subset",
    "weights_named",
]
