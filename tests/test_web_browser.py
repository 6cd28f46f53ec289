"""battlelog serve in a real browser (headless Chromium driven by selenium, as the replay page's test):
a whole advised 10x10 game clicked through to the end, a whole game against the computer, and the
results view opening a replay. Each saves its screenshot, into docs/web/ (shown by the README) when
BATTLELOG_SCREENSHOTS=1 is set.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from battlelog.rules.config import GameConfig
from battlelog.rules.layouts import sample_layout
from battlelog.rules.referee import Referee
from battlelog.rules.variants import Rules

import test_replay_browser
from web_cases import LiveServer, small_experiment

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("web-browser")]

#: The browser of the replay page's test (a module-scoped headless Chromium, skipped or failed when missing).
browser = test_replay_browser.browser
#: Where the screenshots go: docs/web/ (the README's pictures) only when BATTLELOG_SCREENSHOTS=1 asks
#: for them, so that a test run leaves the checkout as it found it; else a scratch folder.
SHOTS = (
    Path(__file__).resolve().parent.parent / "docs" / "web"
    if os.environ.get("BATTLELOG_SCREENSHOTS") == "1"
    else Path(tempfile.mkdtemp(prefix="battlelog-web-shots-"))
)
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(small_experiment(tmp_path_factory.mktemp("web-browser")))
    try:
        yield live
    finally:
        live.stop()


def _wait(browser: Any, condition: Any, seconds: float = 20) -> Any:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # The page redraws a board whole when an answer comes: an element read mid-redraw is read again.
    return WebDriverWait(browser, seconds, poll_frequency=0.02, ignored_exceptions=(StaleElementReferenceException,)).until(
        condition
    )


def _no_errors(browser: Any, expected: str = "no error expected") -> None:
    """Nothing went wrong in the page but the ``expected`` refusal (the browser logs a 4xx answer as an error)."""
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE" and expected not in e["message"]] == []


def _shot_count(browser: Any) -> int:
    from selenium.webdriver.common.by import By

    text = browser.find_element(By.ID, "advise-status").text
    match = re.match(r"(\d+) shots|Every ship is sunk after (\d+) shots", text)
    return -1 if match is None else int(match[1] or match[2])


@pytest.mark.slow  # about 20 s: some 50 answers, each a round trip through the page and the engine
def test_a_whole_advised_10x10_game_clicked_to_the_end(browser: Any, server: LiveServer) -> None:
    from selenium.webdriver.common.by import By

    browser.set_window_size(1250, 760)
    browser.get(server.url)
    config = GameConfig(10, (5, 4, 3, 3, 2))
    referee = Referee(config, sample_layout(config, np.random.default_rng(19)))
    _wait(browser, lambda b: _shot_count(b) == 0 and b.find_elements(By.CSS_SELECTOR, "#advise-board .suggest"))
    shots = 0
    while not referee.over:
        if shots == 3:  # once, shoot elsewhere than the suggestion: the corner cell, unless it was shot
            browser.find_element(By.ID, "advise-9-9").click()
            _wait(browser, lambda b: b.find_element(By.ID, "advise-cell").text == "J10")
            cell = (9, 9)
        else:
            suggested = browser.find_element(By.CSS_SELECTOR, "#advise-board .suggest").get_attribute("id")
            _, row, col = suggested.split("-")
            cell = (int(row), int(col))
        result, ship = referee.shoot(*cell)
        button = f"answer-{result}" + (f"-{ship}" if ship is not None else "")
        browser.find_element(By.ID, button).click()
        shots += 1
        _wait(browser, lambda b, n=shots: _shot_count(b) == n)
        if shots == 30:
            browser.save_screenshot(str(SHOTS / "advise.png"))
    status = browser.find_element(By.ID, "advise-status").text
    assert status == f"Every ship is sunk after {shots} shots." and shots < 100
    marks = browser.find_elements(By.CSS_SELECTOR, "#advise-board .cell.sunk")
    assert len(marks) == len(config.ships)

    browser.find_element(By.ID, "advise-undo").click()  # undo, then a contradictory answer is refused
    _wait(browser, lambda b: _shot_count(b) == shots - 1)
    browser.find_element(By.ID, "answer-miss").click()
    _wait(
        browser,
        lambda b: (
            "contradicts" in b.find_element(By.ID, "advise-error").text
            or "no layout" in b.find_element(By.ID, "advise-error").text
        ),
    )
    assert _shot_count(browser) == shots - 1

    # Load a state file of the command line's format: the game goes on from it.
    browser.find_element(By.ID, "advise-load").send_keys(str(FIXTURES / "midgame_5x5.json"))
    _wait(browser, lambda b: _shot_count(b) == 4)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#advise-board .cell")) == 25
    assert "56 layouts fit your answers" in browser.find_element(By.ID, "advise-status").text
    _no_errors(browser, "status of 409")


def test_the_answers_offered_follow_the_sink_rule(browser: Any, server: LiveServer) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server.url)
    _wait(browser, lambda b: _shot_count(b) == 0)
    expected = {
        "named": ["answer-miss", "answer-hit", "answer-sunk-0", "answer-sunk-1"],
        "unnamed": ["answer-miss", "answer-hit", "answer-sunk"],
        "silent": ["answer-miss", "answer-hit"],
    }

    def offered(b: Any) -> list[str]:
        return [e.get_attribute("id") for e in b.find_elements(By.CSS_SELECTOR, "#advise-answers button")]

    for sinks in ("silent", "named", "unnamed"):  # each differs from the one before: the wait sees the new game
        browser.find_element(By.ID, "advise-size").clear()
        browser.find_element(By.ID, "advise-size").send_keys("6")
        browser.find_element(By.ID, "advise-ships").clear()
        browser.find_element(By.ID, "advise-ships").send_keys("3,2")
        Select(browser.find_element(By.ID, "advise-sinks")).select_by_value(sinks)
        browser.find_element(By.ID, "advise-new").click()
        _wait(browser, lambda b, want=expected[sinks]: offered(b) == want, seconds=10)
        assert len(browser.find_elements(By.CSS_SELECTOR, "#advise-board .cell")) == 36
    _no_errors(browser)


def test_a_rectangular_salvo_game_advised_volley_by_volley(browser: Any, server: LiveServer) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server.url)
    _wait(browser, lambda b: _shot_count(b) == 0)
    for field, text in (("advise-size", "4x6"), ("advise-ships", "3,2")):
        browser.find_element(By.ID, field).clear()
        browser.find_element(By.ID, field).send_keys(text)
    Select(browser.find_element(By.ID, "advise-salvo")).select_by_value("2")
    browser.find_element(By.ID, "advise-new").click()
    _wait(browser, lambda b: "Volley 1, shot 1" in b.find_element(By.ID, "advise-status").text)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#advise-board .cell")) == 24
    config = GameConfig(4, (3, 2), Rules(salvo=2), cols=6)
    referee = Referee(config, sample_layout(config, np.random.default_rng(7)))
    shots = 0
    while not referee.over:
        if shots % 2 == 0:  # a new volley: its second cell is shown dashed, and fired next whatever the answer
            planned = browser.find_element(By.CSS_SELECTOR, "#advise-board .volley").get_attribute("id")
        suggested = browser.find_element(By.CSS_SELECTOR, "#advise-board .suggest").get_attribute("id")
        if shots % 2 == 1:
            assert suggested == planned
        _, row, col = suggested.split("-")
        result, ship = referee.shoot(int(row), int(col))
        browser.find_element(By.ID, f"answer-{result}" + (f"-{ship}" if ship is not None else "")).click()
        shots += 1
        _wait(
            browser, lambda b, n=shots: _shot_count(b) == n or "Every ship is sunk" in b.find_element(By.ID, "advise-status").text
        )
    volleys = (shots + 1) // 2
    assert browser.find_element(By.ID, "advise-status").text == f"Every ship is sunk after {volleys} volleys ({shots} shots)."
    _no_errors(browser)


def test_a_whole_game_against_the_computer(browser: Any, server: LiveServer) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.set_window_size(1250, 620)
    browser.get(server.url)
    _wait(browser, lambda b: len(Select(b.find_element(By.ID, "play-player")).options) > 3)
    browser.find_element(By.ID, "tab-play").click()
    Select(browser.find_element(By.ID, "play-player")).select_by_value("problog")
    # Place the 6x6 fleet 3,2,2 by clicking: ship 0 across from A1, then rotated, ships 1 and 2 down from C5 and C6
    # (a second click on C5 would overlap ship 1, and is refused).
    browser.find_element(By.ID, "mine-0-0").click()
    browser.find_element(By.ID, "play-rotate").click()
    browser.find_element(By.ID, "mine-2-4").click()
    browser.find_element(By.ID, "mine-2-4").click()
    assert browser.find_element(By.ID, "play-error").text == "That ship does not fit there."
    browser.find_element(By.ID, "mine-2-5").click()
    assert {e.get_attribute("id") for e in browser.find_elements(By.CSS_SELECTOR, "#play-mine .ship")} == {
        "mine-0-0", "mine-0-1", "mine-0-2", "mine-2-4", "mine-3-4", "mine-2-5", "mine-3-5"}  # fmt: skip
    # Drag ship 1 by its lower cell (D5) to F1: it moves to E1-F1; dropped onto ship 0 it stays.
    drag = """const dt = new DataTransfer(), [from, to] = arguments;
      document.getElementById(from).dispatchEvent(new DragEvent("dragstart", {dataTransfer: dt, bubbles: true}));
      document.getElementById(to).dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));"""
    browser.execute_script(drag, "mine-3-4", "mine-5-0")
    browser.execute_script(drag, "mine-2-5", "mine-0-1")
    assert browser.find_element(By.ID, "play-error").text == "That ship does not fit there."
    assert {e.get_attribute("id") for e in browser.find_elements(By.CSS_SELECTOR, "#play-mine .ship")} == {
        "mine-0-0", "mine-0-1", "mine-0-2", "mine-4-0", "mine-5-0", "mine-2-5", "mine-3-5"}  # fmt: skip
    browser.find_element(By.ID, "play-start").click()
    _wait(browser, lambda b: b.find_element(By.ID, "play-status").text.startswith("Your turn"))
    chance = r"Chance to win: you (\d+)%, the computer (\d+)% \((exact|estimated)\)\."
    assert re.search(chance, browser.find_element(By.ID, "play-status").text)  # each side's, shown every turn
    browser.find_element(By.ID, "play-heat").click()  # the computer's heat map of your board, from now on
    _wait(browser, lambda b: any(e.text.isdigit() for e in b.find_elements(By.CSS_SELECTOR, "#play-mine .cell")))
    turns = 0
    while "won" not in (status := browser.find_element(By.ID, "play-status").text):
        target = browser.execute_script(
            "return [...document.querySelectorAll('#play-theirs .cell')].find(e => !e.textContent).id"
        )
        browser.find_element(By.ID, target).click()
        turns += 1
        _wait(browser, lambda b, n=turns: f"you shot {n} times" in b.find_element(By.ID, "play-status").text.lower()
              or f"you have shot {n} times" in b.find_element(By.ID, "play-status").text.lower())  # fmt: skip
        if turns == 6:
            _wait(browser, lambda b: any(e.text.isdigit() for e in b.find_elements(By.CSS_SELECTOR, "#play-mine .cell")))
            browser.save_screenshot(str(SHOTS / "play.png"))  # mid-game, with the computer's heat map of your board
    assert re.fullmatch(r"(You|The computer) won: you shot \d+ times, the computer \d+ times\.", status), status
    hidden = browser.find_elements(By.CSS_SELECTOR, "#play-theirs .ship")
    assert len(hidden) == 3 + 2 + 2  # the computer's fleet is revealed at the end
    _legend_matches_the_boards(browser)
    _no_errors(browser)


def _legend_matches_the_boards(browser: Any) -> None:
    """The play tab's legend shows each mark as the boards draw it: the same symbol, the same colours."""
    from selenium.webdriver.common.by import By

    browser.find_element(By.ID, "play-heat").click()  # the heat map off: a ship's cell is drawn in its own colour
    look = """const e = arguments[0], s = getComputedStyle(e);
      return {text: e.textContent, background: s.backgroundColor, color: s.color, frame: s.boxShadow};"""
    # A shot's mark is its symbol and colours (on a ship's cell or not); a ship is its colour and frame.
    for mark, board, seen in (("miss", ".cell.miss:not(.ship)", ("text", "background", "color")),
                              ("hit", ".cell.hit", ("text", "background", "color")),
                              ("sunk", ".cell.sunk", ("text", "background", "color")),
                              ("ship", ".cell.ship:not(.miss):not(.hit):not(.sunk)", ("background", "frame"))):  # fmt: skip
        cells = browser.find_elements(By.CSS_SELECTOR, f"#view-play .board:not(.legend) {board}")
        assert cells, mark
        legend = browser.execute_script(look, browser.find_element(By.CSS_SELECTOR, f"#play-legend .cell.{mark}"))
        drawn = browser.execute_script(look, cells[0])
        assert {k: legend[k] for k in seen} == {k: drawn[k] for k in seen}, mark
    heat = browser.find_element(By.CSS_SELECTOR, "#play-legend .cell.heat").value_of_css_property("background-image")
    assert "rgb(255, 255, 255)" in heat and "rgb(255, 65, 0)" in heat  # heatColor(0) and heatColor(1) of board.js


def test_the_results_view_opens_a_replay(browser: Any, server: LiveServer) -> None:
    from selenium.webdriver.common.by import By

    browser.set_window_size(1250, 900)
    browser.get(server.url)
    _wait(browser, lambda b: not b.find_element(By.ID, "tab-results").get_attribute("hidden"))
    browser.find_element(By.ID, "tab-results").click()
    _wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#results-list a"))[0].click()
    _wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#results-detail .game"))[0].click()
    caption = _wait(browser, lambda b: b.find_element(By.ID, "replay-caption").text)
    assert caption.startswith("0 / ") and "before the first shot" in caption
    browser.find_element(By.ID, "replay-next").click()
    assert browser.find_element(By.ID, "replay-caption").text.startswith("1 / ")
    assert "shot 1:" in browser.find_element(By.ID, "replay-caption").text
    assert (
        len(browser.find_elements(By.CSS_SELECTOR, "#replay-board .cell.miss, #replay-board .cell.hit, #replay-board .cell.sunk"))
        == 1
    )
    assert len(browser.find_elements(By.CSS_SELECTOR, "#replay-board .hidden-ship")) == 3 + 2  # the hidden fleet, outlined
    browser.save_screenshot(str(SHOTS / "results.png"))
    browser.find_element(By.ID, "replay-last").click()
    assert "1 layout left" in browser.find_element(By.ID, "replay-caption").text
    assert browser.find_element(By.CSS_SELECTOR, "#results-detail img").get_attribute("naturalWidth") == "4"
    assert [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#results-plots a")] == ["small/plot.png"]
    assert [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#results-detail table.summary th")][:3] == [
        "player",
        "games",
        "failed",
    ]
    _no_errors(browser)
