"""Each seeker against the uniform hider and against the hiders who hide against each seeker, exactly.

For every player of --players, every layout of a small board is played out exactly, over every way the
player's ties fall: each layout's expected shots. The adversarial hider against a player is uniform over the
layouts it needs the most shots on (the distribution that maximises its expected shots; what --hider
adversarial[against=PLAYER] draws boards from). The table gives, for each seeker, its exact expected
shots against the uniform hider, against its own adversarial hider, and against each other player's
(docs/duel.md). --save DIR writes each adversarial hider as a file of layout weights
(DIR/adversarial-PLAYER.jsonl), which --hider FILE and optimal --prior FILE read. Boards of at most 5,000
layouts; players whose choices are a uniform draw among cells their state fixes (not thompson or mc; the
optimum only where it is solved).

examples:
  battlelog adversary --size 4 --ships 3,2
  battlelog adversary --size 5 --ships 3,2 --players problog,rollout --json
  battlelog adversary --size 4 --ships 2 --players pdf --save hiders/
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from battlelog.commands.boards import add_board_arguments, config_from
from battlelog.errors import BattlelogError

if TYPE_CHECKING:
    from battlelog.runner.adversary import LayoutShots

DEFAULT_PLAYERS = "problog,pdf,rollout,optimal"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_board_arguments(parser)
    parser.add_argument(
        "--players", metavar="LIST", default=DEFAULT_PLAYERS, help=f"comma-separated seekers (default: {DEFAULT_PLAYERS})"
    )
    parser.add_argument("--json", action="store_true", help="print the table as JSON, with exact fractions")
    parser.add_argument("--save", metavar="DIR", help="write each adversarial hider to DIR/adversarial-PLAYER.jsonl")


def run(args: argparse.Namespace) -> int:
    from battlelog.files import make_folder, write_text
    from battlelog.players.spec import parse_players
    from battlelog.runner.adversary import check_seeker, layout_shots, layout_table

    config = config_from(args)
    if config.rules.is_salvo:
        raise BattlelogError(f"adversary plays single shots, not {config.rules.text()}")
    players = [spec.label for spec in parse_players(args.players)]
    for player in players:
        check_seeker(player, config)
    table = layout_table(config)
    folder = None if args.save is None else make_folder(args.save)
    found: list[LayoutShots] = []
    for player in players:
        start = time.perf_counter()
        found.append(layout_shots(player, config, table))
        print(f"every layout played exactly by {player} in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    rows = [_row(shots, found) for shots in found]
    if folder is not None:
        for shots in found:
            write_text(
                folder / f"adversarial-{shots.player}.jsonl", shots.hider(f"adversarial[against={shots.player}]").weight_lines()
            )
    if args.json:
        print(json.dumps({**config.board_json(), "ships": list(config.ships), "layouts": len(table), "seekers": rows}))
        return 0
    print(f"{config.label()}: {len(table):,} layouts; exact expected shots of each seeker (rows) against each hider (columns)")
    print(_markdown(rows, players))
    return 0


def _row(shots: LayoutShots, found: list[LayoutShots]) -> dict[str, Any]:
    """One seeker's exact expected shots against the uniform hider and against every adversarial hider."""
    return {
        "seeker": shots.player,
        "uniform": str(shots.uniform),
        "own": str(shots.worst),
        "worst_layouts": len(shots.support()),
        "against": {other.player: str(shots.mean_over(other.support())) for other in found},
    }


def _markdown(rows: list[dict[str, Any]], players: list[str]) -> str:
    """The table for people: decimals to 4 places, the seeker's own adversary in bold."""
    head = ["seeker", "uniform", "own adversary", "worst layouts", *(f"adv. vs {p}" for p in players)]
    lines = ["| " + " | ".join(head) + " |", "|:--|" + "--:|" * (len(head) - 1)]
    for row in rows:
        against = row["against"]
        cells = [
            row["seeker"], _decimal(row["uniform"]), _decimal(row["own"]), str(row["worst_layouts"]),
            *((f"**{_decimal(against[p])}**" if p == row["seeker"] else _decimal(against[p])) for p in players),
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _decimal(value: str) -> str:
    """An exact fraction's text to 4 decimals."""
    return f"{float(Fraction(value)):.4f}"
