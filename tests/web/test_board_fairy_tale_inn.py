"""Fairy Tale Inn's board in the Activity (bot/web/client/src/board/fairy-tale-inn.js), fed
real states: a seeded game played by the engine, each state built by bot/web/states.py's
``state_message`` from a real Outbox (the seat's own view, its legal actions and the menus
of the game's choice adapter), and the guided steps answered by that adapter as bot/web does.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.core.choices import get_ui
from bot.core.tables.models import Outbox, SeatInfo, SeatNews, TableInfo, TableStatus
from bot.web.protocol import menu_message, refused
from bot.web.states import state_message
from engines import get_game
from tests.web.conftest import DESKTOP, PHONE
from tests.web.fake_server import FakeServer, wait_until
from tests.web.test_activity import all_css, by_css, open_table, severe_logs

GAME = "fairy-tale-inn"
SEED = 11
"""A seeded game (random legal moves from random.Random(SEED)) that passes through every
kind of moment: seat 0 places a Rat at move 5 and is offered an extra turn at move 32."""

POINTS = {
    "start": lambda st, n: True,
    "rat": lambda st, n: st.phase == "rat" and st.turn == 0,
    "middle": lambda st, n: n >= 16 and st.phase == "drop" and st.turn == 0,
    "extra": lambda st, n: st.phase == "extra_turn" and st.turn == 0,
    "over": lambda st, n: st.phase == "over",
}


def play_to(game_id: str, seed: int, stop: Any) -> Any:
    """The engine state of the game seeded ``seed`` at the first moment ``stop(state, n)``
    holds (random legal moves from random.Random(seed), n of them so far)."""
    game = get_game(game_id)
    state = game.setup(2, game.Options(), seed)
    rng = random.Random(seed)
    n = 0
    while not stop(state, n):
        seat = game.to_act(state)[0]
        game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        n += 1
    return state


class InnServer(FakeServer):
    """The fake server with a real table: its states come from the engine through
    ``state_message``; a choice is answered as bot/web answers it (the adapter's step
    menu, its refusal, or the move played and a new state for everyone)."""

    game_id = GAME
    game_name = "Fairy Tale Inn"
    seed = SEED
    points = POINTS

    def __init__(self, point: str = "start") -> None:
        super().__init__()
        self.game = get_game(self.game_id)
        self.estate = play_to(self.game_id, self.seed, self.points[point])
        self.refuse_all = False
        """Answer every choice with a refusal naming its code (the tap tests)."""

    def info(self) -> TableInfo:
        return TableInfo(
            id="17", channel_id=300000000000000003, guild_id=200000000000000002,
            game_id=self.game_id, game_name=self.game_name, options={}, seed=self.seed,
            status=TableStatus.PLAYING if self.game.to_act(self.estate) else TableStatus.FINISHED,
            host_id=1, seats=(SeatInfo(0, "Ada", 1), SeatInfo(1, "Grimm", 2)),
            version=self.version, min_players=2, max_players=2, reminder_minutes=0,
            to_act=tuple(self.game.to_act(self.estate)))

    def outbox(self) -> Outbox:
        seats = tuple(SeatNews(seat=s, user_id=s + 1, view=self.game.view(self.estate, s),
                               legal=tuple(self.game.legal_actions(self.estate, s)))
                      for s in (0, 1))
        return Outbox(table=self.info(), public_view=self.game.view(self.estate, None),
                      seats=seats)

    def state(self, lines: list[str] | None = None) -> dict[str, Any]:
        msg = state_message(self.outbox(), self.seat, with_lines=False)
        msg["lines"] = list(lines or [])
        return msg

    def legal(self) -> list[Any]:
        return list(self.game.legal_actions(self.estate, 0)) if self.seat == 0 else []

    def play(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        code = str(msg.get("code"))
        if self.refuse_all:
            return [refused(msg["id"], f"refused {code}")]
        if msg.get("version") != self.version:
            return [refused(msg["id"], "That button is out of date.")]
        ui = get_ui(self.game_id)
        view = self.game.view(self.estate, 0)
        try:
            resolution = ui.resolve(code, view, self.legal())
        except Exception as exc:  # UnknownChoice: its words, as bot/web sends them
            return [refused(msg["id"], str(exc) or "You cannot do that now.")]
        if resolution.menu is not None:
            return [menu_message(msg["id"], resolution.menu)]
        assert resolution.action is not None
        self.game.apply(self.estate, 0, resolution.action)
        return [self.commit(resolution.done_text or "A move.")]

    def advance(self) -> dict[str, Any]:
        """The next move of the seeded game by whoever is to act: a new state."""
        seat = self.game.to_act(self.estate)[0]
        legal = self.game.legal_actions(self.estate, seat)
        self.game.apply(self.estate, seat, random.Random(self.version).choice(legal))
        return self.commit("A move.")


@pytest.fixture
def inn() -> Iterator[Any]:
    """inn(point="start", seat=0) → a started InnServer at that point of the seeded game."""
    servers: list[InnServer] = []

    def make(point: str = "start", seat: int | None = 0) -> InnServer:
        srv = InnServer(point)
        srv.seat = seat
        servers.append(srv.start())
        return srv

    try:
        yield make
    finally:
        for srv in servers:
            srv.stop()


# --------------------------------------------------------------------------- helpers


def open_board(driver: Any, server: InnServer) -> None:
    open_table(driver, server)
    wait_until(lambda: all_css(driver, "#board svg.inn-svg .inn-cell"), what="the inn board")


def targets(driver: Any) -> list[dict[str, Any]]:
    """Every touch target of the board: its code, label, focusability and size."""
    return driver.execute_script("""
        return [...document.querySelectorAll('#board svg [role=button]')].map((g) => {
          const r = g.getBoundingClientRect();
          return {code: g.dataset.code, label: g.getAttribute('aria-label'),
                  tabindex: g.getAttribute('tabindex'), w: r.width, h: r.height,
                  visible: g.getAttribute('display') !== 'none'
                           && getComputedStyle(g).display !== 'none'};
        });""")


def placed_codes(msg: dict[str, Any]) -> dict[str, str]:
    """The codes of the state's choices that have a place on the board, with their labels:
    Guest List slots, Rat columns, the extra-turn offer (not disabled)."""
    out = {}
    for menu in msg["menus"]:
        for choice in menu["choices"]:
            code = choice["code"]
            if choice["disabled"]:
                continue
            if code in ("x", "e") or (code[0] in "sr" and code[1:].isdigit()):
                out[code] = choice["label"]
    return out


def small_texts(driver: Any) -> list[Any]:
    """Every <text> of the board drawn under 9 CSS px (font size times the SVG's scale,
    and its box's height)."""
    return driver.execute_script("""
        const out = [];
        for (const t of document.querySelectorAll('#board svg text')) {
          if (!t.textContent.trim()) continue;
          if (t.closest('[display=none]')) continue;
          const scale = t.getScreenCTM().a;
          const px = parseFloat(getComputedStyle(t).fontSize) * scale;
          const box = t.getBoundingClientRect();
          if (px < 9 || box.height < 9) out.push([t.textContent, px, box.height]);
        }
        return out;""")


def text_count(driver: Any) -> int:
    return driver.execute_script("""
        return [...document.querySelectorAll('#board svg text')]
          .filter((t) => t.textContent.trim() && !t.closest('[display=none]')).length;""")


def tap(driver: Any, selector: str) -> None:
    """Click the element as a finger would: in the middle of the screen first (the sticky
    header would take a tap at the very top)."""
    el = by_css(driver, selector)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()


SHIFT_WATCH = """
    window.__shift = 0;
    window.__boardShift = 0;
    new PerformanceObserver((list) => {
      const board = document.querySelector('#board');
      for (const e of list.getEntries()) {
        if (e.hadRecentInput) continue;
        window.__shift += e.value;
        if ((e.sources || []).some((s) => s.node && board.contains(s.node))) {
          window.__boardShift += e.value;
        }
      }
    }).observe({type: 'layout-shift', buffered: false});"""
"""Counts the layout shift of the page (window.__shift) and of what is on the board
(window.__boardShift)."""

BOARD_TOP = "return document.querySelector('#board').getBoundingClientRect().top + scrollY"


def view_box(driver: Any) -> str:
    return driver.execute_script(
        "return document.querySelector('#board > svg.board-svg').getAttribute('viewBox')")


def version(driver: Any) -> str:
    return by_css(driver, "#app").get_attribute("data-version")


# --------------------------------------------------------------------------- the board


@pytest.mark.parametrize("point", ["start", "rat", "middle", "extra", "over"])
def test_the_board_draws_the_view_and_offers_every_placed_choice(browser: Any, inn: Any,
                                                                 point: str) -> None:
    server = inn(point)
    msg = server.state()
    view = msg["view"]
    driver = browser(PHONE)
    open_board(driver, server)
    assert len(all_css(driver, "#board .inn-cell")) == view["columns"] * view["rows"] == 42
    tokens = sum(len(col) for col in view["grid"])
    assert len(all_css(driver, "#board .inn-inn .inn-token")) == tokens
    assert len(all_css(driver, "#board .inn-slot")) == len(view["guest_list"]) == 4
    assert len(all_css(driver, "#board .inn-player")) == 2
    assert [li.get_attribute("data-id") for li in all_css(driver, ".inn-char")] == [
        c["id"] for c in view["characters"]]
    assert view_box(driver).startswith("0 0 360 ")

    want = placed_codes(msg)
    if point == "start":
        assert set(want) == {"s2", "s3", "s4"}  # slot 1 costs 2 gold, seat 0 has 1
    if point == "rat":
        assert want and all(c.startswith("r") for c in want)
    if point == "extra":
        assert set(want) == {"x", "e"}
    if point == "over":
        assert want == {}
    got = targets(driver)
    assert {t["code"]: t["label"] for t in got} == want
    for t in got:
        assert t["visible"] and t["tabindex"] == "0" and t["label"], t
        assert t["w"] >= 44 and t["h"] >= 44, t
    assert small_texts(driver) == []
    assert text_count(driver) > 30
    assert driver.execute_script("return document.documentElement.scrollWidth <= innerWidth")


def test_a_tap_and_a_key_send_the_code_and_version(browser: Any, inn: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    server = inn("start")
    server.refuse_all = True
    want = placed_codes(server.state())
    driver = browser(PHONE)
    open_board(driver, server)
    sent = 0
    for code in sorted(want):
        target = by_css(driver, f"#board svg [data-code='{code}']")
        for how in ("tap", "enter", "space"):
            if how == "tap":
                tap(driver, f"#board svg [data-code='{code}']")
            else:
                driver.execute_script("arguments[0].focus()", target)
                assert driver.switch_to.active_element.get_attribute("data-code") == code
                driver.switch_to.active_element.send_keys(Keys.ENTER if how == "enter" else " ")
            sent += 1
            chosen = wait_until(lambda n=sent: len(server.messages("choose")) >= n and
                                server.messages("choose"), what=f"{code} by {how}")
            assert chosen[-1]["code"] == code and chosen[-1]["version"] == server.version
            # The refusal is said in words by the choice, as for its button.
            wait_until(lambda c=code: f"refused {c}" in driver.execute_script(
                "return document.querySelector('.menus').innerText"), what="the refusal")
    assert len(server.messages("choose")) == 3 * len(want)


def test_a_slot_opens_the_columns_step_and_the_move_updates_the_board(browser: Any,
                                                                      inn: Any) -> None:
    server = inn("start")
    driver = browser(PHONE)
    open_board(driver, server)
    driver.execute_script(SHIFT_WATCH + "window.__svg = document.querySelector('#board svg');")
    height = driver.execute_script(
        "return document.querySelector('#board svg').getBoundingClientRect().height")
    top = driver.execute_script(BOARD_TOP)
    tap(driver, "#board svg [data-code='s3']")
    wait_until(lambda: by_css(driver, ".step").is_displayed(), what="the columns step")
    labels = [b.text for b in all_css(driver, ".step button.choice")]
    assert labels == [f"Column {c}" for c in range(1, 8)]
    assert "into which column" in by_css(driver, "#step-h").text
    by_css(driver, ".step button[data-code='d3c4']").click()
    wait_until(lambda: version(driver) == "8", what="the move's state")
    cell = by_css(driver, "#board .inn-cell[data-cell='4,1']")
    assert len(cell.find_elements("css selector", ".inn-token")) == 1
    assert [m["code"] for m in server.messages("choose")] == ["s3", "d3c4"]
    assert server.messages("choose")[-1]["version"] == 7
    # Grimm's move: updated in place, the same height, nothing on or above the board moved
    # (the shell's choices below it give way to "Nothing to choose": its own change).
    driver.execute_script("window.__boardShift = 0")
    server.push(server.advance())
    wait_until(lambda: version(driver) == "9", what="Grimm's move")
    assert driver.execute_script("return window.__svg === document.querySelector('#board svg')")
    assert driver.execute_script(
        "return document.querySelector('#board svg').getBoundingClientRect().height") == height
    assert driver.execute_script("return window.__boardShift") == 0
    driver.execute_script("scrollTo(0, 0)")
    assert driver.execute_script(BOARD_TOP) == top
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


def test_no_text_under_9_px_at_400_px_wide(browser: Any, inn: Any) -> None:
    for point in ("middle", "extra", "over"):
        server = inn(point)
        driver = browser((400, 800))
        open_board(driver, server)
        assert small_texts(driver) == [], point


def test_the_rat_goes_where_it_is_tapped(browser: Any, inn: Any) -> None:
    server = inn("rat")
    driver = browser(PHONE)
    open_board(driver, server)
    rat = [t for t in targets(driver) if t["code"].startswith("r")]
    code = rat[0]["code"]
    before = len(server.estate.columns[int(code[1:]) - 1])
    tap(driver, f"#board svg [data-code='{code}']")
    wait_until(lambda: version(driver) == "8", what="the Rat's state")
    cell = by_css(driver, f"#board .inn-cell[data-cell='{code[1:]},{before + 1}']")
    assert len(cell.find_elements("css selector", ".inn-token")) == 1
    assert [t for t in targets(driver) if t["code"].startswith("r")] == []


def test_a_spectator_sees_the_board_and_touches_nothing(browser: Any, inn: Any) -> None:
    server = inn("middle", seat=None)
    msg = server.state()
    assert msg["seat"] is None and msg["view"]["seat"] is None and msg["menus"] == []
    driver = browser(PHONE)
    open_board(driver, server)
    assert targets(driver) == []
    assert all_css(driver, "#board [tabindex]") == [] or all(
        el.get_attribute("id") == "board" for el in all_css(driver, "#board [tabindex]"))
    words = driver.execute_script("return document.querySelector('#board svg').textContent")
    assert "you" not in words.split(" · ") and "Your turn" not in words
    assert by_css(driver, ".banner").is_displayed()
    # A spectator's page has no choices to come and go: the updates move nothing on it
    # (the seat chips keep the turn marker's room when the turn passes).
    driver.execute_script(SHIFT_WATCH)
    top = driver.execute_script(BOARD_TOP)
    for _ in range(3):
        server.push(server.advance())
        wait_until(lambda v=str(server.version): version(driver) == v, what="the next state")
    assert targets(driver) == []
    assert driver.execute_script("return window.__boardShift") == 0
    assert driver.execute_script("return window.__shift") < 0.01
    assert driver.execute_script(BOARD_TOP) == top


def test_the_wide_layout_on_a_desktop(browser: Any, inn: Any) -> None:
    server = inn("middle")
    driver = browser(DESKTOP)
    open_board(driver, server)
    assert view_box(driver).startswith("0 0 720 ")
    for t in targets(driver):
        assert t["w"] >= 44 and t["h"] >= 44, t
    assert small_texts(driver) == []
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


def test_no_console_errors_under_the_csp(browser: Any, inn: Any) -> None:
    server = inn("rat")
    driver = browser(PHONE)
    open_board(driver, server)
    for _ in range(4):
        if not server.game.to_act(server.estate):
            break
        server.push(server.advance())
        wait_until(lambda v=str(server.version): version(driver) == v, what="the next state")
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


# --------------------------------------------------------------------------- screenshots


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone-360", "desktop-1280"])
def test_screenshots(browser: Any, inn: Any, shots: Path, size: tuple[int, int]) -> None:
    name = f"{size[0]}x{size[1]}"
    for point in ("start", "rat", "extra", "over"):
        server = inn(point)
        driver = browser(size)
        open_board(driver, server)
        driver.switch_to.default_content()
        assert driver.save_screenshot(str(shots / f"fairy-tale-inn-{point}-{name}.png"))
