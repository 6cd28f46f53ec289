"""Issue 18's results tables (pre-registered in docs/priors.md): what knowing the hider is worth.

Given experiment folders of one board each played against a hider (`battlelog experiment --hider H`)
with the players `problog`, `problog[belief=hider]`, `problog[belief=learn]` (and, against the uniform
hider, `problog[belief=edge-hugger]`), prints two Markdown tables:

1. per board, hider and comparison: the paired difference in shots on the games both players finished
   (negative: the first needs fewer shots), its 95% CI, the two-sided paired t-test's p, and whether p
   clears the pre-registered Bonferroni threshold 0.05 / 30 (5 hiders x 2 boards x 3 comparisons);
2. the learning curve: `belief=learn` minus `problog`, paired, in the pre-registered blocks of games
   (games seen before the block: 5, 10, 20, 50, 200).

With ``--costs``, a third: what each player's finished games cost, from the records (``seconds``: its
thinking time in a game; ``peak_mb``: the worker's peak resident memory during it).

Partial experiments count the games recorded so far.

usage:
  python experiments/priors_table.py experiments/results/priors/*
  python experiments/priors_table.py experiments/results/priors/10x10-* --learn 'problog[belief=learn,features=edge+vertical]'
  python experiments/priors_table.py experiments/results/priors/10x10-spreader --costs
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from battlelog.report.markdown import interval, markdown_table, p_value, signed
from battlelog.rules.hiders import spec_text
from battlelog.runner.records import load_results, manifest_config, manifest_hider
from battlelog.runner.task import OK
from battlelog.stats import paired_difference

GREEDY, TOLD, LEARN, WRONG = "problog", "problog[belief=hider]", "problog[belief=learn]", "problog[belief=edge-hugger]"
#: The comparisons of every hider and board, then the one made against the uniform hider only.
COMPARISONS = ((TOLD, GREEDY), (LEARN, GREEDY), (LEARN, TOLD))
WRONG_BELIEF = (WRONG, GREEDY)
#: The pre-registered threshold: 0.05 over 5 hiders x 2 boards x 3 comparisons.
THRESHOLD = 0.05 / 30
#: The learning curve's blocks of games, first included, last excluded (None: to the end).
BLOCKS = ((5, 10), (10, 20), (20, 50), (50, 200), (200, None))


def scores(records: list[dict[str, Any]], player: str) -> dict[int, int]:
    """The player's shots by game number, finished games only."""
    return {r["game"]: r["score"] for r in records if r["player"] == player and r["status"] == OK}


def difference_row(label: list[str], a: dict[int, int], b: dict[int, int], games: range | None = None) -> list[str] | None:
    """``label`` followed by ``a - b`` on their common games (within ``games``), or None if none."""
    common = sorted(g for g in a.keys() & b.keys() if games is None or g in games)
    if not common:
        return None
    d = paired_difference([a[g] for g in common], [b[g] for g in common])
    clears = d.p_value is not None and d.p_value < THRESHOLD
    return [
        *label, str(len(common)), signed(d.mean), interval(d.interval.low, d.interval.high), p_value(d.p_value),
        "yes" if clears else "no",
    ]


def cost_rows(board: str, hider: str, records: list[dict[str, Any]]) -> list[list[str]]:
    """Per player: finished games, their mean and longest ``seconds``, and the largest ``peak_mb`` recorded."""
    rows = []
    for player in dict.fromkeys(r["player"] for r in records):
        done = [r for r in records if r["player"] == player and r["status"] == OK]
        seconds, peaks = [r["seconds"] for r in done], [r["peak_mb"] for r in done if r.get("peak_mb") is not None]
        if done:
            most = f"{max(peaks):,.0f}" if peaks else "-"
            rows.append([board, hider, player, str(len(done)), f"{sum(seconds) / len(seconds):.1f}", f"{max(seconds):.1f}", most])
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path, help="experiment folders, one per board and hider")
    parser.add_argument("--learn", default=LEARN, metavar="PLAYER", help=f"the adaptive player's label (default: {LEARN})")
    parser.add_argument("--costs", action="store_true", help="also print each player's seconds a game and peak memory")
    args = parser.parse_args()
    learn = args.learn
    comparisons, curve, costs = [], [], []
    for folder in args.folders:
        manifest, records = load_results(folder)
        config, hider = manifest_config(manifest), spec_text(manifest_hider(manifest))
        board = f"{config.shape} {','.join(map(str, config.ships))}"
        pairs = tuple((learn if a == LEARN else a, learn if b == LEARN else b) for a, b in COMPARISONS)
        pairs += (WRONG_BELIEF,) if manifest_hider(manifest).is_uniform else ()
        for first, second in pairs:
            row = difference_row([board, hider, f"{first} - {second}"], scores(records, first), scores(records, second))
            comparisons += [row] if row else []
        last = 1 + max((r["game"] for r in records), default=-1)
        for start, stop in BLOCKS:
            block = range(start, last if stop is None else stop)
            row = difference_row(
                [board, hider, f"{block.start}-{block.stop - 1}"], scores(records, learn), scores(records, GREEDY), block
            )
            curve += [row] if row else []
        costs += cost_rows(board, hider, records)
    header = ["board", "hider", "difference", "games", "mean", "95% CI", "p", f"p < {THRESHOLD:.4f}"]
    print(markdown_table(header, comparisons, align="lllrrrrl"))
    print()
    header = ["board", "hider", "games (block)", "games", "learn - problog", "95% CI", "p", f"p < {THRESHOLD:.4f}"]
    print(markdown_table(header, curve, align="lllrrrrl"))
    if args.costs:
        print()
        header = ["board", "hider", "player", "games", "seconds a game (mean)", "longest", "peak MB (largest)"]
        print(markdown_table(header, costs, align="lllrrrr"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
