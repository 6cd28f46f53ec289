"""The Ask panel in headless Chromium: a board chosen, a cell revealed, a question asked, its answer
recorded (the same question is then worth nothing), a bad program refused in one line. Saves its
screenshot (docs/web/ask.png with BATTLELOG_SCREENSHOTS=1, as tests/test_web_browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import test_replay_browser
from test_web_browser import SHOTS, _no_errors, _wait
from web_cases import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("web-browser")]

browser = test_replay_browser.browser
BOARD = "W,W,R,R,R\nG,W,W,W,W\nG,W,P,P,W\nW,W,W,W,W\nW,W,W,W,W\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    boards = tmp_path_factory.mktemp("ask-boards")
    (boards / "board_T01.txt").write_text(BOARD)
    live = LiveServer(None, warm=False, boards=boards)
    try:
        yield live
    finally:
        live.stop()


def _models(browser: Any) -> int:
    from selenium.webdriver.common.by import By

    text = browser.find_element(By.ID, "ask-models").text
    return int(text.split()[0].replace(",", "")) if text else -1


def test_a_question_asked_and_its_answer_recorded(browser: Any, server: LiveServer) -> None:
    from selenium.webdriver.common.by import By

    browser.set_window_size(1100, 700)
    browser.get(server.url)
    _wait(browser, lambda b: b.find_element(By.ID, "tab-ask").is_displayed())
    browser.find_element(By.ID, "tab-ask").click()
    _wait(browser, lambda b: _models(b) > 0)
    before = _models(browser)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#ask-board .cell")) == 25
    browser.find_element(By.ID, "ask-0-2").click()  # Red's tile
    _wait(browser, lambda b: 0 < _models(b) < before)
    assert browser.find_element(By.ID, "ask-0-2").text == "R"

    browser.find_element(By.ID, "ask-program").send_keys("(orient Red)")
    browser.find_element(By.ID, "ask-go").click()
    _wait(browser, lambda b: b.find_elements(By.ID, "ask-eig"))
    assert float(browser.find_element(By.ID, "ask-eig").text) > 0
    answers = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#ask-result tr")][1:]
    assert [a.split()[0] for a in answers] == ['"H"', '"V"']
    browser.find_elements(By.CSS_SELECTOR, "#ask-result .ask-record")[0].click()  # Red lies across
    _wait(browser, lambda b: "(orient Red)" in b.find_element(By.ID, "ask-recorded").text)
    _wait(browser, lambda b: b.find_element(By.ID, "ask-eig").text == "0.0000")
    browser.save_screenshot(str(SHOTS / "ask.png"))

    program = browser.find_element(By.ID, "ask-program")
    program.clear()
    program.send_keys("(size Red")
    browser.find_element(By.ID, "ask-go").click()
    _wait(browser, lambda b: "never closed" in b.find_element(By.ID, "ask-error").text)
    _no_errors(browser, "status of 400")
