"""Summarise a finished or partial experiment: one row per player, and how the players differ.

Columns: games finished, games failed (by reason: memory, timeout, error), mean score (shots) with
its 95% confidence interval (Student t), median, standard deviation, min, max, and milliseconds per
move. Failed games are counted but not scored: a player with failed games is marked with *, and its
statistics are over its finished games only. Below it, the paired difference of every two players on
the boards both finished (mean, 95% CI, paired t-test), as `battlelog reproduce` reports them. The
tables are printed, and DIR/summary.csv and DIR/summary.md are (re)written; where they cannot be
(a read-only folder), the tables are still printed, then one line says so and the status is 2.

Below them, each player's distribution of shots: the quantiles (the fewest shots within which 10%, 25%,
50%, 75% and 90% of its games finished) and the chance to finish within k shots. --duel adds the
head-to-head table: for every two players on the boards both finished, the chance that A finishes first
when A shoots first (T_A <= T_B), when B does (T_A < T_B), and alternating (their mean), with 95% intervals
(docs/duel.md). --json prints all of it as one JSON object instead of tables.

--retry-failed first replays every failed game (same board, player and options) under the limits
given here, each replay replacing its failure in DIR/games.jsonl.

The folder of a captain run (`battlelog captain --out DIR`) is summarised as a captain run: each
captain's games, wins, mean F1 and shots with 95% intervals, questions and move time, and the paired
differences of every two captains on the same games (--json: one object; nothing is written).

example:
  battlelog summarize results/
  battlelog summarize results/ --plots --csv
  battlelog summarize results/ --duel --json
  battlelog summarize results/ --retry-failed --time-limit 3600 --memory-limit 16G
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from battlelog.commands.boards import output_path
from battlelog.commands.common import add_executor_arguments, add_limit_arguments, executor_from
from battlelog.errors import BattlelogError, WriteError
from battlelog.runner.records import ARCHIVE, GAMES, journal_path
from battlelog.wording import count_noun

if TYPE_CHECKING:
    from battlelog.report.duel import Distribution, Duel
    from battlelog.report.summary import Comparison, PlayerSummary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "directory", metavar="DIR", help="the output directory of `battlelog experiment` or `battlelog captain` (its --out)"
    )
    parser.add_argument(
        "--plots", action="store_true", help="also write DIR/plots/scores.png: the distribution of shots and its CDF"
    )
    parser.add_argument("--csv", action="store_true", help="also write DIR/games.csv: one row per game, failed ones included")
    parser.add_argument(
        "--duel",
        action="store_true",
        help="also show the head-to-head table: the chance that each player finishes before each other",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the summary, distributions (and duels) as one JSON object instead of tables"
    )
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="first replay the failed games, under the limits below, replacing their records",
    )
    group = parser.add_argument_group("limits and executor of --retry-failed")
    add_limit_arguments(group)
    add_executor_arguments(group)


def recorded_games(out: Path) -> int:
    """How many games ``out`` records (0 when there is no experiment there, e.g. one refused before its first game)."""
    from battlelog.runner.records import MANIFEST, load_results

    return len(load_results(out)[1]) if (out / MANIFEST).is_file() else 0


def show_summary(out: Path, plots: bool = False, games_csv: bool = False, duels: bool = False, as_json: bool = False) -> None:
    """Print the summary of the experiment in ``out`` (as JSON with ``as_json``) and write its summary files
    (and plots, CSV if asked); with ``duels``, the head-to-head table too."""
    from battlelog.report.duel import DISTRIBUTION_TITLE, DUEL_TITLE, all_duels, distribution_table, distributions, duel_table
    from battlelog.report.summary import (
        GAMES_CSV,
        PLOTS,
        all_comparisons,
        comparisons_table,
        paired_title,
        score_unit,
        summarize_records,
        summary_table,
        write_games_csv,
        write_score_plot,
        write_summary,
    )
    from battlelog.runner.records import describe_experiment, load_results

    manifest, records = load_results(out)
    rows = summarize_records(records)
    comparisons = all_comparisons(records)
    shapes = distributions(records)
    head_to_head = all_duels(records) if duels else []
    unit = score_unit(manifest)
    sections = [f"{DISTRIBUTION_TITLE.format(unit=unit)}:\n\n{distribution_table(shapes, unit)}"]
    if head_to_head:
        sections.append(f"{DUEL_TITLE}:\n\n{duel_table(head_to_head)}")
    if as_json:
        print(
            json.dumps(
                summary_json(describe_experiment(manifest), unit, rows, comparisons, shapes, head_to_head if duels else None)
            )
        )
    else:
        print(f"{describe_experiment(manifest)}: {count_noun(len(records), 'game')} recorded in {journal_path(out)}")
        print(summary_table(rows, unit))
        if comparisons:
            print(f"\n{paired_title(unit)}:")
            print(comparisons_table(comparisons, unit))
        for section in sections:
            print("\n" + section)
    try:
        written = list(write_summary(out, manifest, rows, comparisons, sections))
        if games_csv:
            written.append(write_games_csv(out / GAMES_CSV, records))
        if plots:
            written.append(write_score_plot(out / PLOTS / "scores.png", manifest, records))
    except WriteError as exc:
        # The tables are shown; the files are not there, and a script that reads them must know: status 2.
        raise WriteError(f"{exc}; the tables above are complete, the summary files are not written") from None
    except OSError as exc:  # the plots' folder
        where = exc.filename or out
        raise WriteError(
            f"{where}: cannot write ({exc.strerror}); the tables above are complete, the summary files are not written"
        ) from None
    # Under --json stdout holds the JSON alone.
    print("wrote " + ", ".join(map(str, written[:-1])) + f" and {written[-1]}", file=sys.stderr if as_json else sys.stdout)


def summary_json(
    label: str,
    unit: str,
    rows: list[PlayerSummary],
    comparisons: list[Comparison],
    shapes: list[Distribution],
    duels: list[Duel] | None,
) -> dict[str, Any]:
    """--json: each player's summary row with its distribution, the paired differences, and the duels when asked."""
    from battlelog.report.duel import distribution_json
    from battlelog.report.summary import summary_row

    shape_of = {shape.player: shape for shape in shapes}
    players = [{**summary_row(row), **distribution_json(shape_of[row.player])} for row in rows if row.player in shape_of]
    differences = [
        {"a": c.a, "b": c.b, "games": c.difference.interval.n, "mean": c.difference.mean, "ci_low": c.difference.interval.low,
         "ci_high": c.difference.interval.high, "p_value": c.difference.p_value}
        for c in comparisons
    ]  # fmt: skip
    figures: dict[str, Any] = {"experiment": label, "unit": unit, "players": players, "comparisons": differences}
    if duels is not None:
        figures["duel"] = [d.to_json() for d in duels]
    return figures


def show_captain_summary(out: Path, args: argparse.Namespace) -> None:
    """Print the summary of the captain run in ``out`` (as JSON with --json); the experiment's options do not apply."""
    from battlelog.captain.records import describe, load_captain_results
    from battlelog.captain.summary import captain_comparisons, captain_rows, summary_text

    given = [flag for flag, on in (("--plots", args.plots), ("--csv", args.csv), ("--duel", args.duel),
                                   ("--retry-failed", args.retry_failed)) if on]  # fmt: skip
    if given:
        raise BattlelogError(f"{out} holds a captain run: {given[0]} is for experiments (a captain run takes --json alone)")
    manifest, records = load_captain_results(out)
    rows, comparisons = captain_rows(records), captain_comparisons(records)
    if args.json:
        print(json.dumps({"run": "captain", "describe": describe(manifest), "captains": rows, "comparisons": comparisons}))
        return
    print(f"{describe(manifest)}: {count_noun(len(records), 'game')} recorded in {journal_path(out)}")
    print(summary_text(rows, comparisons))


def run(args: argparse.Namespace) -> int:
    from battlelog.captain.records import is_captain_run

    out = output_path(args.directory, "DIR")
    out = out.parent if out.name in (GAMES, ARCHIVE) and out.is_file() else out
    if is_captain_run(out):
        show_captain_summary(out, args)
        return 0
    if args.retry_failed:
        from battlelog.runner.experiment import retry_failed
        from battlelog.runner.records import read_manifest

        read_manifest(out)  # a directory without an experiment is an error before any worker starts
        with executor_from(args) as executor:
            report = retry_failed(out, executor)
        print(f"replayed {count_noun(report.played, 'failed game')} ({report.failed} failed again)")
    show_summary(out, plots=args.plots, games_csv=args.csv, duels=args.duel, as_json=args.json)
    return 0
