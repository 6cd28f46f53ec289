"""The per-placement tables built on arrays (which cells a placement covers, where a symmetry sends it)
against their definition on Placement objects, on every small board shape, ship length and symmetry."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from battlelog.engines.native.tables import SweepTables
from battlelog.model.ground import Problem, ground
from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import Placement, placement_matrix, ship_placements
from battlelog.rules.state import GameState
from battlelog.rules.symmetry import SYMMETRIES, symmetries_of

SHAPES = [(rows, cols) for rows in range(1, 7) for cols in range(1, 7)]


@pytest.mark.parametrize(("rows", "cols"), SHAPES)
def test_placement_matrix_rows_are_the_placements_cells(rows: int, cols: int) -> None:
    for length in range(1, max(rows, cols) + 1):
        matrix = placement_matrix(rows, cols, length)
        placements = ship_placements(rows, cols, 0, length)
        assert matrix.shape == (len(placements), rows * cols)
        for row, placement in zip(matrix, placements, strict=True):
            assert {k for k in range(rows * cols) if row[k]} == {r * cols + c for r, c in placement.cells}


@pytest.mark.parametrize(("rows", "cols"), SHAPES)
def test_placement_order_sends_each_placement_to_its_image(rows: int, cols: int) -> None:
    for length in range(1, max(rows, cols) + 1):
        config = GameConfig(rows=rows, cols=cols, ships=(length,))
        placements = ship_placements(rows, cols, 0, length)
        for symmetry in symmetries_of(rows, cols):
            image_rows, image_cols = symmetry.shape(rows, cols)
            images = ship_placements(image_rows, image_cols, 0, length)
            order = symmetry.placement_order(config, 0)
            assert sorted(order.tolist()) == list(range(len(placements)))  # a permutation
            for k, placement in enumerate(placements):
                assert images[order[k]] == symmetry.placement(placement, rows, cols)


@pytest.mark.parametrize(("rows", "cols"), SHAPES)
def test_index_map_sends_each_cell_to_its_image(rows: int, cols: int) -> None:
    for symmetry in symmetries_of(rows, cols):
        image_cols = symmetry.shape(rows, cols)[1]
        index_map = symmetry.index_map(rows, cols)
        for r in range(rows):
            for c in range(cols):
                image = symmetry.cell((r, c), rows, cols)
                assert index_map[r * cols + c] == image[0] * image_cols + image[1]


@pytest.mark.parametrize(("rows", "cols"), [(rows, cols) for rows, cols in SHAPES if rows * cols >= 4])
def test_a_sweeps_start_table_holds_each_placements_swept_start(rows: int, cols: int) -> None:
    """``SweepTables.starts`` and ``placement_index`` (built on arrays) against each placement's first swept cell and
    orientation in the image, taken one Placement at a time, under all eight sweep orders (the wide ones too: turned cases sweep
    them), for ships of every length the board holds, pruned domains included."""
    rng = np.random.default_rng(rows * 7 + cols)
    for length in range(1, max(rows, cols) + 1):
        for ships in ((length,), (length, 1)) if length < rows * cols else ((length,),):
            state = GameState.empty(GameConfig(rows=rows, cols=cols, ships=ships))
            problem = Problem.from_model(ground(state))
            pruned = replace(problem, domains=tuple(tuple(p for p in d if rng.random() < 0.6) for d in problem.domains))
            for case in (problem, pruned):
                for symmetry in SYMMETRIES:
                    tables = SweepTables(case, symmetry)
                    image = symmetry.index_map(rows, cols)
                    n = tables.cols
                    want = np.zeros_like(tables.starts)
                    for k, kind in enumerate(tables.kinds):
                        for row, col, horizontal in kind.placements:
                            swept = sorted(
                                int(image[r * cols + c]) for r, c in Placement(0, kind.length, row, col, horizontal).cells
                            )
                            across = kind.length == 1 or swept[0] // n == swept[-1] // n
                            want[k, 0 if across else 1, swept[0]] = True
                    assert np.array_equal(tables.starts, want), (rows, cols, ships, symmetry)
                    for ship, length in enumerate(ships):  # and each canonical placement's (orientation, swept start)
                        pairs = []
                        for placement in ship_placements(rows, cols, ship, length):
                            swept = sorted(int(image[r * cols + c]) for r, c in placement.cells)
                            pairs.append((0 if length == 1 or swept[0] // n == swept[-1] // n else 1, swept[0]))
                        orientations, starts = tables.placement_index(ship)
                        assert list(zip(orientations.tolist(), starts.tolist())) == pairs, (rows, cols, ships, symmetry)
