"""Beliefs: the belief option parses into one name per configuration, the player computes with it (against
the oracle's weighted posterior), belief=hider is told the truth, belief=learn refits from the games before,
and experiments record and show each configuration as its own row."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from prior_engine import use_stand_in
from scipy.optimize import minimize
from test_hiders import in_process

from battlelog.cli import main
from battlelog.commands.replay import scoring_player
from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError
from battlelog.players import make_player
from battlelog.players.posterior import PosteriorPlayer
from battlelog.players.spec import parse_players, player_spec
from battlelog.rules.config import GameConfig
from battlelog.rules.hiders import PRESETS
from battlelog.rules.prior import UNIFORM
from battlelog.rules.state import GameState
from battlelog.runner.beliefs import LEARN_RIDGE, learned_prior, resolved_options
from battlelog.runner.records import load_results
from battlelog.runner.seeds import layout_for
from battlelog.runner.task import GameTask, play_task
from battlelog.views.replay.sources import load_game

import oracle
from runs import experiment_in, one_line_error

SMALL = GameConfig(3, (2, 1))


def test_belief_options_have_one_name_each(tmp_path: Path) -> None:
    path = tmp_path / "prior.json"
    path.write_text(json.dumps({"prior": {"edge": 0.8, "touch": -1}}))
    labels = [s.label for s in parse_players(f"problog[belief=edge=0.8,touch=-1],info[belief={path}],thompson[belief=spreader],"
                                             "lookahead[width=2,belief=learn],problog[belief=hider,volley=entropy],"
                                             "problog[belief=uniform]")]  # fmt: skip
    assert labels == ["problog[belief=edge=0.8,touch=-1]", "info[belief=edge=0.8,touch=-1]", "thompson[belief=spreader]",
                      "lookahead[belief=learn,width=2]", "problog[belief=hider,volley=entropy]", "problog"]  # fmt: skip
    assert player_spec("problog[belief=edge:0.8;touch:-1]").label == labels[0]
    assert player_spec(labels[0]).options == {"belief": "edge=0.8,touch=-1"}  # the label reads back as itself
    with pytest.raises(BattlelogError, match="named twice"):
        parse_players("problog[belief=touch=-1],problog[belief=spreader]")


@pytest.mark.parametrize(
    ("spec", "message"),
    [("problog[belief=edgy]", "belief 'edgy' is neither uniform, a preset"),
     ("problog[belief=edges=1]", "unknown prior feature 'edges'"),
     ("mc[belief=spreader]", "player mc does not take option belief"),
     ("problog[belief=edge=1,width=2]", "unknown prior feature 'width'"),
     ("problog[features=edge]", "features=edge says what belief=learn fits; this player's belief is uniform"),
     ("thompson[belief=learn,features=edges]", "features: 'edges' is not a list of edge, vertical, touch (or all)")],
)  # fmt: skip
def test_a_bad_belief_is_one_line(spec: str, message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    one_line_error(
        capsys, ["experiment", "--size", "3", "--ships", "2,1", "--players", spec, "--out", str(tmp_path / "x")], message
    )


def test_a_belief_is_what_the_player_computes_with(monkeypatch: pytest.MonkeyPatch) -> None:
    use_stand_in(monkeypatch)
    config = GameConfig(4, (3, 2))
    state = GameState.empty(config).with_shot(1, 1, "miss").with_shot(0, 2, "hit")
    table = oracle.layouts(4, (3, 2))
    chosen = oracle.posterior(table, [((1, 1), ("miss", None)), ((0, 2), ("hit", None))], "named")
    for name in ("problog", "info", "thompson", "lookahead"):
        player = make_player(f"{name}[belief=edge=1.5,vertical=-1]", 0)
        marginals = player._engine.marginals(state)  # type: ignore[attr-defined]
        expected = oracle.weighted_cell_marginals(table, chosen, oracle.layout_weights(table, edge=1.5, vertical=-1.0))
        assert np.allclose(marginals.cells, expected, atol=1e-12), name
        assert not np.allclose(expected, oracle.cell_marginals(table, chosen), atol=1e-3)  # the belief changes the answer
    scores = make_player("problog[belief=edge=1.5,vertical=-1]", 0).scores(state)
    assert scores is not None and np.allclose(
        np.nan_to_num(scores, nan=-1), np.where(np.isin(np.arange(16), [5, 2]).reshape(4, 4), -1, expected)
    )


def test_hider_and_learn_are_refused_outside_an_experiment(capsys: pytest.CaptureFixture[str]) -> None:
    one_line_error(capsys,
                   ["play", "--size", "3", "--ships", "2,1", "--player", "problog[belief=hider]", "--seed", "1", "--quiet"],
                   "belief=hider is known only inside an experiment")  # fmt: skip


def _brute_map(layouts: list[tuple]) -> np.ndarray:
    """The maximum of the oracle's exact likelihood times a standard normal on each weight (scipy)."""
    table = oracle.layouts(3, (2, 1))
    index = {spots: k for k, spots in enumerate(table.spots)}
    chosen = [index[tuple((p.length, p.row, p.col, p.horizontal) for p in x)] for x in layouts]

    def minus(theta: np.ndarray) -> float:
        w = oracle.layout_weights(table, *theta)
        return -float(np.log(w[chosen]).sum() - len(chosen) * np.log(w.sum()) - LEARN_RIDGE / 2 * theta @ theta)

    return np.asarray(
        minimize(minus, np.zeros(3), method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-13, "maxiter": 20000}).x
    )


def test_learn_fits_the_games_before_in_any_order(monkeypatch: pytest.MonkeyPatch) -> None:
    use_stand_in(monkeypatch)
    hider = PRESETS["edge-hugger"]
    assert learned_prior(SMALL, 9, hider, 0, Workspace()) == UNIFORM
    late = learned_prior(SMALL, 9, hider, 12, Workspace())  # alone, as a worker that has played nothing would
    assert np.allclose(late.theta, _brute_map([layout_for(SMALL, 9, g, hider) for g in range(12)]), atol=1e-5)
    workspace = Workspace()
    assert [learned_prior(SMALL, 9, hider, g, workspace) for g in (3, 12, 1)][1] == late
    options = resolved_options({"belief": "learn", "width": 2}, SMALL, 9, 12, hider, None)
    assert options == {"belief": late.text(), "width": 2}
    assert resolved_options({"belief": "hider"}, SMALL, 9, 12, hider, None) == {"belief": "edge-hugger"}


def test_experiments_record_and_show_each_belief(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    in_process(monkeypatch)
    out = tmp_path / "beliefs"
    players = "problog,problog[belief=hider],problog[belief=edge-hugger],problog[belief=learn]"
    argv = [
        "experiment", "--size", "3", "--ships", "2,1", "--players", players, "--games", "5", "--seed", "4", "--hider",
        "edge-hugger", "--out", str(out),
    ]
    assert main(argv) == 0
    shown = capsys.readouterr().out
    records = load_results(out)[1]
    games = {(r["player"], r["game"]): r for r in records}
    for game in range(5):
        # told the truth is the same configuration as given the hider's prior by name: the same games
        assert games["problog[belief=hider]", game]["shots"] == games["problog[belief=edge-hugger]", game]["shots"]
        assert games["problog[belief=hider]", game]["options"] == {"belief": "hider"}
        learnt = learned_prior(SMALL, 4, PRESETS["edge-hugger"], game, Workspace())
        task = GameTask(
            "problog", {"belief": learnt.text() or "uniform"}, SMALL, 4, game, layout_for(SMALL, 4, game, PRESETS["edge-hugger"])
        )
        assert games["problog[belief=learn]", game]["shots"] == play_task(task)["shots"]
    for player in players.split(","):
        assert player in shown
    assert main(["summarize", str(out)]) == 0
    table = capsys.readouterr().out
    assert all(f"| {p} " in table or f"{p} " in table for p in players.split(","))


def test_learn_fits_only_the_features_its_option_names(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    in_process(monkeypatch)
    assert player_spec("problog[features=vertical+edge,belief=learn]").label == "problog[belief=learn,features=edge+vertical]"
    assert player_spec("problog[belief=learn,features=touch+vertical+edge]").label == "problog[belief=learn]"  # all: the default
    out = tmp_path / "edge-only"
    players = "problog[belief=learn],problog[belief=learn,features=edge]"
    assert main(["experiment", "--size", "3", "--ships", "2,1", "--players", players, "--games", "6", "--seed", "4",
                 "--hider", "clusterer", "--out", str(out)]) == 0  # fmt: skip
    capsys.readouterr()
    games = {(r["player"], r["game"]): r for r in load_results(out)[1]}
    hider = PRESETS["clusterer"]
    edge_only = learned_prior(SMALL, 4, hider, 5, Workspace(), ("edge",))
    assert edge_only.edge != 0 and edge_only.vertical == edge_only.touch == 0
    assert learned_prior(SMALL, 4, hider, 5, Workspace()).touch != 0  # all three: another prior
    assert games["problog[belief=learn,features=edge]", 5]["options"] == {"belief": "learn", "features": "edge"}
    task = GameTask("problog", {"belief": edge_only.text()}, SMALL, 4, 5, layout_for(SMALL, 4, 5, hider))
    assert games["problog[belief=learn,features=edge]", 5]["shots"] == play_task(task)["shots"]
    assert resolved_options({"belief": "learn", "features": "edge"}, SMALL, 4, 5, hider, None) == {"belief": edge_only.text()}


def test_a_replay_works_out_the_belief_its_game_had(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    in_process(monkeypatch)
    out = tmp_path / "learnt"
    assert main(["experiment", "--size", "3", "--ships", "2,1", "--players", "problog[belief=learn]", "--games", "4",
                 "--seed", "6", "--hider", "spreader", "--out", str(out)]) == 0  # fmt: skip
    game = load_game(out, 3, None)
    player = scoring_player(game)
    assert isinstance(player, PosteriorPlayer)
    assert player.belief_prior == learned_prior(SMALL, 6, PRESETS["spreader"], 3, Workspace()) != UNIFORM
    assert main(["replay", str(out), "--game", "3", "--out", str(tmp_path / "replay")]) == 0
    assert (tmp_path / "replay" / "replay.html").is_file()


def test_worker_processes_resolve_beliefs_too(tmp_path_factory: pytest.TempPathFactory) -> None:
    # the real engine, in a worker process: told that the hider is uniform, a player plays as if told nothing
    out = experiment_in(tmp_path_factory, "told", "--size", "4", "--ships", "3,2", "--players", "problog,problog[belief=hider]",
                        "--games", "3", "--seed", "5")  # fmt: skip
    games = {(r["player"], r["game"]): r for r in load_results(out)[1]}
    for game in range(3):
        assert games["problog[belief=hider]", game]["shots"] == games["problog", game]["shots"]
        assert games["problog[belief=hider]", game]["options"] == {"belief": "hider"} and "hider" not in games["problog", game]
