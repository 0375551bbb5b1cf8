"""The assessor and admin pages in a real browser: headless Chromium from the system's packages, driven by
Selenium with the system's chromedriver. An assessor judges every pair of a query set with the keyboard alone."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
pytestmark = pytest.mark.skipif(
    not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)),
    reason="headless Chromium needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
)
SCREENSHOTS = Path(os.environ.get("IPM_SCREENSHOTS", tempfile.gettempdir())) / "ipm-judging-screenshots"


@pytest.fixture
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,900",
        f"--user-data-dir={tempfile.mkdtemp()}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console: policy violations show there
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def press(browser, key: str) -> None:
    """Press ``key`` on the page and wait for the next page (each answer posts and redirects)."""
    old = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.TAG_NAME, "body").send_keys(key)
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 10).until(lambda d: old.id != d.find_element(By.TAG_NAME, "html").id)


def stored(store: Path) -> list[tuple]:
    with sqlite3.connect(store) as db:
        return db.execute(
            "SELECT a.query_id, a.first, a.second, a.answer, a.sample, w.request_id IS NOT NULL "
            "FROM answers a LEFT JOIN withdrawn w ON w.answer_id = a.id ORDER BY a.id"
        ).fetchall()


def test_an_assessor_judges_to_the_end_with_the_keyboard(server, browser):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    s = server(assessors=["alice"])
    browser.get(s.links["alice"])
    assert "0%" in browser.find_element(By.ID, "progress-label").text
    browser.save_screenshot(str(SCREENSHOTS / "assessor.png"))
    left = browser.find_element(By.ID, "left").get_attribute("data-doc")
    press(browser, "t")  # a tie
    press(browser, "u")  # undo: the same pair again
    assert browser.find_element(By.ID, "left").get_attribute("data-doc") == left
    press(browser, "t")  # the tie again
    press(browser, "q")  # the left doc is bad
    seen_script = False
    for _ in range(100):
        if browser.find_elements(By.ID, "done"):
            break
        seen_script |= "<script>" in browser.find_element(By.TAG_NAME, "main").text
        press(browser, Keys.ARROW_LEFT if len(browser.page_source) % 2 else "2")
    assert browser.find_elements(By.ID, "done")
    assert "100%" in browser.find_element(By.ID, "progress-label").text
    assert browser.title != "pwned"
    assert seen_script, "the document holding <script> was shown as text"
    rows = stored(s.store)
    assert rows[0][3:] == ("tie", 0, 1)  # the tie, withdrawn by undo
    assert rows[1][3:] == ("tie", 1, 0)  # answered again
    assert rows[2][3] == "bad-first" and rows[2][5] == 0
    assert len([r for r in rows if not r[5]]) == 30  # 3 queries x 10 pairs, each answered once
    browser.get(s.links["admin"])
    assert "30 answers by 1 assessors" in browser.find_element(By.ID, "totals").text
    browser.save_screenshot(str(SCREENSHOTS / "admin.png"))
    print(f"screenshots: {SCREENSHOTS / 'assessor.png'} {SCREENSHOTS / 'admin.png'}")


def policy_violations(browser) -> list[str]:
    """The browser console's messages about the page's Content Security Policy since the last call."""
    return [
        entry["message"]
        for entry in browser.get_log("browser")
        if "Content Security Policy" in entry["message"] or "Refused to" in entry["message"]
    ]


def drawn_share(browser) -> float:
    """The progress bar's drawn width as a share of its track's (measured in the page)."""
    bar = browser.find_element(By.ID, "progress-bar").rect["width"]
    track = browser.find_element(By.ID, "progress").rect["width"]
    return bar / track


def test_the_progress_bar_fills_its_track_and_no_policy_is_broken(server, browser):
    import re

    import httpx

    s = server(assessors=["alice"])
    base, token = s.links["alice"].split("/a/")
    with httpx.Client(base_url=base) as client:  # 28 of the 30 pairs answered without the browser
        for _ in range(28):
            fields = dict(re.findall(r'name="(csrf|assignment)" value="([^"]*)"', client.get(f"/a/{token}").text))
            assert client.post(f"/a/{token}/answer", data={**fields, "answer": "left"}).status_code == 303
    browser.get(s.links["alice"])
    assert "28 of 30 judged (93%)" in browser.find_element(By.ID, "progress-label").text
    assert abs(drawn_share(browser) - 0.93) < 0.01
    press(browser, "1")
    press(browser, "2")
    assert browser.find_elements(By.ID, "done")
    assert "30 of 30 judged (100%)" in browser.find_element(By.ID, "progress-label").text
    assert drawn_share(browser) == pytest.approx(1.0, abs=0.005)
    browser.get(s.links["admin"])
    assert browser.find_element(By.TAG_NAME, "h1").text == "Admin: effort.sqlite"
    assert "secret" in browser.find_element(By.ID, "secret-links").text
    assert policy_violations(browser) == []


def test_a_crowd_participant_ends_at_the_completion_url_in_the_browser(server, browser):
    """The open study link in Chromium: the participant joins, judges with the keyboard, and their last answer
    leads to the completion URL (another origin: a page of a loopback server of this test), which the page's policy
    lets the answer's form reach."""
    import http.server
    import threading

    class Platform(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the standard library's name)
            body = b"<!doctype html><title>completed</title><p id='completed'>study completed</p>"
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    platform = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Platform)
    threading.Thread(target=platform.serve_forever, daemon=True).start()
    try:
        completion = f"http://127.0.0.1:{platform.server_address[1]}/complete?cc=C0DE"
        s = server(assessors=["alice"], study=True, completion_url=completion, judgments=3)
        browser.get(s.links["study"] + "5f1a2b3c4d5e6f7a8b9c0d1e")
        assert "/a/" in browser.current_url and "0 of" in browser.find_element(By.ID, "progress-label").text
        press(browser, "1")
        press(browser, "s")  # a skip is no judgment
        press(browser, "2")
        press(browser, "t")
        assert browser.current_url == completion
        assert browser.find_element(By.ID, "completed").text == "study completed"
        assert policy_violations(browser) == []
    finally:
        platform.shutdown()
