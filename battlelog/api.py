"""battlelog from Python (a notebook, a script): a few functions over the pieces the commands use.

Each function is a thin call into the real packages, so it gives what the command line gives:

- :func:`marginals`: a game state in, its exact posterior out (``cells``, an R x C numpy array);
- :func:`play`: one game, on the board an experiment with that seed plays as its game 0;
- :func:`experiment` / :func:`results`: play (or read) an experiment, its records as a :class:`Results` table;
- :func:`optimum` / :func:`expected_shots`: exact expectations of small instances, as fractions.

A board is ``N`` (N x N) or ``(rows, cols)``; a fleet is written as on the command line (``"3,2"``)
or as a list of lengths. States are
:class:`battlelog.GameState` objects (``GameState.empty(config)``, ``state.with_shot(row, col, answer)``),
dicts in the game-state JSON format, or paths to such files. Bad input raises a
:class:`battlelog.BattlelogError` with the one-line message the command would print. Examples that run:
docs/api.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from battlelog.engines import DEFAULT_ENGINE, Marginals, make_engine
from battlelog.engines.solve import solve
from battlelog.players import make_player
from battlelog.rules.config import GameConfig, parse_ships
from battlelog.rules.state import GameState
from battlelog.runner.executors import Limits, make_executor
from battlelog.runner.experiment import Experiment, run_experiment
from battlelog.runner.loop import GameResult, play_game
from battlelog.runner.records import load_results
from battlelog.runner.seeds import game_seeds, layout_for

#: A fleet: ``"5,4,3,3,2"`` or a sequence of ship lengths.
Fleet = str | Sequence[int]
#: A board: ``N`` for N x N, or ``(rows, cols)`` for a rectangle such as ``(12, 10)``.
Board = int | tuple[int, int]
#: A game state, a dict in the game-state JSON format, or the path of a game-state file.
StateLike = GameState | dict[str, Any] | str | os.PathLike[str]


def _config(size: Board, ships: Fleet) -> GameConfig:
    rows, cols = size if isinstance(size, tuple) else (size, size)
    return GameConfig(rows, parse_ships(ships) if isinstance(ships, str) else tuple(ships), cols=cols)


def marginals(state: StateLike, engine: str = DEFAULT_ENGINE) -> Marginals:
    """The exact posterior of ``state``: ``cells[r, c]`` (numpy, R x C) the probability that a ship covers
    (r, c), ``models`` the number of consistent layouts, ``placements[i][k]`` the probability of ship i at
    ``config.placements(i)[k]`` (None where the engine gives none). A state no layout fits raises the
    :class:`battlelog.errors.StateError` naming the first shot at fault."""
    if not isinstance(state, GameState):
        state = GameState.from_json(state) if isinstance(state, dict) else GameState.load(Path(state))
    solver = make_engine(engine)
    try:
        return solve(state, solver)
    finally:
        solver.close()


def play(size: Board, ships: Fleet, player: str = "problog", seed: int = 0, **options: Any) -> GameResult:
    """One game of ``player`` (with its options, e.g. ``engine="sdd"``) on the board and with the player's
    draws of game 0 of an experiment with ``seed``: ``.score``, ``.state`` (every shot), ``.move_seconds``."""
    config = _config(size, ships)
    shooter = make_player(player, game_seeds(seed, 0)[1], **options)
    try:
        return play_game(config, layout_for(config, seed, 0), shooter)
    finally:
        shooter.close()


@dataclass(frozen=True)
class Results:
    """An experiment's records: ``records`` is a list of dicts, one per game (the fields of games.jsonl,
    docs/formats.md); iterating or indexing a Results goes through them."""

    manifest: dict[str, Any]
    records: list[dict[str, Any]] = field(repr=False)

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.records)

    def __getitem__(self, index: int) -> dict[str, Any]:
        return self.records[index]

    def summary(self) -> list[dict[str, Any]]:
        """One dict per player, as in summary.csv: games, failed, mean, ci_low, ci_high (95%), median, std, ..."""
        from battlelog.report.summary import summarize_records, summary_row

        return [summary_row(row) for row in summarize_records(self.records)]

    def comparisons(self) -> list[dict[str, Any]]:
        """Every pair of players on the games both finished: mean of ``a - b`` with its 95% CI and p-value."""
        from battlelog.report.summary import all_comparisons

        return [
            {"a": c.a, "b": c.b, "games": c.difference.interval.n, "mean": c.difference.mean, "ci_low": c.difference.interval.low,
             "ci_high": c.difference.interval.high, "p": c.difference.p_value, "significant": c.difference.significant}
            for c in all_comparisons(self.records)
        ]  # fmt: skip

    def _repr_markdown_(self) -> str:
        """What a notebook shows: summary.md's tables."""
        from battlelog.report.summary import all_comparisons, summarize_records, summary_markdown

        return summary_markdown(self.manifest, summarize_records(self.records), all_comparisons(self.records))


def results(out: str | os.PathLike[str]) -> Results:
    """The records of the experiment in directory ``out`` (finished or not), read as ``battlelog summarize`` reads them."""
    manifest, records = load_results(Path(out))
    return Results(manifest, records)


def experiment(
    size: Board,
    ships: Fleet,
    players: str | Sequence[str],
    games: int,
    *,
    out: str | os.PathLike[str],
    seed: int = 0,
    workers: int | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    progress: bool = True,
) -> Results:
    """``battlelog experiment`` on local worker processes (``workers``: default one per core): every player
    plays games 0..games-1 on the same boards, recorded in ``out`` (an existing experiment there is
    resumed or extended); ``options`` maps a player to its options. Returns :func:`results` of ``out``."""
    names = [p.strip() for p in players.split(",")] if isinstance(players, str) else list(players)
    plan = Experiment(_config(size, ships), tuple(names), games, seed, dict(options or {}))
    with make_executor("local", Limits() if workers is None else Limits(workers=workers)) as executor:
        run_experiment(plan, Path(out), executor, progress)
    return results(out)


def optimum(size: Board, ships: Fleet, seconds: float | None = None) -> Fraction:
    """The smallest expected number of shots over all policies (``battlelog optimal``); instances too big to
    solve are refused in one line, and a search longer than ``seconds`` stops with an error."""
    from battlelog.optimum.solver import Solver

    return Solver(_config(size, ships)).optimum(seconds=seconds)


def expected_shots(size: Board, ships: Fleet, player: str, **options: Any) -> Fraction:
    """The exact expected score of a deterministic ``player`` (ties averaged): ``battlelog optimal --players``."""
    from battlelog.optimum.layouts import solvable_layouts
    from battlelog.players.evaluate import expected_shots as walk

    layouts = solvable_layouts(_config(size, ships))
    shooter = make_player(player, 0, **options)
    try:
        return walk(shooter, layouts)
    finally:
        shooter.close()


__all__ = ["Board", "Fleet", "Results", "StateLike", "expected_shots", "experiment", "marginals", "optimum", "play", "results"]
