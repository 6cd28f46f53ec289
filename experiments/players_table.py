"""The README's players table: every player against greedy (`problog`) on the same boards, per board.

For each experiment folder given: per player, the games it finished, its mean shots, and its paired
difference against problog on the games both finished, with the 95% CI and p-value (negative: fewer
shots than greedy). Partial experiments count the games recorded so far.

usage:
  python experiments/players_table.py experiments/results/players-paper/* experiments/results/standard-10x10
Prints one Markdown table to stdout.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

from battlelog.report.markdown import interval, markdown_table, p_value, signed
from battlelog.report.summary import compare, player_order
from battlelog.runner.records import load_results, manifest_config
from battlelog.runner.task import OK

GREEDY = "problog"


def rows(folder: Path) -> list[list[str]]:
    """One row per player of the experiment in ``folder``."""
    manifest, records = load_results(folder)
    config = manifest_config(manifest)
    return player_rows(f"{config.shape} {','.join(map(str, config.ships))}", records)


def player_rows(label: str, records: list[dict[str, Any]]) -> list[list[str]]:
    """Per player of ``records`` (in the summaries' order): ``label``, the player, its finished games,
    its mean score, and its paired difference against problog with the 95% CI, p-value and pairs."""
    out = []
    for player in sorted({r["player"] for r in records}, key=player_order):
        scores = [r["score"] for r in records if r["player"] == player and r["status"] == OK]
        versus = compare(records, player, GREEDY) if player != GREEDY else None
        d = None if versus is None else versus.difference
        out.append([
            label, player, str(len(scores)), f"{statistics.fmean(scores):.2f}",
            "" if d is None else signed(d.mean), "" if d is None else interval(d.interval.low, d.interval.high),
            "" if d is None else p_value(d.p_value), "" if d is None else str(d.interval.n),
        ])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path, help="experiment folders")
    args = parser.parse_args()
    header = ["board", "player", "games", "mean shots", "minus problog", "95% CI", "p", "paired games"]
    print(markdown_table(header, [row for folder in args.folders for row in rows(folder)], align="llrrrrrr"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
