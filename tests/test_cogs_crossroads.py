"""Crossroads Inn on Discord: the UI adapter (pure), and the /crossroads commands, the
table options, the hand message and the guided turn through the REAL discord.py command
tree (tests/discord_fakes.py).

The adapter is checked on many states reached by playouts (the heuristic AI mixed with
random moves, so the rare choices show up: political gossip against another player,
tile swaps, Special Actions, Kingdom Cards): every menu holds at most 25 choices, every
legal action is reachable through the menus (the public turn message for the public
ones, the hand for all), the public message never depends on a secret, and no code
carries a Recipe or a Basic Inn Tile.
"""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import bot.messages.delivery.order as delivery_order
from bot.core.choices import get_ui
from bot.core.choices.adapter import Menu, UnknownChoice
from bot.core.choices.crossroads_inn import (
    CrossroadsUI,
    action_code,
    kingdom_line,
    options_line,
    parse_table_options,
    secret_choice,
    space_label,
)
from bot.messages.ui.ids import CODE_RE
from engines import get_game
from engines.core import Rng, UserError
from engines.crossroads_inn.content import load_content
from engines.crossroads_inn.state import (
    Build,
    Buy,
    Complete,
    CrossroadsState,
    DraftPick,
    EndTurn,
    Impression,
    Next,
    TakeBack,
    UseGossip,
)
from tests.discord_fakes import (
    ANN,
    BOB,
    CAROL,
    CHANNEL_ID,
    EDITS,
    Harness,
    Sent,
    answer,
    close_harness,
    make_harness,
    only,
    reply_text,
)

GAME = get_game("crossroads-inn")
UI = CrossroadsUI()
C = load_content()

CONFIGS = (
    (2, {"basic_tiles": "draft"}, 1),
    (3, {"basic_tiles": "draft", "kingdom": "random"}, 2),
    (4, {"basic_tiles": "random", "kingdom": "8+9"}, 3),
    (2, {"basic_tiles": "none", "kingdom": "1+5"}, 4),
    (3, {"basic_tiles": "random", "kingdom": "4+6"}, 5),
)


# --------------------------------------------------------------------------- states


def playout(players: int, options: dict[str, Any], seed: int, *, wild: float = 0.35,
            limit: int = 700) -> Iterator[tuple[CrossroadsState, int]]:
    """(state, seat to act) along a game: the heuristic AI, with a share of random
    moves (take-backs included) so unusual choices come up."""
    from engines.agents.crossroads_inn import HeuristicAgent

    agent = HeuristicAgent()
    state = GAME.setup(players, GAME.Options(**options), seed=seed)
    rng = Rng.from_seed(seed)
    pick = random.Random(seed)
    for _ in range(limit):
        if GAME.outcome(state) is not None:
            return
        seat = GAME.to_act(state)[0]
        yield state, seat
        legal = GAME.legal_actions(state, seat)
        if pick.random() < wild:
            action = pick.choice(legal)
        else:
            action = agent.choose(GAME, state, seat, rng)
        GAME.apply(state, seat, action)


@cache
def sampled() -> list[tuple[str, CrossroadsState, int]]:
    """A few hundred varied states (copies), from every configuration."""
    out = []
    for players, options, seed in CONFIGS:
        for i, (state, seat) in enumerate(playout(players, options, seed)):
            if i % 2 == 0 or state.pending is not None or state.turn.step == "gossip":
                out.append((f"{players}p {options} ply {i}", GAME.copy_state(state), seat))
    return out


def choices(menu: Menu) -> list[Any]:
    return [c for c in (*menu.choices, *menu.buttons) if not c.disabled]


def reachable(view: Any, legal: list[Any], menus: list[Menu]) -> dict[str, int]:
    """repr(action) -> the fewest clicks that play it from these menus (the follow-up
    menus opened by resolve, as a player would click through them)."""
    found: dict[str, int] = {}
    frontier = [(c.code, 1) for m in menus for c in choices(m)]
    seen: set[str] = set()
    while frontier:
        code, depth = frontier.pop(0)
        if code in seen or code == UI.turn_code:
            continue
        seen.add(code)
        res = UI.resolve(code, view, legal)
        if res.action is not None:
            found.setdefault(repr(res.action), depth)
            continue
        assert res.menu is not None
        check_menu(res.menu)
        frontier += [(c.code, depth + 1) for c in choices(res.menu)]
    return found


def check_menu(menu: Menu) -> None:
    assert len(menu.choices) <= 25 and len(menu.buttons) <= 20
    for c in (*menu.choices, *menu.buttons):
        assert CODE_RE.fullmatch(c.code), c.code
        assert len(c.label) <= (100 if menu.as_select else 80), c.label
        assert c.description is None or len(c.description) <= 100


SECRET_WORDS = sorted({r.id for r in C.recipes} | {b.id for b in C.basic_tiles}
                      | {r.name.lower() for r in C.recipes}
                      | {b.name.lower() for b in C.basic_tiles})


def codes_of(menus: list[Menu], view: Any, legal: list[Any]) -> list[str]:
    out = []
    todo = [c.code for m in menus for c in (*m.choices, *m.buttons)]
    while todo:
        code = todo.pop()
        out.append(code)
        if code == UI.turn_code:
            continue
        try:
            res = UI.resolve(code, view, legal)
        except UnknownChoice:
            continue  # a greyed grid cell
        if res.menu is not None:
            todo += [c.code for c in res.menu.choices]
    return out


# --------------------------------------------------------------------------- the adapter


def test_registered_adapter() -> None:
    assert isinstance(get_ui("crossroads-inn"), CrossroadsUI)


def test_every_legal_action_is_reachable_and_menus_hold_25_at_most() -> None:
    kinds: dict[str, int] = {}
    deepest = 0
    for where, state, seat in sampled():
        legal = GAME.legal_actions(state, seat)
        mine, public = GAME.view(state, seat), GAME.view(state, None)
        hand = UI.hand_menus(mine, legal)
        assert 1 <= len(hand) <= 5, where
        for row in hand:
            check_menu(row)
            assert row.as_select or len(row.choices) <= 5, where
        menu = UI.public_menu(public, legal)
        assert menu is not None, where
        check_menu(menu)
        in_hand = reachable(mine, legal, hand)
        assert set(in_hand) == {repr(a) for a in legal}, (where, set(map(repr, legal)) - set(
            in_hand))
        in_public = reachable(mine, legal, [menu])
        for action in legal:
            if not secret_choice(mine, action):
                assert repr(action) in in_public, (where, action)
            kinds[action.kind] = kinds.get(action.kind, 0) + 1
        deepest = max(deepest, *in_hand.values())
    # the playouts met every kind of choice, and no choice is more than 3 clicks away
    assert set(kinds) >= {"draft", "place_basic", "impression", "gossip", "buy", "reserve",
                          "build", "complete", "choose", "next", "undo", "end_turn"}, kinds
    assert deepest <= 3


def test_the_public_message_never_depends_on_a_secret() -> None:
    for where, state, seat in sampled():
        legal = GAME.legal_actions(state, seat)
        public = GAME.view(state, None)
        open_only = [a for a in legal if not secret_choice(public, a)]
        assert UI.public_menu(public, legal) == UI.public_menu(public, open_only) or \
            not open_only, where
        menu = UI.public_menu(public, legal)
        assert menu is not None
        offered = {c.code for c in (*menu.choices, *menu.buttons)}
        for action in legal:
            if secret_choice(public, action):
                assert action_code(action, legal) not in offered, (where, action)


def test_codes_carry_no_recipe_and_no_basic_tile() -> None:
    for where, state, seat in sampled():
        legal = GAME.legal_actions(state, seat)
        mine = GAME.view(state, seat)
        codes = codes_of(UI.hand_menus(mine, legal), mine, legal)
        codes += codes_of([UI.public_menu(GAME.view(state, None), legal)], mine, legal)
        for code in codes:
            low = code.lower()
            assert not any(w in low for w in SECRET_WORDS if len(w) > 3), (where, code)


def _state_at(players: int, options: dict[str, Any], seed: int, test: Any) -> tuple[Any, int]:
    for state, seat in playout(players, options, seed, wild=0.0):
        if test(state, seat):
            return GAME.copy_state(state), seat
    raise AssertionError("moment not reached")


def test_labels_say_what_each_choice_costs_and_does() -> None:
    state, seat = _state_at(2, {"basic_tiles": "none"}, 3,
                            lambda s, _seat: s.turn.step == "invest")
    p = state.seats[seat]
    state.tracks[1][0] = "steel_cages"
    p.gossips["economic"] = 3
    p.pouch = 0
    legal = GAME.legal_actions(state, seat)
    view = GAME.view(state, seat)
    buy = Buy(tier=2, slot=0, pay="gossips")
    assert buy in legal
    assert UI.label(buy, view) == "Buy Steel cages — 3 economic gossips"
    menu = UI.hand_menus(view, legal)[0]
    entry = next(c for c in menu.choices if c.code == "b.2.0.go")
    assert entry.description is not None and "Outlaws +3" in entry.description
    assert "Tier II track, slot 1" in entry.description
    assert UI.label(Next(), view) == "Skip Investing"
    assert space_label("r2c3") == "row 3, column 4 (inner)"
    assert UI.label(Impression(closed="outlaws", open="nobles"), view) == \
        "Outlaws −3 (closed door), Nobles +1 (open door)"
    assert UI.label(UseGossip(action="political_b", players=(1 - seat,),
                              groups=("outlaws", "nobles")), view) == \
        f"Political ×2: {'AB'[1 - seat]}'s Outlaws −1, your Nobles +1"
    assert UI.label(EndTurn(announce=True)) == "End my turn and announce the end of the game"
    assert UI.label(TakeBack()) == "Take back the last step"


def test_build_is_a_grid_laid_out_like_the_inn() -> None:
    state, seat = _state_at(2, {"basic_tiles": "random"}, 5,
                            lambda s, _seat: s.turn.step == "build" and s.pending is None)
    legal = GAME.legal_actions(state, seat)
    public = GAME.view(state, None)
    menu = UI.public_menu(public, legal)
    assert menu is not None and not menu.as_select
    grid = [c for c in menu.choices if c.code.startswith("k.r")]
    assert len(grid) == 20 and [c.row for c in grid] == [r for r in range(4) for _ in range(5)]
    spaces = {a.space for a in legal if isinstance(a, Build)}
    assert {c.code[2:] for c in grid if not c.disabled} == spaces
    tile = C.tile(state.turn.bought[0]).name
    corner = next(c for c in grid if c.code == "k.r0c0")
    basic = C.basic_tile(state.seats[seat].inn["r0c0"].tile).name
    assert basic in corner.label  # the Basic Inn Tile on the corner is named
    some = next(a for a in legal if isinstance(a, Build) and a.space not in
                ("r0c0", "r0c4", "r3c0", "r3c4"))
    assert UI.label(some, public) == f"Build {tile} on {space_label(some.space)}"
    res = UI.resolve(f"k.{some.space}", GAME.view(state, seat), legal)
    assert res.action == some and res.done_text and tile in res.done_text


def test_secret_choices_stay_in_the_hand() -> None:
    state = GAME.setup(2, GAME.Options(basic_tiles="draft"), seed=8)
    legal = GAME.legal_actions(state, 0)
    assert all(isinstance(a, DraftPick) for a in legal)
    public = UI.public_menu(GAME.view(state, None), legal)
    assert public is not None and [c.code for c in public.choices] == [UI.turn_code]
    hand = UI.hand_menus(GAME.view(state, 0), legal)
    labels = [c.label for m in hand for c in m.choices]
    assert labels == [f"Keep {C.basic_tile(a.tile).name}" for a in legal]
    # a Recipe to cook: only a button that opens the hand, on the public message
    cook, seat = _state_at(2, {"basic_tiles": "none"}, 11,
                           lambda s, seat: any(isinstance(a, Complete)
                                               for a in GAME.legal_actions(s, seat)))
    legal = GAME.legal_actions(cook, seat)
    menu = UI.public_menu(GAME.view(cook, None), legal)
    assert menu is not None
    assert menu.choices[0].code == UI.turn_code
    assert "Cook" in menu.choices[0].label
    hand = UI.hand_menus(GAME.view(cook, seat), legal)
    names = [C.recipe(a.recipe).name for a in legal if isinstance(a, Complete)]
    shown = " ".join(c.label for m in hand for c in m.choices)
    assert all(n in shown for n in names)


def test_big_lists_are_grouped_into_follow_up_menus() -> None:
    state, seat = _state_at(2, {"basic_tiles": "none"}, 3,
                            lambda s, _seat: s.turn.step == "gossip")
    p = state.seats[seat]
    p.gossips.update({"economic": 3, "political": 3, "travellers": 3})
    state.turn.gossips_used = []
    legal = GAME.legal_actions(state, seat)
    assert len([a for a in legal if a.kind == "gossip"]) > 25
    view = GAME.view(state, seat)
    top = UI.hand_menus(view, legal)[0]
    assert top.as_select and len(top.choices) <= 25
    group = next(c for c in top.choices if c.code == "g.pb")
    assert group.label.startswith("Political ×2") and group.label.endswith("›")
    whom = UI.resolve("g.pb", view, legal).menu
    assert whom is not None and {c.code for c in whom.choices} == {"g.pb.0", "g.pb.1"}
    pairs = UI.resolve(f"g.pb.{1 - seat}", view, legal).menu
    assert pairs is not None and len(pairs.choices) == 25 and pairs.as_select
    res = UI.resolve(pairs.choices[0].code, view, legal)
    assert res.action in legal and res.action.kind == "gossip"


def test_refusals_are_plain() -> None:
    state, seat = _state_at(2, {"basic_tiles": "none"}, 3,
                            lambda s, _seat: s.turn.step == "invest")
    legal = GAME.legal_actions(state, seat)
    view = GAME.view(state, seat)
    with pytest.raises(UnknownChoice, match="not open now"):
        UI.resolve("i.outlaws.nobles", view, legal)
    if TakeBack() not in legal:
        with pytest.raises(UnknownChoice, match="nothing to take back"):
            UI.resolve("u", view, legal)
    with pytest.raises(UnknownChoice):
        UI.resolve("zz", view, legal)


def test_hand_text_lists_recipes_with_ingredients_and_rewards() -> None:
    class Info:
        def __init__(self) -> None:
            self.seats = [type("S", (), {"index": 0, "name": "Ann"})(),
                          type("S", (), {"index": 1, "name": "Bob"})()]
            self.channel_id = 5
            self.status = None
            self.outcome_text = None

    state = GAME.setup(2, GAME.Options(basic_tiles="none"), seed=1)
    view = GAME.view(state, 0)
    text = UI.hand_text(Info(), view, GAME.legal_actions(state, 0), ["Ann draws."])
    assert "Ann's hand" in text and "**Latest:** Ann draws." in text
    for r in state.seats[0].recipes:
        recipe = C.recipe(r)
        assert recipe.name in text and recipe.reward.text in text
        assert all(C.ingredient(i).name in text for i in recipe.ingredients)
    for r in state.seats[1].recipes:
        assert C.recipe(r).name not in text  # the other hand, never
    # the picture is drawn again only when what it shows changes
    key = UI.hand_picture_key(view)
    GAME.apply(state, 0, next(a for a in GAME.legal_actions(state, 0) if a.kind == "next"))
    assert UI.hand_picture_key(GAME.view(state, 1)) != key


# --------------------------------------------------------------------------- options


def test_table_options_parse_every_way_to_write_them() -> None:
    assert parse_table_options({"basic_tiles": "Draft", "kingdom": "5+1",
                                "advanced_recipes": "include"}) == \
        {"basic_tiles": "draft", "kingdom": "1+5", "advanced_recipes": "include"}
    assert parse_table_options({"kingdom": "random"}) == {"kingdom": "random"}
    assert parse_table_options({"kingdom": False, "basics": "none"}) == \
        {"kingdom": "none", "basic_tiles": "none"}
    assert parse_table_options({"kingdom": "7 10"})["kingdom"] == "7+10"
    assert parse_table_options({"advanced": True})["advanced_recipes"] == "include"
    for bad, words in (({"kingdom": "3"}, "two card numbers"),
                       ({"kingdom": "3+3"}, "DIFFERENT"),
                       ({"kingdom": "0+11"}, "DIFFERENT"),
                       ({"kingdom": "lots"}, "not 'none', 'random'"),
                       ({"basic_tiles": "some"}, "draft .* random .* none"),
                       ({"advanced_recipes": "maybe"}, "auto"),
                       ({"colour": "red"}, "no option 'colour'"),
                       ({"kingdom": "1+2", "cards": "3+4"}, "once")):
        with pytest.raises(UserError, match=words):
            parse_table_options(bad)
    # every parsed value is one the engine takes
    for typed in ({"kingdom": "9+2"}, {"basic_tiles": "random"}, {}):
        GAME.parse_options(parse_table_options(typed))


def test_the_chart_kind_is_shown_when_choosing_kingdom_cards() -> None:
    assert kingdom_line([1, 8]).endswith("(difficult and challenging)")
    assert kingdom_line([2, 3]).endswith("(neutral)")
    line = options_line({"basic_tiles": "draft", "kingdom": "1+5",
                         "advanced_recipes": "auto"})
    assert "drafted" in line and "#1 I wanna see you!" in line
    assert "interesting and simple" in line
    assert "at random" in options_line({"kingdom": "random"})


# --------------------------------------------------------------------------- through Discord


@pytest.fixture
async def h(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    monkeypatch.setattr(delivery_order.TableOrder, "WAIT", 0.01)
    harness = await make_harness(tmp_path / "c.sqlite3", seed=5)
    yield harness
    await close_harness(harness)


async def open_table(h: Harness, options: str = "basic_tiles=none kingdom=1+5") -> list[Sent]:
    sent = await h.slash("table new", ANN, uname="Ann", game="crossroads-inn",
                         options=options)
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN, uname="Ann")
    await h.service.wait_idle()
    await h.fake.settle()
    return sent


def dm_payloads(h: Harness, user: int) -> list[dict[str, Any]]:
    """The user's DM hand message as it reads now (sent, then edited)."""
    first = next(s for s in h.fake.sent if s.kind == "dm" and s.channel_id == user
                 and "hand**" in s.content)
    latest = dict(first.payload)
    for s in h.fake.sent:
        if s.kind in EDITS and s.message_id == first.message_id:
            latest.update(s.payload)
    return [first.payload, latest]


async def test_table_new_confirms_the_options_with_the_chart_kind(h: Harness) -> None:
    sent = await h.slash("table new", ANN, uname="Ann", game="crossroads-inn",
                         options="kingdom=1+8 basic_tiles=random")
    reply = answer(sent).content
    assert "#1 I wanna see you! + #8 This guy must be a collector" in reply
    assert "difficult and challenging" in reply and "placed at random" in reply
    await h.slash("table abort", ANN)
    sent = await h.slash("table new", ANN, uname="Ann", game="crossroads-inn",
                         options="kingdom=4")
    assert "two card numbers" in reply_text(sent) and all(s.ephemeral for s in sent)


async def test_rules_kingdom_and_help(h: Harness) -> None:
    sent = await h.slash("rules", CAROL, game="crossroads-inn")
    text = answer(sent).content
    assert "Crossroads Inn" in text and "Guest Impression" in text and "/crossroads" in text
    sent = await h.slash("crossroads kingdom", CAROL)
    text = answer(sent).content
    assert "The ten Kingdom Cards" in text and "Interesting and simple" in text
    assert "1+5" in text and "Difficult" in text
    sent = await h.slash("crossroads help", CAROL)
    assert "Take back" in answer(sent).content
    await open_table(h)
    sent = await h.slash("crossroads kingdom", CAROL)
    text = answer(sent).content
    assert "In play at this table" in text and "#5 Make some room!" in text
    assert "interesting and simple" in text


async def test_start_names_the_kingdom_cards_and_deals_hands_by_dm(h: Harness) -> None:
    await open_table(h)
    start = next(s for s in h.fake.channel_messages() if "Kingdom Cards" in s.content)
    assert "#1 I wanna see you!" in start.content
    state = GAME.load_state((await h.service.store.get_table(
        (await h.service.status(CHANNEL_ID)).id)).state)  # type: ignore[union-attr]
    info = await h.service.status(CHANNEL_ID)
    for user in (ANN, BOB):
        seat = info.seat_of(user)
        assert seat is not None
        first, latest = dm_payloads(h, user)
        text = latest.get("content") or first.get("content")
        for r in state.seats[seat.index].recipes:
            assert C.recipe(r).name in text
        for r in state.seats[1 - seat.index].recipes:
            assert C.recipe(r).name not in text
    # the public messages name no Recipe
    for s in h.fake.channel_messages():
        for seat in state.seats:
            for r in seat.recipes:
                assert C.recipe(r).name not in s.content


async def test_a_step_edits_the_one_turn_message_and_take_back_undoes_it(h: Harness) -> None:
    await open_table(h)
    info = await h.service.status(CHANNEL_ID)
    mover = info.to_act_users[0]
    prompt = h.fake.last_prompt()
    skip = next(c for c in prompt.custom_ids if c.endswith(":n"))
    sent = await h.click(skip, BOB if mover == ANN else ANN, message=prompt)
    assert "not your turn" in reply_text(sent)
    await h.click(skip, mover, message=prompt)
    await h.service.wait_idle()
    await h.fake.settle()
    after = h.fake.last_prompt()
    assert after.message_id == prompt.message_id  # edited, not a new message
    undo = next((c for c in after.custom_ids if c.endswith(":u")), None)
    assert undo is not None
    version = (await h.service.status(CHANNEL_ID)).version
    await h.click(undo, mover, message=after)
    await h.service.wait_idle()
    await h.fake.settle()
    assert (await h.service.status(CHANNEL_ID)).version == version + 1
    state = GAME.load_state((await h.service.store.get_table(info.id)).state)  # type: ignore[union-attr]
    assert state.turn.step == "impression"
    assert h.fake.last_prompt().message_id == prompt.message_id
    history = await h.service.history(CHANNEL_ID)
    back = next(i for i, line in enumerate(history) if "takes back" in line)
    # the step taken back is in the log just before (a Skip is logged too)
    assert history[back - 1].endswith("skips the Guest Impression")


async def test_inn_command_shows_one_inn(h: Harness) -> None:
    await open_table(h)
    sent = await h.slash("crossroads inn", CAROL, seat=2)
    reply = only(sent, "followup")
    info = await h.service.status(CHANNEL_ID)
    second = next(s.name for s in info.seats if s.index == 1)
    assert reply.ephemeral and f"{second}'s inn" in reply.content
    game_id, view, options = h.rendered[-1]
    assert game_id == "crossroads-inn" and view.seat is None and options["part"] == "inn:1"
    sent = await h.slash("crossroads inn", ANN, player=(BOB, "Bob"), public=True)
    assert any(s.kind == "channel_message" and s.files for s in sent)
    bob = info.seat_of(BOB)
    assert bob is not None and h.rendered[-1][2]["part"] == f"inn:{bob.index}"
    sent = await h.slash("crossroads inn", ANN, seat=4)
    assert "seats 1 to 2" in reply_text(sent)


async def test_inn_command_for_ones_own_inn_speaks_to_you(h: Harness) -> None:
    # Your own inn, only to you: "Your inn", and the picture is drawn for you (its title
    # "Your inn · your turn"), not "Ann's inn · their turn".
    await open_table(h)
    info = await h.service.status(CHANNEL_ID)
    ann = info.seat_of(ANN)
    assert ann is not None
    sent = await h.slash("crossroads inn", ANN)
    reply = only(sent, "followup")
    assert reply.ephemeral and reply.content.startswith("**Your inn** (player ")
    assert "Ann's inn" not in reply.content
    assert h.rendered[-1][2]["part"] == f"inn:{ann.index}"
    assert h.rendered[-1][2]["viewer"] == ann.index
    # the same inn by name, still only to Ann: hers, so still "Your inn"
    sent = await h.slash("crossroads inn", ANN, seat=ann.index + 1)
    assert only(sent, "followup").content.startswith("**Your inn**")
    # in the channel it is named for everyone, and drawn for nobody in particular
    sent = await h.slash("crossroads inn", ANN, public=True)
    posted = next(s for s in sent if s.kind == "channel_message")
    assert posted.content.startswith(f"**{ann.name}'s inn**")
    assert h.rendered[-1][2]["viewer"] is None
    # someone else's inn is theirs
    sent = await h.slash("crossroads inn", ANN, player=(BOB, "Bob"))
    assert "Your inn" not in only(sent, "followup").content
    assert h.rendered[-1][2]["viewer"] is None


def test_no_secret_in_any_label_of_the_public_menu() -> None:
    names = [r.name for r in C.recipes] + [b.name for b in C.basic_tiles]
    pattern = re.compile("|".join(re.escape(n) for n in names))
    for where, state, seat in sampled():
        legal = GAME.legal_actions(state, seat)
        public = GAME.view(state, None)
        menu = UI.public_menu(public, legal)
        assert menu is not None
        for c in (*menu.choices, *menu.buttons):
            hit = pattern.search(c.label + (c.description or ""))
            if hit is None:
                continue
            # a Basic Inn Tile face up (placed, or revealed and still to place, as the
            # public view shows) may be named; nothing else
            shown = {C.basic_tile(t).name for p in public.seats
                     for t in [*(b.tile for b in p.inn.values() if b.basic),
                               *p.basics_to_place]}
            assert hit.group(0) in shown, (where, c.label)


def test_docstring_examples_of_the_adapter() -> None:
    import doctest

    import bot.core.choices.crossroads_inn as module

    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 5 and result.failed == 0


async def test_option_autocomplete_shows_each_pair_with_its_chart_kind(h: Harness) -> None:
    sent = await h.autocomplete("table new", ANN, "options", game="crossroads-inn",
                                options="basic_tiles=random kingdom=1")
    choices = sent.payload["data"]["choices"]
    names = [c["name"] for c in choices]
    assert "basic_tiles=random kingdom=1+5 — interesting and simple: I wanna see you! + " \
        "Make some room!" in names
    assert any(n.startswith("basic_tiles=random kingdom=1+8 — difficult") for n in names)
    assert all(c["value"].startswith("basic_tiles=random kingdom=1") for c in choices)
    assert all(len(c["name"]) <= 100 and len(c["value"]) <= 100 for c in choices)
    # another game keeps the generic suggestions
    sent = await h.autocomplete("table new", ANN, "options", game="treasure", options="")
    assert any("variant=true" in c["value"] for c in sent.payload["data"]["choices"])


def test_a_select_and_its_buttons_share_one_message() -> None:
    from bot.messages.ui.items import build_view

    state, seat = _state_at(2, {"basic_tiles": "none"}, 3,
                            lambda s, _seat: s.turn.step == "invest")
    menu = UI.public_menu(GAME.view(state, None), GAME.legal_actions(state, seat))
    assert menu is not None and menu.as_select and menu.buttons
    view = build_view(menu, "t1", 7)
    assert view is not None
    rows = [(type(item).__name__, item.item.row) for item in view.children]  # type: ignore[attr-defined]
    assert rows[0] == ("GameSelect", None) or rows[0][0] == "GameSelect"
    assert all(kind == "GameButton" and row == 1 for kind, row in rows[1:])
    with pytest.raises(ValueError, match="under a select"):
        Menu(prompt="", choices=(), buttons=menu.buttons)


async def test_the_draft_picks_of_a_round_share_one_message(h: Harness) -> None:
    """Everyone picks at once, in any order: each pick is news in the same message (the
    one that asked them all), not a message of its own."""
    await open_table(h, "basic_tiles=draft")
    asked = h.fake.last_prompt()
    count = len(h.fake.channel_messages())
    for user in (ANN, BOB):
        legal = await h.service.legal_actions(CHANNEL_ID, user)
        outbox = await h.service.act(CHANNEL_ID, user, legal[0])
        await h.bot.delivery.deliver(outbox)
        await h.fake.settle()
        if user == ANN:  # Bob still picks: the message that asked both is edited
            assert len(h.fake.channel_messages()) == count
            now = h.fake.current(asked)
            assert "Ann keeps a Basic Inn Tile face down" in now.content
            assert f"<@{ANN}>" not in now.content.splitlines()[-1]  # only Bob is asked now
    # the round is over: the next round is asked in a new message
    assert len(h.fake.channel_messages()) == count + 1


@pytest.mark.parametrize("first", [ANN, BOB])
async def test_after_the_draft_the_turn_message_names_only_who_acts(h: Harness,
                                                                    first: int) -> None:
    """The draft asks everyone in one message per round, and each pick edits it. When the
    last pick ends the draft and its picker is the one to act next, that edit must name
    the player to act, not the one the message first asked (in the load benchmark the
    other player clicked, and was told it was not their turn). ``first`` picks first in
    every round, so one of the two runs ends on the first placer's own pick."""
    await open_table(h, "basic_tiles=draft")
    last = None
    for _ in range(12):
        info = await h.service.status(CHANNEL_ID)
        users = sorted(info.to_act_users, key=lambda u: u != first)
        legal = await h.service.legal_actions(CHANNEL_ID, users[0])
        if len(users) == 1 and legal[0].kind != "draft":
            break
        last = users[0]
        await h.bot.delivery.deliver(await h.service.act(CHANNEL_ID, users[0], legal[0]))
        await h.fake.settle()
    info = await h.service.status(CHANNEL_ID)
    (acting,) = info.to_act_users
    other = ANN if acting == BOB else BOB
    turn = h.fake.current(h.fake.last_prompt())
    assert f"<@{other}>" not in turn.content, turn.content
    if last == acting:  # the draft's last pick and the first placement: one message
        assert f"<@{acting}>" in turn.content, turn.content
