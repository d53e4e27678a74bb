"""The browser fixtures of the Activity's tests: headless Debian Chromium through
chromedriver (selenium), and the test-only server of ``fake_server``.

Without Chromium, chromedriver or selenium the browser tests skip and say why, unless
``FABLETOP_REQUIRE_BROWSER=1`` (CI sets it): then they fail, so CI never passes with the
Activity untested.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.fake_server import FakeServer

CHROMIUM = Path(os.environ.get("FABLETOP_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("FABLETOP_CHROMEDRIVER", "/usr/bin/chromedriver"))
REQUIRE_BROWSER = os.environ.get("FABLETOP_REQUIRE_BROWSER") == "1"
SHOTS = Path(os.environ.get("FABLETOP_SHOTS", "/tmp/activity-shots"))

PHONE = (360, 780)
DESKTOP = (1280, 800)


def browser_problem() -> str | None:
    """Why the browser tests cannot run here, or None."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        return (f"no {' or '.join(missing)}: install Debian's chromium and chromium-driver "
                "(apt-get install -y chromium chromium-driver)")
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed: pip install -e '.[test]'"
    return None


def need_browser() -> None:
    problem = browser_problem()
    if problem is None:
        return
    if REQUIRE_BROWSER:
        pytest.fail(f"FABLETOP_REQUIRE_BROWSER=1 but {problem}", pytrace=False)
    pytest.skip(problem)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    srv = FakeServer().start()
    try:
        yield srv
    finally:
        srv.stop()


def _driver(size: tuple[int, int], *, reduced_motion: bool = False) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={size[0]},{size[1]}", "--hide-scrollbars",
                "--force-device-scale-factor=1", "--no-first-run",
                "--disable-background-networking", "--disable-extensions",
                "--disable-features=Translate,MediaRouter,OptimizationHints",
                "--lang=en-US"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=str(CHROMEDRIVER))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(30)
    # Headless windows lose a few pixels to nothing; make the page itself the asked size.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 1,
        "mobile": size[0] < 600,
    })
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-reduced-motion",
                      "value": "reduce" if reduced_motion else "no-preference"},
                     {"name": "prefers-color-scheme", "value": "dark"}],
    })
    return driver


@pytest.fixture
def browser() -> Iterator[Callable[..., Any]]:
    """open(size=PHONE, reduced_motion=False) → a fresh headless Chromium, quit after the test."""
    need_browser()
    opened: list[Any] = []

    def open_browser(size: tuple[int, int] = PHONE, *, reduced_motion: bool = False) -> Any:
        driver = _driver(size, reduced_motion=reduced_motion)
        opened.append(driver)
        return driver

    try:
        yield open_browser
    finally:
        for driver in opened:
            driver.quit()


@pytest.fixture
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Any]:
    """The real server: the emulator and the bot process with the Activity served
    (``tests.web.live.Live``), stopped after the test. The end of the bot's log is
    printed at teardown (pytest shows it when the test failed)."""
    need_browser()
    from tests.web.live import Live

    started = Live(tmp_path).start()
    try:
        yield started
    finally:
        if started.bot is not None:
            print(f"--- bot log ---\n{started.bot.log()[-6000:]}")
        started.stop()
