"""Draw an experiment's boards again and compare them with its records: whether the code at hand gives the
boards the experiment was played on (before resuming it with newer code, say), and how long drawing them takes.

usage:
  python experiments/redraw_boards.py experiments/results/priors/6x6-clusterer
  python experiments/redraw_boards.py /work/runs/priors/10x10-clusterer /work/runs/priors/10x10-spreader
Prints a Markdown table to stdout; exits 1 if a board differs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

from machine import machine_header

from battlelog.report.markdown import markdown_table
from battlelog.rules.hiders import spec_text
from battlelog.runner.layout_files import parse_layout
from battlelog.runner.records import manifest_config, manifest_hider
from battlelog.runner.seeds import layouts_for


def recorded_boards(folder: Path) -> dict[int, list[dict]]:
    """Each game's recorded layout (as written), from ``games.jsonl`` or ``games.jsonl.gz``."""
    plain = folder / "games.jsonl"
    lines = (
        plain.read_text().splitlines()
        if plain.exists()
        else gzip.decompress((folder / "games.jsonl.gz").read_bytes()).decode().splitlines()
    )
    out: dict[int, list[dict]] = {}
    for line in lines:
        record = json.loads(line)
        out.setdefault(record["game"], record["layout"])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path, help="experiment folders (experiment.json and its records)")
    args = parser.parse_args()
    for folder in args.folders:
        if not (folder / "experiment.json").is_file() or not any(
            (folder / name).is_file() for name in ("games.jsonl", "games.jsonl.gz")
        ):
            print(f"redraw_boards: error: {folder}: not an experiment folder (experiment.json and games.jsonl)", file=sys.stderr)
            return 2
    print(machine_header("An experiment's boards drawn again"))
    rows, differ = [], 0
    for folder in args.folders:
        manifest = json.loads((folder / "experiment.json").read_text())
        config, hider = manifest_config(manifest), manifest_hider(manifest)
        recorded = recorded_boards(folder)
        games = sorted(recorded)
        start = time.perf_counter()
        drawn = layouts_for(config, manifest["seed"], games, hider)
        took = time.perf_counter() - start
        same = sum(layout == parse_layout(recorded[g], config, str(folder)) for g, layout in zip(games, drawn))
        differ += len(games) - same
        rows.append(
            [
                str(folder), config.label(), spec_text(hider), f"{len(games):,}", f"{same:,}",
                f"{took:.1f} s",
            ]
        )
    print(markdown_table(["experiment", "board", "hider", "boards", "equal to the records", "drawn in"], rows, align="lllrrr"))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
