"""The per-placement tables built on arrays (which cells a placement covers, where a symmetry sends it)
against their definition on Placement objects, on every small board shape, ship length and symmetry."""

from __future__ import annotations

import pytest

from battlelog.rules.config import GameConfig
from battlelog.rules.geometry import placement_matrix, ship_placements
from battlelog.rules.symmetry import symmetries_of

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
