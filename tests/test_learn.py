"""Learning a prior: the fit against a brute-force maximisation of the oracle's exact likelihood, recovery of
known priors, features left at 0, EM over the shots, and the command's one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from prior_engine import StandInEngine, use_stand_in
from scipy.optimize import minimize
from test_hiders import in_process

from battlelog.cli import main
from battlelog.engines.fit import fit_partial, fit_prior
from battlelog.players import make_player
from battlelog.rules.config import GameConfig
from battlelog.rules.prior import FEATURES, Prior, layout_features
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.loop import play_game
from battlelog.runner.records import load_results, placement_json
from battlelog.runner.seeds import layout_for

import oracle
from runs import one_line_error

BOARD = GameConfig(4, (3, 2))
HIDER = Prior(edge=0.8, vertical=-0.4, touch=-1.2)


def _spots(layout: tuple) -> tuple[oracle.Spot, ...]:
    return tuple((p.length, p.row, p.col, p.horizontal) for p in layout)


def _brute_fit(table: oracle.Layouts, log_lik_of) -> np.ndarray:
    """The maximum of an exact log-likelihood over theta, by scipy from several starts (the best one)."""
    best = min((minimize(lambda t: -log_lik_of(t), start, method="Nelder-Mead",
                         options={"xatol": 1e-9, "fatol": 1e-12, "maxiter": 20000})
                for start in (np.zeros(3), np.array([1.0, -1.0, -1.0]))), key=lambda r: r.fun)  # fmt: skip
    return np.asarray(best.x)


def _complete_log_lik(table: oracle.Layouts, chosen: list[int]):
    def log_lik(theta: np.ndarray) -> float:
        w = oracle.layout_weights(table, *theta)
        return float(np.log(w[chosen]).sum() - len(chosen) * np.log(w.sum()))

    return log_lik


def test_the_fit_is_the_exact_maximum_and_recovers_the_hider(monkeypatch: pytest.MonkeyPatch) -> None:
    use_stand_in(monkeypatch)
    layouts = [layout_for(BOARD, 11, game, HIDER) for game in range(600)]
    totals = np.sum([layout_features(layout, 4, 4) for layout in layouts], axis=0)
    fit = fit_prior(StandInEngine(), BOARD, totals, len(layouts))
    table = oracle.layouts(4, (3, 2))
    index = {spots: k for k, spots in enumerate(table.spots)}
    log_lik = _complete_log_lik(table, [index[_spots(layout)] for layout in layouts])
    brute = _brute_fit(table, log_lik)
    assert np.allclose(fit.prior.theta, brute, atol=1e-5)
    assert fit.loglik == pytest.approx(log_lik(brute), abs=1e-8) and fit.layouts == 600 and not fit.fixed
    # standard errors: the inverse of the Fisher information n Cov[f], the covariance from the oracle's weights
    w = oracle.layout_weights(table, *brute)
    f = np.stack([np.log(oracle.layout_weights(table, **{name: 1.0})) for name in FEATURES], axis=1)
    p = w / w.sum()
    cov = (f * p[:, None]).T @ f - np.outer(p @ f, p @ f)
    assert np.allclose([float(fit.stderr[name] or 0) for name in FEATURES], np.sqrt(np.diag(np.linalg.inv(600 * cov))), rtol=1e-4)
    for name, true in zip(FEATURES, HIDER.theta):
        assert abs(getattr(fit.prior, name) - true) < 3 * fit.stderr[name], name  # type: ignore[operator]


class _Noting(StandInEngine):
    """The stand-in, noting the features each call asks the expectations of."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, ...]] = []

    def feature_expectations(self, state: GameState, features: tuple[str, ...] = FEATURES) -> np.ndarray:
        self.asked.append(features)
        return super().feature_expectations(state, features)


def test_a_fit_of_some_weights_is_the_exact_maximum_over_them_and_asks_for_nothing_else(monkeypatch: pytest.MonkeyPatch) -> None:
    use_stand_in(monkeypatch)
    layouts = [layout_for(BOARD, 11, game, HIDER) for game in range(600)]
    totals = np.sum([layout_features(layout, 4, 4) for layout in layouts], axis=0)
    engine = _Noting()
    fit = fit_prior(engine, BOARD, totals, len(layouts), learnt=("edge", "vertical"))
    assert engine.asked and set(engine.asked) == {("edge", "vertical")}  # E[touch] never asked: no touching pairs counted
    assert fit.prior.touch == 0 and fit.stderr["touch"] is None and fit.fixed == {"touch": "not learnt (features=edge+vertical)"}
    table = oracle.layouts(4, (3, 2))
    index = {spots: k for k, spots in enumerate(table.spots)}
    log_lik = _complete_log_lik(table, [index[_spots(layout)] for layout in layouts])
    brute = minimize(lambda t: -log_lik(np.array([t[0], t[1], 0.0])), np.zeros(2), method="Nelder-Mead",
                     options={"xatol": 1e-9, "fatol": 1e-12, "maxiter": 20000}).x  # fmt: skip
    assert np.allclose(fit.prior.theta[:2], brute, atol=1e-5) and fit.loglik == pytest.approx(
        log_lik(np.array([*brute, 0.0])), abs=1e-8
    )
    full = fit_prior(StandInEngine(), BOARD, totals, len(layouts))
    assert fit.loglik < full.loglik - 1  # touch was worth fitting on these layouts: leaving it out is a real restriction
    alone = fit_prior(_Noting(), BOARD, totals, len(layouts), learnt=("touch",))
    assert alone.prior.edge == alone.prior.vertical == 0 and alone.prior.touch < 0


def test_a_feature_with_nothing_to_learn_stays_zero_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    use_stand_in(monkeypatch)
    apart = GameConfig(4, (2, 2), Rules(touch="none"))
    layouts = [layout_for(apart, 1, game, Prior(edge=0.5)) for game in range(100)]
    fit = fit_prior(StandInEngine(), apart, np.sum([layout_features(x, 4, 4) for x in layouts], axis=0), 100)
    assert fit.prior.touch == 0 and fit.stderr["touch"] is None and "same touch" in fit.fixed["touch"]
    assert fit.stderr["edge"] is not None and fit.prior.edge != 0
    # every layout without contact under rules that allow it: the likelihood grows as touch falls, without end
    alone = [x for x in (layout_for(BOARD, 2, game) for game in range(200)) if layout_features(x, 4, 4)[2] == 0][:50]
    fit = fit_prior(StandInEngine(), BOARD, np.sum([layout_features(x, 4, 4) for x in alone], axis=0), len(alone))
    assert fit.prior.touch == 0 and "fewest touch possible" in fit.fixed["touch"] and fit.stderr["edge"] is not None


def test_em_over_the_shots_is_the_exact_maximum_of_what_was_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    use_stand_in(monkeypatch)
    config = GameConfig(3, (2, 1), Rules(sinks="silent"))
    hider = Prior(edge=1.0, touch=-1.0)
    states = [play_game(config, layout_for(config, 5, g, hider), make_player("random", g)).state.prefix(5) for g in range(60)]
    fit = fit_partial(StandInEngine(), config, states)
    table = oracle.layouts(3, (2, 1))
    seen = [oracle.posterior(table, [(s.cell, (s.result, s.ship)) for s in state.shots], "silent") for state in states]

    def log_lik(theta: np.ndarray) -> float:
        w = oracle.layout_weights(table, *theta)
        return float(sum(np.log(w[k].sum()) for k in seen) - len(seen) * np.log(w.sum()))

    brute = _brute_fit(table, log_lik)
    assert np.allclose(fit.prior.theta, brute, atol=1e-4) and fit.loglik == pytest.approx(log_lik(brute), abs=1e-6)
    assert all(fit.stderr[name] is not None for name in FEATURES)


def _write_games(path: Path, config: GameConfig, seed: int, games: int, hider: Prior, players: int = 2) -> None:
    lines = []
    for game in range(games):
        layout = [placement_json(p) for p in layout_for(config, seed, game, hider)]
        lines += [json.dumps({"player": f"p{k}", "size": config.rows, "ships": list(config.ships), "seed": seed, "game": game,
                              "layout": layout})
                  for k in range(players)]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")


def test_learn_prints_the_fit_of_each_game_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    use_stand_in(monkeypatch)
    path = tmp_path / "games.jsonl"
    _write_games(path, BOARD, 3, 300, HIDER)
    assert main(["learn", str(path), "--size", "4", "--ships", "3,2", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    totals = np.sum([layout_features(layout_for(BOARD, 3, g, HIDER), 4, 4) for g in range(300)], axis=0)
    fit = fit_prior(StandInEngine(), BOARD, totals, 300)
    assert printed == {"prior": fit.prior.to_json(), "stderr": fit.stderr, "layouts": 300, "loglik": fit.loglik}
    assert main(["learn", str(path), "--size", "4", "--ships", "3,2"]) == 0
    text = capsys.readouterr().out
    assert (
        "300 layouts (300 records skipped: repeats of a game, or without shots)" in text
        and f"edge     {fit.prior.edge:+.4f}" in text
    )


def test_learn_fits_the_features_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    use_stand_in(monkeypatch)
    path = tmp_path / "games.jsonl"
    _write_games(path, BOARD, 3, 200, HIDER, players=1)
    assert main(["learn", str(path), "--size", "4", "--ships", "3,2", "--features", "vertical+edge", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    totals = np.sum([layout_features(layout_for(BOARD, 3, g, HIDER), 4, 4) for g in range(200)], axis=0)
    assert printed["prior"] == fit_prior(StandInEngine(), BOARD, totals, 200, learnt=("edge", "vertical")).prior.to_json()
    assert printed["fixed"] == {"touch": "not learnt (features=edge+vertical)"} and printed["stderr"]["touch"] is None
    one_line_error(capsys, ["learn", str(path), "--size", "4", "--ships", "3,2", "--features", "edge,corner"],
                   "features: 'edge,corner' is not a list of edge, vertical, touch (or all)")  # fmt: skip


def test_learn_refuses_bad_files_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    use_stand_in(monkeypatch)
    good = json.dumps({"layout": [placement_json(p) for p in layout_for(BOARD, 0, 0)]})
    overlap = json.dumps({"layout": [{"ship": 0, "length": 3, "row": 0, "col": 0, "orientation": "h"},
                                     {"ship": 1, "length": 2, "row": 0, "col": 1, "orientation": "v"}]})  # fmt: skip
    cases = {
        "empty.jsonl": ("", "empty: no layouts to learn from"),
        "notjson.jsonl": (good + "\n{oops\n", "notjson.jsonl line 2: not valid JSON"),
        "overlap.jsonl": (overlap + "\n", "overlap.jsonl line 1: the layout has two ships on one cell"),
        "fleet.jsonl": (
            json.dumps({"ships": [2, 2], "layout": []}) + "\n",
            "fleet.jsonl line 1: a game of fleet [2, 2], not 3,2",
        ),
        "nolayout.jsonl": ('{"game": 1}\n', "nolayout.jsonl line 1: expected a JSON object with a layout"),
        "off.jsonl": (good.replace('"row": ', '"row": 9', 1) + "\n", "layout entry 0 is not a placement of ship 0"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        one_line_error(capsys, ["learn", str(tmp_path / name), "--size", "4", "--ships", "3,2"], message)
    one_line_error(capsys, ["learn", str(tmp_path / "missing.jsonl"), "--size", "4", "--ships", "3,2"], "cannot read")


def test_learn_partial_reads_the_shots_of_an_experiment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    in_process(monkeypatch)
    out = tmp_path / "silent"
    assert main(["experiment", "--size", "3", "--ships", "2,1", "--sinks", "silent", "--players", "random", "--games", "30",
                 "--seed", "8", "--hider", "spreader", "--out", str(out)]) == 0  # fmt: skip
    capsys.readouterr()
    board = ["--size", "3", "--ships", "2,1", "--sinks", "silent"]
    assert main(["learn", str(out / "games.jsonl"), *board, "--partial", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    config = GameConfig(3, (2, 1), Rules(sinks="silent"))
    states = [GameState.from_json({"size": 3, "ships": [2, 1], "rules": config.rules.to_json(), "shots": r["shots"]})
              for r in sorted(load_results(out)[1], key=lambda r: r["game"])]  # fmt: skip
    fit = fit_partial(StandInEngine(), config, states)
    assert printed["prior"] == pytest.approx(fit.prior.to_json(), abs=1e-9) and printed["layouts"] == 30
    assert printed["loglik"] == pytest.approx(fit.loglik, abs=1e-9)
    (tmp_path / "bare.jsonl").write_text(json.dumps({"layout": [placement_json(p) for p in layout_for(config, 0, 0)]}) + "\n")
    one_line_error(
        capsys, ["learn", str(tmp_path / "bare.jsonl"), *board, "--partial"], "--partial learns from shots, and no game in"
    )
