"""Fairy Tale in My Pocket: a rulebook audit, one test per rule not already pinned down
by ``tests/test_pocket.py`` (whose helpers build the states here).

Each test quotes, in its docstring, the line of ``rules/fairy_tale_in_my_pocket.txt`` it
checks. Numbers come from ``data/pocket.json`` where the project tunes them (strengths,
deeds, tile amounts) and from the rulebook where it prints them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engines.core import IllegalAction
from engines.pocket.state import (
    Coat,
    Drink,
    Drop,
    Explore,
    Fight,
    Find,
    Go,
    GoodDeed,
    Held,
    Leave,
    Pay,
    PickTile,
    PocketState,
    Rest,
    Run,
    Send,
    SendDone,
    Shop,
    Stay,
    Wish,
)
from tests.test_pocket import (
    BENIGN,
    KNIGHT,
    C,
    G,
    R,
    card_of,
    deck,
    fresh,
    has,
    held,
    line,
    meet,
    peddler,
    put,
    strength,
    villain,
)


def amount(tile: str) -> int:
    return C.tile(tile).instruction.amount


def refused(s: PocketState, action: Any) -> str:
    """Apply an illegal ``action``: it raises IllegalAction (a ValueError) and leaves the
    state exactly as it was; the message is returned."""
    assert action not in G.legal_actions(s, s.turn_seat)
    before = s.model_dump()
    with pytest.raises(IllegalAction) as info:
        G.apply(s, s.turn_seat, action)
    assert isinstance(info.value, ValueError)
    assert s.model_dump() == before, "a refused action changed the state"
    return str(info.value)


# --------------------------------------------------------------------------- setup


def test_setup_three_cards_set_aside_face_down_and_the_sun_highest() -> None:
    """Setup 3: "set aside the top 3 cards facedown"; 6: "Note the starting time (sun
    highest in the sky)"."""
    s = fresh("random", seed=11)
    assert len(s.set_aside) == R.set_aside == 3 and not set(s.set_aside) & set(s.deck)
    assert sorted(s.set_aside + s.deck) == sorted(k.id for k in C.cards)
    view = G.view(s, None)
    assert view.set_aside == 3 and view.deck == 7 and view.time == 0
    assert view.time_name == C.times[0].name == "High sun"
    shown = view.model_dump_json()
    assert not [k for k in s.set_aside + s.deck if f'"{k}"' in shown]  # face down
    assert s.special in ("mirror", "wand", "boots")
    assert (view.health, view.max_health, view.gold, view.max_gold, view.defense.total) == \
        (6, 8, 1, 6, 1)


# --------------------------------------------------------------------------- special items


def test_mirror_puts_the_other_kingdom_tile_at_the_bottom_of_the_kingdom_stack() -> None:
    """Magic Mirror: "look at the top two area tiles and choose one to place. The other
    must be placed at the bottom of the stack. Costs 1 gold per use." """
    s = fresh("mirror")
    put(s, "forest_path", 0, -1)
    put(s, "kingdom_path", 0, -2)
    s.pawn, s.princess = "kingdom_path", True
    s.kingdom = [t for t in s.kingdom if t != "castle"] + ["castle"]
    s.items = [Held(item="candle")]  # whatever side, no dense-tree card
    a, b = s.kingdom[0], s.kingdom[1]
    deck(s, KNIGHT, *BENIGN)
    assert Explore(mirror=True) in G.legal_actions(s, 0)
    G.apply(s, 0, Explore(mirror=True))
    assert s.gold == 0 and s.mirror_tiles == [a, b] and len(s.kingdom) == 5
    G.apply(s, 0, PickTile(tile=b))
    assert s.kingdom[-1] == a and len(s.kingdom) == 6 and s.known_bottom["kingdom"] == 1
    assert s.placing == b and s.discard == []  # placed, then the card
    G.apply(s, 0, G.legal_actions(s, 0)[0])
    assert s.pawn == b and s.discard == [KNIGHT]


def test_wand_with_the_last_gold_is_paid_before_the_robbers_come() -> None:
    """Wand: "Costs 1 gold per use ... If you are attacked by robbers, you may use the
    wand before they get away with your gold." """
    card, t = line("villain", 0, villain="robbers")
    assert G.defense(fresh()) <= strength(card, t) < G.defense(fresh()) + R.wand_defense
    s = meet(card, t, gold=1)
    events = G.apply(s, 0, Fight(wand=True))
    assert s.gold == 0 and s.health == 6
    assert not any(e.kind == "stolen" for e in events)


def test_wand_once_per_attack_and_not_with_an_item_that_wins_alone() -> None:
    """Wand: "may only be used once per attack". ("Items may be used together": the
    project does not offer the Wand with an item that wins the fight alone.)"""
    s = villain("troll", 0, gold=3, items=[Held(item="cloak")])
    fights = [a for a in G.legal_actions(s, 0) if isinstance(a, Fight)]
    # the default first (issue 23): the Cloak, as the Wand alone still lets the troll hurt
    assert fights == [Fight(item="cloak"), Fight(), Fight(wand=True)]
    assert "not needed" in refused(s, Fight(wand=True, item="cloak"))
    G.apply(s, 0, Fight(wand=True))
    card, t = line("villain", 0, villain="troll")
    assert s.gold == 2
    assert s.health == 6 - max(0, strength(card, t) - 1 - R.wand_defense)


def test_boots_cross_rose_bushes_without_a_tree_card() -> None:
    """Seven-League Boots: "travel to any revealed tile as if it were attached to your
    current tile. Costs 1 gold per use." """
    s = fresh("boots")
    put(s, "rose_garden", 0, -1)   # its north and east are rose bushes
    put(s, "hollow_oak", 1, -1)    # across the east bushes
    s.pawn = "rose_garden"
    deck(s, KNIGHT)
    assert Go(tile="hollow_oak") not in G.legal_actions(s, 0)
    G.apply(s, 0, Go(tile="hollow_oak", boots=True))
    assert s.pawn == "hollow_oak" and s.discard == [KNIGHT]  # the turn's card only
    assert s.gold == 0 + amount("hollow_oak")


def test_boots_need_a_gold() -> None:
    """Seven-League Boots: "Costs 1 gold per use." """
    s = fresh("boots")
    put(s, "cave", 0, 1)  # across dense trees
    s.gold = 0
    assert not any(getattr(a, "boots", False) for a in G.legal_actions(s, 0))
    assert refused(s, Go(tile="cave", boots=True)) == "You need 1 gold for that."
    s = villain("troll", 0, special="boots", gold=0)
    assert not any(getattr(a, "boots", False) for a in G.legal_actions(s, 0))


# --------------------------------------------------------------------------- regular items


def test_a_fourth_item_from_the_cave_means_a_drop() -> None:
    """Regular items: "You may carry up to three regular items at a time." """
    s = fresh()
    put(s, "cave", 0, -1)
    s.items = [Held(item="candle"), Held(item="cloak"), Held(item="lamp")]
    deck(s, card_of("dagger"))  # a harmless event at high sun, the Dagger's card
    G.apply(s, 0, Go(tile="cave"))
    assert s.stage == "find" and s.find_item == "dagger"
    G.apply(s, 0, Find(take=True))
    assert s.stage == "drop" and len(s.items) == 4
    assert refused(s, Rest(rest=False)) == "Not now. You can carry only 3 things. Drop one."
    G.apply(s, 0, Drop(item="cloak"))
    assert [h.item for h in s.items] == ["candle", "lamp", "dagger"] and s.stage == "rest"


def test_coating_the_shield_makes_room_for_a_fourth_item() -> None:
    """Shield: "(Shield with repellant is one item worth 2 gold.)" """
    s = peddler([card_of("candle")], gold=2,
                items=[Held(item="shield"), Held(item="repellant"), Held(item="dagger")])
    G.apply(s, 0, Shop(item="candle"))
    G.apply(s, 0, Pay(gold=2))
    assert s.stage == "drop" and Coat() in G.legal_actions(s, 0)
    G.apply(s, 0, Coat())
    assert s.items == [Held(item="shield", coated=True), Held(item="dagger"),
                       Held(item="candle")]
    assert s.stage == "rest"


def test_only_one_of_each_item() -> None:
    """Regular items: "You can only have one of any particular item at a time." """
    s = peddler([card_of("dagger"), card_of("candle")], gold=3, items=[Held(item="dagger")])
    offered = {a.item for a in G.legal_actions(s, 0) if isinstance(a, Shop)}
    assert "dagger" not in offered and "candle" in offered
    assert refused(s, Shop(item="dagger")) == "You already have the Dagger: only one of each."
    # The Cave offers nothing already carried (and keeps its once for later).
    s = fresh()
    put(s, "cave", 0, -1)
    s.items = [Held(item="dagger")]
    deck(s, card_of("dagger"))
    G.apply(s, 0, Go(tile="cave"))
    assert s.stage == "rest" and s.find_item is None and "cave" not in s.used_once


def test_a_dropped_item_is_gone_but_the_peddler_may_sell_it_again() -> None:
    """Regular items: "If you drop an item, you may not pick it back up again ... If you
    use it up or drop it, you may get it again from the peddler as usual." """
    s = fresh()
    put(s, "cave", 0, -1)
    put(s, "hollow_oak", 1, 0)
    s.items = [Held(item="cloak"), Held(item="candle"), Held(item="lamp")]
    peddler_card = line("peddler", 0)[0]
    assert C.card(peddler_card).item == "cloak"  # the peddler's own card shows the Cloak
    deck(s, card_of("dagger"), KNIGHT, peddler_card)
    G.apply(s, 0, Go(tile="cave"))
    G.apply(s, 0, Find(take=True))
    G.apply(s, 0, Drop(item="cloak"))
    assert not has(s, "cloak")
    assert not any(getattr(a, "item", None) == "cloak" for a in G.legal_actions(s, 0))
    G.apply(s, 0, Rest(rest=False))
    G.apply(s, 0, Go(tile="lake"))       # the knight joins
    G.apply(s, 0, Rest(rest=False))
    s.gold = 1
    G.apply(s, 0, Go(tile="hollow_oak"))  # the peddler
    assert s.stage == "peddler" and Shop(item="cloak") in G.legal_actions(s, 0)


def test_the_empty_goblet_and_bucket_are_worth_nothing_in_a_trade() -> None:
    """Elixir / Bucket: "(The empty goblet does not have any trade value.)" / "(The empty
    bucket does not have any trade value.)" """
    s = peddler([card_of("elixir")], gold=0,
                items=[Held(item="bucket", empty=True), Held(item="elixir", empty=True)])
    assert s.stage == "rest"  # passed by: nothing can be paid for
    s = peddler([], gold=1, items=[Held(item="bucket", empty=True)])
    G.apply(s, 0, Shop(item="cloak"))
    assert G.legal_actions(s, 0)[:2] == [Pay(gold=1), Pay(items=("bucket",), gold=1)]
    assert refused(s, Pay(items=("bucket",), gold=0)) == \
        "That is worth 0 gold; the Cloak of Invisibility costs 1."


def test_the_shield_with_repellant_is_one_item_worth_two() -> None:
    """Shield: "(Shield with repellant is one item worth 2 gold.)" """
    s = peddler([card_of("candle")], gold=0, items=[Held(item="shield", coated=True)])
    G.apply(s, 0, Shop(item="candle"))
    assert G.legal_actions(s, 0)[0] == Pay(items=("shield",), gold=0)
    s = peddler([card_of("candle")], gold=0, items=[Held(item="shield")])
    assert Shop(item="candle") not in G.legal_actions(s, 0)  # a plain Shield is worth 1


def test_the_messenger_bird_takes_no_room_among_the_items() -> None:
    """Messenger Bird: "Must be used immediately. One use." """
    s = peddler([card_of("bird"), BENIGN[1]], gold=2,
                items=[Held(item="dagger"), Held(item="candle"), Held(item="lamp")])
    G.apply(s, 0, Shop(item="bird"))
    G.apply(s, 0, Pay(gold=2))
    assert s.stage == "bird" and len(s.items) == 3
    assert [type(a) for a in G.legal_actions(s, 0)] == [Send] * len(s.discard)
    G.apply(s, 0, Send(card=BENIGN[1]))
    G.apply(s, 0, SendDone())
    assert s.stage == "rest" and len(s.items) == 3 and BENIGN[1] in s.deck


def test_the_messenger_bird_found_in_the_cave_flies_at_once() -> None:
    """Messenger Bird: "Shuffle any one or two cards from the discard pile back into the
    deck. Must be used immediately." """
    bird = card_of("bird")
    t = next(i for i, ln in enumerate(C.card(bird).lines) if ln.kind == "event")
    s = fresh()
    s.time = t
    put(s, "cave", 0, -1)
    deck(s, bird)
    G.apply(s, 0, Go(tile="cave"))
    assert s.find_item == "bird"
    G.apply(s, 0, Find(take=True))
    assert s.stage == "bird" and not has(s, "bird")
    assert G.legal_actions(s, 0) == [Send(card=bird)]
    G.apply(s, 0, Send(card=bird))  # the only card: the bird flies
    assert s.stage == "rest" and bird in s.deck and bird not in s.discard


def test_the_lamp_wish_moves_without_a_card_and_the_tile_still_counts() -> None:
    """Magic Lamp: "Move to any revealed space without resolving a card" (step 4: "Follow
    the directions on the tile you are on at the end of your turn")."""
    s = fresh()
    put(s, "hollow_oak", 1, 0)
    s.items = [Held(item="lamp")]
    before = (list(s.deck), list(s.discard))
    G.apply(s, 0, Wish(tile="hollow_oak"))
    assert s.pawn == "hollow_oak" and (s.deck, s.discard) == before
    assert s.gold == 1 + amount("hollow_oak") and not has(s, "lamp") and s.stage == "rest"
    G.apply(s, 0, Rest(rest=False))
    assert not any(isinstance(a, Wish) for a in G.legal_actions(s, 0))  # one wish


def test_the_lamp_reuses_the_plain_shield() -> None:
    """Magic Lamp: "... or reuse one item you own." Shield: "Defends fully against one
    dragon." """
    s = villain("dragon", 0, items=[Held(item="shield"), Held(item="lamp")])
    assert Fight(item="shield") in G.legal_actions(s, 0)
    G.apply(s, 0, Fight(item="shield", lamp=True))
    assert s.health == 6 and has(s, "shield") and not has(s, "lamp")


def test_the_dagger_counts_in_a_fight() -> None:
    """Dagger: "Adds 1 Defense. Reusable." """
    card, t = line("villain", 0, villain="troll")
    s = meet(card, t, items=[Held(item="dagger")])
    G.apply(s, 0, Fight())
    assert s.health == 6 - max(0, strength(card, t) - 1 - R.dagger_defense)
    assert has(s, "dagger")


def fights(s: PocketState) -> list[Fight]:
    return [a for a in G.legal_actions(s, 0) if isinstance(a, Fight)]


def test_items_in_a_fight_are_the_players_choice() -> None:
    """Facing Villains: "If you have one or more items that can help you against that
    villain, you may choose whether or not you want to use them. Items may be used
    together." (Issue 23: the engine always counted the Dagger and the Flame Repellant.)
    The Dagger may be kept out where that changes the fight; it is not used up, so it is
    still carried; keeping it out where it changes nothing is no choice."""
    card, t = line("villain", 0, villain="troll")
    s = meet(card, t, items=[Held(item="dagger")])
    assert Fight(spare=("dagger",)) in fights(s)
    G.apply(s, 0, Fight(spare=("dagger",)))
    assert s.health == 6 - (strength(card, t) - 1) and has(s, "dagger")

    # against the troll the Repellant does nothing: there is nothing to keep out
    s = villain("troll", 0, items=[Held(item="dagger"), Held(item="repellant")])
    assert "doesn't help against the troll" in refused(s, Fight(spare=("repellant",)))
    # with the Cloak, the Cloak wins alone: nothing else to keep out
    s = villain("troll", 0, items=[Held(item="dagger"), Held(item="cloak")])
    assert "wins the fight alone" in refused(s, Fight(item="cloak", spare=("dagger",)))
    # against weak robbers the Dagger changes no harm, but whether they take the gold
    card, t = line("villain", 0, villain="robbers")
    s = meet(card, t, gold=3, items=[Held(item="dagger")], princess=True)
    assert G.fight_result(s, Fight()) == (0, False)
    assert G.fight_result(s, Fight(spare=("dagger",))) == (0, True)
    assert Fight(spare=("dagger",)) in fights(s)
    # against a dragon both free items may be kept out together (named in their order)
    s = villain("dragon", 0, gold=3, items=[Held(item="dagger"), Held(item="repellant")])
    offered = fights(s)
    assert Fight(spare=("dagger", "repellant")) in offered
    assert "this order" in refused(s, Fight(spare=("repellant", "dagger")))
    assert "once" in refused(s, Fight(spare=("dagger", "dagger")))
    G.apply(s, 0, Fight(spare=("dagger", "repellant")))
    assert s.health == 6 - (strength("card_10", 0) - 1)


def test_keeping_an_item_out_that_changes_nothing_is_refused() -> None:
    """Facing Villains: "you may choose whether or not you want to use them": a choice
    only where it changes something. With the Dagger, the princess and the Flame
    Repellant the dragon (strength 4) does no harm; without the Dagger it still does
    none, so keeping the Dagger out alone is no choice, and the refusal changes nothing."""
    s = villain("dragon", 0, items=[Held(item="dagger"), Held(item="repellant")],
                princess=True)
    assert G.fight_result(s, Fight()) == (0, False)
    assert G.fight_result(s, Fight(spare=("dagger",))) == (0, False)
    assert "changes nothing" in refused(s, Fight(spare=("dagger",)))
    assert Fight(spare=("repellant",)) in fights(s)  # that one lets the dragon hurt


def test_the_fight_offered_first_is_the_sensible_default() -> None:
    """Facing Villains: "you may choose whether or not you want to use them"; Wand:
    "Costs 1 gold per use"; Cloak: "One use". The first fight offered: the least harm,
    nothing stolen, then the least spent, every free item used."""
    # the Dagger alone stops weak robbers: no gold spent, the Cloak kept
    card, t = line("villain", 0, villain="robbers")
    s = meet(card, t, gold=3, items=[Held(item="dagger"), Held(item="cloak")], princess=True)
    assert fights(s)[0] == Fight()
    # the Wand's gold stops the troll: the Cloak is kept for later
    s = villain("troll", 0, gold=3, items=[Held(item="dagger"), Held(item="cloak")])
    assert G.fight_result(s, Fight(wand=True)) == (0, False)
    assert fights(s)[0] == Fight(wand=True)
    # without the Dagger the Wand is not enough: the Cloak is the default
    s = villain("troll", 0, gold=3, items=[Held(item="cloak")])
    assert fights(s)[0] == Fight(item="cloak")
    # the coated Shield is not used up: it is the default against a dragon
    s = villain("dragon", 1, items=[Held(item="shield", coated=True)])
    assert fights(s)[0] == Fight(item="shield")
    # the Lamp's wish is never the default, even when it alone stops the harm
    s = villain("witch", 0, gold=0, items=[Held(item="bucket", empty=True),
                                          Held(item="lamp")])
    assert fights(s)[0] == Fight() and Fight(item="bucket", lamp=True) in fights(s)


def test_buying_the_magic_pouch_keeps_gold_at_six() -> None:
    """Magic Pouch: "Keeps your gold level at 6 as long as you have it ... Costs 3 gold." """
    s = peddler([card_of("pouch")], gold=3)
    G.apply(s, 0, Shop(item="pouch"))
    G.apply(s, 0, Pay(gold=3))
    assert has(s, "pouch") and s.gold == 6 and G.view(s, None).gold == 6


# --------------------------------------------------------------------------- villains


def test_damage_is_strength_minus_defense_when_positive() -> None:
    """"Villain's Strength - Defense Level = Damage"; "If the villain's strength level is
    greater than yours, subtract the difference in health points." Every villain line of
    the data, at Defense 1 and 3."""
    seen = set()
    for t in range(len(C.times)):
        for k in C.cards:
            ln = k.lines[t]
            if ln.kind != "villain":
                continue
            for boost in (False, True):
                s = meet(k.id, t, health=8, princess=boost,
                         items=[Held(item="dagger")] if boost else [])
                defense = G.defense(s, ln.villain)
                events = G.apply(s, 0, Fight())
                damage = max(0, ln.strength - defense)
                assert s.health == 8 - damage, (k.id, t, boost)
                fought = next(e for e in events if e.kind == "fought")
                assert fought.data["damage"] == damage  # type: ignore[attr-defined]
                seen.add(damage > 0)
    assert seen == {True, False}


def test_robbers_facing_a_higher_defense_take_neither_gold_nor_pouch() -> None:
    """"Robbers will steal gold (and the magic pouch, if you have it) unless your defense
    level is higher than the robbers'." """
    card, t = line("villain", 0, villain="robbers")
    s = meet(card, t, items=[Held(item="pouch"), Held(item="dagger")], princess=True)
    assert G.defense(s) > strength(card, t)
    events = G.apply(s, 0, Fight())
    assert has(s, "pouch") and G.gold(s) == 6 and s.health == 6
    assert not any(e.kind == "stolen" for e in events)


def test_the_knight_must_fight_the_next_villain_even_with_a_cloak() -> None:
    """"If you have drawn the knight event, you must use him to fight the next villain
    drawn." """
    s = villain("troll", 0, items=[Held(item="cloak")])  # no knight: a choice
    assert Fight(item="cloak") in G.legal_actions(s, 0)
    troll, _ = line("villain", 0, villain="troll")
    s = meet(KNIGHT, 0, troll, items=[Held(item="cloak")])
    assert s.knight
    G.apply(s, 0, Rest(rest=False))
    events = G.apply(s, 0, Go(tile="hollow_oak"))
    assert any(e.kind == "knight" for e in events) and s.stage == "rest"
    assert not s.knight and has(s, "cloak") and s.health == 6


def test_the_watchtower_knight_fights_the_next_villain() -> None:
    """"If you have drawn the knight event, you must use him to fight the next villain
    drawn" (the Watchtower sends one, the project's tile)."""
    troll, _ = line("villain", 0, villain="troll")
    s = fresh()
    put(s, "watchtower", 0, -1)  # the Lake's north and the Watchtower's south are open
    deck(s, BENIGN[0], troll)
    G.apply(s, 0, Go(tile="watchtower"))
    assert s.knight
    G.apply(s, 0, Rest(rest=False))
    G.apply(s, 0, Go(tile="lake"))
    assert not s.knight and s.health == 6 and s.stage == "rest"


# --------------------------------------------------------------------------- running away


def test_running_only_to_an_adjacent_revealed_tile() -> None:
    """"If you run away, move to an adjacent, revealed tile." "You may not pass through
    the rose bushes in the rose garden." """
    s = villain("troll", 0)
    put(s, "well", 3, 3)  # on the map, not next to the Lake
    runs = [a for a in G.legal_actions(s, 0) if isinstance(a, Run)]
    assert runs == [Run(tile="hollow_oak")]
    assert refused(s, Run(tile="well")).startswith("You can only run to a place right next")
    s = fresh()
    put(s, "rose_garden", 0, -1)
    put(s, "hollow_oak", 1, -1)  # east of the garden, across its bushes
    put(s, "fountain", 1, 0)     # east of the Lake, south of the Oak
    s.items.append(Held(item="candle"))  # whatever borders the data gives, a free walk
    troll = line("villain", 0, villain="troll")[0]
    deck(s, troll)
    G.apply(s, 0, Go(tile="hollow_oak"))  # round by the Fountain
    assert s.stage == "villain" and s.discard == [troll]
    runs = [a.tile for a in G.legal_actions(s, 0) if isinstance(a, Run)]
    assert runs == ["fountain"]
    assert refused(s, Run(tile="rose_garden")).startswith("You can only run")


def test_running_away_draws_no_card_where_you_land() -> None:
    """"Do not resolve a new card for the area you run into." """
    s = villain("troll", 0)
    s.deck = [BENIGN[0], *[k for k in s.deck if k != BENIGN[0]]]
    top_before = list(s.deck)
    G.apply(s, 0, Run(tile="hollow_oak"))
    assert s.deck == top_before and len(s.discard) == 1 and s.stage == "rest"


# --------------------------------------------------------------------------- good deeds


def test_good_deed_gold_stops_at_six() -> None:
    """Good deed: "If you decide to do it, discard the next card and adjust your gold
    level." Setup: "a limit of ... 6 Gold points." """
    card, t = max((line("good_deed", tt) for tt in range(len(C.times))),
                  key=lambda p: C.card(p[0]).lines[p[1]].gold)  # type: ignore[union-attr]
    gold = C.card(card).lines[t].gold  # type: ignore[union-attr]
    assert gold >= 2
    s = meet(card, t, BENIGN[0], gold=R.max_gold - gold + 1)
    G.apply(s, 0, GoodDeed(help=True))
    assert s.gold == R.max_gold and s.discard == [card, BENIGN[0]]


def test_declining_a_good_deed_keeps_the_next_card_in_the_deck() -> None:
    """Good deed: "Otherwise, leave your gold at its current level." """
    card, t = line("good_deed", 0)
    s = meet(card, t, BENIGN[0])
    G.apply(s, 0, GoodDeed(help=False))
    assert s.deck[0] == BENIGN[0] and s.discard == [card] and s.gold == 1


# --------------------------------------------------------------------------- the peddler


def test_the_peddler_sells_for_gold_at_the_printed_price() -> None:
    """Peddler: "available for sale or trade at the price shown under the item. You may
    purchase one item with gold" """
    s = peddler([card_of("lamp")], gold=4)
    G.apply(s, 0, Shop(item="lamp"))
    assert G.legal_actions(s, 0)[0] == Pay(gold=C.item("lamp").price)
    G.apply(s, 0, Pay(gold=2))
    assert s.gold == 2 and has(s, "lamp") and s.stage == "rest"
    assert not any(isinstance(a, Shop | Leave) for a in G.legal_actions(s, 0))


def test_the_peddler_ignores_the_set_aside_cards() -> None:
    """Peddler: "(including the peddler card, but not the three cards that were set
    aside earlier)" """
    card = line("peddler", 0)[0]
    s = fresh()
    put(s, "hollow_oak", 1, 0)
    s.pawn = "hollow_oak"
    s.gold = 6
    deck(s, card)
    s.discard = []
    aside = {C.card(k).item for k in s.set_aside}
    G.apply(s, 0, Go(tile="lake"))
    offered = [a.item for a in G.legal_actions(s, 0) if isinstance(a, Shop)]
    assert offered == [C.card(card).item] and not aside & set(offered)


# --------------------------------------------------------------------------- time


def test_after_time_passes_the_card_is_read_at_the_lower_sun() -> None:
    """Time Passes: "Reshuffle the dev cards, including the three you set aside earlier.
    Set the top three cards aside ... Note the new time, and resolve cards based on that
    time." """
    s = fresh()
    put(s, "hollow_oak", 1, 0)
    old_aside = list(s.set_aside)
    s.discard, s.deck = list(s.deck), []
    events = G.apply(s, 0, Go(tile="hollow_oak"))
    assert s.time == 1 and [e.kind for e in events].index("time_passes") < \
        [e.kind for e in events].index("card")
    assert s.discard == [s.current_card] and len(s.set_aside) == 3 and len(s.deck) == 6
    assert s.current_card not in s.set_aside
    assert set(old_aside) <= set(s.deck + s.set_aside + s.discard)
    view = G.view(s, None)
    assert view.line is not None and view.time_name == C.times[1].name
    assert view.line.text == C.card(s.current_card).lines[1].text  # type: ignore[arg-type]


def test_resting_with_no_card_left_at_dusk_ends_the_game() -> None:
    """Ending: "Time could run out (if you've played through the cards for the third
    time ...)"; Rest: "Discard the top dev card without resolving it." """
    knight = line("event", 2, effect="knight")[0]
    s = fresh()
    put(s, "hollow_oak", 1, 0)
    s.time = 2
    others = [k.id for k in C.cards if k.id != knight]
    s.deck, s.set_aside, s.discard = [knight], others[:3], others[3:]
    G.apply(s, 0, Go(tile="hollow_oak"))
    assert s.stage == "rest" and s.deck == []
    G.apply(s, 0, Rest(rest=True))
    outcome = G.outcome(s)
    assert outcome is not None and outcome.winners == [] and "sun has set" in outcome.reason


# --------------------------------------------------------------------------- dense trees


def test_each_dense_tree_border_costs_one_card() -> None:
    """Dense Trees: "Discard one dev card for each border you pass through in moving to
    another area." """
    s = fresh()
    put(s, "fountain", 0, 1)  # Lake south: dense trees
    put(s, "cave", 0, 2)      # the Cave's north: dense trees
    deck(s, *BENIGN, KNIGHT)
    events = G.apply(s, 0, Go(tile="cave"))
    assert [e.kind for e in events].count("trees") == 2
    assert s.discard == [*BENIGN, KNIGHT] and s.pawn == "cave"
    s = fresh()
    put(s, "fountain", 0, 1)
    put(s, "cave", 0, 2)
    s.items = [Held(item="candle")]
    deck(s, *BENIGN, KNIGHT)
    G.apply(s, 0, Go(tile="cave"))
    assert s.discard == [BENIGN[0]]


# --------------------------------------------------------------------------- resting


def test_resting_at_the_well_refills_the_bucket() -> None:
    """Bucket of Water: "The empty bucket may be refilled by resting at the lake or the
    well." Rest: "Resting restores 2 health points" """
    s = fresh()
    put(s, "well", 0, -1)
    s.items = [Held(item="bucket", empty=True)]
    s.health = 4
    deck(s, KNIGHT, *BENIGN)
    G.apply(s, 0, Go(tile="well"))
    G.apply(s, 0, Rest(rest=True))
    assert not held(s, "bucket").empty and s.health == 4 + R.rest_health
    assert s.discard == [KNIGHT, BENIGN[0]]


def test_resting_refills_only_what_the_tile_refills_and_stops_at_eight() -> None:
    """Elixir: "the empty goblet may be refilled by resting at the Fountain of Youth";
    setup: "You have a limit of 8 Health points." """
    s = fresh()
    put(s, "hollow_oak", 1, 0)
    s.pawn = "hollow_oak"
    s.items = [Held(item="elixir", empty=True), Held(item="bucket", empty=True)]
    s.health = 7
    deck(s, KNIGHT, *BENIGN)
    G.apply(s, 0, Go(tile="lake"))
    G.apply(s, 0, Rest(rest=True))
    assert held(s, "elixir").empty and not held(s, "bucket").empty
    assert s.health == R.max_health == 8


# --------------------------------------------------------------------------- goals


def test_fighting_the_second_card_at_the_cottage_still_wakes_the_princess() -> None:
    """Goals: "If you are still alive and at the cottage after resolving the second card,
    the princess wakes up and will follow you." """
    troll, t = line("villain", 0, villain="troll")
    s = fresh()
    put(s, "cottage", 1, 0)
    s.rose = True
    deck(s, BENIGN[0], troll)
    G.apply(s, 0, Go(tile="cottage"))
    assert s.phase == "second" and s.stage == "villain"
    G.apply(s, 0, Fight())
    assert s.princess and s.health == 6 - max(0, strength(troll, t) - 1)
    assert G.defense(s) == R.start_defense + R.princess_defense


def test_the_rose_is_not_an_item() -> None:
    """Goals: "Neither of these count as items toward your maximum." """
    s = fresh()
    put(s, "rose_garden", 0, -1)
    s.items = [Held(item="dagger"), Held(item="candle"), Held(item="lamp")]
    deck(s, KNIGHT)
    G.apply(s, 0, Go(tile="rose_garden"))
    assert s.rose and s.stage == "rest" and len(s.items) == 3


def test_dying_on_the_second_card_at_the_castle_loses() -> None:
    """Goals: "If you are still alive and at the castle after resolving the second card,
    you save the kingdom"; ending: "Your Health could run out due to villains" """
    troll, t = line("villain", 0, villain="troll")
    s = fresh()
    put(s, "castle", 1, 0)
    s.princess = True
    s.health = 1
    deck(s, BENIGN[0], troll)
    G.apply(s, 0, Go(tile="castle"))
    assert s.phase == "second" and s.stage == "villain"
    G.apply(s, 0, Fight())
    assert strength(troll, t) - 1 >= 1 and s.health == 0
    outcome = G.outcome(s)
    assert s.result == "lost" and outcome is not None and outcome.winners == []


# --------------------------------------------------------------------------- endings


def test_health_runs_out_in_a_fight() -> None:
    """Ending: "Your Health could run out due to villains or events." """
    card, t = line("villain", 0, villain="troll")
    assert strength(card, t) - 1 >= 1
    s = villain("troll", 0, health=1)
    G.apply(s, 0, Fight())
    outcome = G.outcome(s)
    assert s.health == 0 and outcome is not None and outcome.winners == []
    assert G.legal_actions(s, 0) == []


def test_health_runs_out_from_an_event() -> None:
    """Ending: "Your Health could run out due to villains or events." """
    card, t = next((k.id, t) for t in range(len(C.times)) for k in C.cards
                   if k.lines[t].kind == "event"
                   and k.lines[t].effect.kind == "health"  # type: ignore[union-attr]
                   and k.lines[t].effect.amount < 0)  # type: ignore[union-attr]
    s = meet(card, t, health=1)
    outcome = G.outcome(s)
    assert s.health == 0 and outcome is not None and "hurt" in outcome.reason


# --------------------------------------------------------------------------- refusals


def _in_villain(**kw: Any) -> PocketState:
    return villain("troll", 0, **kw)


def _explored_kingdom_path() -> PocketState:
    s = fresh()
    put(s, "forest_path", 0, -1)
    put(s, "kingdom_path", 0, -2)
    s.pawn = "kingdom_path"
    return s


def _rose_garden() -> PocketState:
    s = fresh("boots")
    put(s, "rose_garden", 0, -1)
    put(s, "hollow_oak", 1, -1)
    s.pawn = "rose_garden"
    return s


def _with(s: PocketState, **fields: Any) -> PocketState:
    for k, v in fields.items():
        setattr(s, k, v)
    return s


def _oak(special: str = "wand") -> PocketState:
    s = fresh(special)
    put(s, "hollow_oak", 1, 0)
    return s


def _pay_stage() -> PocketState:
    s = peddler([card_of("candle")], gold=2, items=[Held(item="cloak")])
    G.apply(s, 0, Shop(item="candle"))
    return s


def _pay_with_two_items() -> PocketState:
    s = peddler([card_of("dagger")], gold=0,
                items=[Held(item="elixir", empty=True), Held(item="shield", coated=True)])
    G.apply(s, 0, Shop(item="dagger"))
    return s


REFUSALS: list[tuple[str, Callable[[], PocketState], Any, str]] = [
    ("fight in the move stage", fresh, Fight(), "Not now. Where to?"),
    ("the mirror without it", lambda: _with(fresh("wand"), gold=0), Explore(mirror=True),
     "You don't have the Magic Mirror."),
    ("the mirror with one tile", lambda: _with(fresh("mirror"), forest=["well"]),
     Explore(mirror=True), "The Mirror needs two tiles in the stack."),
    ("the kingdom before the princess", _explored_kingdom_path, Explore(),
     "The Kingdom waits: wake the princess first."),
    ("the forest once the kingdom is open",
     lambda: _with(_explored_kingdom_path(), pawn="lake", princess=True), Explore(),
     "The forest is explored: go on to the Kingdom through the Kingdom Path."),
    ("walking across rose bushes", _rose_garden, Go(tile="hollow_oak"),
     "You can't walk there from here: rose bushes are in the way."),
    ("boots for a free walk", lambda: _oak("boots"), Go(tile="hollow_oak", boots=True),
     "You can walk there without losing time: the Boots are not needed."),
    ("boots without them", lambda: _oak("wand"), Go(tile="hollow_oak", boots=True),
     "You don't have the Seven-League Boots."),
    ("a wish without the lamp", _oak, Wish(tile="hollow_oak"),
     "You don't have the Magic Lamp."),
    ("staying when a walk is possible", _oak, Stay(),
     "You can still go somewhere, so you can't stay."),
    ("drinking at full health", lambda: _with(fresh(), items=[Held(item="elixir")], health=8),
     Drink(), "Your health is already full."),
    ("drinking an empty goblet",
     lambda: _with(fresh(), items=[Held(item="elixir", empty=True)], health=3), Drink(),
     "The goblet is empty: rest at the Fountain of Youth to fill it."),
    ("drinking without the elixir", lambda: _with(fresh(), health=3), Drink(),
     "You don't have the Elixir of Life."),
    ("coating without the repellant", lambda: _with(fresh(), items=[Held(item="shield")]),
     Coat(), "You need both the Shield and the Flame Repellant for that."),
    ("the wand without it", lambda: _in_villain(special="boots"), Fight(wand=True),
     "You don't have the Wand."),
    ("the wand without gold", lambda: _in_villain(gold=0), Fight(wand=True),
     "You need 1 gold for that."),
    ("the bucket against a troll", lambda: _in_villain(items=[Held(item="bucket")]),
     Fight(item="bucket"), "The Bucket of Water doesn't help against the troll."),
    ("the cloak not carried", _in_villain, Fight(item="cloak"),
     "You don't have the Cloak of Invisibility."),
    ("the lamp not carried", lambda: _in_villain(items=[Held(item="cloak")]),
     Fight(item="cloak", lamp=True), "You don't have the Magic Lamp."),
    ("resting during a fight", _in_villain, Rest(rest=True), "Not now."),
    ("a peddler's item you cannot pay",
     lambda: peddler([card_of("candle")], gold=1), Shop(item="candle"),
     "You can't pay for the Candle (2 gold)."),
    ("an item not on the pile", lambda: peddler([], gold=3), Shop(item="pouch"),
     "The peddler doesn't have that item for you."),
    ("paying too little", _pay_stage, Pay(gold=1), "That is worth 1 gold; the Candle costs 2."),
    ("paying with gold not owned", _pay_stage, Pay(gold=3), "You have only 2 gold."),
    ("trading an item not carried", _pay_stage, Pay(items=("dagger",), gold=1),
     "You don't have the Dagger."),
    ("trading and paying too much", _pay_stage, Pay(items=("cloak",), gold=2),
     "With those things, pay only the gold still missing: 1."),
    ("trading in another order", _pay_with_two_items, Pay(items=("shield", "elixir")),
     "Name the things in the order you carry them: elixir, shield."),
    ("paying more gold than the price",
     lambda: _with(_pay_stage(), gold=3), Pay(gold=3),
     "The Candle costs 2 gold: pay just that."),
    ("boots for a free run", lambda: _in_villain(special="boots"),
     Run(tile="hollow_oak", boots=True), "You can run there on foot: the Boots are not needed."),
]


@pytest.mark.parametrize("name,build,action,words", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_an_illegal_action_is_refused_with_its_reason_and_changes_nothing(
        name: str, build: Callable[[], PocketState], action: Any, words: str) -> None:
    """Every rule above, from the other side: what the rules forbid is refused (with
    engines.core.IllegalAction, a ValueError), says why, and leaves the state as it
    was."""
    s = build()
    message = refused(s, action)
    assert message.startswith(words), (name, message)
