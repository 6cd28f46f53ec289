"""The replay page in a real browser: headless Chromium loads it without errors, and stepping changes the board.

Needs Chromium, its driver and selenium (Debian: `apt-get install chromium chromium-driver`; selenium
comes with the test extra). Without them these tests are skipped, unless BATTLELOG_REQUIRE_BROWSER=1
(as .ci/run sets it), which makes a missing browser a failure instead of a silently smaller suite.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from battlelog.cli import main
from battlelog.rules.geometry import cell_name
from battlelog.views.replay import colors
from battlelog.views.replay.sources import load_game

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--window-size=1200,800")  # fmt: skip


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A headless Chromium with a fresh profile, driven by selenium (the network is never used)."""
    missing = [name for name, path in (("chromium", CHROMIUM), ("chromedriver", DRIVER)) if path is None]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("selenium")
    if missing:
        message = f"{' and '.join(missing)} not installed (apt-get install chromium chromium-driver; pip install -e '.[test]')"
        if os.environ.get("BATTLELOG_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    assert CHROMIUM is not None  # not missing
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """A pdf game on 4x4 3,2 replayed through the command line (scores panel included), and the game."""
    root = tmp_path_factory.mktemp("browser")
    results = root / "results"
    argv = ["experiment", "--size", "4", "--ships", "3,2", "--players", "pdf", "--games", "1", "--seed", "2", "--workers", "1"]
    assert main([*argv, "--out", str(results)]) == 0
    assert main(["replay", str(results), "--game", "0", "--out", str(root / "replay"), "--delay", "0.1"]) == 0
    return root / "replay" / "replay.html", load_game(results, 0)


def _rgba(color: str) -> str:
    """A colour as selenium reports a computed background."""
    return "rgba({}, {}, {}, 1)".format(*(int(color[i:i + 2], 16) for i in (1, 3, 5)))


def test_stepping_through_the_page_changes_the_board(browser: Any, page: tuple[Path, Any]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    path, game = page
    shots = game.state.shots
    browser.get(path.as_uri())

    def caption() -> str:
        return browser.find_element(By.ID, "caption").text

    def cell(panel: str, shot: int) -> Any:
        return browser.find_element(By.ID, f"{panel}-{cell_name(shots[shot].cell)}")

    data = json.loads(browser.find_element(By.ID, "replay-data").get_attribute("textContent"))
    assert caption() == data["frames"][0]["caption"] and caption().startswith("before the first shot")
    assert [h.text for h in browser.find_elements(By.CSS_SELECTOR, ".panel h2")] == [
        "chance of a ship (%)", "hidden board (ship numbers)", "pdf's scores (worst 0, best 100)"]  # fmt: skip
    first = cell("posterior", 0)
    assert "next" in first.get_attribute("class") and "mark-" not in first.get_attribute("class")
    before = browser.find_element(By.ID, "boards").get_attribute("innerHTML")

    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    answer = "mark-o" if shots[0].result == "miss" else "mark-x"
    assert caption() == data["frames"][1]["caption"] and caption().startswith(f"shot 1: {cell_name(shots[0].cell)}")
    assert answer in cell("posterior", 0).get_attribute("class") and answer in cell("board", 0).get_attribute("class")
    expected = colors.MISS if shots[0].result == "miss" else colors.HIT
    assert cell("posterior", 0).value_of_css_property("background-color") == _rgba(expected)
    assert "next" in cell("posterior", 1).get_attribute("class")
    assert browser.find_element(By.ID, "boards").get_attribute("innerHTML") != before

    browser.find_element(By.ID, "next").click()
    assert caption() == data["frames"][2]["caption"]
    browser.find_element(By.ID, "prev").click()
    assert caption() == data["frames"][1]["caption"]
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    assert caption() == data["frames"][-1]["caption"] and "1 layout left" in caption()
    assert browser.find_element(By.ID, "counter").text == f"frame {len(shots)} of {len(shots)}"
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME)
    assert caption() == data["frames"][0]["caption"]

    browser.find_element(By.ID, "play").click()  # plays at --delay 0.1 s per frame, and stops at the end
    WebDriverWait(browser, 20).until(lambda driver: caption() == data["frames"][-1]["caption"])
    assert browser.find_element(By.ID, "play").text == "play"

    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def test_a_captain_replay_lists_the_questions_beside_the_boards(browser: Any, tmp_path: Path) -> None:
    """A 5x5 captain game with questions: the list beside the boards grows with them, the one just asked
    highlighted, and the page logs no error."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    (tmp_path / "a.txt").write_text("R,R,R,W,W\nW,W,W,W,G\nW,P,W,W,G\nW,P,W,W,W\nW,W,W,W,W\n")
    (tmp_path / "bank.txt").write_text("(== (orient Green) H)\n(touch Red Green)\n(== (size Red) 3)\n")
    argv = ["captain", "--board", str(tmp_path / "a.txt"), "--captain", "asker", "--bank", str(tmp_path / "bank.txt"),
            "--threshold", "0.05", "--shots", "20", "--questions", "3", "--noise", "0.2",
            "--out", str(tmp_path / "run")]  # fmt: skip
    assert main(argv) == 0
    assert main(["replay", str(tmp_path / "run"), "--game", "0", "--out", str(tmp_path / "replay")]) == 0
    browser.get((tmp_path / "replay" / "replay.html").as_uri())
    data = json.loads(browser.find_element(By.ID, "replay-data").get_attribute("textContent"))
    asked = [k for k, frame in enumerate(data["frames"]) if frame["current"] is not None]
    assert asked and browser.find_elements(By.CSS_SELECTOR, "#notes li") == []
    for _ in range(asked[0]):
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    frame = data["frames"][asked[0]]
    items = browser.find_elements(By.CSS_SELECTOR, "#notes li")
    assert [item.text for item in items] == frame["notes"] and frame["notes"]
    assert [item.get_attribute("class") for item in items].index("current") == frame["current"]
    assert items[frame["current"]].value_of_css_property("background-color") == _rgba(colors.HIGHLIGHT)
    assert [h.text for h in browser.find_elements(By.CSS_SELECTOR, ".panel h2")][-1] == data["notes_title"]
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []
