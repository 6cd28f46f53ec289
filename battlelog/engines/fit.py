"""Fitting a prior to layouts: maximum likelihood of theta with the exact expectations of a weighted engine.

The prior is an exponential family over the legal layouts, p(L) = exp(theta . f(L)) / Z(theta), so the
log-likelihood of n layouts with feature sum S is ``theta . S - n log Z(theta)``: concave, with gradient
``S - n E_theta[f]`` and Hessian ``-n Cov_theta[f]``. The engine gives E_theta[f] and log Z(theta)
exactly (``feature_expectations`` and ``log_partition`` on the empty board); the covariance is the
derivative of the expectations, taken by central differences. Damped Newton steps climb to the
maximum; the standard errors come from the Fisher information ``n Cov``. A ridge (a Gaussian prior on
theta) keeps a fit to few layouts finite (``belief=learn``); plain ``battlelog learn`` has none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from battlelog.engines import DEFAULT_ENGINE, Engine
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError, RulesError
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import FEATURES, UNIFORM, Prior, feature_bounds, features_text
from battlelog.rules.state import GameState

#: Step of the central differences that give the covariance from the expectations.
STEP = 1e-4
#: A weight whose size passes this is taken as running off to infinity (no finite maximum).
RUNAWAY = 12.0
#: Newton stops when no weight moves more than this.
TOLERANCE = 1e-9
MAX_STEPS = 60


@dataclass(frozen=True)
class Fit:
    """A fitted prior: theta, its standard errors (None for a feature left at 0), the layouts it was fitted
    to, the log-likelihood of those layouts under it, and why each feature left at 0 was left there."""

    prior: Prior
    stderr: dict[str, float | None]
    layouts: int
    loglik: float
    fixed: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """What ``battlelog learn --json`` prints."""
        out: dict[str, object] = {
            "prior": self.prior.to_json(), "stderr": self.stderr, "layouts": self.layouts, "loglik": self.loglik,
        }
        if self.fixed:
            out["fixed"] = self.fixed
        return out


def weighted_engine(workspace: Workspace, name: str = DEFAULT_ENGINE) -> Engine:
    """The engine that weighs priors (the default one, from ``workspace``): the one place learning and
    hiders get it from. One that cannot is a one-line error."""
    engine = workspace.engine(name)
    if not engine.weighs_priors or not hasattr(engine, "feature_expectations") or not hasattr(engine, "log_partition"):
        raise BattlelogError(f"the {name} engine does not weigh priors yet: it cannot draw from or fit a prior")
    return engine


class _Model:
    """E_theta[f], Cov_theta[f] and log Z(theta) of one board, through the engine; only the ``learnt`` features'
    expectations are asked for (the others read 0: a fit never moves their weights)."""

    def __init__(self, engine: Engine, config: GameConfig, learnt: tuple[str, ...] = FEATURES) -> None:
        self.engine, self.config, self.learnt = engine, config, learnt
        self._means: dict[tuple[float, ...], np.ndarray] = {}
        self.calls = 0  # engine calls: the cost of a fit

    def _state(self, theta: np.ndarray) -> GameState:
        return GameState.empty(self.config.with_prior(Prior(*(float(t) for t in theta))))

    def mean(self, theta: np.ndarray) -> np.ndarray:
        key = tuple(float(t) for t in theta)
        if key not in self._means:
            self.calls += 1
            asked = self.engine.feature_expectations(self._state(theta), self.learnt)  # type: ignore[attr-defined]
            self._means[key] = _spread_out(asked, self.learnt)
        return self._means[key]

    def log_z(self, theta: np.ndarray) -> float:
        self.calls += 1
        return float(self.engine.log_partition(self._state(theta)))  # type: ignore[attr-defined]

    def cov(self, theta: np.ndarray, free: list[int], central: bool = True) -> np.ndarray:
        """Cov_theta[f] as the derivative of E_theta[f]: by central differences, or (cheaper, for Newton's
        steps, whose end point does not depend on it) forward ones from E at theta itself."""
        out = np.zeros((3, 3))
        for j in free:
            step = np.zeros(3)
            step[j] = STEP
            low, width = (theta - step, 2 * STEP) if central else (theta, STEP)
            out[:, j] = (self.mean(theta + step) - self.mean(low)) / width
        return (out + out.T) / 2


def _spread_out(values: np.ndarray, features: tuple[str, ...]) -> np.ndarray:
    """``values`` of ``features`` as a vector over :data:`FEATURES` (0 for the others)."""
    out = np.zeros(len(FEATURES))
    out[[FEATURES.index(f) for f in features]] = np.asarray(values, dtype=float)
    return out


def fit_prior(engine: Engine, config: GameConfig, totals: np.ndarray, n: int, ridge: float = 0.0, start: Prior = UNIFORM,
              errors: bool = True, learnt: tuple[str, ...] = FEATURES) -> Fit:  # fmt: skip
    """The maximum-likelihood prior of ``n`` layouts of ``config`` whose features sum to ``totals`` (with
    ``ridge``: the maximum of the likelihood times a Gaussian of precision ``ridge`` on each weight).

    A feature that no two legal layouts differ in (``touch`` where ships never meet along a side, ``vertical``
    of a fleet of length-1 ships) stays 0; so does one whose data lie at the end of its range (every layout
    with touch 0, say), whose likelihood grows without bound, unless ``ridge`` holds it. Both are said in
    :attr:`Fit.fixed`. ``errors``: compute the standard errors (3 more engine calls per weight; without,
    they are None). ``learnt``: the features whose weights are fitted; the others stay 0 (said in
    :attr:`Fit.fixed`), and their expectations are never asked for, which spares the engine the touching
    pairs when ``touch`` is left out. A fit from 0 costs about 5 engine calls a Newton step, and 4 to 6 steps.
    """
    if n < 1:
        raise BattlelogError("no layouts to learn from")
    config = config.with_prior(UNIFORM)
    model = _Model(engine, config, learnt)
    totals = np.asarray(totals, dtype=float)
    asked = [FEATURES.index(name) for name in learnt]
    spread = np.diag(model.cov(np.zeros(3), asked, central=False))
    fixed: dict[str, str] = {}
    bounds = feature_bounds(config.rows, config.cols, config.ships)
    for j, name in enumerate(FEATURES):
        mean = totals[j] / n
        if name not in learnt:
            fixed[name] = f"not learnt (features={features_text(learnt)})"
        elif spread[j] <= 1e-9 * max(1.0, float(bounds[j])):
            fixed[name] = f"every legal layout has the same {name}: it tells nothing"
        elif ridge == 0 and (mean <= 0 or mean >= bounds[j]):
            end = "fewest" if mean <= 0 else "most"
            fixed[name] = f"every layout has the {end} {name} possible ({mean:g}): no finite maximum, left at 0"
    free = [j for j, name in enumerate(FEATURES) if name not in fixed]
    theta = np.array([t if j in free else 0.0 for j, t in enumerate(start.theta)])

    def objective(t: np.ndarray) -> float:
        return float(t @ totals - n * model.log_z(t) - ridge / 2 * t @ t)

    value = objective(theta)
    for _ in range(MAX_STEPS):
        if not free:
            break
        grad = (totals - n * model.mean(theta) - ridge * theta)[free]
        hess = (n * model.cov(theta, free, central=False) + ridge * np.eye(3))[np.ix_(free, free)]
        step = np.zeros(3)
        step[free] = np.linalg.solve(hess, grad)
        scale = 1.0
        while True:  # damped: halve the step until the likelihood does not fall (it is concave, so this ends)
            trial = theta + scale * step
            try:
                new = objective(trial) if np.abs(trial).max() <= RUNAWAY else None
            except RulesError:  # a prior too strong for the board's weights to stay in float64
                new = None
            if new is None:
                raise BattlelogError(
                    f"the likelihood has no finite maximum: the weights run off (to {Prior(*trial).text()}); "
                    "the layouts are too few or too extreme to fit"
                )
            if new >= value - 1e-12 * abs(value) or scale < 1e-6:
                break
            scale /= 2
        theta, value = trial, new
        if np.abs(scale * step).max() < TOLERANCE:
            break
    stderr: dict[str, float | None] = {name: None for name in FEATURES}
    if errors and free:
        info = n * model.cov(theta, free)[np.ix_(free, free)]
        for j, e in zip(free, np.sqrt(np.diag(np.linalg.inv(info)))):
            stderr[FEATURES[j]] = float(e)
    loglik = value + ridge / 2 * float(theta @ theta)  # the likelihood alone, without the ridge's Gaussian
    return Fit(Prior(*(float(t) for t in theta)), stderr, n, loglik, fixed)


def fit_partial(engine: Engine, config: GameConfig, states: list[GameState], rounds: int = 200,
                learnt: tuple[str, ...] = FEATURES) -> Fit:  # fmt: skip
    """The maximum-likelihood prior of games seen only through their shots (``states``: each game's final
    state), by EM: the E-step is each state's exact E_theta[f | answers] (the engine's
    ``feature_expectations`` of the state under theta), the M-step the complete-data fit to their sum.
    The standard errors come from the observed information: the derivative of the observed score
    ``sum_i E_theta[f | state_i] - n E_theta[f]``, by central differences. ``learnt`` as for :func:`fit_prior`."""
    n = len(states)
    config = config.with_prior(UNIFORM)
    fit = Fit(UNIFORM, {}, n, 0.0)

    def conditional(theta: np.ndarray) -> np.ndarray:
        under = config.with_prior(Prior(*(float(t) for t in theta)))
        expect = engine.feature_expectations  # type: ignore[attr-defined]
        total = np.zeros(3)
        for s in states:
            total += _spread_out(expect(_under(s, under), learnt), learnt)
        return total

    for _ in range(rounds):
        before = np.array(fit.prior.theta)
        fit = fit_prior(engine, config, conditional(before), n, start=fit.prior, errors=False, learnt=learnt)
        if np.abs(np.array(fit.prior.theta) - before).max() < 1e-7:
            break
    theta, model = np.array(fit.prior.theta), _Model(engine, config, learnt)
    free = [j for j, name in enumerate(FEATURES) if name not in fit.fixed]
    info = np.zeros((3, 3))
    for j in free:
        step = np.zeros(3)
        step[j] = STEP
        score = [conditional(theta + s) - n * model.mean(theta + s) for s in (step, -step)]
        info[:, j] = -(score[0] - score[1]) / (2 * STEP)
    info = ((info + info.T) / 2)[np.ix_(free, free)]
    stderr: dict[str, float | None] = {name: None for name in FEATURES}
    for j, e in zip(free, np.sqrt(np.diag(np.linalg.inv(info))) if free else ()):
        stderr[FEATURES[j]] = float(e)
    prior = fit.prior
    log_z = engine.log_partition  # type: ignore[attr-defined]
    loglik = float(sum(float(log_z(_under(s, config.with_prior(prior)))) for s in states)) - n * model.log_z(theta)
    return Fit(prior, stderr, n, loglik, fit.fixed)


def _under(state: GameState, config: GameConfig) -> GameState:
    """``state``'s shots and tallies under ``config`` (the same board and rules, another prior)."""
    return GameState(config, state.shots, row_counts=state.row_counts, col_counts=state.col_counts)


__all__ = ["Fit", "fit_partial", "fit_prior", "weighted_engine"]
