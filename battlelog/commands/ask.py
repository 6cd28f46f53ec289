"""Ask a question about the hidden layout: the exact distribution of its answer and what it is worth.

STATE is a question-asking game's JSON state (named ships whose lengths may be unknown, a revealed
board, earlier answers, noise; format: docs/questions.md). PROGRAM is a question in Rothe et al.'s
language, e.g. "(size Red)" or "(touch Red Blue)". Prints each answer's probability, the entropy of
the answer and the expected information gain (EIG): for a yes/no question under noise e,
H_b(e + (1-2e)p) - H_b(e) bits. --bank FILE ranks many programs (one a line, or a CSV with a
"code" column) by EIG.

examples:
  battlelog ask state.json "(size Red)"
  battlelog ask state.json "(touch Red Blue)" --json
  battlelog ask state.json --bank questions.txt --top 10
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

from battlelog.errors import BattlelogError
from battlelog.jsonfile import read_text
from battlelog.questions.inference import AnswerDistribution, distribution
from battlelog.questions.scoped import Space
from battlelog.questions.state import QuestionState, read_state
from battlelog.questions.typecheck import compile_program


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("state", help="the question-asking state (JSON, docs/questions.md)")
    parser.add_argument("program", nargs="?", help='a question program, e.g. "(size Red)"')
    parser.add_argument(
        "--bank", metavar="FILE", help='rank the programs of FILE (one a line, or a CSV with a "code" column) by EIG'
    )
    parser.add_argument("--top", type=int, metavar="K", help="with --bank: show only the K best")
    parser.add_argument(
        "--json", action="store_true", help='print {"question", "models", "answers", "entropy", "eig"} (a list with --bank)'
    )


def run(args: argparse.Namespace) -> int:
    if (args.program is None) == (args.bank is None):
        raise BattlelogError("give either a PROGRAM or --bank FILE")
    if args.top is not None and (args.bank is None or args.top < 1):
        raise BattlelogError("--top K takes a whole number of at least 1, with --bank")
    state = read_state(args.state)
    space = state.space()
    if args.program is not None:
        result = ask(state, space, args.program)
        print(json.dumps(result.to_json(state.cols)) if args.json else describe(result, state.cols))
        return 0
    ranked = rank(state, space, read_bank(Path(args.bank)))[: args.top]
    if args.json:
        print(json.dumps([r.to_json(state.cols) for r in ranked]))
    else:
        print(f"{'EIG':>7} {'entropy':>8}  program ({space.size:,} layouts)")
        print("\n".join(f"{r.eig:7.4f} {r.entropy:8.4f}  {r.program.text}" for r in ranked))
    return 0


def ask(state: QuestionState, space: Space, text: str) -> AnswerDistribution:
    """The exact answer distribution of one program."""
    return distribution(compile_program(text, state.names, state.rows, state.cols), space, state.noise)


def rank(state: QuestionState, space: Space, programs: list[str]) -> list[AnswerDistribution]:
    """The programs' distributions, highest EIG first (the bank's order among ties)."""
    results = []
    for number, text in enumerate(programs, 1):
        try:
            results.append(ask(state, space, text))
        except BattlelogError as exc:
            raise BattlelogError(f"bank program {number} {text!r}: {exc}") from None
    return sorted(results, key=lambda r: -r.eig)


def read_bank(path: Path) -> list[str]:
    """The distinct programs of a bank file, in order of first appearance."""
    text = read_text(path)
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        if reader.fieldnames is None or "code" not in reader.fieldnames:
            raise BattlelogError(f'{path}: a CSV bank needs a "code" column')
        lines = [row["code"] or "" for row in reader]
    else:
        lines = text.splitlines()
    programs = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if not programs:
        raise BattlelogError(f"{path}: holds no program")
    return list(dict.fromkeys(programs))


def describe(result: AnswerDistribution, cols: int) -> str:
    """The answers with their chances, then entropy and EIG."""
    data = result.to_json(cols)
    lines = [f"{result.program.text} over {result.models:,} layouts:"]
    width = max(len(json.dumps(a["answer"])) for a in data["answers"])
    lines += [f"  {json.dumps(a['answer']):<{width}}  {100 * a['p']:7.3f}%" for a in data["answers"]]
    lines.append(f"entropy {result.entropy:.4f} bits, expected information gain {result.eig:.4f} bits")
    return "\n".join(lines)
