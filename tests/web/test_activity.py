"""The Activity's client in headless Chromium, framed by a fake Discord client
(tests/web/host) and talking to the test-only server of fake_server: the SDK handshake,
signing in, the table's socket, the shell, and what a phone and a desktop show."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import DESKTOP, PHONE
from tests.web.fake_server import (
    ACCESS_TOKEN,
    CHANNEL_ID,
    CLIENT_ID,
    CODE,
    FORM_TITLE,
    GUILD_ID,
    PASS_REFUSAL,
    SESSION,
    STEP_TITLE,
    FakeServer,
    wait_until,
)

# --------------------------------------------------------------------------- helpers


def by_css(driver: Any, selector: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, selector)


def all_css(driver: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def enter_activity(driver: Any) -> None:
    driver.switch_to.default_content()
    driver.switch_to.frame(wait_until(lambda: by_css(driver, "#activity"), what="the iframe"))


def open_activity(driver: Any, server: FakeServer, **params: str) -> None:
    """The fake Discord page, then into the Activity's frame."""
    driver.get(server.host_url(**params))
    enter_activity(driver)


def fake_discord(driver: Any) -> dict[str, Any]:
    """What the fake Discord host recorded (window.__fakeDiscord)."""
    driver.switch_to.default_content()
    try:
        return driver.execute_script("return window.__fakeDiscord")
    finally:
        enter_activity(driver)


def phase(driver: Any) -> str:
    return by_css(driver, "#app").get_attribute("data-phase")


def wait_phase(driver: Any, name: str, timeout: float = 15) -> None:
    wait_until(lambda: phase(driver) == name, timeout, f"the {name!r} screen")


def open_table(driver: Any, server: FakeServer, **params: str) -> None:
    open_activity(driver, server, **params)
    wait_phase(driver, "table")


def button(driver: Any, code: str) -> Any:
    return by_css(driver, f"button[data-code='{code}']")


def visible_text(driver: Any, selector: str) -> str:
    return driver.execute_script(
        "const el = document.querySelector(arguments[0]); return el ? el.innerText : ''",
        selector)


def severe_logs(driver: Any) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def without_a_board(server: FakeServer) -> None:
    """From now on the server's states are those of a game with no board of its own, so
    the facts panel (board/facts.js) shows them: the fake table is Fairy Tale Inn's, which
    has its own board (tests/web/test_board_fairy_tale_inn.py tests that)."""
    plain = server.state

    def state(lines: list[str] | None = None) -> dict[str, Any]:
        return {**plain(lines), "game": "a-game-without-a-board"}

    server.state = state  # type: ignore[method-assign]


# --------------------------------------------------------------------------- signing in


def test_handshake_signs_in_and_says_hello(browser: Any, server: FakeServer) -> None:
    driver = browser(PHONE)
    open_table(driver, server, platform="mobile")

    host = fake_discord(driver)
    assert host["problems"] == []
    handshake = host["handshake"]
    assert handshake["v"] == 1
    assert handshake["encoding"] == "json"
    assert handshake["client_id"] == CLIENT_ID
    assert handshake["frame_id"] == "frame-0001"
    assert host["ready"] is True
    commands = [c["cmd"] for c in host["commands"]]
    assert commands[:2] == ["AUTHORIZE", "AUTHENTICATE"]
    assert host["commands"][0]["args"] == {
        "client_id": CLIENT_ID, "response_type": "code", "state": "", "prompt": "none",
        "scope": ["identify"],
    }
    assert host["commands"][1]["args"] == {"access_token": ACCESS_TOKEN}

    assert [c["json"] for c in server.api_calls("/api/token")] == [{"code": CODE}]
    sessions = server.api_calls("/api/session")
    assert len(sessions) == 1
    assert sessions[0]["auth"] == f"Bearer {ACCESS_TOKEN}"
    assert sessions[0]["json"] == {"channel_id": CHANNEL_ID, "guild_id": GUILD_ID}
    assert server.messages("hello") == [
        {"type": "hello", "session": SESSION, "channel_id": CHANNEL_ID, "version": None}]
    assert by_css(driver, "html").get_attribute("data-platform") == "mobile"


def test_a_refused_sign_in_says_the_servers_words(browser: Any, server: FakeServer) -> None:
    server.token_error = "Fabletop is not allowed in this server."
    driver = browser(PHONE)
    open_activity(driver, server)
    wait_phase(driver, "problem")
    assert "Fabletop is not allowed in this server." in visible_text(driver, ".screen-problem")
    assert server.messages("hello") == []


def test_a_sign_in_closed_in_discord_says_so(browser: Any, server: FakeServer) -> None:
    driver = browser(PHONE)
    open_activity(driver, server, fail="authorize")
    wait_phase(driver, "problem")
    assert "You closed the sign-in window" in visible_text(driver, ".screen-problem")
    assert server.api_calls("/api/token") == []


def test_outside_discord_it_says_where_to_open_it(browser: Any, server: FakeServer) -> None:
    driver = browser(PHONE)
    driver.get(f"{server.origin}/")
    wait_phase(driver, "problem")
    assert "Open this from Discord" in visible_text(driver, ".screen-problem")
    assert server.api_calls("/api/config") == []


def free_port(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as aiohttp binds
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_handshake_across_origins_like_inside_discord(browser: Any, server: FakeServer) -> None:
    """The Discord client frames the Activity from another origin; the SDK accepts
    http://localhost:3333 as one (its list of Discord's origins), so the host runs there."""
    if not free_port(3333):
        pytest.skip("port 3333 (the SDK's allowed development origin) is taken")
    host = FakeServer("localhost", 3333, host_only=True).start()
    try:
        driver = browser(DESKTOP)
        url = host.host_url(activity=f"{server.origin}/").replace("127.0.0.1", "localhost")
        driver.get(url)
        enter_activity(driver)
        wait_phase(driver, "table")
        record = fake_discord(driver)
        assert record["problems"] == []
        assert [c["cmd"] for c in record["commands"]][:2] == ["AUTHORIZE", "AUTHENTICATE"]
        assert server.messages("hello")[0]["channel_id"] == CHANNEL_ID
    finally:
        host.stop()


# --------------------------------------------------------------------------- the table


def test_state_shows_seats_menus_and_facts(browser: Any, server: FakeServer) -> None:
    driver = browser(PHONE)
    open_table(driver, server)
    assert by_css(driver, ".game-name").text == "Fairy Tale Inn"
    seats = [li.get_attribute("textContent") for li in all_css(driver, ".seats .seat")]
    assert seats == ["Ada (you), to play", "Grimm (AI)"]  # "to play": for screen readers
    assert by_css(driver, ".banner").is_displayed() is False
    assert "Take a token from the Guest List" in by_css(driver, ".prompt").text
    titles = [h.text for h in all_css(driver, ".menu-title")]
    assert titles == ["Take a guest from the Guest List", "Or"]
    labels = [b.get_attribute("aria-label") for b in all_css(driver, ".menus button.choice")]
    assert labels == ["Little Red Riding Hood · 2 gold", "Little Red Riding Hood · 1 gold",
                      "Little Red Riding Hood · free", "Jack · free", "Pass",
                      "Name your inn", "Look at the rules"]
    assert button(driver, "rules").get_attribute("disabled") is not None
    # The facts board: a definition list of the view, and the per-seat lists seat by seat.
    without_a_board(server)
    server.push(server.state())
    wait_until(lambda: all_css(driver, ".facts-list > .fact"), what="the facts panel")
    terms = [dt.text for dt in all_css(driver, ".facts-list > .fact > dt")]
    assert "Bag count" in terms and "Guest list" in terms and "Phase" in terms
    assert "Seat" not in terms and "Prompt" not in terms
    rows = [tr.text for tr in all_css(driver, ".facts-table tbody tr")]
    assert rows[0].startswith("Ada") and rows[1].startswith("Grimm")
    heads = [th.text for th in all_css(driver, ".facts-table thead th")]
    assert heads[:2] == ["Seat", "Gold"]
    to_act = by_css(driver, ".fact[data-key='to_act'] dd").text
    assert to_act == "Ada"
    # A state sent on hello has no news lines; each commit's are added once.
    assert all_css(driver, ".news-lines li") == []
    assert by_css(driver, ".no-news").is_displayed()
    server.push(server.commit("Grimm (AI) took Jack.", "Grimm (AI) dropped Jack into column 2."))
    wait_until(lambda: len(all_css(driver, ".news-lines li")) == 2, what="two news lines")
    server.push(server.state())  # the same version again (a resync): nothing added
    server.push(server.commit("Ada's turn."))
    wait_until(lambda: len(all_css(driver, ".news-lines li")) == 3, what="three news lines")
    assert [li.text for li in all_css(driver, ".news-lines li")] == server.news
    assert by_css(driver, ".news-lines").get_attribute("aria-live") == "polite"


def test_a_click_sends_choose_with_the_version_and_code(browser: Any,
                                                          server: FakeServer) -> None:
    driver = browser(PHONE)
    open_table(driver, server)
    button(driver, "slot4").click()
    chosen = wait_until(lambda: server.messages("choose"), what="a choose")
    assert chosen[0]["code"] == "slot4"
    assert chosen[0]["version"] == 7
    assert isinstance(chosen[0]["id"], int)


def test_a_refusal_shows_its_words_by_the_choice(browser: Any, server: FakeServer) -> None:
    driver = browser(PHONE)
    open_table(driver, server)
    button(driver, "pass").click()
    menu = driver.execute_script(
        "return document.querySelector(\"button[data-code='pass']\").closest('.menu')")
    wait_until(lambda: PASS_REFUSAL in menu.find_element("css selector", ".refusal").text,
               what="the refusal by the Pass button")
    # The other menu's slot stays empty.
    assert all_css(driver, ".menu .refusal")[0].text == ""


def test_a_guided_step_shows_its_menu_and_takes_back(browser: Any,
                                                      server: FakeServer) -> None:
    driver = browser(PHONE)
    open_table(driver, server)
    button(driver, "slot4").click()
    wait_until(lambda: by_css(driver, ".step").is_displayed(), what="the step menu")
    assert by_css(driver, "#step-h").text == STEP_TITLE
    labels = [b.text for b in all_css(driver, ".step button.choice")]
    assert labels == [f"Column {c}" for c in range(1, 8)] + ["Take back"]
    assert button(driver, "col4").get_attribute("disabled") is not None
    assert by_css(driver, ".moment").is_displayed() is False
    # The keyboard is on the step's first choice.
    assert driver.switch_to.active_element.get_attribute("data-code") == "col1"

    button(driver, "back").click()
    wait_until(lambda: not by_css(driver, ".step").is_displayed(), what="the step to close")
    assert by_css(driver, ".moment").is_displayed()
    assert [m["code"] for m in server.messages("choose")] == ["slot4", "back"]

    button(driver, "slot1").click()
    wait_until(lambda: by_css(driver, ".step").is_displayed(), what="the step again")
    button(driver, "col3").click()
    wait_until(lambda: by_css(driver, "#app").get_attribute("data-version") == "8",
               what="the next version")
    assert not by_css(driver, ".step").is_displayed()
    last = server.messages("choose")[-1]
    assert last["code"] == "col3" and last["version"] == 7
    assert all_css(driver, ".news-lines li")[-1].text == "Ada dropped Jack into column 3."


def test_a_form_sends_the_words_with_its_code(browser: Any, server: FakeServer) -> None:
    driver = browser(PHONE)
    open_table(driver, server)
    button(driver, "name").click()
    wait_until(lambda: by_css(driver, ".form-panel").is_displayed(), what="the form")
    assert by_css(driver, "#form-h").text == FORM_TITLE
    assert driver.switch_to.active_element.get_attribute("id") == "form-text"
    driver.switch_to.active_element.send_keys("The Sleepy Dragon")
    by_css(driver, ".form-panel button[type='submit']").click()
    wait_until(lambda: by_css(driver, "#app").get_attribute("data-version") == "8",
               what="the next version")
    sent = server.messages("choose")
    assert [m["code"] for m in sent] == ["name", "name"]
    assert "text" not in sent[0]
    assert sent[1]["text"] == "The Sleepy Dragon" and sent[1]["version"] == 7
    assert sent[1]["id"] != sent[0]["id"]
    assert not by_css(driver, ".form-panel").is_displayed()
    assert by_css(driver, ".moment").is_displayed()
    assert all_css(driver, ".news-lines li")[-1].text == "Ada named the inn “The Sleepy Dragon”."


def test_a_dropped_socket_reconnects_with_the_last_version(browser: Any,
                                                            server: FakeServer) -> None:
    driver = browser(PHONE)
    open_table(driver, server)
    server.version = 11
    server.push(server.commit("Grimm (AI) took a Princess."))
    wait_until(lambda: by_css(driver, "#app").get_attribute("data-version") == "12",
               what="version 12")
    server.drop()
    wait_until(lambda: len(server.messages("hello")) == 2, what="a second hello")
    assert server.messages("hello")[1] == {
        "type": "hello", "session": SESSION, "channel_id": CHANNEL_ID, "version": 12}
    wait_until(lambda: by_css(driver, ".conn").get_attribute("data-status") == "live",
               what="live again")
    # A choice after the reconnect goes out on the new socket.
    button(driver, "pass").click()
    wait_until(lambda: server.messages("choose"), what="a choose after the reconnect")


def test_a_refused_session_is_renewed_once(browser: Any, server: FakeServer) -> None:
    """bot/web closes a socket whose session it does not take with code 4403: the client
    opens a fresh session and says hello again, keeping the version it shows."""
    driver = browser(PHONE)
    open_table(driver, server)
    server.revoke()
    server.drop()
    wait_until(lambda: len(server.messages("hello")) == 3, what="a hello with a new session")
    hellos = server.messages("hello")
    assert [h["session"] for h in hellos] == ["session-1", "session-1", "session-2"]
    assert hellos[2]["version"] == 7
    assert server.api_calls("/api/session")[1]["auth"] == f"Bearer {ACCESS_TOKEN}"
    wait_until(lambda: by_css(driver, ".conn").get_attribute("data-status") == "live",
               what="live again")

    # Refused again after a renewal: it stops, says why, and ↻ tries again.
    server.renew_sessions = False
    server.revoke()
    server.drop()
    wait_until(lambda: by_css(driver, "#app").get_attribute("data-conn") == "stopped",
               what="the socket to stop")
    assert "Your session has ended." in by_css(driver, ".conn").text
    count = len(server.messages("hello"))
    server.renew_sessions = True  # ↻: refused once more, then a fresh session is taken
    by_css(driver, ".icon-btn").click()
    wait_until(lambda: by_css(driver, ".conn").get_attribute("data-status") == "live",
               what="live after the refresh")
    assert len(server.messages("hello")) > count


def test_an_older_state_does_not_replace_a_newer_one(browser: Any, server: FakeServer) -> None:
    without_a_board(server)
    driver = browser(PHONE)
    open_table(driver, server)
    newer = server.state()
    newer["version"] = 9
    newer["view"]["bag_count"] = 20
    server.push(newer)
    wait_until(lambda: by_css(driver, "#app").get_attribute("data-version") == "9",
               what="version 9")
    older = server.state()
    older["version"] = 8
    older["view"]["bag_count"] = 99
    server.push(older)
    server.push({"type": "refused", "id": 999, "text": "marker"})  # arrives after it
    wait_until(lambda: "marker" in visible_text(driver, ".moment"), what="the marker")
    assert by_css(driver, "#app").get_attribute("data-version") == "9"
    assert by_css(driver, ".fact[data-key='bag_count'] dd").text == "20"


def test_no_table_shows_the_servers_words(browser: Any, server: FakeServer) -> None:
    server.no_table = "There is no table in this channel yet.\nStart one with /table new."
    driver = browser(PHONE)
    open_activity(driver, server)
    wait_phase(driver, "no-table")
    text = visible_text(driver, ".screen-no-table")
    assert "No table here yet" in text
    assert "Start one with /table new." in text
    # Once a table opens, "Check again" shows it.
    server.no_table = None
    by_css(driver, ".screen-no-table button").click()
    wait_phase(driver, "table")
    assert server.messages("resync")


def test_a_spectator_sees_the_banner_and_no_choices(browser: Any, server: FakeServer) -> None:
    server.seat = None
    driver = browser(PHONE)
    open_table(driver, server)
    assert by_css(driver, ".banner").is_displayed()
    assert "watching" in by_css(driver, ".banner").text
    assert all_css(driver, ".menus button") == []
    assert by_css(driver, ".idle").is_displayed()
    assert [li.get_attribute("textContent") for li in all_css(driver, ".seats .seat")] == [
        "Ada, to play", "Grimm (AI)"]


# --------------------------------------------------------------------------- the page itself


def test_no_console_errors_under_the_servers_csp(browser: Any, server: FakeServer) -> None:
    driver = browser(PHONE)
    open_table(driver, server)
    button(driver, "slot1").click()
    wait_until(lambda: by_css(driver, ".step").is_displayed(), what="the step")
    button(driver, "col2").click()
    wait_until(lambda: by_css(driver, "#app").get_attribute("data-version") == "8",
               what="version 8")
    driver.switch_to.default_content()
    errors = severe_logs(driver)
    assert errors == [], errors
    record = fake_discord(driver)
    assert [m for m in record["logs"] if m["level"] == "error"] == []
    # The CSP really was there: an inline script is refused.
    blocked = driver.execute_script("""
        const s = document.createElement('script');
        s.textContent = 'window.__inline = 1';
        document.head.append(s);
        return window.__inline === undefined;""")
    assert blocked


def test_touch_targets_are_44_px_and_labelled(browser: Any, server: FakeServer) -> None:
    driver = browser(PHONE)
    open_table(driver, server)
    sizes = driver.execute_script("""
        return [...document.querySelectorAll('button')]
          .filter((b) => b.offsetParent !== null)
          .map((b) => { const r = b.getBoundingClientRect();
                        const name = b.getAttribute('aria-label') || b.innerText.trim();
                        return [name, r.width, r.height]; });""")
    assert len(sizes) >= 7
    for label, width, height in sizes:
        assert label, "a button without a name"
        assert width >= 44 and height >= 44, (label, width, height)
    # Nothing wider than the phone.
    assert driver.execute_script(
        "return document.documentElement.scrollWidth <= window.innerWidth")


def test_an_update_moves_nothing_on_the_page(browser: Any, server: FakeServer) -> None:
    without_a_board(server)
    driver = browser(PHONE)
    open_table(driver, server)
    driver.execute_script("""
        window.__shift = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
        }).observe({type: 'layout-shift', buffered: false});""")
    where = ("return document.querySelector(\"button[data-code='slot1']\")"
             ".getBoundingClientRect().top + window.scrollY")
    before = driver.execute_script(where)
    button(driver, "pass").click()  # a refusal: its words fill the reserved line
    wait_until(lambda: PASS_REFUSAL in visible_text(driver, ".moment"), what="the refusal")
    newer = server.state()
    newer["version"] = 8
    newer["view"]["gold"] = [3, 1]
    newer["view"]["bag_count"] = 27
    server.push(newer)
    wait_until(lambda: by_css(driver, "#app").get_attribute("data-version") == "8",
               what="version 8")
    after = driver.execute_script(where)
    assert after == before
    shift = driver.execute_script("return window.__shift")
    assert shift < 0.01, shift
    # The same buttons, updated in place.
    assert by_css(driver, ".fact[data-key='bag_count'] dd").text == "27"


def test_reduced_motion_stops_the_animations(browser: Any, server: FakeServer) -> None:
    script = """
        const el = document.createElement('div'); el.className = 'spinner';
        document.body.append(el);
        const name = getComputedStyle(el).animationName; el.remove(); return name;"""
    still = browser(PHONE, reduced_motion=True)
    open_table(still, server)
    assert still.execute_script(script) == "none"
    moving = browser(PHONE)
    open_table(moving, server)
    assert moving.execute_script(script) == "spin"


# --------------------------------------------------------------------------- screenshots


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone-360", "desktop-1280"])
def test_screenshots(browser: Any, server: FakeServer, shots: Path,
                     size: tuple[int, int]) -> None:
    driver = browser(size)
    open_table(driver, server, platform="mobile" if size == PHONE else "desktop")
    server.push(server.commit("Grimm (AI) took Little Red Riding Hood for 1 gold.",
                              "Grimm (AI) dropped her into column 4: +1 gold room."))
    wait_until(lambda: len(all_css(driver, ".news-lines li")) == 2, what="the news")
    name = f"{size[0]}x{size[1]}"
    driver.switch_to.default_content()
    assert driver.save_screenshot(str(shots / f"table-{name}.png"))
    enter_activity(driver)
    button(driver, "pass").click()
    wait_until(lambda: PASS_REFUSAL in visible_text(driver, ".moment"), what="the refusal")
    driver.switch_to.default_content()
    assert driver.save_screenshot(str(shots / f"refused-{name}.png"))
    enter_activity(driver)
    button(driver, "slot4").click()
    wait_until(lambda: by_css(driver, ".step").is_displayed(), what="the step")
    driver.switch_to.default_content()
    assert driver.save_screenshot(str(shots / f"step-{name}.png"))
    enter_activity(driver)
    assert driver.execute_script("return window.innerWidth") == size[0]


def test_the_seat_chips_stay_put_when_the_turn_passes(browser: Any, server: FakeServer) -> None:
    """The turn marker's room is kept on every seat's chip: when the turn passes, no chip
    moves (it used to push the names along by the marker's width)."""
    driver = browser(PHONE)
    open_table(driver, server)
    where = """return [...document.querySelectorAll('.seat')].map((li) => {
        const r = li.querySelector('.seat-name').getBoundingClientRect();
        return [li.className.includes('seat-turn'), Math.round(r.left), Math.round(r.top)];
    });"""
    before = driver.execute_script(where)
    assert [turn for turn, _x, _y in before].count(True) == 1
    passed = server.state()
    passed["version"] = server.version + 1
    passed["view"]["to_act"] = 1 - int(server.view["to_act"])  # the Inn's view: one seat
    server.push(passed)
    wait_until(lambda: by_css(driver, "#app").get_attribute("data-version")
               == str(passed["version"]), what="the new version")
    after = driver.execute_script(where)
    assert [t for t, _x, _y in after] != [t for t, _x, _y in before]  # the turn passed
    assert [(x, y) for _t, x, y in after] == [(x, y) for _t, x, y in before]
