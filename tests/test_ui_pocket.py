"""Fairy Tale in My Pocket's Discord adapter (pure, no Discord): the public turn menu.

The adapter is checked on many states reached by seeded playouts (the careful AI mixed
with random moves, so the rare moments show up: the Mirror, the Kingdom Path, the
peddler's trades, the Messenger Bird, the Cave), with every gift and 1 or 2 players,
some starting with items (the Lamp, the Elixir, the Shield and the Repellant) so the
Lamp's wishes, the drop of a fourth item and coating the Shield come up too, and a
big map where the Boots and the Lamp give more ways to go than a select holds. At
every decision: the public menu offers exactly the legal actions (each reachable by
clicks, each code resolving back to its action), the codes are short and public, the
limits of Discord's components hold, and the labels are the engine's.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from bot.core.choices import get_ui
from bot.core.choices.adapter import Menu, UnknownChoice
from bot.core.choices.pocket import (
    FEW,
    PocketUI,
    action_code,
    option_suggestions,
    options_line,
    parse_table_options,
)
from bot.messages.ui.ids import CODE_RE, ButtonId, SelectId
from bot.messages.ui.items import build_view
from engines import get_game
from engines.agents.pocket import careful_action
from engines.core import UserError
from engines.pocket.content import load_content
from engines.pocket.game import label as engine_label
from engines.pocket.state import (
    Explore,
    Go,
    Held,
    Pay,
    Placed,
    PocketState,
    Wish,
)

GAME = get_game("pocket")
UI = PocketUI()
C = load_content()

GIFTS: tuple[list[Held], ...] = (
    [],
    [Held(item="lamp"), Held(item="elixir")],
    [Held(item="shield"), Held(item="repellant"), Held(item="cloak")],
    [Held(item="lamp"), Held(item="bucket", empty=True), Held(item="dagger")],
)
"""Items carried from the start, so the Lamp, the drop and the coat come up."""
CONFIGS = tuple(
    (1 + seed % 2, special, GIFTS[seed % len(GIFTS)], seed)
    for seed, special in enumerate(("mirror", "wand", "boots", "random") * 8)
)


# --------------------------------------------------------------------------- states


def playout(players: int, special: str, items: list[Held], seed: int, *,
            wild: float = 0.3, limit: int = 400) -> Iterator[PocketState]:
    """States along one game: the careful AI, with a share of random moves."""
    state = GAME.setup(players, GAME.Options(special=special), seed=seed)
    state.items = [h.model_copy() for h in items]
    if items:
        state.gold = 4
    pick = random.Random(seed)
    for _ in range(limit):
        if GAME.outcome(state) is not None:
            return
        yield state
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_actions(state, seat)
        action = pick.choice(legal) if pick.random() < wild else careful_action(GAME, state)
        GAME.apply(state, seat, action)


def big_map() -> PocketState:
    """Every tile on a 4x4 map, the Boots, the Lamp and gold: more than 25 ways to go."""
    state = GAME.setup(1, GAME.Options(special="boots"), seed=2)
    tiles = [*state.forest, *state.kingdom]
    squares = [(x, y) for y in range(-1, 3) for x in range(-1, 3) if (x, y) != (0, 0)]
    for tile, (x, y) in zip(tiles, squares, strict=True):
        state.placed.append(Placed(tile=tile, x=x, y=y))
    state.forest, state.kingdom = [], []
    state.items = [Held(item="lamp"), Held(item="elixir")]
    state.health, state.gold = 3, 3
    return state


def stuck() -> PocketState:
    """The Forest stack used up and nowhere to walk: the peasant can only stay."""
    state = GAME.setup(1, GAME.Options(special="wand"), seed=3)
    state.forest = []
    return state


@cache
def sampled() -> list[tuple[str, PocketState]]:
    """Copies of the states of every playout, the big map and a stuck peasant."""
    out = [("big map", big_map()), ("stuck", stuck())]
    for players, special, items, seed in CONFIGS:
        for i, state in enumerate(playout(players, special, items, seed)):
            out.append((f"{players}p {special} seed {seed} ply {i}", GAME.copy_state(state)))
    return out


def choices(menu: Menu) -> list[Any]:
    return [c for c in (*menu.choices, *menu.buttons) if not c.disabled]


def check_menu(menu: Menu) -> None:
    """Discord's limits: 25 buttons in five rows of five, or a select of 25 options with
    at most 20 buttons under it (four rows)."""
    assert menu.choices, "a menu with nothing to click"
    assert len(menu.choices) <= 25 and len(menu.buttons) <= 20
    if not menu.as_select:
        assert not menu.buttons
    for c in (*menu.choices, *menu.buttons):
        assert CODE_RE.fullmatch(c.code), c.code
        # the longest table id the service makes still leaves the whole id in bounds
        ButtonId("t" * 40, 999_999_999, c.code).custom_id  # noqa: B018
        assert c.label.strip() and len(c.label) <= 80, c.label
        assert c.description is None or len(c.description) <= 100
    SelectId("t" * 40, 999_999_999, menu.select_code).custom_id  # noqa: B018


def reachable(view: Any, legal: list[Any], menu: Menu) -> tuple[dict[str, Any], list[str]]:
    """code -> action for every action the clicks reach (following the follow-up menus
    as a player would), and every code seen."""
    found: dict[str, Any] = {}
    seen: list[str] = []
    frontier = [c.code for c in choices(menu)]
    while frontier:
        code = frontier.pop(0)
        seen.append(code)
        res = UI.resolve(code, view, legal)
        if res.action is not None:
            found[code] = res.action
            continue
        assert res.menu is not None, code
        check_menu(res.menu)
        frontier += [c.code for c in choices(res.menu)]
    return found, seen


def hidden_ids(state: PocketState) -> set[str]:
    """What no code may name: the cards of the deck and set aside, and the tiles of the
    stacks (but the two the Mirror shows, face up for everyone)."""
    on_map = {p.tile for p in state.placed}
    shown = set(state.mirror_tiles)
    return ({*state.deck, *state.set_aside}
            | {t for t in [*state.forest, *state.kingdom] if t not in on_map | shown})


# --------------------------------------------------------------------------- the menus


def test_registered_adapter() -> None:
    assert isinstance(get_ui("pocket"), PocketUI)


def test_the_public_menu_offers_exactly_the_legal_actions() -> None:
    stages: set[str] = set()
    kinds: set[str] = set()
    selects = grouped = 0
    for where, state in sampled():
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_actions(state, seat)
        public = GAME.view(state, None)
        mine = GAME.view(state, seat)
        menu = UI.public_menu(public, legal)
        assert menu is not None, where
        check_menu(menu)
        assert menu.prompt == public.decision.prompt, where
        found, seen = reachable(mine, legal, menu)
        assert sorted(map(repr, found.values())) == sorted(map(repr, legal)), where
        assert len(seen) == len(set(seen)), (where, seen)
        for action in legal:
            code = action_code(action)
            assert found.get(code) == action, (where, code)
            res = UI.resolve(code, mine, legal)
            assert res.action == action and res.done_text
        assert len({action_code(a) for a in legal}) == len(legal), where
        hidden = hidden_ids(state)
        for code in seen:
            assert "card_" not in code, (where, code)
            assert not set(code.split(".")[1:]) & hidden, (where, code)
            assert not any(secret in code for secret in hidden), (where, code)
        stages.add(state.stage)
        kinds |= {a.kind for a in legal}
        selects += menu.as_select
        grouped += any(c.code.startswith("to.") for c in menu.choices)
    # the samples reach every kind of decision and every kind of action
    assert stages >= {"move", "mirror", "place", "kingdom_path", "villain", "good_deed",
                      "peddler", "pay", "drop", "bird", "find", "rest"}, stages
    assert kinds >= {"explore", "go", "wish", "stay", "drink", "coat", "pick_tile", "place",
                     "fight", "run", "good_deed", "shop", "pay", "back", "leave", "drop",
                     "send", "send_done", "find", "rest"}, kinds
    assert selects and grouped


def test_few_choices_are_buttons_many_a_select_with_buttons_under_it() -> None:
    for where, state in sampled()[::7]:
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_actions(state, seat)
        menu = UI.public_menu(GAME.view(state, None), legal)
        assert menu is not None
        assert menu.as_select == (len(legal) > FEW), where
        view = build_view(menu, "t1a2b", 12)  # discord.py's own checks of rows and sizes
        assert view is not None and len(view.children) <= 25


def test_many_ways_to_go_share_one_option_per_place() -> None:
    state = big_map()
    legal = GAME.legal_actions(state, 0)
    assert len([a for a in legal if a.kind in ("go", "wish")]) > 25
    view = GAME.view(state, 0)
    menu = UI.public_menu(GAME.view(state, None), legal)
    assert menu is not None and menu.as_select and len(menu.choices) == 15
    assert {c.code for c in menu.buttons} == {"dr", "drl"}
    well = next(c for c in menu.choices if c.code == "to.well")
    assert well.label.startswith("Well: walk") and "wish" in well.label
    assert well.description is not None and "+1 gold" in well.description
    ways = UI.resolve("to.well", view, legal).menu
    assert ways is not None and "Well" in ways.prompt
    assert {c.code for c in ways.choices} <= {"g.well", "gb.well", "w.well"}
    assert UI.resolve("w.well", view, legal).action == Wish(tile="well")


def test_a_fight_offers_every_item_as_a_choice_the_default_first() -> None:
    """Issue 23 (Facing Villains: "you may choose whether or not you want to use them"):
    the fight buttons say what each way uses, costs and keeps, the default first; the
    ways that keep the Dagger or the Repellant out (they only add harm) sit behind one
    button, whose menu lists exactly them."""
    from engines.pocket.state import Fight
    from tests.test_pocket import villain

    s = villain("dragon", 0, gold=3, items=[Held(item="shield"), Held(item="dagger"),
                                            Held(item="repellant")])
    legal = GAME.legal_actions(s, 0)
    view = GAME.view(s, None)
    menu = UI.public_menu(view, legal)
    assert menu is not None
    check_menu(menu)
    labels = {c.code: c.label for c in choices(menu)}
    assert list(labels)[:4] == ["f", "fw", "f.shield", "fk"]  # the fights, then running
    assert labels["f"] == "Fight with the Dagger and Repellant: no harm, Shield kept"
    assert labels["f.shield"] == "Hold up the Shield: no harm"
    assert labels["fk"] == "Keep an item out of the fight (4) ›"
    more = UI.resolve("fk", view, legal).menu
    assert more is not None
    check_menu(more)
    sparing = [a for a in legal if isinstance(a, Fight) and a.spare]
    assert [UI.resolve(c.code, view, legal).action for c in more.choices] == sparing
    assert more.choices[0].label == \
        "Fight without the Dagger: -1 health, Shield kept"
    # no free item to keep out: no such button, and its code is refused
    s = villain("troll", 0, gold=3, items=[Held(item="cloak")])
    legal = GAME.legal_actions(s, 0)
    menu = UI.public_menu(GAME.view(s, None), legal)
    assert menu is not None and "fk" not in {c.code for c in choices(menu)}
    with pytest.raises(UnknownChoice):
        UI.resolve("fk", GAME.view(s, None), legal)


def test_labels_are_the_engines() -> None:
    for where, state in sampled()[::3]:
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_actions(state, seat)
        view = GAME.view(state, None)
        bare = view.model_copy(update={"decision": None})
        for action in legal:
            words = engine_label(GAME, state, action)
            assert UI.label(action, view) == words, where
            # without the view's choices: the same words, less what needs the state (the
            # dense trees' cost, a fight's damage)
            assert words.startswith(UI.label(action, bare)), (where, words)
            assert 0 < len(words) <= 80


def test_codes_name_only_public_facts() -> None:
    assert action_code(Explore(mirror=True)) == "xm"
    assert action_code(Go(tile="cave")) == "g.cave"
    assert action_code(Pay(items=("cloak", "shield"), gold=0)) == "y0.cloak.shield"
    # a card the bird sends back is named by the item it shows, face up on the pile
    for card in C.cards:
        from engines.pocket.state import Send

        assert action_code(Send(card=card.id)) == f"b.{card.item}"
    ids = [t.id for t in C.tiles] + [i.id for i in C.items]
    assert all(CODE_RE.fullmatch(f"gb.{i}") and len(f"gb.{i}") <= 40 for i in ids)


def test_pay_codes_tell_every_way_to_pay_apart() -> None:
    state = GAME.setup(1, GAME.Options(special="wand"), seed=4)
    state.items = [Held(item="cloak"), Held(item="shield"), Held(item="repellant")]
    state.gold = 2
    state.discard = ["card_9"]  # the dagger, 2 gold
    state.stage, state.phase, state.shop_item = "pay", "card", "dagger"
    legal = GAME.legal_actions(state, 0)
    pays = [a for a in legal if a.kind == "pay"]
    assert len(pays) == 8  # gold alone, and every set of items with what is still missing
    codes = {action_code(a) for a in pays}
    assert len(codes) == len(pays) and "y2" in codes and "y0.cloak.shield" in codes
    menu = UI.public_menu(GAME.view(state, None), legal)
    assert menu is not None
    for a in legal:
        assert UI.resolve(action_code(a), GAME.view(state, 0), legal).action == a


def test_unknown_codes_are_refused() -> None:
    state = GAME.setup(1, GAME.Options(special="mirror"), seed=1)
    legal = GAME.legal_actions(state, 0)
    view = GAME.view(state, 0)
    for code in ("zz", "g.nowhere", "to.nowhere", "to.lake", "y99", "pn", "f", "b.candle",
                 "x.x", "a0"):
        with pytest.raises(UnknownChoice, match="not open now"):
            UI.resolve(code, view, legal)
    with pytest.raises(UnknownChoice, match="not your move"):
        UI.resolve("x", view, [])
    assert UI.public_menu(view, []) is None
    assert UI.private_menu(view, []).choices == ()


def test_the_first_move_reads_like_the_rulebook() -> None:
    state = GAME.setup(1, GAME.Options(special="mirror"), seed=1)
    legal = GAME.legal_actions(state, 0)
    menu = UI.public_menu(GAME.view(state, None), legal)
    assert menu is not None and not menu.as_select
    assert [(c.code, c.label, c.style) for c in menu.choices] == [
        ("x", "Explore the Forest", "primary"),
        ("xm", "Explore with the Mirror (1 gold)", "primary")]
    assert all(c.emoji for c in menu.choices)
    assert "Explore a new place" in menu.prompt


# --------------------------------------------------------------------------- options


def test_table_options() -> None:
    assert parse_table_options({"special": "Wand"}) == {"special": "wand"}
    assert parse_table_options({"gift": "the seven-league boots"}) == {"special": "boots"}
    assert parse_table_options({}) == {}
    for bad, words in (({"special": "sword"}, "not one of random"),
                       ({"colour": "red"}, "no option 'colour'"),
                       ({"special": "wand", "gift": "boots"}, "once")):
        with pytest.raises(UserError, match=words):
            parse_table_options(bad)
    for typed in ({"special": "mirror"}, {"special": "random"}, {}):
        GAME.parse_options(parse_table_options(typed))
    assert "at random" in options_line({"special": "random"})
    assert "Seven-League Boots" in options_line({"special": "boots"})
    assert [v for _label, v in option_suggestions("")] == [
        "special=random", "special=mirror", "special=wand", "special=boots"]
    assert [v for _label, v in option_suggestions("special=m")] == ["special=mirror"]
    assert all(len(label) <= 100 for label, _v in option_suggestions(""))
    assert UI.options_text({"special": "wand"}) == options_line({"special": "wand"})


def test_docstring_examples_of_the_adapter() -> None:
    import doctest

    import bot.core.choices.pocket as module

    result = doctest.testmod(module)
    assert result.attempted >= 5 and result.failed == 0
