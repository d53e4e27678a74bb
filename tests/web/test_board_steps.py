"""The second step of a guided choice as touches on the board (ui.js gives the open step to
the board as ``ctx.step``; board/index.js documents it): Fairy Tale Inn's column after a
Guest List slot, Save the Treasure's direction after a tile, Winter Tales' starting space
after a character of the draft, Fairy Tale in My Pocket's ways to a tile and the item kept
out of a fight. Real engine states built by ``state_message``, the steps
answered by each game's own choice adapter as bot/web answers them."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bot.core.choices import get_ui
from bot.web.protocol import form, menu_message, refused
from tests.web.conftest import PHONE
from tests.web.fake_server import wait_until
from tests.web.test_activity import all_css, by_css, open_table, severe_logs
from tests.web.test_board_fairy_tale_inn import (
    BOARD_TOP,
    SHIFT_WATCH,
    InnServer,
    placed_codes,
    version,
)
from tests.web.test_board_fairy_tale_inn import open_board as open_inn
from tests.web.test_board_pocket import PocketServer, expected_places
from tests.web.test_board_pocket import _message as pocket_message
from tests.web.test_board_pocket import labels as pocket_labels
from tests.web.test_board_treasure import TreasureServer, placed
from tests.web.test_board_treasure import open_board as open_treasure
from tests.web.test_board_winter_tales import GAME as WINTER
from tests.web.test_board_winter_tales import (
    WinterServer,
    board_data,
    legal_of,
    message,
    moments,
)
from tests.web.test_board_winter_tales import open_board as open_winter

TAKE_BACK = "back"
"""The code of the Take back an adapter may add to a step (the test server's own)."""


# --------------------------------------------------------------------------- helpers


def board_targets(driver: Any) -> list[dict[str, Any]]:
    """Every touch target on the board: its codes (one, or a Winter place's several), its
    key (Winter's place), label, focusability and size in CSS px."""
    return driver.execute_script("""
        return [...document.querySelectorAll('#board svg [role=button]')]
          .filter((g) => g.getAttribute('display') !== 'none')
          .map((g) => {
            const r = g.getBoundingClientRect();
            const codes = g.dataset.codes ? g.dataset.codes.split(' ')
              : (g.dataset.code ? [g.dataset.code] : []);
            return {codes, key: g.dataset.key || null, code: g.dataset.code || null,
                    label: g.getAttribute('aria-label'), tabindex: g.getAttribute('tabindex'),
                    w: r.width, h: r.height};
          });""")


def codes_on_board(driver: Any) -> set[str]:
    return {c for t in board_targets(driver) for c in t["codes"]}


def step_codes(driver: Any) -> dict[str, str]:
    """The open step panel's enabled buttons: code -> label."""
    return {b.get_attribute("data-code"): b.get_attribute("aria-label")
            for b in all_css(driver, ".step button.choice") if b.is_enabled()}


def touch(driver: Any, selector: str) -> None:
    """Tap an element of the board as a finger would (in the middle of the screen: the
    sticky header would take a tap at the very top)."""
    el = by_css(driver, selector)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()


def key_on(driver: Any, selector: str, key: str) -> None:
    """Focus the element and press key on it (Enter or Space), as a keyboard user would."""
    el = by_css(driver, selector)
    driver.execute_script("arguments[0].focus({preventScroll: false})", el)
    driver.switch_to.active_element.send_keys(key)


def choices_sent(srv: Any) -> list[str]:
    return [m["code"] for m in srv.messages("choose")]


def wait_sent(srv: Any, n: int) -> list[str]:
    return wait_until(lambda: len(srv.messages("choose")) >= n and choices_sent(srv),
                      what=f"{n} choose messages")


def step_open(driver: Any) -> bool:
    return bool(by_css(driver, ".step").is_displayed())


def assert_targets_are(driver: Any, want: dict[str, str]) -> None:
    """The board's targets are exactly these codes, each labelled as its button, focusable
    and at least 44 x 44 CSS px."""
    got = board_targets(driver)
    assert {t["code"]: t["label"] for t in got} == want
    for t in got:
        assert t["tabindex"] == "0" and t["w"] >= 44 and t["h"] >= 44, t


# --------------------------------------------------------------------------- Fairy Tale Inn


class InnWithTakeBack(InnServer):
    """The Inn's adapter answers, with a Take back added to each step (as an adapter that
    has one does: Crossroads Inn's), answered by the table's state as bot/web would."""

    def play(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        if msg.get("code") == TAKE_BACK:
            return [self.state()]
        out = super().play(msg)
        for answer in out:
            if answer["type"] == "menu":
                answer["menu"]["choices"].append({"label": "Take back", "code": TAKE_BACK,
                                                  "style": "secondary", "disabled": False})
        return out


@pytest.fixture
def inn_steps() -> Any:
    servers: list[InnServer] = []

    def make(cls: type[InnServer] = InnServer) -> InnServer:
        srv = cls("start")
        srv.seat = 0
        servers.append(srv.start())
        return srv

    try:
        yield make
    finally:
        for srv in servers:
            srv.stop()


def test_inn_the_column_after_a_slot_is_a_touch_on_the_board(browser: Any,
                                                             inn_steps: Any) -> None:
    srv = inn_steps()
    first = placed_codes(srv.state())
    assert "s3" in first
    driver = browser(PHONE)
    open_inn(driver, srv)
    assert_targets_are(driver, first)
    driver.execute_script(SHIFT_WATCH)
    height = driver.execute_script(
        "return document.querySelector('#board svg').getBoundingClientRect().height")

    touch(driver, "#board svg [data-code='s3']")
    wait_until(lambda: step_open(driver), what="the columns step")
    step = step_codes(driver)
    assert step and all(re.fullmatch(r"d3c\d", c) for c in step), step
    # The board's targets are the step's columns now, not the Guest List again.
    wait_until(lambda: codes_on_board(driver) == set(step), what="the columns on the board")
    assert_targets_are(driver, step)
    for code in step:
        column = by_css(driver, f"#board svg [data-code='{code}']")
        assert column.get_attribute("data-column") == code[3:]
    chosen = [s.get_attribute("data-slot") for s in all_css(driver, "#board .inn-slot")
              if s.get_attribute("data-chosen") == "1"]
    assert chosen == ["3"]
    # The banner asks the step's question.
    detail = driver.execute_script("return document.querySelector('#board svg').textContent")
    assert "into which column?" in detail
    # Nothing on the board moved or changed its height.
    assert driver.execute_script("return window.__boardShift") == 0
    assert driver.execute_script(
        "return document.querySelector('#board svg').getBoundingClientRect().height") == height

    touch(driver, "#board svg [data-code='d3c4']")
    wait_until(lambda: version(driver) == "8", what="the move's state")
    sent = srv.messages("choose")
    assert [m["code"] for m in sent] == ["s3", "d3c4"]
    assert sent[-1]["version"] == 7
    assert not step_open(driver)
    cell = by_css(driver, "#board .inn-cell[data-cell='4,1']")
    assert len(cell.find_elements("css selector", ".inn-token")) == 1
    # The step is closed: the board has no step targets left (it is Grimm's turn).
    assert not any(re.fullmatch(r"d\dc\d", c) for c in codes_on_board(driver))
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


def test_inn_take_back_cancel_and_escape_restore_the_slots(browser: Any,
                                                          inn_steps: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    srv = inn_steps(InnWithTakeBack)
    first = placed_codes(srv.state())
    driver = browser(PHONE)
    open_inn(driver, srv)
    top = driver.execute_script(BOARD_TOP)

    # The adapter's Take back (a button of the step): its answer, the state, closes it.
    touch(driver, "#board svg [data-code='s2']")
    wait_until(lambda: step_open(driver), what="the step")
    assert TAKE_BACK in step_codes(driver)
    wait_until(lambda: codes_on_board(driver) == {c for c in step_codes(driver)
                                                  if c != TAKE_BACK}, what="the columns")
    by_css(driver, f".step button[data-code='{TAKE_BACK}']").click()
    wait_until(lambda: not step_open(driver), what="the step to close")
    wait_until(lambda: codes_on_board(driver) == set(first), what="the slots again")
    assert_targets_are(driver, first)
    assert choices_sent(srv) == ["s2", TAKE_BACK]

    # Cancel: the step closes here, nothing is sent, the slots are the targets again.
    touch(driver, "#board svg [data-code='s4']")
    wait_until(lambda: step_open(driver) and "d4c1" in codes_on_board(driver),
               what="slot 4's columns")
    by_css(driver, ".step .step-cancel").click()
    assert not step_open(driver) and by_css(driver, ".moment").is_displayed()
    assert_targets_are(driver, first)
    assert choices_sent(srv) == ["s2", TAKE_BACK, "s4"]

    # Escape on the board does the same, and the keyboard stays on the board.
    touch(driver, "#board svg [data-code='s3']")
    wait_until(lambda: step_open(driver) and "d3c1" in codes_on_board(driver),
               what="slot 3's columns")
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(lambda: not step_open(driver), what="Escape to close the step")
    assert_targets_are(driver, first)
    assert driver.execute_script(
        "return document.querySelector('#board').contains(document.activeElement)")
    assert choices_sent(srv) == ["s2", TAKE_BACK, "s4", "s3"]
    driver.execute_script("scrollTo(0, 0)")
    assert driver.execute_script(BOARD_TOP) == top


def test_inn_a_refusal_and_a_new_state_keep_the_step_on_the_board(browser: Any,
                                                                 inn_steps: Any) -> None:
    srv = inn_steps()
    driver = browser(PHONE)
    open_inn(driver, srv)
    touch(driver, "#board svg [data-code='s3']")
    wait_until(lambda: step_open(driver), what="the step")
    step = step_codes(driver)
    wait_until(lambda: codes_on_board(driver) == set(step), what="the columns")
    srv.refuse_all = True
    touch(driver, "#board svg [data-code='d3c2']")
    wait_until(lambda: "refused d3c2" in by_css(driver, ".step .refusal").text,
               what="the refusal in the step")
    assert step_open(driver) and codes_on_board(driver) == set(step)
    # A new state not of this seat's making (a timer's commit): the step stays open, and
    # the board still shows its targets (drawn again for the new state).
    srv.version += 1
    srv.push(srv.state(["Elsewhere, a reminder."]))
    wait_until(lambda: version(driver) == "8", what="the new state")
    assert step_open(driver) and codes_on_board(driver) == set(step)
    assert choices_sent(srv) == ["s3", "d3c2"]


def test_inn_the_keyboard_plays_both_steps_on_the_board(browser: Any, inn_steps: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    srv = inn_steps()
    driver = browser(PHONE)
    open_inn(driver, srv)
    key_on(driver, "#board svg [data-code='s4']", Keys.ENTER)
    wait_until(lambda: step_open(driver) and "d4c1" in codes_on_board(driver),
               what="the step by Enter")
    # The keyboard stays on the board, on a step target (not moved to the panel below).
    active = driver.switch_to.active_element
    assert re.fullmatch(r"d4c\d", active.get_attribute("data-code") or ""), \
        active.get_attribute("outerHTML")[:120]
    key_on(driver, "#board svg [data-code='d4c6']", " ")
    wait_until(lambda: version(driver) == "8", what="the move by Space")
    assert choices_sent(srv) == ["s4", "d4c6"]
    column = srv.estate.columns[5]
    assert len(column) == 1


# --------------------------------------------------------------------------- Treasure


@pytest.fixture
def treasure_start() -> Any:
    srv = TreasureServer("start")
    srv.seat = 0
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def neighbour(square: str, direction: str) -> str:
    dr, dc = {"u": (-1, 0), "d": (1, 0), "l": (0, -1), "r": (0, 1)}[direction]
    return f"{chr(ord(square[0]) + dr)}{int(square[1:]) + dc}"


def test_treasure_the_direction_after_a_tile_is_a_touch_on_the_board(
        browser: Any, treasure_start: Any) -> None:
    srv = treasure_start
    first = placed(srv.state())
    driver = browser(PHONE)
    open_treasure(driver, srv)
    assert_targets_are(driver, first)
    driver.execute_script(SHIFT_WATCH)
    # A tile with two directions or more, so the step is a real choice.
    tile = None
    for code in sorted(first):
        ui = get_ui("treasure").resolve(code, srv.game.view(srv.estate, 0), srv.legal())
        if ui.menu is not None and len(ui.menu.choices) >= 2:
            tile = code
            break
    assert tile is not None
    touch(driver, f"#board svg [data-code='{tile}']")
    wait_until(lambda: step_open(driver), what="the directions step")
    step = step_codes(driver)
    assert step and all(re.fullmatch(rf"s{tile[1:]}[udlr]", c) for c in step), step
    wait_until(lambda: codes_on_board(driver) == set(step), what="the directions")
    assert_targets_are(driver, step)
    for code in step:
        target = by_css(driver, f"#board svg [data-code='{code}']")
        # Each direction is the square the tile would slide onto, with its arrow.
        assert target.get_attribute("data-square") == neighbour(tile[1:], code[-1])
        assert len(target.find_elements("css selector", ".tr-arrow")) == 1
    picked = [c.get_attribute("data-square") for c in all_css(driver, "#board .tr-cell")
              if c.get_attribute("data-picked") == "1"]
    assert picked == [tile[1:]]
    assert driver.execute_script("return window.__boardShift") == 0

    slide = sorted(step)[-1]
    touch(driver, f"#board svg [data-code='{slide}']")
    wait_until(lambda: version(driver) == "8", what="the slide's state")
    sent = srv.messages("choose")
    assert [m["code"] for m in sent] == [tile, slide] and sent[-1]["version"] == 7
    assert not step_open(driver)
    assert all_css(driver, "#board .tr-arrow") == []
    assert not any(re.fullmatch(r"s[A-I][1-9][udlr]", c) for c in codes_on_board(driver))
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


def test_treasure_cancel_restores_the_tiles_and_the_keyboard_works(
        browser: Any, treasure_start: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    srv = treasure_start
    first = placed(srv.state())
    tile = sorted(first)[0]
    driver = browser(PHONE)
    open_treasure(driver, srv)
    key_on(driver, f"#board svg [data-code='{tile}']", Keys.ENTER)
    wait_until(lambda: step_open(driver) and codes_on_board(driver) == set(step_codes(driver)),
               what="the directions by Enter")
    active = driver.switch_to.active_element.get_attribute("data-code") or ""
    assert re.fullmatch(rf"s{tile[1:]}[udlr]", active), active
    by_css(driver, ".step .step-cancel").click()
    assert not step_open(driver)
    assert_targets_are(driver, first)
    assert all_css(driver, "#board .tr-arrow") == []
    assert [c for c in all_css(driver, "#board .tr-cell")
            if c.get_attribute("data-picked") == "1"] == []
    assert choices_sent(srv) == [tile]

    key_on(driver, f"#board svg [data-code='{tile}']", " ")
    wait_until(lambda: step_open(driver) and codes_on_board(driver) == set(step_codes(driver)),
               what="the directions by Space")
    slide = sorted(step_codes(driver))[0]
    key_on(driver, f"#board svg [data-code='{slide}']", Keys.ENTER)
    wait_until(lambda: version(driver) == "8", what="the slide by Enter")
    assert choices_sent(srv) == [tile, tile, slide]


# --------------------------------------------------------------------------- Winter Tales


class WinterSteps(WinterServer):
    """One real Winter Tales moment, its choices answered by the game's adapter as bot/web
    answers them (a group or a kind opens its step); a move played gets the same state
    again, a version on (the table moved on)."""

    def __init__(self, moment: str) -> None:
        super().__init__(message(moment))
        state, seat, _ = moments()[moment]
        from engines import get_game

        self.own_view = get_game(WINTER).view(state, seat)
        self.legal_now = legal_of(moment)
        self.on_choose = self.answer_choice

    def answer_choice(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        code = str(msg.get("code"))
        try:
            res = get_ui(WINTER).resolve(code, self.own_view, self.legal_now)
        except Exception as exc:
            return [refused(msg["id"], str(exc))]
        if res.menu is not None:
            return [menu_message(msg["id"], res.menu)]
        if res.form is not None:
            return [form(msg["id"], code, res.form)]
        self.version += 1
        return [self.state([f"played {code}"])]


@pytest.fixture
def winter_draft() -> Any:
    srv = WinterSteps("start").start()
    try:
        yield srv
    finally:
        srv.stop()


SPACE_IDS = {s["name"]: s["id"] for s in board_data()["spaces"]}
CHARACTER_IDS = {c["name"]: c["id"] for c in board_data()["characters"]}


def draft_groups(srv: WinterSteps) -> dict[str, str]:
    """The draft's characters on the table's menus: code -> character id."""
    return {c["code"]: CHARACTER_IDS[c["label"]] for menu in srv.message["menus"]
            for c in menu["choices"] if c["code"].startswith("gchoose_character.")}


def test_winter_the_starting_space_after_a_character_is_a_touch(browser: Any,
                                                               winter_draft: Any) -> None:
    srv = winter_draft
    groups = draft_groups(srv)
    assert len(groups) >= 2
    driver = browser(PHONE)
    open_winter(driver, srv)
    assert codes_on_board(driver) == set(groups)
    code, char = next(iter(groups.items()))
    touch(driver, f"#board .wt-target[data-key='char:{char}']")
    wait_until(lambda: step_open(driver), what="the character's starting spaces")
    step = step_codes(driver)
    assert step and all(re.fullmatch(r"a\d+", c) for c in step), step
    wait_until(lambda: codes_on_board(driver) == set(step), what="the spaces on the board")
    # Each starting space is a touch on its space (one choice each: labelled as its button),
    # the character's own card is no target any more.
    legal = srv.legal_now
    found = board_targets(driver)
    assert len(found) == len(step)
    for t in found:
        assert len(t["codes"]) == 1 and t["tabindex"] == "0", t
        action = legal[int(t["codes"][0][1:])]
        assert action.kind == "choose_character" and action.character == char
        assert t["key"] == f"space:{action.space}", t
        assert t["label"] == step[t["codes"][0]]
        assert t["w"] >= 44 and t["h"] >= 44, t
    # The starting space of the last of them, touched on the map.
    target = found[-1]
    touch(driver, f"#board .wt-target[data-key='{target['key']}']")
    wait_until(lambda: len(srv.messages("choose")) == 2, what="the starting space's choose")
    sent = srv.messages("choose")
    assert [m["code"] for m in sent] == [code, target["codes"][0]]
    assert sent[-1]["version"] == srv.version - 1  # the version the choice was made on
    wait_until(lambda: not step_open(driver), what="the step to close")
    wait_until(lambda: codes_on_board(driver) == set(groups), what="the draft again")
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


def test_winter_cancel_restores_the_characters_and_the_keyboard_works(
        browser: Any, winter_draft: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    srv = winter_draft
    groups = draft_groups(srv)
    (first_code, first_char), (second_code, second_char) = list(groups.items())[:2]
    driver = browser(PHONE)
    open_winter(driver, srv)
    before = {t["key"] for t in board_targets(driver)}
    assert before == {f"char:{c}" for c in groups.values()}

    key_on(driver, f"#board .wt-target[data-key='char:{first_char}']", Keys.ENTER)
    wait_until(lambda: step_open(driver) and codes_on_board(driver) == set(step_codes(driver)),
               what="the spaces by Enter")
    keys = {t["key"] for t in board_targets(driver)}
    assert keys and all(k.startswith("space:") for k in keys), keys
    active = driver.switch_to.active_element.get_attribute("data-key") or ""
    assert active in keys
    by_css(driver, ".step .step-cancel").click()
    assert not step_open(driver)
    wait_until(lambda: {t["key"] for t in board_targets(driver)} == before,
               what="the characters again")
    assert choices_sent(srv) == [first_code]

    key_on(driver, f"#board .wt-target[data-key='char:{second_char}']", " ")
    wait_until(lambda: step_open(driver) and codes_on_board(driver) == set(step_codes(driver)),
               what="the spaces by Space")
    space = sorted(t["key"] for t in board_targets(driver))[0]
    key_on(driver, f"#board .wt-target[data-key='{space}']", " ")
    sent = wait_sent(srv, 3)
    action = srv.legal_now[int(sent[-1][1:])]
    assert sent[:2] == [first_code, second_code]
    assert (action.kind, action.character, f"space:{action.space}") == (
        "choose_character", second_char, space)


# --------------------------------------------------------------------------- Pocket


class PocketSteps(PocketServer):
    """One real Pocket state of a seeded game (the careful AI's), the choices answered by
    the game's adapter as bot/web answers them: ``to.<tile>`` and ``fk`` open their steps,
    a move is played by the engine and its next state sent, a version on."""

    def __init__(self, found: tuple[Any, Any, int, int]) -> None:
        from engines import get_game

        game_state, seat, step, _ = found
        self.game = get_game("pocket")
        self.estate = self.game.copy_state(game_state)
        self.acting = seat
        super().__init__(pocket_message(self.game, self.estate, 40 + step, seat))
        self.on_choose = self.answer_choice

    def legal(self) -> list[Any]:
        return list(self.game.legal_actions(self.estate, self.acting))

    def answer_choice(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        code = str(msg.get("code"))
        if msg.get("version") != self.version:
            return [refused(msg["id"], "stale")]
        try:
            res = get_ui("pocket").resolve(code, self.game.view(self.estate, self.acting),
                                           self.legal())
        except Exception as exc:
            return [refused(msg["id"], str(exc))]
        if res.menu is not None:
            return [menu_message(msg["id"], res.menu)]
        assert res.action is not None
        self.game.apply(self.estate, self.acting, res.action)
        self.version += 1
        self.acting = self.game.to_act(self.estate)[0]
        self.msg = pocket_message(self.game, self.estate, self.version, self.acting)
        return [self.state([f"played {code}"])]


POCKET_STEPS = {
    # a step code and the first game (gift, seed) of the careful AI where it is offered
    "to": ("boots", 47),  # the ways to a tile: walk, Boots or wish (the Lamp)
    "fk-wand": ("wand", 4),  # keep the Dagger out: with the Wand or without
    "fk": ("boots", 1),  # keep the Dagger out (one way)
    "fk-both": ("mirror", 26),  # keep the Dagger, the Repellant or both out
}


@cache
def pocket_moment(name: str) -> tuple[Any, int, int, list[str]]:
    """The first state of the seeded game where the table's menu has the step's code:
    (the state, the seat to act, the step, the codes of the menu)."""
    from engines import get_game
    from engines.agents import get_agent
    from engines.core import Rng

    special, seed = POCKET_STEPS[name]
    head = "to." if name == "to" else "fk"
    game = get_game("pocket")
    state = game.setup(2, game.Options(special=special), seed)
    rng = Rng.from_seed(seed)
    agent = get_agent("pocket", "careful")
    for step in range(200):
        if game.is_over(state):
            break
        seat = game.to_act(state)[0]
        msg = pocket_message(game, state, 40 + step, seat)
        codes = [c["code"] for m in msg["menus"] for c in m["choices"]]
        if any(c.startswith(head) for c in codes):
            return game.copy_state(state), seat, step, codes
        game.apply(state, seat, agent.choose(game, state, seat, rng))
    raise AssertionError(f"the seeded game {special}/{seed} never offers {head}")


@pytest.fixture
def pocket_steps() -> Any:
    servers: list[PocketSteps] = []

    def make(name: str) -> PocketSteps:
        srv = PocketSteps(pocket_moment(name))
        servers.append(srv.start())
        return srv

    try:
        yield make
    finally:
        for srv in servers:
            srv.stop()


def open_pocket(driver: Any, srv: PocketSteps) -> None:
    open_table(driver, srv)
    wait_until(lambda: by_css(driver, "svg.pocket-board"), what="the Pocket board")


def first_targets(msg: dict[str, Any]) -> dict[str, str]:
    """The table's choices with a place on the board (each a one-choice target here)."""
    words = pocket_labels(msg)
    return {code: words[code] for code in expected_places(msg)}


def chosen_things(driver: Any) -> list[str]:
    return [g.get_attribute("data-key") or g.get_attribute("data-thing")
            for g in all_css(driver, "svg.pocket-board [data-chosen='1']")]


def step_menu(srv: PocketSteps, code: str) -> dict[str, str]:
    """The adapter's own step for ``code`` (code -> label), as bot/web would answer it."""
    res = get_ui("pocket").resolve(code, srv.game.view(srv.estate, srv.acting), srv.legal())
    assert res.menu is not None, code
    return {c.code: c.label for c in res.menu.choices}


def tray_text(driver: Any) -> str:
    return by_css(driver, "svg.pocket-board [data-key='tray']").get_attribute("textContent")


def test_pocket_the_ways_to_a_tile_are_touches_on_the_board(browser: Any,
                                                           pocket_steps: Any) -> None:
    srv = pocket_steps("to")
    first = first_targets(srv.msg)
    assert "to.cottage" in first and all(not c.startswith(("g.", "gb.", "w.")) for c in first)
    ways = step_menu(srv, "to.cottage")
    assert set(ways) == {"g.cottage", "gb.cottage", "w.cottage"}
    version0 = srv.version
    driver = browser(PHONE)
    open_pocket(driver, srv)
    assert_targets_are(driver, first)
    driver.execute_script(SHIFT_WATCH)
    height = driver.execute_script(
        "return document.querySelector('#board svg').getBoundingClientRect().height")

    touch(driver, "#board svg [data-code='to.cottage']")
    wait_until(lambda: step_open(driver), what="the ways step")
    assert step_codes(driver) == ways
    # The board's targets are the step's ways now (in the tray, each labelled as its
    # button), not the tiles again; the tile is outlined as the chosen one.
    wait_until(lambda: codes_on_board(driver) == set(ways), what="the ways on the board")
    assert_targets_are(driver, ways)
    for code in ways:
        assert by_css(driver, f"#board svg [data-code='{code}']").get_attribute(
            "data-thing") == f"code:{code}"
    assert chosen_things(driver) == ["tile:cottage"]
    assert by_css(driver, "svg.pocket-board [data-key='tile:cottage']").get_attribute(
        "role") is None
    assert "How do you go to the Cottage?" in tray_text(driver)
    assert "**" not in tray_text(driver) and "Cancel" not in tray_text(driver)
    # The keyboard stayed on the board: on the step's first way.
    assert driver.switch_to.active_element.get_attribute("data-code") in ways
    assert driver.execute_script("return window.__boardShift") == 0
    assert driver.execute_script(
        "return document.querySelector('#board svg').getBoundingClientRect().height") == height

    touch(driver, "#board svg [data-code='gb.cottage']")
    wait_until(lambda: version(driver) == str(version0 + 1), what="the move's state")
    sent = srv.messages("choose")
    assert [m["code"] for m in sent] == ["to.cottage", "gb.cottage"]
    assert [m["version"] for m in sent] == [version0, version0]
    assert srv.estate.pawn == "cottage"
    assert not step_open(driver)
    assert chosen_things(driver) == []
    assert codes_on_board(driver) == set(first_targets(srv.msg))
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


def test_pocket_cancel_and_escape_restore_the_tiles_and_the_keyboard_plays(
        browser: Any, pocket_steps: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    srv = pocket_steps("to")
    first = first_targets(srv.msg)
    version0 = srv.version
    driver = browser(PHONE)
    open_pocket(driver, srv)
    top = driver.execute_script(BOARD_TOP)

    key_on(driver, "#board svg [data-code='to.well']", Keys.ENTER)
    wait_until(lambda: step_open(driver) and codes_on_board(driver) == set(step_codes(driver)),
               what="the ways by Enter")
    assert set(step_codes(driver)) == set(step_menu(srv, "to.well"))
    assert driver.switch_to.active_element.get_attribute("data-code") in step_codes(driver)
    by_css(driver, ".step .step-cancel").click()
    assert not step_open(driver)
    assert_targets_are(driver, first)
    assert chosen_things(driver) == []
    assert choices_sent(srv) == ["to.well"]

    # Escape on the board closes the step too, and the keyboard stays on the board.
    key_on(driver, "#board svg [data-code='to.well']", " ")
    wait_until(lambda: step_open(driver) and "g.well" in codes_on_board(driver),
               what="the ways by Space")
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(lambda: not step_open(driver), what="Escape to close the step")
    assert_targets_are(driver, first)
    assert driver.execute_script(
        "return document.querySelector('#board').contains(document.activeElement)")
    driver.execute_script("scrollTo(0, 0)")
    assert driver.execute_script(BOARD_TOP) == top

    key_on(driver, "#board svg [data-code='to.lake']", " ")
    wait_until(lambda: step_open(driver) and "w.lake" in codes_on_board(driver),
               what="the Lake's ways")
    key_on(driver, "#board svg [data-code='w.lake']", Keys.ENTER)
    wait_until(lambda: version(driver) == str(version0 + 1), what="the wish by Enter")
    sent = srv.messages("choose")
    assert [m["code"] for m in sent] == ["to.well", "to.well", "to.lake", "w.lake"]
    assert sent[-1]["version"] == version0
    assert srv.estate.pawn == "lake"


def test_pocket_the_item_kept_out_of_a_fight_is_a_touch(browser: Any,
                                                       pocket_steps: Any) -> None:
    srv = pocket_steps("fk-wand")
    first = first_targets(srv.msg)
    assert "fk" not in first  # the shell's button opens the step
    fights = step_menu(srv, "fk")
    assert set(fights) == {"f-dagger", "fw-dagger"}
    version0 = srv.version
    driver = browser(PHONE)
    open_pocket(driver, srv)
    assert_targets_are(driver, first)
    driver.execute_script(SHIFT_WATCH)

    by_css(driver, ".menus button[data-code='fk']").click()
    wait_until(lambda: step_open(driver), what="the fights step")
    assert step_codes(driver) == fights
    # Both keep the Dagger out: the Dagger is the chosen thing, its fights the tray's.
    wait_until(lambda: codes_on_board(driver) == set(fights), what="the fights on the board")
    assert_targets_are(driver, fights)
    assert chosen_things(driver) == ["slot:item:dagger"]
    assert "Fight without which item?" in tray_text(driver)
    assert driver.execute_script("return window.__boardShift") == 0

    by_css(driver, ".step .step-cancel").click()
    assert not step_open(driver)
    assert_targets_are(driver, first)
    assert chosen_things(driver) == []

    by_css(driver, ".menus button[data-code='fk']").click()
    wait_until(lambda: codes_on_board(driver) == set(fights), what="the fights again")
    touch(driver, "#board svg [data-code='fw-dagger']")
    wait_until(lambda: version(driver) == str(version0 + 1), what="the fight's state")
    sent = srv.messages("choose")
    assert [(m["code"], m["version"]) for m in sent] == [
        ("fk", version0), ("fk", version0), ("fw-dagger", version0)]
    assert not step_open(driver)
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


def test_pocket_one_fight_on_its_item_and_both_items_by_the_keyboard(
        browser: Any, pocket_steps: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    # One way to keep the Dagger out: the Dagger itself plays it (Enter).
    srv = pocket_steps("fk")
    assert step_menu(srv, "fk").keys() == {"f-dagger"}
    driver = browser(PHONE)
    open_pocket(driver, srv)
    by_css(driver, ".menus button[data-code='fk']").click()
    wait_until(lambda: codes_on_board(driver) == {"f-dagger"}, what="the Dagger")
    assert_targets_are(driver, step_codes(driver))
    assert by_css(driver, "#board svg [data-code='f-dagger']").get_attribute(
        "data-thing") == "item:dagger"
    assert chosen_things(driver) == []
    assert "Fight without which item?" in tray_text(driver)
    version0 = srv.version
    key_on(driver, "#board svg [data-code='f-dagger']", Keys.ENTER)
    wait_until(lambda: version(driver) == str(version0 + 1), what="the fight by Enter")
    assert [(m["code"], m["version"]) for m in srv.messages("choose")] == [
        ("fk", version0), ("f-dagger", version0)]

    # Three ways (the Dagger, the Repellant, both): each item has its own and both; a
    # touch opens them in the tray with a Cancel of its own (the step stays open).
    srv = pocket_steps("fk-both")
    fights = step_menu(srv, "fk")
    assert set(fights) == {"f-dagger", "f-repellant", "f-dagger-repellant"}
    version0 = srv.version
    driver = browser(PHONE)
    open_pocket(driver, srv)
    by_css(driver, ".menus button[data-code='fk']").click()
    wait_until(lambda: step_open(driver) and codes_on_board(driver) == set(fights),
               what="the two items")
    found = {t["key"] or "": t for t in board_targets(driver)}
    assert {k: set(t["codes"]) for k, t in found.items()} == {
        "slot:item:dagger": {"f-dagger", "f-dagger-repellant"},
        "slot:item:repellant": {"f-repellant", "f-dagger-repellant"}}
    for t in found.values():
        assert t["tabindex"] == "0" and t["w"] >= 44 and t["h"] >= 44, t
        assert all(fights[c] in t["label"] for c in t["codes"]), t
    key_on(driver, "#board svg [data-thing='item:dagger']", Keys.ENTER)
    wait_until(lambda: all_css(driver, "svg.pocket-board [data-thing='cancel']"),
               what="the Dagger's fights in the tray")
    key_on(driver, "svg.pocket-board [data-thing='cancel']", Keys.ENTER)
    wait_until(lambda: not all_css(driver, "svg.pocket-board [data-thing='cancel']"),
               what="the tray to close")
    assert step_open(driver) and codes_on_board(driver) == set(fights)
    key_on(driver, "#board svg [data-thing='item:repellant']", " ")
    wait_until(lambda: all_css(driver, "svg.pocket-board [data-thing='code:f-dagger-repellant']"),
               what="the Repellant's fights in the tray")
    key_on(driver, "svg.pocket-board [data-thing='code:f-dagger-repellant']", " ")
    wait_until(lambda: version(driver) == str(version0 + 1), what="the fight by Space")
    assert [(m["code"], m["version"]) for m in srv.messages("choose")] == [
        ("fk", version0), ("f-dagger-repellant", version0)]


@pytest.mark.parametrize("size", [(360, 780), (400, 800)], ids=["360", "400"])
def test_pocket_a_step_has_no_text_under_9_px(browser: Any, pocket_steps: Any, shots: Path,
                                             size: tuple[int, int]) -> None:
    srv = pocket_steps("to")
    driver = browser(size)
    open_pocket(driver, srv)
    touch(driver, "#board svg [data-code='to.fountain']")
    wait_until(lambda: "g.fountain" in codes_on_board(driver), what="the ways")
    small = driver.execute_script("""
        return [...document.querySelectorAll('svg.pocket-board text')]
          .filter((t) => t.textContent.trim())
          .map((t) => [t.textContent, t.getBoundingClientRect().height,
                       parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a])
          .filter(([, h, px]) => h < 9 || px < 9);""")
    assert small == [], small[:10]
    for t in board_targets(driver):
        assert t["w"] >= 44 and t["h"] >= 44, t
    assert driver.execute_script(
        "return document.documentElement.scrollWidth <= window.innerWidth")
    if size[0] == 360:
        by_css(driver, "svg.pocket-board [data-key='tray']")
        driver.execute_script("document.querySelector(\"svg.pocket-board [data-key='tray']\")"
                              ".scrollIntoView({block: 'center'})")
        driver.switch_to.default_content()
        assert driver.save_screenshot(str(shots / "pocket-step-ways-360.png"))
