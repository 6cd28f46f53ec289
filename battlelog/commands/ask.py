"""Ask a question about the hidden layout: the exact distribution of its answer and what it is worth.

STATE is a question-asking game's JSON state (named ships whose lengths may be unknown, a revealed
board, earlier answers, noise; format: docs/questions.md), or a board text file as the datasets
write it (one line a row: H hidden, W water, a ship's name or initial) with the fleet given by
--ships (Red=3,Blue=2-4: a length or a range) or --ships Red,Green --lengths 3,2 (lengths in an
unknown order). PROGRAM is a question in Rothe et al.'s language, e.g. "(size Red)" or
"(touch Red Blue)". Prints each answer's probability, the entropy of the answer and the expected
information gain (EIG): for a yes/no question under noise e, H_b(e + (1-2e)p) - H_b(e) bits.
--bank FILE ranks many programs (one a line, or a CSV with a "code" column) by EIG.

examples:
  battlelog ask state.json "(size Red)"
  battlelog ask state.json "(touch Red Blue)" --json
  battlelog ask state.json --bank questions.txt --top 10
  battlelog ask board_B01.txt "(size Red)" --ships Red,Green,Purple,Orange --lengths 3,3,3,3 --noise 0.1

PROGRAM comes right after STATE, before any option.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from battlelog.commands.boards import real, whole
from battlelog.digits import whole_number
from battlelog.errors import BattlelogError
from battlelog.jsonfile import read_text
from battlelog.questions.asking import ask, ask_json, compile_bank, rank, ranked_json
from battlelog.questions.bankfile import read_bank
from battlelog.questions.inference import AnswerDistribution
from battlelog.questions.state import MAX_CELLS, QuestionState, read_state, state_from_json
from battlelog.wording import clip, count_noun


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("state", help="the question-asking state (JSON, docs/questions.md), or a board text file with --ships")
    parser.add_argument("program", nargs="?", help='a question program, e.g. "(size Red)"')
    parser.add_argument(
        "--bank", metavar="FILE", help='rank the programs of FILE (one a line, or a CSV with a "code" column) by EIG'
    )
    parser.add_argument("--top", type=whole, metavar="K", help="with --bank: show only the K best")
    parser.add_argument(
        "--ships", help="with a board text file: Red=3,Blue=2-4 (lengths or ranges), or names alone with --lengths"
    )
    parser.add_argument(
        "--lengths", help="with a board text file and --ships NAMES: the ships' lengths in an unknown order, e.g. 5,4,3,2"
    )
    parser.add_argument(
        "--length-prior", choices=("layouts", "sizes"), help="with a board text file: the prior over lengths (default layouts)"
    )
    parser.add_argument(
        "--hits", choices=("named", "anonymous"), help="with a board text file: whether a hit names its ship (default named)"
    )
    parser.add_argument("--noise", type=real, help="with a board text file: the chance a yes/no answer is wrong (default 0)")
    parser.add_argument(
        "--json", action="store_true", help='print {"question", "models", "answers", "entropy", "eig"} (a list with --bank)'
    )


def run(args: argparse.Namespace) -> int:
    if (args.program is None) == (args.bank is None):
        raise BattlelogError("give either a PROGRAM or --bank FILE")
    if args.top is not None and (args.bank is None or args.top < 1):
        raise BattlelogError("--top K takes a whole number of at least 1, with --bank")
    state = state_from(args)
    space = state.space()
    if args.program is not None:
        text = args.program
        print(json.dumps(ask_json(state, space, text)) if args.json else describe(ask(state, space, text), state.cols))
        return 0
    bank = Path(args.bank)
    programs = compile_bank(state, ((f"{bank}, line {line}", text) for line, text in read_bank(bank)))
    if args.json:
        print(json.dumps(ranked_json(state, space, programs, args.top)))
    else:
        ranked = rank(space, programs, state.noise)[: args.top]
        print(f"{'EIG':>7} {'entropy':>8}  program ({space.size:,} layouts)")
        print("\n".join(f"{r.eig:7.4f} {r.entropy:8.4f}  {r.program.text}" for r in ranked))
    return 0


_FLEET_FLAGS = ("ships", "lengths", "length_prior", "hits", "noise")


def state_from(args: argparse.Namespace) -> QuestionState:
    """The JSON state file, or a board text file with the fleet and rules from the flags."""
    given = [f"--{name.replace('_', '-')}" for name in _FLEET_FLAGS if getattr(args, name) is not None]
    if Path(args.state).suffix.lower() == ".json":
        if given:
            raise BattlelogError(
                f"{', '.join(given)}: the state file gives the fleet and rules; these flags go with a board text file"
            )
        return read_state(args.state)
    if args.ships is None:
        raise BattlelogError(f"{args.state}: a board text file needs --ships (e.g. Red=3,Blue=2-4)")
    data: dict[str, Any] = {"board": [line.strip() for line in read_text(Path(args.state)).splitlines() if line.strip()]}
    data.update(fleet_from_text(args.ships, args.lengths))
    if args.length_prior is not None:
        data["length_prior"] = args.length_prior
    if args.hits is not None:
        data["rules"] = {"hits": args.hits}
    if args.noise is not None:
        data["noise"] = args.noise
    return state_from_json(data, args.state)


def fleet_from_text(ships: str, lengths: str | None) -> dict[str, Any]:
    """``Red=3,Blue=2-4`` as ships with lengths, or names with ``lengths`` 5,4,3,2 in an unknown order."""
    items = [item.strip() for item in ships.split(",") if item.strip()]
    if lengths is not None:
        if any("=" in item for item in items):
            raise BattlelogError("--ships gives names alone when --lengths gives the lengths")
        return {"ships": [{"name": n} for n in items], "lengths": [_whole(v, "--lengths") for v in lengths.split(",")]}
    out = []
    for item in items:
        name, _, length = item.partition("=")
        low, _, high = length.partition("-")
        if not length:
            raise BattlelogError(f"--ships {item!r}: give each ship's length, e.g. Red=3 or Blue=2-4 (or --lengths)")
        first, last = _whole(low, "--ships"), _whole(high or low, "--ships")
        out.append({"name": name.strip(), "length": list(range(first, last + 1)) if high else first})
    return {"ships": out}


def _whole(text: str, flag: str) -> int:
    """A ship's length as typed: ASCII digits, at most the cells of the largest board the engine takes."""
    value = whole_number(text)
    if value is None or not 1 <= value <= MAX_CELLS:
        raise BattlelogError(f"{flag}: {clip(repr(text))} is not a whole number from 1 to {MAX_CELLS}")
    return value


def describe(result: AnswerDistribution, cols: int) -> str:
    """The answers with their chances, then entropy and EIG."""
    data = result.to_json(cols)
    lines = [f"{result.program.text} over {count_noun(result.models, 'layout')}:"]
    width = max(len(json.dumps(a["answer"])) for a in data["answers"])
    lines += [f"  {json.dumps(a['answer']):<{width}}  {100 * a['p']:7.3f}%" for a in data["answers"]]
    lines.append(f"entropy {result.entropy:.4f} bits, expected information gain {result.eig:.4f} bits")
    return "\n".join(lines)
