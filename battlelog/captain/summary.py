"""A captain run in figures: each captain's F1, wins, shots and questions with 95% intervals, and how every two
captains differ on the same games (same board, same spotter noise: paired).

What ``battlelog captain`` prints when its games are played and ``battlelog summarize`` prints of a captain run's
folder; both read the records only.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from battlelog.stats import Interval, mean_ci, paired_difference
from battlelog.wording import count_noun

Record = Mapping[str, Any]


def _interval(interval: Interval) -> dict[str, float | None]:
    return {"mean": interval.mean, "low": interval.low, "high": interval.high}


def captain_rows(records: Sequence[Record]) -> list[dict[str, Any]]:
    """Per captain, in order of first appearance: games, wins, mean F1 and shots with their 95% intervals, mean
    questions, and the median time of all its moves."""
    by: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        by[record["captain"]].append(record)
    rows = []
    for captain, games in by.items():
        moves = [s for g in games for s in g["move_seconds"]]
        rows.append({
            "captain": captain, "games": len(games), "won": sum(bool(g["won"]) for g in games),
            "f1": _interval(mean_ci([g["f1"] for g in games])), "shots": _interval(mean_ci([g["shots"] for g in games])),
            "questions": statistics.mean(g["questions"] for g in games),
            "move_median_s": statistics.median(moves) if moves else None,
        })  # fmt: skip
    return rows


def captain_comparisons(records: Sequence[Record]) -> list[dict[str, Any]]:
    """For every two captains, on the games both played (board and game number): the mean difference of F1 and
    of shots (a minus b) with its 95% interval and paired t-test p-value."""
    games: dict[str, dict[tuple[str, int], Record]] = defaultdict(dict)
    for record in records:
        games[record["captain"]][(record["board"], record["game"])] = record
    out = []
    for a, b in combinations(games, 2):
        both = sorted(games[a].keys() & games[b].keys())
        if not both:
            continue
        row: dict[str, Any] = {"a": a, "b": b, "games": len(both)}
        for figure in ("f1", "shots"):
            difference = paired_difference([games[a][k][figure] for k in both], [games[b][k][figure] for k in both])
            row[figure] = {**_interval(difference.interval), "p_value": difference.p_value}
        out.append(row)
    return out


def _ci(figure: Mapping[str, float | None], digits: int) -> str:
    low, high = figure["low"], figure["high"]
    mean = f"{figure['mean']:.{digits}f}"
    return mean if low is None or high is None else f"{mean} [{low:.{digits}f}, {high:.{digits}f}]"


def summary_text(rows: Sequence[Mapping[str, Any]], comparisons: Sequence[Mapping[str, Any]]) -> str:
    """The two tables for people: captains, then their paired differences (when two or more captains played)."""
    head = ("captain", "games", "won", "F1 [95% CI]", "shots [95% CI]", "questions", "move median s")
    lines = ["{:<28} {:>5} {:>5} {:>22} {:>21} {:>9} {:>13}".format(*head)]
    for row in rows:
        median = "-" if row["move_median_s"] is None else f"{row['move_median_s']:.4f}"
        lines.append(
            f"{row['captain']:<28} {row['games']:>5} {row['won']:>5} {_ci(row['f1'], 3):>22} {_ci(row['shots'], 1):>21} "
            f"{row['questions']:9.1f} {median:>13}"
        )
    if comparisons:
        lines += ["", "paired differences, a minus b on the same games (95% CI, paired t-test p):"]
        for c in comparisons:
            p_f1, p_shots = c["f1"]["p_value"], c["shots"]["p_value"]
            lines.append(
                f"{c['a']} - {c['b']} ({count_noun(c['games'], 'game')}): F1 {_ci(c['f1'], 3)}"
                + ("" if p_f1 is None else f" p={p_f1:.3g}")
                + f"; shots {_ci(c['shots'], 1)}"
                + ("" if p_shots is None else f" p={p_shots:.3g}")
            )
    return "\n".join(lines)


__all__ = ["captain_comparisons", "captain_rows", "summary_text"]
