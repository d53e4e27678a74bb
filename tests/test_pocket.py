"""Fairy Tale in My Pocket: rule tests, the shared conformance suite, and play statistics.

Scenarios are built from a fresh game by putting tiles on the map and ordering the deck;
the cards used are looked up in ``data/pocket.json`` by what they say (a robbers line at
high sun...), and expected numbers are computed from the data, so retuning strengths or
amounts keeps these tests meaningful.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engines.agents.pocket import careful_action
from engines.catalog import ConformanceCase
from engines.core import GameOver, IllegalAction, NotYourTurn, Rng
from engines.pocket.content import ContentError, load_content
from engines.pocket.game import SPEC, Pocket, free_sides, label, walk_costs
from engines.pocket.state import (
    Back,
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
    Place,
    Placed,
    PocketOptions,
    PocketState,
    Rest,
    Run,
    Send,
    SendDone,
    Shop,
    Stay,
    Wish,
)
from tests.conformance import Case, check_illegal_leaves_state, play_random_game

G = Pocket()
C = load_content()
R = C.rules


# --------------------------------------------------------------------------- helpers


def fresh(special: str = "wand", players: int = 1, seed: int = 0) -> PocketState:
    return G.setup(players, PocketOptions(special=special), seed)  # type: ignore[arg-type]


def put(s: PocketState, tile: str, x: int, y: int, turns: int = 0) -> None:
    """Put ``tile`` on the map (taking it out of its stack)."""
    for name in ("forest", "kingdom"):
        stack = getattr(s, name)
        if tile in stack:
            stack.remove(tile)
    s.placed.append(Placed(tile=tile, x=x, y=y, turns=turns))


def deck(s: PocketState, *front: str) -> None:
    """Order the deck: ``front`` on top (taken from the discard pile if there), three of
    the others set aside, the rest below."""
    assert len(set(front)) == len(front), "a card is only once in the deck"
    s.discard = [k for k in s.discard if k not in front]
    rest = [k.id for k in C.cards if k.id not in front and k.id not in s.discard]
    s.set_aside = rest[:R.set_aside]
    s.deck = [*front, *rest[R.set_aside:]]


def line(kind: str, time_: int | None = None, **match: Any) -> tuple[str, int]:
    """The first (card, time) whose line is of ``kind`` and matches (``effect`` names
    an event's effect kind)."""
    for t in range(len(C.times)) if time_ is None else [time_]:
        for k in C.cards:
            ln = k.lines[t]
            if ln.kind != kind:
                continue
            ok = all((ln.effect.kind == v) if f == "effect" else getattr(ln, f, None) == v
                     for f, v in match.items())
            if ok:
                return k.id, t
    raise LookupError(f"no {kind} line {match} in the data")


def card_of(item: str) -> str:
    return next(k.id for k in C.cards if k.item == item)


def strength(card: str, t: int) -> int:
    return C.card(card).lines[t].strength  # type: ignore[union-attr]


BENIGN = [line("event", 0, effect="gold")[0], line("event", 0, effect="health")[0]]
"""Two cards whose high-sun line is a harmless event (+gold, +health)."""
KNIGHT = line("event", 0, effect="knight")[0]
"""A third harmless card at high sun (a knight joins)."""


def meet(card: str, t: int, *then: str, special: str = "wand", items: list[Held] | None = None,
         gold: int | None = None, **fields: Any) -> PocketState:
    """The peasant walks from the Hollow Oak back to the Lake and draws ``card`` read at
    time ``t`` (``then``: the next cards)."""
    s = fresh(special)
    s.time = t
    put(s, "hollow_oak", 1, 0)
    s.pawn = "hollow_oak"
    s.items = items or []
    if gold is not None:
        s.gold = gold
    for k, v in fields.items():
        setattr(s, k, v)
    deck(s, card, *then)
    G.apply(s, 0, Go(tile="lake"))
    return s


def villain(name: str, t: int | None = None, **kw: Any) -> PocketState:
    card, tt = line("villain", t, villain=name)
    s = meet(card, tt, **kw)
    assert s.stage == "villain"
    return s


def texts(events: list[Any]) -> list[str]:
    return [e.text(lambda seat: "Ann") for e in events]


def has(s: PocketState, item: str) -> bool:
    return any(h.item == item for h in s.items)


def held(s: PocketState, item: str) -> Held:
    return next(h for h in s.items if h.item == item)


def top(s: PocketState, stack: str, tile: str) -> None:
    """Put ``tile`` on top of a stack."""
    tiles = getattr(s, stack)
    tiles.remove(tile)
    tiles.insert(0, tile)


# --------------------------------------------------------------------------- setup


def test_setup_follows_the_rulebook() -> None:
    s = fresh()
    assert s.placed == [Placed(tile="lake", x=0, y=0)] and s.pawn == "lake"
    assert s.kingdom[0] == "kingdom_path" and len(s.kingdom) == 8 and len(s.forest) == 7
    assert "lake" not in s.forest and "kingdom_path" not in s.kingdom[1:]
    assert len(s.set_aside) == 3 and len(s.deck) == 7 and s.discard == []
    assert (s.health, s.gold, s.time, G.defense(s)) == (6, 1, 0, 1)
    assert (R.max_health, R.max_gold) == (8, 6)
    assert {fresh("random", seed=n).special for n in range(40)} == {"mirror", "wand", "boots"}
    assert G.legal_actions(s, 0) == [Explore()]
    assert G.legal_actions(fresh("mirror"), 0) == [Explore(), Explore(mirror=True)]


@pytest.mark.parametrize("players", [0, 5])
def test_one_to_four_players(players: int) -> None:
    with pytest.raises(IllegalAction, match="1 to 4"):
        G.setup(players, PocketOptions(), 1)


# --------------------------------------------------------------------------- exploring


def test_explore_attaches_the_top_forest_tile_and_draws_a_card() -> None:
    s = fresh()
    top(s, "forest", "fountain")
    deck(s, BENIGN[0])
    G.apply(s, 0, Explore())
    assert s.stage == "place" and s.placing == "fountain"
    assert G.legal_actions(s, 0) == [Place(side=x) for x in "nesw"]  # type: ignore[misc]
    events = G.apply(s, 0, Place(side="n"))
    assert Placed(tile="fountain", x=0, y=-1) in s.placed and s.pawn == "fountain"
    assert s.discard == [BENIGN[0]]  # open border: no card for trees, then the turn's card
    assert any("Fountain of Youth" in t for t in texts(events))
    assert s.stage == "rest"


def test_dense_trees_cost_a_card_and_the_candle_saves_it() -> None:
    for candle in (False, True):
        s = fresh()
        s.items = [Held(item="candle")] if candle else []
        top(s, "forest", "well")  # the Well's west edge is dense trees
        deck(s, *BENIGN)
        G.apply(s, 0, Explore())
        events = G.apply(s, 0, Place(side="e"))
        assert len(s.discard) == (1 if candle else 2)
        assert any(e.kind == "trees" for e in events) is not candle


def test_returning_walks_through_the_map_and_pays_each_tree_border() -> None:
    s = fresh()
    put(s, "hollow_oak", 1, 0)   # lake e open | oak w open
    put(s, "well", 2, 0)         # oak e open | well w trees
    put(s, "cave", 0, 1)         # lake s trees
    assert walk_costs(s, "lake") == {"lake": 0, "hollow_oak": 0, "well": 1, "cave": 1}
    s.items = [Held(item="candle")]
    assert set(walk_costs(s, "lake").values()) == {0}
    s.items = []
    deck(s, *BENIGN)
    G.apply(s, 0, Go(tile="well"))
    assert s.pawn == "well" and len(s.discard) == 2


def test_rose_bushes_cannot_be_crossed() -> None:
    s = fresh(special="boots")
    put(s, "rose_garden", 0, -1)   # roses north and east, open south (toward the Lake)
    put(s, "hollow_oak", 1, -1)    # east of the garden: across the rose bushes
    s.pawn = "rose_garden"
    assert free_sides(s, "rose_garden") == ["w"]  # not across its own bushes
    legal = G.legal_actions(s, 0)
    assert Go(tile="lake") in legal and Go(tile="hollow_oak") not in legal
    assert Go(tile="hollow_oak", boots=True) in legal  # the Boots cross no border
    assert "hollow_oak" not in walk_costs(s, "rose_garden")
    # Running away: only to the Lake.
    card, t = line("villain", 0, villain="troll")
    s.time = t
    deck(s, card)
    s.pawn = "lake"
    s.gold = 0  # no Boots now
    G.apply(s, 0, Go(tile="rose_garden"))
    assert s.stage == "villain"
    assert [a for a in G.legal_actions(s, 0) if isinstance(a, Run)] == [Run(tile="lake")]


def test_a_tile_is_turned_so_its_rose_bushes_do_not_face_you() -> None:
    for side, turns in (("w", 2), ("s", 1), ("n", 0)):
        s = fresh()
        top(s, "forest", "rose_garden")
        deck(s, *BENIGN)
        G.apply(s, 0, Explore())
        G.apply(s, 0, Place(side=side))  # type: ignore[arg-type]
        placed = next(p for p in s.placed if p.tile == "rose_garden")
        assert placed.turns == turns
        view = G.view(s, None)
        edges = next(t.edges for t in view.map if t.id == "rose_garden")
        facing = {"w": "e", "s": "n", "n": "s"}[side]
        assert getattr(edges, facing) != "roses"
        assert sorted(edges.model_dump().values()).count("roses") == 2


def test_the_forest_path_brings_the_kingdom_path_and_the_kingdom_needs_the_princess() -> None:
    s = fresh()
    top(s, "forest", "forest_path")
    deck(s, *BENIGN, KNIGHT)
    G.apply(s, 0, Explore())
    events = G.apply(s, 0, Place(side="n"))
    assert any(e.kind == "kingdom_path" for e in events)
    assert s.stage == "kingdom_path" and s.placing == "kingdom_path"
    assert G.legal_actions(s, 0) == [Place(side="n"), Place(side="e"), Place(side="w")]
    G.apply(s, 0, Place(side="n"))
    assert Placed(tile="kingdom_path", x=0, y=-2) in s.placed
    assert "kingdom_path" not in s.kingdom and len(s.kingdom) == 7
    # The Lake's north is open but the Forest Path's south is dense trees: one card,
    # then the turn's card.
    assert len(s.discard) == 2
    G.apply(s, 0, Rest(rest=False))
    G.apply(s, 0, Go(tile="kingdom_path"))
    G.apply(s, 0, Rest(rest=False))
    assert G.explore_stack(s) is None and Explore() not in G.legal_actions(s, 0)
    s.princess = True
    assert G.explore_stack(s) == "kingdom" and Explore() in G.legal_actions(s, 0)
    s.pawn = "lake"  # once the Kingdom is open, the forest is done
    assert G.explore_stack(s) is None


def test_the_forest_stays_open_until_the_forest_path_is_found() -> None:
    s = fresh()
    s.princess = True
    assert G.explore_stack(s) == "forest"


def test_the_forest_path_leaves_room_for_the_kingdom_path() -> None:
    s = fresh()
    # A hole north of the Lake: (0,-1) is surrounded on its other three sides.
    put(s, "well", -1, -1)
    put(s, "cave", 1, -1)
    put(s, "fountain", 0, -2)
    top(s, "forest", "forest_path")
    G.apply(s, 0, Explore())
    assert Place(side="n") not in G.legal_actions(s, 0)


def test_in_a_hole_the_kingdom_path_goes_next_door() -> None:
    s = fresh()
    # The Lake's only free side opens on a square closed in on its three other sides.
    for tile, x, y in (("well", -1, -1), ("cave", 1, -1), ("fountain", 0, -2),
                       ("hollow_oak", 1, 0), ("cottage", 0, 1), ("rose_garden", -1, 0)):
        put(s, tile, x, y)
    assert s.forest == ["forest_path"]
    deck(s, *BENIGN, KNIGHT)
    G.apply(s, 0, Explore())  # one side only: placed at once
    assert Placed(tile="forest_path", x=0, y=-1) in s.placed
    kp = next(p for p in s.placed if p.tile == "kingdom_path")
    grid = {(p.x, p.y) for p in s.placed if p.tile != "kingdom_path"}
    assert (kp.x, kp.y) not in grid
    around_fp = {(-1, -1), (1, -1), (0, -2)}
    assert any(abs(kp.x - x) + abs(kp.y - y) == 1 for x, y in around_fp)
    assert s.stage != "kingdom_path"


def test_place_labels_warn_of_dense_trees() -> None:
    s = fresh()
    top(s, "forest", "well")  # its west edge is dense trees
    G.apply(s, 0, Explore())
    labels = {a.side: label(G, s, a) for a in G.legal_actions(s, 0)}  # type: ignore[attr-defined]
    assert labels["e"] == "Put it east (trees: -1 card)"  # the Well's west faces the Lake
    assert labels["s"] == "Put it south (trees: -1 card)"  # the Lake's south
    assert labels["n"] == "Put it north"


# --------------------------------------------------------------------------- the Mirror


def test_the_mirror_shows_two_tiles_and_puts_the_other_at_the_bottom() -> None:
    s = fresh("mirror")
    a, b = s.forest[0], s.forest[1]
    deck(s, *BENIGN)
    G.apply(s, 0, Explore(mirror=True))
    assert s.gold == 0 and s.stage == "mirror" and s.mirror_tiles == [a, b]
    view = G.view(s, None)
    assert view.decision is not None and view.decision.mirror_tiles == [a, b]
    assert G.legal_actions(s, 0) == [PickTile(tile=a), PickTile(tile=b)]
    G.apply(s, 0, PickTile(tile=b))
    assert s.forest[-1] == a and s.known_bottom["forest"] == 1
    assert G.view(s, None).known_bottom["forest"] == [a]
    for n in range(20):
        other = G.determinize(s, 0, Rng.from_seed(n))
        assert other.forest[-1] == a and sorted(other.forest) == sorted(s.forest)
    while s.stage in ("place", "kingdom_path"):
        G.apply(s, 0, G.legal_actions(s, 0)[0])
    assert any(p.tile == b for p in s.placed)


def test_the_mirror_needs_gold_and_two_tiles() -> None:
    s = fresh("mirror")
    s.gold = 0
    assert Explore(mirror=True) not in G.legal_actions(s, 0)
    s = fresh("mirror")
    s.forest = s.forest[:1]
    assert G.legal_actions(s, 0) == [Explore()]


# --------------------------------------------------------------------------- villains


def test_a_fight_costs_strength_minus_defense() -> None:
    card, t = line("villain", 0, villain="troll")
    s = meet(card, t)
    legal = G.legal_actions(s, 0)
    assert Fight() in legal and Fight(wand=True) in legal and Run(tile="hollow_oak") in legal
    G.apply(s, 0, Fight())
    assert s.health == 6 - max(0, strength(card, t) - 1)
    assert s.stage == "rest"


def test_a_fight_never_heals() -> None:
    card, t = line("villain", 0, villain="robbers")
    s = meet(card, t, items=[Held(item="dagger")], gold=4, princess=True)
    assert G.defense(s) + R.wand_defense > strength(card, t)
    G.apply(s, 0, Fight(wand=True))
    assert s.health == 6


def test_robbers_take_the_gold_when_defense_is_not_higher() -> None:
    card, t = line("villain", 0, villain="robbers")
    assert strength(card, t) >= G.defense(fresh())
    s = meet(card, t, gold=4)
    events = G.apply(s, 0, Fight())
    assert s.gold == 0  # the project's reading: all of it
    assert s.health == 6 - max(0, strength(card, t) - 1)
    assert any(e.kind == "stolen" for e in events)


def test_robbers_take_the_magic_pouch() -> None:
    card, t = line("villain", 0, villain="robbers")
    s = meet(card, t, items=[Held(item="pouch")])
    assert G.gold(s) == 6
    G.apply(s, 0, Fight())
    assert not has(s, "pouch") and G.gold(s) == 0


def test_the_wand_is_used_before_the_robbers_take_the_gold() -> None:
    card, t = line("villain", 0, villain="robbers")
    assert 1 + R.wand_defense > strength(card, t)
    s = meet(card, t, gold=4)
    G.apply(s, 0, Fight(wand=True))
    assert s.gold == 3 and s.health == 6  # paid the wand, kept the rest
    s = meet(card, t, items=[Held(item="pouch")])
    G.apply(s, 0, Fight(wand=True))
    assert has(s, "pouch") and G.gold(s) == 6  # the wand costs nothing with the pouch


def test_robbers_need_defense_strictly_higher() -> None:
    card, t = line("villain", 0, villain="robbers")
    k = strength(card, t)
    seen = set()
    for dagger in (False, True):
        for princess in (False, True):
            s = meet(card, t, items=[Held(item="dagger")] if dagger else [], gold=3,
                     princess=princess)
            higher = G.defense(s) > k
            G.apply(s, 0, Fight())
            assert (s.gold == 3) is higher  # equal is not higher: the gold is gone
            seen.add(higher)
    assert seen == {True, False}, "retuned: pick defenses on both sides of the robbers"


def test_the_cloak_evades_robbers_and_trolls() -> None:
    for name in ("robbers", "troll"):
        s = villain(name, items=[Held(item="cloak"), Held(item="pouch")])
        assert Fight(item="cloak") in G.legal_actions(s, 0)
        events = G.apply(s, 0, Fight(item="cloak"))
        assert s.health == 6 and has(s, "pouch") and not has(s, "cloak")
        assert not any(e.kind == "stolen" for e in events)
    for name in ("witch", "dragon"):
        s = villain(name, items=[Held(item="cloak")])
        assert Fight(item="cloak") not in G.legal_actions(s, 0)


def test_the_lamp_uses_the_cloak_again() -> None:
    s = villain("troll", items=[Held(item="cloak"), Held(item="lamp")])
    G.apply(s, 0, Fight(item="cloak", lamp=True))
    assert has(s, "cloak") and not has(s, "lamp") and s.health == 6


def test_the_knight_fights_the_next_villain() -> None:
    knight_card, kt = line("event", 0, effect="knight")
    robbers, _ = line("villain", 0, villain="robbers")
    s = meet(knight_card, kt, BENIGN[0], robbers, items=[Held(item="pouch")])
    assert s.knight and s.stage == "rest"
    G.apply(s, 0, Rest(rest=False))
    G.apply(s, 0, Go(tile="hollow_oak"))  # a harmless card: the knight waits
    assert s.knight
    G.apply(s, 0, Rest(rest=False))
    events = G.apply(s, 0, Go(tile="lake"))  # robbers: the knight must fight them
    assert not s.knight and s.stage == "rest" and has(s, "pouch") and s.health == 6
    assert any(e.kind == "knight" for e in events)


# --------------------------------------------------------------------------- running away


def test_running_away_costs_a_health_and_no_new_card() -> None:
    s = villain("troll", 0)
    G.apply(s, 0, Run(tile="hollow_oak"))
    assert s.pawn == "hollow_oak" and s.health == 6 - R.run_health
    assert len(s.discard) == 1
    assert s.gold == 1 + 1  # the Hollow Oak's instruction applies where the turn ends


def test_running_from_robbers_loses_a_gold_and_the_pouch() -> None:
    s = villain("robbers", 0, gold=3)
    G.apply(s, 0, Run(tile="hollow_oak"))
    assert s.gold == 3 - R.run_robbers_gold + 1  # + the Hollow Oak's coin
    s = villain("robbers", 0, items=[Held(item="pouch")])
    G.apply(s, 0, Run(tile="hollow_oak"))
    assert not has(s, "pouch") and s.gold == 6 - R.run_robbers_gold + 1


def test_running_away_through_dense_trees() -> None:
    for candle in (False, True):
        items = [Held(item="candle")] if candle else []
        card, t = line("villain", 0, villain="troll")
        s = fresh()
        s.time = t
        put(s, "hollow_oak", 1, 0)
        put(s, "fountain", 0, 1)  # the Lake's south edge is dense trees
        s.pawn = "hollow_oak"
        s.items = items
        deck(s, card, *BENIGN)
        G.apply(s, 0, Go(tile="lake"))
        events = G.apply(s, 0, Run(tile="fountain"))
        assert s.pawn == "fountain"
        assert len(s.discard) == (1 if candle else 2)
        assert any(e.kind == "trees" for e in events) is not candle


def test_running_with_the_boots_goes_anywhere() -> None:
    card, t = line("villain", 0, villain="troll")
    s = fresh("boots")
    s.time = t
    put(s, "hollow_oak", 1, 0)
    put(s, "well", 5, 5)
    s.pawn = "hollow_oak"
    deck(s, card)
    G.apply(s, 0, Go(tile="lake"))
    legal = G.legal_actions(s, 0)
    assert Run(tile="well", boots=True) in legal and Run(tile="hollow_oak", boots=True) not in legal
    G.apply(s, 0, Run(tile="well", boots=True))
    assert s.pawn == "well" and s.gold == 0 + 1  # paid the boots, then the Well's coin


# --------------------------------------------------------------------------- items


def test_the_bucket_beats_a_witch_and_the_lake_refills_it() -> None:
    s = villain("witch", 0, items=[Held(item="bucket")])
    legal = G.legal_actions(s, 0)
    assert Fight(item="bucket") in legal
    G.apply(s, 0, Fight(item="bucket"))
    assert s.health == 6 and held(s, "bucket").empty
    item = G.view(s, None).items[0]
    assert (item.name, item.value, item.empty) == ("Empty Bucket", 0, True)
    G.apply(s, 0, Rest(rest=True))  # at the Lake
    assert not held(s, "bucket").empty and s.health == min(8, 6 + R.rest_health)
    s = villain("troll", 0, items=[Held(item="bucket")])
    assert Fight(item="bucket") not in G.legal_actions(s, 0)


def test_an_empty_bucket_works_once_more_with_the_lamp() -> None:
    s = villain("witch", 0, items=[Held(item="bucket", empty=True), Held(item="lamp")])
    legal = G.legal_actions(s, 0)
    assert Fight(item="bucket") not in legal and Fight(item="bucket", lamp=True) in legal
    G.apply(s, 0, Fight(item="bucket", lamp=True))
    assert s.health == 6 and held(s, "bucket").empty and not has(s, "lamp")


def test_the_shield_stops_one_dragon() -> None:
    s = villain("dragon", 0, items=[Held(item="shield")])
    G.apply(s, 0, Fight(item="shield"))
    assert s.health == 6 and not has(s, "shield")


def test_the_shield_with_repellant_stops_every_dragon() -> None:
    s = fresh()
    s.items = [Held(item="shield"), Held(item="repellant")]
    assert Coat() in G.legal_actions(s, 0)
    G.apply(s, 0, Coat())
    assert s.items == [Held(item="shield", coated=True)]
    item = G.view(s, None).items[0]
    assert (item.name, item.value) == ("Shield with Repellant", R.coated_shield_value)
    s = villain("dragon", 0, items=[Held(item="shield", coated=True), Held(item="lamp")])
    assert Fight(item="shield", lamp=True) not in G.legal_actions(s, 0)
    G.apply(s, 0, Fight(item="shield"))
    assert s.health == 6 and held(s, "shield").coated


def test_flame_repellant_adds_two_against_dragons_only() -> None:
    card, t = line("villain", 0, villain="dragon")
    s = meet(card, t, items=[Held(item="repellant")])
    assert G.defense(s, "dragon") == 1 + R.repellant_defense and G.defense(s, "troll") == 1
    assert G.view(s, None).defense.against_dragons == R.repellant_defense
    G.apply(s, 0, Fight())
    assert s.health == 6 - max(0, strength(card, t) - 1 - R.repellant_defense)


def test_the_dagger_and_the_princess_add_defense() -> None:
    s = fresh()
    s.items = [Held(item="dagger")]
    s.princess = True
    d = G.view(s, None).defense
    assert (d.base, d.dagger, d.princess, d.total) == (1, 1, 1, 3)
    assert d.wand == R.wand_defense


def test_the_wand_costs_gold_and_is_used_once_per_fight() -> None:
    s = villain("troll", 0, gold=0)
    assert Fight(wand=True) not in G.legal_actions(s, 0)
    s = villain("troll", 0, gold=2)
    assert [a for a in G.legal_actions(s, 0) if isinstance(a, Fight) and a.wand] == \
        [Fight(wand=True)]
    card, t = line("villain", 0, villain="troll")
    G.apply(s, 0, Fight(wand=True))
    assert s.gold == 1 and s.health == 6 - max(0, strength(card, t) - 1 - R.wand_defense)


def test_the_elixir_heals_three_and_the_fountain_refills_the_goblet() -> None:
    s = fresh()
    s.items = [Held(item="elixir")]
    s.health = 4
    G.apply(s, 0, Drink())
    assert s.health == 7 and held(s, "elixir").empty
    assert Drink() not in G.legal_actions(s, 0)
    assert G.view(s, None).items[0].name == "Empty Goblet"
    s.items = [Held(item="elixir")]
    s.health = 7
    G.apply(s, 0, Drink())
    assert s.health == 8  # the limit
    assert Drink() not in G.legal_actions(s, 0) and Drink(lamp=True) not in \
        G.legal_actions(s, 0)
    # Resting at the Fountain of Youth refills it.
    s = fresh()
    put(s, "fountain", 0, -1)
    s.items = [Held(item="elixir", empty=True)]
    deck(s, *BENIGN)
    G.apply(s, 0, Go(tile="fountain"))
    G.apply(s, 0, Rest(rest=True))
    assert not held(s, "elixir").empty


def test_the_lamp_wishes_the_goblet_full_once() -> None:
    s = fresh()
    s.items = [Held(item="elixir", empty=True), Held(item="lamp")]
    s.health = 3
    assert Drink() not in G.legal_actions(s, 0)
    G.apply(s, 0, Drink(lamp=True))
    assert s.health == 6 and not has(s, "lamp") and held(s, "elixir").empty


def test_the_lamp_moves_without_a_card() -> None:
    s = fresh()
    put(s, "cottage", 4, 4)   # not reachable on foot
    s.items = [Held(item="lamp")]
    s.rose = True
    before = list(s.deck)
    assert Wish(tile="cottage") in G.legal_actions(s, 0)
    G.apply(s, 0, Wish(tile="cottage"))
    assert s.pawn == "cottage" and s.deck == before and not has(s, "lamp")
    assert not s.princess and s.stage == "rest"  # the Cottage needs a card resolved there


def test_the_boots_go_anywhere_for_a_gold() -> None:
    s = fresh("boots")
    put(s, "hollow_oak", 1, 0)   # open: walking is free, no Boots offered
    put(s, "cave", 0, 1)         # dense trees: Boots offered
    put(s, "well", 6, 6)         # unreachable: Boots offered
    legal = G.legal_actions(s, 0)
    assert Go(tile="hollow_oak", boots=True) not in legal
    assert Go(tile="cave", boots=True) in legal and Go(tile="well", boots=True) in legal
    assert Go(tile="well") not in legal
    deck(s, KNIGHT)
    G.apply(s, 0, Go(tile="cave", boots=True))
    assert s.pawn == "cave" and s.gold == 0 and len(s.discard) == 1


def test_the_pouch_keeps_gold_at_six() -> None:
    s = fresh()
    s.items = [Held(item="pouch")]
    assert G.gold(s) == 6 and G.view(s, None).gold == 6
    card, t = line("villain", 0, villain="troll")
    s = meet(card, t, items=[Held(item="pouch")])
    G.apply(s, 0, Fight(wand=True))
    assert G.gold(s) == 6


def test_the_candle_walks_through_dense_trees() -> None:
    s = fresh()
    put(s, "cave", 0, 1)
    s.items = [Held(item="candle")]
    deck(s, *BENIGN)
    G.apply(s, 0, Go(tile="cave"))
    assert len(s.discard) == 1


# --------------------------------------------------------------------------- good deeds


def test_a_good_deed_costs_the_next_card() -> None:
    card, t = line("good_deed", 0)
    gold = C.card(card).lines[t].gold  # type: ignore[union-attr]
    s = meet(card, t, BENIGN[0])
    assert s.stage == "good_deed"
    G.apply(s, 0, GoodDeed(help=True))
    assert s.gold == min(6, 1 + gold) and s.discard == [card, BENIGN[0]]
    s = meet(card, t, BENIGN[0])
    G.apply(s, 0, GoodDeed(help=False))
    assert s.gold == 1 and s.discard == [card]


# --------------------------------------------------------------------------- the peddler


def peddler(discard: list[str], *, gold: int = 2, items: list[Held] | None = None) -> PocketState:
    card, t = line("peddler", 0)
    s = fresh()
    s.time = t
    s.discard = list(discard)
    put(s, "hollow_oak", 1, 0)
    s.pawn = "hollow_oak"
    s.gold = gold
    s.items = items or []
    deck(s, card)
    G.apply(s, 0, Go(tile="lake"))
    return s


def test_the_peddler_sells_what_is_on_the_discard_pile_only() -> None:
    card, _ = line("peddler", 0)
    s = peddler([card_of("candle"), card_of("dagger")])
    own = C.card(card).item
    assert s.stage == "peddler"
    offered = {a.item for a in G.legal_actions(s, 0) if isinstance(a, Shop)}
    expected = {"candle", "dagger", own}
    assert offered == {i for i in expected if C.item(i).price <= 2}
    aside = {C.card(k).item for k in s.set_aside}
    assert not offered & aside
    assert Leave() in G.legal_actions(s, 0)
    G.apply(s, 0, Shop(item=own))  # type: ignore[arg-type]
    assert Pay(gold=C.item(own).price) in G.legal_actions(s, 0) and Back() in \
        G.legal_actions(s, 0)
    G.apply(s, 0, Back())
    assert s.stage == "peddler"
    G.apply(s, 0, Shop(item="candle"))
    G.apply(s, 0, Pay(gold=2))
    assert has(s, "candle") and s.gold == 0 and s.stage == "rest"  # one item per peddler


def test_trade_values() -> None:
    assert G.item_value(Held(item="elixir", empty=True)) == 0
    assert G.item_value(Held(item="bucket", empty=True)) == 0
    assert G.item_value(Held(item="shield", coated=True)) == R.coated_shield_value == 2
    assert G.item_value(Held(item="pouch")) == 3
    s = peddler([card_of("dagger")], gold=0,
                items=[Held(item="elixir", empty=True), Held(item="shield", coated=True)])
    G.apply(s, 0, Shop(item="dagger"))
    assert G.legal_actions(s, 0) == [Pay(items=("shield",), gold=0),
                                     Pay(items=("elixir", "shield"), gold=0), Back()]
    G.apply(s, 0, Pay(items=("shield",), gold=0))
    assert has(s, "dagger") and not has(s, "shield") and has(s, "elixir")
    # An item plus the gold still missing.
    s = peddler([card_of("candle")], gold=1, items=[Held(item="cloak")])
    G.apply(s, 0, Shop(item="candle"))
    assert Pay(items=("cloak",), gold=1) in G.legal_actions(s, 0)
    assert Pay(gold=2) not in G.legal_actions(s, 0)
    G.apply(s, 0, Pay(items=("cloak",), gold=1))
    assert s.items == [Held(item="candle")] and s.gold == 0


def test_no_second_of_an_item_even_an_empty_one() -> None:
    s = peddler([card_of("elixir"), card_of("candle")], gold=3,
                items=[Held(item="elixir", empty=True)])
    offered = {a.item for a in G.legal_actions(s, 0) if isinstance(a, Shop)}
    assert "elixir" not in offered and "candle" in offered


def test_a_peddler_with_nothing_to_get_is_passed_by() -> None:
    s = peddler([], gold=0)
    assert s.stage == "rest"


def test_a_fourth_item_means_dropping_one_for_good() -> None:
    s = peddler([card_of("candle")], gold=2,
                items=[Held(item="dagger"), Held(item="shield"), Held(item="repellant")])
    G.apply(s, 0, Shop(item="candle"))
    G.apply(s, 0, Pay(gold=2))
    assert s.stage == "drop"
    legal = G.legal_actions(s, 0)
    assert [a for a in legal if isinstance(a, Drop)] == [
        Drop(item=i) for i in ("dagger", "shield", "repellant", "candle")]  # type: ignore[arg-type]
    assert Coat() in legal  # the Shield with Repellant is one item
    G.apply(s, 0, Drop(item="dagger"))
    assert [h.item for h in s.items] == ["shield", "repellant", "candle"]
    assert s.stage == "rest"


def test_the_messenger_bird_is_used_at_once() -> None:
    bird = card_of("bird")
    s = peddler([bird, BENIGN[1]], gold=2)
    G.apply(s, 0, Shop(item="bird"))
    G.apply(s, 0, Pay(gold=2))
    assert s.stage == "bird" and not has(s, "bird")
    legal = G.legal_actions(s, 0)
    assert SendDone() not in legal and Send(card=bird) in legal
    deck_before, pile = len(s.deck), len(s.discard)
    G.apply(s, 0, Send(card=bird))
    assert SendDone() in G.legal_actions(s, 0)
    G.apply(s, 0, Send(card=BENIGN[1]))  # the second card: the bird flies at once
    assert s.stage == "rest" and len(s.deck) == deck_before + 2
    assert len(s.discard) == pile - 2 and bird in s.deck
    # Everyone knows those two are in the deck, not among the set-aside cards.
    assert sorted(G.view(s, None).known_in_deck) == sorted([bird, BENIGN[1]])
    for n in range(20):
        other = G.determinize(s, None, Rng.from_seed(n))
        assert {bird, BENIGN[1]} <= set(other.deck)
        assert sorted(other.deck + other.set_aside) == sorted(s.deck + s.set_aside)


def test_the_bird_may_take_a_single_card() -> None:
    bird = card_of("bird")
    s = peddler([bird], gold=2)
    G.apply(s, 0, Shop(item="bird"))
    G.apply(s, 0, Pay(gold=2))
    G.apply(s, 0, Send(card=bird))
    G.apply(s, 0, SendDone())
    assert s.stage == "rest" and bird in s.deck


def test_the_market_square_is_a_peddler() -> None:
    s = fresh()
    put(s, "market", 1, 0)
    s.discard = [card_of("cloak")]
    deck(s, *BENIGN)
    G.apply(s, 0, Go(tile="market"))
    assert s.stage == "peddler" and s.phase == "tile"
    G.apply(s, 0, Leave())
    assert s.stage == "rest"


# --------------------------------------------------------------------------- time


def test_time_passes_with_a_pending_discard() -> None:
    card, _ = line("good_deed", 0)
    s = fresh()
    put(s, "hollow_oak", 1, 0)
    s.pawn = "hollow_oak"
    others = [k.id for k in C.cards if k.id != card]
    s.deck, s.set_aside, s.discard = [card], others[:3], others[3:]
    G.apply(s, 0, Go(tile="lake"))
    assert s.stage == "good_deed" and s.deck == []
    events = G.apply(s, 0, GoodDeed(help=True))
    kinds = [e.kind for e in events]
    assert kinds.index("time_passes") < len(kinds) - 1
    assert s.time == 1 and len(s.set_aside) == 3
    assert len(s.discard) == 1 and len(s.deck) == 10 - 3 - 1  # the owed card, from the new deck
    assert sorted(s.deck + s.set_aside + s.discard) == sorted(k.id for k in C.cards)
    assert G.view(s, None).time_name == C.times[1].name


def test_the_game_is_lost_when_the_third_pass_runs_out() -> None:
    s = fresh()
    put(s, "hollow_oak", 1, 0)
    s.time = len(C.times) - 1
    s.discard, s.deck = list(s.deck), []
    G.apply(s, 0, Go(tile="hollow_oak"))
    outcome = G.outcome(s)
    assert outcome is not None and outcome.winners == [] and "sun has set" in outcome.reason
    assert G.to_act(s) == []
    check_illegal_leaves_state(G, s, 0, Rest(rest=False), GameOver)


# --------------------------------------------------------------------------- goals and endings


def test_the_rose_then_two_cards_at_the_cottage_wake_the_princess() -> None:
    s = fresh()
    put(s, "rose_garden", 0, -1)
    put(s, "cottage", 1, 0)
    deck(s, BENIGN[0])
    G.apply(s, 0, Go(tile="rose_garden"))
    assert s.rose
    G.apply(s, 0, Rest(rest=False))
    # Back at the Lake, then the Cottage with the rose: two cards.
    s.pawn = "lake"
    deck(s, *BENIGN)
    events = G.apply(s, 0, Go(tile="cottage"))
    assert s.princess and len(s.discard) == 2
    assert any(e.kind == "princess" for e in events)
    assert G.defense(s) == 1 + R.princess_defense
    assert G.view(s, None).goals.princess


def test_the_cottage_without_the_rose_does_nothing() -> None:
    s = fresh()
    put(s, "cottage", 1, 0)
    deck(s, *BENIGN)
    G.apply(s, 0, Go(tile="cottage"))
    assert not s.princess and len(s.discard) == 1


def test_running_from_the_second_card_leaves_the_princess_asleep() -> None:
    troll, _ = line("villain", 0, villain="troll")
    s = fresh()
    put(s, "cottage", 1, 0)
    s.rose = True
    deck(s, BENIGN[0], troll)
    G.apply(s, 0, Go(tile="cottage"))
    assert s.phase == "second" and s.stage == "villain"
    G.apply(s, 0, Run(tile="lake"))
    assert not s.princess and s.pawn == "lake" and s.stage == "rest"


def test_two_cards_at_the_castle_win_the_game() -> None:
    s = fresh(players=3)
    put(s, "castle", 1, 0)
    s.princess = True
    deck(s, *BENIGN)
    G.apply(s, 0, Go(tile="castle"))
    outcome = G.outcome(s)
    assert outcome is not None and outcome.winners == [0, 1, 2]
    assert "together" in outcome.reason and s.result == "won"
    assert G.view(s, None).decision is None


def test_the_game_is_lost_when_health_runs_out() -> None:
    s = villain("troll", 0)
    s.health = 1
    G.apply(s, 0, Run(tile="hollow_oak"))
    outcome = G.outcome(s)
    assert outcome is not None and outcome.winners == [] and "hurt" in outcome.reason


# --------------------------------------------------------------------------- tiles, rest, turns


def test_the_cave_gives_the_top_cards_item_once() -> None:
    s = fresh()
    put(s, "cave", 0, -1)  # the Lake's north and the Cave's south are open
    deck(s, BENIGN[0], BENIGN[1], KNIGHT)
    G.apply(s, 0, Go(tile="cave"))
    item = C.card(BENIGN[0]).item
    assert s.stage == "find" and s.find_item == item
    G.apply(s, 0, Find(take=True))
    assert has(s, item) and s.stage == "rest"
    G.apply(s, 0, Rest(rest=False))
    G.apply(s, 0, Go(tile="lake"))
    G.apply(s, 0, Rest(rest=False))
    G.apply(s, 0, Go(tile="cave"))
    assert s.stage == "rest"  # only once


def test_once_only_instructions_and_repeated_ones() -> None:
    s = fresh()
    put(s, "hollow_oak", 1, 0)
    deck(s, KNIGHT, BENIGN[1], BENIGN[0])
    G.apply(s, 0, Go(tile="hollow_oak"))
    assert s.gold == 1 + 1  # the owl's coin
    for tile in ("lake", "hollow_oak"):
        G.apply(s, 0, Rest(rest=False))
        G.apply(s, 0, Go(tile=tile))
    assert s.gold == 2 + 1  # the +1 gold card; no second coin from the owl
    assert next(t for t in G.view(s, None).map if t.id == "hollow_oak").used
    # The Fountain's sip is every time.
    s = fresh()
    put(s, "fountain", 0, -1)
    s.health = 3
    deck(s, KNIGHT, BENIGN[0], BENIGN[1])
    for tile in ("fountain", "lake", "fountain"):
        G.apply(s, 0, Go(tile=tile))
        G.apply(s, 0, Rest(rest=False))
    health = C.card(BENIGN[1]).lines[0].effect.amount  # type: ignore[union-attr]
    assert s.health == 3 + 2 * 1 + health  # two sips and the +health card


def test_the_watchtower_sends_a_knight() -> None:
    s = fresh()
    put(s, "watchtower", 1, 0)
    deck(s, *BENIGN)
    G.apply(s, 0, Go(tile="watchtower"))
    assert s.knight and G.view(s, None).knight


def test_resting_heals_two_and_costs_a_card() -> None:
    s = fresh()
    put(s, "hollow_oak", 1, 0)
    s.health = 3
    deck(s, *BENIGN)
    G.apply(s, 0, Go(tile="hollow_oak"))
    pile = len(s.discard)
    G.apply(s, 0, Rest(rest=True))
    assert s.health == 5 and len(s.discard) == pile + 1 and s.stage == "move"


def test_the_seat_rotates_each_turn() -> None:
    s = fresh(players=3)
    put(s, "hollow_oak", 1, 0)
    deck(s, *BENIGN)
    G.apply(s, 0, Go(tile="hollow_oak"))
    assert G.to_act(s) == [0]
    G.apply(s, 0, Rest(rest=False))
    assert G.to_act(s) == [1] and G.legal_actions(s, 0) == []
    check_illegal_leaves_state(G, s, 0, Go(tile="lake"), NotYourTurn)


def test_stay_when_nowhere_to_go() -> None:
    s = fresh()
    s.forest = []
    assert G.legal_actions(s, 0) == [Stay()]
    deck(s, *BENIGN)
    G.apply(s, 0, Stay())
    assert s.pawn == "lake" and len(s.discard) == 1


# ------------------------------------------------------------------ secrets, views, refusals


def test_determinize_reshuffles_only_the_secrets() -> None:
    s = fresh("mirror", seed=5)
    G.apply(s, 0, Explore(mirror=True))
    G.apply(s, 0, PickTile(tile=s.mirror_tiles[0]))
    while s.stage not in ("move", "over"):
        G.apply(s, 0, G.legal_actions(s, 0)[-1])
    seen = set()
    for n in range(30):
        o = G.determinize(s, None, Rng.from_seed(n))
        assert G.view(o, None) == G.view(s, None)
        assert sorted(o.deck + o.set_aside) == sorted(s.deck + s.set_aside)
        assert len(o.deck) == len(s.deck) and o.discard == s.discard
        assert sorted(o.kingdom) == sorted(s.kingdom)
        if "kingdom_path" in s.kingdom:
            assert o.kingdom[0] == "kingdom_path"
        if s.known_bottom["forest"]:
            assert o.forest[-1] == s.forest[-1]  # the Mirror's tile stays at the bottom
        seen.add((tuple(o.deck), tuple(o.kingdom)))
    assert len(seen) > 1


def test_the_view_carries_the_board() -> None:
    s = villain("troll", 0, items=[Held(item="cloak")])
    v = G.view(s, None)
    assert {t.id for t in v.map} == {"lake", "hollow_oak"} and v.pawn == "lake"
    assert (v.pawn_x, v.pawn_y) == (0, 0)
    lake = next(t for t in v.map if t.id == "lake")
    assert lake.edges.s == "trees" and lake.instruction
    assert v.line is not None and v.line.villain == "troll" and v.current_card is not None
    assert v.time_name == "High sun" and v.times == [t.name for t in C.times]
    assert v.deck == len(s.deck) and len(v.discard) == 1 and v.set_aside == 3
    assert v.decision is not None and v.decision.kind == "villain"
    assert "Fight or run away" in v.decision.prompt
    labels = [c.label for c in v.decision.choices]
    # a fight's label says what it costs and keeps (issue 23), the default first
    assert labels[0] == "Hide under the Cloak: no harm" and "Run to the Hollow Oak" in labels
    for choice in v.decision.choices:
        assert G.parse_action(choice.action) in G.legal_actions(s, 0)
    assert G.parse_view(v.model_dump_json()) == v
    assert v.special_name == "Wand" and v.item_limit == 3 and not v.goals.rose


def test_every_event_has_a_log_line() -> None:
    s = fresh()
    top(s, "forest", "forest_path")
    deck(s, *BENIGN)
    events = G.apply(s, 0, Explore())
    events += G.apply(s, 0, Place(side="n"))
    events += G.apply(s, 0, Place(side="e"))
    assert all(t and "{who}" not in t for t in texts(events))
    assert texts(events)[0] == "Ann explored and found the Forest Path."


def test_refused_actions_say_why_and_change_nothing() -> None:
    s = villain("troll", 0, gold=0)
    for action, words in ((Explore(), "Not now"), (Fight(item="cloak"), "don't have"),
                          (Run(tile="well"), "not on the map"),
                          (Run(tile="lake"), "already there"),
                          (Fight(wand=True), "1 gold"), (Rest(rest=True), "Not now")):
        assert action not in G.legal_actions(s, 0)
        check_illegal_leaves_state(G, s, 0, action, IllegalAction)
        with pytest.raises(IllegalAction) as info:
            G.apply(G.copy_state(s), 0, action)
        assert words in str(info.value), (action, str(info.value))
    with pytest.raises(IllegalAction):
        G.parse_action({"kind": "fly"})


def test_content_is_checked(tmp_path: Path) -> None:
    data = json.loads((Path(__file__).parents[1] / "data" / "pocket.json").read_text())
    data["tiles"][0]["edges"]["n"] = "roses"  # roses on the Lake
    bad = tmp_path / "pocket.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ContentError, match="only the Rose Garden"):
        load_content(str(bad))


# --------------------------------------------------------------------------- conformance


@pytest.mark.parametrize("players,options", [(1, {}), (3, {}), (1, {"special": "mirror"}),
                                             (2, {"special": "boots"}), (4, {})])
def test_conformance(players: int, options: dict[str, Any]) -> None:
    for seed in range(8):
        play_random_game(Case("pocket", players, options), seed)


@pytest.mark.parametrize("players", [1, 3])
def test_conformance_played_carefully_reaches_the_kingdom(players: int) -> None:
    """Random play never wakes the princess; the careful player does, so the Kingdom,
    the Castle and the won ending go through the same checks."""
    results = Counter()
    for seed in range(8):
        state = play_random_game(Case("pocket", players, agent="careful"), seed)
        results[state.result] += 1  # type: ignore[attr-defined]
    assert results["won"] >= 1 and results["lost"] >= 1


def test_the_declaration_has_conformance_cases() -> None:
    assert SPEC.id == "pocket" and SPEC.players == (1, 4)
    assert all(isinstance(c, ConformanceCase) for c in SPEC.conformance)


# --------------------------------------------------------------------------- play statistics

def win_rate(choose: Any, games: int, players: int = 1) -> float:
    wins = 0
    for seed in range(games):
        s = G.setup(players, PocketOptions(), seed)
        rng = Rng.from_seed(seed ^ 0x5EED)
        for _ in range(5000):
            if G.outcome(s) is not None:
                break
            seat = G.to_act(s)[0]
            G.apply(s, seat, choose(s, rng))
        wins += s.result == "won"
    return wins / games


def test_random_play_rarely_wins_and_a_careful_player_often_does() -> None:
    start = time.perf_counter()
    random_rate = win_rate(lambda s, rng: rng.choice(G.legal_actions(s, s.turn_seat)), 200)
    careful_rate = win_rate(lambda s, rng: careful_action(G, s), 200)
    print(f"\npocket: random play wins {random_rate:.1%}, the careful heuristic "
          f"{careful_rate:.1%} (200 games each, {time.perf_counter() - start:.1f}s)")
    assert random_rate <= 0.1
    assert careful_rate >= 0.25


def test_every_legal_action_has_a_label() -> None:
    counts: Counter[str] = Counter()
    for seed in range(20):
        s = G.setup(2, PocketOptions(), seed)
        rng = Rng.from_seed(seed)
        while G.outcome(s) is None:
            legal = G.legal_actions(s, s.turn_seat)
            for a in legal:
                text = label(G, s, a)
                assert text and "{" not in text
                counts[a.kind] += 1  # type: ignore[attr-defined]
            G.apply(s, s.turn_seat, careful_action(G, s) if seed % 2 else rng.choice(legal))
    assert {"explore", "go", "place", "fight", "run", "rest", "shop", "pay"} <= set(counts)
