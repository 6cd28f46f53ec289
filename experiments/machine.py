"""The header every benchmark prints first: what ran it, on what, under what load, and the command
that prints the same table again (the docs quote a benchmark's figures with it)."""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Sequence


def machine_header(title: str, argv: Sequence[str] | None = None, seed: int | None = None) -> str:
    """A markdown title and one line about the machine and the run (``argv``: the script's arguments,
    ``sys.argv[1:]`` when None)."""
    script = os.path.relpath(sys.argv[0]) if sys.argv and sys.argv[0] else "experiments/?"
    args = " ".join(sys.argv[1:] if argv is None else argv)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    seeded = "" if seed is None else f", seed {seed}"
    return (f"# {title}\n\npython {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
            f"load average {load}{seeded}, command: python {script} {args}".rstrip() + "\n")  # fmt: skip
