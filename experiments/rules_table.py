"""The rule-variants results page's tables: every player under each rule, and what each rule is worth.

Given experiment folders of one board and fleet played under different rules (one folder per rule, the
standard rules among them), prints two Markdown tables:

1. per rule and player: games, mean score with its 95% CI, and the paired difference against exact
   greedy (`problog`) under the same rule (the score is shots, or volleys under salvo);
2. per rule other than the standard one and per player: the mean score under that rule minus under
   the standard rules. Where both experiments played the very same boards (same seed, same touch rule:
   the sink rule does not change which layouts are drawn) the difference is paired game by game, and
   checked to be so layout by layout; otherwise (another touch rule draws other layouts) it is the
   difference of two independent means (Welch). Salvo experiments count volleys, not shots, so they
   appear in table 1 only.

usage:
  python experiments/rules_table.py experiments/results/standard-10x10 experiments/results/variants/*
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from players_table import player_rows

from battlelog.report.markdown import interval, markdown_table, p_value, signed
from battlelog.report.summary import player_order
from battlelog.runner.records import load_results
from battlelog.runner.task import OK
from battlelog.stats import PairedDifference, independent_difference, paired_difference

STANDARD = {"touch": "allowed", "sinks": "named"}


def rules_of(manifest: dict[str, Any]) -> dict[str, Any]:
    """The experiment's rules with every default filled in (old manifests have no ``rules`` key)."""
    return {**STANDARD, "salvo": 1, **manifest.get("rules", {})}


def rule_text(rules: dict[str, Any]) -> str:
    """A table's name for the rules: ``touch none``, ``sinks unnamed``, ``salvo 5``, or ``standard``."""
    parts = [f"{key} {rules[key]}" for key in ("touch", "sinks") if rules[key] != STANDARD[key]]
    parts += [f"salvo {rules['salvo']}"] if rules["salvo"] != 1 else []
    return ", ".join(parts) or "standard"


def finished(records: list[dict[str, Any]], player: str) -> dict[int, dict[str, Any]]:
    """The player's finished games by game number."""
    return {r["game"]: r for r in records if r["player"] == player and r["status"] == OK}


def rule_difference(variant: dict[int, dict[str, Any]], standard: dict[int, dict[str, Any]]) -> tuple[PairedDifference, str]:
    """Variant minus standard for one player: paired when every common game has the same layout."""
    common = sorted(variant.keys() & standard.keys())
    same_boards = bool(common) and all(variant[g]["layout"] == standard[g]["layout"] for g in common)
    if same_boards:
        return paired_difference([variant[g]["score"] for g in common], [standard[g]["score"] for g in common]), "paired"
    return independent_difference([r["score"] for r in variant.values()], [r["score"] for r in standard.values()]), "unpaired"


def worth_rows(rule: str, records: list[dict[str, Any]], standard: list[dict[str, Any]]) -> list[list[str]]:
    """Table 2's rows: each player's score under ``rule`` minus under the standard rules."""
    out = []
    for player in sorted({r["player"] for r in records} & {r["player"] for r in standard}, key=player_order):
        d, kind = rule_difference(finished(records, player), finished(standard, player))
        out.append(
            [rule, player, signed(d.mean), interval(d.interval.low, d.interval.high), p_value(d.p_value), kind, str(d.interval.n)]
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path, help="experiment folders, one per rule, the standard rules among them")
    args = parser.parse_args()
    loaded = [load_results(folder) for folder in args.folders]
    standard = [records for manifest, records in loaded if rule_text(rules_of(manifest)) == "standard"]
    if len(standard) != 1:
        raise SystemExit(f"rules_table.py: give exactly one experiment under the standard rules, got {len(standard)}")
    table1 = [row for manifest, records in loaded for row in player_rows(rule_text(rules_of(manifest)), records)]
    header = ["rules", "player", "games", "mean score", "minus problog", "95% CI", "p", "paired games"]
    print(markdown_table(header, table1, align="llrrrrrr"))
    print()
    table2 = [
        row
        for manifest, records in loaded
        if rule_text(rules_of(manifest)) != "standard" and rules_of(manifest)["salvo"] == 1
        for row in worth_rows(rule_text(rules_of(manifest)), records, standard[0])
    ]
    header = ["rules", "player", "minus standard", "95% CI", "p", "comparison", "games"]
    print(markdown_table(header, table2, align="llrrrlr"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
