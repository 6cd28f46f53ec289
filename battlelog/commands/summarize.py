"""Summarise a finished or partial experiment, one row per player.

Columns: games finished, games failed (by reason: memory, timeout, error), mean score (shots) with
its 95% confidence interval (Student t), median, standard deviation, min, max, and milliseconds per
move. Failed games are counted but not scored. The table is printed, and DIR/summary.csv and
DIR/summary.md are (re)written.

example:
  battlelog summarize results/
"""

from __future__ import annotations

import argparse
from pathlib import Path

from battlelog.experiment import GAMES, describe_experiment, load_results, summarize_records, summary_table, write_summary

HELP = "summarise the results of an experiment"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR", help="the output directory of `battlelog experiment` (its --out)")


def show_summary(out: Path) -> None:
    """Print the summary of the experiment in ``out`` and write its summary files."""
    manifest, records = load_results(out)
    rows = summarize_records(records)
    print(f"{describe_experiment(manifest)}: {len(records)} games recorded in {out / GAMES}")
    print(summary_table(rows))
    csv_path, md_path = write_summary(out, manifest, rows)
    print(f"wrote {csv_path} and {md_path}")


def run(args: argparse.Namespace) -> int:
    out = Path(args.directory)
    show_summary(out.parent if out.name == GAMES and out.is_file() else out)
    return 0
