"""The BattleLog paper's Table 1 and what battlelog's game records say about each of its cells.

The paper's figures ship with the package (``battlelog/data/paper_table1.csv``); :func:`analyse` reads
the records of a reproduction (one experiment directory per configuration) and computes every
player's mean with its interval, the paired differences the paper lacked, and the scores for plots.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from battlelog.report.summary import (
    Comparison,
    all_comparisons,
    compare,
    summarize_records,
    write_summary,
)
from battlelog.rules.config import GameConfig
from battlelog.runner.records import load_results
from battlelog.runner.task import OK

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
    return f"{config.shape}_{'-'.join(map(str, config.ships))}"


def random_closed_form(config: GameConfig) -> float:
    """Mean score of the random player: K(M+1)/(K+1), the negative hypergeometric mean."""
    k, m = config.ship_cells, config.cell_count
    return k * (m + 1) / (k + 1)


def random_closed_form_sd(config: GameConfig) -> float:
    """Standard deviation of the random player's score: sqrt(K(M+1)(M-K) / ((K+1)^2 (K+2)))."""
    k, m = config.ship_cells, config.cell_count
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


def analyse(out: Path, rows: Sequence[PaperRow], configurations: Sequence[str] = PLAYERS) -> Reproduction:
    """Read every configuration's records and compute the table, the paired differences and the scores.

    ``configurations`` are the canonical specs the paper's players played as, in :data:`PLAYERS`' order
    (``problog[engine=sdd]`` for the exact player on the sdd engine); the tables name the paper's players.
    """
    label = dict(zip(PLAYERS, configurations, strict=True))
    cells, comparisons, scores = [], [], {}
    for row in rows:
        manifest, records = load_results(out / slug(row.config))
        summaries = {summary.player: summary for summary in summarize_records(records)}
        write_summary(out / slug(row.config), manifest, list(summaries.values()), all_comparisons(records))
        scores[slug(row.config)] = {
            p: [r["score"] for r in records if r["player"] == label[p] and r["status"] == OK] for p in PLAYERS
        }
        for player in PLAYERS:
            summary = summaries.get(label[player])
            ci = summary.scores.ci if summary is not None else None
            cells.append(
                CellResult(
                    row.config, player, summary.scores.n if summary else 0, summary.failed if summary else 0,
                    None if ci is None else ci.mean, None if ci is None else ci.low, None if ci is None else ci.high,
                    row.means.get(player), summary.seconds_per_move if summary else None,
                )
            )  # fmt: skip
        for a, b in COMPARISONS:
            comparison = compare(records, label[a], label[b])
            if comparison is not None:
                comparisons.append((row.config, comparison))
    return Reproduction(cells, comparisons, scores)
