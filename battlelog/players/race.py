"""The race between two seekers: how many shots a side still needs, and the chance to finish first.

In alternating play the side about to shoot wins when the shots it still needs, this one included, are
no more than the shots its opponent still needs from its next turn: its k-th shot from now comes before
the opponent's k-th. This holds whoever opened the game: the opener wins when T_A <= T_B in total shots,
and at its turn both have fired as many, so R_A <= R_B; the other wins when T_A < T_B, and at its turn it
has fired one shot fewer, so again R_A <= R_B.

A side's remaining shots are estimated as the rollout player estimates its own (docs/rollout.md): from
the side's game state, on layouts of that state's exact posterior (every consistent layout once where
they are few, with exact greedy playing; else layouts drawn exactly, with the compiled pdf rule). That
is the remaining shots of greedy in the side's place, a model of any seeker (the rollout player needs a
few tenths of a shot fewer than greedy on a whole game, docs/rollout.md), and it uses only what that side
knows: never the layout it shoots at, so a chance shown to a person reveals nothing of the hidden fleet.
"""

from __future__ import annotations

import numpy as np

from battlelog.engines.base import Engine, layout_owners
from battlelog.rules.state import GameState


def remaining_shots(
    state: GameState, engine: Engine, samples: int, exact: int, rng: np.random.Generator
) -> tuple[np.ndarray, bool]:
    """The shots greedy still needs from ``state``, one figure per layout (each equally likely), and whether
    these are every consistent layout (at most ``exact`` of them, uniform prior) rather than ``samples`` drawn."""
    from battlelog.optimum.layouts import SINK_MODES
    from battlelog.players import rollout_kernel as kernel  # numba: loaded by a game, not by `--help`
    from battlelog.players.rollout_tables import listed_layouts, start_of, tables, truths

    if state.over:
        return np.zeros(1, dtype=np.int64), True
    config = state.config
    count = engine.marginals(state).models or 0
    layouts = listed_layouts(state) if config.prior.is_uniform and count <= exact else None
    if layouts is not None:
        owners, lefts = truths(state, layout_owners(config, layouts))
        shot = np.zeros(config.cell_count, dtype=np.bool_)
        shot[[r * config.cols + c for r, c in state.shot_cells]] = True
        covered = np.where(shot, -1, (owners >= 0).sum(axis=0))
        first = np.array([int(np.argmax(covered))], dtype=np.int64)  # exact greedy: ties in reading order
        out = np.zeros((1, len(owners)), dtype=np.int64)
        kernel.exact_rollouts(owners, lefts, shot, first, SINK_MODES[config.rules.sinks], out)
        return out[0], True
    board, start = tables(config), start_of(state)
    owners, lefts = truths(state, engine.sample_owners(state, samples, rng))
    out = np.zeros((1, len(owners)), dtype=np.int64)
    kernel.rollouts(board, start, owners, lefts, np.array([int(kernel.choice(board, start))], dtype=np.int64), out)
    return out[0], False


def survival(theirs: np.ndarray, mine: np.ndarray) -> np.ndarray:
    """For each entry k of ``mine``, the share of ``theirs`` that is at least k: the chance that a side
    needing k more shots, about to shoot, beats an opponent whose remaining shots are ``theirs``."""
    ordered = np.sort(np.asarray(theirs))
    return (len(ordered) - np.searchsorted(ordered, mine, side="left")) / len(ordered)


def chance_to_win(mine: np.ndarray, theirs: np.ndarray) -> float:
    """The chance that the side about to shoot, needing ``mine`` more shots (one draw of it), finishes
    no later than the opponent, needing ``theirs``; the two drawn independently."""
    return float(survival(theirs, mine).mean())
