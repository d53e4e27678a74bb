"""Winter Tales content: every data file loads, validates and agrees with the rulebook."""

from __future__ import annotations

import copy
import itertools
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

from engines.winter_tales.content import (
    DATA_DIR,
    FILES,
    ContentError,
    WinterContent,
    load_content,
    load_content_from,
)


@pytest.fixture(scope="module")
def c() -> WinterContent:
    return load_content()


def _raw() -> dict[str, dict]:
    return {
        key: json.loads((DATA_DIR / name).read_text(encoding="utf-8"))
        for key, name in FILES.items()
    }


# --------------------------------------------------------------------------- loading


def test_loads_and_is_cached(c: WinterContent) -> None:
    assert load_content() is c
    assert isinstance(c, WinterContent)


def test_every_file_has_an_about_block() -> None:
    for key, name in FILES.items():
        about = json.loads((DATA_DIR / name).read_text(encoding="utf-8"))["_about"]
        assert about["from_the_rulebook"], name
        assert about["project_design"], name
        assert key


def test_load_from_a_copied_directory_matches(tmp_path: Path, c: WinterContent) -> None:
    for name in FILES.values():
        shutil.copy(DATA_DIR / name, tmp_path / name)
    again = load_content_from(tmp_path)
    assert again.model_dump() == c.model_dump()


def _validate(raw: dict[str, dict]) -> WinterContent:
    return WinterContent.model_validate(raw)


def test_rejects_unknown_fields() -> None:
    raw = _raw()
    raw["setup"]["mystery"] = 1
    with pytest.raises(ValidationError):
        _validate(raw)


def test_rejects_objective_naming_a_square() -> None:
    raw = _raw()
    card = next(x for x in raw["objectives_file"]["cards"] if x["kind"] == "attack")
    card["locations"] = ["statue_square"]
    with pytest.raises((ValidationError, ContentError), match="not a Location"):
        _validate(raw)


def test_rejects_disconnected_map() -> None:
    raw = _raw()
    raw["map"]["edges"] = [e for e in raw["map"]["edges"] if "oaks_park" not in e]
    with pytest.raises((ValidationError, ContentError), match="reachable"):
        _validate(raw)


def test_rejects_duplicate_story_ids_and_empty_captions() -> None:
    raw = _raw()
    dup = copy.deepcopy(raw["story"]["cards"][0])
    dup["image"] = "something else entirely"
    dup["title"] = "Another title"
    raw["story"]["cards"].append(dup)
    with pytest.raises((ValidationError, ContentError), match="duplicate"):
        _validate(raw)
    raw = _raw()
    raw["story"]["cards"][0]["winter"]["captions"] = []
    with pytest.raises(ValidationError):
        _validate(raw)


def test_rejects_wrong_objective_copies() -> None:
    raw = _raw()
    raw["objectives_file"]["cards"] = [
        x for x in raw["objectives_file"]["cards"] if x["id"] != "garrison"
    ]
    with pytest.raises((ValidationError, ContentError), match="garrison"):
        _validate(raw)


def test_unknown_lookups_raise_content_error(c: WinterContent) -> None:
    with pytest.raises(ContentError, match="no character"):
        c.character("puss_in_boots")
    with pytest.raises(ContentError, match="no space"):
        c.map.space("moon")
    with pytest.raises(ContentError, match="3 to 7"):
        c.setup.share(8)
    assert issubclass(ContentError, ValueError)


# --------------------------------------------------------------------------- map


def test_map_counts(c: WinterContent) -> None:
    assert len(c.map.locations) == 8
    assert 10 <= len(c.map.squares) <= 14
    assert [s.id for s in c.map.spaces if s.statue] == ["statue_square"]
    assert c.map.statue_square.kind == "square"


def test_map_locations_are_the_rulebook_ones(c: WinterContent) -> None:
    assert {s.name for s in c.map.locations} == {
        "The Fair of Wonders",
        "Winter Prison",
        "Memory Lane Cemetery",
        "Mad Hatter Asylum",
        "Oaks Park",
        "Dorothy's Mansion",
        "Nightmares Factory",
        "Puppets Theatre",
    }
    assert all(s.from_rulebook for s in c.map.locations)
    assert all(s.has_quest_slot and s.has_power_slot for s in c.map.locations)
    assert not any(s.has_quest_slot or s.has_power_slot for s in c.map.squares)


def test_map_is_connected_every_location_reaches_every_other(c: WinterContent) -> None:
    assert c.map.is_connected()
    ids = [s.id for s in c.map.locations]
    for a in ids:
        dist = c.map.distances_from(a)
        assert set(dist) == {s.id for s in c.map.spaces}
        for b in ids:
            if a != b:
                assert dist[b] >= 2  # Locations are always joined through a Square


def test_map_edges_symmetric_and_unique(c: WinterContent) -> None:
    keys = [frozenset(e) for e in c.map.edges]
    assert len(keys) == len(set(keys))
    for a, b in c.map.edges:
        assert b in c.map.neighbours(a) and a in c.map.neighbours(b)
    for s in c.map.squares:
        assert c.map.neighbours(s.id), s.id


def test_map_statue_is_central_in_drawing_and_graph(c: WinterContent) -> None:
    statue = c.map.statue_square
    assert abs(statue.x - 0.5) < 0.05 and abs(statue.y - 0.5) < 0.05
    for loc in c.map.locations:
        assert max(abs(loc.x - 0.5), abs(loc.y - 0.5)) > 0.3, loc.id
    ecc = {s.id: max(c.map.distances_from(s.id).values()) for s in c.map.spaces}
    assert ecc[statue.id] == min(ecc.values())


def test_map_coordinates_do_not_collide(c: WinterContent) -> None:
    pts = [(s.x, s.y) for s in c.map.spaces]
    for i, (x1, y1) in enumerate(pts):
        for x2, y2 in pts[i + 1 :]:
            assert (x1 - x2) ** 2 + (y1 - y2) ** 2 > 0.1**2


def test_map_matches_rulebook_examples(c: WinterContent) -> None:
    m = c.map

    def one_square_between(a: str, b: str) -> bool:
        common = m.neighbours(a) & m.neighbours(b)
        return any(m.space(s).kind == "square" for s in common)

    # Grumpy: Fair -> the Square -> Asylum, then another Square -> Nightmares Factory.
    assert one_square_between("fair_of_wonders", "mad_hatter_asylum")
    assert one_square_between("mad_hatter_asylum", "nightmares_factory")
    assert m.cards_to_reach("fair_of_wonders", "nightmares_factory") == 2
    # The Tin Man: Winter Prison to Nightmares Factory with one card, through a Square.
    assert one_square_between("winter_prison", "nightmares_factory")
    # Battle example: the Square dividing Oaks Park and Memory Lane Cemetery.
    assert one_square_between("oaks_park", "memory_lane_cemetery")
    # Trap example: the Square between the Asylum and Oaks Park.
    assert one_square_between("mad_hatter_asylum", "oaks_park")
    # Clara would need 3 cards to bring Dorothy from the Cemetery to the Factory.
    assert m.cards_to_reach("memory_lane_cemetery", "nightmares_factory") == 3


def test_shortest_path(c: WinterContent) -> None:
    path = c.map.shortest_path("fair_of_wonders", "nightmares_factory")
    assert path[0] == "fair_of_wonders" and path[-1] == "nightmares_factory"
    assert len(path) - 1 == c.map.distance("fair_of_wonders", "nightmares_factory")
    for a, b in itertools.pairwise(path):
        assert b in c.map.neighbours(a)
    assert c.map.cards_to_reach("oaks_park", "oaks_park") == 0
    assert c.map.cards_to_reach("oaks_park", "memory_lane_cemetery", spaces_per_card=3) == 1


def test_fairy_tales_and_soldiers_can_all_start_apart(c: WinterContent) -> None:
    # Each figure starts in an empty space: 7 Locations-or-fewer for Fairy Tales (8 exist)
    # and 7 Squares for Soldiers.
    assert len(c.map.locations) >= len(c.characters_of("spring"))
    assert len(c.map.squares) >= len(c.characters_of("winter"))


# --------------------------------------------------------------------------- characters


def test_characters(c: WinterContent) -> None:
    assert len(c.characters) == 14
    assert len(c.characters_of("spring")) == 7
    assert len(c.characters_of("winter")) == 7
    names = {ch.name for ch in c.characters}
    for n in (
        "Alice",
        "Pinocchio",
        "Grandma Dorothy",
        "The Tin Man",
        "Grumpy",
        "The Little Match Girl",
        "Mangiafuoco",
        "Wolf",
        "The Fox and the Cat",
        "Snow White",
        "The White Rabbit",
        "Candlewick",
        "The Mad Hatter",
    ):
        assert n in names, n
    assert any("Scarecrow" in n for n in names)


def test_skill_pairs_one_per_faction(c: WinterContent) -> None:
    expected = {
        "objective": {"alice", "candlewick"},
        "quest": {"scarecrow", "mangiafuoco"},
        "trap": {"pinocchio", "fox_and_cat"},
        "battle": {"tin_man", "wolf"},
        "save": {"grandma_dorothy", "mad_hatter"},
        "move": {"little_match_girl", "white_rabbit"},
        "draw": {"grumpy", "snow_white"},
    }
    got: dict[str, set[str]] = {}
    for ch in c.characters:
        got.setdefault(ch.skill, set()).add(ch.id)
    assert got == expected
    for ids in expected.values():
        assert {c.character(i).faction for i in ids} == {"spring", "winter"}


def test_skill_numbers(c: WinterContent) -> None:
    assert c.skill("objective").requires_module == "objective"
    assert c.skill("objective").source == "rulebook"
    assert c.skill("quest").count_bonus == 1 and c.skill("quest").source == "rulebook"
    assert c.skill("trap").count_bonus == 1 and c.skill("trap").source == "rulebook"
    assert c.skill("battle").count_bonus == 1 and c.skill("battle").source == "project"
    assert c.skill("save").save_cost == c.setup.save_cost - 1
    assert c.skill("move").spaces_per_card == c.setup.spaces_per_card + 1
    assert c.skill("draw").extra_draw == 1
    assert c.skill_of("white_rabbit").kind == "move"


def test_character_texts_present(c: WinterContent) -> None:
    for ch in c.characters:
        assert ch.description.strip() and ch.skill_flavour.strip()


# --------------------------------------------------------------------------- setup


@pytest.mark.parametrize(
    ("players", "spring", "winter", "writer", "per_spring", "writer_ft", "unused"),
    [
        (3, 1, 1, True, 4, 2, 1),
        (4, 2, 2, False, 3, 0, 1),
        (5, 2, 2, True, 2, 1, 2),
        (6, 3, 3, False, 2, 0, 1),
        (7, 3, 3, True, 2, 1, 0),
    ],
)
def test_character_table(
    c: WinterContent,
    players: int,
    spring: int,
    winter: int,
    writer: bool,
    per_spring: int,
    writer_ft: int,
    unused: int,
) -> None:
    row = c.setup.share(players)
    assert (row.spring_players, row.winter_players, row.writer) == (spring, winter, writer)
    assert row.spring_players + row.winter_players + int(row.writer) == players
    assert row.each_spring_player == row.each_winter_player == per_spring
    assert row.writer_fairy_tales == row.writer_soldiers == writer_ft
    assert row.unused_fairy_tales == row.unused_soldiers == unused
    # every character is accounted for exactly once
    assert spring * per_spring + writer_ft + unused == 7
    assert winter * row.each_winter_player + row.writer_soldiers + row.unused_soldiers == 7
    assert c.setup.writer_hand(players) == spring


def test_setup_numbers(c: WinterContent) -> None:
    s = c.setup
    assert (s.min_players, s.max_players) == (3, 7)
    assert s.opening_hand == 4
    assert s.activation_draw == 3
    assert s.end_of_chapter_draw == 4
    assert s.hand_limit == 7
    assert s.spaces_per_card == 2
    assert s.save_cost == 2
    assert s.memory_value == 3
    g = s.game_length
    assert (g.min_memories, g.max_memories, g.default_memories) == (3, 7, 3)
    assert g.min_memories_with_objective_module == 5
    assert [s.epilogue_space(n) for n in range(3, 8)] == [4, 5, 6, 7, 8]
    assert [s.writer_epilogue_limit(n) for n in range(6)] == [0, 0, 1, 1, 2, 2]
    assert s.quest_counters_per_faction == 4 and s.starting_quests_per_faction == 1
    assert s.objectives_per_player == 1 and s.writer_objectives == 2
    assert s.the_fairy_tale_returns_cost == 3
    assert s.activations_per_chapter == 1
    assert s.battle_spaces == "location_or_square" and s.trap_spaces == "location"
    assert s.traps_per_soldier_entry == 1
    assert s.epilogue_tie_winner == "epilogue_starter_faction_unless_writer"
    assert s.fairy_tale_start == "location" and s.soldier_start == "square"
    assert s.start_space_must_be_empty


def test_epilogue_worked_example_numbers(c: WinterContent) -> None:
    # Rulebook: Spring played 6 cards and holds 2 Memories, Winter 7 cards and 1 Memory;
    # Spring is 2 ahead and the Writer, with 3 cards, may play only 1.
    spring = 6 + 2 * c.setup.memory_value
    winter = 7 + 1 * c.setup.memory_value
    assert spring - winter == 2
    assert c.setup.writer_epilogue_limit(3) == 1


def test_safety_defaults(c: WinterContent) -> None:
    s = c.setup.safety
    assert 3 <= len(s.lines) <= 10 and 3 <= len(s.veils) <= 10
    assert all(x.strip() for x in s.lines + s.veils)
    assert "X-card" in s.x_card and s.x_card_private_notice.strip()


# --------------------------------------------------------------------------- quests


def test_quests(c: WinterContent) -> None:
    factions = {q.id: tuple(q.factions) for q in c.quests}
    assert factions == {
        "a_new_hope": ("spring",),
        "love_that_melts_the_snow": ("spring",),
        "the_safe_house": ("spring",),
        "the_great_artefact": ("spring", "winter"),
        "freezing_horror": ("winter",),
        "winter_propaganda": ("winter",),
        "armed_retaliation": ("winter",),
    }
    assert len(c.quest_counters) == 8
    assert len(c.counters_of("spring")) == len(c.counters_of("winter")) == 4
    assert c.quests_file.one_quest_counter_per_location
    assert c.quests_file.each_counter_once_per_game


def test_quest_placements(c: WinterContent) -> None:
    under = {q.id for q in c.quests if q.placement == "under_fairy_tale"}
    assert under == {"love_that_melts_the_snow", "armed_retaliation"}
    for qid in under:
        assert c.quest(qid).moves_with_figure
    assert c.quest("love_that_melts_the_snow").placement_target == "fairy_tale_of_choice"
    assert c.quest("armed_retaliation").placement_target == "target_fairy_tale"
    for q in c.quests:
        if q.placement == "any_location":
            assert q.placement_target is None and not q.moves_with_figure


def test_power_counters_and_effects(c: WinterContent) -> None:
    counters = {q.id: q.power.counters for q in c.quests}
    assert counters == {
        "a_new_hope": 1,
        "love_that_melts_the_snow": 2,
        "the_safe_house": 1,
        "the_great_artefact": 1,
        "freezing_horror": 1,
        "winter_propaganda": 0,
        "armed_retaliation": 0,
    }
    p = {q.id: q.power for q in c.quests}
    assert p["a_new_hope"].extra_activations_per_chapter == 1
    assert p["a_new_hope"].usage == "once_per_chapter"
    love = p["love_that_melts_the_snow"]
    assert love.free_companion_move and love.companion_moves_while_incapacitated
    assert love.shared_battles_and_traps
    safe = p["the_safe_house"]
    assert safe.battle_loss_relocates_here and safe.forbids_here == ["freezing_horror"]
    assert safe.counter_placement == "location_power_space"
    art = p["the_great_artefact"]
    assert art.memory_counts_as_card and art.memory_stays_on_track
    assert art.transferable_in_same_space
    assert art.counter_placement == "participant_character_card"
    horror = p["freezing_horror"]
    assert horror.usage == "when_no_ready_soldier" and horror.starts_battle_in_location
    assert horror.memory_first_battle_card and horror.memory_stays_on_track
    prop = p["winter_propaganda"]
    assert prop.usage == "soldier_activation" and prop.target_must_be_ready
    ar = p["armed_retaliation"]
    assert set(ar.targets) == {"fairy_tale", "spring_power"}
    assert ar.power_on_target_is_destroyed_first and ar.destroyed_power_flips_memory
    assert ar.return_cost_cards == c.setup.the_fairy_tale_returns_cost == 3
    assert ar.returned_character_activated
    for q in c.quests:
        assert q.power.text.strip() and q.objective_text.strip() and q.placement_text.strip()


# --------------------------------------------------------------------------- objectives


def test_objective_distribution(c: WinterContent) -> None:
    kinds = Counter(card.kind for card in c.objective_cards)
    assert kinds == {
        "reward": 2,
        "spy": 2,
        "attack": 2,
        "garrison": 1,
        "rescue": 1,
        "resistance": 2,
        "connection": 4,
    }
    assert len(c.objective_cards) == 14
    assert len(c.objectives_of("winter")) == 7
    assert len(c.objectives_of("spring")) == 7


def test_objectives_name_valid_locations(c: WinterContent) -> None:
    locations = {s.id for s in c.map.locations}
    for card in c.objective_cards:
        t = c.objective_type(card.kind)
        assert len(card.locations) == t.locations_named
        assert set(card.locations) <= locations, card.id
    attacks = [card.locations[0] for card in c.objective_cards if card.kind == "attack"]
    assert len(set(attacks)) == 2
    pairs = [frozenset(card.locations) for card in c.objective_cards if card.kind == "connection"]
    assert len(set(pairs)) == 4
    assert all(len(p) == 2 for p in pairs)
    # a Connection must be reachable within one activation's hand (at most 7 + 3 cards)
    for p in pairs:
        a, b = sorted(p)
        assert c.map.cards_to_reach(a, b) <= 3


def test_objective_conditions(c: WinterContent) -> None:
    t = {x.kind: x for x in c.objective_types}
    assert t["spy"].count == 2 and t["spy"].reveal_on_progress
    assert t["attack"].count == 2 and t["attack"].trigger == "discard_in_location"
    assert t["connection"].same_activation and t["connection"].reveal_on_progress
    assert t["garrison"].trigger == "soldiers_hold_more_locations"
    assert t["reward"].trigger == "battle_incapacitates_fairy_tale"
    assert t["rescue"].trigger == "save_on_fairy_tale"
    assert t["resistance"].trigger == "trap_incapacitates_soldier"
    for x in c.objective_types:
        assert x.condition_text.strip() and x.themes_text.strip()


# --------------------------------------------------------------------------- story cards


def test_story_card_counts(c: WinterContent) -> None:
    assert len(c.story_cards) == 93
    assert len(c.neutral_cards) == 3


def test_story_ids_unique_everywhere(c: WinterContent) -> None:
    ids = (
        [x.id for x in c.story_cards]
        + [x.id for x in c.neutral_cards]
        + [x.id for x in c.objective_cards]
        + [x.id for x in c.characters]
    )
    assert len(ids) == len(set(ids))
    assert c.story_card("story_01").id == "story_01"
    assert c.neutral_card("neutral_1").id == "neutral_1"


def test_story_cards_have_both_sides_and_no_empty_text(c: WinterContent) -> None:
    for card in c.story_cards:
        assert card.title.strip() and card.image.strip()
        for faction in ("spring", "winter"):
            side = card.side(faction)
            assert side.captions and side.caption == side.captions[0]
            assert all(cap.strip() for cap in side.captions), card.id
            assert all(len(cap) <= 80 for cap in side.captions), card.id
        assert card.spring.captions != card.winter.captions


def test_story_concepts_are_not_duplicated(c: WinterContent) -> None:
    images = [x.image.lower() for x in c.story_cards]
    titles = [x.title.lower() for x in c.story_cards]
    captions = [cap.lower() for x in c.story_cards for cap in x.spring.captions + x.winter.captions]
    assert len(set(images)) == len(images)
    assert len(set(titles)) == len(titles)
    assert len(set(captions)) == len(captions)


def test_story_cards_do_not_reuse_the_rulebook_example_captions(c: WinterContent) -> None:
    rulebook = Path(__file__).resolve().parent.parent.parent / "shared" / "rules"
    text = rulebook / "winter_tales.txt"
    if not text.exists():
        pytest.skip("rulebook not available on this machine")
    book = text.read_text(encoding="utf-8").lower()
    for card in c.story_cards:
        for cap in card.spring.captions + card.winter.captions:
            assert cap.lower() not in book, (card.id, cap)


def test_neutral_cards_have_no_image(c: WinterContent) -> None:
    for n in c.neutral_cards:
        assert not hasattr(n, "image")
        assert n.note.strip()
    assert c.story.neutral_cards_limit_play is False


# --------------------------------------------------------------------------- memory track


def test_memory_track(c: WinterContent) -> None:
    mt = c.memory_track
    assert [s.index for s in mt.spaces] == list(range(1, 8))
    assert mt.objective_spaces == [2, 4, 6]
    assert mt.epilogue_space == 8
    assert mt.default_epilogue_space == c.setup.epilogue_space(c.setup.game_length.default_memories)
    assert mt.epilogue_space == c.setup.epilogue_space(c.setup.game_length.max_memories)
    assert mt.quest_may_overwrite_objective_memory and not mt.quest_memory_may_be_overwritten
    assert mt.objective_memories_only_on_icon
    assert mt.missing_bookmark_link_fails_quest
