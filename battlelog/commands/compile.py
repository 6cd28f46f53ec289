"""Compile a game state's model and write it as an SDD (pysdd's file format) with its vtree.

The native engine compiles the ground model (every ship one placement, no overlap, the shots'
answers as evidence) into a layered decision diagram; this writes that diagram as a sentential
decision diagram over named placement variables, so that pysdd or the SDD package can load it,
count it, condition it or weigh it. Next to OUT it writes OUT's stem with .vtree (the variable
tree) and .vars.json (which placement each variable is: ship, length, canonical cell, orientation).
It then reads the file back with pysdd and checks that its model count equals the layout count.
The models are the layouts under any prior; under a prior (--prior, or the state file's) each variable
in .vars.json also has its "log_weight", edge x its cells on the outer ring + vertical x [vertical], so
that a weighted model count with those weights (1 for negative literals) weighs the layouts. A touch
weight belongs to pairs of ships, not to one placement, and is refused.
Materialising in pysdd takes about 420 bytes per node, so this is for boards up to about 7x7 and
late states of larger boards; a larger model is refused in one line. Game states are JSON files
in the format of docs/formats.md.

examples:
  battlelog compile state.json -o model.sdd
  battlelog compile --size 5 --ships 3,3,2 -o empty.sdd
  battlelog compile --size 5 --ships 3,3,2 --prior edge=0.8 -o edge.sdd
"""

from __future__ import annotations

import argparse
import json

from battlelog.commands.boards import add_state_arguments, output_path, state_from
from battlelog.errors import BattlelogError
from battlelog.files import STDOUT, check_writable, replacing
from battlelog.rules.prior import placement_log_weight
from battlelog.wording import count_noun


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_state_arguments(parser)
    parser.add_argument("-o", "--output", required=True, metavar="OUT", help="the SDD file to write (e.g. model.sdd)")


def run(args: argparse.Namespace) -> int:
    from pysdd.sdd import SddManager, Vtree

    from battlelog.engines import Inconsistent, locate_fault
    from battlelog.engines.budget import memory_budget
    from battlelog.engines.native.engine import NativeEngine
    from battlelog.engines.native.export import compile_state, variables_json

    sdd_path = output_path(args.output, "--output")
    state = state_from(args)
    prior = state.config.effective_prior
    if prior.touch:
        raise BattlelogError(
            f"compile writes a prior as weights of its placement variables, and touch={prior.touch:g} weighs pairs of ships: "
            "compile without a touch weight (battlelog script writes it in ProbLog)"
        )
    if args.output == STDOUT:
        raise BattlelogError(
            "-o -: compile writes three files (OUT, and its .vtree and .vars.json beside it): give OUT a file name"
        )
    vtree_path, vars_path = sdd_path.with_suffix(".vtree"), sdd_path.with_suffix(".vars.json")
    if sdd_path in (vtree_path, vars_path):
        raise BattlelogError(f"{sdd_path}: name the SDD file otherwise (e.g. model.sdd): its vtree is written to {vtree_path}")
    # Scratch files made first: a place that cannot be written is refused before compiling, and pysdd,
    # which crashes on a path it cannot open, only ever writes to files that exist. The SDD may go to a
    # device or a FIFO; its siblings, named after the path given, must be regular files. The SDD is opened
    # last (a FIFO's reader is not kept waiting for a refused sibling) and put in place first: where it
    # cannot be written (a full disk), its siblings are not put in place either. Its place is checked first,
    # so that a folder that cannot take it is refused by the name the user gave.
    check_writable(sdd_path)
    with (
        replacing(vars_path, regular=True) as vars_scratch,
        replacing(vtree_path, regular=True) as vtree_scratch,
        replacing(sdd_path) as sdd_scratch,
    ):
        try:
            written = compile_state(state, sdd_scratch, vtree_scratch, memory_budget())
        except Inconsistent:
            raise locate_fault(state, NativeEngine(), args.state) from None
        variables = variables_json(written.variables)
        if not prior.is_uniform:
            for entry, p in zip(variables, written.variables):
                entry["log_weight"] = placement_log_weight(prior, p, state.rows, state.cols)
        vars_scratch.write_text(json.dumps(variables, indent=1) + "\n")
        # Read back before anything is in place (a FIFO or a device cannot be read back): a wrong file is never left.
        manager = SddManager.from_vtree(Vtree.from_file(str(vtree_scratch).encode()))
        models = manager.global_model_count(manager.read_sdd_file(str(sdd_scratch).encode()))
        if models != written.models:
            raise BattlelogError(
                f"pysdd counts {models} models in the SDD of {sdd_path}, not the {written.models} layouts compiled:"
                " nothing written"
            )
    print(
        f"wrote {sdd_path} ({written.nodes:,} SDD nodes over {len(written.variables):,} placement variables),"
        f" {vtree_path} and {vars_path}"
    )
    print(f"pysdd reads it back: {models:,} models; the native engine counts {count_noun(written.models, 'layout')}")
    return 0
