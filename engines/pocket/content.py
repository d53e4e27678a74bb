"""Fairy Tale in My Pocket content: tiles, development cards, items and numbers as data.

Everything the rules refer to lives in ``data/pocket.json``; this module declares a
frozen pydantic model for each piece, loads the file once and cross-checks the whole
(16 tiles, 8 per stack, one tile per goal role, rose bushes only in the Rose Garden, 10
cards with one line per time of day, every regular item on exactly one card). Any problem
raises :class:`ContentError` (a ``ValueError``) naming the entry.

The engine knows items, villains and special items by their rulebook ids (their rules are
the rulebook's); tiles it knows only by their ``role`` (start, rose, cottage, forest_path,
kingdom_path, castle), so a group can rename or redraw every tile in the data file.

>>> c = load_content()
>>> len(c.tiles), len(c.cards), len(c.items), [t.id for t in c.times]
(16, 10, 10, ['high', 'afternoon', 'dusk'])
>>> c.role("start").name, c.role("kingdom_path").stack
('Lake', 'kingdom')
>>> c.item("pouch").price, c.rules.max_gold
(3, 6)
>>> c.card("card_1").lines[1].kind
'villain'
"""

from __future__ import annotations

import json
from functools import cache, cached_property
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

DATA_PATH = Path(__file__).resolve().parent.parent.parent / "data" / "pocket.json"

Side = Literal["n", "e", "s", "w"]
SIDES: tuple[Side, ...] = ("n", "e", "s", "w")
SIDE_NAMES: dict[str, str] = {"n": "north", "e": "east", "s": "south", "w": "west"}
Edge = Literal["open", "trees", "roses"]
Stack = Literal["forest", "kingdom"]
Role = Literal["start", "rose", "cottage", "forest_path", "kingdom_path", "castle"]
ItemId = Literal["elixir", "bucket", "cloak", "shield", "repellant", "candle", "bird", "lamp",
                 "dagger", "pouch"]
ITEM_IDS: tuple[str, ...] = ("elixir", "bucket", "cloak", "shield", "repellant", "candle",
                             "bird", "lamp", "dagger", "pouch")
SpecialId = Literal["mirror", "wand", "boots"]
SPECIAL_IDS: tuple[str, ...] = ("mirror", "wand", "boots")
VillainId = Literal["robbers", "troll", "witch", "dragon"]
InstructionKind = Literal["none", "gold", "health", "rose", "wake", "reunite", "find_item",
                          "peddler", "knight"]
EffectKind = Literal["none", "knight", "health", "gold", "discard"]


class ContentError(ValueError):
    """``data/pocket.json`` is inconsistent; the message names the bad entry."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class About(_Model):
    """Provenance: what the rulebook gives and what the project designed."""

    from_the_rulebook: tuple[str, ...] = Field(min_length=1)
    project_design: tuple[str, ...] = Field(min_length=1)
    notes: tuple[str, ...] = ()


class Rules(_Model):
    """The numbers of the rules (the rulebook's, except ``robbers_fight_steal``)."""

    start_health: int = Field(ge=1)
    max_health: int = Field(ge=1)
    start_gold: int = Field(ge=0)
    max_gold: int = Field(ge=1)
    start_defense: int = Field(ge=0)
    set_aside: int = Field(ge=0)
    rest_health: int = Field(ge=0)
    run_health: int = Field(ge=0)
    run_robbers_gold: int = Field(ge=0)
    robbers_fight_steal: int | Literal["all"]
    """Gold robbers take from a fighter whose Defense is not higher ("all": every coin)."""
    item_limit: int = Field(ge=1)
    special_cost: int = Field(ge=0)
    wand_defense: int = Field(ge=0)
    dagger_defense: int = Field(ge=0)
    repellant_defense: int = Field(ge=0)
    princess_defense: int = Field(ge=0)
    elixir_health: int = Field(ge=0)
    coated_shield_value: int = Field(ge=0)
    bird_cards: int = Field(ge=1)


class TimeOfDay(_Model):
    id: str
    name: str
    words: str


class Villain(_Model):
    id: VillainId
    name: str
    helper: ItemId
    """The regular item that beats or evades this villain outright."""


class SpecialItem(_Model):
    id: SpecialId
    name: str
    cost: int = Field(ge=0)
    text: str


class Item(_Model):
    id: ItemId
    name: str
    price: int = Field(ge=0)
    text: str
    empty_name: str | None = None
    """The name once used up but kept (the goblet, the bucket): worth nothing."""
    coated_name: str | None = None
    """The Shield's name once Flame Repellant is on it."""


class Instruction(_Model):
    """What a tile does at the end of a turn there."""

    text: str
    kind: InstructionKind
    amount: int = 0
    once: bool = False
    """Only the first time a turn ends on the tile."""


class Tile(_Model):
    id: str
    name: str
    stack: Stack
    role: Role | None = None
    edges: dict[Side, Edge]
    """The printed edges, north up (a placed tile may be turned, see the engine)."""
    instruction: Instruction
    rest_refill: Literal["elixir", "bucket"] | None = None


class EventEffect(_Model):
    kind: EffectKind
    amount: int = 0


class VillainLine(_Model):
    kind: Literal["villain"]
    villain: VillainId
    strength: int = Field(ge=0)
    text: str


class GoodDeedLine(_Model):
    kind: Literal["good_deed"]
    gold: int = Field(ge=0)
    text: str


class PeddlerLine(_Model):
    kind: Literal["peddler"]
    text: str


class EventLine(_Model):
    kind: Literal["event"]
    effect: EventEffect
    text: str


Line = Annotated[VillainLine | GoodDeedLine | PeddlerLine | EventLine,
                 Field(discriminator="kind")]


class Card(_Model):
    id: str
    item: ItemId
    lines: tuple[Line, ...]
    """One line per time of day, in the order of :attr:`PocketContent.times`."""


class PocketContent(_Model):
    """``data/pocket.json``, validated and cross-checked."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    about: About = Field(alias="_about")
    rules: Rules
    times: tuple[TimeOfDay, ...] = Field(min_length=1)
    villains: tuple[Villain, ...]
    special_items: tuple[SpecialItem, ...]
    items: tuple[Item, ...]
    tiles: tuple[Tile, ...]
    cards: tuple[Card, ...]

    def model_post_init(self, _context: object) -> None:
        _check(self)

    @cached_property
    def _tiles(self) -> dict[str, Tile]:
        return {t.id: t for t in self.tiles}

    @cached_property
    def _cards(self) -> dict[str, Card]:
        return {c.id: c for c in self.cards}

    def tile(self, tile_id: str) -> Tile:
        return self._tiles[tile_id]

    def card(self, card_id: str) -> Card:
        return self._cards[card_id]

    def item(self, item_id: str) -> Item:
        return next(i for i in self.items if i.id == item_id)

    def special(self, special_id: str) -> SpecialItem:
        return next(s for s in self.special_items if s.id == special_id)

    def villain(self, villain_id: str) -> Villain:
        return next(v for v in self.villains if v.id == villain_id)

    def role(self, role: str) -> Tile:
        """The tile that plays ``role`` (exactly one does)."""
        return next(t for t in self.tiles if t.role == role)

    def stack_tiles(self, stack: str) -> list[str]:
        """The ids of a stack's tiles, start tile excluded, in file order."""
        return [t.id for t in self.tiles if t.stack == stack and t.role != "start"]


def _check(c: PocketContent) -> None:
    def fail(message: str) -> None:
        raise ContentError(f"pocket.json: {message}")

    if len({t.id for t in c.tiles}) != len(c.tiles):
        fail("tile ids must be unique")
    for stack in ("forest", "kingdom"):
        n = sum(1 for t in c.tiles if t.stack == stack)
        if n != 8:
            fail(f"the {stack} has {n} tiles; the game has 8")
    stacks = {"start": "forest", "rose": "forest", "cottage": "forest",
              "forest_path": "forest", "kingdom_path": "kingdom", "castle": "kingdom"}
    for role, stack in stacks.items():
        holders = [t for t in c.tiles if t.role == role]
        if len(holders) != 1:
            fail(f"exactly one tile must have the role {role!r} ({len(holders)} do)")
        if holders[0].stack != stack:
            fail(f"tile {holders[0].id!r} ({role}) belongs in the {stack} stack")
    needs = {"rose": "rose", "wake": "cottage", "reunite": "castle"}
    for t in c.tiles:
        if set(t.edges) != set(SIDES):
            fail(f"tile {t.id!r} needs exactly the four edges n, e, s, w")
        roses = [s for s, e in t.edges.items() if e == "roses"]
        if roses and t.role != "rose":
            fail(f"tile {t.id!r}: only the Rose Garden has rose bushes")
        if len(roses) == 4:
            fail(f"tile {t.id!r}: rose bushes on every side, nobody could enter")
        role = needs.get(t.instruction.kind)
        if role is not None and t.role != role:
            fail(f"tile {t.id!r}: the instruction {t.instruction.kind!r} belongs to the "
                 f"{role} tile")
    for kind, role in needs.items():
        if c.role(role).instruction.kind != kind:
            fail(f"the {role} tile's instruction must be {kind!r}")
    if tuple(sorted(i.id for i in c.items)) != tuple(sorted(ITEM_IDS)):
        fail("items must be the ten regular items of the rulebook")
    if tuple(sorted(s.id for s in c.special_items)) != tuple(sorted(SPECIAL_IDS)):
        fail("special_items must be the mirror, the wand and the boots")
    if sorted(v.id for v in c.villains) != ["dragon", "robbers", "troll", "witch"]:
        fail("villains must be robbers, troll, witch and dragon")
    if len(c.cards) != 10 or len({k.id for k in c.cards}) != 10:
        fail("there are 10 development cards with distinct ids")
    if sorted(k.item for k in c.cards) != sorted(ITEM_IDS):
        fail("every regular item is on exactly one development card")
    for k in c.cards:
        if len(k.lines) != len(c.times):
            fail(f"card {k.id!r} needs one line per time of day ({len(c.times)})")
    if c.rules.set_aside >= len(c.cards):
        fail("rules.set_aside must leave cards to draw")
    if c.rules.start_health > c.rules.max_health or c.rules.start_gold > c.rules.max_gold:
        fail("a start value is above its limit")


@cache
def load_content(path: str | None = None) -> PocketContent:
    """The validated content (cached); ``path`` overrides ``data/pocket.json``."""
    file = Path(path) if path else DATA_PATH
    try:
        return PocketContent.model_validate(json.loads(file.read_text(encoding="utf-8")))
    except ValidationError as exc:
        raise ContentError(f"{file.name}: {exc}") from exc
