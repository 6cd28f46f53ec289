"""The result of a duel run: the first player's win rate over the pairs of duels, its interval and the test.

Duels 2k and 2k+1 are played on the same two boards, each player hunting each board once and opening once
(:mod:`battlelog.runner.duel`), so they are not independent: the unit is the pair, scored w = the first
player's wins in it / 2 (0, 1/2 or 1). The win rate is the mean of w with the paired Student-t 95% interval
(:func:`battlelog.report.duel.paired_chance`, Wilson's when every w is equal). The test of "the first player
wins more than half" is the sign test over the pairs: the mean of w is 1/2 exactly when a pair won twice is
as likely as a pair lost twice, so the pairs won twice among those not split are, under the hypothesis,
binomial with chance 1/2 (exact, one-sided). Each opener's duels are shown apart, with Wilson's interval.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from scipy import stats as scipy_stats

from battlelog.report.duel import paired_chance, wilson


def pair_scores(records: Sequence[dict[str, Any]], label: str) -> list[float]:
    """Per complete pair of duels (2k and 2k+1 both recorded), ``label``'s share of its two wins."""
    pairs: dict[int, list[float]] = defaultdict(list)
    for record in records:
        pairs[record["game"] // 2].append(float(record["winner"] == label))
    return [sum(won) / 2 for won in pairs.values() if len(won) == 2]


def sign_test(scores: Sequence[float]) -> float:
    """The one-sided exact p-value of "more pairs won twice than lost twice" (split pairs left out; 1 when
    every pair is split)."""
    won, lost = sum(w == 1.0 for w in scores), sum(w == 0.0 for w in scores)
    if won + lost == 0:
        return 1.0
    return float(scipy_stats.binomtest(won, won + lost, 0.5, alternative="greater").pvalue)


def duel_summary(records: Sequence[dict[str, Any]], players: Sequence[str]) -> dict[str, Any]:
    """As ``battlelog duel --json`` prints it: the first player's win rate over the complete pairs, the sign
    test's p-value, and its wins by opener over every duel."""
    label = players[0]
    scores = pair_scores(records, label)
    out: dict[str, Any] = {"players": list(players), "duels": len(records), "pairs": len(scores)}
    if scores:
        out["wins"] = paired_chance(scores).to_json()
        out["p_value"] = sign_test(scores)
    for opener in players:
        subset = [record for record in records if record["first"] == opener]
        won = sum(record["winner"] == label for record in subset)
        out[f"{opener} opens"] = {"duels": len(subset), **(wilson(won, len(subset)).to_json() if subset else {})}
    return out


def summary_lines(summary: dict[str, Any]) -> list[str]:
    """The summary as text, one line each."""
    a, b = summary["players"]
    if "wins" in summary:
        wins = summary["wins"]
        lines = [
            f"{a} against {b}: {a} won {wins['p']:.3f} [{wins['low']:.3f}, {wins['high']:.3f}] of {summary['pairs']} pairs "
            f"of duels (paired t 95%); one-sided sign test over the pairs against 0.5: p = {summary['p_value']:.3g}"
        ]
    else:
        lines = [f"{a} against {b}: no complete pair of duels yet ({summary['duels']} duels)"]
    for opener in (a, b):
        part = summary[f"{opener} opens"]
        if part["duels"]:
            chance = f"{part['p']:.3f} [{part['low']:.3f}, {part['high']:.3f}]"
            lines.append(f"  {opener} opening: {a} won {chance} of {part['duels']} (Wilson 95%)")
    return lines
