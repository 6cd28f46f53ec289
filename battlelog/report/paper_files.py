"""The files of a reproduction: results.md / results.csv, paired.csv, plots/*.png and report.md."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path

from battlelog.files import write_csv, write_text
from battlelog.report.markdown import interval, markdown_table, number
from battlelog.report.paper import PLAYERS, CellResult, PaperRow, Reproduction, random_closed_form, random_closed_form_sd, slug
from battlelog.report.plots import plot_distributions, plot_means_vs_paper
from battlelog.report.summary import (
    COMPARISON_HEADER,
    comparison_cells,
)
from battlelog.rules.config import GameConfig, format_ships


def _board(config: GameConfig) -> list[str]:
    return [config.shape, format_ships(config.ships)]


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
            str(c.config.ship_cells), str(c.config.cell_count), f"{expected:.3f}",
            f"{c.mean:.3f} {interval(c.ci_low, c.ci_high, 3)}", "yes" if inside else "no",
            f"{z:+.2f}", f"{math.erfc(abs(z) / math.sqrt(2)):.2g}",
        ])  # fmt: skip
    header = ["board", "ships", "K", "M", "closed form", "measured mean [95% CI]", "inside CI", "z (exact sd)", "p"]
    return markdown_table(header, rows, align="llrrrrlrr")


def write_csvs(out: Path, result: Reproduction) -> None:
    """results.csv (one row per configuration and player) and paired.csv (one row per comparison)."""
    write_csv(
        out / "results.csv",
        ["board", "ships", "player", "games", "failed", "mean", "ci_low", "ci_high", "paper", "seconds_per_move"],
        ([c.config.size, format_ships(c.config.ships), c.player, c.games, c.failed, c.mean, c.ci_low, c.ci_high, c.paper,
          c.seconds_per_move] for c in result.cells),
    )  # fmt: skip
    write_csv(
        out / "paired.csv",
        ["board", "ships", "a", "b", "games", "mean_a_minus_b", "ci_low", "ci_high", "p_value", "significant"],
        ([config.size, format_ships(config.ships), comparison.a, comparison.b, comparison.difference.interval.n,
          comparison.difference.mean, comparison.difference.interval.low, comparison.difference.interval.high,
          comparison.difference.p_value, comparison.difference.significant] for config, comparison in result.comparisons),
    )  # fmt: skip


def write_plots(out: Path, result: Reproduction, rows: Sequence[PaperRow]) -> list[Path]:
    """One distribution figure per configuration and the means-vs-paper bar chart."""
    plots = out / "plots"
    plots.mkdir(exist_ok=True)
    paths = []
    for row in rows:
        path = plots / f"scores_{slug(row.config)}.png"
        plot_distributions(result.scores[slug(row.config)], row.config.label(), path, row.config.cell_count)
        paths.append(path)
    bars = [
        {
            "config": c.config.label(),
            "player": c.player,
            "mean": c.mean,
            "ci_low": c.ci_low,
            "ci_high": c.ci_high,
            "paper": c.paper,
        }
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
    write_text(path, text)
    return path
