"""The result of a duel run: the first player's win rate, with its interval and the one-sided test against 0.5.

Each duel is on a board of its own (paired between the two players, not between duels), so the duels are
independent trials: the win rate gets Wilson's 95% interval, and the test is the exact binomial test of
"the first player wins more than half" (one-sided, against 0.5); each opener's half is shown apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scipy import stats as scipy_stats

from battlelog.report.duel import Chance, wilson


def win_rate(records: Sequence[dict[str, Any]], label: str) -> tuple[Chance, float]:
    """The share of ``records`` that ``label`` won with Wilson's interval, and the one-sided exact binomial
    p-value of the hypothesis that it wins at most half of them."""
    won = sum(record["winner"] == label for record in records)
    p_value = float(scipy_stats.binomtest(won, len(records), 0.5, alternative="greater").pvalue)
    return wilson(won, len(records)), p_value


def duel_summary(records: Sequence[dict[str, Any]], players: Sequence[str]) -> dict[str, Any]:
    """As ``battlelog duel --json`` prints it: the first player's win rate over all duels and by opener."""
    label = players[0]
    overall, p_value = win_rate(records, label)
    out: dict[str, Any] = {"players": list(players), "duels": len(records), "wins": overall.to_json(), "p_value": p_value}
    for opener in players:
        subset = [record for record in records if record["first"] == opener]
        out[f"{opener} opens"] = {"duels": len(subset), **(win_rate(subset, label)[0].to_json() if subset else {})}
    return out


def summary_lines(summary: dict[str, Any]) -> list[str]:
    """The summary as text, one line each."""
    a, b = summary["players"]
    wins = summary["wins"]
    lines = [
        f"{a} against {b}: {a} won {wins['p']:.3f} [{wins['low']:.3f}, {wins['high']:.3f}] of {summary['duels']} duels "
        f"(Wilson 95%); one-sided exact binomial test against 0.5: p = {summary['p_value']:.3g}"
    ]
    for opener in (a, b):
        part = summary[f"{opener} opens"]
        if part["duels"]:
            chance = f"{part['p']:.3f} [{part['low']:.3f}, {part['high']:.3f}]"
            lines.append(f"  {opener} opening: {a} won {chance} of {part['duels']}")
    return lines
