"""Crossroads Inn content: every data file loads, validates and agrees with the rulebook."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engines.crossroads_inn.content import (
    ACTION_KINDS,
    CATEGORIES,
    DATA_DIR,
    EFFECT_KINDS,
    FILES,
    GROUPS,
    LEGEND_ICONS,
    LEGEND_KINDS,
    LEGEND_REVERSALS,
    REVERSAL_KINDS,
    ContentError,
    CrossroadsContent,
    load_content,
    load_content_from,
    reverse,
)

WORKERS = {
    "scoundrels": ["Tinhorn", "Crook", "Swindler"],
    "caretakers": ["Servant", "Maide", "Housekeeper"],
    "labourer": ["Drudge", "Workman", "Foreman"],
    "kitchen_staff": ["Kitchenhand", "Cook", "Chef"],
    "watchman": ["Thug", "Bouncer", "Veteran"],
}
SPECIAL_GUESTS = [
    "Alstero", "Kobi", "Estelle", "Hubu Gross", "Vermelha", "Meilan", "Renmy", "Iduna",
    "Nameless", "Lilith", "King Ludo", "Ganis", "Calisterre", "Nillesio", "Letima",
]  # fmt: skip
ADVANCED = [
    "Cuckold stew", "Smiling witch", "Duck in rubies and gold", "Bersuhl sweet fish dumplings",
]  # fmt: skip
KINGDOM_TITLES = {
    1: "I wanna see you!",
    2: "Table by the window, sir!",
    3: "Lucky 7",
    4: "Vanity lane",
    5: "Make some room!",
    6: "Looking busy",
    7: "Thank you sir!",
    8: "This guy must be a collector",
    9: "Some sacrifices",
    10: "...So they won't steal it",
}
CHART = {
    (1, 5): "interesting",
    (1, 8): "difficult",
    (1, 10): "difficult",
    (2, 9): "interesting",
    (4, 6): "difficult",
    (4, 8): "interesting",
    (7, 9): "interesting",
    (7, 10): "interesting",
    (9, 10): "interesting",
}


@pytest.fixture(scope="module")
def c() -> CrossroadsContent:
    return load_content()


def _effects(block: Any) -> list[dict[str, Any]]:
    return [e.model_dump() for e in block.effects]


# --------------------------------------------------------------------------- loading


def test_loads_and_is_cached(c: CrossroadsContent) -> None:
    assert isinstance(c, CrossroadsContent)
    assert load_content() is c
    assert load_content(DATA_DIR) is c


def test_every_file_has_an_about_block() -> None:
    assert sorted(p.name for p in DATA_DIR.glob("*.json")) == sorted(n for n, _ in FILES.values())
    for name, _ in FILES.values():
        about = json.loads((DATA_DIR / name).read_text(encoding="utf-8"))["_about"]
        assert about["from_the_rulebook"], name
        assert about["project_design"], name


def test_a_copied_directory_loads_the_same(tmp_path: Path, c: CrossroadsContent) -> None:
    for name, _ in FILES.values():
        shutil.copy(DATA_DIR / name, tmp_path / name)
    again = load_content(tmp_path)
    assert again is not c
    assert again.model_dump() == c.model_dump()


def test_game_identity(c: CrossroadsContent) -> None:
    assert c.game.game_id == "crossroads-inn"
    assert c.game.name == "Crossroads Inn: The Innkeeper's Creed"
    assert (c.game.players.min, c.game.players.max) == (2, 4)


# --------------------------------------------------------------------------- inn tiles


def test_inn_tile_counts(c: CrossroadsContent) -> None:
    assert len(c.inn_tiles) == 60
    assert sum(t.copies for t in c.inn_tiles) == 120
    assert {t.copies for t in c.inn_tiles} == {2}
    for cat in CATEGORIES:
        assert len(c.tiles_in(cat)) == 15, cat
        assert len(c.tiles_in(cat, 1)) == 8, cat
        assert len(c.tiles_in(cat, 2)) == 7, cat
    assert len(c.pouch(1)) == 64
    assert len(c.pouch(2)) == 56


def test_category_colours(c: CrossroadsContent) -> None:
    colours = {k.id: k.colour for k in c.categories}
    assert colours == {
        "furnishings": "yellow",
        "services": "brown",
        "workers": "blue",
        "special_guests": "red",
    }
    assert c.colour(c.tile("steel_cages")) == "brown"


def test_steel_cages_as_in_the_rulebook_example(c: CrossroadsContent) -> None:
    t = c.tile("steel_cages")
    assert (t.name, t.name_source, t.category) == ("Steel cages", "rulebook", "services")
    assert t.cost.alternative
    assert (t.cost.or_gossips.gossip, t.cost.or_gossips.count) == ("economic", 3)
    assert _effects(t.effect) == [
        {"kind": "reputation", "group": "outlaws", "amount": 3},
        {"kind": "guldens", "amount": 6, "to": "chest"},
    ]
    assert t.effect.shape == "double"
    assert _effects(t.drawback) == [{"kind": "revenue", "amount": -2}]
    assert [e.kind for e in t.on_build] == ["reputation", "guldens", "revenue"]


def test_workers_are_the_rulebook_names_in_five_groups_of_three(c: CrossroadsContent) -> None:
    groups = {g.id: [c.tile(m).name for m in g.members] for g in c.worker_groups}
    assert groups == WORKERS
    assert {g.name for g in c.worker_groups} == {
        "Scoundrels", "Caretakers", "Labourer", "Kitchen Staff", "Watchman",
    }  # fmt: skip
    for t in c.tiles_in("workers"):
        assert t.name_source == "rulebook"
        assert t.name in WORKERS[t.worker_group]
        assert t.social_group is None


def test_special_guests_are_the_rulebook_names(c: CrossroadsContent) -> None:
    guests = c.tiles_in("special_guests")
    assert sorted(t.name for t in guests) == sorted(SPECIAL_GUESTS)
    assert Counter(t.social_group for t in guests) == {g: 3 for g in GROUPS}
    for t in guests:
        assert any(
            e.kind == "reputation" and e.group == t.social_group and e.amount > 0
            for e in t.effect.effects
        ), t.id


def test_only_services_have_a_negative_effect(c: CrossroadsContent) -> None:
    for t in c.inn_tiles:
        assert (t.drawback is not None) == (t.category == "services"), t.id
        assert not any(e.is_loss for e in t.effect.effects), t.id
        if t.drawback:
            assert all(e.is_loss for e in t.drawback.effects), t.id


def test_tile_effects_are_legend_kinds_with_matching_shapes(c: CrossroadsContent) -> None:
    used = set()
    for t in c.inn_tiles:
        assert len(t.effect.effects) == {"single": 1, "double": 2, "triple": 3}[t.effect.shape]
        assert t.effect.text
        for e in t.on_build:
            assert e.kind in LEGEND_KINDS | REVERSAL_KINDS, (t.id, e.kind)
            used.add(e.kind)
    assert {"dice", "dice_guldens", "special_action", "investment_pick", "recipe_draw"} <= used
    assert {t.effect.shape for t in c.inn_tiles} == {"single", "double", "triple"}


def test_costs(c: CrossroadsContent) -> None:
    assert all(t.cost.guldens >= 1 for t in c.inn_tiles)
    alternatives = [t for t in c.inn_tiles if t.cost.alternative]
    assert {t.cost.or_gossips.gossip for t in alternatives} == {
        "economic", "political", "travellers",
    }  # fmt: skip
    assert all(t.cost.or_gossips.count <= 3 for t in alternatives)
    king = c.tile("king_ludo")
    assert (king.cost.guldens, king.cost.or_gossips.count, king.tier) == (10, 3, 2)


# --------------------------------------------------------------------------- ingredients


def test_ingredients_counts_and_rarities(c: CrossroadsContent) -> None:
    tokens = {i.name: i.tokens for i in c.ingredients}
    assert tokens == {
        "Honey": 9, "Venison": 9, "Root spices": 9, "Citrus": 9, "Black tears": 9,
        "Berries": 9, "Pumpkin": 5, "Herbal spices": 5, "Epic cheese": 5, "Fish": 5,
    }  # fmt: skip
    assert sum(tokens.values()) == 74
    assert Counter(i.rarity for i in c.ingredients) == {1: 3, 2: 3, 3: 4}
    assert {i.printed_rarity_count for i in c.ingredients if i.rarity < 3} == {4}
    assert {i.printed_rarity_count for i in c.ingredients if i.rarity == 3} == {2}
    assert c.ingredient("black_tears").aka == "black sesame"


def test_ingredient_tiles_match_the_printed_rarity_counts(c: CrossroadsContent) -> None:
    for i in c.ingredients:
        assert sum(t.copies for t in c.ingredient_tiles(i.id)) == i.printed_rarity_count, i.id
    assert len([t for t in c.inn_tiles if t.ingredient]) == 16
    assert c.tile("chef").on_build[-1].model_dump() == {
        "kind": "ingredient",
        "ingredient": "pumpkin",
    }


# --------------------------------------------------------------------------- basic tiles


def test_sixteen_basic_tiles_with_the_garden_patch(c: CrossroadsContent) -> None:
    assert len(c.basic_tiles) == 16
    garden = c.basic_tile("garden_patch")
    assert (garden.name, garden.name_source) == ("Garden Patch", "rulebook")
    assert garden.on_build is None
    assert _effects(garden.on_cover) == [{"kind": "extra_ingredient", "amount": 1}]
    assert [t.id for t in c.basic_tiles if t.cover_bonus] == ["garden_patch"]


def test_covering_a_basic_tile_reverses_it(c: CrossroadsContent) -> None:
    for t in c.basic_tiles:
        if t.on_build is None:
            continue
        assert list(t.on_cover.effects) == [reverse(e) for e in t.on_build.effects], t.id
    assert _effects(c.basic_tile("recipe_box").on_cover) == [
        {"kind": "recipe_discard", "amount": 1, "random": True}
    ]
    assert _effects(c.basic_tile("builders_yard").on_cover) == [
        {"kind": "reserved_discard", "amount": 1}
    ]
    assert _effects(c.basic_tile("dice_table").on_cover) == [{"kind": "dice_debt"}]
    assert _effects(c.basic_tile("common_room").on_cover) == [{"kind": "prestige", "amount": -2}]


def test_reverse_refuses_what_cannot_be_reduced(c: CrossroadsContent) -> None:
    with pytest.raises(ValueError, match="guldens effect cannot be reduced"):
        reverse(c.tile("steel_cages").effect.effects[1])


# --------------------------------------------------------------------------- recipes


def test_recipes(c: CrossroadsContent) -> None:
    assert len(c.recipes) == 15
    advanced = [r for r in c.recipes if r.advanced]
    assert sorted(r.name for r in advanced) == sorted(ADVANCED)
    assert all(r.name_source == "rulebook" for r in advanced)
    known = {i.id for i in c.ingredients}
    for r in c.recipes:
        assert set(r.ingredients) <= known, r.id
        assert len(set(r.ingredients)) == len(r.ingredients), r.id
        assert any(e.kind == "prestige" and e.amount > 0 for e in r.reward.effects), r.id
    assert "fish" in c.recipe("bersuhl_sweet_fish_dumplings").ingredients
    assert all(len(r.ingredients) == 4 for r in advanced)


# --------------------------------------------------------------------------- kingdom cards


def test_kingdom_cards_titles(c: CrossroadsContent) -> None:
    assert {k.number: k.title for k in c.kingdom_cards} == KINGDOM_TITLES
    assert c.kingdom.per_game == 2


def test_kingdom_cards_texts_are_the_rulebook_s(c: CrossroadsContent) -> None:
    assert c.kingdom_card(1).text.startswith(
        "The Workers tiles have to be placed next to the Furnishings tiles."
    )
    assert c.kingdom_card(3).text.startswith("The inn has to meet the basic requirements")
    assert c.kingdom_card(9).text == (
        "Tiles with ingredients placed over the corner spaces for the Basic Inn Tiles produce "
        "an additional ingredient of the same type. And now go and water that."
    )
    assert c.kingdom_card(10).text.startswith(
        "Furnishing tiles can only be placed on the inner ring of the inn."
    )


def test_kingdom_card_rules_are_structured(c: CrossroadsContent) -> None:
    rules = {k.number: k.rule.model_dump(mode="json") for k in c.kingdom_cards}
    assert rules[1] == {"kind": "adjacent_to", "category": "workers", "to": "furnishings"}
    assert rules[2]["kind"] == "ring_only"
    assert (rules[2]["ring"], rules[2]["with_ingredient"]) == ("outer", True)
    assert rules[3] == {"kind": "max_per_category", "limit": 7}
    assert rules[4] == {"kind": "single_line", "category": "special_guests"}
    assert rules[5] == {"kind": "not_adjacent_same", "category": "services"}
    assert rules[6] == {"kind": "same_turn_not_adjacent"}
    assert rules[7]["inner"] == [{"kind": "guldens", "amount": 1, "to": "chest"}]
    assert rules[7]["outer"] == [{"kind": "guldens", "amount": -1, "to": "chest"}]
    assert rules[9] == {"kind": "corner_extra_ingredient", "amount": 1}
    assert (rules[10]["ring"], rules[10]["category"]) == ("inner", "furnishings")


def test_kingdom_card_8_supply_and_bonuses(c: CrossroadsContent) -> None:
    rule = c.kingdom_card(8).rule
    assert rule.length == 3
    assert (rule.supply_for(2).gossips_each, rule.supply_for(2).guldens) == (1, 2)
    assert (rule.supply_for(3).gossips_each, rule.supply_for(4).guldens) == (2, 4)
    bonuses = {b.category: [e.model_dump() for e in b.effects] for b in rule.bonuses}
    assert bonuses["special_guests"] == [{"kind": "gossip", "gossip": "travellers", "amount": 1}]
    assert bonuses["workers"] == [{"kind": "gossip", "gossip": "political", "amount": 1}]
    assert bonuses["services"] == [{"kind": "gossip", "gossip": "economic", "amount": 1}]
    assert bonuses["furnishings"] == [{"kind": "guldens", "amount": 2, "to": "chest"}]


def test_combinations_chart(c: CrossroadsContent) -> None:
    pairs = c.kingdom.chart.pairs
    assert len(pairs) == 45
    assert len({(p.a, p.b) for p in pairs}) == 45
    for a in range(1, 11):
        for b in range(a + 1, 11):
            assert c.combination(a, b) == CHART.get((a, b), "neutral"), (a, b)
            assert c.combination(b, a) == c.combination(a, b)
    assert Counter(p.kind for p in pairs) == {"neutral": 36, "interesting": 6, "difficult": 3}
    with pytest.raises(ContentError, match="no pair"):
        c.combination(3, 3)


# --------------------------------------------------------------------------- die and boards


def test_random_events_die(c: CrossroadsContent) -> None:
    faces = {f.face: [e.model_dump() for e in f.effects] for f in c.die.faces}
    assert faces == {
        1: [{"kind": "gossip_any", "amount": -1}],
        2: [{"kind": "reputation", "group": "nobles", "amount": -1}],
        3: [{"kind": "revenue", "amount": -1}],
        4: [{"kind": "reputation", "group": "outlaws", "amount": 2}],
        5: [{"kind": "guldens", "amount": 3, "to": "chest"}],
        6: [
            {"kind": "reputation", "group": "townsfolk", "amount": 1},
            {"kind": "reputation", "group": "travellers", "amount": 1},
        ],
    }


def test_reputation_tracks(c: CrossroadsContent) -> None:
    rep = c.boards.reputation
    assert (rep.min, rep.max) == (0, 12)
    assert [g.id for g in rep.groups] == list(GROUPS)
    for g in rep.groups:
        assert [s.space for s in g.track] == list(range(13))
        assert g.start == 1
        assert g.special_action_space == 7
        assert [s.prestige for s in g.track] == [-2, 0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 7, 9]
    assert c.group("nobles").prestige_at(12) == 9
    assert rep.below_min_prestige_per_space == -1
    assert rep.above_max_special_action is True


def test_special_actions(c: CrossroadsContent) -> None:
    def kinds(group: str) -> list[list[str]]:
        return [[e.kind for e in o.effects] for o in c.group(group).special_action.options]

    assert kinds("distressed") == [["gossip_any"]]
    assert kinds("outlaws") == [["dice"]]
    assert kinds("travellers") == [["recipe_draw_keep"], ["recipe_discard"], ["recipe_steal"]]
    assert kinds("townsfolk") == [
        ["reserved_exchange"],
        ["reserved_swap"],
        ["reserved_return", "guldens"],
    ]
    assert kinds("nobles") == [["guldens"]]
    assert c.group("nobles").special_action.options[0].effects[0].amount == 3
    assert c.group("travellers").special_action.choose_one
    assert not c.group("outlaws").special_action.choose_one


def test_inn_board_grid(c: CrossroadsContent) -> None:
    board = c.boards.inn_board
    assert (board.columns, board.rows, len(board.spaces)) == (5, 4, 20)
    corners = {(s.column, s.row) for s in board.spaces if s.basic}
    assert corners == {(0, 0), (4, 0), (0, 3), (4, 3)}
    assert Counter(s.ring for s in board.spaces) == {"outer": 14, "inner": 6}
    assert sum(1 for s in board.spaces if not s.basic) == 16 == c.game.end.spaces_to_cover
    assert sorted(board.neighbours("r0c0")) == ["r0c1", "r1c0"]
    assert len(board.neighbours("r1c1")) == 4
    rev = board.revenue_track
    assert (rev.min, rev.max, rev.start, rev.above_max_guldens) == (1, 10, 4, 1)
    assert (board.doors.open, board.doors.closed) == (1, -3)
    assert (board.chest_gulden_limit, board.reserved_spaces, board.gossip_spaces_per_type) == (
        20,
        2,
        3,
    )


def test_progress_board(c: CrossroadsContent) -> None:
    pt = c.boards.prestige_track
    assert (pt.start, pt.min, pt.lap, pt.lap_tiles) == (6, 1, 40, 4)
    assert [(t.tier, t.slots) for t in c.boards.investment_tracks] == [(1, 4), (2, 4)]


def test_components_and_resources(c: CrossroadsContent) -> None:
    r = c.resources
    assert {g.id: (g.ribbon, g.tokens) for g in r.gossips} == {
        "economic": ("green", 12),
        "political": ("blue", 12),
        "travellers": ("red", 12),
    }
    coins = {s.value: s.tokens for s in r.guldens.coins}
    debts = {s.value: s.tokens for s in r.guldens.debts}
    assert (coins, debts) == ({1: 20, 2: 15, 5: 10}, {-1: 10, -2: 5})
    assert len(r.gossip_actions) == 8
    assert c.gossip_action("economic_a").effects[0].model_dump() == {
        "kind": "guldens",
        "amount": 2,
        "to": "pouch",
    }
    assert c.gossip_action("economic_b").players == (2,)
    assert c.gossip_action("political_c").players == (3, 4)
    assert c.game.scoring.tie_breaks == ("nobles", "townsfolk")
    assert c.game.scoring.per_uncompleted_recipe == -2


# --------------------------------------------------------------------------- effect kinds


def test_every_legend_icon_has_an_effect_kind() -> None:
    effect_icons = {
        "Single effect", "Double effect", "Triple effect", "Dice", "Special Action",
        "Inn's Prestige", "Gulden", "Prestige", "Inn's Revenue", "Specific gossips",
        "Any gossip", "Ingredient", "Reputation, given groups", "Reputation, any group",
        "Recipe Card draw", "Extra ingredient", "Investment Track pick", "Dice-and-debt",
    }  # fmt: skip
    assert set(LEGEND_ICONS) == effect_icons
    for icon, target in LEGEND_ICONS.items():
        if target.startswith("shape:"):
            assert target.removeprefix("shape:") in {"single", "double", "triple"}
        else:
            assert target in LEGEND_KINDS, icon
    assert set(LEGEND_ICONS.values()) - {"shape:single", "shape:double", "shape:triple"} == (
        LEGEND_KINDS
    )
    assert set(LEGEND_REVERSALS.values()) == REVERSAL_KINDS
    assert LEGEND_KINDS | REVERSAL_KINDS | ACTION_KINDS == EFFECT_KINDS


def test_every_effect_in_the_data_is_of_a_known_kind() -> None:
    found: Counter[str] = Counter()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in {"effects", "inner", "outer"}:
                    found.update(e["kind"] for e in value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for name, _ in FILES.values():
        walk(json.loads((DATA_DIR / name).read_text(encoding="utf-8")))
    assert set(found) <= EFFECT_KINDS
    # the ingredient effect is built from a tile's own "ingredient" slot (tile layout item 8)
    assert set(found) | {"ingredient"} == EFFECT_KINDS, EFFECT_KINDS - set(found)
    assert (found["extra_ingredient"], found["dice_debt"]) == (1, 1)  # Garden Patch, Dice table


# --------------------------------------------------------------------------- broken files


def _broken(tmp_path: Path, filename: str, mutate: Callable[[Any], None]) -> Path:
    for name, _ in FILES.values():
        shutil.copy(DATA_DIR / name, tmp_path / name)
    path = tmp_path / filename
    raw = json.loads(path.read_text(encoding="utf-8"))
    mutate(raw)
    path.write_text(json.dumps(raw), encoding="utf-8")
    return tmp_path


def _tile(raw: Any, tile_id: str) -> dict[str, Any]:
    return next(t for t in raw["tiles"] if t["id"] == tile_id)


def _recipe(raw: Any, recipe_id: str) -> dict[str, Any]:
    return next(r for r in raw["recipes"] if r["id"] == recipe_id)


BROKEN = [
    pytest.param(
        "inn_tiles.json",
        lambda r: _tile(r, "steel_cages")["effect"]["effects"].__setitem__(0, {"kind": "teleport"}),
        r"inn_tiles\.json: tile 'steel_cages' .*'teleport'",
        id="unknown-effect-kind",
    ),
    pytest.param(
        "inn_tiles.json",
        lambda r: _tile(r, "kobi")["effect"]["effects"][0].__setitem__("amount", "lots"),
        r"tile 'kobi' at tiles\[\d+\]\.effect\.effects\[0\]\.reputation\.amount",
        id="untyped-parameter",
    ),
    pytest.param(
        "inn_tiles.json",
        lambda r: _tile(r, "kobi")["effect"].__setitem__("shape", "triple"),
        r"tile 'kobi' .*a triple effect needs 3 effect\(s\), has 2",
        id="shape-mismatch",
    ),
    pytest.param(
        "inn_tiles.json",
        lambda r: _tile(r, "steel_cages").__setitem__("copies", 3),
        r"tile 'steel_cages' has 3 copies, expected 2",
        id="three-copies",
    ),
    pytest.param(
        "inn_tiles.json",
        lambda r: _tile(r, "chef").__setitem__("tier", 1),
        r"category 'workers' tier 1 has 9 designs, expected 8",
        id="tier-count",
    ),
    pytest.param(
        "inn_tiles.json",
        lambda r: _tile(r, "tinhorn").__setitem__("id", "crook"),
        r"duplicate tile id 'crook'",
        id="duplicate-id",
    ),
    pytest.param(
        "inn_tiles.json",
        lambda r: _tile(r, "spice_rack").__setitem__("ingredient", "saffron"),
        r"tile 'spice_rack' offers unknown ingredient 'saffron'",
        id="unknown-tile-ingredient",
    ),
    pytest.param(
        "inn_tiles.json",
        lambda r: _tile(r, "oak_bar_counter").__setitem__(
            "drawback", _tile(r, "fishpond")["drawback"]
        ),
        r"tile 'oak_bar_counter' .*Services tiles only",
        id="drawback-off-services",
    ),
    pytest.param(
        "inn_tiles.json",
        lambda r: _tile(r, "chandelier")["effect"]["effects"][0].__setitem__("amount", -3),
        r"tile 'chandelier' .*prestige -3 is a loss",
        id="loss-in-main-effect",
    ),
    pytest.param(
        "inn_tiles.json",
        lambda r: _tile(r, "calisterre").__setitem__("social_group", "outlaws"),
        r"tile 'calisterre' .*Reputation with its group outlaws",
        id="guest-without-its-group",
    ),
    pytest.param(
        "basic_tiles.json",
        lambda r: _tile(r, "common_room")["on_cover"]["effects"][0].__setitem__("amount", -1),
        r"basic_tiles\.json: basic tile 'common_room' .*must reverse on_build",
        id="cover-not-a-reversal",
    ),
    pytest.param(
        "basic_tiles.json",
        lambda r: _tile(r, "cellar")["on_build"]["effects"].__setitem__(
            0, {"kind": "guldens", "amount": 3}
        ),
        r"basic tile 'cellar' .*'guldens' is not allowed",
        id="irreversible-basic-effect",
    ),
    pytest.param(
        "recipes.json",
        lambda r: _recipe(r, "smiling_witch")["ingredients"].__setitem__(0, "unicorn"),
        r"recipes\.json: recipe 'smiling_witch' needs unknown ingredient 'unicorn'",
        id="unknown-recipe-ingredient",
    ),
    pytest.param(
        "recipes.json",
        lambda r: _recipe(r, "berry_tart").__setitem__("advanced", True),
        r"5 advanced recipes, expected 4",
        id="advanced-count",
    ),
    pytest.param(
        "kingdom_cards.json",
        lambda r: r["cards"][9].__setitem__("number", 11),
        r"Kingdom Card #11 .*number must be 1\.\.10",
        id="card-number-out-of-range",
    ),
    pytest.param(
        "kingdom_cards.json",
        lambda r: r["cards"][0]["rule"].__setitem__("category", "dragons"),
        r"Kingdom Card #1 at cards\[0\]\.rule\.adjacent_to\.category",
        id="card-rule-unknown-category",
    ),
    pytest.param(
        "kingdom_cards.json",
        lambda r: r["chart"]["pairs"].pop(),
        r"chart pair 9-10 is missing",
        id="chart-pair-missing",
    ),
    pytest.param(
        "kingdom_cards.json",
        lambda r: r["chart"]["pairs"].append({"a": 1, "b": 2, "kind": "neutral"}),
        r"chart pair 1-2 is listed twice",
        id="chart-pair-twice",
    ),
    pytest.param(
        "kingdom_cards.json",
        lambda r: r["chart"]["pairs"][0].__setitem__("kind", "fun"),
        r"chart pair 1-2 at chart\.pairs\[0\]\.kind",
        id="chart-kind",
    ),
    pytest.param(
        "die.json",
        lambda r: r["faces"][5].__setitem__("face", 7),
        r"die\.json: faces must be 1\.\.6",
        id="die-face",
    ),
    pytest.param(
        "boards.json",
        lambda r: r["reputation"]["groups"][4]["track"].pop(),
        r"group 'nobles': track spaces must be 0\.\.12",
        id="short-track",
    ),
    pytest.param(
        "boards.json",
        lambda r: r["inn_board"]["spaces"][1].__setitem__("basic", True),
        r"inn space 'r0c1': the Basic spaces are exactly the four corners",
        id="basic-space-off-corner",
    ),
    pytest.param(
        "resources.json",
        lambda r: r["ingredients"][0].__setitem__("tokens", 8),
        r"73 ingredient tokens, expected 74",
        id="ingredient-tokens",
    ),
]


@pytest.mark.parametrize(("filename", "mutate", "message"), BROKEN)
def test_a_broken_file_is_refused_naming_the_entry(
    tmp_path: Path, filename: str, mutate: Callable[[Any], None], message: str
) -> None:
    directory = _broken(tmp_path, filename, mutate)
    with pytest.raises(ContentError, match=message) as info:
        load_content(directory)
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith(filename)


def test_invalid_json_and_missing_files_are_named(tmp_path: Path) -> None:
    for name, _ in FILES.values():
        shutil.copy(DATA_DIR / name, tmp_path / name)
    (tmp_path / "die.json").write_text("{ not json", encoding="utf-8")
    with pytest.raises(ContentError, match=r"die\.json: not valid JSON \(line 1\)"):
        load_content_from(tmp_path)
    (tmp_path / "die.json").unlink()
    with pytest.raises(ContentError, match=r"die\.json: missing"):
        load_content_from(tmp_path)


def test_an_unknown_field_is_refused(tmp_path: Path) -> None:
    directory = _broken(
        tmp_path, "recipes.json", lambda r: _recipe(r, "berry_tart").__setitem__("spicy", True)
    )
    with pytest.raises(ContentError, match=r"recipe 'berry_tart' at recipes\[1\]\.spicy"):
        load_content(directory)
