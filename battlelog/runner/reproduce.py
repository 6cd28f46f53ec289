"""Reproduce the BattleLog paper's Table 1, with the statistics it lacked.

For every configuration of the paper's table, all four players play the same boards through the
experiment runner (so the run resumes when interrupted and the ProbLog player's memory is isolated
in workers). Then this module only reads the game records and writes:

  results.md / results.csv   mean shots with 95% CI per configuration and player, the paper's beside it
  paired.csv                 paired differences (problog - pdf, pdf - hunt-target) with CI and p-value
  plots/*.png                score distribution and CDF per configuration; means vs. the paper
  report.md                  all of it together, with the command, seed and wall time

Layout of the output directory: one experiment directory per configuration (``5x5_3-3-2/``), each
with its own experiment.json, games.jsonl and summary, then the files above at the top.
"""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from battlelog.engines import DEFAULT_ENGINE
from battlelog.report.markdown import interval, markdown_table, number
from battlelog.report.plots import plot_distributions, plot_means_vs_paper
from battlelog.report.summary import (
    COMPARISON_HEADER,
    Comparison,
    all_comparisons,
    compare,
    comparison_cells,
    summarize_records,
    write_summary,
)
from battlelog.rules.game import GameConfig, format_ships
from battlelog.runner.executors.base import Executor
from battlelog.runner.experiment import Experiment, run_experiment
from battlelog.runner.harness import OK
from battlelog.runner.journal import load_results

#: The paper's players, in its column order; the CSV names hunt-target "hunt_target".
PLAYERS = ("random", "hunt-target", "pdf", "problog")
#: Paired comparisons the report makes: (a, b) reports a - b on the same boards.
COMPARISONS = (("problog", "pdf"), ("pdf", "hunt-target"))


@dataclass(frozen=True)
class PaperRow:
    """One configuration of the paper's Table 1 and its reported mean shots per player."""

    config: GameConfig
    means: Mapping[str, float]


def paper_table() -> list[PaperRow]:
    """The paper's Table 1, shipped with the package (battlelog/data/paper_table1.csv)."""
    text = resources.files("battlelog").joinpath("data/paper_table1.csv").read_text()
    rows = []
    for row in csv.DictReader(text.splitlines()):
        config = GameConfig(int(row["board"]), tuple(int(s) for s in row["ships"].split(",")))
        rows.append(PaperRow(config, {p: float(row[p.replace("-", "_")]) for p in PLAYERS}))
    return rows


def slug(config: GameConfig) -> str:
    """A directory name for a configuration: ``5x5_3-3-2``."""
    return f"{config.size}x{config.size}_{'-'.join(map(str, config.ships))}"


def random_closed_form(config: GameConfig) -> float:
    """Mean score of the random player: K(M+1)/(K+1), the negative hypergeometric mean."""
    k, m = config.ship_cells, config.cells
    return k * (m + 1) / (k + 1)


def random_closed_form_sd(config: GameConfig) -> float:
    """Standard deviation of the random player's score: sqrt(K(M+1)(M-K) / ((K+1)^2 (K+2)))."""
    k, m = config.ship_cells, config.cells
    return math.sqrt(k * (m + 1) * (m - k) / ((k + 1) ** 2 * (k + 2)))


@dataclass(frozen=True)
class CellResult:
    """One configuration and player: finished games, failures, mean with CI, and the paper's mean."""

    config: GameConfig
    player: str
    games: int
    failed: int
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    paper: float | None
    seconds_per_move: float | None


@dataclass(frozen=True)
class Reproduction:
    """Everything the report shows; built from the game records alone."""

    cells: list[CellResult]
    comparisons: list[tuple[GameConfig, Comparison]]
    scores: dict[str, dict[str, list[int]]]  # slug -> player -> scores of finished games


def run_all(
    out: Path, rows: Sequence[PaperRow], games: int, seed: int, executor: Executor, engine: str | None, progress: bool
) -> tuple[int, int]:
    """Play (or resume) every configuration's experiment under ``out``: (games played now, found recorded)."""
    played = before = 0
    options = {"problog": {"engine": engine or DEFAULT_ENGINE}}
    for k, row in enumerate(rows, 1):
        if progress:
            print(f"[{k}/{len(rows)}] {row.config.label()}: {games} games x {len(PLAYERS)} players", flush=True)
        experiment = Experiment(row.config, PLAYERS, games, seed, options)
        report = run_experiment(experiment, out / slug(row.config), executor, progress=progress)
        played, before = played + report.played, before + report.recorded_before
    return played, before


def analyse(out: Path, rows: Sequence[PaperRow]) -> Reproduction:
    """Read every configuration's records and compute the table, the paired differences and the scores."""
    cells, comparisons, scores = [], [], {}
    for row in rows:
        manifest, records = load_results(out / slug(row.config))
        summaries = {summary.player: summary for summary in summarize_records(records)}
        write_summary(out / slug(row.config), manifest, list(summaries.values()), all_comparisons(records))
        scores[slug(row.config)] = {
            p: [r["score"] for r in records if r["player"] == p and r["status"] == OK] for p in PLAYERS
        }
        for player in PLAYERS:
            summary = summaries.get(player)
            ci = summary.scores.ci if summary is not None else None
            cells.append(
                CellResult(
                    row.config, player, summary.scores.n if summary else 0, summary.failed if summary else 0,
                    None if ci is None else ci.mean, None if ci is None else ci.low, None if ci is None else ci.high,
                    row.means.get(player), summary.seconds_per_move if summary else None,
                )
            )  # fmt: skip
        for a, b in COMPARISONS:
            comparison = compare(records, a, b)
            if comparison is not None:
                comparisons.append((row.config, comparison))
    return Reproduction(cells, comparisons, scores)


def _board(config: GameConfig) -> list[str]:
    return [f"{config.size}x{config.size}", format_ships(config.ships)]


def results_markdown(result: Reproduction) -> str:
    """Table 1 reproduced: per configuration, each player's mean [95% CI] and the paper's number.

    A cell with failed games says so: its mean is over the finished games only.
    """
    by_config: dict[GameConfig, dict[str, CellResult]] = {}
    for cell in result.cells:
        by_config.setdefault(cell.config, {})[cell.player] = cell
    rows = []
    for config, cells in by_config.items():
        parts = []
        for player in PLAYERS:
            c = cells[player]
            mean = "-" if c.mean is None else f"{c.mean:.2f} {interval(c.ci_low, c.ci_high)}"
            parts += [mean + (f" ({c.failed} failed, not scored)" if c.failed else ""), number(c.paper, 1)]
        rows.append(_board(config) + parts)
    header = ["board", "ships"] + [name for p in PLAYERS for name in (p, "paper")]
    return markdown_table(header, rows, align="ll" + "rr" * len(PLAYERS))


def paired_markdown(result: Reproduction) -> str:
    """Paired differences with their intervals and whether they are significant at 95%."""
    rows = [_board(config) + comparison_cells(c) for config, c in result.comparisons]
    return markdown_table(["board", "ships", *COMPARISON_HEADER], rows, align="lllrrrrl")


def random_check_markdown(result: Reproduction) -> str:
    """The random column against its closed form K(M+1)/(K+1), with an exact z-test.

    The score's standard deviation is known exactly too, so z = (mean - K(M+1)/(K+1)) / (sd / sqrt(n))
    and its two-sided p-value test the random player itself, not just the sample's own interval.
    """
    rows = []
    for c in result.cells:
        if c.player != "random" or c.mean is None:
            continue
        expected = random_closed_form(c.config)
        inside = c.ci_low is not None and c.ci_low <= expected <= c.ci_high  # type: ignore[operator]
        z = (c.mean - expected) / (random_closed_form_sd(c.config) / math.sqrt(c.games))
        rows.append(_board(c.config) + [
            str(c.config.ship_cells), str(c.config.cells), f"{expected:.3f}", f"{c.mean:.3f} {interval(c.ci_low, c.ci_high, 3)}",
            "yes" if inside else "no", f"{z:+.2f}", f"{math.erfc(abs(z) / math.sqrt(2)):.2g}",
        ])  # fmt: skip
    header = ["board", "ships", "K", "M", "closed form", "measured mean [95% CI]", "inside CI", "z (exact sd)", "p"]
    return markdown_table(header, rows, align="llrrrrlrr")


def write_csvs(out: Path, result: Reproduction) -> None:
    """results.csv (one row per configuration and player) and paired.csv (one row per comparison)."""
    with open(out / "results.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["board", "ships", "player", "games", "failed", "mean", "ci_low", "ci_high", "paper", "seconds_per_move"])
        for c in result.cells:
            writer.writerow([c.config.size, format_ships(c.config.ships), c.player, c.games, c.failed,
                             c.mean, c.ci_low, c.ci_high, c.paper, c.seconds_per_move])  # fmt: skip
    with open(out / "paired.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["board", "ships", "a", "b", "games", "mean_a_minus_b", "ci_low", "ci_high", "p_value", "significant"])
        for config, comparison in result.comparisons:
            d = comparison.difference
            writer.writerow([config.size, format_ships(config.ships), comparison.a, comparison.b, d.interval.n, d.mean,
                             d.interval.low, d.interval.high, d.p_value, d.significant])  # fmt: skip


def write_plots(out: Path, result: Reproduction, rows: Sequence[PaperRow]) -> list[Path]:
    """One distribution figure per configuration and the means-vs-paper bar chart."""
    plots = out / "plots"
    plots.mkdir(exist_ok=True)
    paths = []
    for row in rows:
        path = plots / f"scores_{slug(row.config)}.png"
        plot_distributions(result.scores[slug(row.config)], row.config.label(), path, row.config.cells)
        paths.append(path)
    bars = [
        {"config": c.config.label(), "player": c.player, "mean": c.mean, "ci_low": c.ci_low, "ci_high": c.ci_high, "paper": c.paper}
        for c in result.cells
        if c.mean is not None and c.ci_low is not None
    ]
    path = plots / "means_vs_paper.png"
    plot_means_vs_paper(bars, PLAYERS, path)
    paths.append(path)
    return paths


def write_report(
    out: Path, result: Reproduction, plots: Iterable[Path], command: str, seed: int, wall: float, played: tuple[int, int]
) -> Path:
    """report.md: the command, the tables, the random check and the figures."""
    failed = sum(c.failed for c in result.cells)
    now, before = played
    figures = "\n".join(f"![{p.stem}](plots/{p.name})" for p in plots)
    text = f"""# BattleLog Table 1, reproduced by battlelog

Produced by `{command}` (seed {seed}). The invocation that wrote this report played {now} games in
{wall:.0f} s of wall time and found {before} already recorded (a resumed run counts only its own
part); {failed} game(s) failed in all (see each configuration's games.jsonl).

Scores are shots to sink the whole fleet (lower is better). Every player played the same boards in
each configuration, drawn uniformly from all valid layouts. Intervals are 95% Student-t intervals.

## Mean shots per configuration and player, beside the paper's

{results_markdown(result)}

## Which differences are real: paired differences on the same boards

A negative mean means the first player needs fewer shots. "significant" means the 95% interval
excludes zero.

{paired_markdown(result)}

## The random player against its closed form

With K ship cells among M cells, random's score is negative hypergeometric: mean K(M+1)/(K+1),
standard deviation sqrt(K(M+1)(M-K)/((K+1)^2(K+2))). Each 95% interval misses the true mean 5% of the
time by chance, so with six configurations at least one "no" is expected about one run in four
(1 - 0.95^6 = 26%); a p-value far below 0.05/6 in several rows would point at a real bias.

{random_check_markdown(result)}

## Figures

{figures}
"""
    path = out / "report.md"
    path.write_text(text)
    return path


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

    ``out`` is created with the first configuration's experiment, so a refused run leaves nothing behind.
    """
    rows = list(paper_table() if rows is None else rows)
    start = time.perf_counter()
    played = run_all(out, rows, games, seed, executor, engine, progress)
    wall = time.perf_counter() - start
    result = analyse(out, rows)
    (out / "results.md").write_text(results_markdown(result) + "\n\n" + paired_markdown(result) + "\n")
    write_csvs(out, result)
    plots = write_plots(out, result, rows)
    write_report(out, result, plots, command, seed, wall, played)
    return result


__all__ = ["COMPARISONS", "PLAYERS", "PaperRow", "paper_table", "random_closed_form", "random_closed_form_sd", "reproduce", "results_markdown"]
