"""States with tallies (row and column counts, issue 40) in the native engine: exact, by listing or by the puzzle counter.

The layered sweep knows nothing of tallies, so no rung of the :mod:`~.ladder` may answer a tallied state: the ladder
hands every one to :func:`listed` before any rung is tried (and the engine's marginals to :func:`marginals`). Two
exact ways, chosen by measurement (experiments/bench_tallies_evidence.py):

- **listing** (:func:`tallied_layouts`): the ground problem's layouts (misses, hits, sinks, not-sunk and the touch rule
  already applied, as for :mod:`~.few`) listed ship by ship, each ship's placements first cut to those that fit the
  tallies on their own, and every partial layout dropped as soon as a line holds more ship cells than its tally or
  the ships left cannot fill what the tallied lines still need; the complete ones kept when every tally holds exactly.
  Ships are told apart, so the counts are the game's and every rule and prior is the listing's (integer counts, placement
  marginals, each layout weighed by its own features). Bounded by the pairs tested, :data:`PAIR_LIMIT`.
- **the puzzle counter** (:func:`battlelog.tallies.count.count`: a search when every tally is given, the compiled cell
  transfer otherwise): a state whose evidence is a puzzle's, i.e. uniform prior, misses and hits only, and no hit that
  could have sunk a ship (no sink announced, and silent sinks or no hits at all), is a Bimaru puzzle with misses as
  water and hits as ship cells. It counts sets of ships, equal lengths alike; with no sink to tell them apart, each set
  is n! layouts per n ships of one length (``Count.layouts``), with the same cell shares. It gives no placement marginals.

Draws (:func:`sample`) come from the listing alone: a state it gives up on cannot be drawn from (one line).

Listing is tried first (it gives everything, and gives up early, at most :data:`PAIR_LIMIT` pairs of work); the puzzle
counter takes the states it gives up on when their evidence is a puzzle's; any other is a one-line BudgetExceeded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from battlelog.bits import pack_rows, words_for
from battlelog.engines.base import Marginals
from battlelog.engines.native.counts import Counts
from battlelog.engines.native.few import _canonical_index, _masks, listed_counts, listed_features, listed_weighted
from battlelog.engines.native.streams import Randomness, walker
from battlelog.engines.native.weights import Weighted
from battlelog.errors import BudgetExceeded, Inconsistent
from battlelog.model.ground import Problem
from battlelog.rules.geometry import Placement, placement_matrix
from battlelog.rules.prior import Prior
from battlelog.rules.state import GameState
from battlelog.rules.variants import SILENT

#: Most (partial layout, placement) pairs tested for one ship before the listing gives up (some seconds of work).
PAIR_LIMIT = 1 << 24
#: Pairs tested at once (the arrays of one chunk take some tens of MB).
CHUNK_PAIRS = 1 << 18
#: Listed layouts: the order ships were placed in, per layout its covered cells (packed) and each ship's placement index.
Listed = tuple[list[int], np.ndarray, np.ndarray]


def check_tallies(state: GameState) -> None:
    """The one-line Inconsistent error of tallies the rest of the state rules out on its own: a tally below the hits in
    its line or above the cells not missed there, or tallies summing past the fleet's ship cells (or, all given, not to it)."""
    fleet = sum(state.ships)
    for name, counts, lines in (("row", state.row_counts, _rows(state)), ("column", state.col_counts, _cols(state))):
        given = [count for count in counts or () if count is not None]
        if sum(given) > fleet or (len(given) == len(lines) and sum(given) != fleet):
            raise Inconsistent(f"the {name} tallies sum to {sum(given)}, but the fleet has {fleet} ship cells")
        for (label, line), count in zip(lines, counts or ()):
            hits, open_cells = sum(cell in state.hits for cell in line), sum(cell not in state.misses for cell in line)
            if count is not None and not hits <= count <= open_cells:
                raise Inconsistent(
                    f"{name} {label}'s tally {count} does not fit its {hits} hits and {open_cells} cells not missed"
                )


def _rows(state: GameState) -> list[tuple[str, list[tuple[int, int]]]]:
    return [(chr(ord("A") + r), [(r, c) for c in range(state.cols)]) for r in range(state.rows)]


def _cols(state: GameState) -> list[tuple[str, list[tuple[int, int]]]]:
    return [(str(c + 1), [(r, c) for r in range(state.rows)]) for c in range(state.cols)]


def tallied_layouts(problem: Problem, state: GameState) -> Listed | None:
    """The layouts of ``problem`` (ground from ``state``) that meet the state's tallies, listed; None when listing them
    would test more than :data:`PAIR_LIMIT` pairs for one ship (see the module's docstring)."""
    rows, n = problem.rows, problem.cols
    tallies = (state.row_counts or (None,) * rows) + (state.col_counts or (None,) * n)
    want = np.array([-1 if t is None else t for t in tallies], dtype=np.int16)  # small: the arrays below are per pair
    given = want >= 0
    lines = _line_matrix(rows, n)  # cell x line: which row and which column the cell is in
    domains, uses = [], []
    for ship in range(len(problem.ships)):
        index = np.array([_canonical_index(p, rows, n) for p in problem.domains[ship]], dtype=np.int64).reshape(-1)
        use = (placement_matrix(rows, n, problem.ships[ship])[index].astype(np.int64) @ lines).astype(np.int16)
        fits = ((use <= want) | ~given).all(axis=1)  # no placement may overfill a tallied line on its own
        domains.append(index[fits])
        uses.append(use[fits])
    order = sorted(range(len(problem.ships)), key=lambda ship: len(domains[ship]))
    words = words_for(rows * n)
    partial = _Partial(
        np.zeros((1, words), dtype=np.uint64),
        np.zeros((1, words), dtype=np.uint64),
        np.zeros((1, rows + n), dtype=np.int16),
        np.zeros((1, 0), dtype=np.int64),
    )
    left = sum(problem.ships)
    for ship in order:
        index, use = domains[ship], uses[ship]
        if len(partial.covered) * len(index) > PAIR_LIMIT:
            return None
        cells, halo = _masks(rows, n, problem.ships[ship], problem.touch)
        left -= problem.ships[ship]
        step = max(1, CHUNK_PAIRS // max(1, len(index)))
        parts = [
            partial.slice(start, start + step).extend(index, use, cells[index], halo[index], want, given, rows, left)
            for start in range(0, len(partial.covered), step)
        ]
        partial = _Partial.joined(parts)
    covered, used, chosen = partial.covered, partial.used, partial.chosen
    keep = ((used == want) | ~given).all(axis=1)
    if problem.required:
        bits = np.zeros((1, rows * n), dtype=np.uint8)
        bits[0, [r * n + c for r, c in problem.required]] = 1
        required = pack_rows(bits)[0]
        keep &= ((covered & required) == required).all(axis=1)
    return order, covered[keep], chosen[keep]


@dataclass(frozen=True)
class _Partial:
    """Partial layouts, one row each: the cells their ships cover and block (packed), the ship cells in each line (rows,
    then columns) and each ship's placement index, in the order placed."""

    covered: np.ndarray
    blocked: np.ndarray
    used: np.ndarray
    chosen: np.ndarray

    def slice(self, start: int, stop: int) -> _Partial:
        return _Partial(self.covered[start:stop], self.blocked[start:stop], self.used[start:stop], self.chosen[start:stop])

    @staticmethod
    def joined(parts: list[_Partial]) -> _Partial:
        return _Partial(*(np.concatenate([getattr(p, name) for p in parts]) for name in ("covered", "blocked", "used", "chosen")))

    def extend(
        self,
        index: np.ndarray,
        use: np.ndarray,
        cells: np.ndarray,
        halo: np.ndarray,
        want: np.ndarray,
        given: np.ndarray,
        rows: int,
        left: int,
    ) -> _Partial:
        """Each partial layout with each placement (``index``, its line counts ``use``, ``cells`` and ``halo``) it has room
        for, kept while no tallied line is overfilled and the ``left`` ship cells can still fill the tallied rows and columns."""
        fits = ~(self.blocked[:, None, :] & cells[None, :, :]).any(axis=2)
        partial, placement = np.nonzero(fits)
        grown = self.used[partial] + use[placement]
        need = np.where(given, want - grown, 0)
        keep = (need >= 0).all(axis=1) & (need[:, :rows].sum(axis=1) <= left) & (need[:, rows:].sum(axis=1) <= left)
        partial, placement = partial[keep], placement[keep]
        return _Partial(
            self.covered[partial] | cells[placement],
            self.blocked[partial] | halo[placement],
            grown[keep],
            np.concatenate([self.chosen[partial], index[placement, None]], axis=1),
        )


def _line_matrix(rows: int, n: int) -> np.ndarray:
    """``out[cell, line]``: 1 when row-major ``cell`` is in ``line`` (rows first, then columns)."""
    out = np.zeros((rows * n, rows + n), dtype=np.int64)
    cells = np.arange(rows * n)
    out[cells, cells // n] = 1
    out[cells, rows + cells % n] = 1
    return out


def listed(problem: Problem, state: GameState, prior: Prior | None) -> Counts | Weighted:
    """The exact counts (``prior`` None) or weighted posterior of the tallied ``state``, by listing; a one-line
    BudgetExceeded when its layouts are too many to list, Inconsistent when none is left (or the tallies alone show it)."""
    rows, n, ships = problem.rows, problem.cols, problem.ships
    found = _listing(problem, state)
    return listed_counts(rows, n, ships, *found) if prior is None else listed_weighted(rows, n, ships, *found, prior)


def sample(problem: Problem, state: GameState, count: int, rng: Randomness) -> list[tuple[Placement, ...]]:
    """``count`` layouts drawn from the tallied ``state``'s posterior (each listed layout weighed by its prior), one per
    walker of ``rng`` (one generator for all, or one each: :mod:`~.streams`); refused as :func:`listed` refuses."""
    order, covered, chosen = _listing(problem, state)
    prior, rows, n = state.config.effective_prior, problem.rows, problem.cols
    share = None
    if not prior.is_uniform:
        bits = np.unpackbits(covered.view(np.uint8), axis=1, bitorder="little")[:, : rows * n].astype(np.float64)
        log_weight = listed_features(rows, n, problem.ships, order, bits, chosen) @ np.array(prior.theta)
        weight = np.exp(log_weight - log_weight.max())
        share = weight / weight.sum()
    picks = [int(walker(rng, i).choice(len(chosen), p=share)) for i in range(count)]
    placements = [state.config.placements(ship) for ship in range(len(problem.ships))]
    return [
        tuple(sorted((placements[ship][chosen[k, column]] for column, ship in enumerate(order)), key=lambda p: p.ship))
        for k in picks
    ]


def _listing(problem: Problem, state: GameState) -> Listed:
    """:func:`tallied_layouts`, or the one-line errors of too many layouts to list and of none."""
    check_tallies(state)
    found = tallied_layouts(problem, state)
    if found is None:
        raise BudgetExceeded(
            f"this state's tallies leave too many layouts to list (more than {PAIR_LIMIT:,} pairs for one ship) and its "
            "evidence is not a puzzle's (uniform prior, misses and hits, no hit that could have sunk a ship): "
            "give more tallies or shots"
        )
    if not len(found[1]):
        raise Inconsistent("no layout of the fleet fits all the answers and the tallies")
    return found


def is_puzzle(state: GameState) -> bool:
    """Whether ``state``'s evidence is a Bimaru puzzle's (see the module's docstring): the puzzle counter can count it."""
    no_sink_possible = state.config.rules.sinks == SILENT or not state.hits
    return state.config.effective_prior.is_uniform and not state.sunk_shots and no_sink_possible


def puzzle_marginals(state: GameState) -> Marginals:
    """The exact marginals and layouts of a state whose evidence is a puzzle's, by the puzzle counter (cells only)."""
    from battlelog.tallies.count import BUDGET, count  # the puzzle counter loads numba: only for the states it takes
    from battlelog.tallies.puzzle import SHIP, WATER, Puzzle

    hints = {cell: WATER for cell in state.misses} | {cell: SHIP for cell in state.hits}
    row_counts, col_counts = state.row_counts or (None,) * state.rows, state.col_counts or (None,) * state.cols
    puzzle = Puzzle(state.rows, state.cols, state.ships, row_counts, col_counts, hints, state.config.rules.touch)
    try:
        found = count(puzzle, marginals=True, budget=BUDGET)
    except BudgetExceeded:
        raise BudgetExceeded(
            f"counting this state's layouts under its tallies needs more than {BUDGET:,} steps: give more tallies or shots"
        ) from None
    if found.solutions == 0 or found.cells is None:
        raise Inconsistent("no layout of the fleet fits all the answers and the tallies")
    return Marginals(np.array(found.cells, dtype=np.float64), found.layouts)


def marginals(state: GameState, by_listing: Callable[[], Marginals]) -> Marginals:
    """The exact marginals of the tallied ``state``: ``by_listing()`` (the engine's listing, up its ladder), or when that
    gives up, the puzzle counter if the state's evidence is a puzzle's."""
    try:
        return by_listing()
    except BudgetExceeded:
        if not is_puzzle(state):
            raise
    return puzzle_marginals(state)


__all__ = ["PAIR_LIMIT", "check_tallies", "is_puzzle", "listed", "marginals", "puzzle_marginals", "sample", "tallied_layouts"]
