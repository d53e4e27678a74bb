"""Winter Tales modules: every Power, Objective and Skill; the Story Arbiter's tools and
table safety (X-card, retelling, striking, rulings)."""

from __future__ import annotations

import pytest

from engines.core import IllegalAction
from engines.winter_tales.state import BoardQuest, HeldObjective, HeldPower, Memory
from tests.test_winter_tales_helpers import G, act, arrange, give, kinds, seat_of, started, top


def _four(**opts: object):
    st = started(4, seed=2, **opts)
    return (st, *st.order)


def _finish_quest(st, a: int, spring_cards: int) -> None:
    """From a started Quest: nobody joins or steps in; ``a`` plays its cards and ends."""
    act(st, a, "tell")
    while top(st).stage == "join":
        act(st, G.to_act(st)[0], "pass")
    for _ in range(spring_cards):
        act(st, a, "play_card", card=st.hands[a][0], side=top(st).faction)
    act(st, a, "done")
    while top(st).stage == "step_in":
        act(st, G.to_act(st)[0], "pass")
    if top(st).stage == "last":
        act(st, a, "pass")
    act(st, a, "tell")
    act(st, a, "choose_memory", card=G.legal_actions(st, a)[0].card,
        slot=G.legal_actions(st, a)[0].slot)


# --------------------------------------------------------------------------- Powers


def test_no_power_without_the_module() -> None:
    st, a, b, _c, _d = _four()
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "curfew_square"}},
            quests=[BoardQuest(counter="the_safe_house", quest="the_safe_house",
                               faction="spring", space="oaks_park")], turn=a)
    give(st, a, 1)
    act(st, a, "activate", character="alice")
    act(st, a, "start_quest", counter="the_safe_house")
    _finish_quest(st, a, 1)
    assert st.powers == []


def test_no_power_when_the_quest_fails_or_draws() -> None:
    """"The Power is activated if the Quest has been successfully completed by its
    Faction": a failed Quest (won by the other side) and a draw grant nothing."""
    for acting_cards, winter_cards, result in ((1, 2, "winter"), (1, 1, "draw")):
        st, a, b, _c, _d = _four(power=True)
        arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "oaks_park"}},
                quests=[BoardQuest(counter="the_safe_house", quest="the_safe_house",
                                   faction="spring", space="oaks_park")], turn=a)
        give(st, a, 0)
        give(st, b, winter_cards)
        act(st, a, "activate", character="alice")
        while len(st.hands[a]) > acting_cards:
            st.deck.append(st.hands[a].pop())
        act(st, a, "start_quest", counter="the_safe_house")
        act(st, a, "tell")
        while top(st).stage == "join":
            act(st, G.to_act(st)[0], "pass")
        act(st, a, "play_card", card=st.hands[a][0], side="spring")
        act(st, a, "done")
        while top(st).stage == "step_in":
            seat = G.to_act(st)[0]
            if seat == b:
                act(st, b, "step_in", character="wolf")
                for _ in range(winter_cards):
                    act(st, b, "play_card", card=st.hands[b][0], side="winter")
                act(st, b, "done")
            else:
                act(st, seat, "pass")
        assert top(st).result == result
        act(st, a, "tell")
        chooser = G.to_act(st)[0]
        choice = G.legal_actions(st, chooser)[0]
        act(st, chooser, "choose_memory", card=choice.card, slot=choice.slot)
        assert st.powers == [] and not any(f.kind == "power" for f in st.stack)


def test_safe_house_power_sends_beaten_fairy_tales_there() -> None:
    st, a, b, _c, _d = _four(power=True)
    arrange(st, {a: {"alice": "oaks_park", "grumpy": "fair_of_wonders"},
                 b: {"wolf": "carousel_square"}},
            quests=[BoardQuest(counter="the_safe_house", quest="the_safe_house",
                               faction="spring", space="oaks_park")], turn=a)
    give(st, a, 1)
    act(st, a, "activate", character="alice")
    act(st, a, "start_quest", counter="the_safe_house")
    _finish_quest(st, a, 1)
    assert [(p.quest, p.holder, p.location) for p in st.powers] == [
        ("the_safe_house", a, "oaks_park")]
    # The Freezing Horror may not be placed in the Safe House
    from engines.winter_tales import quests
    assert "oaks_park" not in quests.placement_targets(st, "freezing_horror")
    # a Fairy Tale losing a Battle goes to the Safe House, standing
    arrange(st, {a: {"grumpy": "fair_of_wonders"}, b: {"wolf": "carousel_square"}}, turn=a)
    st.powers[0].location = "oaks_park"
    give(st, a, 1)
    give(st, b, 1)
    act(st, a, "activate", character="grumpy")
    act(st, a, "move", to="carousel_square", card=st.hands[a][0])
    act(st, b, "battle", character="wolf")
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    act(st, a, "pass")
    assert st.figures["grumpy"].space == "oaks_park"
    assert not st.figures["grumpy"].incapacitated


def test_new_hope_power_reactivates_once_per_chapter() -> None:
    st, a, b, _c, _d = _four(power=True)
    arrange(st, {a: {"alice": "fair_of_wonders", "grumpy": "oaks_park"},
                 b: {"wolf": "curfew_square"}},
            quests=[BoardQuest(counter="a_new_hope", quest="a_new_hope", faction="spring",
                               space="fair_of_wonders")], turn=a)
    give(st, a, 1)
    act(st, a, "activate", character="alice")
    act(st, a, "start_quest", counter="a_new_hope")
    _finish_quest(st, a, 1)
    # the Power counter goes on a Fairy Tale that took part
    assert top(st).kind == "power" and {x.target for x in G.legal_actions(st, a)} == {"alice"}
    act(st, a, "assign_power", target="alice")
    assert G.to_act(st) == [a] and top(st).offer == "new_hope"
    act(st, a, "use_power", counter="a_new_hope", target="alice")
    assert st.figures["alice"].ready
    # next activation of Alice in the same Chapter: no second offer
    st.stack.clear()
    from engines.winter_tales.state import TurnFrame
    st.stack.append(TurnFrame(seat=a))
    act(st, a, "activate", character="alice")
    act(st, a, "done")
    assert not st.figures["alice"].ready
    assert not (top(st) and top(st).kind == "offer")


def test_love_power_moves_the_pair_and_shares_battles() -> None:
    st, a, b, c, _d = _four(power=True)
    arrange(st, {a: {"alice": "oaks_park"}, c: {"grumpy": "oaks_park"},
                 b: {"wolf": "mourners_square"}}, turn=a)
    st.powers = [HeldPower(counter="love_that_melts_the_snow",
                           quest="love_that_melts_the_snow", holder=a, memory_slot=1,
                           characters=["alice", "grumpy"])]
    st.figures["grumpy"].incapacitated = True  # moves along even incapacitated
    give(st, a, 2)
    give(st, b, 2)
    give(st, c, 2)
    act(st, a, "activate", character="alice")
    moves = [x for x in G.legal_actions(st, a) if x.kind == "move"]
    assert {m.partner for m in moves} == {False, True}
    act(st, a, "move", to="mourners_square", card=st.hands[a][0], partner=True)
    assert st.figures["grumpy"].space == "mourners_square"
    act(st, b, "battle", character="wolf")
    assert top(st).spring_seats == [a, c]
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    # both owners of the pair may answer in the Spring round
    assert set(G.to_act(st)) == {a, c}
    act(st, c, "play_card", card=st.hands[c][0], side="spring")
    assert G.to_act(st) == [b]


def test_love_pair_springs_traps_as_one_and_pinocchio_counts() -> None:
    """The united pair plays Traps as one: both owners hide cards, and Pinocchio's Trap
    skill counts when his partner springs the Trap (he is involved in it)."""
    st, a, b, c, _d = _four(power=True, skill=True)
    arrange(st, {a: {"alice": "oaks_park"}, c: {"pinocchio": "oaks_park"},
                 b: {"candlewick": "lantern_square"}}, turn=b)
    st.powers = [HeldPower(counter="love_that_melts_the_snow",
                           quest="love_that_melts_the_snow", holder=a, memory_slot=1,
                           characters=["alice", "pinocchio"])]
    give(st, a, 2)
    give(st, c, 1)
    give(st, b, 0)
    act(st, b, "activate", character="candlewick")
    act(st, b, "move", to="oaks_park", card=st.hands[b][0])
    act(st, a, "trap", character="alice")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    assert set(G.to_act(st)) == {a, c}
    act(st, a, "hide_card", card=st.hands[a][0], side="spring")
    act(st, a, "done")
    act(st, c, "hide_card", card=st.hands[c][0], side="winter")
    act(st, c, "done")
    # Winter answers with 2 cards: Spring 1 hidden + Pinocchio's +1 = 2, a draw
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    assert st.figures["candlewick"].space == "lantern_square"
    assert not st.figures["candlewick"].incapacitated


def test_love_power_is_granted_to_the_carrier_and_a_chosen_fairy_tale() -> None:
    st, a, b, _c, _d = _four(power=True)
    arrange(st, {a: {"alice": "oaks_park", "grumpy": "fair_of_wonders"},
                 b: {"wolf": "curfew_square"}},
            quests=[BoardQuest(counter="love_that_melts_the_snow",
                               quest="love_that_melts_the_snow", faction="spring",
                               carrier="alice")], turn=a)
    give(st, a, 1)
    act(st, a, "activate", character="alice")
    act(st, a, "start_quest", counter="love_that_melts_the_snow")
    _finish_quest(st, a, 1)
    assert {x.target for x in G.legal_actions(st, a)} == {"grumpy"}
    act(st, a, "assign_power", target="grumpy")
    assert st.powers[0].characters == ["alice", "grumpy"]


def test_great_artefact_plays_its_memory_once_per_battle() -> None:
    st, a, b, _c, _d = _four(power=True)
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "lantern_square"}}, turn=a)
    st.memories = [Memory(slot=1, source="quest", card="story_05", faction="winter",
                          counter="the_great_artefact_winter")]
    st.powers = [HeldPower(counter="the_great_artefact_winter", quest="the_great_artefact",
                           holder=b, memory_slot=1, characters=["wolf"])]
    give(st, a, 2)
    give(st, b, 1)
    act(st, a, "activate", character="alice")
    act(st, a, "move", to="lantern_square", card=st.hands[a][0])
    act(st, b, "battle", character="wolf")
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    # no card left, but the Great Artefact's Memory can be played (it stays on the Track)
    assert "use_artefact" in kinds(st, b)
    act(st, b, "use_artefact", character="wolf", text="the eyeglass sees her fear")
    assert st.memories[0].card == "story_05"
    assert top(st).winter_cards == 2 and G.to_act(st) == [a]
    act(st, a, "pass")
    # Winter played last and wins; the Artefact cannot be used twice in one Battle
    assert st.figures["alice"].incapacitated


def test_great_artefact_can_be_handed_over_in_the_same_space() -> None:
    st, a, b, c, _d = _four(power=True)
    arrange(st, {a: {"alice": "oaks_park"}, c: {"grumpy": "oaks_park"},
                 b: {"wolf": "curfew_square"}}, turn=a)
    st.powers = [HeldPower(counter="the_great_artefact_spring", quest="the_great_artefact",
                           holder=a, memory_slot=1, characters=["alice"])]
    act(st, a, "activate", character="alice")
    act(st, a, "pass_artefact", character="grumpy")
    assert st.powers[0].characters == ["grumpy"]


def test_freezing_horror_starts_a_battle_with_its_memory() -> None:
    st, a, b, _c, _d = _four(power=True)
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "curfew_square"}}, turn=b)
    st.figures["wolf"].ready = False
    st.powers = [HeldPower(counter="freezing_horror", quest="freezing_horror", holder=b,
                           memory_slot=1, location="nightmares_factory")]
    give(st, a, 1)
    horror = [x for x in G.legal_actions(st, b) if x.kind == "use_power"]
    assert [(h.space, h.target) for h in horror] == [("oaks_park", "alice")]
    act(st, b, "use_power", counter="freezing_horror", space="oaks_park", target="alice")
    assert st.powers[0].location == "oaks_park"
    frame = top(st)
    assert frame.kind == "battle" and frame.winter_cards == 1 and frame.turn == "spring"
    act(st, a, "pass")
    assert st.figures["alice"].incapacitated


def test_winter_propaganda_exhausts_a_ready_fairy_tale() -> None:
    st, a, b, c, _d = _four(power=True)
    arrange(st, {a: {"alice": "oaks_park", "grumpy": "fair_of_wonders"},
                 b: {"wolf": "curfew_square"}, c: {"tin_man": "puppets_theatre"}}, turn=b)
    st.figures["grumpy"].ready = False
    st.powers = [HeldPower(counter="winter_propaganda", quest="winter_propaganda", holder=b,
                           memory_slot=1)]
    act(st, b, "activate", character="wolf")
    targets = {x.target for x in G.legal_actions(st, b) if x.kind == "use_power"}
    assert targets == {"alice", "tin_man"}
    act(st, b, "use_power", counter="winter_propaganda", target="alice")
    assert not st.figures["alice"].ready


def _retaliation(st, a: int, b: int) -> None:
    give(st, b, 1)
    act(st, b, "activate", character="wolf")
    act(st, b, "start_quest", counter="armed_retaliation")
    _finish_quest(st, b, 1)


def test_armed_retaliation_destroys_a_fairy_tale_which_may_return() -> None:
    st, a, b, _c, _d = _four(power=True)
    arrange(st, {a: {"alice": "oaks_park", "grumpy": "fair_of_wonders"},
                 b: {"wolf": "oaks_park"}},
            quests=[BoardQuest(counter="armed_retaliation", quest="armed_retaliation",
                               faction="winter", carrier="alice")], turn=b)
    _retaliation(st, a, b)
    assert {x.target for x in G.legal_actions(st, b)} == {"alice", "grumpy"}
    act(st, b, "assign_power", target="alice")
    assert st.figures["alice"].removed and st.figures["alice"].space is None
    # The Fairy Tale returns: its owner skips a Turn and plays 3 cards
    from engines.winter_tales.state import TurnFrame
    st.stack = [TurnFrame(seat=a)]
    give(st, a, 3)
    assert "return_tale" in kinds(st, a)
    act(st, a, "return_tale", character="alice", space="dorothys_mansion")
    for _ in range(3):
        act(st, a, "play_card", card=st.hands[a][0], side="spring")
    alice = st.figures["alice"]
    assert not alice.removed and alice.space == "dorothys_mansion" and not alice.ready


def test_armed_retaliation_on_a_power_flips_its_memory() -> None:
    st, a, b, _c, _d = _four(power=True)
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "oaks_park"}},
            quests=[BoardQuest(counter="armed_retaliation", quest="armed_retaliation",
                               faction="winter", carrier="alice")], turn=b)
    st.memories = [Memory(slot=1, source="quest", card="story_09", faction="spring",
                          counter="a_new_hope")]
    st.powers = [HeldPower(counter="a_new_hope", quest="a_new_hope", holder=a,
                           memory_slot=1, characters=["alice"])]
    _retaliation(st, a, b)
    assert "a_new_hope" in {x.target for x in G.legal_actions(st, b)}
    # targeting Alice, who carries a Power counter, destroys the Power instead
    act(st, b, "assign_power", target="alice")
    assert not st.figures["alice"].removed
    assert st.powers == [] and st.memories[0].faction == "winter"


# --------------------------------------------------------------------------- Objectives


def _objective(st, seat: int, card: str) -> HeldObjective:
    from engines.winter_tales.content import load_content
    kind = load_content().objective_card(card).kind
    faction = load_content().objective_type(kind).faction
    st.objectives = [o for o in st.objectives if o.seat != seat]
    obj = HeldObjective(card=card, seat=seat, faction=faction)
    st.objectives.append(obj)
    return obj


def test_objectives_are_dealt_secretly_and_the_writer_gets_two() -> None:
    st = started(5, seed=3, objective=True)
    w = seat_of(st, "writer")
    mine = sorted(o.faction for o in st.objectives if o.seat == w)
    assert mine == ["spring", "winter"]
    for s in range(5):
        if s != w:
            assert [o.faction for o in st.objectives if o.seat == s] == [st.factions[s]]
    assert len(st.objectives) + len(st.objective_deck) == 14


def test_reward_objective_completes_after_a_won_battle() -> None:
    st, a, b, _c, _d = _four(objective=True)
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "lantern_square"}}, turn=a)
    _objective(st, b, "reward_1")
    give(st, a, 1)
    give(st, b, 1)
    act(st, a, "activate", character="alice")
    act(st, a, "move", to="lantern_square", card=st.hands[a][0])
    act(st, b, "battle", character="wolf")
    act(st, b, "play_card", card=st.hands[b][0], side="winter")
    act(st, a, "pass")
    act(st, b, "tell")
    assert top(st).offer == "objective" and G.to_act(st) == [b]
    slots = {x.slot for x in G.legal_actions(st, b) if x.kind == "complete_objective"}
    assert slots == {2, 4}  # the Objective icons within a 5-Memory game
    act(st, b, "complete_objective", objective="reward_1", slot=4, text="A warning to all.")
    assert st.memories == [Memory(slot=4, source="objective", card="reward_1",
                                  faction="winter", objective="reward_1", chapter=1,
                                  placed_by=b)]
    assert "reward_1" in {o.card for o in G.view(st, a).objectives}  # revealed to everyone


def test_spy_objective_needs_two_fairy_tales() -> None:
    st, a, b, c, _d = _four(objective=True)
    arrange(st, {a: {"alice": "oaks_park", "grumpy": "mad_hatter_asylum"},
                 b: {"wolf": "lantern_square"}}, turn=a)
    obj = _objective(st, b, "spy_1")
    give(st, a, 2)
    give(st, b, 0)  # no card: no Battle
    act(st, a, "activate", character="alice")
    act(st, a, "move", to="lantern_square", card=st.hands[a][0])
    assert obj.revealed and not obj.achieved
    assert any(o.card == "spy_1" for o in G.view(st, c).objectives)
    act(st, a, "move", to="oaks_park")
    act(st, a, "move", to="lantern_square", card=st.hands[a][0])
    assert not obj.achieved  # the same Fairy Tale again
    st.stack[-1].ended = True
    st.stack.clear()
    from engines.winter_tales.state import TurnFrame
    st.stack.append(TurnFrame(seat=a))
    give(st, a, 1)
    act(st, a, "activate", character="grumpy")
    act(st, a, "move", to="lantern_square", card=st.hands[a][0])
    assert obj.achieved and top(st).offer == "objective"


def test_attack_objective_discards_two_cards_in_the_location() -> None:
    st, a, b, _c, _d = _four(objective=True)
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "puppets_theatre"}}, turn=b)
    _objective(st, b, "attack_puppets_theatre")
    give(st, b, 0)
    act(st, b, "activate", character="wolf")
    assert "attack_objective" in kinds(st, b)
    act(st, b, "attack_objective", objective="attack_puppets_theatre")
    act(st, b, "discard", card=st.hands[b][0])
    act(st, b, "discard", card=st.hands[b][0])
    assert top(st).offer == "objective"
    act(st, b, "complete_objective", objective="attack_puppets_theatre", slot=2)
    assert st.memories[0].faction == "winter"


def test_garrison_objective_counts_locations() -> None:
    st, a, b, _c, _d = _four(objective=True)
    arrange(st, {a: {"alice": "oaks_park"},
                 b: {"wolf": "puppets_theatre", "mad_hatter": "winter_prison"}}, turn=b)
    _objective(st, b, "garrison")
    act(st, b, "activate", character="wolf")
    assert "complete_objective" in kinds(st, b)
    st.figures["mad_hatter"].space = "curfew_square"  # one Location each: not more
    assert "complete_objective" not in kinds(st, b)


def test_rescue_objective_after_saving_a_fairy_tale() -> None:
    st, a, b, _c, _d = _four(objective=True)
    arrange(st, {a: {"alice": "oaks_park", "grumpy": "oaks_park"},
                 b: {"wolf": "curfew_square"}}, turn=a)
    st.figures["alice"].incapacitated = True
    _objective(st, a, "rescue")
    give(st, a, 0)
    act(st, a, "activate", character="grumpy")
    act(st, a, "save", target="alice", savior="grumpy")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    assert top(st).offer == "objective"
    act(st, a, "pass")
    # passed now, still completable later in an activation
    assert "complete_objective" in kinds(st, a)


def test_resistance_objective_after_a_trap_incapacitates() -> None:
    st, a, b, _c, _d = _four(objective=True)
    arrange(st, {a: {"pinocchio": "oaks_park"}, b: {"candlewick": "lantern_square"}}, turn=b)
    _objective(st, a, "resistance_1")
    give(st, a, 2)
    give(st, b, 1)
    act(st, b, "activate", character="candlewick")
    give(st, b, 1)
    act(st, b, "move", to="oaks_park", card=st.hands[b][0])
    act(st, a, "trap", character="pinocchio")
    act(st, a, "play_card", card=st.hands[a][0], side="spring")
    act(st, a, "hide_card", card=st.hands[a][0], side="spring")
    act(st, a, "done")
    # b has no card: the Trap resolves 1 to 0
    assert st.figures["candlewick"].incapacitated
    act(st, a, "tell")
    assert top(st).offer == "objective" and G.to_act(st) == [a]


def test_connection_objective_in_one_activation() -> None:
    st, a, b, _c, _d = _four(objective=True)
    arrange(st, {a: {"alice": "carousel_square"}, b: {"wolf": "curfew_square"}}, turn=a)
    obj = _objective(st, a, "connection_mansion_asylum")
    give(st, a, 3)
    act(st, a, "activate", character="alice")
    assert not obj.revealed and obj.seen == []
    act(st, a, "move", to="dorothys_mansion", card=st.hands[a][0])
    # moving to one of the Locations reveals the card
    assert obj.revealed and obj.seen == ["dorothys_mansion"] and not obj.achieved
    for to, card in (("carousel_square", False), ("fair_of_wonders", True),
                     ("statue_square", False), ("mad_hatter_asylum", True)):
        act(st, a, "move", to=to, card=st.hands[a][0] if card else None)
    assert obj.achieved and top(st).offer == "objective"


def test_connection_objective_does_not_count_the_starting_location() -> None:
    """"Move through the Locations ... when the Fairy Tale moves to one of them": a
    Fairy Tale starting its activation in one Location has not moved to it."""
    st, a, b, _c, _d = _four(objective=True)
    arrange(st, {a: {"alice": "dorothys_mansion"}, b: {"wolf": "curfew_square"}}, turn=a)
    obj = _objective(st, a, "connection_mansion_asylum")
    give(st, a, 2)
    act(st, a, "activate", character="alice")
    assert not obj.revealed and obj.seen == []
    for to, card in (("carousel_square", True), ("fair_of_wonders", False),
                     ("statue_square", True), ("mad_hatter_asylum", False)):
        act(st, a, "move", to=to, card=st.hands[a][0] if card else None)
    # only the Asylum was reached by moving: revealed, not completed
    assert obj.revealed and obj.seen == ["mad_hatter_asylum"] and not obj.achieved
    # the card stays face up; in another activation it may still be completed
    assert not any(f.kind == "offer" for f in st.stack)


def test_quest_memory_may_overwrite_an_objective_memory() -> None:
    st, a, b, _c, _d = _four(objective=True)
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "curfew_square"}},
            quests=[BoardQuest(counter="a_new_hope", quest="a_new_hope", faction="spring",
                               space="oaks_park")], turn=a)
    st.memories = [Memory(slot=2, source="objective", card="reward_1", faction="winter",
                          objective="reward_1")]
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
    assert {x.slot for x in G.legal_actions(st, a)} == {1, 2}
    card = G.legal_actions(st, a)[0].card
    act(st, a, "choose_memory", card=card, slot=2)
    assert [(m.slot, m.source, m.faction) for m in st.memories] == [(2, "quest", "spring")]


def test_objective_skill_swaps_the_objective() -> None:
    st, a, b, _c, _d = _four(objective=True, skill=True)
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "curfew_square"}}, turn=a)
    _objective(st, a, "rescue")
    st.objective_deck = ["resistance_1", "spy_1"]
    act(st, a, "activate", character="alice")
    swaps = [x for x in G.legal_actions(st, a) if x.kind == "swap_objective"]
    assert [(x.objective, x.new) for x in swaps] == [("rescue", "resistance_1")]
    act(st, a, "swap_objective", objective="rescue", new="resistance_1")
    assert [o.card for o in st.objectives if o.seat == a] == ["resistance_1"]
    assert "swap_objective" not in kinds(st, a)


def test_objective_skill_needs_the_objective_module() -> None:
    st, a, b, _c, _d = _four(skill=True)
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "curfew_square"}}, turn=a)
    act(st, a, "activate", character="alice")
    assert "swap_objective" not in kinds(st, a)


def test_draw_skill_draws_one_more() -> None:
    st, a, b, _c, _d = _four(skill=True)
    arrange(st, {a: {"grumpy": "oaks_park"}, b: {"wolf": "curfew_square"}}, turn=a)
    give(st, a, 0)
    act(st, a, "activate", character="grumpy")
    assert len(st.hands[a]) == 4


# --------------------------------------------------------------------------- Arbiter, safety


def test_x_card_hides_the_passage_and_tells_only_the_arbiter() -> None:
    st, a, b, c, d = _four()
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "curfew_square"}}, turn=a)
    act(st, a, "activate", character="alice", text="Something the table does not want.")
    raiser = c if c != st.arbiter else d
    events = act(st, raiser, "x_card")
    entry = st.transcript[-1]
    assert entry.hidden
    for seat in range(4):
        assert all(e.text != "Something the table does not want."
                   for e in G.view(st, seat).transcript)
    private = [e for e in events if e.visible_to is not None]
    assert [e.visible_to for e in private] == [(st.arbiter,)]
    assert all(e.seat is None and raiser not in e.who for e in events)
    assert all(f"P{raiser}" not in e.text(lambda s: f"P{s}") for e in events)
    # the author retells it; nobody else can
    with pytest.raises(IllegalAction):
        act(st, b, "retell", entry=entry.n, text="another way")
    act(st, a, "retell", entry=entry.n, text="Alice hums a song instead.")
    assert not st.transcript[entry.n].hidden
    assert G.view(st, b).transcript[-1].text == "Alice hums a song instead."


def test_arbiter_strikes_and_asks_for_retelling() -> None:
    st, a, b, _c, _d = _four()
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "curfew_square"}}, turn=a)
    act(st, a, "activate", character="alice", text="First passage.")
    arb = st.arbiter
    n = st.transcript[-1].n
    not_arbiter = next(s for s in range(4) if s != arb)
    with pytest.raises(IllegalAction, match="Arbiter"):
        act(st, not_arbiter, "strike", entry=n)
    act(st, arb, "ask_retell", entry=n, text="please keep it lighter")
    assert st.transcript[n].hidden
    act(st, arb, "strike", entry=n)
    assert st.transcript[n].struck and st.transcript[n].text == "First passage."
    assert all(e.n != n for e in G.view(st, None).transcript)
    rulings = [e for e in st.transcript if e.kind == "ruling"]
    assert len(rulings) == 2 and all(e.seat == arb for e in rulings)


def test_arbiter_corrects_a_figure_and_a_count() -> None:
    st, a, b, _c, _d = _four()
    arrange(st, {a: {"alice": "oaks_park"}, b: {"wolf": "curfew_square"}},
            quests=[BoardQuest(counter="a_new_hope", quest="a_new_hope", faction="spring",
                               space="oaks_park")], turn=a)
    arb = st.arbiter
    act(st, arb, "correct_figure", character="wolf", space="oaks_park", incapacitated=True,
        text="the table agrees Wolf was caught")
    assert st.figures["wolf"].space == "oaks_park" and st.figures["wolf"].incapacitated
    give(st, a, 0)
    act(st, a, "activate", character="alice")
    act(st, a, "start_quest", counter="a_new_hope")
    act(st, arb, "correct_count", faction="spring", delta=1)
    assert G.view(st, None).ongoing_count == {"spring": 1, "winter": 0}
    assert sum(e.kind == "ruling" for e in st.transcript) == 2


def test_narration_out_of_turn_needs_text() -> None:
    st, _a, b, _c, _d = _four()
    act(st, b, "narrate", text="Meanwhile, snow fell on the Fair.")
    assert st.transcript[-1].text == "Meanwhile, snow fell on the Fair."
    with pytest.raises(IllegalAction):
        act(st, b, "narrate")


def test_copies_share_no_changeable_story() -> None:
    """copy_state shares transcript entries; rulings and new passages on the copy must not
    reach the original (entries are replaced, never changed in place)."""
    st, a, b, _c, _d = _four()
    act(st, a, "narrate", text="The snow fell on the Prison roofs.")
    act(st, b, "narrate", text="Wolf watched from the tower.")
    first, second = st.transcript[-2].n, st.transcript[-1].n
    twin = G.copy_state(st)
    assert G.dump_state(twin) == G.dump_state(st)
    act(twin, twin.arbiter, "strike", entry=first)
    act(twin, a, "x_card")
    act(twin, a, "narrate", text="Only in the copy.")
    assert twin.transcript[first].struck and twin.transcript[second].hidden
    assert not st.transcript[first].struck and not st.transcript[second].hidden
    assert st.transcript[first].text == "The snow fell on the Prison roofs."
    assert len(twin.transcript) == len(st.transcript) + 2  # the ruling and the passage
