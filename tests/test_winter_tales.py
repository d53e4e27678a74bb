"""Winter Tales rules: setup, chapters and turns, movement, Quests, Battles, Traps, Saves,
the Epilogue (with the rulebook's worked example) and narration."""

from __future__ import annotations

import pytest

from engines.core import GameOver, IllegalAction, NotYourTurn, Rng
from engines.winter_tales.content import load_content
from engines.winter_tales.state import BoardQuest, EpilogueFrame, Memory, WinterOptions
from tests.test_winter_tales_helpers import (
    G,
    act,
    arrange,
    give,
    kinds,
    seat_of,
    started,
    top,
)

C = load_content()


# --------------------------------------------------------------------------- setup


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_setup_follows_the_character_table(players: int) -> None:
    share = C.setup.share(players)
    st = started(players, seed=players)
    assert st.factions.count("spring") == share.spring_players
    assert st.factions.count("winter") == share.winter_players
    assert st.factions.count("writer") == (1 if share.writer else 0)
    # seating: Spring and Winter alternate clockwise from the first Spring player, Writer last
    seated = [st.factions[s] for s in st.order]
    core = [f for f in seated if f != "writer"]
    assert core == ["spring", "winter"] * (len(core) // 2)
    if share.writer:
        assert seated[-1] == "writer"
    for seat in range(players):
        owned = [f for f in st.figures.values() if f.owner == seat]
        fts = sum(1 for f in owned if f.faction == "spring")
        sol = sum(1 for f in owned if f.faction == "winter")
        expected = {"spring": (share.each_spring_player, 0),
                    "winter": (0, share.each_winter_player),
                    "writer": (share.writer_fairy_tales, share.writer_soldiers)}
        assert (fts, sol) == expected[st.factions[seat]]
        hand = share.spring_players if st.factions[seat] == "writer" else 4
        assert len(st.hands[seat]) == hand
    unused = [f for f in st.figures.values() if f.owner is None]
    assert sum(f.faction == "spring" for f in unused) == share.unused_fairy_tales
    assert sum(f.faction == "winter" for f in unused) == share.unused_soldiers
    # figures: Fairy Tales in Locations, Soldiers in Squares, never two in one space
    spaces = [f.space for f in st.figures.values() if f.owner is not None]
    assert len(spaces) == len(set(spaces))
    for f in st.figures.values():
        if f.owner is not None:
            kind = C.map.space(f.space).kind
            assert kind == ("location" if f.faction == "spring" else "square")
    # two starting Quests, one per Faction, in different Locations
    assert sorted(q.faction for q in st.quests) == ["spring", "winter"]
    assert st.chapter == 1 and st.acting == st.order[0] == seat_of(st, "spring")
    assert G.to_act(st) == [st.order[0]]
    assert len(st.deck) + sum(len(h) for h in st.hands) == len(C.story_cards)


def test_setup_offers_only_empty_spaces_of_the_right_kind() -> None:
    st = G.setup(4, G.Options(), 3)
    seat = G.to_act(st)[0]
    first = G.legal_actions(st, seat)[0]
    act(st, seat, "choose_character", character=first.character, space=first.space)
    for a in G.legal_actions(st, G.to_act(st)[0]):
        assert a.space != first.space


def test_game_length_options() -> None:
    assert WinterOptions().length == 3
    assert WinterOptions(memories=6).length == 6
    assert WinterOptions(objective=True).length == 5
    with pytest.raises(IllegalAction):
        G.parse_options({"objective": True, "memories": 4})
    with pytest.raises(IllegalAction):
        G.parse_options({"memories": 8})
    st = started(4, memories=4)
    assert st.length == 4 and G.view(st, None).epilogue_space == 5


def test_lines_and_veils_open_the_story_and_every_view() -> None:
    st = started(3, lines=["spiders"], veils=["blood"])
    texts = [e.text for e in st.transcript if e.kind == "setup"]
    assert any("spiders" in (t or "") for t in texts)
    assert any("blood" in (t or "") for t in texts)
    for seat in (None, 0, 1, 2):
        v = G.view(st, seat)
        assert v.lines == ["spiders"] and v.veils == ["blood"]


# --------------------------------------------------------------------------- turns


def _four() -> tuple[object, int, int, int, int]:
    st = started(4, seed=2)
    a, b, c, d = st.order
    return st, a, b, c, d


def test_activation_draws_three_and_turns_the_card() -> None:
    st, a, b, _c, _d = _four()
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "statue_square"}}, turn=a)
    give(st, a, 2)
    act(st, a, "activate", character="alice")
    assert len(st.hands[a]) == 5 and not st.figures["alice"].ready
    act(st, a, "done")
    # turn passes clockwise to b (c and d have no character)
    assert G.to_act(st) == [b]


def test_discard_down_to_seven_at_the_end_of_an_activation() -> None:
    st, a, b, _c, _d = _four()
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "statue_square"}}, turn=a)
    give(st, a, 7)
    act(st, a, "activate", character="alice")
    act(st, a, "done")
    assert top(st).kind == "discard" and G.to_act(st) == [a]
    for _ in range(3):
        act(st, a, "discard", card=st.hands[a][0])
    assert len(st.hands[a]) == 7 and G.to_act(st) == [b]


def test_end_of_chapter_draws_four_and_readies_everyone() -> None:
    st, a, b, c, d = _four()
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "statue_square"}}, turn=a)
    for s in (a, b, c, d):
        give(st, s, 0)
    act(st, a, "activate", character="alice")
    act(st, a, "done")
    act(st, b, "activate", character="wolf")
    act(st, b, "done")
    assert st.chapter == 2
    assert st.figures["alice"].ready and st.figures["wolf"].ready
    # every player drew 4 (a and b had 3 from activating)
    assert [len(st.hands[s]) for s in (a, b, c, d)] == [7, 7, 4, 4]


def test_writer_draws_players_in_one_faction_at_end_of_chapter() -> None:
    st = started(5, seed=4)
    w = seat_of(st, "writer")
    s0 = seat_of(st, "spring")
    arrange(st, {s0: {"alice": "oaks_park"}}, turn=s0)
    for s in range(5):
        give(st, s, 0)
    act(st, s0, "activate", character="alice")
    act(st, s0, "done")
    assert st.chapter == 2 and len(st.hands[w]) == C.setup.writer_hand(5) == 2


def test_movement_costs_one_card_per_two_spaces() -> None:
    st, a, b, _c, _d = _four()
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "curfew_square"}}, turn=a)
    hand = give(st, a, 2)
    act(st, a, "activate", character="alice")
    # no movement left: every move names the card it discards
    moves = [x for x in G.legal_actions(st, a) if x.kind == "move"]
    assert moves and all(m.card is not None for m in moves)
    act(st, a, "move", to="lantern_square", card=hand[0])
    assert len(st.hands[a]) == 4
    moves = [x for x in G.legal_actions(st, a) if x.kind == "move"]
    assert moves and all(m.card is None for m in moves)
    act(st, a, "move", to="mad_hatter_asylum")
    assert st.figures["alice"].space == "mad_hatter_asylum"
    assert all(m.card is not None for m in G.legal_actions(st, a) if m.kind == "move")
    assert C.map.cards_to_reach("oaks_park", "mad_hatter_asylum") == 1


def test_route_gives_the_shortest_path_and_its_cost() -> None:
    from engines.winter_tales.chapters import route

    st, a, b, _c, _d = _four()
    arrange(st, {a: {"alice": "memory_lane_cemetery"}, b: {"wolf": "curfew_square"}}, turn=a)
    path, cards = route(st, "alice", "nightmares_factory")
    assert len(path) == 5 and path[-1] == "nightmares_factory" and cards == 3
    assert cards == C.map.cards_to_reach("memory_lane_cemetery", "nightmares_factory")


def test_several_players_may_hold_an_interrupt_and_the_first_takes_it() -> None:
    st = started(6, seed=2)
    a, b, _c, d, _e, _f = st.order
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "lantern_square"},
                 d: {"mad_hatter": "lantern_square"}}, turn=a)
    for s in (a, b, d):
        give(st, s, 2)
    act(st, a, "activate", character="alice")
    act(st, a, "move", to="lantern_square", card=st.hands[a][0])
    assert G.to_act(st) == [b, d] and G.view(st, None).optional == [b, d]
    act(st, d, "battle", character="mad_hatter")
    assert G.to_act(st) == [d] and "battle" not in kinds(st, b)
    with pytest.raises(NotYourTurn):
        act(st, b, "battle", character="wolf")


def test_move_skill_moves_three_spaces_per_card() -> None:
    st, a, b, _c, _d = _four()
    st.options.skill = True
    arrange(st, {a: {"little_match_girl": "oaks_park"}, b: {"wolf": "curfew_square"}}, turn=a)
    hand = give(st, a, 1)
    act(st, a, "activate", character="little_match_girl")
    act(st, a, "move", to="lantern_square", card=hand[0])
    act(st, a, "move", to="mad_hatter_asylum")
    act(st, a, "move", to="statue_square")
    assert st.figures["little_match_girl"].space == "statue_square"


# --------------------------------------------------------------------------- Quests


def test_quest_generation_rules() -> None:
    st, a, b, _c, _d = _four()
    arrange(st, {a: {"alice": "oaks_park", "grumpy": "fair_of_wonders"},
                 b: {"wolf": "curfew_square"}},
            quests=[BoardQuest(counter="freezing_horror", quest="freezing_horror",
                               faction="winter", space="nightmares_factory")], turn=a)
    act(st, a, "activate", character="alice")
    gens = [x for x in G.legal_actions(st, a) if x.kind == "generate_quest"]
    # only unused Spring counters for a Spring player; never into an occupied Location
    assert {g.counter for g in gens} == {q.id for q in C.counters_of("spring")}
    assert all(g.target != "nightmares_factory" for g in gens)
    love = {g.target for g in gens if g.counter == "love_that_melts_the_snow"}
    assert love == {"alice", "grumpy"}
    act(st, a, "generate_quest", counter="love_that_melts_the_snow", target="grumpy")
    # the activation ends with the action; the counter moves with Grumpy
    assert G.to_act(st) == [b]
    st.figures["grumpy"].space = "carousel_square"
    assert G.view(st, None).quests[-1].carrier == "grumpy"
    from engines.winter_tales.common import quest_space
    assert quest_space(st, "love_that_melts_the_snow") == "carousel_square"
    assert "love_that_melts_the_snow" in st.used_counters


@pytest.mark.parametrize("counter", [q.id for q in C.quest_counters])
def test_every_quest_type_places_by_its_rule_once_per_game(counter: str) -> None:
    st = started(3, seed=5)
    w = seat_of(st, "writer")
    arrange(st, {w: {"alice": "oaks_park", "wolf": "statue_square"}},
            quests=[BoardQuest(counter="x", quest="a_new_hope", faction="spring",
                               space="fair_of_wonders")], turn=w)
    st.used_counters = []
    act(st, w, "activate", character="alice")
    targets = {g.target for g in G.legal_actions(st, w)
               if g.kind == "generate_quest" and g.counter == counter}
    quest = C.quest(C.quest_counter(counter).quest)
    if quest.placement == "under_fairy_tale":
        assert targets == {"alice"}  # a Fairy Tale figure, not a place
    else:
        locations = {s.id for s in C.map.locations}
        assert targets == locations - {"fair_of_wonders"}  # one Quest per Location
    target = sorted(targets)[0]
    act(st, w, "generate_quest", counter=counter, target=target, text="A Quest is born.")
    assert counter in st.used_counters
    assert st.transcript[-1].kind == "quest" and st.transcript[-1].text == "A Quest is born."
    # never generated twice in one game
    st.figures["alice"].ready = True
    from engines.winter_tales.state import TurnFrame
    st.stack = [TurnFrame(seat=w)]
    act(st, w, "activate", character="alice")
    assert counter not in {g.counter for g in G.legal_actions(st, w)
                           if g.kind == "generate_quest"}


def test_writer_generates_quests_of_either_faction() -> None:
    st = started(3, seed=5)
    w = seat_of(st, "writer")
    arrange(st, {w: {"alice": "oaks_park"}}, turn=w)
    act(st, w, "activate", character="alice")
    gens = {x.counter for x in G.legal_actions(st, w) if x.kind == "generate_quest"}
    assert gens == {q.id for q in C.quest_counters}


def _quest_table(**opts: object) -> tuple[object, int, int, int, int]:
    st = started(4, seed=2, **opts)
    a, b, c, d = st.order
    arrange(st, {a: {"alice": "oaks_park"},
                 b: {"wolf": "oaks_park", "mangiafuoco": "statue_square"},
                 c: {"scarecrow": "lantern_square"},
                 d: {"mad_hatter": "curfew_square"}},
            quests=[BoardQuest(counter="a_new_hope", quest="a_new_hope", faction="spring",
                               space="oaks_park")], turn=a)
    give(st, a, 4)
    give(st, b, 2)
    give(st, c, 2)
    give(st, d, 1)
    return st, a, b, c, d


def test_full_quest_sequence_success_memory_and_bookmark() -> None:
    st, a, b, c, d = _quest_table()
    st.figures["wolf"].ready = False  # already activated: may still step in, being there
    act(st, a, "activate", character="alice", text="Alice wakes in Oaks Park.")
    act(st, a, "start_quest", counter="a_new_hope")
    assert st.ongoing == "a_new_hope" and top(st).stage == "intro"
    act(st, a, "tell", text="A warm light glows under the snow.")
    # clockwise: b may activate a ready character (Mangiafuoco) or pass
    assert G.to_act(st) == [b] and kinds(st, b) == {"activate", "pass"}
    act(st, b, "pass")
    assert G.to_act(st) == [c]
    act(st, c, "activate", character="scarecrow")
    act(st, c, "move", to="oaks_park", card=st.hands[c][0])
    # entering Oaks Park, where Wolf stands: b may start a Battle (Wolf is activated)
    assert G.to_act(st) == [b] and "battle" in kinds(st, b)
    act(st, b, "pass")
    act(st, c, "take_part", text="The Scarecrow arrives.")
    assert "scarecrow" in top(st).participants
    # d's Mad Hatter is ready: d may activate it or pass
    act(st, d, "pass")
    # the Acting Player's plot: Spring side only
    assert top(st).stage == "plot"
    sides = {x.side for x in G.legal_actions(st, a) if x.kind == "play_card"}
    assert sides == {"spring"}
    act(st, a, "play_card", card=st.hands[a][0], side="spring", text="a glowing flower")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    act(st, a, "done")
    # stepping in: b with Wolf (present, already activated), on either side? No: Winter
    # player in a Spring Quest may help or hinder, so both sides are offered.
    assert G.to_act(st) == [b]
    act(st, b, "step_in", character="wolf")
    assert {x.side for x in G.legal_actions(st, b) if x.kind == "play_card"} == {
        "spring", "winter"}
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    # once a side is chosen the part stays on it
    assert {x.side for x in G.legal_actions(st, b) if x.kind == "play_card"} == {"winter"}
    act(st, b, "done")
    act(st, c, "step_in", character="scarecrow")
    assert {x.side for x in G.legal_actions(st, c) if x.kind == "play_card"} == {"spring"}
    act(st, c, "play_card", card=st.hands[c][0], side="spring")
    act(st, c, "done")
    # d has nobody at the Quest: skipped. The Acting Player's last card:
    assert G.to_act(st) == [a] and top(st).stage == "last"
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    assert top(st).stage == "end" and top(st).result == "spring"
    assert top(st).chooser == a  # a played 3 Spring cards, the most
    act(st, a, "tell", text="Spring has a champion.")
    options = G.legal_actions(st, a)
    assert {o.slot for o in options} == {1}
    card = options[0].card
    act(st, a, "choose_memory", card=card, slot=1)
    assert st.memories == [Memory(slot=1, source="quest", card=card, faction="spring",
                                  counter="a_new_hope", chapter=1, placed_by=a)]
    assert st.bookmark == 1 and st.ongoing is None and not st.quests
    assert card not in st.discard and not any(card in h for h in st.hands)
    kinds_told = [e.kind for e in st.transcript]
    assert "memory" in kinds_told and "quest" in kinds_told and "card" in kinds_told
    # the Acting Player's activation is over
    assert G.to_act(st) != [a] or top(st).kind == "turn"


def _run_quest(st: object, a: int, spring: int, winter: int, stepper: int,
               stepper_char: str) -> None:
    """Acting player a plays ``spring`` cards, ``stepper`` hinders with ``winter`` cards."""
    act(st, a, "activate", character="alice")
    act(st, a, "start_quest", counter="a_new_hope")
    act(st, a, "tell")
    while top(st).stage == "join":
        act(st, G.to_act(st)[0], "pass")
    for _ in range(spring):
        act(st, a, "play_card", card=st.hands[a][0], side="spring")
    act(st, a, "done")
    while top(st).stage == "step_in":
        s = G.to_act(st)[0]
        if s == stepper:
            act(st, s, "step_in", character=stepper_char)
            for _ in range(winter):
                act(st, s, "play_card", card=st.hands[s][0], side="winter")
            act(st, s, "done")
        else:
            act(st, s, "pass")
    if top(st).stage == "last":
        act(st, a, "pass")
    act(st, a, "tell")


def test_quest_failure_goes_to_the_opposite_faction() -> None:
    st, a, b, _c, _d = _quest_table()
    give(st, a, 0)
    give(st, b, 3)
    _run_quest(st, a, spring=1, winter=3, stepper=b, stepper_char="wolf")
    q = top(st)
    assert q.result == "winter" and q.chooser == b
    act(st, b, "choose_memory", card=G.legal_actions(st, b)[0].card, slot=1)
    assert st.memories[0].faction == "winter" and st.memories[0].counter == "a_new_hope"


def test_quest_draw_gives_a_neutral_memory_chosen_by_the_acting_player() -> None:
    st, a, b, _c, _d = _quest_table()
    give(st, a, 0)
    give(st, b, 3)
    _run_quest(st, a, spring=2, winter=2, stepper=b, stepper_char="wolf")
    q = top(st)
    assert q.result == "draw" and q.chooser == a
    assert {o.card for o in G.legal_actions(st, a)} == {"neutral_1"}
    act(st, a, "choose_memory", card="neutral_1", slot=1)
    assert st.memories[0].faction is None and st.bookmark == 1


def test_quest_draw_memory_chooser_is_the_writer_when_present() -> None:
    st = started(3, seed=6)
    s0, w0, wr = seat_of(st, "spring"), seat_of(st, "winter"), seat_of(st, "writer")
    arrange(st, {s0: {"alice": "oaks_park"}, w0: {"wolf": "oaks_park"},
                 wr: {"grumpy": "fair_of_wonders"}},
            quests=[BoardQuest(counter="a_new_hope", quest="a_new_hope", faction="spring",
                               space="oaks_park")], turn=s0)
    give(st, s0, 0)
    give(st, w0, 3)
    give(st, wr, 0)
    _run_quest(st, s0, spring=1, winter=1, stepper=w0, stepper_char="wolf")
    assert top(st).result == "draw" and top(st).chooser == wr


def test_quest_skill_adds_one_to_its_faction() -> None:
    st, a, b, c, _d = _quest_table(skill=True)
    give(st, a, 0)
    give(st, b, 3)
    st.figures["scarecrow"].space = "oaks_park"
    act(st, a, "activate", character="alice")
    act(st, a, "start_quest", counter="a_new_hope")
    act(st, a, "tell")
    while top(st).stage == "join":
        act(st, G.to_act(st)[0], "pass")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    act(st, a, "done")
    act(st, b, "step_in", character="wolf")
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    act(st, b, "done")
    act(st, c, "step_in", character="scarecrow")  # Quest skill, takes part
    act(st, c, "done")
    if top(st).stage == "last":
        act(st, a, "pass")
    act(st, a, "tell")
    # 1 card + Scarecrow's +1 = 2 against Wolf's 2 cards: a draw
    assert top(st).result == "draw"


def test_missing_bookmark_link_fails_the_quest() -> None:
    st, a, _b, _c, _d = _quest_table()
    st.memories = [Memory(slot=1, source="quest", card="story_01", faction="spring",
                          counter="the_safe_house")]
    st.bookmark = 1
    give(st, a, 3)
    act(st, a, "activate", character="alice")
    act(st, a, "start_quest", counter="a_new_hope")
    arb = st.arbiter
    assert {"rule_bookmark"} <= {x.kind for x in G.meta_actions(st, arb)}
    other = next(s for s in range(4) if s != arb)
    with pytest.raises(IllegalAction, match="Arbiter"):
        act(st, other, "rule_bookmark", made=False)
    act(st, arb, "rule_bookmark", made=False, text="No link to the Safe House.")
    act(st, a, "tell")
    while top(st).stage == "join":
        act(st, G.to_act(st)[0], "pass")
    for _ in range(3):
        act(st, a, "play_card", card=st.hands[a][0], side="spring")
    act(st, a, "done")
    while top(st).stage == "step_in":
        act(st, G.to_act(st)[0], "pass")
    if top(st).stage == "last":
        act(st, a, "pass")
    act(st, a, "tell")
    assert top(st).result == "winter"
    assert any(e.kind == "ruling" for e in st.transcript)


# --------------------------------------------------------------------------- Battles


def _battle_table(**opts: object) -> tuple[object, int, int, int, int]:
    st = started(4, seed=2, **opts)
    a, b, c, d = st.order
    arrange(st, {a: {"alice": "oaks_park", "tin_man": "fair_of_wonders"},
                 b: {"wolf": "lantern_square"}, c: {}, d: {"mad_hatter": "curfew_square"}},
            turn=a)
    give(st, a, 3)
    give(st, b, 3)
    st.figures["wolf"].ready = False  # an activated Soldier may still start a Battle
    return st, a, b, c, d


def test_battle_won_by_winter_incapacitates_and_may_relocate() -> None:
    st, a, b, _c, _d = _battle_table()
    act(st, a, "activate", character="alice")
    act(st, a, "move", to="lantern_square", card=st.hands[a][0])
    assert G.to_act(st) == [b] and G.view(st, None).optional == [b]
    act(st, b, "battle", character="wolf", text="Wolf bars the way.")
    # the Winter attack round must be a card
    assert "pass" not in kinds(st, b)
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    assert G.to_act(st) == [a] and {x.side for x in G.legal_actions(st, a)
                                     if x.kind == "play_card"} == {"spring"}
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    act(st, a, "pass")
    # Winter played last: the winner tells the end, then may move the Fairy Tale
    assert st.figures["alice"].incapacitated
    act(st, b, "tell", text="Alice is dragged away.")
    assert top(st).kind == "offer" and top(st).offer == "relocate"
    act(st, b, "relocate", space="winter_prison")
    assert st.figures["alice"].space == "winter_prison"
    # movement stopped and the activation ended: Alice can no longer act
    assert G.to_act(st) != [a] or top(st).kind != "activation"


def test_battle_won_by_spring_lets_the_fairy_tale_go_on() -> None:
    st, a, b, _c, _d = _battle_table()
    act(st, a, "activate", character="alice")
    act(st, a, "move", to="lantern_square", card=st.hands[a][0])
    act(st, b, "battle", character="wolf")
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    act(st, b, "pass")
    assert not st.figures["alice"].incapacitated
    act(st, a, "tell")
    assert top(st).kind == "activation" and "move" in kinds(st, a)


def test_battle_ends_when_a_side_has_no_card() -> None:
    st, a, b, _c, _d = _battle_table()
    give(st, b, 1)
    act(st, a, "activate", character="alice")
    act(st, a, "move", to="lantern_square", card=st.hands[a][0])
    act(st, b, "battle", character="wolf")
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    # b has no card left: the Battle is over, Spring played last
    assert not st.figures["alice"].incapacitated and top(st).kind == "tell"


def test_battle_skill_takes_a_round_without_a_card() -> None:
    st, a, b, _c, _d = _battle_table(skill=True)
    act(st, a, "activate", character="alice")
    act(st, a, "move", to="lantern_square", card=st.hands[a][0])
    act(st, b, "battle", character="wolf")
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    before = len(st.hands[b])
    act(st, b, "free_round", character="wolf")
    assert len(st.hands[b]) == before
    assert "free_round" not in kinds(st, b) if G.to_act(st) == [b] else True
    act(st, a, "pass")
    assert st.figures["alice"].incapacitated


# --------------------------------------------------------------------------- Traps


def _trap(spring_hidden: int, winter_hidden: int, winter_plays: int, **opts: object):
    st = started(4, seed=2, **opts)
    a, b, _c, _d = st.order
    arrange(st, {a: {"pinocchio": "oaks_park"},
                 b: {"candlewick": "lantern_square", "wolf": "curfew_square"}}, turn=b)
    st.figures["pinocchio"].ready = False  # activated Fairy Tales may still spring Traps
    give(st, a, 1 + spring_hidden + winter_hidden)
    give(st, b, winter_plays + 1)
    act(st, b, "activate", character="candlewick")
    act(st, b, "move", to="oaks_park", card=st.hands[b][0])
    assert G.to_act(st) == [a]
    act(st, a, "trap", character="pinocchio", text="A hut among the trees.")
    act(st, a, "play_card", card=st.hands[a][0], side="spring", text="a fake letter")
    hidden = []
    for _ in range(spring_hidden):
        hidden.append(st.hands[a][0])
        act(st, a, "hide_card", card=st.hands[a][0], side="spring")
    for _ in range(winter_hidden):
        act(st, a, "hide_card", card=st.hands[a][0], side="winter")
    # only the trap's owner sees the split; others see how many cards lie there
    mine = G.view(st, a)
    theirs = G.view(st, b)
    assert mine.trap_hidden is not None and len(mine.trap_hidden) == spring_hidden + winter_hidden
    assert theirs.trap_hidden == [] and theirs.trap_hidden_count == spring_hidden + winter_hidden
    assert theirs.stack[-1]["kind"] == "trap" and theirs.stack[-1]["hidden"] == []
    assert len(mine.stack[-1]["hidden"]) == spring_hidden + winter_hidden
    for card in hidden:
        assert all(card not in str(e.text) for e in theirs.transcript)
    act(st, a, "done")
    for _ in range(winter_plays):
        act(st, b, "play_card", card=st.hands[b][0], side="winter")
    if top(st).kind == "trap":
        act(st, b, "done")
    return st, a, b


def test_trap_with_more_winter_cards_has_no_effect() -> None:
    st, _a, b = _trap(spring_hidden=1, winter_hidden=1, winter_plays=2)
    assert st.figures["candlewick"].space == "oaks_park"
    assert not st.figures["candlewick"].incapacitated
    act(st, b, "tell")
    assert top(st).kind == "activation" and top(st).character == "candlewick"


def test_trap_draw_blocks_and_sends_the_soldier_back() -> None:
    st, a, _b = _trap(spring_hidden=2, winter_hidden=1, winter_plays=2)
    assert st.figures["candlewick"].space == "lantern_square"
    assert not st.figures["candlewick"].incapacitated
    act(st, a, "tell")
    assert not (top(st) and top(st).kind == "activation" and top(st).stage == "main"
                and not top(st).ended)


def test_trap_with_more_spring_cards_incapacitates() -> None:
    st, _a, _b = _trap(spring_hidden=2, winter_hidden=0, winter_plays=1)
    assert st.figures["candlewick"].incapacitated
    assert st.figures["candlewick"].space == "oaks_park"
    revealed = [e.text for e in st.transcript if e.kind == "trap" and e.text
                and "revealed" in e.text]
    assert revealed and "Spring 2, Winter 1" in revealed[0]


def test_no_trap_when_a_soldier_enters_a_square() -> None:
    st = started(4, seed=2)
    a, b, _c, _d = st.order
    arrange(st, {a: {"pinocchio": "lantern_square"},
                 b: {"candlewick": "mad_hatter_asylum"}}, turn=b)
    give(st, a, 3)
    give(st, b, 1)
    act(st, b, "activate", character="candlewick")
    act(st, b, "move", to="lantern_square", card=st.hands[b][0])
    assert G.to_act(st) == [b] and top(st).kind == "activation"


def test_trap_skill_adds_one() -> None:
    # 1 hidden Spring card + Pinocchio's Trap skill = 2 against 2 Winter cards: a draw
    st, _a, _b = _trap(spring_hidden=1, winter_hidden=0, winter_plays=2, skill=True)
    assert st.figures["candlewick"].space == "lantern_square"
    assert not st.figures["candlewick"].incapacitated


# --------------------------------------------------------------------------- Saves


def test_save_costs_two_cards_and_needs_the_same_space() -> None:
    st, a, b, _c, _d = _four()
    arrange(st, {a: {"alice": "oaks_park", "grumpy": "lantern_square"},
                 b: {"wolf": "curfew_square"}}, turn=a)
    st.figures["alice"].incapacitated = True
    give(st, a, 1)
    act(st, a, "activate", character="grumpy")
    saves = [x for x in G.legal_actions(st, a) if x.kind == "save"]
    # Grumpy is not in Alice's space yet; Alice herself may always try to save herself
    assert [(x.target, x.savior) for x in saves] == [("alice", "alice")]
    act(st, a, "move", to="oaks_park", card=st.hands[a][0])
    saves = [x for x in G.legal_actions(st, a) if x.kind == "save"]
    assert {(x.target, x.savior) for x in saves} == {("alice", "grumpy"), ("alice", "alice")}
    act(st, a, "save", target="alice", savior="grumpy", text="Grumpy lifts her up.")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    assert st.figures["alice"].incapacitated
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    assert not st.figures["alice"].incapacitated
    assert any(e.kind == "save" for e in st.transcript)


def test_an_incapacitated_character_can_only_save_itself() -> None:
    st, a, b, _c, _d = _four()
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "curfew_square"}}, turn=a)
    st.figures["alice"].incapacitated = True
    act(st, a, "activate", character="alice")
    k = kinds(st, a)
    assert "move" not in k and "generate_quest" not in k
    assert [x.savior for x in G.legal_actions(st, a) if x.kind == "save"] == ["alice"]


def test_saves_are_opportunities_on_a_turn_and_during_a_quest() -> None:
    st, a, b, c, _d = _quest_table()
    # c's Scarecrow stands by the incapacitated Grumpy: c may save before any activation
    st.figures["grumpy"].owner, st.figures["grumpy"].space = c, "lantern_square"
    st.figures["grumpy"].incapacitated = True
    act(st, a, "activate", character="alice")
    act(st, a, "start_quest", counter="a_new_hope")
    act(st, a, "tell")
    act(st, b, "pass")
    assert G.to_act(st) == [c]
    assert ("grumpy", "scarecrow") in {(x.target, x.savior) for x in G.legal_actions(st, c)
                                       if x.kind == "save"}
    act(st, c, "save", target="grumpy", savior="scarecrow")
    act(st, c, "play_card", card=st.hands[c][0], side="spring")
    act(st, c, "play_card", card=st.hands[c][0], side="spring")
    assert not st.figures["grumpy"].incapacitated
    # still c's chance to join the Quest
    assert G.to_act(st) == [c] and top(st).stage == "join"


def test_save_skill_costs_one_card() -> None:
    st, a, b, _c, _d = _four()
    st.options.skill = True
    arrange(st, {a: {"alice": "oaks_park", "grandma_dorothy": "oaks_park"},
                 b: {"wolf": "curfew_square"}}, turn=a)
    st.figures["alice"].incapacitated = True
    give(st, a, 0)
    act(st, a, "activate", character="grandma_dorothy")
    act(st, a, "save", target="alice", savior="grandma_dorothy")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    assert not st.figures["alice"].incapacitated


# --------------------------------------------------------------------------- Epilogue


def test_rulebook_epilogue_example() -> None:
    """Seven players; Memories: A New Hope and The Safe House for Spring, Armed
    Retaliation for Winter. Daniele (Winter) placed the last Memory. Spring plays 6 cards,
    Winter 7; the Writer holds 3 cards and may play only 1: Spring wins 12 to 10."""
    st = started(7, seed=7)
    springs = [s for s in st.order if st.factions[s] == "spring"]
    winters = [s for s in st.order if st.factions[s] == "winter"]
    writer = seat_of(st, "writer")
    st.length = 3
    st.memories = [
        Memory(slot=1, source="quest", card="story_01", faction="spring", counter="a_new_hope"),
        Memory(slot=2, source="quest", card="story_02", faction="spring",
               counter="the_safe_house"),
        Memory(slot=3, source="quest", card="story_03", faction="winter",
               counter="armed_retaliation"),
    ]
    daniele = winters[0]
    st.last_placer = daniele
    edoardo, achille, clara = springs
    francesca, benedetta = winters[1], winters[2]
    hands = {daniele: 4, edoardo: 0, francesca: 3, achille: 3, benedetta: 0, clara: 3,
             writer: 3}
    for s, n in hands.items():
        give(st, s, n)
    from engines.winter_tales import epilogue
    epilogue.start(st, daniele, [])
    from engines.winter_tales import flow
    flow.advance(st, [])
    frame = top(st)
    assert isinstance(frame, EpilogueFrame) and frame.order[0] == daniele
    assert frame.order[-1] == writer
    for _ in range(3 * 7):
        seat = G.to_act(st)[0]
        if st.factions[seat] == "writer":
            break
        faction = st.factions[seat]
        while st.hands[seat]:
            act(st, seat, "play_card", card=st.hands[seat][0], side=faction)
        act(st, seat, "done")
    # Daniele 4 + Francesca 3 = 7 Winter; Achille 3 + Clara 3 = 6 Spring
    assert top(st).cards == {"spring": 6, "winter": 7}
    assert top(st).writer_limit == 1
    assert G.view(st, None).writer_limit == 1
    from engines.winter_tales.epilogue import totals
    assert totals(st, top(st)) == {"spring": 12, "winter": 10}  # Spring 2 ahead
    # the Writer could tie only with 2 Winter cards, but may play 1 of its 3
    trial = G.copy_state(st)
    act(trial, writer, "play_card", card=trial.hands[writer][0], side="winter")
    assert "play_card" not in kinds(trial, writer)
    # like Giovanni, the Writer does not step in
    act(st, writer, "done")
    assert st.final == {"spring": 12, "winter": 10}
    act(st, daniele, "tell", text="Up in the branches of a Cherry tree, a green shoot.")
    out = G.outcome(st)
    assert out is not None and out.winners == springs
    assert "Spring 12, Winter 10" in out.reason
    with pytest.raises(GameOver):
        act(st, daniele, "tell")


def _epilogue(players: int, seed: int, memories: list[str | None], plays: dict[str, int],
              starter_faction: str) -> object:
    st = started(players, seed=seed)
    st.length = len(memories)
    st.memories = [Memory(slot=i + 1, source="quest", card=f"story_0{i + 1}", faction=f)
                   for i, f in enumerate(memories)]
    starter = seat_of(st, starter_faction)
    for s in range(players):
        give(st, s, 0)
    for faction, n in plays.items():
        give(st, seat_of(st, faction), n)
    from engines.winter_tales import epilogue, flow
    epilogue.start(st, starter, [])
    flow.advance(st, [])
    for _ in range(30):
        if top(st).stage == "conclusion":
            break
        seat = G.to_act(st)[0]
        side = st.factions[seat] if st.factions[seat] != "writer" else "spring"
        if "play_card" in kinds(st, seat):
            act(st, seat, "play_card", card=st.hands[seat][0], side=side)
        else:
            act(st, seat, "done")
    act(st, G.to_act(st)[0], "tell")
    return st


def test_epilogue_tie_goes_to_the_faction_that_began_it() -> None:
    st = _epilogue(4, 1, ["spring", "winter", None], {"spring": 2, "winter": 2}, "winter")
    assert st.winner == "winter"
    st = _epilogue(4, 1, ["spring", "winter", None], {"spring": 2, "winter": 2}, "spring")
    assert st.winner == "spring"


def test_epilogue_tie_with_a_writer_is_won_by_the_writer() -> None:
    st = _epilogue(3, 1, ["spring", "winter", None], {"spring": 1, "winter": 1}, "spring")
    assert st.final == {"spring": 4, "winter": 4} and st.winner == "writer"
    assert G.outcome(st).winners == [seat_of(st, "writer")]


def test_epilogue_bookmark_option_moves_the_bookmark_after_each_part() -> None:
    st = started(4, seed=3, epilogue_bookmark=True)
    st.length = 2
    st.memories = [Memory(slot=1, source="quest", card="story_01", faction="spring"),
                   Memory(slot=2, source="quest", card="story_02", faction="winter")]
    st.bookmark = 2
    from engines.winter_tales import epilogue, flow
    epilogue.start(st, st.order[0], [])
    flow.advance(st, [])
    act(st, st.order[0], "done", text="linked to the second Memory")
    assert kinds(st, st.order[0]) == {"move_bookmark"}
    act(st, st.order[0], "move_bookmark", slot=1)
    assert st.bookmark == 1


def test_the_last_memory_starts_the_epilogue_and_stops_activations() -> None:
    st, a, _b, _c, _d = _quest_table()
    st.length = 1
    give(st, a, 1)
    act(st, a, "activate", character="alice")
    act(st, a, "start_quest", counter="a_new_hope")
    act(st, a, "tell")
    while top(st).stage == "join":
        act(st, G.to_act(st)[0], "pass")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    act(st, a, "done")
    while top(st).stage == "step_in":
        act(st, G.to_act(st)[0], "pass")
    if top(st).stage == "last":
        act(st, a, "pass")
    act(st, a, "tell")
    act(st, a, "choose_memory", card=G.legal_actions(st, a)[0].card, slot=1)
    assert top(st).kind == "epilogue" and st.epilogue_player == a
    assert len(st.stack) == 1


# --------------------------------------------------------------------------- narration


def test_any_text_is_accepted_where_the_action_is_legal() -> None:
    st, a, b, _c, _d = _four()
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "statue_square"}}, turn=a)
    act(st, a, "activate", character="alice", text="Alice " * 300)
    assert st.transcript[-1].text.startswith("Alice")
    with pytest.raises(IllegalAction, match="too long"):
        act(st, a, "done", text="x" * 1801)
    with pytest.raises(NotYourTurn):
        act(st, b, "done", text="not mine")


def test_views_show_only_your_own_hand() -> None:
    st = started(5, seed=9, objective=True)
    for seat in range(5):
        v = G.view(st, seat)
        assert [c.id for c in v.hand] == st.hands[seat]
        assert v.hand_counts == [len(h) for h in st.hands]
        others = [o for o in v.objectives if o.seat != seat]
        assert others == []
        assert {o.seat for o in v.objectives} == {seat}
    assert G.view(st, None).hand is None
    dumped = G.view(st, 0).model_dump_json()
    for s in range(1, 5):
        for card in st.hands[s]:
            if card not in st.hands[0]:
                assert f'"{card}"' not in dumped


def test_determinize_keeps_counts_and_what_the_seat_knows() -> None:
    st = started(5, seed=9, objective=True)
    other = G.determinize(st, 0, Rng.from_seed(3))
    assert other.hands[0] == st.hands[0]
    assert [len(h) for h in other.hands] == [len(h) for h in st.hands]
    assert len(other.deck) == len(st.deck)
    pool = sorted(st.deck + [c for h in st.hands for c in h])
    assert sorted(other.deck + [c for h in other.hands for c in h]) == pool
    assert [o.card for o in other.objectives if o.seat == 0] == [
        o.card for o in st.objectives if o.seat == 0]
    assert G.view(other, 0) == G.view(st, 0)


# --------------------------------------------------------------------------- self-play


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_storyteller_games_end_and_keep_secrets_out_of_public_events(players: int) -> None:
    from engines.agents import get_agent

    agent = get_agent("winter-tales", "storyteller")
    st = G.setup(players, G.Options(power=True, objective=True, skill=True), players)
    rng = Rng.from_seed(players)
    for _ in range(20_000):
        if G.outcome(st) is not None:
            break
        seat = rng.choice(G.to_act(st))
        action = agent.choose(G, st, seat, rng.spawn())
        # the passage and its storyteller's mark ride on a legal action
        plain = (action.model_copy(update={"text": None, "telling": None})
                 if hasattr(action, "text") else action)
        assert G.legal_actions(st, seat).count(plain) == 1
        for event in G.apply(st, seat, action):
            if event.visible_to is None and event.card is not None:
                # a public event only names a card played face up (or a Memory)
                assert any(e.card == event.card for e in st.transcript) or any(
                    m.card == event.card for m in st.memories), event
            if event.visible_to is not None:
                assert event.seat is None or event.seat in event.visible_to
    out = G.outcome(st)
    assert out is not None and out.reason
    told = [e for e in st.transcript if e.text]
    assert len(told) > 20
    assert len(st.memories) == st.length


def test_illegal_moves_get_specific_reasons_and_change_nothing() -> None:
    st, a, b, _c, _d = _quest_table()
    act(st, a, "activate", character="alice")
    act(st, a, "start_quest", counter="a_new_hope")
    act(st, a, "tell")
    while top(st).stage == "join":
        act(st, G.to_act(st)[0], "pass")
    before = G.dump_state(st)
    not_mine = st.hands[b][0]
    with pytest.raises(IllegalAction, match="not in your hand"):
        act(st, a, "play_card", card=not_mine, side="spring")
    with pytest.raises(IllegalAction, match="spring side"):
        act(st, a, "play_card", card=st.hands[a][0], side="winter")
    with pytest.raises(IllegalAction):
        G.parse_action({"kind": "play_card", "card": 3, "side": "autumn"})
    with pytest.raises(IllegalAction):
        act(st, a, "retell", entry=9999, text="nope")
    assert G.dump_state(st) == before
