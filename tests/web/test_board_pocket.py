"""The Fairy Tale in My Pocket board (bot/web/client/src/board/pocket.js) in headless
Chromium, fed REAL states: a seeded game played by the engine's careful AI, each point's
``state`` message built by bot.web.states.state_message from a real Outbox (the menus by
the game's choice adapter, as the server does). Every legal choice with a place on the
board is a labelled, focusable touch target of 44 px or more that sends its own code;
no text is under 9 px at 400 px wide; an update moves nothing; a spectator gets no
targets; no console errors under the CSP; screenshots in /tmp/activity-shots/pocket-*."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import DESKTOP, PHONE
from tests.web.fake_server import FakeServer, wait_until
from tests.web.test_activity import all_css, by_css, enter_activity, open_table, severe_logs

SEED = 3
USERS = {0: 101, 1: 102}
NAMES = {0: "Ada", 1: "Bo"}
POINTS = ("start", "place", "villain", "peddler")
"""The points of the seeded game the tests look at: the first choice of places to go
(start), a new tile to put on a side (place), a villain with ways to run (middle) and a
peddler with the discard pile for sale (late)."""


# --------------------------------------------------------------------------- real states


def _message(game: Any, state: Any, version: int, viewer: int | None) -> dict[str, Any]:
    """The state message the server sends ``viewer`` (None: a spectator)."""
    from bot.core.tables.models import Outbox, SeatInfo, SeatNews, TableInfo, TableStatus
    from bot.web.states import state_message

    to_act = tuple(game.to_act(state))
    info = TableInfo(
        id="17", channel_id=300000000000000003, guild_id=200000000000000002, game_id="pocket",
        game_name="Fairy Tale in My Pocket", options={"special": "boots"}, seed=SEED,
        status=TableStatus.PLAYING, host_id=USERS[0],
        seats=tuple(SeatInfo(index=i, name=NAMES[i], user_id=USERS[i]) for i in (0, 1)),
        version=version, min_players=1, max_players=4, reminder_minutes=0.0, to_act=to_act)
    news = tuple(SeatNews(seat=i, user_id=USERS[i], view=game.view(state, i),
                          legal=tuple(game.legal_actions(state, i)) if i in to_act else ())
                 for i in (0, 1))
    outbox = Outbox(table=info, public_view=game.view(state, None), seats=news)
    return state_message(outbox, viewer, with_lines=False)


@cache
def points() -> dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """Per point: (the message of the seat to act, the same for a spectator, the message
    of the next state of the game, for the seat that acted)."""
    from engines import get_game
    from engines.agents import get_agent
    from engines.core import Rng

    game = get_game("pocket")
    state = game.setup(2, game.Options(special="boots"), SEED)
    rng = Rng.from_seed(5)
    agent = get_agent("pocket", "careful")
    found: dict[str, Any] = {}
    wanted = {"start": "move", "place": "place", "villain": "villain", "peddler": "peddler"}
    for step in range(300):
        if game.is_over(state) or len(found) == len(wanted):
            break
        seat = game.to_act(state)[0]
        view = game.view(state, seat)
        kind = view.decision.kind
        legal = game.legal_actions(state, seat)
        for name, stage in wanted.items():
            if name in found or kind != stage:
                continue
            if name == "start" and len(legal) < 2:
                continue
            if name == "villain" and not any(getattr(a, "boots", False) for a in legal):
                continue
            mine = _message(game, state, 40 + step, seat)
            public = _message(game, state, 40 + step, None)
            nxt = game.copy_state(state)
            game.apply(nxt, seat, agent.choose(game, nxt, seat, Rng.from_seed(9)))
            later = _message(game, nxt, 41 + step, seat)
            found[name] = (mine, public, later)
        game.apply(state, seat, agent.choose(game, state, seat, rng))
    assert set(found) == set(wanted), f"the seeded game has no {set(wanted) - set(found)}"
    return found


@cache
def whole_game(special: str, seed: int) -> tuple[dict[str, Any], ...]:
    """Every state of a seeded game played by the careful AI with this gift, as the seat
    to act gets it (and the end, as the public sees it)."""
    from engines import get_game
    from engines.agents import get_agent
    from engines.core import Rng

    game = get_game("pocket")
    state = game.setup(2, game.Options(special=special), seed)
    rng = Rng.from_seed(seed)
    agent = get_agent("pocket", "careful")
    out = []
    for step in range(200):
        if game.is_over(state):
            break
        seat = game.to_act(state)[0]
        out.append(_message(game, state, 100 + step, seat))
        game.apply(state, seat, agent.choose(game, state, seat, rng))
    out.append(_message(game, state, 100 + len(out), None))
    return tuple(out)


def expected_places(msg: dict[str, Any]) -> dict[str, list[str]]:
    """Each code of the moment that has a place on the board → what stands for it (the
    same rules as the board's comment; codes without a place are absent)."""
    view = msg["view"]
    codes = [c["code"] for m in msg["menus"] for c in m["choices"] if not c["disabled"]]
    here = next(t for t in view["map"] if t["id"] == view["pawn"])
    items = {i["id"] for i in view["items"]}
    discard = {c["item"] for c in view["discard"]}
    places: dict[str, list[str]] = {}
    tiles = {t["id"] for t in view["map"]}
    for code in codes:
        head, _, rest = code.partition(".")
        if head in ("g", "gb", "w", "r", "rb", "to") and rest in tiles:
            places[code] = [f"tile:{rest}"]
        elif code == "st":
            places[code] = [f"tile:{view['pawn']}"]
        elif code in ("pn", "pe", "ps", "pw"):
            places[code] = [f"ghost:{code[1]}"]
        elif code == "x":
            places[code] = [f"stack:{here['stack']}"]
        elif (code == "xm" and view["special"] == "mirror") or (
                code == "fw" and view["special"] == "wand"):
            places[code] = ["special"]
        elif head in ("f", "fl", "d") and rest in items:
            places[code] = [f"item:{rest}"]
        elif code in ("f", "dh"):
            places[code] = ["card"]
        elif head in ("s", "b") and rest in discard:
            places[code] = [f"discard:{i}" for i, c in enumerate(view["discard"])
                            if c["item"] == rest]
        elif head == "t":
            places[code] = [f"code:{code}"]  # the Mirror's tiles, in the tray
    return places


def labels(msg: dict[str, Any]) -> dict[str, str]:
    return {c["code"]: c["label"] for m in msg["menus"] for c in m["choices"]}


# --------------------------------------------------------------------------- the server


class PocketServer(FakeServer):
    """The fake server playing one real Pocket message; a choose is answered with the
    same state again (so the shell's choice is done and the next touch is sent)."""

    def __init__(self, msg: dict[str, Any], **kw: Any) -> None:
        super().__init__(**kw)
        self.msg = copy.deepcopy(msg)
        self.version = msg["version"]
        self.seat = msg["seat"]
        self.view = msg["view"]
        self.menus = msg["menus"]
        self.on_choose = lambda _msg: [self.state()]

    def state(self, lines: list[str] | None = None) -> dict[str, Any]:
        out = copy.deepcopy(self.msg)
        out["version"] = self.version
        out["lines"] = list(lines or [])
        return out

    def show(self, msg: dict[str, Any], *lines: str) -> None:
        """A new commit: ``msg`` becomes the state every viewer is sent."""
        self.msg = copy.deepcopy(msg)
        self.version = msg["version"]
        self.push(self.state(list(lines)))


def open_board(browser: Any, msg: dict[str, Any], size: tuple[int, int] = PHONE
               ) -> tuple[Any, PocketServer]:
    server = PocketServer(msg).start()
    driver = browser(size)
    try:
        open_table(driver, server)
        wait_until(lambda: by_css(driver, "svg.pocket-board"), what="the Pocket board")
    except BaseException:
        server.stop()
        raise
    return driver, server


@pytest.fixture
def started() -> list[FakeServer]:
    servers: list[FakeServer] = []
    yield servers
    for srv in servers:
        srv.stop()


TARGETS_JS = """
    return [...document.querySelectorAll('svg.pocket-board [role="button"]')].map((g) => {
      const r = g.getBoundingClientRect();
      return {thing: g.dataset.thing || '', code: g.getAttribute('data-code'),
              codes: g.getAttribute('data-codes'), label: g.getAttribute('aria-label'),
              tabindex: g.getAttribute('tabindex'), w: r.width, h: r.height};
    });"""


def targets(driver: Any) -> list[dict[str, Any]]:
    return driver.execute_script(TARGETS_JS)


def thing(driver: Any, key: str) -> Any:
    return by_css(driver, f"svg.pocket-board [data-thing='{key}']")


def tap(driver: Any, el: Any) -> None:
    """A real click at the element's middle (what a touch does)."""
    from selenium.webdriver.common.action_chains import ActionChains

    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    ActionChains(driver).move_to_element(el).click().perform()


def press_enter(driver: Any, el: Any, key: str = "enter") -> None:
    """Focus ``el`` and press Enter (or Space) on it."""
    from selenium.webdriver.common.keys import Keys

    driver.execute_script("arguments[0].focus()", el)
    assert driver.switch_to.active_element == el
    el.send_keys(Keys.ENTER if key == "enter" else Keys.SPACE)


def wait_sent(server: FakeServer, count: int) -> None:
    wait_until(lambda: len(server.messages("choose")) == count, what=f"choose number {count}")


def sent_codes(server: FakeServer) -> list[tuple[str, int]]:
    return [(m["code"], m["version"]) for m in server.messages("choose")]


# --------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("point", POINTS)
def test_every_choice_on_the_board_is_a_target_that_sends_its_code(
        browser: Any, started: list[FakeServer], point: str) -> None:
    msg, _public, _later = points()[point]
    places = expected_places(msg)
    assert places, f"no choice of {point} has a place on the board"
    words = labels(msg)
    driver, server = open_board(browser, msg)
    started.append(server)
    view = msg["view"]

    # The board: one tile per tile on the map, the placing squares, the item slots.
    tiles = all_css(driver, "svg.pocket-board [data-key^='tile:']")
    assert len(tiles) == len(view["map"])
    ghosts = all_css(driver, "svg.pocket-board [data-key^='ghost:']")
    assert len(ghosts) == sum(1 for c in places if c in ("pn", "pe", "ps", "pw"))
    assert len(all_css(driver, "svg.pocket-board [data-key^='slot:']")) == 6
    assert len(all_css(driver, "svg.pocket-board [data-key^='discard:']")) == min(8, len(
        view["discard"]))
    assert by_css(driver, "#board").get_attribute("data-board") == "game:pocket"
    # A group with a name (an image's parts would be hidden from a screen reader).
    root = by_css(driver, "svg.pocket-board")
    assert root.get_attribute("role") == "group"
    assert "Fairy Tale in My Pocket" in by_css(driver, "svg.pocket-board > title").get_attribute(
        "textContent")

    shown = targets(driver)
    by_thing = {t["thing"]: t for t in shown}
    for t in shown:
        assert t["label"], t
        assert t["tabindex"] == "0", t
        assert t["w"] >= 44 and t["h"] >= 44, t
    # Nothing is a target that is not a choice of the moment.
    open_codes = set(words)
    for t in shown:
        for code in (t["code"] or t["codes"]).split():
            assert code in open_codes, t

    version = msg["version"]
    expected_sent: list[tuple[str, int]] = []
    for code, where in places.items():
        for key in where:
            assert key in by_thing, (code, key, sorted(by_thing))
            t = by_thing[key]
            if t["code"] is not None:
                assert t["code"] == code and t["label"] == words[code], (code, t)
                continue
            # a thing of several choices: it names them, and opens them in the tray
            assert code in t["codes"].split(), (code, t)
            assert words[code] in t["label"]

    # Tap each one-choice target, and press Enter on it: both send its code.
    singles = [t for t in shown if t["code"] is not None]
    for k, t in enumerate(singles):
        el = thing(driver, t["thing"])
        if k % 3 == 0:
            tap(driver, el)
        else:
            press_enter(driver, el, "enter" if k % 3 == 1 else "space")
        expected_sent.append((t["code"], version))
        wait_sent(server, len(expected_sent))
        assert sent_codes(server) == expected_sent

    # A thing of several choices: a touch opens them in the tray (Cancel closes it), and
    # each of them there sends its code (by a touch and by Enter).
    multis = [t for t in shown if t["codes"]]
    for t in multis:
        tap(driver, thing(driver, t["thing"]))
        wait_until(lambda: all_css(driver, "svg.pocket-board [data-key='tray'] [role='button']"),
                   what="the tray's choices")
        tray = [x for x in targets(driver)
                if x["thing"].startswith("code:") or x["label"] == "Cancel"]
        assert [x["code"] for x in tray] == [*t["codes"].split(), None]
        assert tray[-1]["label"] == "Cancel"
        for x in tray:
            assert x["w"] >= 44 and x["h"] >= 44, x
        for x in tray[:-1]:
            assert x["label"] == words[x["code"]]
        # Cancel: the tray empties, the thing has the keyboard again.
        press_enter(driver, thing(driver, "cancel"))
        wait_until(lambda: not all_css(driver, "svg.pocket-board [data-thing='cancel']"),
                   what="the tray to close")
        assert driver.switch_to.active_element.get_attribute("data-thing") == t["thing"]
        for k, code in enumerate(t["codes"].split()):
            if not all_css(driver, f"svg.pocket-board [data-thing='code:{code}']"):
                press_enter(driver, thing(driver, t["thing"]))  # Enter opens it too
            assert thing(driver, t["thing"]).get_attribute("aria-expanded") == "true"
            el = wait_until(lambda c=code: thing(driver, f"code:{c}"), what=f"the tray's {code}")
            if k % 2 == 0:
                tap(driver, el)
            else:
                press_enter(driver, el)
            expected_sent.append((code, version))
            wait_sent(server, len(expected_sent))
            assert sent_codes(server) == expected_sent
    # The shell's buttons are still there, every one of them.
    assert len(all_css(driver, ".menus button.choice")) == len(words)

    driver.switch_to.default_content()
    assert severe_logs(driver) == []


@pytest.mark.parametrize("size", [(360, 780), (400, 800)], ids=["360", "400"])
def test_no_text_under_9_px(browser: Any, started: list[FakeServer],
                            size: tuple[int, int]) -> None:
    for point in POINTS:
        msg, _public, _later = points()[point]
        driver, server = open_board(browser, msg, size)
        started.append(server)
        small = driver.execute_script("""
            return [...document.querySelectorAll('svg.pocket-board text')]
              .filter((t) => t.textContent.trim())
              .map((t) => [t.textContent, t.getBoundingClientRect().height,
                           parseFloat(getComputedStyle(t).fontSize)
                             * t.getScreenCTM().a])
              .filter(([, h, px]) => h < 9 || px < 9);""")
        assert small == [], (point, small[:10])
        count = driver.execute_script(
            "return document.querySelectorAll('svg.pocket-board text').length")
        assert count > 30
        # The board fits the phone's width: nothing to scroll sideways.
        assert driver.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth")


def test_an_update_moves_nothing_and_keeps_the_elements(browser: Any,
                                                        started: list[FakeServer]) -> None:
    msg, _public, later = points()["villain"]
    driver, server = open_board(browser, msg)
    started.append(server)
    driver.execute_script("""
        window.__shift = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
        }).observe({type: 'layout-shift', buffered: false});
        const svg = document.querySelector('svg.pocket-board');
        window.__svg = svg;
        window.__tile = svg.querySelector("[data-key^='tile:']");
        window.__height = svg.getBoundingClientRect().height;
        window.__moment = document.querySelector('.moment').getBoundingClientRect().top;""")
    # The next real state (the villain is fought or fled: the map is the same shape)...
    assert len(later["view"]["map"]) == len(msg["view"]["map"])
    server.show(later, "Ada fought the villain.")
    wait_until(lambda: by_css(driver, "#app").get_attribute("data-version")
               == str(later["version"]), what="the next version")
    # ...then a newer version of it with less health.
    newer = copy.deepcopy(later)
    newer["version"] += 1
    newer["view"]["health"] = max(0, newer["view"]["health"] - 1)
    server.show(newer)
    wait_until(lambda: by_css(driver, "#app").get_attribute("data-version")
               == str(newer["version"]), what="the newer version")
    same = driver.execute_script("""
        const svg = document.querySelector('svg.pocket-board');
        return [svg === window.__svg, svg.contains(window.__tile),
                svg.getBoundingClientRect().height - window.__height,
                document.querySelector('.moment').getBoundingClientRect().top - window.__moment,
                window.__shift];""")
    assert same[:2] == [True, True], same
    assert same[2] == 0 and same[3] == 0, same
    assert same[4] < 0.001, same
    health = f"{newer['view']['health']}/{newer['view']['max_health']}"
    assert health in by_css(driver, "svg.pocket-board [data-key='status']").get_attribute(
        "textContent")


def test_a_spectator_sees_the_board_and_no_targets(browser: Any,
                                                   started: list[FakeServer]) -> None:
    for point in ("start", "peddler"):
        mine, public, _later = points()[point]
        assert public["seat"] is None and public["menus"] == []
        # The game is played open: the public view is the seat's, but for whose it is.
        assert {k: v for k, v in public["view"].items() if k != "seat"} == {
            k: v for k, v in mine["view"].items() if k != "seat"}
        driver, server = open_board(browser, public)
        started.append(server)
        assert by_css(driver, ".banner").is_displayed()
        assert targets(driver) == []
        assert all_css(driver, "svg.pocket-board .pk-hit") == []
        assert len(all_css(driver, "svg.pocket-board [data-key^='tile:']")) == len(
            public["view"]["map"])
        assert "Nothing to tap" in by_css(
            driver, "svg.pocket-board [data-key='tray']").get_attribute("textContent")
        driver.switch_to.default_content()
        assert severe_logs(driver) == []


def test_no_console_errors_under_the_csp(browser: Any, started: list[FakeServer]) -> None:
    msg, _public, later = points()["place"]
    driver, server = open_board(browser, msg)
    started.append(server)
    tap(driver, thing(driver, next(iter(expected_places(msg).values()))[0]))
    wait_until(lambda: server.messages("choose"), what="a choose")
    server.show(later)
    wait_until(lambda: by_css(driver, "#app").get_attribute("data-version")
               == str(later["version"]), what="the next version")
    driver.switch_to.default_content()
    assert severe_logs(driver) == []
    enter_activity(driver)
    blocked = driver.execute_script("""
        const s = document.createElement('script');
        s.textContent = 'window.__inline = 1';
        document.head.append(s);
        return window.__inline === undefined;""")
    assert blocked
    # No inline style anywhere on the board (the CSP refuses them).
    assert all_css(driver, "#board [style]") == []


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["360x780", "1280x800"])
def test_screenshots(browser: Any, started: list[FakeServer], shots: Path,
                     size: tuple[int, int]) -> None:
    mirror = next(m for m in whole_game("mirror", 4)
                  if m["menus"] and m["view"]["decision"]["kind"] == "mirror")
    shown = [(point, points()[point][0]) for point in POINTS] + [("mirror", mirror)]
    for point, msg in shown:
        driver, server = open_board(browser, msg, size)
        started.append(server)
        name = f"{size[0]}x{size[1]}"
        # the whole board, as tall as it is (the page is scrolled down it on a phone)
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.switch_to.default_content()
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": size[0], "height": max(size[1], int(height) + 20),
            "deviceScaleFactor": 1, "mobile": size[0] < 600})
        assert driver.save_screenshot(str(shots / f"pocket-{point}-{name}.png"))
        enter_activity(driver)
        multis = [t for t in targets(driver) if t["codes"]]
        if multis:
            tap(driver, thing(driver, multis[0]["thing"]))
            wait_until(lambda d=driver: all_css(d, "svg.pocket-board [data-thing='cancel']"),
                       what="the tray")
            driver.switch_to.default_content()
            assert driver.save_screenshot(str(shots / f"pocket-{point}-tray-{name}.png"))
            enter_activity(driver)
        assert driver.execute_script("return window.innerWidth") == size[0]


WHOLE_JS = """
    const out = {};
    for (const g of document.querySelectorAll('svg.pocket-board [role="button"]')) {
      const r = g.getBoundingClientRect();
      const codes = (g.getAttribute('data-code') || g.getAttribute('data-codes') || '')
        .split(' ');
      for (const c of codes) {
        if (c) (out[c] = out[c] || []).push([g.dataset.thing, r.width, r.height]);
      }
    }
    return out;"""


@pytest.mark.parametrize(("special", "seed"), [("mirror", 4), ("wand", 8), ("boots", 21)])
def test_a_whole_seeded_game_draws_every_choice(browser: Any, started: list[FakeServer],
                                                special: str, seed: int) -> None:
    """Every state of a real game, one after the other on one page: each choice with a
    place on the board is a target there, 44 px or more, and nothing else is."""
    game = whole_game(special, seed)
    driver, server = open_board(browser, game[0])
    started.append(server)
    kinds = set()
    for msg in game[1:]:
        server.show(msg)
        wait_until(lambda m=msg: by_css(driver, "#app").get_attribute("data-version")
                   == str(m["version"]), what=f"version {msg['version']}")
        if msg["view"]["decision"]:
            kinds.add(msg["view"]["decision"]["kind"])
        places = expected_places(msg) if msg["menus"] else {}
        shown = driver.execute_script(WHOLE_JS)
        assert set(shown) == set(places), (msg["view"]["decision"], sorted(shown), places)
        for code, where in places.items():
            assert sorted(w[0] for w in shown[code]) == sorted(where), (code, shown[code])
            for _key, width, height in shown[code]:
                assert width >= 44 and height >= 44, (code, width, height)
        assert len(all_css(driver, "svg.pocket-board [data-key^='tile:']")) == len(
            msg["view"]["map"])
    assert len(kinds) >= 5, kinds
    assert "Nothing to tap" in by_css(
        driver, "svg.pocket-board [data-key='tray']").get_attribute("textContent")
    driver.switch_to.default_content()
    assert severe_logs(driver) == []
