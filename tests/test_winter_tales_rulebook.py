"""The Winter Tales rulebook's worked examples, replayed move by move on the engine.

Each test names the example it follows; the table is arranged as the example describes it
(who controls which character where, who holds how many cards), then the example's moves
are played and its stated results checked.
"""

from __future__ import annotations

from engines.winter_tales.chapters import route
from engines.winter_tales.state import BoardQuest
from tests.test_winter_tales_helpers import G, act, arrange, give, kinds, seat_of, started, top


def _seven() -> tuple[object, dict[str, int]]:
    """Seven players named as in the examples: Spring Edoardo, Achille, Clara; Winter
    Francesca, Benedetta, Daniele; Giovanni the Writer."""
    st = started(7, seed=3)
    springs = [s for s in st.order if st.factions[s] == "spring"]
    winters = [s for s in st.order if st.factions[s] == "winter"]
    names = {"edoardo": springs[0], "achille": springs[1], "clara": springs[2],
             "francesca": winters[0], "benedetta": winters[1], "daniele": winters[2],
             "giovanni": seat_of(st, "writer")}
    return st, names


# --------------------------------------------------------------------------- movement


def test_movement_costs_of_the_examples() -> None:
    """Grumpy, Fair of Wonders to Nightmares Factory: a card to the Square and the Asylum,
    another to a Square and the Factory. The Tin Man, Winter Prison to the Factory: one
    card. Dorothy, Memory Lane Cemetery to the Factory: three cards. Dorothy, Oaks Park to
    the Cemetery through one Square: one card."""
    st = started(4, seed=1)
    a, b, _c, _d = st.order
    arrange(st, {a: {"grumpy": "fair_of_wonders", "tin_man": "winter_prison",
                     "grandma_dorothy": "memory_lane_cemetery"},
                 b: {"wolf": "curfew_square"}}, turn=a)
    path, cost = route(st, "grumpy", "nightmares_factory")
    assert cost == 2 and len(path) == 4
    assert [space_kind(p) for p in path] == ["square", "location", "square", "location"]
    assert path[1] == "mad_hatter_asylum"
    assert route(st, "tin_man", "nightmares_factory")[1] == 1
    assert route(st, "grandma_dorothy", "nightmares_factory")[1] == 3
    st.figures["grandma_dorothy"].space = "oaks_park"
    path, cost = route(st, "grandma_dorothy", "memory_lane_cemetery")
    assert cost == 1 and [space_kind(p) for p in path] == ["square", "location"]
    # played for real: two discards take Grumpy the four spaces, no third is needed
    give(st, a, 2)
    act(st, a, "activate", character="grumpy")
    hand = len(st.hands[a])
    for i, space in enumerate(["statue_square", "mad_hatter_asylum", "soot_square",
                               "nightmares_factory"]):
        card = st.hands[a][0] if i % 2 == 0 else None
        act(st, a, "move", to=space, card=card)
    assert st.figures["grumpy"].space == "nightmares_factory"
    assert len(st.hands[a]) == hand - 2


def space_kind(space: str) -> str:
    from engines.winter_tales.content import load_content

    return load_content().map.space(space).kind


# --------------------------------------------------------------------------- Quests


def test_quest_generation_example() -> None:
    """Edoardo activates Pinocchio, draws 3 and generates the Great Artefact: not in the
    Nightmares Factory (the Freezing Horror is there), but Oaks Park or the Fair of Wonders
    would do; he places it at the Fair of Wonders, Spring side."""
    st = started(4, seed=1)
    a, b, _c, _d = st.order
    arrange(st, {a: {"pinocchio": "winter_prison"}, b: {"wolf": "curfew_square"}},
            quests=[BoardQuest(counter="freezing_horror", quest="freezing_horror",
                               faction="winter", space="nightmares_factory")], turn=a)
    give(st, a, 0)
    act(st, a, "activate", character="pinocchio")
    assert len(st.hands[a]) == 3
    targets = {x.target for x in G.legal_actions(st, a)
               if x.kind == "generate_quest" and x.counter == "the_great_artefact_spring"}
    assert "nightmares_factory" not in targets
    assert {"oaks_park", "fair_of_wonders"} <= targets
    # a Spring character generates only Spring Quests
    counters = {x.counter for x in G.legal_actions(st, a) if x.kind == "generate_quest"}
    assert "the_great_artefact_winter" not in counters and "freezing_horror" not in counters
    act(st, a, "generate_quest", counter="the_great_artefact_spring", target="fair_of_wonders",
        text="They needed a relic to inspire the Resistance.")
    q = next(q for q in st.quests if q.counter == "the_great_artefact_spring")
    assert q.space == "fair_of_wonders" and q.faction == "spring"
    # each Quest is generated once per game
    assert "the_great_artefact_spring" in st.used_counters


def test_quest_facing_example_a_new_hope() -> None:
    """The "A New Hope" example, from Grumpy's walk to the count (Spring 6, Winter 5)."""
    st, p = _seven()
    ed, fr, gi, ac, be, cl, da = (p[k] for k in ("edoardo", "francesca", "giovanni",
                                                 "achille", "benedetta", "clara", "daniele"))
    arrange(st, {ed: {"grumpy": "fair_of_wonders"},
                 fr: {"white_rabbit": "nightmares_factory", "fox_and_cat": "soot_square"},
                 gi: {"little_match_girl": "puppets_theatre", "mad_hatter": "ribbon_square"},
                 ac: {"tin_man": "winter_prison"},
                 be: {"candlewick": "siren_square", "wolf": "parade_square"},
                 cl: {"grandma_dorothy": "memory_lane_cemetery"},
                 da: {"snow_white": "curfew_square", "mangiafuoco": "icicle_square"}},
            quests=[BoardQuest(counter="a_new_hope", quest="a_new_hope", faction="spring",
                               space="nightmares_factory")], turn=ed)
    for ch in ("white_rabbit", "fox_and_cat", "wolf", "candlewick", "snow_white"):
        st.figures[ch].ready = False  # already activated this Chapter
    give(st, ed, 1)
    give(st, fr, 5)
    give(st, gi, 2)
    give(st, ac, 2)
    give(st, be, 0)
    give(st, cl, 1)
    give(st, da, 0)
    act(st, ed, "activate", character="grumpy")
    assert len(st.hands[ed]) == 4  # draws 3
    # Grumpy passes the Square where no Soldier stands, then the Asylum, and so on
    act(st, ed, "move", to="statue_square", card=st.hands[ed][0])
    act(st, ed, "move", to="mad_hatter_asylum")
    act(st, ed, "move", to="soot_square", card=st.hands[ed][0])
    # Francesca's Fox and the Cat stand in this Square: she may start a Battle
    assert G.to_act(st) == [fr] and "battle" in kinds(st, fr)
    act(st, fr, "pass")
    act(st, ed, "move", to="nightmares_factory")
    # the White Rabbit is there too: another chance for a Battle, declined
    act(st, fr, "pass")
    act(st, ed, "start_quest", counter="a_new_hope")
    act(st, ed, "tell", text="Grumpy follows the floating petal through the Fair.")
    # activation of more characters, clockwise from Edoardo's left
    asked: list[int] = []
    while top(st).kind == "quest" and top(st).stage == "join":
        seat = G.to_act(st)[0]
        asked.append(seat)
        if seat == ac:
            act(st, ac, "activate", character="tin_man")
            assert len(st.hands[ac]) == 5
            act(st, ac, "move", to="siren_square", card=st.hands[ac][0])
            # Candlewick is here but Benedetta has no Story card: no Battle is offered
            assert G.to_act(st) == [ac]
            act(st, ac, "move", to="nightmares_factory")
            # the White Rabbit stands in the Factory: Francesca could fight; she does not
            assert G.to_act(st) == [fr]
            act(st, fr, "pass")
            act(st, ac, "take_part", text="Something was alive here...")
        else:
            act(st, seat, "pass")
    # Francesca (all activated) and Benedetta (no ready character) are not asked
    assert asked == [s for s in _clockwise(st, ed) if s in (gi, ac, cl, da)]
    # the Acting Player's plot: one card, Spring side
    assert top(st).stage == "plot" and G.to_act(st) == [ed]
    act(st, ed, "play_card", card=st.hands[ed][0], side="spring", text="reassuring glow")
    act(st, ed, "done")
    # other players step in: Francesca with the White Rabbit (activated, but there)
    stepped: list[int] = []
    while top(st).stage == "step_in":
        seat = G.to_act(st)[0]
        stepped.append(seat)
        if seat == fr:
            act(st, fr, "step_in", character="white_rabbit")
            for _ in range(5):
                act(st, fr, "play_card", card=st.hands[fr][0], side="winter")
            act(st, fr, "done")
        elif seat == ac:
            act(st, ac, "step_in", character="tin_man")
            while st.hands[ac] and top(st).cards["spring"] < 5:
                act(st, ac, "play_card", card=st.hands[ac][0], side="spring")
            act(st, ac, "done")
        else:
            raise AssertionError(f"seat {seat} has no character at the Factory")
    # only those with a character at the Factory are asked (Giovanni's are elsewhere)
    assert stepped == [s for s in _clockwise(st, ed) if s in (fr, ac)]
    # Edoardo's last card
    assert top(st).stage == "last"
    act(st, ed, "play_card", card=st.hands[ed][0], side="spring",
        text="the champion the Fairy Tales had been waiting for")
    q = top(st)
    assert q.cards == {"spring": 6, "winter": 5} and q.result == "spring"
    # Achille played 4 Spring cards, the most for the winning Faction: he chooses
    assert q.chooser == ac
    act(st, ed, "tell", text="Spring now had a champion on its side.")
    choice = G.legal_actions(st, ac)[0]
    act(st, ac, "choose_memory", card=choice.card, slot=choice.slot)
    assert st.memories[0].faction == "spring" and st.memories[0].counter == "a_new_hope"
    assert st.memories[0].slot == 1 and st.bookmark == 1
    assert st.ongoing is None and not st.quests


def _clockwise(st: object, seat: int) -> list[int]:
    from engines.winter_tales.common import others_clockwise

    return others_clockwise(st, seat)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- Battle


def test_battle_example_mad_hatter_stops_dorothy() -> None:
    """Clara moves Dorothy from Oaks Park towards the Cemetery; in the Square between them
    Daniele's Mad Hatter blocks her and starts a Battle. The last card played wins."""
    st = started(4, seed=1)
    clara, daniele, _c, _d = st.order
    arrange(st, {clara: {"grandma_dorothy": "oaks_park"},
                 daniele: {"mad_hatter": "mourners_square"}}, turn=clara)
    give(st, clara, 1)
    give(st, daniele, 2)
    act(st, clara, "activate", character="grandma_dorothy")
    act(st, clara, "move", to="mourners_square", card=st.hands[clara][0])
    assert G.to_act(st) == [daniele]
    act(st, daniele, "battle", character="mad_hatter")
    # Winter attack round: one card on the Winter side, no passing before it
    assert "pass" not in kinds(st, daniele)
    assert {x.side for x in G.legal_actions(st, daniele) if x.kind == "play_card"} == {"winter"}
    act(st, daniele, "play_card", card=st.hands[daniele][0], side="winter")
    assert {x.side for x in G.legal_actions(st, clara) if x.kind == "play_card"} == {"spring"}
    act(st, clara, "play_card", card=st.hands[clara][0], side="spring")
    act(st, daniele, "play_card", card=st.hands[daniele][0], side="winter")
    act(st, clara, "pass")
    # Winter played last: Dorothy's movement stops and she is incapacitated
    dorothy = st.figures["grandma_dorothy"]
    assert dorothy.incapacitated and dorothy.space == "mourners_square"


# --------------------------------------------------------------------------- Trap


def test_trap_example_candlewick_and_the_fake_letter() -> None:
    """Benedetta moves Candlewick from the Square between the Asylum and Oaks Park towards
    the Cemetery; Achille's Alice springs a Trap in Oaks Park with a fake letter, hides 2
    cards Spring side up and 1 Winter side up; Benedetta defends with 2 cards: a draw.
    Candlewick's movement is blocked (back where it started) but he is not incapacitated."""
    st = started(4, seed=1)
    achille, benedetta, _c, _d = st.order
    arrange(st, {achille: {"alice": "oaks_park"},
                 benedetta: {"candlewick": "lantern_square"}}, turn=benedetta)
    give(st, achille, 4)
    give(st, benedetta, 0)
    act(st, benedetta, "activate", character="candlewick")
    assert len(st.hands[benedetta]) == 3
    act(st, benedetta, "move", to="oaks_park", card=st.hands[benedetta][0])
    assert G.to_act(st) == [achille]
    act(st, achille, "trap", character="alice")
    act(st, achille, "play_card", card=st.hands[achille][0], side="spring",
        text="a fake letter")
    cards = list(st.hands[achille])
    assert len(cards) == 3
    act(st, achille, "hide_card", card=cards[0], side="spring")
    act(st, achille, "hide_card", card=cards[1], side="spring")
    act(st, achille, "hide_card", card=cards[2], side="winter")
    act(st, achille, "done")
    # Benedetta does not know how many count: her view shows only how many lie there
    v = G.view(st, benedetta)
    assert v.trap_hidden_count == 3 and not v.trap_hidden
    assert G.to_act(st) == [benedetta]
    act(st, benedetta, "play_card", card=st.hands[benedetta][0], side="winter")
    act(st, benedetta, "play_card", card=st.hands[benedetta][0], side="winter")
    # her hand is empty now, so the Trap is revealed at once
    assert not st.hands[benedetta] and top(st).kind == "tell"
    candlewick = st.figures["candlewick"]
    assert candlewick.space == "lantern_square" and not candlewick.incapacitated
    # the Trap card and every card of both rounds are discarded
    assert set(cards) <= set(st.discard)
    act(st, achille, "tell", text="He forgot why he had wanted to reach Memory Lane.")
    # the activation ended there
    assert not any(f.kind == "activation" for f in st.stack)


# --------------------------------------------------------------------------- Save


def test_save_example_scarecrow_frees_dorothy() -> None:
    """Edoardo activates the Scarecrow, draws 3, moves him from the Puppets Theatre to
    Winter Prison where the incapacitated Dorothy lies, and saves her with 2 cards."""
    st = started(4, seed=1)
    edoardo, b, _c, _d = st.order
    arrange(st, {edoardo: {"scarecrow": "puppets_theatre", "grandma_dorothy": "winter_prison"},
                 b: {"wolf": "parade_square"}}, turn=edoardo)
    st.figures["grandma_dorothy"].incapacitated = True
    give(st, edoardo, 0)
    act(st, edoardo, "activate", character="scarecrow")
    act(st, edoardo, "move", to="curfew_square", card=st.hands[edoardo][0])
    act(st, edoardo, "move", to="winter_prison")
    assert any(x.kind == "save" and x.target == "grandma_dorothy" and x.savior == "scarecrow"
               for x in G.legal_actions(st, edoardo))
    act(st, edoardo, "save", target="grandma_dorothy", savior="scarecrow")
    act(st, edoardo, "play_card", card=st.hands[edoardo][0], side="spring")
    assert st.figures["grandma_dorothy"].incapacitated  # one card is not enough
    act(st, edoardo, "play_card", card=st.hands[edoardo][0], side="spring")
    assert not st.figures["grandma_dorothy"].incapacitated
    assert not st.hands[edoardo]


# --------------------------------------------------------------------------- rules by section


def _draft(players: int, seed: int) -> object:
    st = G.setup(players, G.Options(), seed)
    while top(st).kind == "draft":
        seat = G.to_act(st)[0]
        G.apply(st, seat, G.legal_actions(st, seat)[0])
    return st


def test_setup_starting_quests_and_opening_story() -> None:
    """One Spring and one Winter Quest counter at random; the youngest Spring player places
    the Spring one, then the youngest Winter player the Winter one (the Writer places both
    when present); then the Writer, else the Story Arbiter, opens the story; then hands."""
    for players in (4, 6):
        st = _draft(players, seed=players)
        first_spring = seat_of(st, "spring")
        first_winter = seat_of(st, "winter")
        assert top(st).kind == "place_quest" and G.to_act(st) == [first_spring]
        spring_counter = top(st).counter
        assert spring_counter in {"a_new_hope", "love_that_melts_the_snow", "the_safe_house",
                                  "the_great_artefact_spring"}
        assert all(not h for h in st.hands)  # no card before the opening story
        act(st, first_spring, "place_quest", counter=spring_counter,
            target=G.legal_actions(st, first_spring)[0].target)
        assert G.to_act(st) == [first_winter]
        assert top(st).counter in {"freezing_horror", "winter_propaganda", "armed_retaliation",
                                   "the_great_artefact_winter"}
        act(st, first_winter, "place_quest", counter=top(st).counter,
            target=G.legal_actions(st, first_winter)[0].target)
        assert top(st).kind == "tell" and G.to_act(st) == [st.arbiter]
        act(st, st.arbiter, "tell", text="Two threads of the story begin.")
        assert [len(h) for h in st.hands] == [4] * players
        assert st.acting == first_spring and st.chapter == 1
    st = _draft(5, seed=1)
    writer = seat_of(st, "writer")
    assert G.to_act(st) == [writer]
    act(st, writer, "place_quest", counter=top(st).counter,
        target=G.legal_actions(st, writer)[0].target)
    assert G.to_act(st) == [writer] and top(st).kind == "place_quest"
    act(st, writer, "place_quest", counter=top(st).counter,
        target=G.legal_actions(st, writer)[0].target)
    assert top(st).kind == "tell" and G.to_act(st) == [writer]
    act(st, writer, "tell")
    assert len(st.hands[writer]) == 2 and all(
        len(st.hands[s]) == 4 for s in range(5) if s != writer)


def test_a_player_without_ready_characters_is_passed_over() -> None:
    """The Acting Player counter passes clockwise to the next player with a ready
    character; the Chapter ends when every character has been activated, then everyone
    draws 4 (the Writer as many as there are players in one Faction) and all are ready."""
    st = started(5, seed=2)
    order = st.order
    s0, s1, s2, s3, writer = order
    assert st.factions[writer] == "writer"
    arrange(st, {s0: {"alice": "oaks_park"}, s1: {"wolf": "curfew_square"},
                 s2: {"grumpy": "fair_of_wonders"}, s3: {"snow_white": "siren_square"},
                 writer: {"tin_man": "winter_prison", "mad_hatter": "soot_square"}}, turn=s0)
    st.figures["wolf"].ready = False
    st.figures["grumpy"].ready = False
    for s in order:
        give(st, s, 0)
    act(st, s0, "activate", character="alice")
    act(st, s0, "done")
    # s1 and s2 have activated everything: s3 is next
    assert G.to_act(st) == [s3] and st.acting == s3
    act(st, s3, "activate", character="snow_white")
    act(st, s3, "done")
    assert G.to_act(st) == [writer]
    act(st, writer, "activate", character="tin_man")
    act(st, writer, "done")
    # back round the table: only the Writer has a ready character left
    assert G.to_act(st) == [writer] and st.chapter == 1
    act(st, writer, "activate", character="mad_hatter")
    hands = [len(h) for h in st.hands]
    act(st, writer, "done")
    assert st.chapter == 2
    assert all(f.ready for f in st.figures.values() if f.owner is not None)
    for s in order:
        assert len(st.hands[s]) == hands[s] + (2 if s == writer else 4)


def test_writer_limit_is_half_the_hand_rounded_down_and_writer_goes_last() -> None:
    """The Writer steps in last (even after placing the last Memory) and plays at most half
    of the cards held, rounded down: 5 cards, at most 2."""
    from engines.winter_tales import epilogue, flow
    from engines.winter_tales.state import Memory

    st = started(3, seed=4)
    writer = seat_of(st, "writer")
    st.memories = [Memory(slot=i, source="quest", card=f"story_0{i}", faction=f)
                   for i, f in ((1, "spring"), (2, "winter"), (3, None))]
    for s in range(3):
        give(st, s, 0)
    give(st, writer, 5)
    st.last_placer = writer
    epilogue.check(st, [])
    flow.advance(st, [])
    frame = top(st)
    assert frame.order[-1] == writer and frame.order[0] != writer
    assert G.to_act(st) == [writer] and frame.writer_limit == 2
    act(st, writer, "play_card", card=st.hands[writer][0], side="winter")
    act(st, writer, "play_card", card=st.hands[writer][0], side="winter")
    assert kinds(st, writer) == {"done"} and len(st.hands[writer]) == 3
    act(st, writer, "done")
    assert st.final == {"spring": 3, "winter": 5}
    act(st, writer, "tell")
    assert st.winner == "winter"


def test_objective_memory_does_not_take_the_bookmark() -> None:
    """The Bookmark marks "the card identifying the last finished Quest": an Objective
    Memory goes on an Objective space but the Bookmark stays on the Quest Memory."""
    from engines.winter_tales import objectives
    from engines.winter_tales.state import HeldObjective, Memory

    st = started(4, seed=2, objective=True)
    a = st.order[0]
    st.memories = [Memory(slot=1, source="quest", card="story_01", faction="spring",
                          counter="a_new_hope")]
    st.bookmark = 1
    st.objectives = [HeldObjective(card=st.objectives[0].card, seat=a, faction="spring",
                                   achieved=True)]
    slots = {x.slot for x in objectives.complete_options(st, a)}
    assert slots == {2, 4}  # Objective icons before the Epilogue tile of a 5-Memory game
    objectives.complete(st, a, st.objectives[0].card, 2, "A note left at the Fair.", [])
    assert st.bookmark == 1 and st.memories[-1].source == "objective"


def test_a_carried_quest_counter_fills_its_location() -> None:
    """"Each Location may contain at most one Quest counter": a counter under a figure
    standing in a Location counts, for new counters there and for placing one under a
    figure in a Location that already holds one."""
    st = started(4, seed=1)
    a, b, _c, _d = st.order
    arrange(st, {a: {"alice": "oaks_park", "grumpy": "fair_of_wonders",
                     "tin_man": "lantern_square"},
                 b: {"wolf": "curfew_square"}},
            quests=[BoardQuest(counter="love_that_melts_the_snow",
                               quest="love_that_melts_the_snow", faction="spring",
                               carrier="alice"),
                    BoardQuest(counter="freezing_horror", quest="freezing_horror",
                               faction="winter", space="fair_of_wonders")], turn=a)
    from engines.winter_tales.quests import placement_targets

    assert "oaks_park" not in placement_targets(st, "a_new_hope")
    assert "fair_of_wonders" not in placement_targets(st, "a_new_hope")
    under = placement_targets(st, "armed_retaliation")
    assert "grumpy" not in under and "alice" not in under and "tin_man" in under


def test_story_cards_are_never_lost_or_duplicated_in_play() -> None:
    """Through random games with every module: every Story card is always in exactly one
    place (deck, discards, a hand, under a character card in a Trap, played in the Ongoing
    Quest, or on the Memory Track), and the board keeps its limits (one counter per
    Location, each counter once, Objective Memories only on Objective spaces)."""
    from engines.core import Rng
    from engines.winter_tales.content import load_content

    c = load_content()
    story = sorted(card.id for card in c.story_cards)
    icons = set(c.memory_track.objective_spaces)
    for seed, players in ((1, 3), (6, 5), (11, 7)):
        st = G.setup(players, G.Options(power=True, objective=True, skill=True), seed)
        chooser = Rng.from_seed(seed)
        for _ in range(4000):
            if G.outcome(st) is not None:
                break
            seat = chooser.choice(G.to_act(st))
            G.apply(st, seat, chooser.choice(G.legal_actions(st, seat)))
            cards = [*st.deck, *st.discard, *(x for h in st.hands for x in h)]
            for f in st.stack:
                if f.kind == "trap":
                    cards += [x for x, _, _ in f.hidden] + f.winter_cards
                    cards += [f.trap_card] if f.trap_card else []
                elif f.kind == "quest":
                    cards += f.played
            cards += [m.card for m in st.memories if m.card in story]
            assert sorted(cards) == story, f"seed {seed}, ply {st.ply}"
            placed = [q.space for q in st.quests if q.carrier is None]
            assert len(placed) == len(set(placed))
            assert len(st.used_counters) == len(set(st.used_counters))
            assert all(m.slot in icons for m in st.memories if m.source == "objective")
            assert all(1 <= m.slot <= st.length for m in st.memories)
        assert G.outcome(st) is not None


def test_golden_rule_example_alice_meets_the_love_counter_under_the_scarecrow() -> None:
    """Golden Rule 1's example: Alice moves to Oaks Park, where the "Love that melts the
    snow" counter is (under the Scarecrow), and faces the Quest there; the Freezing Horror
    had just been generated in the Asylum."""
    st = started(4, seed=1)
    achille, b, clara, _d = st.order
    arrange(st, {achille: {"alice": "lantern_square"}, clara: {"scarecrow": "oaks_park"},
                 b: {"wolf": "curfew_square"}},
            quests=[BoardQuest(counter="love_that_melts_the_snow",
                               quest="love_that_melts_the_snow", faction="spring",
                               carrier="scarecrow"),
                    BoardQuest(counter="freezing_horror", quest="freezing_horror",
                               faction="winter", space="mad_hatter_asylum")], turn=achille)
    give(st, achille, 1)
    act(st, achille, "activate", character="alice",
        text="Alice slipped out of her cell and ran from the Asylum.")
    assert "start_quest" not in kinds(st, achille)  # the counter is not where she is
    act(st, achille, "move", to="oaks_park", card=st.hands[achille][0])
    starts = [x for x in G.legal_actions(st, achille) if x.kind == "start_quest"]
    assert [x.counter for x in starts] == ["love_that_melts_the_snow"]
    act(st, achille, "start_quest", counter="love_that_melts_the_snow")
    assert st.ongoing == "love_that_melts_the_snow" and top(st).space == "oaks_park"


def test_bookmark_example_snow_white_links_to_a_new_hope() -> None:
    """The Bookmark example: in the next Chapter Giovanni (the Writer) activates Snow White
    in the Puppets Theatre to face the Freezing Horror at Memory Lane Cemetery; she draws 3,
    links her plot to the bookmarked A New Hope Memory, moves (two cards) and begins."""
    from engines.winter_tales.state import Memory

    st = started(5, seed=1)
    giovanni = seat_of(st, "writer")
    spring = seat_of(st, "spring")
    arrange(st, {giovanni: {"snow_white": "puppets_theatre", "grumpy": "fair_of_wonders"},
                 spring: {"tin_man": "nightmares_factory"}},
            quests=[BoardQuest(counter="freezing_horror", quest="freezing_horror",
                               faction="winter", space="memory_lane_cemetery")],
            turn=giovanni)
    st.memories = [Memory(slot=1, source="quest", card="story_01", faction="spring",
                          counter="a_new_hope")]
    st.bookmark = 1
    give(st, giovanni, 0)
    act(st, giovanni, "activate", character="snow_white")
    assert len(st.hands[giovanni]) == 3
    path, cost = route(st, "snow_white", "memory_lane_cemetery")
    assert cost == 2
    for i, space in enumerate(path):
        act(st, giovanni, "move", to=space, card=st.hands[giovanni][0] if i % 2 == 0 else None)
    act(st, giovanni, "start_quest", counter="freezing_horror",
        text="Snow White would call forth the ghosts of Winter's grenadiers.")
    assert top(st).faction == "winter" and top(st).link_ok is None  # assumed made
    act(st, st.arbiter, "rule_bookmark", made=True)
    assert top(st).link_ok is True
    act(st, giovanni, "tell", text="To wake the lost Heroes there was no better place.")
    # the Writer plays the Quest's side in the plot
    while top(st).stage == "join":
        act(st, G.to_act(st)[0], "pass")
    assert {x.side for x in G.legal_actions(st, giovanni) if x.kind == "play_card"} == {
        "winter"}
