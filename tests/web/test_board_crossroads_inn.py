"""Crossroads Inn's board in the Activity (bot/web/client/src/board/crossroads-inn.js), fed
real states: seeded games played by the engine, each state built by bot/web/states.py's
``state_message`` from a real Outbox (the seat's own view, its legal actions and the hand
menus of the game's choice adapter), the guided steps answered by that adapter as bot/web
does (the server of test_board_fairy_tale_inn.py, for this game)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from bot.core.choices.crossroads_inn import _codes
from tests.web.conftest import DESKTOP, PHONE
from tests.web.fake_server import wait_until
from tests.web.test_activity import all_css, by_css, open_table, severe_logs
from tests.web.test_board_fairy_tale_inn import (
    BOARD_TOP,
    SHIFT_WATCH,
    InnServer,
    small_texts,
    tap,
    text_count,
    version,
    view_box,
)

GAME = "crossroads-inn"
DATA_JS = (Path(__file__).resolve().parents[2] / "bot" / "web" / "client" / "src" / "board"
           / "crossroads-inn-data.js")


def board_data() -> dict[str, Any]:
    """What crossroads-inn-data.js must hold, from the game's content."""
    from engines.crossroads_inn.content import load_content

    c = load_content()
    return {
        "tiles": {t.id: {"name": t.name, "category": t.category, "tier": t.tier,
                         "guldens": t.cost.guldens,
                         "alt": ([t.cost.or_gossips.gossip, t.cost.or_gossips.count]
                                 if t.cost.or_gossips else None),
                         "effect": t.effect.text, "ingredient": t.ingredient,
                         "drawback": t.drawback.text if t.drawback else None}
                  for t in c.inn_tiles},
        "basics": {b.id: {"name": b.name, "build": b.on_build.text if b.on_build else None,
                          "cover": b.on_cover.text} for b in c.basic_tiles},
        "recipes": {r.id: {"name": r.name, "ingredients": list(r.ingredients),
                           "reward": r.reward.text} for r in c.recipes},
        "categories": {k.id: {"name": k.name, "colour": k.colour} for k in c.categories},
        "ingredients": {i.id: {"name": i.name, "rarity": i.rarity} for i in c.ingredients},
        "groups": [{"id": g.id, "name": g.name, "special": g.special_action_space,
                    "prestige": [s.prestige for s in g.track]} for g in c.groups],
        "kingdom": {str(k.number): {"title": k.title, "rule": k.rule_text}
                    for k in c.kingdom_cards},
    }


# --------------------------------------------------------------------------- real states


def _codes_of(st: Any, game: Any) -> dict[str, Any]:
    return _codes(game.legal_actions(st, 0)) if game.to_act(st) == [0] else {}


def _turn_of_0(st: Any, step: str) -> bool:
    return (st.phase == "turn" and st.pending is None and st.turn.seat == 0
            and st.turn.step == step)


def _game() -> Any:
    from engines import get_game

    return get_game(GAME)


POINTS: dict[str, tuple[int, Any]] = {
    # (seed of random play, the first moment that holds)
    "draft": (1, lambda st, n: True),
    "place": (1, lambda st, n: st.phase == "place_basics" and st.pending is None
              and _game().to_act(st) == [0]),
    "gossip": (4, lambda st, n: _turn_of_0(st, "gossip") and "g.pb" in str(
        [c.code for m in _hand(st) for c in m.choices])),
    "invest": (5, lambda st, n: _turn_of_0(st, "invest") and any(
        c.endswith(".go") for c in _codes_of(st, _game()))),
    "build": (1, lambda st, n: _turn_of_0(st, "build")),
    "cook": (4, lambda st, n: _turn_of_0(st, "recipes") and any(
        re.fullmatch(r"c\d+", c) for c in _codes_of(st, _game()))),
    "pick": (1, lambda st, n: st.pending is not None and st.pending.seat == 0
             and st.pending.kind == "reputation_any"),
    "impression": (1, lambda st, n: _turn_of_0(st, "impression")),
    "reserve": (1, lambda st, n: _turn_of_0(st, "reserve")),
    "tracks": (1, lambda st, n: _pending_of_0(st, "investment_pick")),
    "gain": (4, lambda st, n: _pending_of_0(st, "gossip_gain")),
    "discard": (1, lambda st, n: _pending_of_0(st, "reserved_discard")),
    "keep": (10, lambda st, n: _pending_of_0(st, "keep_recipe")),
    "lose": (9, lambda st, n: _pending_of_0(st, "discard_recipe")),
    "over": (1, lambda st, n: st.finished),
}


def _pending_of_0(st: Any, kind: str) -> bool:
    return st.pending is not None and st.pending.seat == 0 and st.pending.kind == kind


def _hand(st: Any) -> list[Any]:
    from bot.core.choices import get_ui

    game = _game()
    if game.to_act(st) != [0]:
        return []
    return list(get_ui(GAME).hand_menus(game.view(st, 0), game.legal_actions(st, 0)))


class CrossroadsServer(InnServer):
    """The real-table fake server, for Crossroads Inn (two innkeepers, Basic Inn Tiles
    drafted): each moment from its own seeded game (POINTS)."""

    game_id = GAME
    game_name = "Crossroads Inn"
    points: ClassVar[dict[str, Any]] = {k: v[1] for k, v in POINTS.items()}

    def __init__(self, point: str = "draft") -> None:
        self.seed = POINTS[point][0]
        super().__init__(point)


@pytest.fixture
def inn() -> Iterator[Any]:
    servers: list[CrossroadsServer] = []

    def make(point: str = "draft", seat: int | None = 0) -> CrossroadsServer:
        srv = CrossroadsServer(point)
        srv.seat = seat
        servers.append(srv.start())
        return srv

    try:
        yield make
    finally:
        for srv in servers:
            srv.stop()


def open_board(driver: Any, server: CrossroadsServer) -> None:
    open_table(driver, server)
    wait_until(lambda: all_css(driver, "#board svg.ci-svg .ci-cell"), what="the Crossroads board")


def targets(driver: Any) -> list[dict[str, Any]]:
    """Every touch target of the board that plays a choice: its code, label, place, zone,
    focusability and size."""
    return driver.execute_script("""
        return [...document.querySelectorAll('#board svg [role=button][data-code]')].map((g) => {
          const r = g.getBoundingClientRect();
          return {code: g.dataset.code, label: g.getAttribute('aria-label'),
                  place: g.dataset.place, zone: g.dataset.zone,
                  tabindex: g.getAttribute('tabindex'), w: r.width, h: r.height,
                  visible: g.getAttribute('display') !== 'none'
                           && getComputedStyle(g).display !== 'none'};
        });""")


GROUPS = ("distressed", "outlaws", "travellers", "townsfolk", "nobles")
GOSSIPS = ("economic", "political", "travellers")


def placed(choices: list[dict[str, Any]], view: dict[str, Any]) -> dict[str, str]:
    """The choices that have a place on the board (not disabled), by their code's shape
    (bot/core/choices/crossroads_inn.py): what the board must offer, code -> label."""
    pend = view.get("pending") or {}
    kind = pend.get("kind")
    codes = [c["code"] for c in choices if not c["disabled"]]
    tb_mine = {c.split(".")[2] for c in codes if re.fullmatch(r"g\.tb\.r\dc\d\.\d\.r\dc\d", c)}
    i_closed = {c.split(".")[1] for c in codes if re.fullmatch(r"i\.[a-z]+\.[a-z]+", c)}
    rules = [
        (r"d\d+", view["phase"] == "draft"), (r"p0\.r\dc\d", True), (r"k\.r\dc\d", True),
        (r"b\.[12r]\.\d(\.(gu|go))?", True), (r"[br]\.[12]", True), (r"r\.[12]\.\d", True),
        (r"o\.[12]\.\d", kind == "investment_pick"), (r"o\.\d", kind == "reserved_discard"),
        (rf"o\.({'|'.join(GROUPS)})", kind == "reputation_any"),
        (rf"o\.({'|'.join(GOSSIPS)})", kind in ("gossip_gain", "gossip_lose")),
        (r"s\d+", kind in ("keep_recipe", "discard_recipe")), (r"c\d+", True),
        (r"g\.ea", True), (r"g\.pa\.[a-z]+", True), (r"g\.ta\.[12]", True),
        (r"g\.(eb|ec|pb|pc)\.\d", True), (r"g\.tb\.r\dc\d", True),
        (r"g\.tb\.r\dc\d\.\d\.r\dc\d", len(tb_mine) == 1), (r"i\.[a-z]+", True),
        (r"i\.[a-z]+\.[a-z]+", len(i_closed) == 1),
    ]
    out = {}
    for c in choices:
        if not c["disabled"] and any(ok and re.fullmatch(rx, c["code"]) for rx, ok in rules):
            out[c["code"]] = c["label"]
    return out


def menu_choices(msg: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for m in msg["menus"] for c in m["choices"]]


def where(server: CrossroadsServer, code: str) -> tuple[str, str]:
    """Where a code's action belongs on the board (place, zone), from the ENGINE's action
    (not from the board's own rules)."""
    st = server.estate
    action = _codes(server.game.legal_actions(st, 0))[code]
    kind = action.kind
    if kind == "build":
        return f"cell:0:{action.space}", "choice"
    if kind == "place_basic":
        return f"cell:0:{action.space}", "choice"
    if kind == "draft":
        pack = sorted(set(st.seats[0].pack))
        return f"pack:{pack.index(action.tile)}", "choice"
    if kind == "complete":
        return f"recipe:{action.recipe}", "choice"
    if kind == "buy":
        split = {f"{code.rsplit('.', 1)[0]}.gu", f"{code.rsplit('.', 1)[0]}.go"} <= set(
            _codes(server.game.legal_actions(st, 0)))
        zone = ("gu" if action.pay == "guldens" else "go") if split else "choice"
        if action.tier is None:
            return f"res:{action.slot}", zone
        return f"tile:{action.tier}.{action.slot}", zone
    if kind == "reserve":
        return f"tile:{action.tier}.{action.slot}", "choice"
    if kind == "gossip":
        if action.action == "economic_a":
            return "gossip:economic", "choice"
        if action.action == "political_a":
            return f"guest:{action.groups[0]}", "choice"
        if action.action == "travellers_a":
            return f"track:{action.tier}", "choice"
    if kind == "choose" and st.pending is not None:
        if st.pending.kind == "reputation_any":
            return f"guest:{action.option}", "choice"
        if st.pending.kind in ("gossip_gain", "gossip_lose"):
            return f"gossip:{action.option}", "choice"
        if st.pending.kind == "investment_pick":
            tier, slot = action.option.split(":")
            return f"tile:{tier}.{slot}", "choice"
        if st.pending.kind == "reserved_discard":
            return f"res:{action.option}", "choice"
        if st.pending.kind == "keep_recipe":
            return f"drawn:{action.option}", "choice"
        if st.pending.kind == "discard_recipe":
            return f"recipe:{action.option}", "choice"
    raise AssertionError(f"no expected place for {code} ({kind})")


# --------------------------------------------------------------------------- tests


def test_the_boards_names_are_the_contents() -> None:
    source = DATA_JS.read_text(encoding="utf-8")
    m = re.search(r"export const DATA = (\{.*\});\s*$", source, re.S)
    assert m, "crossroads-inn-data.js holds `export const DATA = {...};`"
    assert json.loads(m.group(1)) == board_data(), (
        "crossroads-inn-data.js is out of date: rewrite it from board_data() of this test")


def test_the_moments_are_real() -> None:
    for point in POINTS:
        server = CrossroadsServer(point)
        msg = server.state()
        assert msg["type"] == "state" and msg["game"] == GAME
        if point != "over":
            assert msg["menus"], point
        if point not in ("over", "impression"):
            assert placed(menu_choices(msg), msg["view"]), point


@pytest.mark.parametrize("point", list(POINTS))
def test_the_board_draws_the_view_and_offers_every_placed_choice(browser: Any, inn: Any,
                                                                 point: str) -> None:
    server = inn(point)
    msg = server.state()
    view = msg["view"]
    driver = browser(PHONE)
    open_board(driver, server)
    assert len(all_css(driver, "#board .ci-cell")) == 20 * len(view["seats"]) == 40
    built = sum(len(p["inn"]) for p in view["seats"])
    drawn = {(el.get_attribute("data-seat"), el.get_attribute("data-space")):
             el.get_attribute("data-tile")
             for el in all_css(driver, "#board .ci-inn .ci-cell[data-tile]")}
    assert len(drawn) == built
    for p in view["seats"]:
        for space, b in p["inn"].items():
            assert drawn[(str(p["seat"]), space)] == b["tile"]
    assert view_box(driver).startswith("0 0 360 ")
    want = placed(menu_choices(msg), view)
    if point == "draft":
        assert set(want) == {f"d{i}" for i in range(4)}
    if point == "place":
        assert want and all(c.startswith("p0.") for c in want)
    if point == "invest":
        assert any(c.endswith(".go") for c in want) and any(c.endswith(".gu") for c in want)
    if point == "gossip":
        assert {"g.ea", "g.pb", "g.ta.1"} & set(want) >= {"g.ea", "g.ta.1"}
        assert "g.pb" not in want  # a group of the select: it opens a step, on the shell
    if point == "build":
        assert want and all(c.startswith("k.") for c in want)
    if point == "cook":
        assert any(re.fullmatch(r"c\d+", c) for c in want)
    if point == "pick":
        assert set(want) == {f"o.{g}" for g in GROUPS}
    if point == "impression":
        assert want == {}  # pairs: the closed door's group is chosen on the board first
    if point in ("reserve", "tracks"):
        assert want and all(re.fullmatch(r"[ro]\.[12]\.\d", c) for c in want)
    if point == "gain":
        assert set(want) == {f"o.{g}" for g in GOSSIPS}
    if point == "discard":
        assert want and all(re.fullmatch(r"o\.\d", c) for c in want)
    if point in ("keep", "lose"):
        assert want and all(re.fullmatch(r"s\d", c) for c in want)
    if point == "over":
        assert want == {}
    got = targets(driver)
    assert {t["code"]: t["label"] for t in got} == want
    for t in got:
        assert t["visible"] and t["tabindex"] == "0" and t["label"], t
        assert t["w"] >= 44 and t["h"] >= 44, t
        if not t["code"].startswith("g.pb"):
            assert (t["place"], t["zone"]) == where(server, t["code"]), t
    assert small_texts(driver) == []
    assert text_count(driver) > 60
    assert driver.execute_script("return document.documentElement.scrollWidth <= innerWidth")


def test_a_tap_and_a_key_send_the_code_and_version(browser: Any, inn: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    server = inn("invest")
    server.refuse_all = True
    want = placed(menu_choices(server.state()), server.state()["view"])
    split = sorted(c for c in want if c.endswith(".go"))[:1]
    codes = [*split, f"{split[0][:-3]}.gu", *sorted(set(want) - {split[0]})[:2]]
    driver = browser(PHONE)
    open_board(driver, server)
    sent = 0
    for code in codes:
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
    assert len(server.messages("choose")) == 3 * len(codes)


def test_a_build_updates_the_inn_in_place_and_moves_nothing(browser: Any, inn: Any) -> None:
    server = inn("build")
    driver = browser(PHONE)
    open_board(driver, server)
    driver.execute_script(SHIFT_WATCH + "window.__svg = document.querySelector('#board svg');")
    height = driver.execute_script(
        "return document.querySelector('#board svg').getBoundingClientRect().height")
    top = driver.execute_script(BOARD_TOP)
    code = sorted(c for c in placed(menu_choices(server.state()), server.state()["view"])
                  if not c.startswith("k.r0c0"))[0]
    space = code[2:]
    tile = server.estate.turn.bought[0]
    tap(driver, f"#board svg [data-code='{code}']")
    wait_until(lambda: version(driver) == "8", what="the build's state")
    assert server.messages("choose")[-1] == {**server.messages("choose")[-1], "code": code,
                                             "version": 7}
    assert server.estate.seats[0].inn[space].tile == tile
    name = board_data()["tiles"][tile]["name"]
    cell_text = by_css(driver, f"#board .ci-inn[data-seat='0'] .ci-cell[data-space='{space}']"
                       ).get_attribute("textContent")
    assert name.split()[0] in cell_text
    driver.execute_script("window.__boardShift = 0")
    for _ in range(3):
        if not server.game.to_act(server.estate):
            break
        server.push(server.advance())
        wait_until(lambda v=str(server.version): version(driver) == v, what="the next state")
    assert driver.execute_script("return window.__svg === document.querySelector('#board svg')")
    assert driver.execute_script(
        "return document.querySelector('#board svg').getBoundingClientRect().height") == height
    assert driver.execute_script("return window.__boardShift") == 0
    driver.execute_script("scrollTo(0, 0)")
    assert driver.execute_script(BOARD_TOP) == top
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


def test_the_corners_follow_the_tile_chosen_on_the_hand(browser: Any, inn: Any) -> None:
    server = inn("place")
    msg = server.state()
    tiles = sorted(set(server.estate.seats[0].kept))
    assert len(tiles) == 4
    driver = browser(PHONE)
    open_board(driver, server)
    assert {t["code"] for t in targets(driver)} == {
        c["code"] for c in menu_choices(msg) if c["code"].startswith("p0.")}
    selectors = all_css(driver, "#board svg .ci-select[role=button]")
    assert [s.get_attribute("aria-pressed") for s in selectors] == ["true", "false", "false",
                                                                    "false"]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", selectors[2])
    selectors[2].click()
    wait_until(lambda: {t["code"][:3] for t in targets(driver)} == {"p2."}, what="tile 3's corners")
    assert {t["code"] for t in targets(driver)} == {
        c["code"] for c in menu_choices(msg) if c["code"].startswith("p2.")}
    tap(driver, "#board svg [data-code='p2.r0c0']")
    wait_until(lambda: version(driver) == "8", what="the corner's state")
    assert server.messages("choose")[-1]["code"] == "p2.r0c0"
    assert server.estate.seats[0].inn["r0c0"].tile == tiles[2]


def test_the_guest_impression_is_two_touches_on_the_guest_tiles(browser: Any,
                                                                inn: Any) -> None:
    server = inn("impression")
    msg = server.state()
    pairs = {c["code"] for c in menu_choices(msg) if c["code"].startswith("i.")}
    assert len(pairs) == 20
    driver = browser(PHONE)
    open_board(driver, server)
    assert targets(driver) == []
    picks = all_css(driver, "#board svg .ci-select[role=button]")
    assert len(picks) == 5
    assert all(p.get_attribute("aria-pressed") == "false" for p in picks)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", picks[1])
    picks[1].click()  # Outlaws behind the closed door
    wait_until(lambda: {t["code"] for t in targets(driver)} == {
        c for c in pairs if c.startswith("i.outlaws.")}, what="the open door's groups")
    for t in targets(driver):
        assert t["place"] == f"guest:{t['code'].split('.')[2]}" and t["h"] >= 44, t
    assert [p.get_attribute("aria-pressed") for p in all_css(
        driver, "#board svg .ci-select[role=button]")] == ["true"]
    # Again: back to the five, by the keyboard.
    from selenium.webdriver.common.keys import Keys

    again = by_css(driver, "#board svg .ci-select[role=button]")
    driver.execute_script("arguments[0].focus()", again)
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_until(lambda: targets(driver) == [], what="no pair chosen")
    picks = all_css(driver, "#board svg .ci-select[role=button]")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", picks[4])
    picks[4].click()  # Nobles
    tap(driver, "#board svg [data-code='i.nobles.townsfolk']")
    wait_until(lambda: version(driver) == "8", what="the impression's state")
    assert server.messages("choose")[-1]["code"] == "i.nobles.townsfolk"
    assert server.estate.seats[0].closed_door == "nobles"
    assert server.estate.seats[0].open_door == "townsfolk"


def test_a_guided_step_puts_its_choices_on_the_board(browser: Any, inn: Any) -> None:
    server = inn("gossip")
    driver = browser(PHONE)
    open_board(driver, server)
    before = {t["code"] for t in targets(driver)}
    assert "g.ea" in before
    button = by_css(driver, ".menus button[data-code='g.pb']")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    wait_until(lambda: by_css(driver, ".step").is_displayed(), what="the step")
    # ctx.step: the step's choices are the board's targets now (whose Reputation: a row).
    wait_until(lambda: {t["code"] for t in targets(driver)} == {"g.pb.0", "g.pb.1"},
               what="the step's targets on the board")
    rows = {t["code"]: t for t in targets(driver)}
    assert rows["g.pb.1"]["place"] == "seat:1" and rows["g.pb.0"]["place"] == "seat:0"
    assert all(t["h"] >= 44 for t in rows.values())
    tap(driver, "#board svg [data-code='g.pb.1']")
    chosen = wait_until(lambda: len(server.messages("choose")) >= 2 and server.messages("choose"),
                        what="the step's choice")
    assert [m["code"] for m in chosen] == ["g.pb", "g.pb.1"]
    assert chosen[-1]["version"] == server.version
    # The next step (which groups: pairs) has no single place: nothing to touch on the board.
    wait_until(lambda: "Lower B's Reputation" in by_css(driver, "#step-h").text, what="step 2")
    wait_until(lambda: targets(driver) == [], what="no board targets for the pairs")
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


def test_no_text_under_9_px_at_400_px_wide(browser: Any, inn: Any) -> None:
    for point in ("draft", "invest", "cook", "over"):
        server = inn(point)
        driver = browser((400, 800))
        open_board(driver, server)
        assert small_texts(driver) == [], point


def test_a_spectator_sees_the_table_and_no_hand(browser: Any, inn: Any) -> None:
    server = inn("cook", seat=None)
    msg = server.state()
    assert msg["seat"] is None and msg["view"]["my_recipes"] is None and msg["menus"] == []
    driver = browser(PHONE)
    open_board(driver, server)
    assert targets(driver) == []
    assert all_css(driver, "#board svg [role=button]") == []
    words = driver.execute_script("return document.querySelector('#board svg').textContent")
    assert "Your hand" not in words and "Your inn" not in words and "Your turn" not in words
    recipes = board_data()["recipes"]
    done = {r for p in server.estate.seats for r in p.completed}
    for p in server.estate.seats:
        for r in p.recipes:
            if r not in done:
                assert squeezed(recipes[r]["name"])[:9] not in squeezed(words), r
    assert all_css(driver, "#board .ci-card[data-card]") == []
    assert len(all_css(driver, "#board .ci-inn")) == 2
    driver.execute_script(SHIFT_WATCH)
    top = driver.execute_script(BOARD_TOP)
    for _ in range(4):
        server.push(server.advance())
        wait_until(lambda v=str(server.version): version(driver) == v, what="the next state")
    assert driver.execute_script("return window.__boardShift") == 0
    assert driver.execute_script(BOARD_TOP) == top


def squeezed(words: str) -> str:
    return re.sub(r"\s+", "", words)


def test_a_seat_sees_its_own_hand_and_no_other(browser: Any, inn: Any) -> None:
    server = inn("cook")
    driver = browser(PHONE)
    open_board(driver, server)
    words = squeezed(driver.execute_script(
        "return document.querySelector('#board svg').textContent"))
    recipes = board_data()["recipes"]
    assert "Yourhand" in words
    mine = server.estate.seats[0]
    shown = [el.get_attribute("data-card") for el in all_css(driver, "#board .ci-card[data-card]")]
    assert sorted(shown) == sorted([*mine.recipes, *mine.completed])
    for r in mine.recipes:
        assert squeezed(recipes[r]["name"])[:6] in words, r
    done = {r for p in server.estate.seats for r in p.completed}
    for r in server.estate.seats[1].recipes:
        if r not in done and r not in mine.recipes:
            assert squeezed(recipes[r]["name"])[:9] not in words, r


def test_a_desktop_shows_it_at_most_36rem_wide(browser: Any, inn: Any) -> None:
    server = inn("invest")
    driver = browser(DESKTOP)
    open_board(driver, server)
    width = driver.execute_script(
        "return document.querySelector('#board > svg').getBoundingClientRect().width")
    assert 450 <= width <= 577
    for t in targets(driver):
        assert t["w"] >= 44 and t["h"] >= 44, t
    assert small_texts(driver) == []
    driver.switch_to.default_content()
    assert severe_logs(driver) == []


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone-360", "desktop-1280"])
def test_screenshots(browser: Any, inn: Any, shots: Path, size: tuple[int, int]) -> None:
    name = f"{size[0]}x{size[1]}"
    for point, seat in (("draft", 0), ("place", 0), ("invest", 0), ("build", 0), ("keep", 0),
                        ("over", 0), ("cook", None)):
        server = inn(point, seat=seat)
        driver = browser(size)
        open_board(driver, server)
        who = "spectator" if seat is None else "seat"
        driver.switch_to.default_content()
        assert driver.save_screenshot(str(shots / f"crossroads-{point}-{who}-{name}.png"))
        # The whole board: the frame made as tall as its page, the window as tall as that.
        driver.switch_to.frame(by_css(driver, "#activity"))
        full = driver.execute_script("return document.documentElement.scrollHeight")
        driver.switch_to.default_content()
        tall = min(full + 40, 5000)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": size[0], "height": tall, "deviceScaleFactor": 1, "mobile": size[0] < 600})
        driver.execute_script("document.querySelector('#activity').style.height = arguments[0]"
                              " + 'px'", full)
        assert driver.save_screenshot(str(shots / f"crossroads-{point}-{who}-{name}-full.png"))


class FourServer(CrossroadsServer):
    """Four innkeepers (seat 2 watching its own view) in the middle of a seeded game."""

    NAMES = ("Ada", "Grimm", "Hans", "Ida")

    def __init__(self) -> None:
        import random

        from tests.web.fake_server import FakeServer

        FakeServer.__init__(self)
        self.game = _game()
        self.seed = 3
        self.refuse_all = False
        st = self.game.setup(4, self.game.Options(), self.seed)
        rng = random.Random(self.seed)
        for _ in range(160):
            seat = self.game.to_act(st)[0]
            st_legal = self.game.legal_actions(st, seat)
            self.game.apply(st, seat, rng.choice(st_legal))
        self.estate = st

    def info(self) -> Any:
        from bot.core.tables.models import SeatInfo, TableInfo, TableStatus

        return TableInfo(
            id="17", channel_id=300000000000000003, guild_id=200000000000000002,
            game_id=self.game_id, game_name=self.game_name, options={}, seed=self.seed,
            status=TableStatus.PLAYING, host_id=1,
            seats=tuple(SeatInfo(i, n, i + 1) for i, n in enumerate(self.NAMES)),
            version=self.version, min_players=2, max_players=4, reminder_minutes=0,
            to_act=tuple(self.game.to_act(self.estate)))

    def outbox(self) -> Any:
        from bot.core.tables.models import Outbox, SeatNews

        seats = tuple(SeatNews(seat=s, user_id=s + 1, view=self.game.view(self.estate, s),
                               legal=tuple(self.game.legal_actions(self.estate, s)))
                      for s in range(4))
        return Outbox(table=self.info(), public_view=self.game.view(self.estate, None),
                      seats=seats)


def test_four_innkeepers_fit_a_phone(browser: Any, shots: Path) -> None:
    server = FourServer()
    server.seat = 2
    server.start()
    try:
        msg = server.state()
        assert msg["seat"] == 2 and len(msg["view"]["seats"]) == 4
        driver = browser(PHONE)
        open_board(driver, server)
        assert len(all_css(driver, "#board .ci-inn")) == 4
        assert len(all_css(driver, "#board .ci-cell")) == 80
        # Your own inn first, then the innkeepers' rows, then the other inns in seat order.
        assert [el.get_attribute("data-seat") for el in all_css(driver, "#board .ci-inn")] == [
            "2", "0", "1", "3"]
        assert small_texts(driver) == []
        assert driver.execute_script("return document.documentElement.scrollWidth <= innerWidth")
        want = placed(menu_choices(msg), msg["view"])
        assert {t["code"] for t in targets(driver)} == set(want)
        driver.switch_to.default_content()
        assert driver.save_screenshot(str(shots / "crossroads-four-seat-360x780.png"))
        assert severe_logs(driver) == []
    finally:
        server.stop()
