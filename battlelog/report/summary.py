"""What an experiment's game records say: per-player summaries, paired differences, exports and plots.

Everything here reads records (see :mod:`battlelog.runner.journal`) and nothing plays. Failed games are
counted, never scored, and never silently: a player with failures is marked in the summary table,
whose note says that its statistics are over finished games only. Paired differences compare two
players on the games both finished, so a game one of them failed drops out of that comparison.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from battlelog.files import write_csv, write_text
from battlelog.players import PLAYERS
from battlelog.players.spec import spec_name
from battlelog.report.markdown import interval, markdown_table, milliseconds, number, p_value, signed
from battlelog.runner.records import describe_experiment, manifest_config
from battlelog.runner.task import OK, STATUSES
from battlelog.stats import PairedDifference, ScoreSummary, paired_difference, summarize_scores

SUMMARY_CSV, SUMMARY_MD, GAMES_CSV, PLOTS = "summary.csv", "summary.md", "games.csv", "plots"

#: How a player with failed games is marked in the summary table, and the note that explains it.
FAILED_MARK = " *"
FAILED_NOTE = (
    "* some games of this player failed: its statistics are over its finished games only"
    " (failures are counted, not scored)"
)


# ----- per player --------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlayerSummary:
    """One row of the summary: statistics of a player's finished games, and its failures by reason."""

    player: str
    scores: ScoreSummary
    failures: Mapping[str, int]
    seconds_per_move: float | None

    @property
    def failed(self) -> int:
        return sum(self.failures.values())


def player_order(player: str) -> tuple[int, str]:
    """Registered players in the registry's order (weakest first, as the paper's table), each before its
    other configurations (``mc``, then ``mc[samples=200]``), then the rest."""
    names, name = list(PLAYERS), spec_name(player)
    return (names.index(name), "" if player == name else player) if name in names else (len(names), player)


def summarize_records(records: list[dict[str, Any]]) -> list[PlayerSummary]:
    """Per-player statistics over finished games; failed games are counted, not scored."""
    by_player: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_player.setdefault(record["player"], []).append(record)
    rows = []
    for player in sorted(by_player, key=player_order):
        finished = [r for r in by_player[player] if r["status"] == OK]
        failures = Counter(r["status"] for r in by_player[player] if r["status"] != OK)
        moves = sum(r["score"] for r in finished)
        rows.append(
            PlayerSummary(
                player,
                summarize_scores([r["score"] for r in finished]),
                dict(sorted(failures.items())),
                sum(r["seconds"] for r in finished) / moves if moves else None,
            )
        )
    return rows


def _cells(row: PlayerSummary) -> list[str]:
    s = row.scores
    low, high = (s.ci.low, s.ci.high) if s.ci is not None else (None, None)
    failed = str(row.failed) + (" (" + ", ".join(f"{n} {why}" for why, n in row.failures.items()) + ")" if row.failed else "")
    return [
        row.player + (FAILED_MARK if row.failed else ""), str(s.n), failed, number(s.mean), interval(low, high),
        number(s.median, 1), number(s.std), number(s.min, 0), number(s.max, 0), milliseconds(row.seconds_per_move),
    ]  # fmt: skip


SUMMARY_HEADER = ["player", "games", "failed", "mean", "95% CI", "median", "std", "min", "max", "ms/move"]
#: The same under salvo, where a score counts volleys and a move chooses a whole volley.
SALVO_HEADER = ["player", "games", "failed", "mean volleys", "95% CI", "median", "std", "min", "max", "ms/volley"]

#: What a score counts: shots, or under salvo volleys.
SHOTS, VOLLEYS = "shots", "volleys"


def score_unit(manifest: Mapping[str, Any]) -> str:
    """``volleys`` for an experiment under salvo (its manifest's rules name one), else ``shots``."""
    rules = manifest.get("rules")
    return VOLLEYS if isinstance(rules, Mapping) and rules.get("salvo", 1) != 1 else SHOTS


def summary_table(rows: list[PlayerSummary], unit: str = SHOTS) -> str:
    """The summary as an aligned Markdown table, with the note on failures below it when any game failed;
    under salvo (``unit`` volleys) its columns say volleys."""
    table = markdown_table(SALVO_HEADER if unit == VOLLEYS else SUMMARY_HEADER, [_cells(row) for row in rows])
    return table + ("\n\n" + FAILED_NOTE if any(row.failed for row in rows) else "")


# ----- paired differences ------------------------------------------------------------------------
def paired_scores(records: list[dict[str, Any]], a: str, b: str) -> tuple[list[int], list[int]]:
    """Scores of players ``a`` and ``b`` on the games both finished, in game order, for
    :func:`battlelog.stats.paired_difference` (a game either player failed is left out of both)."""
    finished = {(r["player"], r["game"]): r["score"] for r in records if r["status"] == OK}
    games = sorted(g for (player, g) in finished if player == a and (b, g) in finished)
    return [finished[a, g] for g in games], [finished[b, g] for g in games]


@dataclass(frozen=True)
class Comparison:
    """``a - b`` on the games both players finished (negative: ``a`` needs fewer shots)."""

    a: str
    b: str
    difference: PairedDifference


def compare(records: list[dict[str, Any]], a: str, b: str) -> Comparison | None:
    """The paired difference of ``a`` and ``b``; None with fewer than two games that both finished."""
    first, second = paired_scores(records, a, b)
    return Comparison(a, b, paired_difference(first, second)) if len(first) >= 2 else None


def all_comparisons(records: list[dict[str, Any]]) -> list[Comparison]:
    """Every pair of players, each later (stronger) player minus each earlier one in the summary's order."""
    players = sorted({r["player"] for r in records}, key=player_order)
    pairs = [(players[j], players[i]) for i in range(len(players)) for j in range(i + 1, len(players))]
    return [c for c in (compare(records, a, b) for a, b in pairs) if c is not None]


COMPARISON_HEADER = ["difference", "games", "mean", "95% CI", "p", "significant"]


def comparison_cells(c: Comparison, unit: str = SHOTS) -> list[str]:
    """The cells of :data:`COMPARISON_HEADER` for one comparison (scores counting ``unit``)."""
    d = c.difference
    verdict = f"yes: {c.a if d.mean < 0 else c.b} needs fewer {unit}" if d.significant else "no"
    return [
        f"{c.a} - {c.b}",
        str(d.interval.n),
        signed(d.mean),
        interval(d.interval.low, d.interval.high),
        p_value(d.p_value),
        verdict,
    ]


def comparisons_table(comparisons: list[Comparison], unit: str = SHOTS) -> str:
    """The paired differences as an aligned Markdown table."""
    return markdown_table(COMPARISON_HEADER, [comparison_cells(c, unit) for c in comparisons], align="lrrrrl")


PAIRED_TITLE = "Paired differences on the games both players finished (negative: the first player needs fewer shots)"


def paired_title(unit: str = SHOTS) -> str:
    """:data:`PAIRED_TITLE`, counting ``unit``."""
    return PAIRED_TITLE.replace("fewer shots", f"fewer {unit}")


# ----- files -------------------------------------------------------------------------------------
def summary_row(row: PlayerSummary) -> dict[str, Any]:
    """One player's summary as flat raw numbers (None where undefined): a row of summary.csv."""
    s = row.scores
    return {
        "player": row.player,
        "games": s.n,
        "failed": row.failed,
        **{f"failed_{status}": row.failures.get(status, 0) for status in STATUSES if status != OK},
        "mean": s.mean,
        "ci_low": None if s.ci is None else s.ci.low,
        "ci_high": None if s.ci is None else s.ci.high,
        "median": s.median,
        "std": s.std,
        "min": s.min,
        "max": s.max,
        "seconds_per_move": row.seconds_per_move,
    }


def summary_markdown(
    manifest: Mapping[str, Any], rows: list[PlayerSummary], comparisons: list[Comparison], sections: Sequence[str] = ()
) -> str:
    """summary.md: the title, the summary table, the paired differences and any further ``sections`` (each a
    title line and a table: the distributions and duels of :mod:`battlelog.report.duel`)."""
    unit = score_unit(manifest)
    text = f"# {describe_experiment(manifest)}\n\n{summary_table(rows, unit)}\n"
    if comparisons:
        text += f"\n{paired_title(unit)}:\n\n{comparisons_table(comparisons, unit)}\n"
    return text + "".join(f"\n{section}\n" for section in sections)


def write_summary(
    out: Path,
    manifest: Mapping[str, Any],
    rows: list[PlayerSummary],
    comparisons: Sequence[Comparison] = (),
    sections: Sequence[str] = (),
) -> tuple[Path, Path]:
    """summary.csv (one row per player, raw numbers, empty where undefined) and summary.md (with ``sections``
    after the paired differences), in ``out``."""
    csv_path, md_path = out / SUMMARY_CSV, out / SUMMARY_MD
    fields = list(summary_row(rows[0])) if rows else ["player"]
    write_csv(csv_path, fields, ([summary_row(row)[field] for field in fields] for row in rows))
    write_text(md_path, summary_markdown(manifest, rows, list(comparisons), sections))
    return csv_path, md_path


#: The columns of games.csv: one row per game, what a spreadsheet or a data frame wants.
GAME_COLUMNS = ("player", "game", "status", "score", "seconds", "move_median_s", "move_max_s", "peak_mb", "message", "retried")


def write_games_csv(path: Path, records: list[dict[str, Any]]) -> Path:
    """One row per game (failed ones included, score empty), in player then game order."""
    ordered = sorted(records, key=lambda r: (player_order(r["player"]), r["game"]))
    write_csv(path, GAME_COLUMNS, ([r.get(column) for column in GAME_COLUMNS] for r in ordered))
    return path


def scores_by_player(records: list[dict[str, Any]]) -> dict[str, list[int]]:
    """The scores of each player's finished games, players in the summary's order."""
    scores: dict[str, list[int]] = {}
    for record in sorted(records, key=lambda r: player_order(r["player"])):
        finished = scores.setdefault(record["player"], [])
        if record["status"] == OK:
            finished.append(record["score"])
    return scores


def write_score_plot(path: Path, manifest: Mapping[str, Any], records: list[dict[str, Any]]) -> Path:
    """The distribution of shots to win and its CDF, one line per player (finished games)."""
    from battlelog.report.plots import plot_distributions

    path.parent.mkdir(parents=True, exist_ok=True)
    plot_distributions(
        scores_by_player(records), describe_experiment(manifest), path, manifest_config(manifest).cell_count, score_unit(manifest)
    )
    return path


__all__ = [
    "COMPARISON_HEADER",
    "FAILED_NOTE",
    "GAMES_CSV",
    "PAIRED_TITLE",
    "PLOTS",
    "SALVO_HEADER",
    "SUMMARY_CSV",
    "SUMMARY_MD",
    "Comparison",
    "PlayerSummary",
    "all_comparisons",
    "compare",
    "comparison_cells",
    "comparisons_table",
    "paired_scores",
    "paired_title",
    "player_order",
    "score_unit",
    "scores_by_player",
    "summarize_records",
    "summary_markdown",
    "summary_row",
    "summary_table",
    "write_games_csv",
    "write_score_plot",
    "write_summary",
]
