"""The calendar on a 390-px wide phone screen, in real headless Chromium (mobile emulation).

Every page must fit the screen's width: nothing wider than the viewport, so the page never
scrolls sideways. Skips like test_web_browser.py without chromium, chromedriver or selenium.
Set ``TAPESTRY_SCREENSHOTS=DIR`` to save each page as ``phone-<name>.png``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from tapestryd.clock import FixedClock
from tapestryd.config import load_settings
from tapestryd.web import WebServer

from calendar_history import TODAY, build_history

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                reason="Debian's chromium and chromium-driver are not installed "
                                       "(apt-get install -y chromium chromium-driver)")
WIDTH = 390  # CSS pixels: an iPhone 12–15 in portrait
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage")
PAGES = {
    "month": "/month/2026-03",
    "day": "/month/2026-03?day=2026-03-04",
    "search": "/search?q=garlic",
    "node": "/node?key=L1%3Achatgpt%3A2026-03-04",
    "conversation": "/conversation?key=chatgpt%3Agarden&day=2026-03-04",
}


@pytest.fixture(scope="module")
def phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium emulating a 390 × 844 phone screen (device pixel ratio 3, touch)."""
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-phone')}")
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": WIDTH, "height": 844,
                                                                          "pixelRatio": 3.0, "touch": True}})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=str(CHROMEDRIVER)))
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The calendar over the test history on a free loopback port."""
    home = tmp_path_factory.mktemp("phone-home")
    (home / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
    settings = load_settings(home)
    build_history(settings)
    server = WebServer(settings, port=0, clock=FixedClock(TODAY))
    server.start()
    yield server.url.rstrip("/")
    server.stop()


@pytest.mark.parametrize("name", sorted(PAGES))
def test_each_page_fits_a_390_px_phone_screen(phone: Any, base: str, name: str) -> None:
    """The page is no wider than the screen, and the page's own content is shown before the sidebar."""
    phone.get(base + PAGES[name])
    viewport = phone.execute_script("return window.innerWidth")  # a phone widens it to fit what sticks out
    wide = phone.execute_script(
        f"const w = {WIDTH};"
        "return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w + 1"
        " && getComputedStyle(e).position !== 'fixed').map(e => e.tagName + '.' + e.className).slice(0, 5);")
    width = phone.execute_script("return document.documentElement.scrollWidth")
    folder = os.environ.get("TAPESTRY_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        phone.save_screenshot(str(Path(folder) / f"phone-{name}.png"))
    assert viewport == WIDTH and width <= WIDTH and wide == [], f"{name}: {viewport} px wide; sticking out: {wide}"
    content = phone.find_element("css selector", "main.content").location["y"]
    sidebar = phone.find_element("css selector", "aside.sidebar").location["y"]
    assert content < sidebar, f"{name}: the sidebar comes before the page on a phone"
