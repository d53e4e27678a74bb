"""Save the Treasure of Fairy Tales' board in the Activity (bot/web/client/src/board/
treasure.js), fed real states: a seeded game played by the engine, each state built by
bot/web/states.py's ``state_message`` from a real Outbox, the guided steps answered by the
game's choice adapter as bot/web does (the server of test_board_fairy_tale_inn.py, for
this game)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import DESKTOP, PHONE
from tests.web.fake_server import wait_until
from tests.web.test_activity import all_css, by_css, open_table, severe_logs
from tests.web.test_board_fairy_tale_inn import (
    BOARD_TOP,
    SHIFT_WATCH,
    InnServer,
    small_texts,
    tap,
    targets,
    text_count,
    version,
    view_box,
)

POINTS = {
    "start": lambda st, n: True,
    "again": lambda st, n: st.stage == "slide" and st.slides == 1 and st.turn == 0,
    "green": lambda st, n: st.stage == "green" and st.turn == 0,
    "step": lambda st, n: st.stage == "step" and st.turn == 0,
    "over": lambda st, n: st.result is not None,
}


class TreasureServer(InnServer):
    """The real-table fake server, for Save the Treasure (seed 10 of random play: a second
    slide at move 1, a page found at move 5, a step at move 6, the king home at move 90)."""

    game_id = "treasure"
    game_name = "Save the Treasure of Fairy Tales"
    seed = 10
    points = POINTS


@pytest.fixture
def treasure() -> Iterator[Any]:
    servers: list[TreasureServer] = []

    def make(point: str = "start", seat: int | None = 0) -> TreasureServer:
        srv = TreasureServer(point)
        srv.seat = seat
        servers.append(srv.start())
        return srv

    try:
        yield make
    finally:
        for srv in servers:
            srv.stop()


def open_board(driver: Any, server: TreasureServer) -> None:
    open_table(driver, server)
    wait_until(lambda: all_css(driver, "#board svg.tr-svg .tr-cell"), what="the treasure board")


def placed(msg: dict[str, Any]) -> dict[str, str]:
    """The state's choices that have a place on the board (not disabled): tiles to slide
    or turn green, the figure's steps and stay, and Stop sliding."""
    out = {}
    for menu in msg["menus"]:
        for choice in menu["choices"]:
            code = choice["code"]
            if not choice["disabled"] and re.fullmatch(r"[tg][A-I][1-9]|w[udlr]|[xy]", code):
                out[code] = choice["label"]
    return out


def square_of(driver: Any, code: str) -> str:
    return driver.execute_script(
        "return document.querySelector(`#board [data-code='${arguments[0]}']`).dataset.square",
        code)


@pytest.mark.parametrize("point", ["start", "again", "green", "step", "over"])
def test_the_board_draws_the_view_and_offers_every_placed_choice(browser: Any, treasure: Any,
                                                                 point: str) -> None:
    server = treasure(point)
    msg = server.state()
    view = msg["view"]
    driver = browser(PHONE)
    open_board(driver, server)
    assert len(all_css(driver, "#board .tr-cell")) == view["rows"] * view["cols"] == 25
    figures = sum(len(c["figures"]) for c in view["cells"])
    assert len(all_css(driver, "#board .tr-figure")) == figures
    assert view_box(driver).startswith("0 0 360 ")
    want = placed(msg)
    if point == "start":
        assert want and all(c.startswith("t") for c in want)
    if point == "again":
        assert "x" in want
    if point == "green":
        assert want and all(c.startswith("g") for c in want)
    if point == "step":
        assert any(c.startswith("w") for c in want)
    if point == "over":
        assert want == {}
    got = targets(driver)
    assert {t["code"]: t["label"] for t in got} == want
    for t in got:
        assert t["visible"] and t["tabindex"] == "0" and t["label"], t
        assert t["w"] >= 44 and t["h"] >= 44, t
    # Each square's touch is the square the code names, or the figure's neighbour.
    cells = {c["square"]: c for c in view["cells"]}
    mine = next((c for c in view["cells"] if view["turn"] in c["figures"]), None)
    for code in want:
        if code[0] in "tg":
            assert square_of(driver, code) == code[1:]
            assert cells[code[1:]]["meadow"] == ("grey" if code[0] == "g" else
                                                 cells[code[1:]]["meadow"])
        elif code == "y":
            assert mine is not None and square_of(driver, code) == mine["square"]
        elif code.startswith("w"):
            assert mine is not None
            dr, dc = {"u": (-1, 0), "d": (1, 0), "l": (0, -1), "r": (0, 1)}[code[1]]
            row, col = mine["row"] + dr, mine["col"] + dc
            assert square_of(driver, code) == f"{chr(65 + row)}{col + 1}"
    assert small_texts(driver) == []
    assert text_count(driver) > 20


def test_a_tap_and_a_key_send_the_code_and_version(browser: Any, treasure: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    server = treasure("again")
    server.refuse_all = True
    want = [*sorted(placed(server.state()))[:4], "x"]
    driver = browser(PHONE)
    open_board(driver, server)
    sent = 0
    for code in want:
        for how in ("tap", "enter", "space"):
            if how == "tap":
                tap(driver, f"#board svg [data-code='{code}']")
            else:
                target = by_css(driver, f"#board svg [data-code='{code}']")
                driver.execute_script("arguments[0].focus()", target)
                assert driver.switch_to.active_element.get_attribute("data-code") == code
                driver.switch_to.active_element.send_keys(Keys.ENTER if how == "enter" else " ")
            sent += 1
            chosen = wait_until(lambda n=sent: len(server.messages("choose")) >= n and
                                server.messages("choose"), what=f"{code} by {how}")
            assert chosen[-1]["code"] == code and chosen[-1]["version"] == server.version
            wait_until(lambda c=code: f"refused {c}" in driver.execute_script(
                "return document.querySelector('.menus').innerText"), what="the refusal")


def test_a_tile_opens_its_directions_and_the_slide_updates_the_board(browser: Any,
                                                                     treasure: Any) -> None:
    server = treasure("start")
    driver = browser(PHONE)
    open_board(driver, server)
    driver.execute_script(SHIFT_WATCH + "window.__svg = document.querySelector('#board svg');")
    top = driver.execute_script(BOARD_TOP)
    code = sorted(placed(server.state()))[0]
    tap(driver, f"#board svg [data-code='{code}']")
    wait_until(lambda: by_css(driver, ".step").is_displayed(), what="the directions step")
    assert code[1:] in by_css(driver, "#step-h").text
    first = all_css(driver, ".step button.choice")[0]
    slide = first.get_attribute("data-code")
    assert slide.startswith(f"s{code[1:]}")
    first.click()
    wait_until(lambda: version(driver) == "8", what="the slide's state")
    assert [m["code"] for m in server.messages("choose")] == [code, slide]
    driver.execute_script("window.__boardShift = 0")
    for _ in range(2):
        server.push(server.advance())
        wait_until(lambda v=str(server.version): version(driver) == v, what="the next state")
    assert driver.execute_script("return window.__svg === document.querySelector('#board svg')")
    assert driver.execute_script("return window.__boardShift") == 0
    driver.execute_script("scrollTo(0, 0)")
    assert driver.execute_script(BOARD_TOP) == top
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


def test_no_text_under_9_px_at_400_px_wide(browser: Any, treasure: Any) -> None:
    for point in ("start", "step", "over"):
        server = treasure(point)
        driver = browser((400, 800))
        open_board(driver, server)
        assert small_texts(driver) == [], point


def test_a_spectator_sees_the_board_and_touches_nothing(browser: Any, treasure: Any) -> None:
    server = treasure("green", seat=None)
    msg = server.state()
    assert msg["seat"] is None and msg["view"]["seat"] is None and msg["menus"] == []
    driver = browser(PHONE)
    open_board(driver, server)
    assert targets(driver) == []
    words = driver.execute_script("return document.querySelector('#board svg').textContent")
    assert "(you)" not in words and "Your turn" not in words
    # What lies under the meadow tiles is in no view: the board shows only open squares' faces.
    open_faces = [c for c in msg["view"]["cells"] if c["meadow"] is None and c["face"]
                  and c["face"]["tale"]]
    names = driver.execute_script(
        "return [...document.querySelectorAll('#board .tr-cell > .tr-face text')]"
        ".map((t) => t.textContent)")
    assert len([n for n in names if n]) == len(open_faces)
    driver.execute_script(SHIFT_WATCH)
    for _ in range(3):
        server.push(server.advance())
        wait_until(lambda v=str(server.version): version(driver) == v, what="the next state")
    assert driver.execute_script("return window.__boardShift") == 0


def test_a_desktop_shows_it_at_most_560_px_wide(browser: Any, treasure: Any) -> None:
    server = treasure("step")
    driver = browser(DESKTOP)
    open_board(driver, server)
    width = driver.execute_script(
        "return document.querySelector('#board > svg').getBoundingClientRect().width")
    assert 500 <= width <= 560
    for t in targets(driver):
        assert t["w"] >= 44 and t["h"] >= 44, t
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone-360", "desktop-1280"])
def test_screenshots(browser: Any, treasure: Any, shots: Path, size: tuple[int, int]) -> None:
    name = f"{size[0]}x{size[1]}"
    for point in ("start", "again", "step", "over"):
        server = treasure(point)
        driver = browser(size)
        open_board(driver, server)
        driver.switch_to.default_content()
        assert driver.save_screenshot(str(shots / f"treasure-{point}-{name}.png"))
