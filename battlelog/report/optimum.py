"""The optimum of an instance beside the players' exact expectations, as the ``optimal`` command prints it.

Only formatting: the figures come from the solver and the players' walks (``battlelog optimal``).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from battlelog.rules.config import GameConfig


def optimum_table(
    config: GameConfig, optimum: Fraction, values: Mapping[str, Fraction], skipped: Mapping[str, str], figures: Mapping[str, Any]
) -> str:
    """The optimum and each player's exact expectation with its gap, best first; the optimal player
    is the optimum's own row."""
    lines = [
        f"{config.label()}: {figures['layouts']:,} layouts; optimal play needs {float(optimum):.4f} shots on average "
        f"({optimum} exactly)",
        f"solved in {figures['solve_seconds']:.1f} s ({figures['search_nodes']:,} search nodes, "
        + (f"{figures['states_stored']:,} states stored, " if figures.get("states_stored") is not None else "")
        + f"peak memory {figures['solve_peak_mb']:.0f} MB)",
    ]
    if figures.get("first_shots"):  # a split search: its pieces' searches, over every run that added to its record
        lines[-1] = (f"solved in pieces: {figures['search_nodes']:,} search nodes and {figures['search_seconds']:,.1f} s of "
                     f"search over every run of the split; this run {figures['solve_seconds']:.1f} s, peak memory "
                     f"{figures['solve_peak_mb']:.0f} MB")  # fmt: skip
    earlier = figures.get("earlier_searches")
    if earlier:  # a search that went on from its table: the work of the runs before counts too
        lines[-1] += (f"; before it, {earlier['runs']:,} run(s) of the same search: {earlier['nodes']:,} nodes in "
                      f"{earlier['seconds']:,.0f} s")  # fmt: skip
    if figures.get("walks_seconds") is not None:
        lines.append(f"players' exact walks: {figures['walks_seconds']:.1f} s, peak memory {figures['walks_peak_mb']:.0f} MB")
    width = max([12, *(len(name) for name in [*values, *skipped])])
    lines += ["", f"{'player':<{width}} {'expected shots':>14} {'gap':>8}  exactly",
              f"{'optimal':<{width}} {float(optimum):>14.4f} {0:>+8.4f}  {optimum}"]  # fmt: skip
    for name, value in sorted(values.items(), key=lambda item: item[1]):
        if name != "optimal":
            lines.append(f"{name:<{width}} {float(value):>14.4f} {float(value - optimum):>+8.4f}  {value}")
    for name in skipped:
        lines.append(f"{name:<{width}} {'not exact':>14}           chooses at random beyond its ties")
    return "\n".join(lines + _first_shots(figures.get("first_shots")))


def _first_shots(first: Mapping[str, Mapping[str, Any]] | None) -> list[str]:
    """A split search's value of each first shot (one cell per class of symmetric cells), best first; a
    shot ruled out by ``--decide`` shows the lower bound that rules it out."""
    if not first:
        return []
    lines = ["", "first shot (row,col; one per class of symmetric cells)   expected shots  exactly"]
    for cell, value in first.items():
        shots = f"{'>= ' if value['lower_bound'] else ''}{value['shots']:.4f}"
        lines.append(f"{cell:<55} {shots:>15}  {'at least ' if value['lower_bound'] else ''}{value['exact']}")
    return lines


__all__ = ["optimum_table"]
