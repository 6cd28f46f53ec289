"""Print the ProbLog program of a game state: the relational model, the evidence and the queries.

The program is self-contained and runs unchanged with ProbLog's own command line, which prints the
same marginals as `battlelog marginals --engine problog` (to its 8 significant digits). Give a
game-state JSON file (format: docs/formats.md), or --size and --ships for the empty board. A state
that no layout satisfies is refused as `battlelog marginals` refuses it, naming the first shot at
fault (ProbLog itself would only say that the evidence is inconsistent).

examples:
  battlelog script state.json                    # print the program
  battlelog script state.json -o state.pl        # write it to a file ...
  problog state.pl                               # ... and run it with the stock ProbLog command
  battlelog script --size 5 --ships 3,3,2        # the empty 5x5 board with ships 3, 3 and 2
"""

from __future__ import annotations

import argparse

from battlelog.commands.boards import add_engine_argument, add_state_arguments, output_path, state_from
from battlelog.engines import DEFAULT_ENGINE
from battlelog.engines.solve import check_consistent
from battlelog.files import write_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_state_arguments(parser)
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write the program to FILE instead of printing it (- prints it too)"
    )
    add_engine_argument(parser, DEFAULT_ENGINE, what="that checks that some layout fits the state")


def run(args: argparse.Namespace) -> int:
    output = None if args.output is None else output_path(args.output, "--output")
    state = state_from(args)
    check_consistent(state, args.engine, args.state)
    from battlelog.model.render import render_program  # jinja2: only when a program is rendered

    program = render_program(state)
    if output is None:
        print(program, end="")
        return 0
    write_text(output, program)
    return 0
