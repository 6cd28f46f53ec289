"""Salvo (docs/rules.md): the rule and its validation, the volley game loop, every player's volleys,
and the posterior, which salvo leaves unchanged (checked against the brute-force oracle)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from battlelog.engines.workspace import Workspace
from battlelog.errors import BattlelogError, FileFormatError, RulesError, StateError
from battlelog.players import PLAYERS, check_player, make_player
from battlelog.rules.config import GameConfig
from battlelog.rules.state import GameState
from battlelog.rules.variants import Rules
from battlelog.runner.loop import play_game
from battlelog.runner.records import check_game_values
from battlelog.runner.seeds import game_seeds, layout_for
from battlelog.runner.task import GameTask, play_task

import oracle
from oracle import brute_marginals, consistent_layouts


def salvo_state(size: int, ships: list[int], salvo: Any, shots: list[tuple], sinks: str = "named") -> dict[str, Any]:
    """A state JSON; each shot ``(row, col, result, volley)`` or ``(row, col, "sunk", ship, volley)``."""
    raw = []
    for shot in shots:
        row, col, result, *rest = shot
        entry: dict[str, Any] = {"row": row, "col": col, "result": result}
        if result == "sunk" and sinks == "named":
            entry["ship"] = rest.pop(0)
        if rest and rest[0] is not None:
            entry["volley"] = rest[0]
        raw.append(entry)
    rules: dict[str, Any] = {"sinks": sinks} if salvo == 1 else {"sinks": sinks, "salvo": salvo}
    return {"size": size, "ships": ships, "rules": rules, "shots": raw}


def refused(data: dict[str, Any], message: str) -> None:
    with pytest.raises(StateError) as exc:
        GameState.from_json(data, source="s.json")
    text = str(exc.value)
    assert "\n" not in text and message in text, text


# ----- the rule and its validation -----------------------------------------------------------------
@pytest.mark.parametrize("value", [0, -1, "foo", True, 2.5, "3"])
def test_unknown_salvos_are_one_line(value: object) -> None:
    with pytest.raises(RulesError) as exc:
        Rules(salvo=value)  # type: ignore[arg-type]
    assert "\n" not in str(exc.value) and str(exc.value).startswith("unknown salvo")


def test_salvo_by_ships_under_silent_sinks_is_refused() -> None:
    with pytest.raises(RulesError, match="under silent sinks the shooter could not know how many shots it has"):
        Rules(sinks="silent", salvo="ships")


def test_labels_name_the_salvo() -> None:
    assert GameConfig(5, (3, 2), Rules(salvo=5)).label() == "5x5 3,2 (salvo 5)"
    assert (
        GameConfig(5, (3, 2), Rules("none", "unnamed", "ships")).label() == "5x5 3,2 (no contact, sinks unnamed, salvo by ships)"
    )
    assert Rules(salvo=1) == Rules() and Rules(salvo=1).is_default


@pytest.mark.parametrize(
    ("salvo", "shots", "message"),
    [
        (2, [(0, 0, "miss", None)], "shot 1 must name its volley"),
        (1, [(0, 0, "miss", 0)], "shot 1 names volley 0, but the game has no salvo"),
        (2, [(0, 0, "miss", 1)], "shot 1 is in volley 1, expected volley 0"),
        (2, [(0, 0, "miss", 0), (0, 1, "miss", 0), (0, 2, "miss", 2)], "shot 3 is in volley 2, expected volley 0 or 1"),
        (
            2,
            [(0, 0, "miss", 0), (0, 1, "miss", 0), (0, 2, "miss", 1), (0, 3, "miss", 0)],
            "shot 4 is in volley 0, expected volley 1 or 2",
        ),
        (2, [(0, 0, "miss", 0), (0, 1, "miss", 0), (0, 2, "miss", 0)], "shot 3 is shot 3 of volley 0, which may have only 2"),
        (
            3,
            [(0, 0, "miss", 0), (0, 1, "miss", 0), (0, 2, "miss", 1)],
            "shot 3 starts volley 1, but volley 0 has only 2 of its 3 shots",
        ),
        (2, [(0, 0, "miss", 0), (0, 1, "miss", -1)], "shot 2 must name its volley (a whole number from 0)"),
    ],
)
def test_bad_volleys_are_one_line_naming_the_shot(salvo: Any, shots: list[tuple], message: str) -> None:
    refused(salvo_state(4, [2], salvo, shots), message)


def test_a_volley_of_the_ships_rule_has_one_shot_per_ship_afloat_at_its_start() -> None:
    # ships 2,1: volley 0 has two shots and sinks ship 1 (length 1); volley 1 then has one shot
    start = [(0, 0, "sunk", 1, 0), (3, 3, "miss", 0)]
    GameState.from_json(salvo_state(4, [2, 1], "ships", [*start, (1, 1, "miss", 1), (2, 2, "miss", 2)]))
    refused(
        salvo_state(4, [2, 1], "ships", [*start, (1, 1, "miss", 1), (2, 2, "miss", 1)]),
        "shot 4 is shot 2 of volley 1, which may have only 1",
    )
    # a sink inside a volley does not shorten that volley: it was chosen before the answer
    GameState.from_json(salvo_state(4, [2, 1], "ships", [(0, 0, "sunk", 1, 0), (3, 3, "miss", 0)]))
    # unnamed sinks count too
    data = salvo_state(
        4, [2, 1], "ships", [(0, 0, "sunk", 0), (3, 3, "miss", 0), (1, 1, "miss", 1), (2, 2, "miss", 1)], sinks="unnamed"
    )
    refused(data, "shot 4 is shot 2 of volley 1, which may have only 1")


def test_a_volley_has_at_most_the_cells_left() -> None:
    # 2x2 board, one ship of 1, salvo 3: volley 0 takes three cells, volley 1 only the one left
    misses = [(0, 0, "miss", 0), (0, 1, "miss", 0), (1, 0, "miss", 0)]
    assert GameState.from_json(salvo_state(2, [1], 3, misses)).next_volley() == (1, 1)
    state = GameState.from_json(salvo_state(2, [1], 3, [*misses, (1, 1, "sunk", 0, 1)]))
    assert state.over and state.volleys == 2
    # (a volley with more shots than the cells left cannot be written down: its extra shot would
    # repeat a cell or come after the end, every cell shot meaning every ship cell hit)
    refused(salvo_state(2, [1], 3, [*misses, (1, 0, "miss", 1)]), "shot 4 repeats cell B1")


def test_no_shot_after_the_last_sink_even_inside_a_volley() -> None:
    shots = [(0, 0, "sunk", 0, 0), (1, 1, "miss", 0)]
    refused(salvo_state(4, [1], 3, shots), "shot 2 (B2) comes after every ship was already sunk")
    assert GameState.from_json(salvo_state(4, [1], 3, shots[:1])).over  # a volley the last sink ended early


def test_a_salvo_state_round_trips_and_standard_states_carry_no_volley() -> None:
    data = salvo_state(5, [3, 2], 2, [(0, 0, "hit", 0), (0, 1, "miss", 0), (1, 0, "hit", 1)])
    state = GameState.from_json(data)
    assert state.to_json() == {**data, "rules": {"touch": "allowed", "sinks": "named", "salvo": 2}}
    assert GameState.from_json(json.loads(json.dumps(state.to_json()))) == state
    assert state.volleys == 2 and state.next_volley() == (1, 1)
    plain = GameState.from_json(salvo_state(5, [3, 2], 1, [(0, 0, "hit", None)]))
    assert plain.to_json() == {"size": 5, "ships": [3, 2], "shots": [{"row": 0, "col": 0, "result": "hit"}]}
    with pytest.raises(FileFormatError, match="shot 1 has volley True, not a whole number"):
        GameState.from_json(
            {"size": 5, "ships": [2], "rules": {"salvo": 2}, "shots": [{"row": 0, "col": 0, "result": "miss", "volley": True}]}
        )


# ----- the game loop -------------------------------------------------------------------------------
def check_volleys(state: GameState, salvo: Any) -> None:
    """The spec's volleys, counted independently of GameState: numbered 0.. in order, each as large as
    the rule gives it at its start (ships afloat from the sinks before it, at most the cells left),
    only the last one shorter, and that only because the last sink ended the game."""
    volleys: dict[int, list[int]] = {}
    for t, shot in enumerate(state.shots):
        volleys.setdefault(shot.volley, []).append(t)  # type: ignore[arg-type]
    assert list(volleys) == list(range(len(volleys)))
    cells = state.size * state.size
    for v, indices in volleys.items():
        first = indices[0]
        sinks = sum(s.result == "sunk" for s in state.shots[:first])
        size = min(len(state.ships) - sinks if salvo == "ships" else salvo, cells - first)
        if v < len(volleys) - 1:
            assert len(indices) == size
        else:
            assert len(indices) <= size and state.shots[-1].result == "sunk"
    sunk = sum(s.result == "sunk" for s in state.shots)
    assert sunk == len(state.ships)


@pytest.mark.parametrize("salvo", [2, 3, "ships"])
@pytest.mark.parametrize("player", ["random", "hunt-target", "pdf"])
def test_the_loop_fires_whole_volleys_and_scores_them(player: str, salvo: Any) -> None:
    config = GameConfig(5, (3, 2, 2), Rules(salvo=salvo))
    for game in range(4):
        result = play_game(config, layout_for(config, 2, game), make_player(player, game_seeds(2, game)[1]))
        check_volleys(result.state, salvo)
        assert result.score == len({s.volley for s in result.state.shots}) == len(result.move_seconds)


def test_the_same_seed_gives_the_same_salvo_records() -> None:
    config = GameConfig(5, (3, 2), Rules(salvo="ships"))
    for player in ("random", "parity", "problog"):
        task = GameTask(player, {}, config, 4, 1, layout_for(config, 4, 1))
        first, second = play_task(task), play_task(task)
        assert first["shots"] == second["shots"] and first["score"] == second["score"]
        assert all("volley" in shot for shot in first["shots"])


def test_a_salvo_game_record_is_checked_by_its_volleys() -> None:
    config = GameConfig(4, (2, 1), Rules(salvo=2))
    value = play_task(GameTask("pdf", {}, config, 1, 0, layout_for(config, 1, 0)))
    record = {"size": 4, "ships": [2, 1], "rules": config.rules.to_json(), "status": "ok", "seconds": 0.1, **value}
    check_game_values(record, "r")
    with pytest.raises(FileFormatError, match="a finished salvo game of score"):
        check_game_values({**record, "score": record["score"] + 1}, "r")


# ----- players -------------------------------------------------------------------------------------
CONTRACT = {"problog": GameConfig(3, (2, 1)), "lookahead": GameConfig(4, (2, 1)), "info": GameConfig(4, (2, 1))}


@pytest.mark.parametrize("name", [*sorted(set(PLAYERS) - {"optimal", "endgame"}), "problog[volley=entropy]"])
def test_every_player_chooses_a_volley_of_k_distinct_unshot_cells(name: str) -> None:
    base = CONTRACT.get(name.split("[")[0], GameConfig(4, (3, 2, 1)))
    for salvo in (3, "ships"):
        config = GameConfig(base.size, base.ships, Rules(salvo=salvo))
        check_player(name, config)
        layout = layout_for(config, 5, 0)
        with _Space() as workspace:
            games = []
            for _ in range(2):
                player = make_player(name, game_seeds(5, 0)[1])
                player.use(workspace)
                games.append(play_game(config, layout, player).state)
            assert games[0] == games[1]  # the seed decides every volley
            check_volleys(games[0], salvo)
            # mid-game: k distinct cells, none shot before
            state = games[0].prefix(len(games[0].shots) // 2)
            for k in (1, 2, 3):
                player = make_player(name, 1)
                player.use(workspace)
                volley = [tuple(int(x) for x in cell) for cell in player.choose_volley(state, k)]
                assert len(volley) == len(set(volley)) == k
                assert not set(volley) & state.shot_cells and set(volley) <= set(state.unshot)


class _Space:
    """A workspace closed on leaving the block."""

    def __enter__(self) -> Workspace:
        self.workspace = Workspace()
        return self.workspace

    def __exit__(self, *exc: object) -> None:
        self.workspace.close()


def test_optimal_refuses_salvo_in_one_line() -> None:
    with pytest.raises(BattlelogError) as exc:
        check_player("optimal", GameConfig(3, (2,), Rules(salvo=2)))
    assert "\n" not in str(exc.value) and "salvo 2" in str(exc.value)


def test_an_aiming_state_hides_the_picked_cells_but_keeps_the_answers() -> None:
    state = GameState.from_json(salvo_state(4, [2], 2, [(0, 0, "hit", 0), (0, 1, "miss", 0)]))
    aiming = state.aiming({(1, 0)})
    assert (1, 0) in aiming.shot_cells and (1, 0) not in aiming.unshot
    assert aiming.hits == state.hits and aiming.misses == state.misses and aiming.shots == state.shots
    # hunt-target's one-at-a-time volley: its target list is the hit's neighbours, B1 then nothing else
    volley = make_player("hunt-target", 0).choose_volley(state, 2)
    assert volley[0] == (1, 0) and volley[1] not in ((0, 0), (0, 1), (1, 0))


@pytest.mark.parametrize("name", ["problog", "thompson", "info", "lookahead"])
def test_the_exact_players_volley_is_the_k_most_probable_cells(name: str) -> None:
    config = GameConfig(4, (3, 2), Rules(salvo=3))
    for game in range(3):
        full = play_game(config, layout_for(config, 9, game), make_player("random", game)).state
        state = full.prefix(len(full.shots) // 2)
        cells, _ = brute_marginals(state, consistent_layouts(state))
        for k in (1, 3, 5):
            volley = make_player(name, game).choose_volley(state, k)
            chosen = [cells[c] for c in volley]
            others = [cells[c] for c in state.unshot if c not in volley]
            assert min(chosen) >= max(others) - 1e-9 and chosen == sorted(chosen, reverse=True)


# ----- the posterior -------------------------------------------------------------------------------
@pytest.mark.parametrize(("salvo", "sinks"), [(2, "named"), ("ships", "unnamed"), (3, "silent")])
def test_the_posterior_of_a_salvo_state_is_the_oracle_s(salvo: Any, sinks: str) -> None:
    """The layouts that, fed the same shots in the same order, give exactly the answers given."""
    config = GameConfig(4, (3, 2, 1), Rules(sinks=sinks, salvo=salvo))
    table = oracle.layouts(4, (3, 2, 1))
    workspace = Workspace()
    try:
        for game in range(3):
            full = play_game(config, layout_for(config, 3, game), make_player("pdf", game)).state
            for cut in (0, len(full.shots) // 3, len(full.shots) - 1):
                state = full.prefix(cut)
                shots = [(s.cell, (s.result, s.ship)) for s in state.shots]
                expected = oracle.cell_marginals(table, oracle.posterior(table, shots, sinks))
                for engine in ("native", "sdd"):
                    got = workspace.engine(engine).marginals(state)
                    np.testing.assert_allclose(got.cells, expected, atol=1e-9)
    finally:
        workspace.close()


def test_the_sdd_engine_s_empty_board_is_shared_by_every_salvo() -> None:
    workspace = Workspace()
    try:
        engine = workspace.engine("sdd")
        for salvo in (1, 2, "ships"):
            engine.marginals(GameState.empty(GameConfig(4, (2, 1), Rules(salvo=salvo))))
        assert list(workspace.sdd_empty_boards) == [GameConfig(4, (2, 1))]
    finally:
        workspace.close()


# ----- the joint-entropy volley ----------------------------------------------------------------------
def joint_entropy(layouts: list, cells: list[tuple[int, int]]) -> float:
    """The entropy (bits) of the hit/miss pattern of ``cells`` over ``layouts``, equally weighted."""
    counts: dict[tuple[bool, ...], int] = {}
    for layout in layouts:
        covered = {cell for p in layout for cell in p.cells}
        key = tuple(cell in covered for cell in cells)
        counts[key] = counts.get(key, 0) + 1
    p = np.array(list(counts.values())) / len(layouts)
    return float(-(p * np.log2(p)).sum())


def test_the_entropy_volley_is_greedy_in_the_joint_entropy_of_its_answers() -> None:
    from battlelog.players.volley import entropy_volley

    config = GameConfig(4, (3, 2), Rules(salvo=4))
    for game in range(4):
        full = play_game(config, layout_for(config, 6, game), make_player("random", game)).state
        state = full.prefix(len(full.shots) // 3)
        layouts = consistent_layouts(state)
        cells, _ = brute_marginals(state, layouts)
        volley = entropy_volley(state, cells, layouts, 4, np.random.default_rng(game))  # every layout once: exact
        assert len(set(volley)) == 4 and not set(volley) & state.shot_cells
        for j, cell in enumerate(volley):
            gain = {c: joint_entropy(layouts, [*volley[:j], c]) for c in state.unshot if c not in volley[:j]}
            assert gain[cell] == pytest.approx(max(gain.values()), abs=1e-9)


def test_the_volley_option_is_checked_in_one_line() -> None:
    with pytest.raises(BattlelogError, match="volley=best is not one of top, entropy"):
        make_player("problog[volley=best]", 0)
    with pytest.raises(BattlelogError, match=r"problog\[volley=entropy\] draws layouts; the sdd engine does not"):
        make_player("problog[volley=entropy,engine=sdd]", 0)
