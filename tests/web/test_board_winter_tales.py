"""Winter Tales' SVG board in the Activity (bot/web/client/src/board/winter-tales.js), in
headless Chromium, fed REAL states: a seeded game played by the engine, each moment's
``state`` message built by bot/web/states.py's ``state_message`` from a real Outbox (the
seat's own view and legal actions, the menus of the choice adapter), served by a
FakeServer that plays that one message."""

from __future__ import annotations

import copy
import json
import random
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import DESKTOP, PHONE
from tests.web.fake_server import FakeServer, wait_until
from tests.web.test_activity import all_css, by_css, enter_activity, open_table, severe_logs

GAME = "winter-tales"
PLAYERS = 3
SEED = 11
NAMES = ("Ada", "Grimm", "Hans")
DATA_JS = (Path(__file__).resolve().parents[2] / "bot" / "web" / "client" / "src" / "board"
           / "winter-tales-data.js")
WIDE = (400, 800)

PLACED_KINDS = frozenset({
    "choose_character", "place_quest", "activate", "move", "generate_quest", "start_quest",
    "save", "discard", "play_card", "use_artefact", "free_round", "battle", "trap",
    "hide_card", "relocate", "step_in", "choose_memory", "assign_power", "pass_artefact",
    "return_tale", "complete_objective", "move_bookmark",
})
"""Actions that stand for something on the board (the rest stay buttons: Tell, Done,
Pass, Take part, the Objective's Attack and Swap...)."""
GROUPED_KINDS = frozenset({"choose_character", "move", "relocate", "play_card", "discard",
                           "activate", "hide_card", "battle", "trap", "step_in", "save"})
"""A group of these (``g<kind>.<j>``) is named by a character, a space or a card."""


# --------------------------------------------------------------------------- real states


def board_data() -> dict[str, Any]:
    """What winter-tales-data.js must hold, from the game's content."""
    from engines.winter_tales.content import load_content

    c = load_content()
    return {
        "spaces": [{"id": s.id, "name": s.name, "kind": s.kind, "x": s.x, "y": s.y,
                    "statue": bool(s.statue)} for s in c.map.spaces],
        "edges": [list(e) for e in c.map.edges],
        "characters": [{"id": ch.id, "name": ch.name, "faction": ch.faction}
                       for ch in c.characters],
        "quests": {q.id: q.name for q in c.quests},
        "counters": {k.id: k.quest for k in c.quest_counters},
        "cards": {s.id: s.title for s in c.story_cards},
        "neutral": {n.id: n.name for n in c.neutral_cards},
        "objectives": {o.id: o.title.split(":", 1)[-1].strip() for o in c.objective_cards},
        "objectiveIcons": [t.index for t in c.memory_track.spaces if t.objective_icon],
        "handLimit": c.setup.hand_limit,
    }


@lru_cache(maxsize=1)
def moments() -> dict[str, tuple[Any, int, int]]:
    """A seeded game played at random: (state, seat to act, ply) at its start (the draft:
    grouped choices), in its middle (an activation: moves on the map) and late (Story
    cards to play, side by side)."""
    from engines import get_game

    game = get_game(GAME)
    state = game.setup(PLAYERS, game.Options(), SEED)
    rng = random.Random(3)
    found: dict[str, tuple[Any, int, int]] = {}
    for ply in range(600):
        to_act = game.to_act(state)
        if not to_act or game.outcome(state) is not None:
            break
        seat = to_act[0]
        legal = game.legal_actions(state, seat)
        kinds = {a.kind for a in legal}
        if ply == 0:
            found["start"] = (state.model_copy(deep=True), seat, ply)
        if "middle" not in found and "move" in kinds and len(legal) <= 20:
            found["middle"] = (state.model_copy(deep=True), seat, ply)
        if "late" not in found and "play_card" in kinds and len(legal) <= 20 and ply > 40:
            found["late"] = (state.model_copy(deep=True), seat, ply)
        if len(found) == 3:
            break
        action = rng.choice(legal)
        if action.kind in ("tell", "play_card", "use_artefact"):
            action = action.model_copy(update={"text": "And so the snow fell."})
        game.apply(state, seat, action)
    assert set(found) == {"start", "middle", "late"}, sorted(found)
    return found


def message(moment: str, *, spectator: bool = False) -> dict[str, Any]:
    """The ``state`` message bot/web sends the seat to act (or a spectator) then."""
    from bot.core.tables.models import Outbox, SeatInfo, SeatNews, TableInfo, TableStatus
    from bot.web.states import state_message
    from engines import get_game

    game = get_game(GAME)
    state, seat, ply = moments()[moment]
    info = TableInfo(
        id="t-winter", channel_id=300000000000000003, guild_id=200000000000000002,
        game_id=GAME, game_name="Winter Tales", options={}, seed=SEED,
        status=TableStatus.PLAYING, host_id=101,
        seats=tuple(SeatInfo(i, NAMES[i], user_id=101 + i) for i in range(PLAYERS)),
        version=ply + 1, min_players=3, max_players=7, reminder_minutes=0,
        to_act=tuple(game.to_act(state)))
    outbox = Outbox(table=info, public_view=game.view(state, None), seats=(
        SeatNews(seat=seat, user_id=101 + seat, view=game.view(state, seat),
                 legal=tuple(game.legal_actions(state, seat))),))
    msg = state_message(outbox, None if spectator else seat)
    return json.loads(json.dumps(msg))  # as the socket carries it


def legal_of(moment: str) -> list[Any]:
    from engines import get_game

    state, seat, _ = moments()[moment]
    return get_game(GAME).legal_actions(state, seat)


def placed_codes(moment: str, msg: dict[str, Any]) -> set[str]:
    """The codes that must be touches on the board: an action that stands for a thing
    there, or a group of them named by a character, a space or a card in hand."""
    from engines.winter_tales.content import printed_name

    legal = legal_of(moment)
    hand = {c["title"] for c in msg["view"]["hand"] or []}
    figures = {f["id"] for f in msg["view"]["figures"]}
    names = {printed_name(f["id"]) for f in msg["view"]["figures"]} | {
        s["name"] for s in board_data()["spaces"]} | hand
    out: set[str] = set()
    for menu in msg["menus"]:
        for choice in menu["choices"]:
            code = choice["code"]
            if choice["disabled"]:
                continue
            if re.fullmatch(r"[at]\d+", code):
                action = legal[int(code[1:])]
                if action.kind not in PLACED_KINDS:
                    continue
                if action.kind in ("discard", "play_card", "hide_card") and (
                        printed_name(action.card) not in hand):
                    continue
                if action.kind == "start_quest" and len(choice["label"]) >= 80:
                    continue  # clipped: the Quest's name may be cut
                if action.kind == "assign_power" and action.target not in figures:
                    continue  # Armed Retaliation: a held Power, not a character
                out.add(code)
            elif ((m := re.fullmatch(r"g([a-z_]+)\.\d+", code)) and m.group(1) in GROUPED_KINDS
                  and re.sub(r" \(\d+\)$", "", choice["label"]) in names):
                out.add(code)
    return out


class WinterServer(FakeServer):
    """Plays one real Winter Tales state message; a choice gets that state again (as a
    move seen elsewhere would), so the shell's pending choice ends."""

    def __init__(self, msg: dict[str, Any]) -> None:
        super().__init__()
        self.message = msg
        self.version = msg["version"]
        self.seat = msg["seat"]
        self.on_choose = lambda _msg: [self.state()]

    def state(self, lines: list[str] | None = None) -> dict[str, Any]:
        msg = copy.deepcopy(self.message)
        msg["version"] = self.version
        msg["lines"] = list(lines or [])
        return msg


def serve(moment: str, *, spectator: bool = False) -> WinterServer:
    return WinterServer(message(moment, spectator=spectator)).start()


# --------------------------------------------------------------------------- page helpers


def open_board(driver: Any, srv: FakeServer) -> None:
    open_table(driver, srv)
    wait_until(lambda: driver.execute_script(
        "return !!document.querySelector('#board svg.board-svg.wt-board')"), what="the board")


def targets(driver: Any) -> list[dict[str, Any]]:
    return driver.execute_script("""
        return [...document.querySelectorAll('#board .wt-target')].map((g) => {
          const r = g.getBoundingClientRect();
          return {key: g.dataset.key, codes: g.dataset.codes.split(' '),
                  label: g.getAttribute('aria-label'), role: g.getAttribute('role'),
                  tabindex: g.getAttribute('tabindex'), w: r.width, h: r.height};
        });""")


def chosen(srv: FakeServer, count: int) -> dict[str, Any]:
    wait_until(lambda: len(srv.messages("choose")) > count, what="a choose")
    return srv.messages("choose")[-1]


def tap(driver: Any, key: str) -> None:
    from selenium.webdriver.common.by import By

    el = driver.find_element(By.CSS_SELECTOR, f"#board .wt-target[data-key='{key}']")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()


def pick(driver: Any, code: str) -> None:
    wait_until(lambda: by_css(driver, ".wt-picker").is_displayed(), what="the list of choices")
    by_css(driver, f".wt-picker button[data-wt-code='{code}']").click()


def targets_in_frame(driver: Any) -> list[dict[str, Any]]:
    enter_activity(driver)
    return targets(driver)


def text_sizes(driver: Any) -> list[list[Any]]:
    """[words, bounding-box height, font size in CSS px] of every <text> drawn."""
    return driver.execute_script("""
        return [...document.querySelectorAll('#board svg text')]
          .filter((t) => t.getClientRects().length && t.textContent.trim())
          .map((t) => [t.textContent, t.getBoundingClientRect().height,
                       parseFloat(t.getAttribute('font-size'))
                       * Math.hypot(t.getScreenCTM().a, t.getScreenCTM().b)]);""")


# --------------------------------------------------------------------------- tests


def test_the_boards_names_are_the_contents() -> None:
    source = DATA_JS.read_text(encoding="utf-8")
    m = re.search(r"export const DATA = (\{.*\});\s*$", source, re.S)
    assert m, "winter-tales-data.js holds `export const DATA = {...};`"
    assert json.loads(m.group(1)) == board_data(), (
        "winter-tales-data.js is out of date: rewrite it from board_data() of this test")


def test_the_moments_are_real() -> None:
    start, middle, late = (message(m) for m in ("start", "middle", "late"))
    assert any(c["code"].startswith("gchoose_character.") for menu in start["menus"]
               for c in menu["choices"])
    assert {legal_of("middle")[int(c["code"][1:])].kind for menu in middle["menus"]
            for c in menu["choices"] if re.fullmatch(r"a\d+", c["code"])} >= {"move"}
    assert any(legal_of("late")[int(c["code"][1:])].kind == "play_card"
               for menu in late["menus"] for c in menu["choices"]
               if re.fullmatch(r"[at]\d+", c["code"]))
    for msg in (start, middle, late):
        assert msg["view"]["hand"] is not None  # the seat's own view


@pytest.mark.parametrize("moment", ["start", "middle", "late"])
def test_every_placed_choice_is_a_touch_on_the_board(browser: Any, moment: str) -> None:
    srv = serve(moment)
    try:
        driver = browser(PHONE)
        open_board(driver, srv)
        view = srv.message["view"]
        # The whole board: 20 spaces, 14 characters, every figure on the map, the track,
        # the seat's own hand.
        assert len(all_css(driver, "#board [data-space]")) == 20
        assert len(all_css(driver, "#board [data-character]")) == 14
        on_map = [f for f in view["figures"] if f["space"] and not f["removed"]]
        assert len(all_css(driver, "#board [data-figure]")) == len(on_map)
        assert len(all_css(driver, "#board [data-card]")) == len(view["hand"])
        assert len(all_css(driver, "#board [data-slot]")) >= view["epilogue_space"]

        found = targets(driver)
        board_codes = {code for t in found for code in t["codes"]}
        live = {c["code"]: c["label"] for menu in srv.message["menus"] for c in menu["choices"]
                if not c["disabled"]}
        expected = placed_codes(moment, srv.message)
        assert expected, "this moment has choices on the board"
        assert expected <= board_codes, sorted(expected - board_codes)
        assert board_codes <= set(live), sorted(board_codes - set(live))
        for t in found:
            assert t["role"] == "button" and t["tabindex"] == "0"
            if len(t["codes"]) == 1:
                assert t["label"] == live[t["codes"][0]]
            else:
                assert t["label"].endswith(f"{len(t['codes'])} choices"), t
            assert t["w"] >= 44 and t["h"] >= 44, t

        # A tap, and Enter, send choose with the code and the version.
        sent = 0
        singles = [t for t in found if len(t["codes"]) == 1][:6]
        for t in singles:
            tap(driver, t["key"])
            msg = chosen(srv, sent)
            sent += 1
            assert (msg["code"], msg["version"]) == (t["codes"][0], srv.version)
        many = [t for t in found if len(t["codes"]) > 1][:2]
        for t in many:
            tap(driver, t["key"])
            pick(driver, t["codes"][-1])
            msg = chosen(srv, sent)
            sent += 1
            assert (msg["code"], msg["version"]) == (t["codes"][-1], srv.version)
            assert all_css(driver, ".wt-picker") == []
        from selenium.webdriver.common.keys import Keys

        for t in found[:3]:
            driver.execute_script(
                "document.querySelector(`#board .wt-target[data-key=\"${arguments[0]}\"]`)"
                ".focus()", t["key"])
            driver.switch_to.active_element.send_keys(Keys.ENTER)
            if len(t["codes"]) > 1:
                wait_until(lambda: by_css(driver, ".wt-picker").is_displayed(),
                           what="the list of choices")
                assert driver.switch_to.active_element.get_attribute("data-wt-code") == \
                    t["codes"][0]
                driver.switch_to.active_element.send_keys(Keys.ENTER)
            msg = chosen(srv, sent)
            sent += 1
            assert (msg["code"], msg["version"]) == (t["codes"][0], srv.version)
        assert severe_logs(driver) == []
    finally:
        srv.stop()


def test_several_choices_on_one_place_open_a_list_that_escape_closes(browser: Any) -> None:
    places: dict[str, set[str]] = {}
    moment = "middle"
    for moment in ("middle", "late", "start"):
        msg = message(moment)
        legal = legal_of(moment)
        places = {}
        for menu in msg["menus"]:
            for c in menu["choices"]:
                if re.fullmatch(r"a\d+", c["code"]) and legal[int(c["code"][1:])].kind == "move":
                    places.setdefault(legal[int(c["code"][1:])].to, set()).add(c["code"])
        if any(len(codes) > 1 for codes in places.values()):
            break
    assert any(len(codes) > 1 for codes in places.values()), "no moment with two moves to one space"
    srv = serve(moment)
    try:
        driver = browser(PHONE)
        open_board(driver, srv)
        many = next(t for t in targets(driver) if len(t["codes"]) > 1)
        tap(driver, many["key"])
        wait_until(lambda: by_css(driver, ".wt-picker").is_displayed(), what="the list")
        labels = [b.text for b in all_css(driver, ".wt-picker button[data-wt-code]")]
        live = {c["code"]: c["label"] for menu in srv.message["menus"] for c in menu["choices"]}
        assert labels == [live[c] for c in many["codes"]]
        from selenium.webdriver.common.keys import Keys

        driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        wait_until(lambda: all_css(driver, ".wt-picker") == [], what="the list to close")
        assert driver.switch_to.active_element.get_attribute("data-key") == many["key"]
        assert srv.messages("choose") == []
    finally:
        srv.stop()


@pytest.mark.parametrize("moment", ["start", "middle", "late"])
def test_no_text_under_9_px_at_400_px_wide(browser: Any, moment: str) -> None:
    srv = serve(moment)
    try:
        driver = browser(WIDE)
        open_board(driver, srv)
        sizes = text_sizes(driver)
        assert len(sizes) > 60
        small = [s for s in sizes if s[1] < 9 or s[2] < 9]
        assert small == [], small[:5]
        assert driver.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        srv.stop()


def test_an_update_moves_nothing_and_keeps_the_board(browser: Any) -> None:
    srv = serve("middle")
    try:
        driver = browser(PHONE)
        open_board(driver, srv)
        driver.execute_script("""
            window.__shift = 0;
            window.__map = document.querySelector('#board .wt-map-static');
            window.__svg = document.querySelector('#board svg');
            new PerformanceObserver((list) => {
              for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
            }).observe({type: 'layout-shift', buffered: false});""")
        where = ("return [document.querySelector('#board svg').getBoundingClientRect().height,"
                 " document.querySelector('.moment').getBoundingClientRect().top + scrollY]")
        before = driver.execute_script(where)
        newer = copy.deepcopy(srv.message)
        srv.version += 1
        newer["version"] = srv.version
        mover = next(f for f in newer["view"]["figures"] if f["space"])
        mover["space"] = "statue_square"
        mover["ready"] = False
        newer["view"]["deck_count"] -= 1
        newer["lines"] = ["A figure walked to Statue Square."]
        srv.push(newer)
        wait_until(lambda: by_css(driver, "#app").get_attribute("data-version")
                   == str(srv.version), what="the update")
        assert driver.execute_script(where) == before
        assert driver.execute_script("return window.__shift") == 0
        assert driver.execute_script(
            "return window.__map === document.querySelector('#board .wt-map-static')"
            " && window.__svg === document.querySelector('#board svg')")
        assert severe_logs(driver) == []
    finally:
        srv.stop()


def test_a_spectator_sees_no_private_parts(browser: Any) -> None:
    srv = serve("late", spectator=True)
    try:
        assert srv.message["view"]["hand"] is None and srv.message["menus"] == []
        own = message("late")["view"]
        driver = browser(PHONE)
        open_board(driver, srv)
        assert all_css(driver, "#board [data-card]") == []
        assert all_css(driver, "#board .wt-target") == []
        assert driver.execute_script(
            "return getComputedStyle(document.querySelector('#board .wt-hand')).display"
        ) == "none"
        words = driver.execute_script("return document.querySelector('#board').textContent")
        for card in own["hand"]:
            assert card["spring"] not in words and card["winter"] not in words
        secret = [o for o in own["objectives"] if o["seat"] == own["seat"] and not o["revealed"]]
        for o in secret:
            assert o["title"] not in words
        assert "Your Story cards" not in words
    finally:
        srv.stop()


def test_no_console_errors_under_the_csp(browser: Any) -> None:
    srv = serve("late")
    try:
        driver = browser(DESKTOP)
        open_board(driver, srv)
        assert by_css(driver, "#board svg").get_attribute("class").split() == [
            "board-svg", "wt-board", "wt-wide"]
        first = targets(driver)[0]
        tap(driver, first["key"])
        if len(first["codes"]) > 1:
            pick(driver, first["codes"][0])
        chosen(srv, 0)
        driver.switch_to.default_content()
        assert severe_logs(driver) == []
    finally:
        srv.stop()


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone-360", "desktop-1280"])
@pytest.mark.parametrize("moment", ["start", "middle", "late"])
def test_screenshots(browser: Any, shots: Path, size: tuple[int, int], moment: str) -> None:
    srv = serve(moment)
    try:
        driver = browser(size)
        open_board(driver, srv)
        name = f"{size[0]}x{size[1]}"
        driver.switch_to.default_content()
        assert driver.save_screenshot(str(shots / f"winter-tales-{moment}-{name}.png"))
        many = [t for t in targets_in_frame(driver) if len(t["codes"]) > 1]
        if many:  # the list a place with several choices opens
            tap(driver, many[0]["key"])
            wait_until(lambda: by_css(driver, ".wt-picker").is_displayed(), what="the list")
            driver.switch_to.default_content()
            assert driver.save_screenshot(str(shots / f"winter-tales-{moment}-list-{name}.png"))
            enter_activity(driver)
            driver.switch_to.active_element.send_keys("\ue00c")  # Escape
        driver.switch_to.default_content()
        # The whole board at the same width: a page as tall as it.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": size[0], "height": 2400, "deviceScaleFactor": 1, "mobile": size == PHONE})
        assert driver.save_screenshot(str(shots / f"winter-tales-{moment}-{size[0]}-full.png"))
    finally:
        srv.stop()
