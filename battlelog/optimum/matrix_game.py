"""The value of a finite zero-sum matrix game and optimal mixed strategies, exactly in fractions.

Rows are the minimiser's pure strategies (the seeker's policies), columns the maximiser's (the hider's
layouts), ``payoff[i][j] > 0`` what the minimiser pays (shots). The classic reduction to one linear
programme: with u the value and y = q / u, the minimiser's problem is max sum(y) s.t. payoff^T y <= 1,
y >= 0, whose dual min sum(x) s.t. payoff x >= 1, x >= 0 gives the maximiser's p = x u. It is solved by a
dense simplex over Python fractions with Bland's rule (no cycling, every pivot exact), and the answer is
checked before it is returned: every column the minimiser's mixture pays at most u, every row the
maximiser's mixture pays at least u, both mixtures sum to 1. Small games only (tens of strategies).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class GameSolution:
    """The value and an optimal mixture for each side (probabilities in the order of rows and columns)."""

    value: Fraction
    rows: tuple[Fraction, ...]
    columns: tuple[Fraction, ...]


def solve_matrix_game(payoff: Sequence[Sequence[Fraction]]) -> GameSolution:
    """The exact value and optimal mixtures of the game ``payoff`` (rows minimise, every entry positive)."""
    n, m = len(payoff), len(payoff[0])
    if any(len(row) != m for row in payoff) or any(v <= 0 for row in payoff for v in row):
        raise ValueError("a matrix game here needs a full matrix of positive payoffs")
    # Tableau: m constraint rows over n + m columns (y, then slacks) and the right-hand side; objective last.
    table = [
        [Fraction(payoff[i][j]) for i in range(n)] + [Fraction(int(k == j)) for k in range(m)] + [Fraction(1)] for j in range(m)
    ]
    objective = [Fraction(-1)] * n + [Fraction(0)] * m + [Fraction(0)]
    basis = [n + j for j in range(m)]
    while True:
        entering = next((c for c in range(n + m) if objective[c] < 0), None)  # Bland: the lowest index
        if entering is None:
            break
        ratios = [(table[r][-1] / table[r][entering], basis[r], r) for r in range(m) if table[r][entering] > 0]
        _, _, leaving = min(ratios)  # bounded: every y costs at least its positive payoffs
        pivot = table[leaving][entering]
        table[leaving] = [v / pivot for v in table[leaving]]
        for r in range(m):
            if r != leaving and table[r][entering] != 0:
                factor = table[r][entering]
                table[r] = [a - factor * b for a, b in zip(table[r], table[leaving])]
        factor = objective[entering]
        objective = [a - factor * b for a, b in zip(objective, table[leaving])]
        basis[leaving] = entering
    y = [Fraction(0)] * n
    for r, column in enumerate(basis):
        if column < n:
            y[column] = table[r][-1]
    value = Fraction(1) / sum(y, Fraction(0))
    solution = GameSolution(value, tuple(v * value for v in y), tuple(objective[n + j] * value for j in range(m)))
    check_solution(payoff, solution)
    return solution


def check_solution(payoff: Sequence[Sequence[Fraction]], solution: GameSolution) -> None:
    """Refuse (AssertionError: a bug, not bad input) a solution that is not optimal, checked exactly."""
    value, q, p = solution.value, solution.rows, solution.columns
    if sum(q) != 1 or sum(p) != 1 or min(q) < 0 or min(p) < 0:
        raise AssertionError("the mixtures are not distributions")
    for j in range(len(p)):
        if sum(q[i] * payoff[i][j] for i in range(len(q))) > value:
            raise AssertionError(f"column {j} gains against the minimiser's mixture")
    for i in range(len(q)):
        if sum(p[j] * payoff[i][j] for j in range(len(p))) < value:
            raise AssertionError(f"row {i} gains against the maximiser's mixture")


__all__ = ["GameSolution", "check_solution", "solve_matrix_game"]
