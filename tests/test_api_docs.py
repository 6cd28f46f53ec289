"""docs/api.md runs as shown: every Python block, in order, in one namespace and an empty directory.

Each block must print exactly the text block shown under it. Then the figures the examples compute are
checked against independent ones: brute-force enumeration of layouts (tests/oracle.py), the closed form of
random's mean, the exact expectations tabled in docs/optimum.md, and a referee replaying the game.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from battlelog.rules.referee import Referee
from battlelog.runner.seeds import layout_for

from oracle import all_layouts, brute_marginals, brute_placements, consistent_layouts

#: Every test here reads the one run of the page: keep them on one xdist worker.
pytestmark = pytest.mark.xdist_group("api_docs")

API_PAGE = Path(__file__).resolve().parent.parent / "docs" / "api.md"

#: A fenced block: its language and its text.
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def examples(text: str) -> list[tuple[str, str | None]]:
    """Each Python block with the text block right after it (its output), or None when none follows."""
    blocks = list(BLOCK.finditer(text))
    out: list[tuple[str, str | None]] = []
    for i, block in enumerate(blocks):
        if block.group(1) != "python":
            continue
        after = blocks[i + 1] if i + 1 < len(blocks) else None
        shown = after is not None and after.group(1) == "text" and not text[block.end() : after.start()].strip()
        out.append((block.group(2), after.group(2) if shown and after is not None else None))
    return out


#: The namespace after running the page, and (code, shown output, printed output) of each example.
Page = tuple[dict[str, Any], list[tuple[str, str | None, str]]]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Page:
    """The page's namespace after running every example, and (code, shown output, printed output) of each."""
    namespace: dict[str, Any] = {"__name__": "api_docs"}
    runs = []
    here, workdir = os.getcwd(), tmp_path_factory.mktemp("api_docs")
    namespace["_workdir"] = workdir
    os.chdir(workdir)
    try:
        for code, shown in examples(API_PAGE.read_text()):
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(code, str(API_PAGE), "exec"), namespace)
            runs.append((code, shown, printed.getvalue()))
    finally:
        os.chdir(here)
    return namespace, runs


def printed_by(page: Page, call: str) -> str:
    """What the example that contains ``call`` printed."""
    (printed,) = [printed for code, _, printed in page[1] if call in code]
    return printed


def test_the_page_has_the_four_examples() -> None:
    code = "\n".join(block for block, _ in examples(API_PAGE.read_text()))
    for call in ("api.marginals(", "api.play(", "api.experiment(", "api.optimum(", "api.expected_shots("):
        assert call in code


def test_every_example_prints_what_the_page_shows(page: Page) -> None:
    for code, shown, printed in page[1]:
        if shown is not None:
            assert printed.rstrip() == shown.rstrip(), f"the example\n{code}\nprinted\n{printed}"
        else:
            assert not printed, f"the example\n{code}\nprints but the page shows no output"


def test_marginals_match_brute_force(page: Page) -> None:
    ns = page[0]
    config, state = ns["config"], ns["state"]
    layouts = all_layouts(config)
    assert ns["prior"].models == len(layouts) == 264  # docs/optimum.md: 4x4 3,2 has 264 layouts
    cells, models = brute_marginals(ns["empty"], layouts)
    np.testing.assert_allclose(ns["prior"].cells, cells, atol=1e-12)
    cells, models = brute_marginals(state, layouts)
    assert ns["posterior"].models == models
    np.testing.assert_allclose(ns["posterior"].cells, cells, atol=1e-12)
    for mine, theirs in zip(ns["posterior"].placements, brute_placements(state, layouts)):
        np.testing.assert_allclose(mine, theirs, atol=1e-12)
    assert ns["shot"] not in state.shot_cells and cells[ns["shot"]] == max(cells[c] for c in state.unshot)
    np.testing.assert_allclose(ns["sdd"].cells, cells, atol=1e-9)


def test_the_contradiction_is_the_second_shot(page: Page) -> None:
    empty = page[0]["empty"]
    contradictory = empty.with_shot(0, 0, "hit").with_shot(3, 3, "sunk", 1)
    assert consistent_layouts(contradictory.prefix(1)) and not consistent_layouts(contradictory)
    printed = printed_by(page, 'with_shot(3, 3, "sunk", 1)')
    assert printed.startswith("contradictory state: shot 2 (D4, sunk ship 1)") and printed.count("\n") == 1


def test_the_game_follows_the_rules_on_game_0s_board(page: Page) -> None:
    config, game = page[0]["config"], page[0]["game"]
    referee = Referee(config, layout_for(config, 7, 0))  # the board of game 0 under seed 7
    for shot in game.state.shots:
        assert referee.shoot(shot.row, shot.col) == (shot.result, shot.ship)
    assert referee.over and game.score == len(game.state.shots)
    assert sum(config.ships) <= game.score <= config.cell_count


def test_the_experiment_agrees_with_exact_figures(page: Page) -> None:
    results = page[0]["results"]
    assert len(results) == 300 and all(r["status"] == "ok" for r in results)
    assert {(r["player"], r["game"]) for r in results} == {
        (p, g) for p in ("random", "hunt-target", "problog") for g in range(100)
    }
    # exact expectations (docs/optimum.md: random's closed form 85/6, hunt-target 11.2753, problog 8.9132), inside the 95% CIs
    exact = {"random": 5 * 17 / 6, "hunt-target": 11.2753, "problog": 8.9132}
    for row in results.summary():
        scores = [r["score"] for r in results if r["player"] == row["player"]]
        assert row["games"] == 100 and row["mean"] == pytest.approx(np.mean(scores))
        assert row["ci_low"] <= exact[row["player"]] <= row["ci_high"]
    for pair in results.comparisons():
        a = {r["game"]: r["score"] for r in results if r["player"] == pair["a"]}
        b = {r["game"]: r["score"] for r in results if r["player"] == pair["b"]}
        assert pair["games"] == 100 and pair["mean"] == pytest.approx(np.mean([a[g] - b[g] for g in range(100)]))


def test_results_read_back_and_show_as_markdown(page: Page) -> None:
    from battlelog import api

    results = page[0]["results"]
    again = api.results(page[0]["_workdir"] / "exp")
    assert again.manifest == {"size": 4, "ships": [3, 2], "seed": 7} and again.records == results.records
    markdown = results._repr_markdown_()
    assert markdown.startswith("# 4x4 3,2 with seed 7\n") and "| problog - random " in markdown
    assert "records" not in repr(results)  # a notebook cell ending in a Results does not print 300 dicts


def test_the_optima_are_the_tabled_fractions(page: Page) -> None:
    assert page[0]["best"] == Fraction(2311, 264)  # docs/optimum.md: 4x4 3,2, 264 layouts, optimal 8.7538
    printed = printed_by(page, "api.optimum(").splitlines()
    assert printed[1] == "4x4 3: optimal 45/8 problog 23/4"  # docs/optimum.md: 5.6250 and 5.7500
    assert printed[2] == f"3x3 2: random {Fraction(2 * 10, 3)}"  # K(M+1)/(K+1), K=2, M=9
    assert printed[3].startswith("10x10 5,4,3,3,2 is too large to solve exactly")
