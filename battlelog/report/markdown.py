"""Tables and numbers as people read them: the one Markdown table writer and its number formats.

Every table battlelog prints or writes (the summary, the reproduction's tables, the benchmarks) goes
through :func:`markdown_table`, so they all align the same way and read well both in a terminal
and rendered as Markdown. Undefined numbers are shown as ``-`` everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

#: What a table shows where a number is undefined (no games, no interval, ...).
MISSING = "-"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str | None = None) -> str:
    """An aligned Markdown table; ``align`` has one letter per column, ``l`` or ``r`` (default: first left, rest right)."""
    align = align or "l" + "r" * (len(header) - 1)
    if len(align) != len(header) or set(align) - {"l", "r"} or any(len(row) != len(header) for row in rows):
        raise ValueError("every row and the alignment need one entry per column of the header")
    table = [list(header), *(list(row) for row in rows)]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(cells, widths, align)) + " |"

    rule = "|" + "|".join(":" + "-" * (w + 1) if a == "l" else "-" * (w + 1) + ":" for w, a in zip(widths, align)) + "|"
    return "\n".join([line(table[0]), rule, *(line(cells) for cells in table[1:])])


def number(value: float | None, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals."""
    return MISSING if value is None else f"{value:.{digits}f}"


def signed(value: float | None, digits: int = 2) -> str:
    """``value`` with its sign always shown (a difference: ``+0.12``, ``-1.50``)."""
    return MISSING if value is None else f"{value:+.{digits}f}"


def interval(low: float | None, high: float | None, digits: int = 2) -> str:
    """A confidence interval as ``[low, high]``."""
    return MISSING if low is None or high is None else f"[{low:.{digits}f}, {high:.{digits}f}]"


def p_value(value: float | None) -> str:
    """A p-value to two significant digits; one below what a double holds (scipy returns 0) as ``<1e-300``."""
    if value is None:
        return MISSING
    return "<1e-300" if value < 1e-300 else f"{value:.2g}"


def duration(seconds: float | None) -> str:
    """A time span: ``0.187 ms`` (three significant digits) below 10 ms, ``12.3 ms`` below a second, ``4.56 s`` above."""
    if seconds is None:
        return MISSING
    if seconds < 0.01:
        return f"{seconds * 1000:.3g} ms"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def milliseconds(seconds: float | None) -> str:
    """A short time in milliseconds, three significant digits below 100 ms (``0.412``, ``37.5``, ``120``)."""
    if seconds is None:
        return MISSING
    ms = 1000 * seconds
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.3g}"


def megabytes(size: float | None) -> str:
    """A byte count in MB (2**20) with thousands separators: ``1,665 MB``."""
    return MISSING if size is None else f"{size / 2**20:,.0f} MB"


__all__ = ["MISSING", "duration", "interval", "markdown_table", "megabytes", "milliseconds", "number", "p_value", "signed"]
