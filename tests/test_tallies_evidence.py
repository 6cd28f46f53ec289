"""Tallies as evidence in a game state (issue 40): the state's row and column counts, read, written and kept by
everything that copies a state, keyed by every cache, and weighed by every engine exactly as the oracle says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from battlelog.engines.canonical import canonical_form, model_key, posterior_key
from battlelog.errors import FileFormatError, StateError
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import SYMMETRIES, symmetries_of

import oracle

TALLIED: dict[str, Any] = {
    "size": 4,
    "ships": [3, 2],
    "row_counts": [1, None, 3, 0],
    "col_counts": [None, 2, None, 1],
    "shots": [{"row": 2, "col": 1, "result": "hit"}, {"row": 0, "col": 0, "result": "miss"}],
}


# ----- the state -----------------------------------------------------------------------------------------------
def test_json_round_trip_and_untallied_files_unchanged(tmp_path: Path) -> None:
    state = GameState.from_json(TALLIED)
    assert state.row_counts == (1, None, 3, 0) and state.col_counts == (None, 2, None, 1) and state.tallied
    assert state.to_json() == TALLIED
    path = tmp_path / "state.json"
    state.dump(path)
    assert GameState.load(path) == state
    plain = {key: value for key, value in TALLIED.items() if not key.endswith("_counts")}
    assert GameState.from_json(plain).to_json() == plain and not GameState.from_json(plain).tallied
    nulls = GameState.from_json({**plain, "row_counts": [None] * 4})  # a list of nulls gives nothing
    assert nulls == GameState.from_json(plain) and "row_counts" not in nulls.to_json()


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("row_counts", [1, 2], "row_counts must be a list of 4 entries (null or a whole number), got [1, 2]"),
        ("col_counts", "1,2,3,4", "col_counts must be a list of 4 entries"),
        ("row_counts", [True, 0, 0, 0], "row_counts[0] is True: a tally is null or a whole number from 0 to 4"),
        ("row_counts", [1, 1.0, 0, 0], "row_counts[1] is 1.0: a tally is null or a whole number from 0 to 4"),
        ("col_counts", [0, 0, -1, 0], "col_counts[2] is -1: a tally is null or a whole number from 0 to 4"),
        ("col_counts", [0, 0, 0, 5], "col_counts[3] is 5: a tally is null or a whole number from 0 to 4"),
    ],
)
def test_bad_tallies_are_one_line(key: str, value: object, message: str) -> None:
    with pytest.raises(FileFormatError, match=re.escape(f"state.json: {message}")) as caught:
        GameState.from_json({**TALLIED, key: value}, source="state.json")
    assert "\n" not in str(caught.value)


def test_rectangle_lines_have_their_own_lengths() -> None:
    data = {"rows": 2, "cols": 5, "ships": [2], "row_counts": [5, 0], "col_counts": [2, 0, 0, 0, 0]}
    assert GameState.from_json(data).col_counts == (2, 0, 0, 0, 0)
    with pytest.raises(FileFormatError, match=re.escape("col_counts[0] is 3: a tally is null or a whole number from 0 to 2")):
        GameState.from_json({**data, "col_counts": [3, 0, 0, 0, 0]})
    with pytest.raises(StateError, match="row_counts must be a list of 2 entries"):
        GameState(GameState.from_json(data).config, row_counts=(1, 0, 0))


def test_every_copy_of_a_state_keeps_its_tallies() -> None:
    state = GameState.from_json(TALLIED)
    grown = state.with_shot(3, 3, "miss")
    assert (grown.row_counts, grown.col_counts) == (state.row_counts, state.col_counts)
    assert grown == GameState.from_json({**TALLIED, "shots": TALLIED["shots"] + [{"row": 3, "col": 3, "result": "miss"}]})
    aiming = state.aiming({(3, 3)})
    assert (aiming.row_counts, aiming.col_counts) == (state.row_counts, state.col_counts)
    assert state.prefix(1).row_counts == state.row_counts and state.prefix(0).col_counts == state.col_counts
    assert state.with_tallies(None, None) == GameState(state.config, state.shots) != state
    assert hash(state.with_tallies(None, None)) == hash(GameState(state.config, state.shots))


def test_symmetry_moves_tallies_with_their_lines() -> None:
    state = GameState.from_json(TALLIED)
    for symmetry in SYMMETRIES:
        image = symmetry.state(state)
        # each line's tally is the image line's: count the cells of the image of row r (or column c)
        for r, count in enumerate(state.row_counts or ()):
            cells = {symmetry.cell((r, c), 4) for c in range(4)}
            assert _image_tally(image, cells) == count
        for c, count in enumerate(state.col_counts or ()):
            cells = {symmetry.cell((r, c), 4) for r in range(4)}
            assert _image_tally(image, cells) == count
        assert posterior_key(image) == posterior_key(state, symmetry)


def _image_tally(image: GameState, cells: set[tuple[int, int]]) -> int | None:
    """The tally the image gives the line made of ``cells``: a row's or a column's."""
    rows = {r for r, _ in cells}
    if len(rows) == 1:
        return (image.row_counts or (None,) * image.rows)[rows.pop()]
    return (image.col_counts or (None,) * image.cols)[cells.pop()[1]]


def test_cache_keys_tell_tallies_apart() -> None:
    """Every key the engines' caches use differs between a state and the same shots without (or with other)
    tallies: a key that dropped them would answer a tallied state from an untallied entry."""
    state = GameState.from_json(TALLIED)
    others = [
        state.with_tallies(None, None),
        state.with_tallies(state.row_counts, None),
        state.with_tallies((1, None, 2, 1), state.col_counts),
        state.with_tallies(state.col_counts, state.row_counts),
    ]
    for other in others:
        assert posterior_key(other) != posterior_key(state)
        assert model_key(other) != model_key(state)
        assert canonical_form(other)[0] != canonical_form(state)[0]
    # on one row, a row's tally and the columns' are told apart under every symmetry
    row = GameState.from_json({"rows": 1, "cols": 3, "ships": [2], "row_counts": [2]})
    cols = row.with_tallies(None, (1, 1, 0))
    assert not {posterior_key(row, s) for s in symmetries_of(1, 3)} & {posterior_key(cols, s) for s in symmetries_of(1, 3)}
    assert json.loads(json.dumps(state.to_json())) == TALLIED


# ----- the oracle ----------------------------------------------------------------------------------------------
def test_oracle_filters_layouts_by_tallies_as_counted_by_hand() -> None:
    """A 2x2 board and one ship of 2 has four layouts (two across, two down): a row of 2 leaves the top one; columns
    of 1 and 1 leave the two across; a column of 2 with a row of 2 leaves none."""
    config = GameState.from_json({"size": 2, "ships": [2]}).config
    table = oracle.layouts(2, (2,))
    assert len(table) == 4
    assert oracle.tallied(table, (2, None), None).sum() == 1
    assert oracle.tallied(table, None, (1, 1)).sum() == 2
    assert oracle.tallied(table, (2, None), (2, None)).sum() == 0
    cells, models = oracle.brute_marginals(GameState(config, row_counts=(2, None)))
    assert models == 1 and cells.tolist() == [[1.0, 1.0], [0.0, 0.0]]
    cells, models = oracle.brute_marginals(GameState(config, col_counts=(1, 1)))
    assert models == 2 and cells.tolist() == [[0.5, 0.5], [0.5, 0.5]]
    with pytest.raises(ValueError, match="no consistent layout"):
        oracle.brute_marginals(GameState(config, row_counts=(2, None), col_counts=(2, None)))
