"""Summary statistics of game scores: pure functions over lists of numbers.

Confidence intervals are Student-t intervals of a mean (scores are bounded and the experiments
play hundreds of games, so the mean is close to normal). Paired differences compare two players on
the same boards, which removes the board-to-board variance both players share and so needs far
fewer games than comparing two independent means.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats

#: The confidence level of every interval unless a caller asks for another.
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """A mean with its confidence interval; ``low``/``high`` are None with fewer than two values."""

    mean: float
    low: float | None
    high: float | None
    n: int
    confidence: float = CONFIDENCE

    @property
    def half_width(self) -> float | None:
        return None if self.low is None or self.high is None else (self.high - self.low) / 2

    def contains(self, value: float) -> bool:
        """True if ``value`` lies inside the interval (False when there is no interval)."""
        return self.low is not None and self.high is not None and self.low <= value <= self.high


@dataclass(frozen=True)
class ScoreSummary:
    """What the results table shows for one player; every field is None when there are no scores."""

    n: int
    mean: float | None
    ci: Interval | None
    median: float | None
    std: float | None
    min: float | None
    max: float | None


@dataclass(frozen=True)
class PairedDifference:
    """Mean of ``a - b`` over paired games with its interval and a two-sided paired t-test p-value."""

    interval: Interval
    p_value: float | None

    @property
    def mean(self) -> float:
        return self.interval.mean

    @property
    def significant(self) -> bool:
        """True when the interval excludes zero (at the interval's confidence level)."""
        ci = self.interval
        return ci.low is not None and ci.high is not None and (ci.high < 0 or ci.low > 0)


def _as_array(values: Sequence[float] | np.ndarray) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError("expected a flat list of numbers")
    if not np.all(np.isfinite(array)):
        raise ValueError("scores must be finite numbers")
    return array


def _t_test(values: np.ndarray, confidence: float) -> tuple[Interval, float | None]:
    """The t interval of the mean and the p-value of "the true mean is 0"."""
    n = len(values)
    mean = float(values.mean())
    if n < 2:
        return Interval(mean, None, None, n, confidence), None
    sem = float(values.std(ddof=1)) / math.sqrt(n)
    if sem == 0.0:
        # Every value equal: the interval collapses to the point and the test is decided exactly.
        return Interval(mean, mean, mean, n, confidence), (1.0 if mean == 0.0 else 0.0)
    half = float(scipy_stats.t.ppf(0.5 + confidence / 2, n - 1)) * sem
    p_value = float(2 * scipy_stats.t.sf(abs(mean) / sem, n - 1))
    return Interval(mean, mean - half, mean + half, n, confidence), p_value


def mean_ci(values: Sequence[float] | np.ndarray, confidence: float = CONFIDENCE) -> Interval:
    """The mean of ``values`` with its Student-t confidence interval (needs at least one value)."""
    array = _as_array(values)
    if len(array) == 0:
        raise ValueError("the mean of no values is undefined")
    return _t_test(array, confidence)[0]


def summarize_scores(values: Sequence[float], confidence: float = CONFIDENCE) -> ScoreSummary:
    """Count, mean with confidence interval, median, sample standard deviation, min and max."""
    array = _as_array(values)
    n = len(array)
    if n == 0:
        return ScoreSummary(0, None, None, None, None, None, None)
    ci = mean_ci(array, confidence)
    return ScoreSummary(
        n=n,
        mean=ci.mean,
        ci=ci,
        median=float(np.median(array)),
        std=float(array.std(ddof=1)) if n > 1 else None,
        min=float(array.min()),
        max=float(array.max()),
    )


def paired_difference(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> PairedDifference:
    """How much ``a`` exceeds ``b`` on the same games: mean of ``a[i] - b[i]``, its interval and p-value.

    ``a[i]`` and ``b[i]`` must come from the same game (same board); with scores as shots, a
    negative mean means ``a`` needs fewer shots.
    """
    first, second = _as_array(a), _as_array(b)
    if len(first) != len(second):
        raise ValueError(f"paired scores need equal lengths, got {len(first)} and {len(second)}")
    if len(first) == 0:
        raise ValueError("a paired difference needs at least one pair")
    interval, p_value = _t_test(first - second, confidence)
    return PairedDifference(interval, p_value)


def independent_difference(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> PairedDifference:
    """How much the mean of ``a`` exceeds the mean of ``b`` when their games are not paired (different
    boards, e.g. two touch rules draw different layouts): Welch's interval and two-sided p-value.

    Returned as a :class:`PairedDifference` (its interval's ``n`` is the smaller sample) so that tables
    print both kinds alike; the docs say which kind each table holds.
    """
    first, second = _as_array(a), _as_array(b)
    if len(first) < 2 or len(second) < 2:
        raise ValueError("an unpaired difference needs at least two scores on each side")
    mean = float(first.mean() - second.mean())
    va, vb = float(first.var(ddof=1)) / len(first), float(second.var(ddof=1)) / len(second)
    n = min(len(first), len(second))
    if va + vb == 0.0:
        return PairedDifference(Interval(mean, mean, mean, n, confidence), 1.0 if mean == 0.0 else 0.0)
    sem = math.sqrt(va + vb)
    dof = (va + vb) ** 2 / (va**2 / (len(first) - 1) + vb**2 / (len(second) - 1))
    half = float(scipy_stats.t.ppf(0.5 + confidence / 2, dof)) * sem
    p_value = float(2 * scipy_stats.t.sf(abs(mean) / sem, dof))
    return PairedDifference(Interval(mean, mean - half, mean + half, n, confidence), p_value)


__all__ = [
    "CONFIDENCE",
    "Interval",
    "PairedDifference",
    "ScoreSummary",
    "independent_difference",
    "mean_ci",
    "paired_difference",
    "summarize_scores",
]
