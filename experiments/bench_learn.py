"""What learning a prior costs on the standard game (issue 18's target: `learn` from 1000 layouts in 60 s).

The layouts of games 0..N-1 are drawn once from a hider (``layouts_for``, as an experiment's boards are)
and written as game records; each row reads them as ``battlelog learn`` does and fits them in a cold
child process of its own (an empty cache folder; numba's kernels cached as installed):
the maximum-likelihood fit of ``battlelog learn`` (no ridge, standard errors included) and the fit
``belief=learn`` makes before a game (ridge 1, no standard errors), each with every weight and with
``edge`` and ``vertical`` alone (``--features edge,vertical``, ``belief=learn,features=edge+vertical``),
which spares the engine counting touching pairs. Reading is timed with the fit; drawing, apart.

usage:
  python experiments/bench_learn.py                     # about 10 minutes on 2 cores, most of it the rows with touch
  python experiments/bench_learn.py --layouts 200 --hider edge-avoider --features edge+vertical
Prints a Markdown table to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from bench_engines import answer_child, run_child
from machine import machine_header

from battlelog.report.markdown import duration, markdown_table, megabytes
from battlelog.rules.config import GameConfig
from battlelog.rules.hiders import parse_prior_spec
from battlelog.rules.prior import features_text, layout_features, parse_features
from battlelog.runner.records import placement_json
from battlelog.runner.seeds import layouts_for

SCRIPT = str(Path(__file__).resolve())
STANDARD = GameConfig(10, (5, 4, 3, 3, 2))
#: Target of issue 18: `learn` from 1000 layouts of the standard game.
TARGET_SECONDS = 60.0


def child(task: dict[str, Any]) -> dict[str, Any]:
    """One fit in this process, from cold: read the records, fit them."""
    from battlelog.engines.fit import fit_prior
    from battlelog.engines.native.engine import NativeEngine
    from battlelog.runner.beliefs import LEARN_RIDGE
    from battlelog.runner.layout_files import read_layouts

    start = time.perf_counter()
    layouts = [o.layout for o in read_layouts([task["file"]], STANDARD)[0]]
    totals = np.sum([layout_features(layout, STANDARD.rows, STANDARD.cols) for layout in layouts], axis=0)
    engine = NativeEngine()
    calls = []
    asked = engine.feature_expectations

    def counted(*args: Any, **kw: Any) -> Any:
        calls.append(1)
        return asked(*args, **kw)

    engine.feature_expectations = counted  # type: ignore[method-assign]
    learnt = parse_features(task["features"])
    if task["kind"] == "learn":
        fit = fit_prior(engine, STANDARD, totals, len(layouts), learnt=learnt)
    else:
        fit = fit_prior(engine, STANDARD, totals, len(layouts), ridge=LEARN_RIDGE, errors=False, learnt=learnt)
    return {"seconds": time.perf_counter() - start, "calls": len(calls), "prior": fit.prior.text() or "uniform",
            "stderr": {k: v for k, v in fit.stderr.items() if v is not None}}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layouts", type=int, default=1000, help="layouts to fit (default: 1000)")
    parser.add_argument("--hider", default="edge-hugger", help="the hider they are drawn from (default: edge-hugger)")
    parser.add_argument(
        "--features",
        default="all,edge+vertical",
        help="comma-separated feature sets, '+' within one (default: all,edge+vertical)",
    )
    parser.add_argument("--seed", type=int, default=0, help="root seed of the layouts (default: 0)")
    parser.add_argument("--time-limit", type=float, default=1800, help="seconds per child (default: 1800)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return answer_child(args.child, child)
    print(machine_header(f"Learning a prior on {STANDARD.label()}", argv))
    start = time.perf_counter()
    hider = parse_prior_spec(args.hider)
    layouts = layouts_for(STANDARD, args.seed, range(args.layouts), hider)
    drawn = time.perf_counter() - start
    rows: list[list[str]] = []
    verdicts: list[str] = []
    with tempfile.TemporaryDirectory(prefix="battlelog-learn-") as folder:
        records = Path(folder) / "games.jsonl"
        records.write_text(
            "".join(json.dumps({"game": g, "layout": [placement_json(p) for p in x]}) + "\n" for g, x in enumerate(layouts))
        )
        for features in args.features.split(","):
            learnt = features_text(parse_features(features))
            for kind in ("learn", "belief=learn"):
                rows.append(_row(kind, learnt, str(records), args, verdicts))
    header = ["fit", "features", "layouts", "reading and fitting", "engine calls", "prior", "standard errors", "peak"]
    print(markdown_table(header, rows))
    print(f"\nLayouts of games 0..{args.layouts - 1} of seed {args.seed} drawn from the {args.hider} hider "
          f"({duration(drawn)} to draw them, not counted); every row a cold process.\n")  # fmt: skip
    print(f"Target (issue 18): learn from 1000 layouts of the standard game <= {TARGET_SECONDS:.0f} s:")
    print("\n".join(verdicts) + "\n")
    return 0


def _row(kind: str, learnt: str, records: str, args: argparse.Namespace, verdicts: list[str]) -> list[str]:
    """One fit in a cold child, as a table row (and its verdict against the target, for ``learn``)."""
    got = run_child({"kind": kind, "features": learnt, "file": records}, args.time_limit, SCRIPT)
    print(f"  {kind} {learnt}: done", file=sys.stderr, flush=True)
    stderr = ", ".join(f"{k} {v:.3f}" for k, v in got.get("stderr", {}).items())
    if kind == "learn" and "seconds" in got:
        verdicts.append(
            f"- learn, features {learnt}: {duration(got['seconds'])}: {'met' if got['seconds'] <= TARGET_SECONDS else 'MISSED'}"
        )
    return [kind, learnt, str(args.layouts), got.get("status") or duration(got["seconds"]), str(got.get("calls", "")),
            got.get("prior", ""), stderr, megabytes(got.get("peak"))]  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
