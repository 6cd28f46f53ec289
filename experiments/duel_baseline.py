"""Where a racer's duels differ from the rollout player's: each duel of a `battlelog duel` run replayed with the
first player alone (no opponent told: the racer is then the rollout player, shot for shot, with the same seed)
and the second player alone, to the end (docs/duel.md, "Playing for the win").

Since the second player ignores its opponent (rollout, pdf, ...), its game on a board does not depend on the
first player's, so the replay says who would have won had the first player played for the mean on that
board with the same draws: a paired comparison in which only the duels where the racer left the rollout
player's shot can differ. Prints, as Markdown: both win rates, the paired difference of wins with its 95%
Student-t interval and two-sided p-value over the pairs of duels (two duels on the same two boards), the
duels won only by one of them, and in how many duels and at which move the racer first left the rollout
player's shot. Checks that every recorded game of the second
player is the start of its solo game (else its player does heed the opponent, and the comparison is void).

usage:
  python experiments/duel_baseline.py DIR [--duels N]
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from battlelog.players.spec import player_spec
from battlelog.runner.duel import DuelRun
from battlelog.runner.duel_records import DUEL_JOURNAL, boards
from battlelog.runner.loop import play_game
from battlelog.runner.records import GAMES, manifest_config
from battlelog.runner.seeds import layout_for
from battlelog.stats import paired_difference


def solo(run: DuelRun, side: int, duel: int) -> list[list[int]]:
    """The shots side ``side``'s player of duel ``duel`` fires alone on the board it hunts there, to the end."""
    player = run.player(side, duel)
    try:
        state = play_game(run.config, layout_for(run.config, run.seed, boards(duel)[side]), player).state
    finally:
        player.close()
    return [list(shot.cell) for shot in state.shots]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--duels", type=int, default=None, help="only duels 0..N-1")
    args = parser.parse_args()
    manifest = DUEL_JOURNAL.read_manifest(args.out)
    records = sorted(DUEL_JOURNAL.parse((args.out / GAMES).read_bytes(), args.out / GAMES, manifest), key=lambda r: r["game"])
    records = [r for r in records if args.duels is None or r["game"] < args.duels]
    a, b = manifest["players"]
    run = DuelRun(manifest_config(manifest), (player_spec(a), player_spec(b)), len(records), manifest["seed"])
    raced, alone, left_at = [], [], []
    for record in records:
        duel, first = record["game"], a == record["first"]
        mine, theirs = solo(run, 0, duel), solo(run, 1, duel)
        if theirs[: len(record["shots"][1])] != record["shots"][1]:
            raise SystemExit(f"duel {duel}: {b}'s recorded shots are not its solo game's: it heeds its opponent")
        alone.append(float(len(mine) <= len(theirs) if first else len(mine) < len(theirs)))
        raced.append(float(record["winner"] == a))
        played = record["shots"][0]
        differ = next((k for k, (x, y) in enumerate(zip(played, mine)) if x != y), None)
        if differ is not None:
            left_at.append(differ + 1)
    n = len(records)
    at = {r["game"]: k for k, r in enumerate(records)}
    evens = [d for d in at if d % 2 == 0 and d + 1 in at]  # complete pairs: the pair is the unit
    diff = paired_difference(
        [(raced[at[d]] + raced[at[d + 1]]) / 2 for d in evens], [(alone[at[d]] + alone[at[d + 1]]) / 2 for d in evens]
    )
    only_raced = sum(x > y for x, y in zip(raced, alone))
    only_alone = sum(x < y for x, y in zip(raced, alone))
    print(f"| {n} duels | {a} won | {a} alone would have won | difference [95% CI] | p | won only racing | only alone |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    low, high = diff.interval.low, diff.interval.high
    print(f"| {manifest_config(manifest).label()} seed {manifest['seed']} | {sum(raced) / n:.3f} | {sum(alone) / n:.3f} "
          f"| {diff.mean:+.4f} [{low:+.4f}, {high:+.4f}] | {diff.p_value:.3g} | {only_raced} | {only_alone} |")  # fmt: skip
    where = f", first at move {statistics.median(left_at)} (median; moves {min(left_at)}-{max(left_at)})" if left_at else ""
    print(f"\n{a} left the rollout player's shot in {len(left_at)} of {n} duels{where}.")


if __name__ == "__main__":
    main()
