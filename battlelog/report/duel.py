"""What the records say beyond means: each player's distribution of shots, and who wins a race.

A player wants to finish before the opponent, not to average few shots, so a mean alone hides what
matters in a duel. From the records of one experiment (every player on the same boards, game g on board
g), for each player: the quantiles of its shots (the smallest k within which at least that share of its
games finished) and the chance to finish within k shots. For two players A and B on the boards both
finished, the head-to-head table: T_A and T_B the shots each needed on a board, and the two shoot in
turn, A's fleet hidden from B and B's from A, each needing as many shots as it needed alone (a player's
shots do not depend on the opponent's), so

- A shooting first wins when T_A <= T_B (A fires its T_A-th shot before B fires its T_B-th);
- B shooting first, A wins when T_A < T_B;
- alternating (the first shot taken by A on half the boards, by B on the others; equivalently each board
  played once each way) A wins with probability the mean of the two.

Intervals: the first two are binomial proportions over the boards, with Wilson's score interval; the
alternating chance is the mean of the per-board values w = ([T_A <= T_B] + [T_A < T_B]) / 2, which lie in
{0, 1/2, 1}, with the paired Student-t interval of that mean (the two starts of one board are not
independent, so their 2n outcomes are not pooled as a binomial), clipped to [0, 1]; where every board gives
the same w the t interval collapses, and Wilson's interval of the mean stands in (conservative: a variable
in [0, 1] with mean p has variance at most p(1 - p)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scipy import stats as scipy_stats

from battlelog.report.markdown import markdown_table
from battlelog.report.summary import paired_scores, player_order, scores_by_player
from battlelog.runner.task import OK
from battlelog.stats import CONFIDENCE, mean_ci

#: The shares of games whose quantiles the distribution table shows.
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


# ----- one player's distribution --------------------------------------------------------------------
@dataclass(frozen=True)
class Distribution:
    """A player's finished games as a distribution: quantiles, and the chance to finish within k shots."""

    player: str
    scores: tuple[int, ...]

    @property
    def games(self) -> int:
        return len(self.scores)

    def within(self, k: int) -> float | None:
        """The share of games finished within ``k`` shots (None without games)."""
        return sum(s <= k for s in self.scores) / len(self.scores) if self.scores else None

    def quantile(self, share: float) -> int | None:
        """The smallest k within which at least ``share`` of the games finished (None without games)."""
        if not self.scores:
            return None
        ordered = sorted(self.scores)
        return ordered[max(0, math.ceil(share * len(ordered) - 1e-9) - 1)]

    def cdf(self) -> dict[int, float]:
        """The chance to finish within k shots for every k from the fewest shots to the most."""
        if not self.scores:
            return {}
        return {k: float(self.within(k) or 0.0) for k in range(min(self.scores), max(self.scores) + 1)}


def distributions(records: list[dict[str, Any]]) -> list[Distribution]:
    """Each player's distribution over its finished games, players in the summary's order."""
    return [Distribution(player, tuple(int(s) for s in scores)) for player, scores in scores_by_player(records).items()]


def reference_points(rows: Sequence[Distribution]) -> list[int]:
    """The k at which the table shows P(within k): the quantiles of every player's games pooled."""
    pooled = Distribution("", tuple(s for row in rows for s in row.scores))
    return sorted({k for k in (pooled.quantile(q) for q in QUANTILES) if k is not None})


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def distribution_table(rows: Sequence[Distribution], unit: str = "shots") -> str:
    """Quantiles and the chance to finish within the pooled quantiles, one row per player."""
    points = reference_points(rows)
    header = ["player", "games", *(f"{round(100 * q)}%" for q in QUANTILES), *(f"P(<= {k})" for k in points)]
    cells = [
        [
            row.player,
            str(row.games),
            *("-" if (v := row.quantile(q)) is None else str(v) for q in QUANTILES),
            *(_share(row.within(k)) for k in points),
        ]
        for row in rows
    ]
    return markdown_table(header, cells)


DISTRIBUTION_TITLE = (
    "Distribution of {unit}: the fewest {unit} within which each share of the games finished, and the chance to finish within k"
)


def distribution_json(row: Distribution) -> dict[str, Any]:
    """``{"quantiles": {"0.1": k, ...}, "within": {"k": p, ...}}``: every k from the fewest shots to the most."""
    return {"quantiles": {str(q): row.quantile(q) for q in QUANTILES}, "within": {str(k): p for k, p in row.cdf().items()}}


# ----- head to head --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Chance:
    """A probability with its confidence interval."""

    p: float
    low: float
    high: float

    def to_json(self) -> dict[str, float]:
        return {"p": self.p, "low": self.low, "high": self.high}

    def text(self) -> str:
        return f"{self.p:.3f} [{self.low:.3f}, {self.high:.3f}]"


def wilson(successes: float, n: int, confidence: float = CONFIDENCE) -> Chance:
    """A proportion ``successes / n`` with Wilson's score interval (sound at 0 and 1, unlike the normal one)."""
    if n <= 0:
        raise ValueError("a proportion needs at least one trial")
    p = successes / n
    z = float(scipy_stats.norm.ppf(0.5 + confidence / 2))
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Chance(p, max(0.0, centre - half), min(1.0, centre + half))


def paired_chance(values: Sequence[float], confidence: float = CONFIDENCE) -> Chance:
    """The mean of per-board values in [0, 1] with the paired t interval, clipped to [0, 1]; Wilson's when
    every value is equal (the t interval would be a point)."""
    ci = mean_ci(values, confidence)
    if ci.low is None or ci.high is None or ci.low == ci.high:
        return wilson(ci.mean * len(values), len(values), confidence)
    return Chance(ci.mean, max(0.0, ci.low), min(1.0, ci.high))


@dataclass(frozen=True)
class Duel:
    """The chance that ``a`` finishes first against ``b`` on the boards both finished."""

    a: str
    b: str
    games: int
    a_starts: Chance
    b_starts: Chance
    alternating: Chance

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a, "b": self.b, "games": self.games,
            "a_starts": self.a_starts.to_json(), "b_starts": self.b_starts.to_json(), "alternating": self.alternating.to_json(),
        }  # fmt: skip


def duel(a: str, b: str, shots_a: Sequence[int], shots_b: Sequence[int], confidence: float = CONFIDENCE) -> Duel:
    """The head-to-head of ``a`` and ``b`` from their shots on the same boards (``shots_a[i]``, ``shots_b[i]``)."""
    if len(shots_a) != len(shots_b) or not shots_a:
        raise ValueError("a duel needs the same boards, at least one, for both players")
    first = [float(x <= y) for x, y in zip(shots_a, shots_b)]
    second = [float(x < y) for x, y in zip(shots_a, shots_b)]
    n = len(first)
    both = [(f + s) / 2 for f, s in zip(first, second)]
    return Duel(a, b, n, wilson(sum(first), n, confidence), wilson(sum(second), n, confidence), paired_chance(both, confidence))


def all_duels(records: list[dict[str, Any]]) -> list[Duel]:
    """Every pair of players on the boards both finished: each later (stronger) player as A against each
    earlier one as B, as the paired differences pair them."""
    players = sorted({r["player"] for r in records if r["status"] == OK}, key=player_order)
    duels = []
    for i in range(len(players)):
        for j in range(i + 1, len(players)):
            shots_a, shots_b = paired_scores(records, players[j], players[i])
            if shots_a:
                duels.append(duel(players[j], players[i], shots_a, shots_b))
    return duels


DUEL_HEADER = ["A against B", "boards", "A first", "B first", "alternating"]
DUEL_TITLE = (
    "Head to head on the boards both finished: the chance that A finishes first (95% CI),"
    " the first shot A's, B's, or each in turn"
)


def duel_table(duels: Sequence[Duel]) -> str:
    """The duels as an aligned Markdown table."""
    rows = [[f"{d.a} - {d.b}", str(d.games), d.a_starts.text(), d.b_starts.text(), d.alternating.text()] for d in duels]
    return markdown_table(DUEL_HEADER, rows)


__all__ = [
    "DISTRIBUTION_TITLE",
    "DUEL_HEADER",
    "DUEL_TITLE",
    "QUANTILES",
    "Chance",
    "Distribution",
    "Duel",
    "all_duels",
    "distribution_json",
    "distribution_table",
    "distributions",
    "duel",
    "duel_table",
    "paired_chance",
    "reference_points",
    "wilson",
]
