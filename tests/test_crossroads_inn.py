"""Crossroads Inn rule tests: each test builds a precise table and checks one rule of the
rulebook (../shared/rules/crossroads_inn.txt), or a reading the engine documents where the
rulebook is silent (engines/crossroads_inn/game.py docstring, data/crossroads_inn/*.json).

Tests marked ``xfail(strict=True)`` are written as the rulebook says and fail because the
engine disagrees; their reason names the engine function."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.core import IllegalAction, NotYourTurn
from engines.crossroads_inn import effects as fx
from engines.crossroads_inn import inn as board
from tests.crossroads_helpers import (
    GOSSIPS,
    GROUPS,
    C,
    G,
    act,
    answer,
    basics,
    choose,
    fresh,
    legal,
    new,
    purse,
    put,
    refused,
    resolve,
    rng_for,
    rng_where,
    track,
    turn,
)


def settle(st):
    """Answer every setup decision with its first option until the first turn."""
    while st.phase != "turn":
        seat = G.to_act(st)[0]
        G.apply(st, seat, G.legal_actions(st, seat)[0])
    return st


def card_name(number: int) -> str:
    return f"Kingdom Card #{number} ({C.kingdom_card(number).title})"


def fill_main(st, seat: int, tile: str = "long_table", leave: int = 0) -> None:
    """Cover the 16 main spaces (all but the last ``leave``) without effects."""
    spaces = board.MAIN_SPACES[: len(board.MAIN_SPACES) - leave]
    for s in spaces:
        put(st, seat, s, tile)


# =========================================================================== setup


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_tracks_guldens_gossips_recipes(players):
    st = new(players, seed=3)
    for s, p in enumerate(st.seats):
        assert p.prestige == 6
        assert p.revenue == 4
        assert p.reputation == dict.fromkeys(GROUPS, 1)
        assert p.gossips == dict.fromkeys(GOSSIPS, 1)
        assert len(p.recipes) == 2
        # guldens = revenue; the first player has moved them from the Chest to the Pouch
        assert (p.chest, p.pouch) == ((0, 4) if s == 0 else (4, 0))
        assert p.debts == 0 and p.inn == {} and p.reserved == []
    assert st.phase == "turn" and st.turn.seat == 0 and st.turn.step == "impression"


def test_setup_guldens_follow_revenue_after_basic_tiles():
    # STEP 5 comes after the Basic Inn Tiles: a Cellar (+1 revenue) gives 5 guldens.
    for seed in range(1, 60):
        st = settle(G.setup(2, G.parse_options({"basic_tiles": "random"}), seed))
        for p in st.seats:
            tiles = {b.tile for b in p.inn.values()}
            if "cellar" in tiles and "dice_table" not in tiles:
                assert p.revenue == 5 + ("stable_yard" in tiles)
                assert p.chest + p.pouch == p.revenue
                return
    pytest.fail("no seed dealt a Cellar without a Dice table")


@pytest.mark.parametrize("seed", range(1, 13))
def test_setup_investment_tracks_four_distinct_tiles_per_tier(seed):
    st = new(4, seed=seed)
    for tier in (1, 2):
        row = st.tracks[tier - 1]
        assert len(row) == 4 and None not in row
        assert len(set(row)) == 4, row
        assert all(C.tile(t).tier == tier for t in row)
        assert len(st.pouches[tier - 1]) == len(C.pouch(tier)) - 4
        assert Counter(st.pouches[tier - 1]) + Counter(row) == Counter(C.pouch(tier))


ADVANCED = {r.id for r in C.recipes if r.advanced}


@pytest.mark.parametrize(("players", "option", "kept"), [
    (2, "auto", False), (3, "auto", True), (4, "auto", True),
    (2, "remove", False), (3, "remove", False), (2, "include", True), (4, "include", True),
])
def test_setup_advanced_recipes(players, option, kept):
    st = new(players, seed=5, advanced_recipes=option)
    cards = list(st.deck) + [r for p in st.seats for r in p.recipes]
    assert len(ADVANCED) == 4
    assert {"cuckold_stew", "smiling_witch", "duck_in_rubies_and_gold",
            "bersuhl_sweet_fish_dumplings"} == ADVANCED
    assert (set(cards) >= ADVANCED) is kept
    assert not kept or len(cards) == 15
    assert kept or (len(cards) == 11 and not ADVANCED & set(cards))


def test_setup_draft_pick_face_down_pass_left_three_rounds():
    st = G.setup(3, G.parse_options({"basic_tiles": "draft"}), 7)
    assert st.phase == "draft" and G.to_act(st) == [0, 1, 2]
    dealt = [list(p.pack) for p in st.seats]
    assert all(len(p) == 4 for p in dealt)
    assert len({t for p in dealt for t in p}) == 12
    assert sorted(st.unused_basics) == sorted(
        {b.id for b in C.basic_tiles} - {t for p in dealt for t in p})
    kept_by: list[list[str]] = [[], [], []]
    packs = dealt
    for size in (4, 3, 2):
        assert [len(p.pack) for p in st.seats] == [size] * 3
        assert [p.pack for p in st.seats] == packs
        # a pick is face down: the others' views do not show it
        act(st, 0, "draft", tile=packs[0][-1])
        kept_by[0].append(packs[0][-1])
        for other in (1, 2, None):
            assert packs[0][-1] not in G.view(st, other).model_dump_json()
        assert packs[0][-1] in (G.view(st, 0).my_kept or [])
        assert refused(st, 0, "draft", tile=packs[0][0], exc=NotYourTurn) == \
            "It is not your turn."
        for s in (1, 2):
            act(st, s, "draft", tile=packs[s][-1])
            kept_by[s].append(packs[s][-1])
        # the rest is passed to the player on the left (the next seat clockwise)
        packs = [[t for t in packs[(s - 1) % 3] if t != kept_by[(s - 1) % 3][-1]]
                 for s in range(3)]
    # the last tile received joins the three kept
    assert st.phase == "place_basics"
    for s, p in enumerate(st.seats):
        assert sorted(p.kept) == sorted([*kept_by[s], packs[s][0]])
        assert len(p.kept) == 4
    # placement: each tile on a corner, with its effects
    assert G.to_act(st) == [0]
    p0 = st.seats[0]
    tiles = list(p0.kept)
    lines = []
    for tile, space in zip(tiles[:3], board.CORNERS, strict=False):
        while st.pending is not None:
            choose(st, st.pending.options[0])
        lines = [e.text(str) for e in act(st, 0, "place_basic", tile=tile, space=space)
                 if e.visible(None)]
    # every placement gets its line, the fourth (placed by itself) too
    last = next(t for t in tiles if t not in tiles[:3])
    assert lines[:2] == [f"0 places {C.basic_tile(tiles[2]).name} on a corner",
                         f"0 places {C.basic_tile(last).name} on the last corner"]
    settle(st)
    for s, p in enumerate(st.seats):
        assert sorted(b.tile for b in p.inn.values()) == sorted([*kept_by[s], packs[s][0]])
        assert set(p.inn) == set(board.CORNERS)
        assert all(b.basic for b in p.inn.values())
        expected = {"prestige": 6, "revenue": 4, **dict.fromkeys(GROUPS, 1)}
        for b in p.inn.values():
            block = C.basic_tile(b.tile).on_build
            for e in block.effects if block else ():
                if e.kind in ("prestige", "revenue"):
                    expected[e.kind] += e.amount
                elif e.kind == "reputation":
                    expected[e.group] += e.amount
        assert p.prestige == expected["prestige"]
        assert p.revenue == expected["revenue"]
        assert {g: p.reputation[g] for g in GROUPS} == {g: expected[g] for g in GROUPS}


def test_setup_random_placement_puts_the_four_tiles_on_the_corners():
    st = settle(G.setup(4, G.parse_options({"basic_tiles": "random"}), 2))
    dealt = [b.tile for p in st.seats for b in p.inn.values()]
    assert len(dealt) == len(set(dealt)) == 16
    for p in st.seats:
        assert set(p.inn) == set(board.CORNERS) and all(b.basic for b in p.inn.values())
    assert st.unused_basics == []


def test_setup_without_basic_tiles_corners_unavailable():
    st = new(2)
    assert all(p.inn == {} for p in st.seats)
    turn(st, "build", bought=["long_table"])
    assert not set(G.build_spaces(st, 0)) & set(board.CORNERS)
    why = refused(st, 0, "build", space="r0c0")
    assert "corner" in why.lower() and "unavailable" in why.lower()
    assert legal(st, 0, "build", space="r0c1")


def test_setup_kingdom_cards_none_random_chosen():
    assert new(2, kingdom="none").kingdom == []
    seen = set()
    for seed in range(1, 9):
        ks = new(2, seed=seed, kingdom="random").kingdom
        assert len(ks) == 2 and len(set(ks)) == 2 and all(1 <= k <= 10 for k in ks)
        seen.add(tuple(ks))
    assert len(seen) > 1
    assert new(2, kingdom="1+5").kingdom == [1, 5]
    assert new(3, kingdom="5+1").kingdom == [1, 5]


@pytest.mark.parametrize("bad", ["1+1", "0+5", "1+11", "3", "1+2+3", "seven", "", "+4"])
def test_setup_bad_kingdom_strings_refused_clearly(bad):
    with pytest.raises(IllegalAction) as info:
        G.parse_options({"kingdom": bad})
    message = str(info.value)
    assert "Kingdom Cards" in message and "1+5" in message and "1 to 10" in message


# =========================================================================== ATTENTION boxes


def test_prestige_never_below_one_by_effects():
    st = new()
    st.seats[0].prestige = 3
    resolve(st, 0, [{"kind": "prestige", "amount": -10}])
    assert st.seats[0].prestige == 1


def test_prestige_floor_forbids_a_guest_impression():
    st = new()
    purse(st, 0, outlaws=3)
    st.seats[0].prestige = 1
    fresh(st)
    offered = [a for a in G.legal_actions(st, 0) if a.kind == "impression"]
    # every closed door but the Outlaws' (3 -> 0) would cost Prestige
    assert offered and {a.closed for a in offered} == {"outlaws"}
    why = refused(st, 0, "impression", closed="nobles", open="outlaws")
    assert "Prestige below 1" in why
    act(st, 0, "impression", closed="outlaws", open="nobles")
    assert st.seats[0].reputation["outlaws"] == 0 and st.seats[0].prestige == 1


def test_prestige_floor_forbids_building_a_tile():
    st = new()
    st.seats[0].prestige = 1
    turn(st, "build", bought=["laundry"])  # drawback: Prestige -1
    assert G.build_spaces(st, 0) == []
    assert [a.kind for a in G.legal_actions(st, 0)] == ["set_aside"]
    why = refused(st, 0, "build", space="r1c1")
    assert "Prestige below 1" in why
    # and it may not be bought either
    turn(st, "invest")
    track(st, 1, ["laundry", "long_table", "spice_rack", "drudge"])
    purse(st, 0, pouch=10)
    fresh(st)
    why = refused(st, 0, "buy", tier=1, slot=0)
    assert why == ("No space of your inn can take Laundry now: Building it there would bring "
                   "your Prestige below 1.")
    assert legal(st, 0, "buy", tier=1, slot=1)


@pytest.mark.parametrize(("prestige", "allowed"), [(2, False), (3, True)])
def test_prestige_floor_counts_reputation_falling_below_zero(prestige, allowed):
    st = new()
    st.seats[0].prestige = prestige
    purse(st, 0, nobles=0)
    turn(st, "build", bought=["cockfighting_pit"])  # drawback: Nobles -2 (from 0: -2 Prestige)
    if not allowed:
        assert "Prestige below 1" in refused(st, 0, "build", space="r1c1")
        return
    act(st, 0, "build", space="r1c1")
    assert st.seats[0].prestige == 1 and st.seats[0].reputation["nobles"] == 0


def test_political_gossip_may_lower_a_player_at_prestige_one():
    st = new(2)
    purse(st, 0, gossips={"political": 2})
    purse(st, 1, nobles=0)
    st.seats[1].prestige = 1
    turn(st, "gossip")
    assert legal(st, 0, "gossip", action="political_b", players=[1],
                 groups=["nobles", "distressed"])
    act(st, 0, "gossip", action="political_b", players=[1], groups=["nobles", "distressed"])
    assert st.seats[1].prestige == 1 and st.seats[1].reputation["nobles"] == 0
    assert st.seats[0].reputation["distressed"] == 2


def test_political_gossip_3p_may_lower_players_at_prestige_one():
    st = new(3)
    purse(st, 0, gossips={"political": 2})
    for s in (1, 2):
        purse(st, s, outlaws=0)
        st.seats[s].prestige = 1
    turn(st, "gossip")
    act(st, 0, "gossip", action="political_c", players=[1, 2], groups=["outlaws", "outlaws"])
    assert [st.seats[s].prestige for s in (1, 2)] == [1, 1]
    assert [st.seats[s].reputation["outlaws"] for s in (1, 2)] == [0, 0]


@pytest.mark.parametrize(("start", "amount", "revenue", "bonus"), [
    (4, 3, 7, 0), (2, -5, 1, 0), (1, -1, 1, 0), (9, 3, 10, 1), (10, 1, 10, 1), (8, 2, 10, 0),
])
def test_revenue_between_one_and_ten_with_a_single_overflow_gulden(start, amount, revenue,
                                                                    bonus):
    st = new()
    st.seats[0].revenue = start
    resolve(st, 0, [{"kind": "revenue", "amount": amount}])
    assert st.seats[0].revenue == revenue
    assert st.seats[0].chest == bonus


def test_revenue_overflow_from_a_tile():
    st = new()
    st.seats[0].revenue = 9
    turn(st, "build", bought=["wine_racks"])  # Inn's Revenue +2, Prestige +1
    act(st, 0, "build", space="r1c1")
    assert st.seats[0].revenue == 10 and st.seats[0].chest == 1


def test_reputation_rulebook_example_one_falling_three():
    # "from space 1 ... falling by three spaces, their token ends on the space 0, and they
    # lose 2 Prestige points"
    st = new()
    act(st, 0, "impression", closed="nobles", open="townsfolk")
    p = st.seats[0]
    assert p.reputation["nobles"] == 0 and p.prestige == 4
    assert p.reputation["townsfolk"] == 2


def test_reputation_below_zero_from_zero():
    st = new()
    purse(st, 0, outlaws=0)
    resolve(st, 0, [{"kind": "reputation", "group": "outlaws", "amount": -2}])
    assert st.seats[0].reputation["outlaws"] == 0 and st.seats[0].prestige == 4


@pytest.mark.parametrize(("start", "amount"), [(11, 4), (12, 1), (10, 5)])
def test_reputation_above_twelve_one_special_action(start, amount):
    st = new()
    purse(st, 0, chest=0, nobles=start)
    resolve(st, 0, [{"kind": "reputation", "group": "nobles", "amount": amount}])
    assert st.seats[0].reputation["nobles"] == 12
    assert st.seats[0].chest == 3  # one Nobles Special Action: 3 guldens


@pytest.mark.parametrize(("start", "amount", "triggered"), [
    (6, 1, True),    # lands on it going up
    (8, -1, True),   # lands on it going down
    (5, 3, True),    # passes it going up
    (9, -3, True),   # passes it going down
    (4, -3, False),
    (7, 1, False),   # leaves it
    (7, -1, False),
    (3, 3, False),
])
def test_special_action_space_landed_on_or_passed_either_way(start, amount, triggered):
    space = C.group("nobles").special_action_space
    assert space == 7
    st = new()
    purse(st, 0, chest=0, nobles=start)
    resolve(st, 0, [{"kind": "reputation", "group": "nobles", "amount": amount}])
    assert st.seats[0].chest == (3 if triggered else 0)


def test_several_special_actions_in_one_action():
    st = new()
    purse(st, 0, chest=0, nobles=9, distressed=6)
    fresh(st)
    act(st, 0, "impression", closed="nobles", open="distressed")
    p = st.seats[0]
    assert p.reputation["nobles"] == 6 and p.reputation["distressed"] == 7
    assert p.chest == 3  # Nobles (passed going down)
    assert st.pending is not None and st.pending.kind == "gossip_gain"  # Distressed
    assert st.pending.seat == 0
    choose(st, "political")
    assert p.gossips["political"] == 2


def test_special_action_of_another_players_token_is_performed_by_the_active_player():
    st = new(2)
    purse(st, 0, chest=0, gossips={"political": 2})
    purse(st, 1, chest=5, nobles=8)
    turn(st, "gossip")
    act(st, 0, "gossip", action="political_b", players=[1], groups=["nobles", "outlaws"])
    assert st.seats[1].reputation["nobles"] == 7
    assert st.seats[0].chest == 3 and st.seats[1].chest == 5


def test_special_action_of_another_players_token_3p_decision_is_the_active_players():
    st = new(3)
    purse(st, 0, gossips={"political": 2})
    purse(st, 1, distressed=8)
    purse(st, 2, nobles=8, chest=0)
    st.seats[0].chest = 0
    turn(st, "gossip")
    act(st, 0, "gossip", action="political_c", players=[1, 2], groups=["distressed", "nobles"])
    assert st.pending is not None and st.pending.kind == "gossip_gain"
    assert st.pending.seat == 0 and G.to_act(st) == [0]
    choose(st, "economic")
    assert st.seats[0].gossips["economic"] == 1 and st.seats[1].gossips["economic"] == 1
    assert st.seats[0].chest == 3 and st.seats[2].chest == 0


def test_special_action_skipped_when_impossible():
    st = new()
    full = dict.fromkeys(GOSSIPS, 3)
    purse(st, 0, gossips=full)
    resolve(st, 0, [{"kind": "special", "group": "distressed"}])
    assert st.pending is None and st.seats[0].gossips == full
    st.seats[0].reserved = []
    resolve(st, 0, [{"kind": "special", "group": "townsfolk"}])
    assert st.pending is None
    st.deck, st.recipe_discard = [], []
    for p in st.seats:
        p.recipes = []
    resolve(st, 0, [{"kind": "special", "group": "travellers"}])
    assert st.pending is None and st.jobs == []


@pytest.mark.parametrize(("chest", "gain", "after"), [(19, 3, 20), (20, 3, 20), (15, 3, 18)])
def test_chest_holds_at_most_twenty_guldens(chest, gain, after):
    st = new()
    purse(st, 0, chest=chest)
    resolve(st, 0, [{"kind": "guldens", "amount": gain}])
    assert st.seats[0].chest == after


def test_chest_limit_at_the_update():
    st = new()
    purse(st, 0, chest=18, pouch=5)
    st.seats[0].revenue = 4
    turn(st, "confirm")
    act(st, 0, "end_turn")
    assert st.seats[0].chest == 20 and st.seats[0].pouch == 0


@pytest.mark.parametrize(("have", "gain", "after"), [(3, 1, 3), (2, 2, 3), (0, 2, 2)])
def test_at_most_three_gossips_of_a_kind(have, gain, after):
    st = new()
    purse(st, 0, gossips={"economic": have})
    resolve(st, 0, [{"kind": "gossip", "gossip": "economic", "amount": gain}])
    assert st.seats[0].gossips["economic"] == after


def test_any_gossip_offers_only_kinds_with_room():
    st = new()
    purse(st, 0, gossips={"economic": 3, "political": 3, "travellers": 1})
    resolve(st, 0, [{"kind": "gossip_any", "amount": 1}])
    assert st.pending.options == ["travellers"]
    answer(st, "travellers")
    purse(st, 0, gossips=dict.fromkeys(GOSSIPS, 3))
    resolve(st, 0, [{"kind": "gossip_any", "amount": 1}])
    assert st.pending is None and sum(st.seats[0].gossips.values()) == 9


def test_debts_are_unlimited_and_paid_when_possible_at_the_update():
    st = new()
    purse(st, 0, debts=20)
    resolve(st, 0, [{"kind": "guldens", "amount": -7}])
    assert st.seats[0].debts == 27
    purse(st, 0, chest=0, pouch=2, debts=9)
    st.seats[0].revenue = 4
    turn(st, "confirm")
    act(st, 0, "end_turn")
    p = st.seats[0]
    assert p.chest == 0 and p.debts == 3  # 6 guldens pay 6 of 9 Debt Tokens
    purse(st, 1, chest=0, pouch=0, debts=2)
    st.seats[1].revenue = 5
    turn(st, "confirm", seat=1)
    act(st, 1, "end_turn")
    assert st.seats[1].chest == 3 and st.seats[1].debts == 0


# =========================================================================== the nine steps


def test_steps_in_order_refuse_later_steps_with_a_reason():
    st = new()
    purse(st, 0, pouch=20)
    fresh(st)
    assert st.turn.step == "impression"
    why = refused(st, 0, "reserve", tier=1, slot=0)
    assert "in order" in why and "Guest Impression" in why
    why = refused(st, 0, "buy", tier=1, slot=0)
    assert "in order" in why
    why = refused(st, 0, "complete", recipe=st.seats[0].recipes[0])
    assert "in order" in why
    refused(st, 0, "end_turn")


def test_steps_in_order_refuse_earlier_steps_with_a_reason():
    st = new()
    turn(st, "build", bought=["long_table"])
    why = refused(st, 0, "impression", closed="nobles", open="outlaws")
    assert "over" in why and "Building" in why
    why = refused(st, 0, "gossip", action="economic_a")
    assert "over" in why
    why = refused(st, 0, "buy", tier=1, slot=0)
    assert "over" in why


def test_the_nine_steps_walk_in_order():
    st = new()
    purse(st, 0, pouch=20, gossips=dict.fromkeys(GOSSIPS, 1))
    st.seats[0].recipes = ["berry_tart"]
    put(st, 0, "r1c1", "honey_jar_shelf")
    put(st, 0, "r1c2", "vermelha")
    fresh(st)
    seen = []
    while st.turn.seat == 0 and not st.finished:
        seen.append(st.turn.step)
        step = st.turn.step
        if step == "build":
            act(st, 0, "build", space=G.build_spaces(st, 0)[0])
        elif step == "invest" and st.turn.buys == 0:
            buy = next(a for a in G.legal_actions(st, 0) if a.kind == "buy")
            G.apply(st, 0, buy)
        elif step == "confirm":
            act(st, 0, "end_turn")
        else:
            act(st, 0, "next")
    order = list(dict.fromkeys(seen))
    assert order == ["impression", "gossip", "invest", "reserve", "build", "recipes",
                     "confirm"]
    assert st.turn.seat == 1  # 9. the turn passes on


def test_guest_impression_minus_three_plus_one_once_per_turn():
    st = new()
    purse(st, 0, distressed=5, travellers=2)
    fresh(st)
    act(st, 0, "impression", closed="distressed", open="travellers")
    p = st.seats[0]
    assert p.reputation["distressed"] == 2 and p.reputation["travellers"] == 3
    assert p.closed_door == "distressed" and p.open_door == "travellers"
    assert st.turn.impression_done
    refused(st, 0, "impression", closed="outlaws", open="nobles")


def test_guest_impression_not_the_same_tile_on_the_same_door_swap_allowed():
    st = new()
    p = st.seats[0]
    p.closed_door, p.open_door = "nobles", "townsfolk"
    purse(st, 0, nobles=5, townsfolk=5)
    fresh(st)
    why = refused(st, 0, "impression", closed="nobles", open="outlaws")
    assert "door it stood on before" in why
    why = refused(st, 0, "impression", closed="outlaws", open="townsfolk")
    assert "door it stood on before" in why
    assert refused(st, 0, "impression", closed="outlaws", open="outlaws") == \
        "Put two different groups behind the two doors."
    act(st, 0, "impression", closed="townsfolk", open="nobles")  # switched places
    assert p.reputation["townsfolk"] == 2 and p.reputation["nobles"] == 6


# --------------------------------------------------------------------------- gossips


def test_economic_a_two_guldens_into_the_pouch_once_per_kind():
    st = new()
    purse(st, 0, pouch=0, chest=0, gossips={"economic": 3, "political": 1})
    purse(st, 1, chest=4)
    turn(st, "gossip")
    act(st, 0, "gossip", action="economic_a")
    p = st.seats[0]
    assert p.pouch == 2 and p.chest == 0 and p.gossips["economic"] == 2
    why = refused(st, 0, "gossip", action="economic_b", players=[1], gossip="political")
    assert why == "You used an action of that gossip already this turn."
    act(st, 0, "gossip", action="political_a", groups=["nobles"])  # another kind: fine
    assert p.reputation["nobles"] == 2


def test_economic_b_two_players_steals_a_gulden_and_a_gossip():
    st = new(2)
    purse(st, 0, pouch=0, gossips={"economic": 2})
    purse(st, 1, chest=3, gossips={"political": 1, "travellers": 2})
    turn(st, "gossip")
    act(st, 0, "gossip", action="economic_b", players=[1], gossip="travellers")
    p, q = st.seats
    assert p.gossips == {"economic": 0, "political": 0, "travellers": 1}
    assert p.pouch == 1 and q.chest == 2
    assert q.gossips["travellers"] == 1


def test_a_stolen_gossip_over_the_limit_is_not_received():
    st = new(2)
    purse(st, 0, gossips={"economic": 2, "political": 3})
    purse(st, 1, chest=0, gossips={"political": 1})
    turn(st, "gossip")
    act(st, 0, "gossip", action="economic_b", players=[1], gossip="political")
    assert st.seats[0].gossips["political"] == 3 and st.seats[1].gossips["political"] == 0


def test_economic_b_and_c_by_player_count():
    st = new(3)
    purse(st, 0, gossips={"economic": 2})
    turn(st, "gossip")
    assert "2 players" in refused(st, 0, "gossip", action="economic_b", players=[1],
                                  gossip="economic")
    st2 = new(2)
    purse(st2, 0, gossips={"economic": 2})
    turn(st2, "gossip")
    assert "3-4 players" in refused(st2, 0, "gossip", action="economic_c", players=[1])


@pytest.mark.parametrize("players", [3, 4])
def test_economic_c_steals_one_gulden_each_from_two_opponents_into_the_pouch(players):
    st = new(players)
    purse(st, 0, pouch=0, gossips={"economic": 2})
    for s in range(1, players):
        purse(st, s, chest=2)
    turn(st, "gossip")
    act(st, 0, "gossip", action="economic_c", players=[1, 2])
    assert st.seats[0].pouch == 2 and st.seats[0].gossips["economic"] == 0
    assert [st.seats[s].chest for s in range(1, players)] == [1, 1] + [2] * (players - 3)


def test_political_a_one_reputation_of_choice():
    st = new()
    purse(st, 0, gossips={"political": 1})
    turn(st, "gossip")
    act(st, 0, "gossip", action="political_a", groups=["townsfolk"])
    assert st.seats[0].reputation["townsfolk"] == 2 and st.seats[0].gossips["political"] == 0


def test_political_b_two_players_lower_then_raise():
    st = new(2)
    purse(st, 0, gossips={"political": 2})
    purse(st, 1, outlaws=4)
    turn(st, "gossip")
    act(st, 0, "gossip", action="political_b", players=[1], groups=["outlaws", "nobles"])
    assert st.seats[1].reputation["outlaws"] == 3
    assert st.seats[0].reputation["nobles"] == 2 and st.seats[0].gossips["political"] == 0
    st3 = new(3)
    purse(st3, 0, gossips={"political": 2})
    turn(st3, "gossip")
    assert "2 players" in refused(st3, 0, "gossip", action="political_b", players=[1],
                                  groups=["outlaws", "nobles"])


def test_political_b_may_lower_the_active_players_own_token():
    # A reading: "[2 players] Spend 2 political gossips - the player decreases by 1
    # Reputation of any player" says any player, where the 3-4 player action says "2 of
    # their opponents"; so the active player may lower their own token, for example to
    # stop on a Special Action space ("no matter if it's due to losing or getting points").
    st = new(2)
    purse(st, 0, gossips={"political": 2}, distressed=8)
    turn(st, "gossip")
    assert legal(st, 0, "gossip", action="political_b", players=[0],
                 groups=["distressed", "nobles"])
    act(st, 0, "gossip", action="political_b", players=[0], groups=["distressed", "nobles"])
    p = st.seats[0]
    assert p.reputation["distressed"] == 7  # the Distressed Special Action space
    assert st.pending is not None and st.pending.kind == "gossip_gain"
    assert st.pending.seat == 0 and "Distressed" in st.pending.source
    choose(st, "economic")
    assert p.gossips == {"economic": 1, "political": 0, "travellers": 0}
    assert p.reputation["nobles"] == 2


def test_political_b_on_ones_own_token_keeps_the_prestige_floor():
    # Lowering one's own token is the player's own action: "If the player was to lower
    # it by performing an action ..., they may not perform the given action" (the
    # exception is only for "actions of another player").
    st = new(2)
    purse(st, 0, gossips={"political": 2}, nobles=0)
    st.seats[0].prestige = 1
    turn(st, "gossip")
    why = refused(st, 0, "gossip", action="political_b", players=[0],
                  groups=["nobles", "distressed"])
    assert why == "Those targets are not allowed for that gossip action."
    assert legal(st, 0, "gossip", action="political_b", players=[0],
                 groups=["outlaws", "distressed"])  # Outlaws at 1: no Prestige lost
    st.seats[0].prestige = 2
    fresh(st)
    act(st, 0, "gossip", action="political_b", players=[0], groups=["nobles", "distressed"])
    assert st.seats[0].prestige == 1 and st.seats[0].reputation["nobles"] == 0


@pytest.mark.parametrize("players", [3, 4])
def test_political_c_lowers_opponents_only(players):
    # "[3-4 players] ... decreases by 1 the Reputation of 2 of their opponents"
    st = new(players)
    purse(st, 0, gossips={"political": 2})
    turn(st, "gossip")
    offered = [a for a in G.legal_actions(st, 0) if getattr(a, "action", "") == "political_c"]
    assert offered and all(0 not in a.players for a in offered)
    refused(st, 0, "gossip", action="political_c", players=[0, 1],
            groups=["outlaws", "nobles"])


@pytest.mark.parametrize("players", [3, 4])
def test_political_c_lowers_two_opponents_on_chosen_tracks(players):
    st = new(players)
    purse(st, 0, gossips={"political": 2})
    purse(st, 1, outlaws=4)
    purse(st, 2, nobles=4)
    turn(st, "gossip")
    before0 = dict(st.seats[0].reputation)
    act(st, 0, "gossip", action="political_c", players=[1, 2], groups=["outlaws", "nobles"])
    assert st.seats[1].reputation["outlaws"] == 3 and st.seats[2].reputation["nobles"] == 3
    assert st.seats[0].reputation == before0
    st2 = new(2)
    purse(st2, 0, gossips={"political": 2})
    turn(st2, "gossip")
    assert "3-4 players" in refused(st2, 0, "gossip", action="political_c", players=[1, 0],
                                    groups=["outlaws", "nobles"])


@pytest.mark.parametrize("tier", [1, 2])
def test_travellers_a_deals_a_track_anew(tier):
    st = new()
    purse(st, 0, gossips={"travellers": 1})
    turn(st, "gossip")
    old = list(st.tracks[tier - 1])
    other = list(st.tracks[2 - tier])
    act(st, 0, "gossip", action="travellers_a", tier=tier)
    assert st.discards[tier - 1] == old
    new_row = st.tracks[tier - 1]
    assert None not in new_row and len(set(new_row)) == 4
    assert st.tracks[2 - tier] == other
    assert st.seats[0].gossips["travellers"] == 0


def test_travellers_b_swaps_ingredient_tiles_tokens_travel_empty_tile_gets_one():
    st = new(2)
    purse(st, 0, gossips={"travellers": 2})
    put(st, 0, "r1c1", "honey_jar_shelf", ["honey"])
    put(st, 1, "r0c1", "smokehouse", [])  # its venison was cooked already
    put(st, 1, "r0c2", "long_table")
    before = (dict(st.seats[0].reputation), st.seats[0].prestige, st.seats[1].prestige)
    turn(st, "gossip")
    act(st, 0, "gossip", action="travellers_b", players=[1], mine="r1c1", theirs="r0c1")
    mine, theirs = st.seats[0].inn["r1c1"], st.seats[1].inn["r0c1"]
    assert mine.tile == "smokehouse" and mine.ingredients == ["venison"]
    assert theirs.tile == "honey_jar_shelf" and theirs.ingredients == ["honey"]
    # no other effect happens
    assert before == (st.seats[0].reputation, st.seats[0].prestige, st.seats[1].prestige)
    assert st.seats[0].gossips["travellers"] == 0
    # only ingredient-giving tiles may be swapped
    st.turn.gossips_used = []
    purse(st, 0, gossips={"travellers": 2})
    fresh(st)
    refused(st, 0, "gossip", action="travellers_b", players=[1], mine="r1c1", theirs="r0c2")


def test_travellers_b_refused_if_the_result_breaks_a_kingdom_card():
    st = new(2, kingdom="3+10")  # #10: Furnishings on the inner ring only
    purse(st, 0, gossips={"travellers": 2})
    put(st, 0, "r1c1", "honey_jar_shelf")
    put(st, 1, "r0c1", "smokehouse")
    put(st, 1, "r1c2", "workman")
    turn(st, "gossip")
    refused(st, 0, "gossip", action="travellers_b", players=[1], mine="r1c1", theirs="r0c1")
    act(st, 0, "gossip", action="travellers_b", players=[1], mine="r1c1", theirs="r1c2")
    assert st.seats[1].inn["r1c2"].tile == "honey_jar_shelf"


def test_each_gossip_kind_once_per_turn_three_kinds_allowed():
    st = new()
    purse(st, 0, gossips=dict.fromkeys(GOSSIPS, 3), pouch=0)
    turn(st, "gossip")
    act(st, 0, "gossip", action="economic_a")
    act(st, 0, "gossip", action="political_a", groups=["nobles"])
    refused(st, 0, "gossip", action="political_a", groups=["outlaws"])
    refused(st, 0, "gossip", action="economic_a")
    act(st, 0, "gossip", action="travellers_a", tier=1)
    assert sorted(st.turn.gossips_used) == sorted(GOSSIPS)
    assert st.turn.step != "gossip"


# --------------------------------------------------------------------------- investing


def test_buying_slides_the_tiles_on_the_left_and_refills_the_far_left():
    st = new()
    purse(st, 0, pouch=20)
    track(st, 1, ["oak_bar_counter", "long_table", "fireplace", "spice_rack"], ["kobi"])
    turn(st, "invest")
    act(st, 0, "buy", tier=1, slot=2)
    assert st.tracks[0] == ["kobi", "oak_bar_counter", "long_table", "spice_rack"]
    assert st.seats[0].pouch == 16 and st.turn.bought == ["fireplace"]


def test_at_most_two_tiles_bought_reserved_ones_included():
    st = new()
    purse(st, 0, pouch=20)
    st.seats[0].reserved = ["long_table"]
    turn(st, "invest")
    act(st, 0, "buy", tier=None, slot=0)
    assert st.seats[0].reserved == [] and st.turn.buys == 1
    act(st, 0, "buy", tier=1, slot=0)
    assert st.turn.buys == 2 and len(st.turn.bought) == 2
    assert st.turn.bought[0] == "long_table"
    refused(st, 0, "buy", tier=1, slot=0)
    turn(st, "invest", buys=2)
    assert refused(st, 0, "buy", tier=2, slot=0) == "You bought two tiles already this turn."


def test_alternative_cost_in_gossips():
    st = new()
    purse(st, 0, pouch=0, gossips={"political": 2})
    track(st, 1, ["hunting_trophies", "long_table", "spice_rack", "drudge"])
    turn(st, "invest")
    assert C.tile("hunting_trophies").cost.guldens == 3
    why = refused(st, 0, "buy", tier=1, slot=0, pay="guldens")
    assert "3 guldens or 2 political gossips" in why
    act(st, 0, "buy", tier=1, slot=0, pay="gossips")
    assert st.seats[0].gossips["political"] == 0 and st.seats[0].pouch == 0
    assert st.turn.bought == ["hunting_trophies"]


def test_chest_guldens_cannot_be_spent_this_turn():
    st = new()
    purse(st, 0, pouch=1, chest=15)
    track(st, 1, ["long_table", "oak_bar_counter", "fireplace", "spice_rack"])
    turn(st, "invest")
    refused(st, 0, "buy", tier=1, slot=0)


# --------------------------------------------------------------------------- reserving


def test_reserve_one_per_turn_then_the_tracks_shift_right():
    st = new()
    track(st, 1, ["oak_bar_counter", "long_table", "fireplace", "spice_rack"],
          ["kobi", "drudge"])
    turn(st, "reserve")
    act(st, 0, "reserve", tier=1, slot=1)
    assert st.seats[0].reserved == ["long_table"]
    row = st.tracks[0]
    # every tile one space right, the far-right one discarded, the free spaces refilled
    assert row[1] == "oak_bar_counter" and row[3] == "fireplace"
    assert {row[0], row[2]} == {"kobi", "drudge"}
    assert st.discards[0][-1] == "spice_rack"
    refused(st, 0, "reserve", tier=1, slot=0)


def test_end_of_reserving_shifts_even_without_a_reservation():
    st = new()
    track(st, 1, ["oak_bar_counter", "long_table", "fireplace", "spice_rack"], ["kobi"])
    track(st, 2, ["gilded_throne", "chandelier", "wine_racks", "cook"], ["meilan"])
    turn(st, "reserve")
    act(st, 0, "next")
    assert st.tracks[0] == ["kobi", "oak_bar_counter", "long_table", "fireplace"]
    assert st.tracks[1] == ["meilan", "gilded_throne", "chandelier", "wine_racks"]
    assert st.discards == [["spice_rack"], ["cook"]]
    assert st.turn.step not in ("reserve", "invest")


def test_at_most_two_reserved_tiles():
    st = new()
    st.seats[0].reserved = ["long_table", "drudge"]
    turn(st, "reserve")
    why = refused(st, 0, "reserve", tier=1, slot=0)
    assert why == "You have two reserved tiles: buy one before reserving another."
    # buying one makes room again
    purse(st, 0, pouch=10)
    turn(st, "invest")
    act(st, 0, "buy", tier=None, slot=0)
    act(st, 0, "next")
    assert st.turn.step == "reserve" and legal(st, 0, "reserve", tier=1, slot=0)


def test_no_two_identical_tiles_on_a_track():
    st = new()
    row = ["oak_bar_counter", "long_table", "fireplace", "spice_rack"]
    track(st, 1, row, ["oak_bar_counter", "long_table", "long_table", "fireplace", "kobi"])
    turn(st, "reserve")
    act(st, 0, "next")
    assert st.tracks[0][0] == "kobi"
    assert len(set(st.tracks[0])) == 4
    for seed in range(1, 10):
        st = new(4, seed=seed)
        for _ in range(6):
            fx.end_of_reserving(st)
            for r in st.tracks:
                tiles = [t for t in r if t]
                assert len(tiles) == len(set(tiles))


def test_an_empty_pouch_takes_back_its_discard_pile():
    st = new()
    purse(st, 0, pouch=20)
    track(st, 1, ["oak_bar_counter", "long_table", "fireplace", "spice_rack"], [])
    st.discards[0] = ["kobi"]
    turn(st, "invest")
    act(st, 0, "buy", tier=1, slot=3)
    assert st.tracks[0] == ["kobi", "oak_bar_counter", "long_table", "fireplace"]
    assert st.discards[0] == [] and st.pouches[0] == []


def test_end_of_reserving_empty_space_stays_empty_without_tiles():
    st = new()
    track(st, 1, ["oak_bar_counter", "long_table", "fireplace", None], [])
    st.discards[0] = []
    turn(st, "reserve")
    act(st, 0, "next")
    assert st.tracks[0] == [None, "oak_bar_counter", "long_table", "fireplace"]


def test_end_of_reserving_refills_from_the_discard_pile():
    st = new()
    track(st, 1, ["oak_bar_counter", "long_table", "fireplace", "spice_rack"], [])
    st.discards[0] = []
    turn(st, "reserve")
    act(st, 0, "next")
    # the far-right tile is discarded, the empty pouch takes the pile back, and it is drawn
    assert st.tracks[0] == ["spice_rack", "oak_bar_counter", "long_table", "fireplace"]
    assert st.pouches[0] == [] and st.discards[0] == []


def test_empty_spaces_stay_empty_when_pouch_and_discards_are_empty():
    st = new()
    purse(st, 0, pouch=20)
    track(st, 1, ["oak_bar_counter", "long_table", "fireplace", "spice_rack"], [])
    st.discards[0] = []
    turn(st, "invest")
    act(st, 0, "buy", tier=1, slot=0)
    assert st.tracks[0] == [None, "long_table", "fireplace", "spice_rack"]


# --------------------------------------------------------------------------- building


def test_building_in_purchase_order_gains_the_effects():
    st = new()
    turn(st, "build", bought=["long_table", "oak_bar_counter"])
    assert G.legal_actions(st, 0)[0].kind == "build"
    act(st, 0, "build", space="r1c1")
    assert st.seats[0].inn["r1c1"].tile == "long_table"  # the first one bought
    assert st.seats[0].prestige == 8
    act(st, 0, "build", space="r1c3")
    assert st.seats[0].inn["r1c3"].tile == "oak_bar_counter"
    assert st.seats[0].prestige == 9 and st.seats[0].revenue == 5
    refused(st, 0, "build", space="r1c1")


def test_building_on_an_occupied_space_refused():
    st = new()
    put(st, 0, "r1c1", "long_table")
    turn(st, "build", bought=["oak_bar_counter"])
    assert refused(st, 0, "build", space="r1c1") == "That space already holds a tile."


def test_covering_a_basic_tile_reverses_it_first():
    # Cellar (+1 revenue) covered by Wine racks (+2 revenue) at revenue 10: first 10 -> 9,
    # then 9 + 2 passes 10: revenue 10 and the overflow gulden. (Effect first would end on 9.)
    st = new(basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": "cellar"})
    st.seats[0].revenue = 10
    purse(st, 0, chest=0)
    turn(st, "build", bought=["wine_racks"])
    act(st, 0, "build", space="r0c0")
    b = st.seats[0].inn["r0c0"]
    assert b.tile == "wine_racks" and not b.basic and b.covers == "cellar"
    assert st.seats[0].revenue == 10 and st.seats[0].chest == 1


def test_covering_reverses_reputation_then_gains():
    st = new(basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": "coat_of_arms"})
    purse(st, 0, nobles=3)
    turn(st, "build", bought=["hunting_trophies"])  # Prestige +1, Nobles +1
    act(st, 0, "build", space="r0c0")
    assert st.seats[0].reputation["nobles"] == 2 and st.seats[0].prestige == 7


@pytest.mark.parametrize(("basic", "arrange"), [
    ("cellar", lambda p: setattr(p, "revenue", 1)),
    ("common_room", lambda p: setattr(p, "prestige", 2)),
    ("notice_board", lambda p: p.gossips.update(political=0)),
    ("counting_desk", lambda p: p.gossips.update(economic=0)),
    ("rumour_corner", lambda p: p.gossips.update(economic=0, political=0, travellers=0)),
    ("recipe_box", lambda p: p.recipes.clear()),
    ("builders_yard", lambda p: p.reserved.clear()),
])
def test_a_basic_tile_whose_bonus_cannot_be_reversed_cannot_be_covered(basic, arrange):
    st = new(basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": basic})
    arrange(st.seats[0])
    turn(st, "build", bought=["long_table"])
    assert "r0c0" not in G.build_spaces(st, 0)
    why = refused(st, 0, "build", space="r0c0")
    assert why.startswith(f"You cannot cover {C.basic_tile(basic).name}")


# Every Basic Inn Tile that gives Reputation: covering it gives that Reputation back.
REPUTATION_BASICS = [(b.id, e.group, -e.amount) for b in C.basic_tiles
                     for e in b.on_cover.effects if e.kind == "reputation"]


def test_every_reputation_basic_tile_is_checked():
    assert {b for b, _, _ in REPUTATION_BASICS} == {
        "water_well", "back_door", "signpost", "market_window", "coat_of_arms", "stable_yard"}


def test_covering_the_water_well_at_distressed_one_costs_prestige():
    # Issue 23's case. "If a player standing on a space 1 on any Reputation track was to
    # fall by three spaces, their token ends on the space 0, and they lose 2 Prestige
    # points at the same time": giving back "Distressed -2" from 1 is possible (0, and 1
    # Prestige), so the Water well can be covered ("If the player is incapable of
    # reducing a bonus of a tile that's about to be covered, the tile cannot be covered").
    st = new(basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": "water_well"})
    purse(st, 0, distressed=1)
    assert st.seats[0].prestige == 6
    turn(st, "build", bought=["long_table"])  # Prestige +2
    assert G.cover_problem(st, 0, "water_well") is None
    assert "r0c0" in G.build_spaces(st, 0)
    events = act(st, 0, "build", space="r0c0")
    p = st.seats[0]
    assert p.inn["r0c0"].tile == "long_table" and p.inn["r0c0"].covers == "water_well"
    assert p.reputation["distressed"] == 0 and p.prestige == 6 - 1 + 2
    assert any("loses 1 Prestige" in e.text(str) for e in events)


@pytest.mark.parametrize(("basic", "group", "given"), REPUTATION_BASICS)
def test_a_reputation_basic_tile_below_its_bonus_can_be_covered(basic, group, given):
    # The token stops at 0 and the rest is paid in Prestige ("they lose the amount of
    # Prestige points equal to the amount of spaces by which they would fall below the
    # limit"), also from 0.
    for start in range(given):
        st = new(basic_tiles="random", seed=3)
        basics(st, 0, {"r0c0": basic})
        purse(st, 0, **{group: start})
        turn(st, "build", bought=["oak_bar_counter"])  # Prestige +1, Inn's Revenue +1
        assert legal(st, 0, "build", space="r0c0"), (basic, start)
        act(st, 0, "build", space="r0c0")
        assert st.seats[0].reputation[group] == 0
        assert st.seats[0].prestige == 6 - (given - start) + 1


@pytest.mark.parametrize(("basic", "group", "given"), REPUTATION_BASICS)
def test_a_reputation_basic_tile_is_refused_when_the_prestige_cannot_pay(basic, group, given):
    # "The player's Prestige cannot be lower than 1. If the player was to lower it by
    # performing an action (changing the guest's impression, building tiles), they may not
    # perform the given action."
    st = new(basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": basic})
    purse(st, 0, **{group: 0})
    st.seats[0].prestige = given  # giving back the bonus from 0 costs `given` Prestige
    turn(st, "build", bought=["long_table"])
    assert "r0c0" not in G.build_spaces(st, 0)
    why = refused(st, 0, "build", space="r0c0")
    name, text = C.basic_tile(basic).name, C.basic_tile(basic).on_cover.text
    assert why == (f"You cannot cover {name}: giving back \"{text}\" with "
                   f"{C.group(group).name} at 0 would cost {given} Prestige, and your "
                   f"Prestige ({given}) cannot go below 1.")
    # one more Prestige pays for it, down to exactly 1 before the new tile's +2
    st.seats[0].prestige = given + 1
    fresh(st)
    act(st, 0, "build", space="r0c0")
    assert st.seats[0].prestige == 1 + 2 and st.seats[0].reputation[group] == 0


def test_a_later_gain_does_not_pay_for_giving_back_a_bonus():
    # "first they reduce the bonuses given by the now-covered tile; next they receive
    # effects of the new tile": at Prestige 2 with Distressed at 0 the Water well's bonus
    # cannot be given back (it would take Prestige to 0), whatever the new tile brings.
    st = new(basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": "water_well"})
    purse(st, 0, distressed=0)
    st.seats[0].prestige = 2
    turn(st, "build", bought=["long_table"])  # Prestige +2 would end on 2
    why = refused(st, 0, "build", space="r0c0")
    assert why.startswith("You cannot cover Water well: giving back \"Distressed -2\"")
    # the tile was bought for a space that can take it: the main spaces still can
    assert "r1c1" in G.build_spaces(st, 0)


def test_the_prestige_basic_tile_is_refused_below_one():
    st = new(basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": "common_room"})
    st.seats[0].prestige = 2
    turn(st, "build", bought=["long_table"])
    assert refused(st, 0, "build", space="r0c0") == (
        "You cannot cover Common room: giving back \"Prestige -2\" would bring your "
        "Prestige (2) below 1.")
    st.seats[0].prestige = 3
    fresh(st)
    act(st, 0, "build", space="r0c0")
    assert st.seats[0].prestige == 1 + 2


def test_garden_patch_gives_an_extra_ingredient_when_covered():
    st = new(basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": "garden_patch", "r0c4": "garden_patch"})
    turn(st, "build", bought=["honey_jar_shelf", "long_table"])
    act(st, 0, "build", space="r0c0")
    assert st.seats[0].inn["r0c0"].ingredients == ["honey", "honey"]
    act(st, 0, "build", space="r0c4")
    assert st.seats[0].inn["r0c4"].ingredients == []
    assert st.seats[0].prestige == 6 + 1 + 2


def test_garden_patch_can_always_be_covered():
    st = new(basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": "garden_patch"})
    p = st.seats[0]
    p.gossips, p.recipes, p.reserved, p.revenue = dict.fromkeys(GOSSIPS, 0), [], [], 1
    turn(st, "build", bought=["long_table"])
    assert "r0c0" in G.build_spaces(st, 0)


def test_covering_the_recipe_draw_tile_discards_a_random_recipe():
    results = set()
    for pick in (0, 1):
        st = new(basic_tiles="random", seed=3)
        basics(st, 0, {"r0c0": "recipe_box"})
        st.seats[0].recipes = ["berry_tart", "herbal_tea"]
        turn(st, "build", bought=["long_table"])
        st.rng = rng_where(2, pick)
        act(st, 0, "build", space="r0c0")
        assert len(st.seats[0].recipes) == 1
        assert st.recipe_discard[-1] == ["berry_tart", "herbal_tea"][pick]
        results.add(st.recipe_discard[-1])
    assert len(results) == 2  # it is random, not the player's choice


def test_covering_the_investment_pick_tile_discards_a_reserved_tile():
    st = new(basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": "builders_yard"})
    st.seats[0].reserved = ["gilded_throne"]
    turn(st, "build", bought=["long_table"])
    act(st, 0, "build", space="r0c0")
    assert st.seats[0].reserved == [] and st.discards[1][-1] == "gilded_throne"
    # with two reserved, the player chooses which
    st = new(basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": "builders_yard"})
    st.seats[0].reserved = ["drudge", "gilded_throne"]
    turn(st, "build", bought=["long_table"])
    act(st, 0, "build", space="r0c0")
    assert st.pending is not None and st.pending.kind == "reserved_discard"
    choose(st, "0")
    assert st.seats[0].reserved == ["gilded_throne"] and st.discards[0][-1] == "drudge"


@pytest.mark.parametrize("face", [1, 4, 6])
def test_covering_the_dice_and_debt_tile_rolls_for_debts(face):
    st = new(basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": "dice_table"})
    purse(st, 0, chest=0, debts=0)
    turn(st, "build", bought=["long_table"])
    st.rng = rng_for(face)
    act(st, 0, "build", space="r0c0")
    assert st.seats[0].debts == face and st.seats[0].chest == 0
    assert st.last_roll == face


def test_a_bought_tile_no_space_can_take_is_set_aside():
    st = new(kingdom="6+9")
    fill_main(st, 0, leave=1)  # only r3c3 is free
    turn(st, "build", bought=["long_table", "oak_bar_counter"])
    act(st, 0, "build", space="r3c3")
    assert {a.kind for a in G.legal_actions(st, 0)} - {"undo"} == {"set_aside"}
    act(st, 0, "set_aside")
    assert st.discards[0][-1] == "oak_bar_counter" and st.turn.bought == []


# --------------------------------------------------------------------------- recipes


def test_completing_recipes_uses_the_ingredients_and_pays_the_reward():
    st = new()
    p = st.seats[0]
    put(st, 0, "r1c1", "honey_jar_shelf", ["honey"])
    put(st, 0, "r1c2", "vermelha", ["berries"])
    put(st, 0, "r1c3", "spice_rack", ["root_spices"])
    put(st, 0, "r2c1", "drudge", ["berries"])
    p.recipes = ["berry_tart", "root_and_berry_broth", "honey_glazed_venison"]
    turn(st, "recipes")
    why = refused(st, 0, "complete", recipe="honey_glazed_venison")
    assert why == "You do not have every ingredient of that Recipe."
    assert refused(st, 0, "complete", recipe="herbal_tea") == "That Recipe is not in your hand."
    act(st, 0, "complete", recipe="berry_tart")  # Prestige +3
    assert p.prestige == 9 and p.completed == ["berry_tart"]
    assert G.ingredients(p) == {"root_spices": 1, "berries": 1}
    act(st, 0, "complete", recipe="root_and_berry_broth")  # Prestige +2, any gossip
    choose(st, "economic")
    assert p.prestige == 11 and p.gossips["economic"] == 2
    assert G.ingredients(p) == {}
    assert p.recipes == ["honey_glazed_venison"]


def test_a_completed_recipe_stays_with_the_player():
    # A reading. "Once a recipe is completed, the player instantly receives the rewards it
    # offers"; of the card only its ingredients are "discarded" ("Once used, the given
    # ingredients are discarded"), and Scoring counts "Each uncompleted recipe", so the
    # completed ones stay with the player, face up, out of the hand. The Recipe discard
    # pile takes only the cards the rulebook sends there (the Travellers' draws and
    # discards, covering a Recipe draw tile).
    st = new(2)
    p = st.seats[0]
    put(st, 0, "r1c1", "honey_jar_shelf", ["honey"])
    put(st, 0, "r1c2", "vermelha", ["berries"])
    st.deck = [r for r in st.deck if r != "berry_tart"]
    p.recipes = ["berry_tart"]
    turn(st, "recipes")
    act(st, 0, "complete", recipe="berry_tart")
    assert p.completed == ["berry_tart"] and p.recipes == []
    assert "berry_tart" not in st.recipe_discard and "berry_tart" not in st.deck
    assert G.view(st, 1).seats[0].completed == ["berry_tart"]  # face up, for all to see
    # it never comes back through the deck: an empty deck takes the discard pile only
    st.deck, st.recipe_discard = [], ["herbal_tea"]
    resolve(st, 1, [{"kind": "recipe_draw", "amount": 2}])
    assert st.seats[1].recipes[-1] == "herbal_tea" and "berry_tart" not in st.deck
    # it is out of the hand: no Travellers steal can take it, no covered Recipe box
    # discards it ("discard from their hand X random cards")
    assert "steal:0" not in fx.travellers_options(st, 1)
    basics(st, 0, {"r0c0": "recipe_box"})
    turn(st, "build", bought=["long_table"])
    assert refused(st, 0, "build", space="r0c0").startswith("You cannot cover Recipe box")
    # and it costs nothing at the end (only "uncompleted" ones do)
    assert G.scores(st)[0]["recipes"] == 0


# --------------------------------------------------------------------------- update


def test_update_revenue_and_unused_pouch_into_the_chest_then_debts_then_next_player():
    st = new()
    purse(st, 0, chest=2, pouch=3, debts=4)
    st.seats[0].revenue = 5
    purse(st, 1, chest=7, pouch=0)
    turn(st, "confirm")
    act(st, 0, "end_turn")
    p = st.seats[0]
    assert (p.chest, p.pouch, p.debts, p.turns) == (2 + 5 + 3 - 4, 0, 0, 1)
    assert st.turn.seat == 1 and st.seats[1].pouch == 7 and st.seats[1].chest == 0


# =========================================================================== special actions


def test_distressed_draw_a_gossip_of_choice():
    st = new()
    purse(st, 0, gossips={"economic": 3, "political": 0, "travellers": 1})
    resolve(st, 0, [{"kind": "special", "group": "distressed"}])
    assert st.pending.kind == "gossip_gain" and st.pending.options == ["political", "travellers"]
    answer(st, "political")
    assert st.seats[0].gossips == {"economic": 3, "political": 1, "travellers": 1}


def test_die_faces_match_the_rulebook():
    expected = {
        1: [{"kind": "gossip_any", "amount": -1}],
        2: [{"kind": "reputation", "group": "nobles", "amount": -1}],
        3: [{"kind": "revenue", "amount": -1}],
        4: [{"kind": "reputation", "group": "outlaws", "amount": 2}],
        5: [{"kind": "guldens", "amount": 3}],
        6: [{"kind": "reputation", "group": "townsfolk", "amount": 1},
            {"kind": "reputation", "group": "travellers", "amount": 1}],
    }
    for face, effects in expected.items():
        got = [e.model_dump(exclude_none=True) for e in C.die_face(face).effects]
        assert [{k: v for k, v in e.items() if k in ("kind", "group", "amount")}
                for e in got] == effects


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_outlaws_roll_the_die_and_perform_the_face(face):
    st = new()
    purse(st, 0, chest=0, gossips={"economic": 1}, nobles=3, outlaws=1, townsfolk=1,
          travellers=1)
    st.seats[0].revenue = 4
    st.rng = rng_for(face)
    resolve(st, 0, [{"kind": "special", "group": "outlaws"}])
    p = st.seats[0]
    assert st.last_roll == face
    assert p.gossips["economic"] == (0 if face == 1 else 1)
    assert p.reputation["nobles"] == (2 if face == 2 else 3)
    assert p.revenue == (3 if face == 3 else 4)
    assert p.reputation["outlaws"] == (3 if face == 4 else 1)
    assert p.chest == (3 if face == 5 else 0)
    assert p.reputation["townsfolk"] == p.reputation["travellers"] == (2 if face == 6 else 1)


def test_outlaws_face_one_lets_the_player_choose_the_gossip():
    st = new()
    purse(st, 0, gossips={"economic": 1, "travellers": 2})
    st.rng = rng_for(1)
    resolve(st, 0, [{"kind": "special", "group": "outlaws"}])
    assert st.pending.kind == "gossip_lose" and st.pending.options == ["economic", "travellers"]
    answer(st, "travellers")
    assert st.seats[0].gossips == {"economic": 1, "political": 0, "travellers": 1}


def test_outlaws_from_the_track():
    st = new()
    purse(st, 0, outlaws=6, chest=0)
    st.rng = rng_for(5)
    resolve(st, 0, [{"kind": "reputation", "group": "outlaws", "amount": 1}])
    assert st.last_roll == 5 and st.seats[0].chest == 3


def test_travellers_draw_two_keep_one_discard_the_other():
    st = new()
    st.seats[0].recipes = []
    st.deck = ["berry_tart", "herbal_tea", "citrus_punch"]
    st.recipe_discard = []
    resolve(st, 0, [{"kind": "special", "group": "travellers"}])
    assert st.pending.kind == "travellers"
    assert {"draw2", "pass"} <= set(st.pending.options)
    answer(st, "draw2")
    assert st.pending.kind == "keep_recipe" and len(st.pending.options) == 2
    drawn = list(st.pending.options)
    answer(st, drawn[1])
    assert st.seats[0].recipes == [drawn[1]] and st.recipe_discard == [drawn[0]]
    assert len(st.deck) == 1


def test_travellers_discard_a_recipe_of_choice():
    st = new()
    st.seats[0].recipes = ["berry_tart", "herbal_tea"]
    resolve(st, 0, [{"kind": "special", "group": "travellers"}])
    answer(st, "discard")
    assert st.pending.kind == "discard_recipe"
    assert sorted(st.pending.options) == ["berry_tart", "herbal_tea"]
    answer(st, "herbal_tea")
    assert st.seats[0].recipes == ["berry_tart"] and st.recipe_discard[-1] == "herbal_tea"


def test_travellers_pass():
    st = new()
    before = list(st.seats[0].recipes)
    resolve(st, 0, [{"kind": "special", "group": "travellers"}])
    answer(st, "pass")
    assert st.pending is None and st.seats[0].recipes == before


@pytest.mark.parametrize("decision", ["draw", "pass"])
def test_travellers_take_a_random_recipe_the_victim_may_draw(decision):
    st = new(3)
    purse(st, 0, gossips={"political": 1}, travellers=6)
    st.seats[0].recipes = []
    st.seats[1].recipes = ["berry_tart", "herbal_tea"]
    turn(st, "gossip")
    act(st, 0, "gossip", action="political_a", groups=["travellers"])
    assert st.pending.kind == "travellers" and G.to_act(st) == [0]
    assert "steal:1" in st.pending.options and "steal:2" in st.pending.options
    deck = len(st.deck)
    choose(st, "steal:1")
    assert len(st.seats[0].recipes) == 1
    assert st.seats[0].recipes[0] in ("berry_tart", "herbal_tea")
    assert len(st.seats[1].recipes) == 1
    assert set(st.seats[0].recipes + st.seats[1].recipes) == {"berry_tart", "herbal_tea"}
    # the decision to draw is the victim's
    assert st.pending.kind == "victim_draw" and st.pending.seat == 1
    assert G.to_act(st) == [1]
    refused(st, 0, "choose", option=decision, exc=NotYourTurn)
    choose(st, decision)
    assert len(st.seats[1].recipes) == (2 if decision == "draw" else 1)
    assert len(st.deck) == deck - (decision == "draw")
    assert G.to_act(st) == [0]


def test_travellers_steal_is_random():
    taken = set()
    for pick in (0, 1):
        st = new(2)
        st.seats[1].recipes = ["berry_tart", "herbal_tea"]
        resolve(st, 0, [{"kind": "special", "group": "travellers"}])
        st.rng = rng_where(2, pick)
        answer(st, "steal:1")
        taken.add(st.seats[0].recipes[-1])
    assert taken == {"berry_tart", "herbal_tea"}


def test_townsfolk_exchange_reserved_for_a_track_tile_of_the_same_tier():
    st = new()
    st.seats[0].reserved = ["drudge"]
    track(st, 1, ["oak_bar_counter", "long_table", "fireplace", "spice_rack"])
    track(st, 2, ["gilded_throne", "chandelier", "wine_racks", "cook"])
    resolve(st, 0, [{"kind": "special", "group": "townsfolk"}])
    opts = st.pending.options
    assert "pass" in opts  # "You may choose"
    assert "exchange:0:1:2" in opts and not any(o.startswith("exchange:0:2") for o in opts)
    answer(st, "exchange:0:1:2")
    assert st.seats[0].reserved == ["fireplace"]
    assert st.tracks[0] == ["oak_bar_counter", "long_table", "drudge", "spice_rack"]


def test_townsfolk_exchange_reserved_for_the_top_of_the_discard_pile():
    st = new()
    st.seats[0].reserved = ["gilded_throne"]
    st.discards = [["drudge"], ["cook", "chandelier"]]
    resolve(st, 0, [{"kind": "special", "group": "townsfolk"}])
    answer(st, "exchange:0:discard")
    assert st.seats[0].reserved == ["chandelier"]
    assert st.discards[1] == ["cook", "gilded_throne"] and st.discards[0] == ["drudge"]


def test_townsfolk_exchange_with_another_players_reserved_tile():
    st = new(3)
    st.seats[0].reserved = ["drudge"]
    st.seats[2].reserved = ["long_table", "king_ludo"]
    resolve(st, 0, [{"kind": "special", "group": "townsfolk"}])
    assert "swap:0:2:1" in st.pending.options and "swap:0:1:0" not in st.pending.options
    answer(st, "swap:0:2:1")
    assert st.seats[0].reserved == ["king_ludo"]
    assert st.seats[2].reserved == ["long_table", "drudge"]


def test_townsfolk_return_a_reserved_tile_to_its_pouch_for_two_guldens():
    st = new()
    st.seats[0].reserved = ["king_ludo"]
    purse(st, 0, chest=0)
    n = st.pouches[1].count("king_ludo")
    resolve(st, 0, [{"kind": "special", "group": "townsfolk"}])
    answer(st, "return:0")
    assert st.seats[0].reserved == [] and st.seats[0].chest == 2
    assert st.pouches[1].count("king_ludo") == n + 1


def test_townsfolk_exchange_never_puts_two_identical_tiles_on_a_track():
    # "ATTENTION! There cannot be two identical tiles on the same track."
    st = new()
    st.seats[0].reserved = ["long_table"]
    track(st, 1, ["oak_bar_counter", "long_table", "fireplace", "spice_rack"])
    resolve(st, 0, [{"kind": "special", "group": "townsfolk"}])
    for option in st.pending.options:
        if option.startswith("exchange:0:1:"):
            trial = G.copy_state(st)
            answer(trial, option)
            tiles = [t for t in trial.tracks[0] if t]
            assert len(tiles) == len(set(tiles)), (option, trial.tracks[0])


def test_nobles_receive_three_guldens():
    st = new()
    purse(st, 0, chest=4)
    resolve(st, 0, [{"kind": "special", "group": "nobles"}])
    assert st.seats[0].chest == 7


# --------------------------------------------------------------------------- Legend effects


@pytest.mark.parametrize(("effect", "check"), [
    ({"kind": "prestige", "amount": 3}, lambda p: p.prestige == 9),
    ({"kind": "prestige", "amount": -2}, lambda p: p.prestige == 4),
    ({"kind": "revenue", "amount": 2}, lambda p: p.revenue == 6),
    ({"kind": "revenue", "amount": -2}, lambda p: p.revenue == 2),
    ({"kind": "guldens", "amount": 4}, lambda p: p.chest == 4 and p.debts == 0),
    ({"kind": "guldens", "amount": -2}, lambda p: p.chest == 0 and p.debts == 2),
    ({"kind": "gossip", "gossip": "political", "amount": 2}, lambda p: p.gossips["political"] == 3),
    ({"kind": "gossip", "gossip": "travellers", "amount": -1},
     lambda p: p.gossips["travellers"] == 0),
    ({"kind": "reputation", "group": "townsfolk", "amount": 3},
     lambda p: p.reputation["townsfolk"] == 4),
    ({"kind": "reputation", "group": "distressed", "amount": -1},
     lambda p: p.reputation["distressed"] == 0 and p.prestige == 6),
])
def test_legend_plain_effects(effect, check):
    st = new()
    purse(st, 0, chest=0)
    resolve(st, 0, [effect])
    assert st.pending is None
    assert check(st.seats[0])


def test_legend_any_gossip_may_be_of_different_kinds():
    st = new()
    purse(st, 0, gossips={})
    resolve(st, 0, [{"kind": "gossip_any", "amount": 2}])
    answer(st, "economic")
    answer(st, "travellers")
    assert st.seats[0].gossips == {"economic": 1, "political": 0, "travellers": 1}


def test_legend_reputation_any_one_group():
    st = new()
    resolve(st, 0, [{"kind": "reputation_any", "amount": 2}])
    assert st.pending.kind == "reputation_any" and set(st.pending.options) == set(GROUPS)
    answer(st, "outlaws")
    assert st.seats[0].reputation["outlaws"] == 3
    assert sum(st.seats[0].reputation.values()) == 7


def test_legend_ingredient_token_on_the_tiles_back():
    st = new()
    turn(st, "build", bought=["cheese_cupboard"])
    act(st, 0, "build", space="r1c2")
    assert st.seats[0].inn["r1c2"].ingredients == ["epic_cheese"]


def test_legend_recipe_draw():
    st = new()
    before = len(st.seats[0].recipes)
    deck = len(st.deck)
    resolve(st, 0, [{"kind": "recipe_draw", "amount": 1}])
    assert len(st.seats[0].recipes) == before + 1 and len(st.deck) == deck - 1


def test_legend_investment_pick_reserves_a_tile_from_the_track():
    st = new()
    track(st, 2, ["gilded_throne", "chandelier", "wine_racks", "cook"], ["meilan"])
    resolve(st, 0, [{"kind": "investment_pick", "amount": 1}])
    assert st.pending.kind == "investment_pick" and "2:2" in st.pending.options
    answer(st, "2:2")
    assert st.seats[0].reserved == ["wine_racks"]
    assert "meilan" in st.tracks[1] and "wine_racks" not in st.tracks[1]
    # no free reserving space: nothing happens
    st.seats[0].reserved = ["drudge", "cook"]
    resolve(st, 0, [{"kind": "investment_pick", "amount": 1}])
    assert st.pending is None and st.seats[0].reserved == ["drudge", "cook"]


def test_legend_investment_pick_replaces_the_tile_picked():
    # "Replace the tile you picked with another one from a pouch of its tier."
    st = new()
    track(st, 2, ["gilded_throne", "chandelier", "wine_racks", "cook"], ["meilan"])
    resolve(st, 0, [{"kind": "investment_pick", "amount": 1}])
    answer(st, "2:2")
    assert st.tracks[1] == ["gilded_throne", "chandelier", "meilan", "cook"]


@pytest.mark.parametrize("face", [2, 6])
def test_legend_dice_and_debt_pays_the_roll_in_guldens(face):
    st = new()
    purse(st, 0, chest=0)
    st.rng = rng_for(face)
    resolve(st, 0, [{"kind": "dice_guldens"}])
    assert st.seats[0].chest == face and st.last_roll == face


def test_legend_dice_rolls_the_random_events_die():
    st = new()
    purse(st, 0, chest=0)
    st.rng = rng_for(5)
    resolve(st, 0, [{"kind": "dice"}])
    assert st.last_roll == 5 and st.seats[0].chest == 3


def test_legend_special_action_icon():
    st = new()
    purse(st, 0, chest=0)
    resolve(st, 0, [{"kind": "special_action", "group": "nobles"}])
    assert st.seats[0].chest == 3


def test_legend_double_and_triple_effects_all_apply():
    st = new()
    purse(st, 0, chest=0)
    turn(st, "build", bought=["veteran", "bards_stage"])
    act(st, 0, "build", space="r1c1")  # Nobles +2, Townsfolk +2, Prestige +1
    act(st, 0, "build", space="r2c3")  # Prestige +2, Townsfolk +2, Travellers +1; 2 Debts
    p = st.seats[0]
    assert p.reputation["nobles"] == 3 and p.reputation["townsfolk"] == 5
    assert p.reputation["travellers"] == 2 and p.prestige == 9 and p.debts == 2


# =========================================================================== Kingdom Cards


def test_kingdom_1_workers_next_to_furnishings():
    st = new(kingdom="1+3")
    turn(st, "build", bought=["tinhorn"])
    why = refused(st, 0, "build", space="r1c1")
    assert why.startswith(card_name(1)) and "Workers" in why
    put(st, 0, "r1c2", "oak_bar_counter")
    fresh(st)
    assert legal(st, 0, "build", space="r1c1")
    assert not legal(st, 0, "build", space="r2c1")


def test_kingdom_2_ingredient_tiles_on_the_outer_ring_only():
    st = new(kingdom="2+3")
    turn(st, "build", bought=["honey_jar_shelf"])
    why = refused(st, 0, "build", space="r1c1")
    assert why.startswith(card_name(2)) and "outer ring" in why
    assert legal(st, 0, "build", space="r0c1")
    turn(st, "build", bought=["long_table"])  # no ingredient: anywhere
    assert legal(st, 0, "build", space="r1c1")


def test_kingdom_3_at_most_seven_tiles_of_a_type():
    st = new(kingdom="3+5")
    spaces = ["r0c1", "r0c3", "r1c0", "r1c2", "r1c4", "r2c1", "r2c3"]
    for s in spaces:
        put(st, 0, s, "stables")
    turn(st, "build", bought=["bathhouse"])
    why = refused(st, 0, "build", space="r3c2")
    assert why.startswith(card_name(3)) and "7" in why
    turn(st, "build", bought=["long_table"])
    assert legal(st, 0, "build", space="r3c2")


def test_kingdom_4_special_guests_in_one_line():
    st = new(kingdom="3+4")
    put(st, 0, "r1c1", "kobi")
    turn(st, "build", bought=["renmy"])
    why = refused(st, 0, "build", space="r2c2")
    assert why.startswith(card_name(4)) and "one row or one column" in why
    act(st, 0, "build", space="r1c3")
    turn(st, "build", bought=["alstero"])
    assert refused(st, 0, "build", space="r2c1").startswith(card_name(4))
    assert legal(st, 0, "build", space="r1c2")


def test_kingdom_5_services_not_next_to_each_other():
    st = new(kingdom="3+5")
    put(st, 0, "r1c1", "stables")
    turn(st, "build", bought=["laundry"])
    why = refused(st, 0, "build", space="r1c2")
    assert why.startswith(card_name(5))
    assert legal(st, 0, "build", space="r2c2")  # diagonal is not "next to"


def test_kingdom_6_tiles_bought_the_same_turn_not_next_to_each_other():
    st = new(kingdom="3+6")
    put(st, 0, "r2c2", "long_table")
    turn(st, "build", bought=["oak_bar_counter", "fireplace"])
    act(st, 0, "build", space="r1c2")  # next to an old tile: fine
    why = refused(st, 0, "build", space="r1c3")
    assert why.startswith(card_name(6))
    act(st, 0, "build", space="r1c4")


def test_kingdom_7_inner_ring_a_gulden_outer_ring_a_debt():
    st = new(kingdom="3+7", basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": "garden_patch"})
    purse(st, 0, chest=0, debts=0)
    turn(st, "build", bought=["long_table", "oak_bar_counter"])
    act(st, 0, "build", space="r1c1")
    assert st.seats[0].chest == 1 and st.seats[0].debts == 0
    act(st, 0, "build", space="r0c3")
    assert st.seats[0].chest == 1 and st.seats[0].debts == 1
    turn(st, "build", bought=["fireplace"])
    act(st, 0, "build", space="r0c0")  # a corner is on the outer ring
    assert st.seats[0].debts == 2


@pytest.mark.parametrize(("players", "each", "guldens"), [(2, 1, 2), (3, 2, 4), (4, 2, 4)])
def test_kingdom_8_bonus_supply_by_player_count(players, each, guldens):
    st = new(players, kingdom="8+9")
    assert st.line_pool == {**dict.fromkeys(GOSSIPS, each), "guldens": guldens}
    assert new(players, kingdom="1+9").line_pool == {}


@pytest.mark.parametrize(("tile", "kind", "gain"), [
    ("long_table", "guldens", 2),           # yellow: 2 guldens
    ("stables", "economic", 1),             # brown: economic gossip
    ("thug", "political", 1),               # blue: political gossip
    ("alstero", "travellers", 1),           # red: traveller's gossip
])
def test_kingdom_8_three_in_a_line_pays_from_the_card(tile, kind, gain):
    st = new(2, kingdom="3+8")
    purse(st, 0, chest=0, gossips={})
    put(st, 0, "r1c1", tile)
    put(st, 0, "r1c2", tile)
    turn(st, "build", bought=[tile])
    # the tile's own effects aside, the card pays the line's bonus
    before = st.seats[0].model_copy(deep=True)
    pool = dict(st.line_pool)
    act(st, 0, "build", space="r1c3")
    while st.pending is not None:
        choose(st, st.pending.options[0])
    assert st.line_pool[kind] == pool[kind] - gain
    assert all(st.seats[0].inn[s].in_line for s in ("r1c1", "r1c2", "r1c3"))
    own = sum(e.amount for e in C.tile(tile).on_build
              if (kind == "guldens" and e.kind == "guldens" and e.amount > 0)
              or (e.kind == "gossip" and e.gossip == kind))
    if kind == "guldens":
        assert st.seats[0].chest - before.chest == own + gain
    else:
        assert st.seats[0].gossips[kind] - before.gossips[kind] == own + gain


def test_kingdom_8_a_tile_counts_in_one_bonus_line_only():
    st = new(3, kingdom="8+9")
    purse(st, 0, chest=0)
    for s in ("r1c1", "r1c3", "r0c2", "r2c2"):
        put(st, 0, s, "long_table")
    turn(st, "build", bought=["long_table", "oak_bar_counter"])
    act(st, 0, "build", space="r1c2")  # completes a row and a column at once
    assert st.line_pool["guldens"] == 2  # paid once
    assert st.seats[0].chest == 2
    # r1c2 is used: a column through it pays nothing
    act(st, 0, "build", space="r3c2")
    assert st.line_pool["guldens"] == 2
    # a fully new line pays again
    for s in ("r2c0", "r3c0"):
        put(st, 0, s, "long_table")
    turn(st, "build", bought=["long_table"])
    act(st, 0, "build", space="r1c0")
    assert st.line_pool["guldens"] == 0


def test_kingdom_8_nothing_paid_once_the_supply_is_gone():
    st = new(2, kingdom="3+8")
    purse(st, 0, chest=0)
    st.line_pool["guldens"] = 0
    put(st, 0, "r1c1", "long_table")
    put(st, 0, "r1c2", "long_table")
    turn(st, "build", bought=["long_table"])
    act(st, 0, "build", space="r1c3")
    assert st.seats[0].chest == 0 and st.line_pool["guldens"] == 0


def test_kingdom_9_extra_ingredient_on_corners():
    st = new(kingdom="3+9", basic_tiles="random", seed=3)
    basics(st, 0, {"r0c0": "cellar", "r0c4": "garden_patch"})
    turn(st, "build", bought=["honey_jar_shelf", "spice_rack"])
    act(st, 0, "build", space="r0c0")
    assert st.seats[0].inn["r0c0"].ingredients == ["honey", "honey"]
    act(st, 0, "build", space="r0c4")  # Garden Patch and #9 together
    assert st.seats[0].inn["r0c4"].ingredients == ["root_spices"] * 3
    turn(st, "build", bought=["fruit_bowl"])
    act(st, 0, "build", space="r1c1")  # not a corner
    assert st.seats[0].inn["r1c1"].ingredients == ["citrus"]


def test_kingdom_10_furnishings_on_the_inner_ring_only():
    st = new(kingdom="3+10")
    turn(st, "build", bought=["oak_bar_counter"])
    why = refused(st, 0, "build", space="r0c1")
    assert why.startswith(card_name(10)) and "inner ring" in why
    assert legal(st, 0, "build", space="r2c3")
    assert set(G.build_spaces(st, 0)) == {s for s in board.MAIN_SPACES
                                          if board.ring(s) == "inner"}


def test_kingdom_restriction_also_stops_a_purchase_that_no_space_can_take():
    st = new(kingdom="3+10")
    for s in board.MAIN_SPACES:
        if board.ring(s) == "inner":
            put(st, 0, s, "stables")
    purse(st, 0, pouch=20)
    track(st, 1, ["long_table", "drudge", "kobi", "thug"])
    turn(st, "invest")
    assert refused(st, 0, "buy", tier=1, slot=0) == (
        "No space of your inn can take Long table now: Kingdom Card #10 (...So they won't "
        "steal it): Furnishings tiles go on the inner ring only.")
    assert legal(st, 0, "buy", tier=1, slot=1)


# =========================================================================== Steel cages


def test_steel_cages_rulebook_example():
    tile = C.tile("steel_cages")
    assert tile.name == "Steel cages" and tile.category == "services"
    assert tile.cost.or_gossips.gossip == "economic" and tile.cost.or_gossips.count == 3
    assert [(e.kind, getattr(e, "group", None), e.amount) for e in tile.on_build] == [
        ("reputation", "outlaws", 3), ("guldens", None, 6), ("revenue", None, -2)]
    st = new()
    purse(st, 0, pouch=0, chest=0, gossips={"economic": 3}, outlaws=1)
    st.seats[0].revenue = 4
    track(st, 2, ["steel_cages", "chandelier", "wine_racks", "cook"])
    turn(st, "invest")
    act(st, 0, "buy", tier=2, slot=0, pay="gossips")
    assert st.seats[0].gossips["economic"] == 0
    while st.turn.step != "build":  # (nothing else to buy) Reserving, then its end
        act(st, 0, "next")
    act(st, 0, "build", space="r1c1")
    p = st.seats[0]
    assert p.reputation["outlaws"] == 4   # 3 spaces forward
    assert p.chest == 6 and p.pouch == 0  # 6 guldens into the Chest
    assert p.revenue == 2                 # revenue back by 2


# =========================================================================== end of the game


def test_announce_only_with_sixteen_covered():
    st = new(3, basic_tiles="random", seed=3)
    settle(st)
    fill_main(st, 0, leave=1)
    turn(st, "confirm")
    assert not legal(st, 0, "end_turn", announce=True)
    why = refused(st, 0, "end_turn", announce=True)
    assert "16" in why
    # the corners do not count
    for s in board.CORNERS:
        put(st, 0, s, "long_table")
    fresh(st)
    assert not legal(st, 0, "end_turn", announce=True)


def test_announce_gives_the_players_with_fewer_turns_a_last_turn():
    st = settle(G.setup(3, G.parse_options({"basic_tiles": "random"}), 3))
    fill_main(st, 1)
    turn(st, "confirm", seat=1)
    st.seats[0].turns = 1
    act(st, 1, "end_turn", announce=True)
    assert not st.finished and st.turn.seat == 2 and st.last_turns == [2]
    turn(st, "confirm", seat=2)
    act(st, 2, "end_turn")
    assert st.finished and G.outcome(st) is not None
    assert st.seats[0].turns == 1  # the first player does not play again


def test_announce_by_the_last_seat_ends_at_once():
    st = settle(G.setup(3, G.parse_options({"basic_tiles": "random"}), 3))
    fill_main(st, 2)
    turn(st, "confirm", seat=2)
    act(st, 2, "end_turn", announce=True)
    assert st.finished


def test_announce_by_the_first_player_all_others_play():
    st = settle(G.setup(3, G.parse_options({"basic_tiles": "random"}), 3))
    fill_main(st, 0)
    turn(st, "confirm")
    act(st, 0, "end_turn", announce=True)
    assert st.last_turns == [1, 2] and not st.finished
    turn(st, "confirm", seat=1)
    act(st, 1, "end_turn")
    assert not st.finished
    turn(st, "confirm", seat=2)
    act(st, 2, "end_turn")
    assert st.finished


def test_no_announcement_the_game_goes_on_until_everyone_has_sixteen():
    st = settle(G.setup(2, G.parse_options({"basic_tiles": "random"}), 3))
    fill_main(st, 0)
    turn(st, "confirm")
    act(st, 0, "end_turn")  # not announced
    assert not st.finished and st.turn.seat == 1
    fill_main(st, 1)
    turn(st, "confirm", seat=1)
    act(st, 1, "end_turn")
    assert st.finished


def test_without_basic_tiles_the_game_ends_when_the_first_covers_sixteen():
    st = new(3)
    fill_main(st, 1)
    turn(st, "confirm", seat=1)
    act(st, 1, "end_turn")
    assert st.finished


def test_without_basic_tiles_announcing_also_ends_the_game():
    # "In such a case, the game ends when the first player covers the 16 spaces"
    st = new(3)
    fill_main(st, 1)
    turn(st, "confirm", seat=1)
    for a in G.legal_actions(st, 1):
        trial = G.copy_state(st)
        G.apply(trial, 1, a)
        assert trial.finished, a


def test_scoring_every_part():
    st = new(2)
    p = st.seats[0]
    p.prestige = 10
    p.reputation = {"distressed": 12, "outlaws": 0, "travellers": 7, "townsfolk": 3,
                    "nobles": 1}
    p.chest, p.pouch, p.debts = 8, 0, 3
    p.gossips = {"economic": 1, "political": 2, "travellers": 0}
    p.recipes = ["berry_tart", "herbal_tea"]
    p.completed = ["citrus_punch"]
    put(st, 0, "r1c1", "honey_jar_shelf", ["honey"])
    put(st, 0, "r1c2", "cheese_cupboard", ["epic_cheese"])
    put(st, 0, "r1c3", "long_table")
    parts = G.scores(st)[0]
    assert parts == {"prestige": 10, "reputation": 9 - 2 + 3 + 1 + 0, "guldens": 2,
                     "gossips": 3, "ingredients": 2, "debts": -3, "recipes": -4,
                     "total": 10 + 11 + 2 + 3 + 2 - 3 - 4}


def test_the_final_prestige_is_never_below_one():
    # "The player can never have less Prestige than 1"; the Reputation bonuses "update the
    # player's score on the Prestige track". Parts that add up to -5 give 1.
    st = new(2)
    p = st.seats[0]
    p.prestige = 1
    p.reputation = dict.fromkeys(GROUPS, 1)
    p.reputation["nobles"] = 0  # -2
    p.chest = p.pouch = 0
    p.debts = 2  # -2
    p.gossips = dict.fromkeys(GOSSIPS, 0)
    p.recipes = ["berry_tart"]  # -2
    parts = G.scores(st)[0]
    assert sum(v for k, v in parts.items() if k != "total") == 1 - 2 - 2 - 2 == -5
    assert parts["total"] == 1
    st.finished, st.phase = True, "over"
    assert G.outcome(st).scores[0] == 1
    assert G.view(st, None).seats[0].score == 1


def test_totals_at_the_floor_tie_and_are_broken_by_the_nobles():
    # "In case of a draw, the game is won by the one of the tied players who has the
    # biggest Reputation among the Nobles": -5 and -1 both end on 1 Prestige.
    st = new(2)
    for s, (nobles, debts) in enumerate(((0, 0), (1, 0))):
        p = st.seats[s]
        p.prestige, p.chest, p.pouch, p.debts = 1, 0, 0, debts
        p.reputation = {**dict.fromkeys(GROUPS, 1), "nobles": nobles}
        p.gossips = dict.fromkeys(GOSSIPS, 0)
        p.recipes = ["berry_tart", "herbal_tea"] if s == 0 else []
    assert [x["total"] for x in G.scores(st)] == [1, 1]
    st.finished, st.phase = True, "over"
    outcome = G.outcome(st)
    assert outcome.winners == [1]
    assert outcome.reason == ("The game is over: 1 Prestige; the tie is broken by the "
                              "Nobles, then the Townsfolk.")


def _tied(st, a_nobles, a_towns, b_nobles, b_towns):
    for s, (n, t) in enumerate(((a_nobles, a_towns), (b_nobles, b_towns))):
        p = st.seats[s]
        p.reputation = {"distressed": 1, "outlaws": 1, "travellers": 1, "townsfolk": t,
                        "nobles": n}
        p.chest = p.pouch = p.debts = 0
        p.gossips = dict.fromkeys(GOSSIPS, 0)
        p.recipes = []
        p.prestige = 20
    # equalise the totals with Prestige
    scores = G.scores(st)
    diff = scores[0]["total"] - scores[1]["total"]
    st.seats[1].prestige += diff
    assert G.scores(st)[0]["total"] == G.scores(st)[1]["total"]
    st.finished = True
    st.phase = "over"
    return G.outcome(st)


def test_tie_broken_by_the_nobles():
    st = new(2)
    assert _tied(st, 5, 9, 6, 1).winners == [1]


def test_tie_then_broken_by_the_townsfolk():
    st = new(2)
    assert _tied(st, 6, 4, 6, 3).winners == [0]
    st = new(2)
    assert _tied(st, 6, 3, 6, 3).winners == [0, 1]


def test_highest_total_wins():
    st = new(2)
    st.seats[0].prestige = 30
    st.finished, st.phase = True, "over"
    assert G.outcome(st).winners == [0]


# =========================================================================== take-backs


def test_take_back_a_step_until_confirmation():
    st = new()
    purse(st, 0, gossips={"political": 1})
    fresh(st)
    before = G.dump_state(st)
    act(st, 0, "impression", closed="townsfolk", open="nobles")
    act(st, 0, "gossip", action="political_a", groups=["outlaws"])
    assert legal(st, 0, "undo")
    act(st, 0, "undo")  # the gossip
    p = st.seats[0]
    assert p.reputation["outlaws"] == 1 and p.gossips["political"] == 1
    assert p.reputation["townsfolk"] == 0 and st.turn.impression_done
    act(st, 0, "undo")  # the impression
    p = st.seats[0]
    assert p.reputation == dict.fromkeys(GROUPS, 1) and not st.turn.impression_done
    assert st.turn.step == "impression"
    after = G.load_state(G.dump_state(st))
    orig = G.load_state(before)
    assert after.seats == orig.seats and after.turn == orig.turn and after.tracks == orig.tracks
    assert refused(st, 0, "undo").startswith("There is nothing to take back")


def _public_lines(events) -> list[str]:
    return [e.text(lambda s: NAMES_BY_SEAT[s]) for e in events if e.visible(None)]


NAMES_BY_SEAT = ["Ann", "Ben", "Cat", "Dan"]


@pytest.mark.parametrize(("step", "setup", "line"), [
    ("impression", {}, "Ann skips the Guest Impression"),
    ("gossip", {}, "Ann skips the gossip actions"),
    ("gossip", {"gossips_used": ["economic"]}, "Ann is done with the gossip actions"),
    ("invest", {}, "Ann skips Investing"),
    ("invest", {"buys": 1}, "Ann is done buying"),
    ("reserve", {}, "Ann reserves no tile"),
    ("recipes", {}, "Ann is done with the Recipes"),
])
def test_every_skip_is_a_public_line(step, setup, line):
    st = new()
    purse(st, 0, pouch=20, gossips={"economic": 3, "political": 3, "travellers": 3})
    st.seats[0].recipes = ["berry_tart"]
    put(st, 0, "r1c1", "honey_jar_shelf")
    turn(st, step, **setup)
    assert legal(st, 0, "next")
    lines = _public_lines(act(st, 0, "next"))
    assert lines[0] == line


def test_a_take_back_follows_the_line_of_the_step_it_undoes():
    # Issue 23: "Cat takes back the last step" came after a line that showed nothing to
    # take back, because a Skip was not logged.
    st = new()
    fresh(st)
    log = _public_lines(act(st, 0, "next"))
    assert legal(st, 0, "undo")
    log += _public_lines(act(st, 0, "undo"))
    assert log == ["Ann skips the Guest Impression", "Ann takes back the last step"]
    assert st.turn.step == "impression"


def test_take_back_a_reserved_tile_purchase():
    st = new()
    purse(st, 0, pouch=5)
    st.seats[0].reserved = ["long_table"]
    turn(st, "invest")
    act(st, 0, "buy", tier=None, slot=0)
    act(st, 0, "undo")
    assert st.seats[0].reserved == ["long_table"] and st.seats[0].pouch == 5
    assert st.turn.bought == [] and st.turn.buys == 0


def test_a_track_refill_makes_the_turn_final():
    st = new()
    purse(st, 0, pouch=20)
    fresh(st)
    act(st, 0, "impression", closed="townsfolk", open="nobles")
    act(st, 0, "next")  # leave the gossip step
    assert st.turn.step == "invest"
    buy = next(a for a in G.legal_actions(st, 0) if a.kind == "buy" and a.tier is not None)
    G.apply(st, 0, buy)
    assert not legal(st, 0, "undo")
    refused(st, 0, "undo")
    assert st.seats[0].reputation["townsfolk"] == 0  # the impression is final too


def test_end_of_reserving_is_final():
    st = new()
    turn(st, "reserve")
    act(st, 0, "next")
    assert not legal(st, 0, "undo")


def test_a_roll_is_final():
    st = new()
    turn(st, "build", bought=["tinhorn"])
    act(st, 0, "build", space="r1c1")
    assert st.last_roll is not None
    refused(st, 0, "undo")


def test_a_draw_is_final():
    st = new()
    turn(st, "build", bought=["kitchenhand"])
    act(st, 0, "build", space="r1c1")
    assert len(st.seats[0].recipes) == 3
    refused(st, 0, "undo")


def test_confirmation_is_final():
    st = new()
    turn(st, "confirm")
    act(st, 0, "end_turn")
    assert st.turn.seat == 1
    assert not legal(st, 1, "undo") and not legal(st, 0, "undo")


def test_take_back_a_decision_of_a_special_action():
    st = new()
    purse(st, 0, distressed=6, gossips={"political": 1})
    turn(st, "gossip")
    act(st, 0, "gossip", action="political_a", groups=["distressed"])
    assert st.pending is not None and st.pending.kind == "gossip_gain"
    choose(st, "economic")
    act(st, 0, "undo")
    assert st.pending is not None and st.pending.kind == "gossip_gain"
    assert st.seats[0].gossips["economic"] == 0
