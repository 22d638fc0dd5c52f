"""End to end in real headless Chromium (Debian's chromium + chromedriver, driven by selenium).

The calendar is served by the real WebServer on a free loopback port over a history stored
through the real log. Skips with the reason when chromium, chromedriver or selenium is
missing (install: ``apt-get install -y chromium chromium-driver``; ``pip install selenium``).
Set ``TAPESTRY_SCREENSHOTS=DIR`` to save the month view and day panel as PNG files there.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from tapestryd.clock import FixedClock
from tapestryd.config import Settings, load_settings
from tapestryd.web import WebServer

from calendar_history import TODAY, build_history

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                reason="Debian's chromium and chromium-driver are not installed "
                                       "(apt-get install -y chromium chromium-driver)")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1440,1000")
CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the module, with a fresh profile."""
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=str(CHROMEDRIVER)))
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Settings]]:
    """The calendar over the test history on a free port: (base URL without slash, settings)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
    monkeypatch.setenv("TAPESTRY_HOME", str(home))
    settings = load_settings(home)
    build_history(settings)
    server = WebServer(settings, port=0, clock=FixedClock(TODAY))
    server.start()
    yield server.url.rstrip("/"), settings
    server.stop()


def wait_for(driver: Any, check: Callable[[Any], Any], timeout: float = 15.0) -> Any:
    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(check)


def shot(driver: Any, name: str) -> None:
    folder = os.environ.get("TAPESTRY_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / name))


def test_month_day_summary_and_raw_conversation(browser: Any, served: tuple[str, Settings]) -> None:
    """Open the month, click a day, read its summary, open the raw conversation; no HTML runs."""
    base, _ = served
    browser.get(base + "/month/2026-03")
    assert browser.find_element(By.ID, "month-title").text == "March 2026"
    pills = browser.find_elements(By.CSS_SELECTOR, 'td[data-date="2026-03-04"] .pill')
    assert {p.get_attribute("data-agent") for p in pills} == {"chatgpt", "claude-code"}
    shot(browser, "calendar-month.png")
    browser.find_element(By.CSS_SELECTOR, 'td[data-date="2026-03-04"] a.day-link').click()
    panel = wait_for(browser, lambda d: d.find_element(By.ID, "day-panel"))
    assert "I planned the garlic bed." in panel.find_element(By.CSS_SELECTOR, ".daily-summary").text
    assert "10:00–10:30" in panel.text
    shot(browser, "calendar-day.png")
    panel.find_element(By.LINK_TEXT, "Garlic depth").click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "li.message"))
    texts = [m.text for m in browser.find_elements(By.CSS_SELECTOR, "li.message .msg-text")]
    assert texts[0] == "How deep should I plant garlic?" and "<script>window.__pwned = 1</script>" in texts[1]
    assert browser.execute_script("return window.__pwned === undefined")


def test_agent_filter_hides_an_agent(browser: Any, served: tuple[str, Settings]) -> None:
    """Unticking an agent in the sidebar reloads the month without its pills."""
    base, _ = served
    browser.get(base + "/month/2026-03")
    browser.find_element(By.CSS_SELECTOR, 'input.agent-toggle[value="claude-code"]').click()
    wait_for(browser, lambda d: "filtered=1" in d.current_url)
    wait_for(browser, lambda d: {p.get_attribute("data-agent")
                                 for p in d.find_elements(By.CSS_SELECTOR, "#month-grid .pill")} == {"chatgpt"})
    assert not browser.find_element(By.CSS_SELECTOR, 'input.agent-toggle[value="claude-code"]').is_selected()


def test_status_strip_and_colour_picker(browser: Any, served: tuple[str, Settings]) -> None:
    """The strip reports the daemon down and the lag; a picked colour lands in tapestry.toml."""
    base, settings = served
    browser.get(base + "/month/2026-03")
    wait_for(browser, lambda d: d.find_element(By.ID, "status-daemon").text == "daemon not running")
    assert browser.find_element(By.ID, "status-lag").text == "projector lag 0"
    browser.execute_script(
        "const p = document.querySelector('.color-pick[data-agent=\"chatgpt\"]');"
        "p.value = '#aa3366'; p.dispatchEvent(new Event('change'));")
    wait_for(browser, lambda d: '#aa3366' in settings.config_file.read_text())


def test_upload_a_corpus_file_and_see_its_receipt(browser: Any, served: tuple[str, Settings]) -> None:
    """Choosing a Claude Code session file uploads it, imports it and shows the receipt's counts."""
    sample = CORPUS / "claude-code" / "simonw-sample_session.jsonl"
    if not sample.exists():
        pytest.skip(f"the shared corpus is not at {CORPUS}")
    base, settings = served
    browser.get(base + "/month/2026-03")
    browser.find_element(By.ID, "upload-file").send_keys(str(sample.resolve()))
    row = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "li.upload[data-state]"), timeout=60)
    assert row.get_attribute("data-state") == "done", row.text
    assert int(row.find_element(By.CSS_SELECTOR, 'dd[data-count="new"]').text) > 0
    assert not any(p.name == sample.name for p in settings.data_dir.rglob("*"))


def test_a_cross_origin_post_is_refused(browser: Any, served: tuple[str, Settings], tmp_path: Path) -> None:
    """A page on another origin that posts to the calendar is refused and changes nothing."""
    base, settings = served
    before = settings.config_file.read_text()
    site = tmp_path / "site"
    site.mkdir()
    (site / "evil.html").write_text(
        f'<form id="f" method="post" action="{base}/api/agents/color" enctype="text/plain">'
        '<input name=\'{"agent":"chatgpt","color":"#000000","x":"\' value=\'"}\'><button id="go">go</button></form>')
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://localhost:{evil.server_port}/evil.html")
        browser.find_element(By.ID, "go").click()
        wait_for(browser, lambda d: d.current_url.startswith(base))
        body = wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "body").text)
        assert "refused" in body and f"localhost:{evil.server_port}" in body
    finally:
        evil.shutdown()
        evil.server_close()
    assert settings.config_file.read_text() == before
