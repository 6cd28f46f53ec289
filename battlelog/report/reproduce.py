"""Reproduce the BattleLog paper's Table 1, with the statistics it lacked.

For every configuration of the paper's table, all four players play the same boards through the
experiment runner (so the run resumes when interrupted and the exact player's memory is isolated
in workers). Then only the game records are read, and written out as:

  results.md / results.csv   mean shots with 95% CI per configuration and player, the paper's beside it
  paired.csv                 paired differences (problog - pdf, pdf - hunt-target) with CI and p-value
  plots/*.png                score distribution and CDF per configuration; means vs. the paper
  report.md                  all of it together, with the command, seed and wall time

Layout of the output directory: one experiment directory per configuration (``5x5_3-3-2/``), each
with its own experiment.json, games.jsonl and summary, then the files above at the top.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from battlelog.files import write_text
from battlelog.players.spec import parse_players
from battlelog.report.paper import PLAYERS, PaperRow, Reproduction, analyse, paper_table, slug
from battlelog.report.paper_files import paired_markdown, results_markdown, write_csvs, write_plots, write_report
from battlelog.runner.executors.base import Executor
from battlelog.runner.experiment import Experiment, run_experiment
from battlelog.wording import count_noun


def run_all(
    out: Path, rows: Sequence[PaperRow], games: int, seed: int, executor: Executor, players: Sequence[str], progress: bool
) -> tuple[int, int]:
    """Play (or resume) every configuration's experiment under ``out`` with ``players`` (canonical
    specs): (games played now, found recorded)."""
    played = before = 0
    for k, row in enumerate(rows, 1):
        line = f"[{k}/{len(rows)}] {row.config.label()}: {count_noun(games, 'game')} x {count_noun(len(players), 'player')}"
        experiment = Experiment(row.config, tuple(players), games, seed)
        said = partial(print, line, flush=True) if progress else None  # once its folder is locked for this run
        report = run_experiment(experiment, out / slug(row.config), executor, progress=progress, started=said)
        played, before = played + report.played, before + report.recorded_before
    return played, before


def reproduce(
    out: Path,
    games: int,
    seed: int,
    executor: Executor,
    engine: str | None = None,
    rows: Sequence[PaperRow] | None = None,
    command: str = "battlelog reproduce",
    progress: bool = True,
) -> Reproduction:
    """Run (or resume) every configuration, then write the tables, plots and report into ``out``.

    ``engine`` is the engine of the paper's players that take one (the exact player). ``out`` is
    created with the first configuration's experiment, so a refused run leaves nothing behind.
    """
    rows = list(paper_table() if rows is None else rows)
    players = [spec.label for spec in parse_players(",".join(PLAYERS), engine)]
    start = time.perf_counter()
    played = run_all(out, rows, games, seed, executor, players, progress)
    wall = time.perf_counter() - start
    result = analyse(out, rows, players)
    write_text(out / "results.md", results_markdown(result) + "\n\n" + paired_markdown(result) + "\n")
    write_csvs(out, result)
    plots = write_plots(out, result, rows)
    write_report(out, result, plots, command, seed, wall, played)
    return result


__all__ = ["reproduce", "run_all"]
