"""The prior as data: its features against the oracle's, its JSON and --prior text, and one-line refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from battlelog.engines import ENGINES, engine_class
from battlelog.engines.base import Engine, Marginals, check_prior_support
from battlelog.errors import BattlelogError, FileFormatError, RulesError
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement
from battlelog.rules.prior import UNIFORM, Prior, feature_bounds, layout_features
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules

import oracle


def _placements(spots: tuple[oracle.Spot, ...]) -> tuple[Placement, ...]:
    return tuple(Placement(i, length, r, c, horizontal) for i, (length, r, c, horizontal) in enumerate(spots))


@pytest.mark.parametrize(("rows", "cols", "ships"), [(4, 4, (3, 2, 2)), (3, 5, (2, 2, 1)), (5, 3, (3, 1, 1))])
def test_features_match_the_oracle_on_every_layout(rows: int, cols: int, ships: tuple[int, ...]) -> None:
    table = oracle.layouts(rows, ships, cols=cols)
    theta = np.array([0.3, -0.7, 0.45])
    ours = np.array([layout_features(_placements(spots), rows, cols) for spots in table.spots])
    assert np.allclose(np.exp(ours @ theta), oracle.layout_weights(table, *theta), rtol=1e-12, atol=0)
    assert ours.min(axis=0).tolist() >= [0, 0, 0] and (ours <= np.array(feature_bounds(rows, cols, ships))).all()
    assert len(set(map(tuple, ours))) > 3  # the layouts differ in their features: the check above is not vacuous


def test_features_of_a_known_layout() -> None:
    # 4x4: ship 0 (3) across row 0 from col 0; ship 1 (2) down col 3 from row 0; ship 2 (2) down col 0 from row 1.
    layout = (Placement(0, 3, 0, 0, True), Placement(1, 2, 0, 3, False), Placement(2, 2, 1, 0, False))
    # every ship cell of this layout is on the ring of a 4x4 board; two vertical ships; touching
    # pairs: (0,2)-(0,3) of ships 0 and 1, (0,0)-(1,0) of ships 0 and 2.
    assert layout_features(layout, 4, 4) == (7, 2, 2)


def test_parse_json_and_text_round_trip() -> None:
    prior = Prior.parse("edge=0.8, touch=-1")
    assert prior == Prior(edge=0.8, touch=-1.0) and prior.text() == "edge=0.8,touch=-1"
    assert Prior.from_json(json.loads(json.dumps(prior.to_json()))) == prior
    assert Prior.from_json({"vertical": 2}) == Prior(vertical=2.0)
    assert Prior.from_json({}) == UNIFORM and UNIFORM.is_uniform and not prior.is_uniform
    assert Prior(edge=-0.0) == UNIFORM and hash(Prior(edge=-0.0)) == hash(UNIFORM)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("edges=1", "unknown prior feature 'edges'"),
        ("edge=abc", "edge=abc is not a finite number"),
        ("edge=nan", "edge=nan is not a finite number"),
        ("edge=inf", "edge=inf is not a finite number"),
        ("edge", "not a list of feature=weight"),
        ("edge=1,edge=2", "gives edge twice"),
    ],
)
def test_bad_prior_text_is_one_line(text: str, message: str) -> None:
    with pytest.raises(RulesError, match=message) as caught:
        Prior.parse(text)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("prior", "message"),
    [
        ({"corner": 1}, "unknown prior feature 'corner'"),
        ({"edge": "1"}, "must be a finite number"),
        ({"edge": True}, "must be a finite number"),
        ([1, 2], "prior must be an object"),
        ({"edge": 1e6}, "too strong for this board"),
    ],
)
def test_bad_prior_in_a_state_file_is_one_line(prior: object, message: str) -> None:
    with pytest.raises(FileFormatError, match=message) as caught:
        GameState.from_json({"size": 4, "ships": [3, 2], "prior": prior, "shots": []}, source="x.json")
    assert str(caught.value).startswith("x.json: ") and "\n" not in str(caught.value)


def test_a_strong_prior_is_refused_by_the_board_it_is_used_on() -> None:
    # |edge| x 5 ship cells = 100: fine on 4x4 3,2; 50 x 17 = 850 on 10x10: over the limit.
    GameConfig(4, (3, 2), prior=Prior(edge=20.0))
    with pytest.raises(RulesError, match=r"\|edge\| x 17 = 850"):
        GameConfig(10, (5, 4, 3, 3, 2), prior=Prior(edge=50.0))


def test_state_json_keeps_the_prior_and_standard_files_unchanged() -> None:
    state = GameState.from_json({"size": 4, "ships": [3, 2], "prior": {"edge": 0.5}, "shots": []})
    assert state.config.prior == Prior(edge=0.5)
    assert state.to_json()["prior"] == {"edge": 0.5, "vertical": 0.0, "touch": 0.0}
    assert GameState.from_json(state.to_json()) == state
    plain = GameState.empty(GameConfig(4, (3, 2)))
    assert "prior" not in plain.to_json()


def test_touch_weight_has_no_effect_where_ships_never_meet_along_a_side() -> None:
    prior = Prior(edge=0.5, touch=-2.0)
    for touch in ("diagonal", "none"):
        config = GameConfig(5, (3, 2), Rules(touch=touch), prior=prior)
        assert config.effective_prior == Prior(edge=0.5)
        assert config.posterior == GameConfig(5, (3, 2), Rules(touch=touch), prior=Prior(edge=0.5))
    assert GameConfig(5, (3, 2), prior=prior).effective_prior == prior
    assert GameConfig(5, (3, 2), Rules(salvo=2), prior=prior).posterior == GameConfig(5, (3, 2), prior=prior)


def test_label_names_the_prior() -> None:
    assert GameConfig(10, (5, 4, 3, 3, 2), prior=Prior(edge=0.8)).label() == "10x10 5,4,3,3,2 (prior edge=0.8)"
    config = GameConfig(10, (5, 4, 3, 3, 2), Rules(touch="none"), prior=Prior(touch=-1.0))
    assert config.label() == "10x10 5,4,3,3,2 (no contact, prior touch=-1)"


class _Unweighted(Engine):
    """An engine that, like the Engine interface's default, does not weigh priors."""

    name = "unweighted"

    def marginals(self, state: GameState) -> Marginals:
        raise AssertionError("never asked: the prior is refused first")


def test_an_engine_that_does_not_weigh_a_prior_is_refused_in_one_line() -> None:
    config = GameConfig(4, (3, 2), prior=Prior(edge=0.5))
    with pytest.raises(BattlelogError, match="the unweighted engine does not weigh priors yet") as caught:
        check_prior_support(_Unweighted, config)
    assert "\n" not in str(caught.value)
    check_prior_support(_Unweighted, GameConfig(4, (3, 2)))  # the uniform prior needs no weights
    # a touch weight under no contact weighs nothing, so it is not refused
    check_prior_support(_Unweighted, GameConfig(4, (2, 2), Rules(touch="none"), prior=Prior(touch=-1.0)))


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_every_registered_engine_weighs_priors(name: str) -> None:
    """The registry's engines all weigh priors (tests/test_prior_oracle.py and test_native_prior.py check
    how well); a new engine that does not is refused by the runner and the players, not used as uniform."""
    assert engine_class(name).weighs_priors
