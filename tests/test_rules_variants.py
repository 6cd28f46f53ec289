"""Rule variants in the game layer (issue 17, square boards): Rules, GameConfig, the state JSON, the shot
checks per sink rule, the referee, and layouts drawn uniformly under each touch rule."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from battlelog.errors import BattlelogError, FileFormatError, FleetError, RulesError, StateError
from battlelog.rules.config import GameConfig, find_layout
from battlelog.rules.geometry import Placement
from battlelog.rules.layouts import sample_layout
from battlelog.rules.referee import Referee
from battlelog.rules.state import GameState, Shot
from battlelog.rules.variants import Rules

import oracle

UNNAMED, SILENT = Rules(sinks="unnamed"), Rules(sinks="silent")


def one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(exc.value)
    assert "\n" not in text and text
    return text


# ----- Rules and GameConfig ---------------------------------------------------------------------
def test_rules_default_and_names() -> None:
    assert Rules() == Rules("allowed", "named") and Rules().is_default and Rules().text() == ""
    assert not Rules(touch="none").is_default
    with pytest.raises(RulesError) as exc:
        Rules(touch="never")
    assert one_line(exc) == "unknown touch rule 'never'; choose one of allowed, diagonal, none"
    with pytest.raises(RulesError) as exc:
        Rules(sinks="loud")
    assert one_line(exc) == "unknown sinks rule 'loud'; choose one of named, unnamed, silent"


def test_config_label_equality_and_default() -> None:
    standard = GameConfig(10, (5, 4, 3, 3, 2))
    assert standard.label() == "10x10 5,4,3,3,2" and standard.rules == Rules()
    assert GameConfig(10, (5, 4, 3, 3, 2), Rules("none", "unnamed")).label() == "10x10 5,4,3,3,2 (no contact, sinks unnamed)"
    assert GameConfig(5, (3, 2), Rules("diagonal")).label() == "5x5 3,2 (corner contact only)"
    assert GameConfig(5, (3, 2), Rules(sinks="silent")).label() == "5x5 3,2 (sinks silent)"
    other = GameConfig(10, (5, 4, 3, 3, 2), UNNAMED)
    assert other != standard and hash(GameConfig(10, (5, 4, 3, 3, 2))) == hash(standard)
    assert len({standard, other, GameConfig(10, (5, 4, 3, 3, 2), Rules())}) == 2


@pytest.mark.parametrize("touch", ["allowed", "diagonal", "none"])
def test_find_layout_respects_the_touch_rule(touch: str) -> None:
    rules = Rules(touch)
    for size, ships in [(3, (2, 1)), (4, (3, 2, 1)), (5, (3, 2, 2, 1)), (10, (4, 3, 3, 2, 2, 2, 1, 1, 1, 1))]:
        config = GameConfig(size, ships, rules)
        layout = find_layout(config)
        assert layout is not None and rules.legal(layout, size)


def test_a_fleet_that_does_not_fit_under_the_touch_rule_is_one_line() -> None:
    GameConfig(3, (2, 2, 1), Rules("diagonal"))  # fits with corners touching
    with pytest.raises(FleetError) as exc:
        GameConfig(3, (2, 2, 1), Rules("none"))
    assert one_line(exc) == "fleet 2,2,1 cannot be laid out on a 3x3 board with no contact"
    with pytest.raises(FleetError):
        GameConfig(2, (1, 1), Rules("none"))
    # As many layouts exist as the oracle counts; none when it finds none.
    for touch in ("allowed", "diagonal", "none"):
        assert len(oracle.layouts(2, (1, 1), touch)) == {"allowed": 12, "diagonal": 4, "none": 0}[touch]


# ----- the state JSON -------------------------------------------------------------------------
def test_default_rules_are_not_written() -> None:
    state = GameState(GameConfig(5, (3, 2)), (Shot(0, 0, "hit"), Shot(0, 1, "miss")))
    assert "rules" not in state.to_json()
    text = (
        '{"size": 5, "ships": [3, 2], "shots": [{"row": 0, "col": 0, "result": "hit"}, {"row": 0, "col": 1, "result": "miss"}]}'
    )
    assert json.dumps(state.to_json()) == text


def test_rules_round_trip_and_missing_keys_are_defaults() -> None:
    data = {"size": 4, "ships": [2, 1], "rules": {"sinks": "unnamed"},
            "shots": [{"row": 0, "col": 0, "result": "hit"}, {"row": 0, "col": 1, "result": "sunk"}]}
    state = GameState.from_json(data)
    assert state.config.rules == Rules("allowed", "unnamed")
    out = state.to_json()
    assert out["rules"] == {"touch": "allowed", "sinks": "unnamed"} and out["shots"][1] == {"row": 0, "col": 1, "result": "sunk"}
    assert GameState.from_json(out) == state
    touch = GameState.from_json({"size": 4, "ships": [2, 1], "rules": {"touch": "none"}, "shots": []})
    assert touch.config.rules == Rules("none", "named") and touch.to_json()["rules"] == {"touch": "none", "sinks": "named"}


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"touch": "never"}, "unknown touch rule 'never'; choose one of allowed, diagonal, none"),
        ({"sinks": "quiet"}, "unknown sinks rule 'quiet'; choose one of named, unnamed, silent"),
        ({"touh": "none"}, "unknown rules key 'touh'; expected only 'touch', 'sinks' and 'salvo'"),
        ("none", "rules must be an object"),
    ],
)
def test_bad_rules_in_json_are_one_line(rules: object, message: str) -> None:
    with pytest.raises(FileFormatError) as exc:
        GameState.from_json({"size": 4, "ships": [2], "rules": rules, "shots": []}, source="s.json")
    assert one_line(exc).startswith(f"s.json: {message}")


def test_a_fleet_that_does_not_fit_in_json_is_one_line() -> None:
    with pytest.raises(FleetError) as exc:
        GameState.from_json({"size": 3, "ships": [2, 2, 1], "rules": {"touch": "none"}, "shots": []})
    assert "with no contact" in one_line(exc)


# ----- shot checks per sink rule ----------------------------------------------------------------
def test_unnamed_sink_naming_a_ship_is_one_line() -> None:
    with pytest.raises(StateError) as exc:
        GameState(GameConfig(4, (2, 1), UNNAMED), (Shot(0, 0, "sunk", 1),))
    assert one_line(exc).startswith("shot 1 (A1) names ship 1, but sinks are unnamed")
    with pytest.raises(StateError):
        GameState.from_json(
            {
                "size": 4, "ships": [2, 1], "rules": {"sinks": "unnamed"},
                "shots": [{"row": 0, "col": 0, "result": "sunk", "ship": 1}],
            }
        )


def test_sunk_under_silent_is_one_line() -> None:
    with pytest.raises(StateError) as exc:
        GameState(GameConfig(4, (2, 1), SILENT), (Shot(0, 0, "sunk"),))
    assert one_line(exc).startswith("shot 1 (A1) is answered sunk, but sinks are silent")


def test_named_sink_without_a_ship_is_still_refused() -> None:
    with pytest.raises(StateError, match="without a ship index"):
        GameState(GameConfig(4, (2, 1)), (Shot(0, 0, "sunk"),))


def test_unnamed_counts_sinks_and_ends_with_the_last_ship() -> None:
    config = GameConfig(4, (2, 1), UNNAMED)
    state = GameState(config, (Shot(0, 0, "sunk"), Shot(1, 0, "hit")))
    assert state.sunk_count == 1 and not state.over and state.sinks == () and state.sunk_shots == (0,)
    with pytest.raises(StateError, match="sinks are unnamed, so which ships are afloat is not known"):
        _ = state.afloat
    done = state.with_shot(1, 1, "sunk")
    assert done.sunk_count == 2 and done.over
    with pytest.raises(StateError, match="comes after every ship was already sunk"):
        done.with_shot(3, 3, "miss")
    # The second sink needs the two shortest ships' 3 cells hit.
    with pytest.raises(StateError, match="sink number 2, but the 2 shortest ships of fleet 2,1 have 3 cells"):
        GameState(config, (Shot(0, 0, "sunk"), Shot(2, 2, "sunk")))


def test_silent_ends_when_every_ship_cell_is_hit() -> None:
    config = GameConfig(4, (2, 1), SILENT)
    state = GameState(config, (Shot(0, 0, "hit"), Shot(0, 1, "hit"), Shot(3, 3, "miss")))
    assert state.sunk_count == 0 and not state.over
    done = state.with_shot(2, 2, "hit")
    assert done.over
    with pytest.raises(StateError, match="comes after every ship cell was already hit"):
        done.with_shot(1, 1, "miss")


def test_named_afloat_and_over_unchanged() -> None:
    state = GameState(GameConfig(4, (2, 1)), (Shot(0, 0, "sunk", 1),))
    assert state.afloat == (0,) and state.sunk_count == 1 and not state.over
    assert state.with_shot(2, 0, "hit").with_shot(2, 1, "sunk", 0).over


# ----- the referee ------------------------------------------------------------------------------
@pytest.mark.parametrize(("rules", "last"), [(Rules(), ("sunk", 0)), (UNNAMED, ("sunk", None)), (SILENT, ("hit", None))])
def test_referee_answers_by_the_sink_rule(rules: Rules, last: tuple[str, int | None]) -> None:
    config = GameConfig(4, (2, 1), rules)
    referee = Referee(config, (Placement(0, 2, 0, 0, True), Placement(1, 1, 2, 2, True)))
    assert referee.shoot(3, 3) == ("miss", None)
    assert referee.shoot(0, 0) == ("hit", None)
    assert referee.shoot(0, 1) == last
    assert not referee.over
    assert referee.shoot(2, 2) == (last[0], None if last[1] is None else 1)
    assert referee.over


# ----- uniform layouts under each touch rule -----------------------------------------------------
@pytest.mark.parametrize("touch", ["allowed", "diagonal", "none"])
@pytest.mark.parametrize(("size", "ships"), [(3, (2, 1)), (4, (3, 2, 1))])
def test_sample_layout_is_uniform_over_legal_layouts(touch: str, size: int, ships: tuple[int, ...]) -> None:
    """Chi-square over every layout the oracle lists: each drawn layout legal, all equally often."""
    table = oracle.layouts(size, ships, touch)
    index = {spots: k for k, spots in enumerate(table.spots)}
    config = GameConfig(size, ships, Rules(touch))
    rng = np.random.default_rng(17)
    draws = 40 * len(table)
    seen: Counter[int] = Counter()
    for _ in range(draws):
        layout = sample_layout(config, rng)
        seen[index[tuple((p.length, p.row, p.col, p.horizontal) for p in layout)]] += 1  # KeyError: an illegal layout
    observed = np.array([seen[k] for k in range(len(table))])
    assert chisquare(observed).pvalue > 1e-3


def test_sampling_gives_up_in_one_line() -> None:
    config = GameConfig(4, (3, 2, 1), Rules("none"))  # 176 legal layouts of 6144 draws: about 3% accepted
    with pytest.raises(BattlelogError) as exc:
        for seed in range(20):
            sample_layout(config, np.random.default_rng(seed), max_tries=1)
    assert (
        one_line(exc)
        == "fleet 3,2,1 on a 4x4 board with no contact is packed so tightly that uniform sampling found no layout in 1 tries"
    )


def test_the_documented_rules_examples_are_valid_states() -> None:
    """The examples of docs/formats.md's Rules section read back as states under the rules they show."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "formats.md").read_text()
    section = text[text.index("### Rules") : text.index("## Marginals")]
    examples = [GameState.from_json(json.loads(block)) for block in re.findall(r"```json\n(.*?)```", section, re.S)]
    assert [s.config.rules for s in examples] == [Rules(salvo=2), Rules(touch="none"), UNNAMED, SILENT]
