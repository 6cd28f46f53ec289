"""PNG figures for experiment results, drawn with matplotlib.

Score distributions are shown as the Battleship literature shows them: one line per player for the
probability of finishing in exactly n shots, and one for finishing within n shots (the CDF).
Figures are built as ``matplotlib.figure.Figure`` objects and saved directly, without pyplot: no
backend is chosen and no global state is touched, at import or ever (PNG needs no display).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from battlelog.files import replacing

#: One colour per registered player, stable across figures.
PLAYER_COLORS = {
    "random": "#9e9e9e", "hunt-target": "#1f77b4", "pdf": "#ff7f0e", "problog": "#2ca02c", "parity": "#17becf",
    "thompson": "#d62728", "info": "#9467bd", "lookahead": "#8c564b", "mc": "#e377c2", "optimal": "#000000",
    "racer": "#e6550d",
}  # fmt: skip
#: Colours for players of one's own (``module:Class``), picked by name so a player keeps its colour.
OTHER_COLORS = ("#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173")


def player_color(player: str) -> str:
    """The player's colour: its own if registered, else one of OTHER_COLORS chosen by its name."""
    return PLAYER_COLORS.get(player) or OTHER_COLORS[zlib.crc32(player.encode()) % len(OTHER_COLORS)]


def plot_distributions(scores: Mapping[str, Sequence[int]], title: str, path: Path, max_score: int, unit: str = "shots") -> None:
    """Two panels: P(score = n) and P(score <= n) per player, n from 1 to ``max_score`` (the board's cells);
    a score counts ``unit`` (shots, or volleys under salvo)."""
    fig = Figure(figsize=(11, 4.2))
    pmf_ax, cdf_ax = fig.subplots(1, 2)
    grid = np.arange(1, max_score + 1)
    for player, raw in scores.items():
        values = np.asarray(raw, dtype=int)
        if values.size == 0:
            continue
        counts = np.bincount(values, minlength=max_score + 1)[1 : max_score + 1] / values.size
        label = f"{player} (n={values.size})"
        pmf_ax.plot(grid, counts, label=label, color=player_color(player), lw=1.6)
        cdf_ax.plot(grid, np.cumsum(counts), label=label, color=player_color(player), lw=1.6)
    pmf_ax.set(title=f"distribution of {unit} to win", xlabel=unit, ylabel="fraction of games")
    cdf_ax.set(title=f"games won within n {unit}", xlabel=f"{unit} n", ylabel="fraction of games", ylim=(0, 1.01))
    for ax in (pmf_ax, cdf_ax):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    with replacing(path) as scratch:
        fig.savefig(scratch, dpi=110, format=path.suffix.lstrip(".") or "png")


def plot_means_vs_paper(rows: Sequence[Mapping[str, Any]], players: Sequence[str], path: Path) -> None:
    """Grouped bars of mean shots with 95% CI error bars per configuration, the paper's values as markers.

    ``rows`` hold, per configuration and player: ``config``, ``player``, ``mean``, ``ci_low``, ``ci_high``
    and ``paper`` (None where the paper has no number).
    """
    configs = list(dict.fromkeys(str(r["config"]) for r in rows))
    by_key = {(str(r["config"]), str(r["player"])): r for r in rows}
    width = 0.8 / max(1, len(players))
    fig = Figure(figsize=(max(7.0, 1.6 * len(configs)), 4.5))
    ax = fig.subplots()
    x = np.arange(len(configs))
    for k, player in enumerate(players):
        offs = x - 0.4 + width * (k + 0.5)
        entries = [by_key.get((c, player)) for c in configs]
        means = np.array([e["mean"] if e else np.nan for e in entries], dtype=float)
        low = np.array([e["mean"] - e["ci_low"] if e else np.nan for e in entries], dtype=float)
        high = np.array([e["ci_high"] - e["mean"] if e else np.nan for e in entries], dtype=float)
        ax.bar(offs, means, width, yerr=[low, high], capsize=2, color=player_color(player), label=player, alpha=0.85)
        paper = np.array([e["paper"] if e and e["paper"] is not None else np.nan for e in entries], dtype=float)
        ax.scatter(offs, paper, marker="_", s=140, color="black", zorder=3,
                   label="paper (Table 1)" if k == 0 else None)
    ax.set_xticks(x, configs, rotation=15)
    ax.set_ylabel("mean shots to win (95% CI)")
    ax.set_title("battlelog reproduction vs. the BattleLog paper")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    with replacing(path) as scratch:
        fig.savefig(scratch, dpi=110, format=path.suffix.lstrip(".") or "png")
