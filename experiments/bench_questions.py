"""The question engine's speed (battlelog/questions): Rothe's 18 contexts and Grand's 8x8 boards.

1. Rothe, Lake & Gureckis's game: 6x6, Blue, Red and Purple of length 2-4 each, their prior (every
   assignment of lengths equally likely), each of their 18 partly revealed boards. For each: the
   layouts listed and weighed, then every one of the 605 human programs (Grand et al.'s CSV) asked,
   each program as often as people asked it (no answer reused).
2. Grand et al.'s BattleshipQA: each of their 18 hidden 8x8 boards with ``--reveal`` tiles revealed
   (seeded), the captain knowing the lengths but not which colour has which, hits named, noise 0.1.
   Each distinct human program asked from a warm process (Blue, not in their fleet, read as Green):
   the median and 90th percentile milliseconds per question.
3. With ``--package PYTHON`` (an interpreter where ``expected-information-gain`` 1.0.3 is installed):
   the package's EIG of the programs asked in ``--package-contexts`` (uniform prior over its
   hypotheses, its own code through its public API) beside battlelog's, and both speeds.

Rothe's boards are in the public repository anselmrothe/question_dataset (no licence, so not in
battlelog): give ``--rothe`` a checkout, or a bare git directory of it.

usage:
  python experiments/bench_questions.py --rothe /work/.mirror/anselmrothe+question_dataset/repo
  python experiments/bench_questions.py --rothe DIR --package /path/to/venv/bin/python --package-contexts 1,13
  python experiments/bench_questions.py --rothe DIR --package PYTHON --package-contexts $(seq -s, 1 18) --parts package
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import statistics
import subprocess
import time
from collections import Counter
from pathlib import Path

from battlelog.errors import BattlelogError
from battlelog.questions.inference import distribution
from battlelog.questions.state import state_from_json
from battlelog.questions.typecheck import compile_program

BSQA = Path("/work/shared/data/bsqa")
ROTHE_NAMES = ("Blue", "Red", "Purple")
GRAND_NAMES = {"R": "Red", "G": "Green", "P": "Purple", "O": "Orange"}


def rothe_board(source: Path, trial: int) -> list[str]:
    """Context ``trial``'s rows from a checkout (contexts/board_N.txt) or a bare git directory; 0 is the empty board."""
    if trial == 0:
        return [",".join("H" * 6)] * 6
    path = source / "contexts" / f"board_{trial}.txt"
    text = (
        path.read_text()
        if path.exists()
        else subprocess.run(
            ["git", f"--git-dir={source}", "show", f"HEAD:contexts/board_{trial}.txt"], capture_output=True, text=True, check=True
        ).stdout
    )
    return [line.strip() for line in text.splitlines() if line.strip()]


def human_programs(path: Path) -> list[tuple[int, str]]:
    with path.open() as handle:
        return [(int(row["trial"]), row["code"]) for row in csv.DictReader(handle)]


def rothe_state(board: list[str]) -> dict[str, object]:
    return {"ships": [{"name": n, "length": [2, 3, 4]} for n in ROTHE_NAMES], "length_prior": "sizes", "board": board}


def bench_rothe(source: Path, programs: list[str]) -> None:
    print(f"## Rothe's 18 contexts: all {len(programs)} programs on each\n")
    print("| context | layouts | listing (s) | programs (s) | ms / program |")
    print("|---:|---:|---:|---:|---:|")
    total = 0.0
    for trial in range(1, 19):
        start = time.perf_counter()
        state = state_from_json(rothe_state(rothe_board(source, trial)), f"context {trial}")
        space = state.space()
        listed = time.perf_counter() - start
        start = time.perf_counter()
        for text in programs:
            distribution(compile_program(text, state.names, 6, 6), space, state.noise)
        asked = time.perf_counter() - start
        total += listed + asked
        print(f"| {trial} | {space.size:,} | {listed:.2f} | {asked:.2f} | {1000 * asked / len(programs):.1f} |")
    print(f"\nall 18 contexts, every program: {total:.1f} s\n")


def grand_state(board: int, reveal: int) -> dict[str, object]:
    """Board ``board`` with ``reveal`` seeded random tiles shown (a hit names its colour)."""
    rows = [line.strip().split(",") for line in (BSQA / f"board_B{board:02d}.txt").read_text().splitlines() if line.strip()]
    lengths = Counter(symbol for row in rows for symbol in row if symbol != "W")
    shown = [["H"] * 8 for _ in range(8)]
    for cell in random.Random(board).sample(range(64), reveal):
        shown[cell // 8][cell % 8] = rows[cell // 8][cell % 8]
    return {
        "ships": [{"name": GRAND_NAMES[k]} for k in "RGPO"], "lengths": [lengths[k] for k in "RGPO"],
        "board": [",".join(row) for row in shown], "noise": 0.1,
    }  # fmt: skip


def bench_grand(programs: list[str], reveal: int) -> None:
    distinct = list(dict.fromkeys(re.sub(r"\bBlue\b", "Green", p) for p in programs))
    print(f"## BattleshipQA 8x8 boards, {reveal} tiles revealed: {len(distinct)} distinct programs each, warm\n")
    print("| board | lengths | layouts | listing (s) | median ms | p90 ms | max ms |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    everything: list[float] = []
    for board in range(1, 19):
        data = grand_state(board, reveal)
        start = time.perf_counter()
        try:
            state = state_from_json(data, f"B{board:02d}")
            space = state.space()
        except BattlelogError as exc:
            print(f"| B{board:02d} | {data['lengths']} | refused: {exc} | | | | |")
            continue
        listed = time.perf_counter() - start
        distribution(compile_program("(size Red)", state.names, 8, 8), space, state.noise)  # warm: placement weights
        times = []
        for text in distinct:
            start = time.perf_counter()
            distribution(compile_program(text, state.names, 8, 8), space, state.noise)
            times.append(1000 * (time.perf_counter() - start))
        everything += times
        cut = statistics.quantiles(times, n=10)[-1]
        print(
            f"| B{board:02d} | {data['lengths']} | {space.size:,} | {listed:.2f} | {statistics.median(times):.2f} | {cut:.2f} | "
            f"{max(times):.1f} |"
        )
    print(
        f"\nall boards: median {statistics.median(everything):.2f} ms, p90 {statistics.quantiles(everything, n=10)[-1]:.2f} ms "
        "a question\n"
    )


_PACKAGE_SCRIPT = r"""
import json, sys, time
import numpy as np
from eig.battleship import BattleshipHypothesisSpace, Parser, Executor
from eig import compute_eig, Bayes, Context
jobs = json.load(sys.stdin)
start = time.perf_counter()
space = BattleshipHypothesisSpace(grid_size=6, ship_labels=[1, 2, 3], ship_sizes=[2, 3, 4], orientations=["V", "H"])
out = {"build": time.perf_counter() - start, "results": []}
codes = {"H": -1, "W": 0, "B": 1, "R": 2, "P": 3}
for job in jobs:
    board = np.array([[codes[s] for s in row.split(",")] for row in job["board"]])
    context = Context(space, Bayes(space))
    context.observe(board)
    for program in job["programs"]:
        start = time.perf_counter()
        eig = compute_eig(Executor(Parser.parse(program)), context)
        out["results"].append({"trial": job["trial"], "program": program, "eig": eig, "seconds": time.perf_counter() - start})
json.dump(out, sys.stdout)
"""


def package_syntax(program: str) -> str:
    """The package reads locations only as r-c: 6D (row 6, column D) is 6-4."""
    return re.sub(r"\b(\d)([A-F])\b", lambda m: f"{m[1]}-{ord(m[2]) - 64}", program)


def bench_package(python: str, source: Path, trials: list[int], programs: list[tuple[int, str]]) -> None:
    """Context 0, the empty board, is asked every distinct program; a context the programs asked there."""
    jobs = [
        {
            "trial": t,
            "board": rothe_board(source, t),
            "programs": list(dict.fromkeys(package_syntax(p) for q, p in programs if q == t or t == 0)),
        }
        for t in trials
    ]
    run = subprocess.run([python, "-c", _PACKAGE_SCRIPT], input=json.dumps(jobs), capture_output=True, text=True, check=True)
    theirs = json.loads(run.stdout)
    print(f"## Beside expected-information-gain 1.0.3 (uniform prior over its {1_653_456:,} hypotheses)\n")
    print(f"The package builds its hypothesis space in {theirs['build']:.0f} s.\n")
    print("| context | programs | largest difference | package s / question | battlelog ms / question | speed-up |")
    print("|---:|---:|---:|---:|---:|---:|")
    for t in trials:
        state = state_from_json({**rothe_state(rothe_board(source, t)), "length_prior": "layouts"}, f"context {t}")
        space = state.space()
        distribution(compile_program("(size Red)", state.names, 6, 6), space)  # warm: placement weights, as the package's observe
        rows = [r for r in theirs["results"] if r["trial"] == t]
        worst, ours = 0.0, []
        for row in rows:
            start = time.perf_counter()
            result = distribution(compile_program(row["program"], state.names, 6, 6), space)
            ours.append(time.perf_counter() - start)
            worst = max(worst, abs(result.eig - row["eig"]))
        theirs_mean = statistics.mean(r["seconds"] for r in rows)
        ours_mean = statistics.mean(ours)
        print(
            f"| {t} | {len(rows)} | {worst:.1e} | {theirs_mean:.3f} | {1000 * ours_mean:.2f} | {theirs_mean / ours_mean:.0f}x |"
        )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--rothe", type=Path, required=True, help="a checkout (or bare git directory) of anselmrothe/question_dataset"
    )
    parser.add_argument("--programs", type=Path, default=BSQA / "human_question_dataset.csv", help="the human programs' CSV")
    parser.add_argument("--reveal", type=int, default=12, help="tiles revealed on each 8x8 board (seeded by the board)")
    parser.add_argument("--package", help="a Python with expected-information-gain 1.0.3 installed: compare with it")
    parser.add_argument(
        "--package-contexts", default="1,13", help="Rothe contexts to compare on (comma-separated; 0: the empty board)"
    )
    parser.add_argument("--parts", default="rothe,grand,package", help="which parts to run (comma-separated)")
    args = parser.parse_args()
    programs = human_programs(args.programs)
    parts = args.parts.split(",")
    if "rothe" in parts:
        bench_rothe(args.rothe, [p for _, p in programs])
    if "grand" in parts:
        bench_grand([p for _, p in programs], args.reveal)
    if args.package and "package" in parts:
        bench_package(args.package, args.rothe, [int(t) for t in args.package_contexts.split(",")], programs)


if __name__ == "__main__":
    main()
