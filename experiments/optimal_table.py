"""The README's optimum table: the exact optimum of small instances beside players' exact expectations.

Runs `battlelog optimal --json` once per instance (each in its own process, so one instance's memory
is not the next one's; with --cache each instance's figures are kept, and a rerun reuses them) and
prints one Markdown table: layouts, the optimum, each player's exact
expected shots with its gap to the optimum, and the time the search took. By default every 4x4
instance with one or two ships of length 2 to 4 (the order of the ships only relabels them) and the
paper's 4x4 3,2,2; those with a ship of length 1 are solved without players (see default_instances).

With --rules, every instance is solved under each rule pair named (TOUCH:SINKS, as --touch and
--sinks of `battlelog optimal` take them), one row each, and the table gets a rules column.

usage:
  python experiments/optimal_table.py --cache results/optimum        # 3,2,2 takes the longest: its walks, over 10 minutes
  python experiments/optimal_table.py --instances 4:1 4:2,1 4:3,1 4:4,1 4:1,1 --players none
  python experiments/optimal_table.py --instances 4:3,2 3:2 --players pdf,problog,hunt-target
  python experiments/optimal_table.py --instances 4:2,2 --players problog --rules all
Prints the table to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from fractions import Fraction
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any

from battlelog.report.markdown import markdown_table

#: Players walked exactly on every instance: those that use the posterior. hunt-target, parity and
#: random hunt at random, and their exact walks fan out over every order of misses (hunt-target takes
#: minutes on 4x4 2,2, parity with a ship of length 1 hunts every cell): ask for them with --players
#: where that is affordable (random's mean has a closed form anyway).
PLAYERS = "pdf,problog,info,lookahead"


def default_instances() -> list[str]:
    """Every 4x4 instance with one or two ships of length 2 to 4, then the paper's 3,2,2.

    With a ship of length 1 every cell ties until it is found, and the exact walk of a player that
    picks among ties follows every order of them: solve those with --players none.
    """
    fleets = [(a,) for a in range(4, 1, -1)] + list(combinations_with_replacement(range(4, 1, -1), 2))
    return [f"4:{','.join(map(str, fleet))}" for fleet in fleets] + ["4:3,2,2"]


#: Every rule pair, as --rules all names them: touch rules, then sink rules within each.
ALL_RULES = [f"{touch}:{sinks}" for touch in ("allowed", "diagonal", "none") for sinks in ("named", "unnamed", "silent")]


def solve(instance: str, players: str, time_limit: str, cache: Path | None, rules: str = "allowed:named") -> dict[str, Any]:
    """The JSON figures of `battlelog optimal` on ``instance`` (``SIZE:SHIPS``) under ``rules``
    (``TOUCH:SINKS``), from ``cache`` if it has them."""
    touch, sinks = rules.split(":")
    tag = "" if rules == "allowed:named" else f"_{touch}-{sinks}"
    kept = None if cache is None else cache / f"{instance.replace(':', '_')}{tag}_{players.replace(',', '-')}.json"
    if kept is not None and kept.exists():
        cached: dict[str, Any] = json.loads(kept.read_text())
        return cached
    size, ships = instance.split(":")
    cli = "from battlelog.cli import main; raise SystemExit(main())"
    command = [sys.executable, "-c", cli, "optimal", "--size", size, "--ships", ships, "--players", players]
    command += ["--touch", touch, "--sinks", sinks]
    done = subprocess.run([*command, "--json", "--time-limit", time_limit], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{instance} ({rules}): {done.stderr.strip().splitlines()[-1]}")
    figures: dict[str, Any] = json.loads(done.stdout)
    if kept is not None:
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text(done.stdout)
    return figures


def row(figures: dict[str, Any], names: list[str], with_rules: bool = False) -> list[str]:
    """One table row: the instance (and its rules), its layouts, the optimum, and each player as value (+gap)."""
    optimum = Fraction(figures["exact"]["optimal"])
    cells = []
    for name in names:
        exact = figures["exact"].get(name)
        cells.append("-" if exact is None else f"{float(Fraction(exact)):.4f} (+{float(Fraction(exact) - optimum):.4f})")
    board = f"{figures['size']}x{figures['size']} {','.join(map(str, figures['ships']))}"
    rules = [f"{figures['rules']['touch']}, {figures['rules']['sinks']}"] if with_rules else []
    return [board, *rules, f"{figures['layouts']:,}", f"{float(optimum):.4f}", *cells, f"{figures['solve_seconds']:.1f} s"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", nargs="+", default=default_instances(), metavar="SIZE:SHIPS", help="instances to solve")
    parser.add_argument("--players", default=PLAYERS, help=f"players to walk exactly (default: {PLAYERS})")
    parser.add_argument("--time-limit", default="1800", help="seconds each search may take (default: 1800)")
    parser.add_argument("--cache", type=Path, help="folder keeping each instance's figures, reused by a rerun")
    parser.add_argument(
        "--rules", nargs="+", default=["allowed:named"], metavar="TOUCH:SINKS",
        help="rule pairs to solve each instance under, or all (default: allowed:named)",
    )
    args = parser.parse_args()
    names = [name for name in args.players.split(",") if name and name != "none"]
    rule_pairs = ALL_RULES if args.rules == ["all"] else args.rules
    with_rules = rule_pairs != ["allowed:named"]
    rows = []
    for instance in args.instances:
        for rules in rule_pairs:
            print(f"solving {instance} ({rules}) ...", file=sys.stderr, flush=True)
            rows.append(row(solve(instance, args.players, args.time_limit, args.cache, rules), names, with_rules))
    print(f"Exact expected shots (gap to the optimum); command: python {' '.join(sys.argv)}\n")
    print(markdown_table(["board", *(["rules"] if with_rules else []), "layouts", "optimal", *names, "search"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
