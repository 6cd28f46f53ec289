"""Exact answer distributions, their entropy and expected information gain.

A question's answer distribution is the weighted count of the layouts giving each answer: for a
question about one ship, the ship's placement weights (a few hundred numbers); otherwise the
layouts' weights summed by answer. Under noise ``e`` a yes/no answer is reported wrongly with
chance ``e``, so what the asker learns is H_b(e + (1 - 2e) p) - H_b(e) bits; other answers are exact
and give their entropy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from battlelog.questions.answers import answer_to_json
from battlelog.questions.language import Type
from battlelog.questions.scoped import CONST, DISJOINT, FULL, Space, Vec
from battlelog.questions.typecheck import Program
from battlelog.questions.vectorised import evaluate

#: The share of the total weight below which the rest left by a disjoint sum's answers is rounding, not an answer.
ROUNDING = 1e-12


@dataclass(frozen=True)
class AnswerDistribution:
    """A question's answers (evaluator values, in increasing order) with their probabilities."""

    program: Program
    values: tuple[int, ...]
    probabilities: tuple[float, ...]
    models: int
    noise: float

    @property
    def entropy(self) -> float:
        """Entropy of the true answer in bits."""
        return entropy(self.probabilities)

    @property
    def eig(self) -> float:
        """Expected information gain in bits of asking: a noisy yes/no answer tells less than its entropy."""
        if self.program.type != Type.BOOL or self.noise == 0:
            return self.entropy
        yes = dict(zip(self.values, self.probabilities)).get(1, 0.0)
        return binary_entropy(self.noise + (1 - 2 * self.noise) * yes) - binary_entropy(self.noise)

    def to_json(self, cols: int) -> dict[str, Any]:
        names = self.program.names
        return {
            "question": self.program.text,
            "models": self.models,
            "answers": [
                {"answer": answer_to_json(v, self.program.type, names, cols), "p": p}
                for v, p in zip(self.values, self.probabilities)
            ],
            "entropy": self.entropy,
            "eig": self.eig,
        }


def entropy(probabilities: Sequence[float]) -> float:
    return float(sum(p * math.log2(1 / p) for p in probabilities if p > 0))


def binary_entropy(p: float) -> float:
    return entropy((p, 1 - p))


def weighted_counts(value: Vec, space: Space) -> tuple[np.ndarray, np.ndarray]:
    """The distinct answers and the total weight of the layouts giving each."""
    if value.scope == CONST:
        return np.array([int(value.data)]), np.array([float(space.weights.sum())])
    if value.scope == DISJOINT:
        return _disjoint_counts(value, space)
    weights = space.weights if value.scope == FULL else space.ship_weights[value.scope]
    return _bincount(value.data.astype(np.int64), weights)


def _disjoint_counts(value: Vec, space: Space) -> tuple[np.ndarray, np.ndarray]:
    """A DISJOINT value's weighted counts from the ships' placement weights: a layout whose ship s
    has a non-zero term has the value data + term, and no other ship's term is non-zero there; the
    other layouts have the value ``data`` (their weight is the rest, up to rounding)."""
    total = float(space.weights.sum())
    base = int(value.data)
    masses: dict[int, float] = {}
    for s, term in enumerate(value.terms):
        live = term != 0
        values, totals = _bincount(base + term[live], space.ship_weights[s][live])
        for v, w in zip(values.tolist(), totals.tolist()):
            masses[v] = masses.get(v, 0.0) + w
    rest = total - sum(masses.values())
    if rest > total * ROUNDING:
        masses[base] = masses.get(base, 0.0) + rest
    keys = sorted(masses)
    return np.array(keys, dtype=np.int64), np.array([masses[k] for k in keys])


def _bincount(data: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``data`` with the total weight of each (positive totals only): one
    bin per value from the least to the largest when they lie close together (the usual case, and
    fast), else one per distinct value (answers far apart must not make an array spanning them)."""
    if len(data) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    low = int(data.min())
    if int(data.max()) - low < max(len(data), 1 << 16):
        totals = np.bincount(data - low, weights, minlength=1)
        present = np.flatnonzero(totals > 0)
        return present + low, totals[present]
    values, inverse = np.unique(data, return_inverse=True)
    totals = np.bincount(inverse.ravel(), weights, minlength=len(values))
    positive = totals > 0
    return values[positive], totals[positive]


def distribution(program: Program, space: Space, noise: float = 0.0) -> AnswerDistribution:
    """The exact distribution of ``program``'s answer over ``space``."""
    values, totals = weighted_counts(evaluate(program, space), space)
    probabilities = totals / totals.sum()
    return AnswerDistribution(program, tuple(int(v) for v in values), tuple(float(p) for p in probabilities), space.size, noise)
