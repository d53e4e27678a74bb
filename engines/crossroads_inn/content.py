"""Crossroads Inn content: tiles, Recipes, Kingdom Cards, boards and die as validated data.

Everything the rules refer to by name lives in ``data/crossroads_inn/*.json``; this module
declares a frozen pydantic model for every piece, loads the files, validates each entry and
cross-checks the whole (counts against ``game.json``, references, the combinations chart).
Any problem raises :class:`ContentError` (a ``ValueError``) whose message names the file and
the entry, e.g. ``inn_tiles.json: tile 'steel_cages' ...``. Each file carries an ``_about``
block saying what comes from the rulebook and what is the project's own design.

An effect is always data an engine can execute: a ``kind`` from the closed set
:data:`EFFECT_KINDS` plus typed parameters, with a short display ``text`` beside it
(:class:`EffectBlock`). :data:`LEGEND_ICONS` maps every effect icon of the rulebook's Legend
to its kind (or to a block shape for the single, double and triple effect icons).

>>> c = load_content()
>>> len(c.inn_tiles), sum(t.copies for t in c.inn_tiles), len(c.basic_tiles), len(c.recipes)
(60, 120, 16, 15)
>>> steel = c.tile("steel_cages")
>>> steel.category, steel.tier, steel.cost.or_gossips.gossip, steel.cost.or_gossips.count
('services', 2, 'economic', 3)
>>> [e.kind for e in steel.on_build]
['reputation', 'guldens', 'revenue']
>>> c.kingdom_card(9).title, c.combination(10, 9)
('Some sacrifices', 'interesting')
>>> c.basic_tile("garden_patch").on_cover.effects[0].kind
'extra_ingredient'
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

DATA_DIR = Path(__file__).resolve().parent.parent.parent / "data" / "crossroads_inn"

Group = Literal["distressed", "outlaws", "travellers", "townsfolk", "nobles"]
"""The five social groups of the Reputation Board."""
GROUPS: tuple[str, ...] = ("distressed", "outlaws", "travellers", "townsfolk", "nobles")

GossipType = Literal["economic", "political", "travellers"]
GOSSIP_TYPES: tuple[str, ...] = ("economic", "political", "travellers")

CategoryId = Literal["furnishings", "services", "workers", "special_guests"]
"""The four types of Inn Tiles (yellow, brown, blue, red)."""
CATEGORIES: tuple[str, ...] = ("furnishings", "services", "workers", "special_guests")

Tier = Literal[1, 2]
Ring = Literal["outer", "inner"]
Shape = Literal["single", "double", "triple"]
SHAPE_SIZE = {"single": 1, "double": 2, "triple": 3}
Source = Literal["rulebook", "project"]


class ContentError(ValueError):
    """A data file is inconsistent; the message names the file and the bad entry."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class About(_Model):
    """Provenance of a data file: what the rulebook gives and what the project designed."""

    from_the_rulebook: tuple[str, ...] = Field(min_length=1)
    project_design: tuple[str, ...] = Field(min_length=1)
    notes: tuple[str, ...] = ()


class _File(_Model):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)
    about: About = Field(alias="_about")


# --------------------------------------------------------------------------- effects


class _Effect(_Model):
    """Base of every effect: ``is_loss`` says whether it takes something away."""

    @property
    def is_loss(self) -> bool:
        return False


class _Loss(_Effect):
    @property
    def is_loss(self) -> bool:
        return True


class _Amount(_Effect):
    """An effect with a signed, non-zero amount (negative: a loss)."""

    amount: int

    @model_validator(mode="after")
    def _nonzero(self) -> _Amount:
        if self.amount == 0:
            raise ValueError(f"{self.kind} amount must not be 0")  # type: ignore[attr-defined]
        return self

    @property
    def is_loss(self) -> bool:
        return self.amount < 0


class _Positive(_Effect):
    amount: int = Field(default=1, ge=1)


class Prestige(_Amount):
    """Move the Prestige pawn by ``amount`` (beer mug icon)."""

    kind: Literal["prestige"] = "prestige"


class Revenue(_Amount):
    """Move the Inn's Revenue token by ``amount`` (coins icon)."""

    kind: Literal["revenue"] = "revenue"


class Guldens(_Amount):
    """Receive ``amount`` guldens; a negative amount is that many Debt Tokens."""

    kind: Literal["guldens"] = "guldens"
    to: Literal["chest", "pouch"] = "chest"


class Gossip(_Amount):
    """Receive (or, if negative, return) gossips of one type."""

    kind: Literal["gossip"] = "gossip"
    gossip: GossipType


class GossipAny(_Amount):
    """Receive (or, if negative, discard) gossips of types of the player's choice."""

    kind: Literal["gossip_any"] = "gossip_any"


class Reputation(_Amount):
    """Move the token on the named group's Reputation track."""

    kind: Literal["reputation"] = "reputation"
    group: Group


class ReputationAny(_Amount):
    """Move the token on the track of any one group of the player's choice."""

    kind: Literal["reputation_any"] = "reputation_any"


class Ingredient(_Effect):
    """Put one token of the ingredient on the tile's back (fruit icon)."""

    kind: Literal["ingredient"] = "ingredient"
    ingredient: str


class ExtraIngredient(_Positive):
    """When covered by an ingredient-giving tile, put ``amount`` extra tokens on that tile."""

    kind: Literal["extra_ingredient"] = "extra_ingredient"


class RecipeDraw(_Positive):
    """Draw ``amount`` Recipe Cards into the hand."""

    kind: Literal["recipe_draw"] = "recipe_draw"


class InvestmentPick(_Positive):
    """Put a tile of the Investment Track on a free reserving space; refill from its pouch."""

    kind: Literal["investment_pick"] = "investment_pick"


class Dice(_Effect):
    """Roll the Random Events Die and resolve the event of the face rolled."""

    kind: Literal["dice"] = "dice"


class DiceGuldens(_Effect):
    """Roll the die and receive as many guldens as the number rolled."""

    kind: Literal["dice_guldens"] = "dice_guldens"


class SpecialAction(_Effect):
    """Perform the Special Action of the named group (star icon)."""

    kind: Literal["special_action"] = "special_action"
    group: Group


# the reversals of covering a Basic Inn Tile (Legend)


class RecipeDiscard(_Loss):
    """Discard ``amount`` Recipe Cards from the hand, at random or chosen."""

    kind: Literal["recipe_discard"] = "recipe_discard"
    amount: int = Field(default=1, ge=1)
    random: bool = True


class ReservedDiscard(_Loss):
    """Discard ``amount`` of the player's reserved tiles."""

    kind: Literal["reserved_discard"] = "reserved_discard"
    amount: int = Field(default=1, ge=1)


class DiceDebt(_Loss):
    """Roll the die and receive as many Debt Tokens as the number rolled."""

    kind: Literal["dice_debt"] = "dice_debt"


# the actions of Special Actions and gossips


class _Action(_Effect):
    """Base of the actions of Special Actions and gossips."""


class RecipeDrawKeep(_Action):
    """Draw ``draw`` Recipe Cards, keep ``keep``, discard the others."""

    kind: Literal["recipe_draw_keep"] = "recipe_draw_keep"
    draw: int = Field(ge=2)
    keep: int = Field(ge=1)


class RecipeSteal(_Action):
    """Take random Recipe Cards from another player's hand; they may draw replacements."""

    kind: Literal["recipe_steal"] = "recipe_steal"
    amount: int = Field(default=1, ge=1)
    victim_redraws: bool = True


class ReservedExchange(_Action):
    """Exchange a reserved tile for a same-tier tile of the Investment Track or discard pile."""

    kind: Literal["reserved_exchange"] = "reserved_exchange"
    same_tier: bool = True


class ReservedSwap(_Action):
    """Exchange a reserved tile for one of another player's reserved tiles."""

    kind: Literal["reserved_swap"] = "reserved_swap"


class ReservedReturn(_Action):
    """Put a reserved tile back into the pouch of its tier."""

    kind: Literal["reserved_return"] = "reserved_return"


class Steal(_Action):
    """Take guldens (and gossips) from ``opponents`` opponents."""

    kind: Literal["steal"] = "steal"
    opponents: int = Field(ge=1, le=3)
    guldens: int = Field(ge=0)
    gossips: int = Field(ge=0)
    into: Literal["chest", "pouch"] = "pouch"


class ReputationLower(_Action):
    """Lower by ``amount`` one Reputation of each of ``opponents`` opponents (track chosen)."""

    kind: Literal["reputation_lower"] = "reputation_lower"
    opponents: int = Field(ge=1, le=3)
    amount: int = Field(ge=1)
    active_player_performs_special_actions: bool = True


class TrackRefresh(_Action):
    """Discard every tile of one Investment Track and refill it."""

    kind: Literal["track_refresh"] = "track_refresh"


class IngredientTileSwap(_Action):
    """Swap an ingredient-giving tile of the inn with another player's, tokens included."""

    kind: Literal["ingredient_tile_swap"] = "ingredient_tile_swap"


_EFFECT_CLASSES = (
    Prestige, Revenue, Guldens, Gossip, GossipAny, Reputation, ReputationAny, Ingredient,
    ExtraIngredient, RecipeDraw, InvestmentPick, Dice, DiceGuldens, SpecialAction,
    RecipeDiscard, ReservedDiscard, DiceDebt, RecipeDrawKeep, RecipeSteal, ReservedExchange,
    ReservedSwap, ReservedReturn, Steal, ReputationLower, TrackRefresh, IngredientTileSwap,
)  # fmt: skip

Effect = Annotated[
    Prestige
    | Revenue
    | Guldens
    | Gossip
    | GossipAny
    | Reputation
    | ReputationAny
    | Ingredient
    | ExtraIngredient
    | RecipeDraw
    | InvestmentPick
    | Dice
    | DiceGuldens
    | SpecialAction
    | RecipeDiscard
    | ReservedDiscard
    | DiceDebt
    | RecipeDrawKeep
    | RecipeSteal
    | ReservedExchange
    | ReservedSwap
    | ReservedReturn
    | Steal
    | ReputationLower
    | TrackRefresh
    | IngredientTileSwap,
    Field(discriminator="kind"),
]
"""One executable effect: its ``kind`` selects the model and its typed parameters."""

EFFECT_KINDS: frozenset[str] = frozenset(c.model_fields["kind"].default for c in _EFFECT_CLASSES)
"""The closed set of effect kinds."""

LEGEND_KINDS: frozenset[str] = frozenset({
    "prestige", "revenue", "guldens", "gossip", "gossip_any", "ingredient", "extra_ingredient",
    "reputation", "reputation_any", "recipe_draw", "investment_pick", "dice", "dice_guldens",
    "special_action",
})  # fmt: skip
"""Kinds printed as icons on tiles and cards (the rulebook's Legend)."""

REVERSAL_KINDS: frozenset[str] = frozenset({"recipe_discard", "reserved_discard", "dice_debt"})
"""Kinds that only undo a Legend icon when its Basic Inn Tile is covered."""

ACTION_KINDS: frozenset[str] = EFFECT_KINDS - LEGEND_KINDS - REVERSAL_KINDS
"""Kinds used by Special Actions and gossip actions only."""

LEGEND_ICONS: dict[str, str] = {
    "Single effect": "shape:single",
    "Double effect": "shape:double",
    "Triple effect": "shape:triple",
    "Dice": "dice",
    "Special Action": "special_action",
    "Inn's Prestige": "prestige",
    "Gulden": "guldens",
    "Prestige": "prestige",
    "Inn's Revenue": "revenue",
    "Specific gossips": "gossip",
    "Any gossip": "gossip_any",
    "Ingredient": "ingredient",
    "Reputation, given groups": "reputation",
    "Reputation, any group": "reputation_any",
    "Recipe Card draw": "recipe_draw",
    "Extra ingredient": "extra_ingredient",
    "Investment Track pick": "investment_pick",
    "Dice-and-debt": "dice_guldens",
}
"""Every effect icon of the Legend, mapped to its effect kind or block shape."""

LEGEND_REVERSALS: dict[str, str] = {
    "Recipe Card draw": "recipe_discard",
    "Investment Track pick": "reserved_discard",
    "Dice-and-debt": "dice_debt",
}
"""The Legend's rule for covering a Basic Inn Tile that shows the icon."""

LEGEND_GLYPHS: tuple[str, ...] = (
    "Cost", "Alternative cost", "Tier icon", "Recipe Card", "Recipe Cards deck",
    "Recipe Card discard pile", "Recipe Cards in hand", "Active player", "Opposing player",
    "Pouch for Inn Tiles", "Random card", "Discard pile of Inn Tiles", "Reserved Inn Tile",
)  # fmt: skip
"""Legend entries that are not effects: costs and tiers are fields, the rest are glyphs of
the printed schematics."""

_SIGNED = frozenset({"prestige", "revenue", "guldens", "gossip", "gossip_any", "reputation",
                     "reputation_any"})  # fmt: skip


def reverse(effect: Any) -> Any:
    """What covering a Basic Inn Tile undoes for one of its effects.

    >>> reverse(RecipeDraw(amount=2))
    RecipeDiscard(kind='recipe_discard', amount=2, random=True)
    >>> reverse(Prestige(amount=2)).amount
    -2
    """
    if effect.kind in _SIGNED - {"guldens"}:
        return effect.model_copy(update={"amount": -effect.amount})
    if effect.kind == "recipe_draw":
        return RecipeDiscard(amount=effect.amount, random=True)
    if effect.kind == "investment_pick":
        return ReservedDiscard(amount=effect.amount)
    if effect.kind == "dice_guldens":
        return DiceDebt()
    raise ValueError(f"a {effect.kind} effect cannot be reduced when its tile is covered")


REVERSIBLE_KINDS: frozenset[str] = (_SIGNED - {"guldens"}) | {
    "recipe_draw", "investment_pick", "dice_guldens",
}  # fmt: skip


class EffectBlock(_Model):
    """A single, double or triple effect: all its effects apply, in order."""

    shape: Shape
    effects: tuple[Effect, ...] = Field(min_length=1, max_length=3)
    text: str = Field(min_length=1)

    @model_validator(mode="after")
    def _shape(self) -> EffectBlock:
        if len(self.effects) != SHAPE_SIZE[self.shape]:
            raise ValueError(
                f"a {self.shape} effect needs {SHAPE_SIZE[self.shape]} effect(s), "
                f"has {len(self.effects)}"
            )
        return self

    @property
    def kinds(self) -> list[str]:
        return [e.kind for e in self.effects]


def _only(block: EffectBlock | None, allowed: frozenset[str], what: str) -> None:
    for e in block.effects if block else ():
        if e.kind not in allowed:
            raise ValueError(f"{what}: effect kind {e.kind!r} is not allowed here")


def _gains_only(block: EffectBlock | None, what: str) -> None:
    for e in block.effects if block else ():
        if e.is_loss:
            raise ValueError(f"{what}: {e.kind} {getattr(e, 'amount', '')} is a loss")


_TILE_KINDS = LEGEND_KINDS - {"ingredient", "extra_ingredient"}


# --------------------------------------------------------------------------- inn tiles


class GossipCost(_Model):
    gossip: GossipType
    count: int = Field(ge=1, le=3)


class Cost(_Model):
    """A single cost in guldens, or two alternatives: guldens OR gossips of one type."""

    guldens: int = Field(ge=1)
    or_gossips: GossipCost | None = None

    @property
    def alternative(self) -> bool:
        return self.or_gossips is not None


class Category(_Model):
    id: CategoryId
    name: str
    colour: Literal["yellow", "brown", "blue", "red"]


class WorkerGroup(_Model):
    id: str
    name: str
    description: str = Field(min_length=1)
    members: tuple[str, ...]


class InnTile(_Model):
    """One Inn Tile design (``copies`` physical tiles)."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    name_source: Source
    category: CategoryId
    tier: Tier
    copies: int = Field(ge=1)
    cost: Cost
    cost_text: str = Field(min_length=1)
    effect: EffectBlock
    ingredient: str | None = None
    drawback: EffectBlock | None = None
    worker_group: str | None = None
    social_group: Group | None = None

    @model_validator(mode="after")
    def _check(self) -> InnTile:
        _only(self.effect, _TILE_KINDS, "effect")
        _gains_only(self.effect, "effect")
        if (self.drawback is not None) != (self.category == "services"):
            raise ValueError("a negative effect (drawback) is on Services tiles only, and on all")
        _only(self.drawback, _SIGNED | REVERSAL_KINDS, "drawback")
        for e in self.drawback.effects if self.drawback else ():
            if not e.is_loss:
                raise ValueError(f"drawback: {e.kind} is not a loss")
        if (self.worker_group is not None) != (self.category == "workers"):
            raise ValueError("worker_group is given for Workers tiles only, and for all")
        if (self.social_group is not None) != (self.category == "special_guests"):
            raise ValueError("social_group is given for Special Guests tiles only, and for all")
        if self.social_group is not None and not any(
            e.kind == "reputation" and e.group == self.social_group for e in self.effect.effects
        ):
            raise ValueError(f"a Special Guest gives Reputation with its group {self.social_group}")
        return self

    @property
    def on_build(self) -> tuple[Any, ...]:
        """Everything placing the tile does, left to right: effect, ingredient, drawback."""
        extra = (Ingredient(ingredient=self.ingredient),) if self.ingredient else ()
        drawback = self.drawback.effects if self.drawback else ()
        return (*self.effect.effects, *extra, *drawback)

    def __repr__(self) -> str:
        return f"<InnTile {self.id} {self.category} tier {self.tier}>"


class InnTilesFile(_File):
    categories: tuple[Category, ...]
    worker_groups: tuple[WorkerGroup, ...]
    tiles: tuple[InnTile, ...]


# --------------------------------------------------------------------------- basic tiles


class CoverEffects(_Model):
    """What covering a Basic Inn Tile does: its reversals (and the Garden Patch's bonus)."""

    effects: tuple[Effect, ...] = Field(min_length=1)
    text: str = Field(min_length=1)


class BasicTile(_Model):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    name_source: Source
    on_build: EffectBlock | None = None
    on_cover: CoverEffects

    @model_validator(mode="after")
    def _check(self) -> BasicTile:
        _only(self.on_build, REVERSIBLE_KINDS, "on_build (must be reversible)")
        _gains_only(self.on_build, "on_build")
        built = self.on_build.effects if self.on_build else ()
        expected = [reverse(e) for e in built]
        reversals = [e for e in self.on_cover.effects if e.kind != "extra_ingredient"]
        if reversals != expected:
            want = [e.model_dump() for e in expected]
            raise ValueError(f"on_cover must reverse on_build exactly: expected {want}")
        if not built and len(reversals) == len(self.on_cover.effects) == 0:
            raise ValueError("the tile does nothing")
        return self

    @property
    def cover_bonus(self) -> tuple[Any, ...]:
        """Bonuses of covering (the Garden Patch's extra ingredient), not reversals."""
        return tuple(e for e in self.on_cover.effects if e.kind == "extra_ingredient")


class BasicTilesFile(_File):
    tiles: tuple[BasicTile, ...]


# --------------------------------------------------------------------------- resources


class GossipKind(_Model):
    id: GossipType
    name: str
    ribbon: Literal["green", "blue", "red"]
    tokens: int = Field(ge=1)


class GossipAction(_Model):
    id: str
    gossip: GossipType
    spend: int = Field(ge=1, le=3)
    players: tuple[Literal[2, 3, 4], ...] = Field(min_length=1)
    effects: tuple[Effect, ...] = Field(min_length=1)
    text: str = Field(min_length=1)


class IngredientKind(_Model):
    id: str
    name: str
    rarity: Literal[1, 2, 3]
    tokens: int = Field(ge=1)
    printed_rarity_count: int = Field(ge=1)
    aka: str | None = None


class TokenStack(_Model):
    value: int
    tokens: int = Field(ge=1)


class GuldenTokens(_Model):
    coins: tuple[TokenStack, ...]
    debts: tuple[TokenStack, ...]


class ResourcesFile(_File):
    gossips: tuple[GossipKind, ...]
    gossip_actions: tuple[GossipAction, ...]
    actions_per_gossip_type_per_turn: int = Field(ge=1)
    ingredients: tuple[IngredientKind, ...]
    guldens: GuldenTokens


# --------------------------------------------------------------------------- recipes


class Recipe(_Model):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    name_source: Source
    advanced: bool
    ingredients: tuple[str, ...] = Field(min_length=1, max_length=5)
    reward: EffectBlock

    @model_validator(mode="after")
    def _check(self) -> Recipe:
        if len(set(self.ingredients)) != len(self.ingredients):
            raise ValueError("an ingredient is listed twice (one of each is needed)")
        _only(self.reward, _TILE_KINDS, "reward")
        _gains_only(self.reward, "reward")
        return self


class RecipesFile(_File):
    recipes: tuple[Recipe, ...]


# --------------------------------------------------------------------------- kingdom cards


class AdjacentTo(_Model):
    """Tiles of ``category`` must be placed orthogonally next to a tile of ``to``."""

    kind: Literal["adjacent_to"] = "adjacent_to"
    category: CategoryId
    to: CategoryId


class RingOnly(_Model):
    """Tiles of ``category`` (or every ingredient-giving tile) only on ``ring``."""

    kind: Literal["ring_only"] = "ring_only"
    ring: Ring
    category: CategoryId | None = None
    with_ingredient: bool = False

    @model_validator(mode="after")
    def _one_selector(self) -> RingOnly:
        if (self.category is None) == (not self.with_ingredient):
            raise ValueError("ring_only selects by category or by with_ingredient, not both")
        return self


class MaxPerCategory(_Model):
    kind: Literal["max_per_category"] = "max_per_category"
    limit: int = Field(ge=1)


class SingleLine(_Model):
    """Tiles of ``category`` all in one row or all in one column."""

    kind: Literal["single_line"] = "single_line"
    category: CategoryId


class NotAdjacentSame(_Model):
    kind: Literal["not_adjacent_same"] = "not_adjacent_same"
    category: CategoryId


class SameTurnNotAdjacent(_Model):
    kind: Literal["same_turn_not_adjacent"] = "same_turn_not_adjacent"


class RingEffects(_Model):
    """Effects applied when an Inn Tile is placed on the inner or the outer ring."""

    kind: Literal["ring_effects"] = "ring_effects"
    inner: tuple[Effect, ...]
    outer: tuple[Effect, ...]


class LineSupply(_Model):
    players: tuple[Literal[2, 3, 4], ...] = Field(min_length=1)
    gossips_each: int = Field(ge=0)
    guldens: int = Field(ge=0)


class LineBonusEntry(_Model):
    category: CategoryId
    effects: tuple[Effect, ...] = Field(min_length=1)


class LineBonus(_Model):
    """``length`` tiles of one category in a line pay the category's bonus from the card."""

    kind: Literal["line_bonus"] = "line_bonus"
    length: int = Field(ge=2)
    supply: tuple[LineSupply, ...]
    bonuses: tuple[LineBonusEntry, ...]

    def supply_for(self, players: int) -> LineSupply:
        return next(s for s in self.supply if players in s.players)


class CornerExtraIngredient(_Model):
    kind: Literal["corner_extra_ingredient"] = "corner_extra_ingredient"
    amount: int = Field(default=1, ge=1)


KingdomRule = Annotated[
    AdjacentTo
    | RingOnly
    | MaxPerCategory
    | SingleLine
    | NotAdjacentSame
    | SameTurnNotAdjacent
    | RingEffects
    | LineBonus
    | CornerExtraIngredient,
    Field(discriminator="kind"),
]


class KingdomCard(_Model):
    number: int
    title: str = Field(min_length=1)
    text: str = Field(min_length=1)
    rule: KingdomRule
    rule_text: str = Field(min_length=1)


class ChartPair(_Model):
    a: int
    b: int
    kind: Literal["interesting", "neutral", "difficult"]


class Chart(_Model):
    legend: dict[str, str]
    pairs: tuple[ChartPair, ...]


class KingdomFile(_File):
    per_game: int = Field(ge=1)
    cards: tuple[KingdomCard, ...]
    chart: Chart


# --------------------------------------------------------------------------- die


class DieFace(_Model):
    face: int
    effects: tuple[Effect, ...] = Field(min_length=1)
    text: str = Field(min_length=1)


class DieFile(_File):
    faces: tuple[DieFace, ...]


# --------------------------------------------------------------------------- boards


class TrackSpace(_Model):
    space: int
    prestige: int


class ActionOption(_Model):
    effects: tuple[Effect, ...] = Field(min_length=1)
    text: str = Field(min_length=1)


class GroupSpecialAction(_Model):
    """A group's Special Action: every option applies, or the player chooses one."""

    choose_one: bool
    optional: bool
    options: tuple[ActionOption, ...] = Field(min_length=1)


class ReputationGroup(_Model):
    id: Group
    name: str
    start: int
    track: tuple[TrackSpace, ...]
    special_action_space: int
    special_action: GroupSpecialAction

    def prestige_at(self, space: int) -> int:
        return next(s.prestige for s in self.track if s.space == space)


class ReputationBoard(_Model):
    min: int
    max: int
    below_min_prestige_per_space: int
    above_max_special_action: bool
    groups: tuple[ReputationGroup, ...]


class PrestigeTrack(_Model):
    start: int
    min: int
    lap: int
    lap_tiles: int


class InvestmentTrack(_Model):
    tier: Tier
    slots: int = Field(ge=1)
    bracket: Literal["silver", "gold"]


class InnSpace(_Model):
    id: str
    column: int
    row: int
    basic: bool
    ring: Ring


class RevenueTrack(_Model):
    min: int
    max: int
    start: int
    above_max_guldens: int


class Doors(_Model):
    open: int
    closed: int


class InnBoard(_Model):
    columns: int = Field(ge=1)
    rows: int = Field(ge=1)
    spaces: tuple[InnSpace, ...]
    revenue_track: RevenueTrack
    doors: Doors
    gossip_spaces_per_type: int
    reserved_spaces: int
    chest_gulden_limit: int

    def space_at(self, column: int, row: int) -> InnSpace:
        return next(s for s in self.spaces if s.column == column and s.row == row)

    def neighbours(self, space_id: str) -> list[str]:
        """Orthogonally adjacent spaces ("next to")."""
        here = next(s for s in self.spaces if s.id == space_id)
        return [
            s.id for s in self.spaces if abs(s.column - here.column) + abs(s.row - here.row) == 1
        ]


class BoardsFile(_File):
    reputation: ReputationBoard
    prestige_track: PrestigeTrack
    investment_tracks: tuple[InvestmentTrack, ...]
    inn_board: InnBoard


# --------------------------------------------------------------------------- game


class Players(_Model):
    min: int
    max: int


class Components(_Model):
    inn_tiles: int
    inn_tile_designs: int
    copies_per_design: int
    designs_per_category: int
    designs_per_category_tier_1: int
    designs_per_category_tier_2: int
    worker_groups: int
    workers_per_group: int
    basic_inn_tiles: int
    recipes: int
    advanced_recipes: int
    kingdom_cards: int
    gossip_tokens: int
    gulden_and_debt_tokens: int
    ingredient_tokens: int
    ingredients: int
    prestige_40_tiles: int
    guest_tiles: int
    player_tokens: int
    player_boards: int
    figurines: int
    rules_summary_cards: int
    pouches: int
    dice: int


class Setup(_Model):
    basic_tiles_per_player: int
    starting_gossips_per_type: int
    starting_recipes: int
    remove_advanced_recipes_with_two_players: bool
    kingdom_cards_in_play: int


class Turn(_Model):
    phases: tuple[str, ...]
    tiles_bought_per_turn: int
    tiles_reserved_per_turn: int
    guest_impression_per_turn: int


class End(_Model):
    spaces_to_cover: int
    corners_count: bool


class Scoring(_Model):
    guldens_per_prestige: int
    per_gossip: int
    per_ingredient: int
    per_debt_token: int
    per_uncompleted_recipe: int
    tie_breaks: tuple[Group, ...]


class GameFile(_File):
    game_id: str
    name: str
    players: Players
    components: Components
    setup: Setup
    turn: Turn
    end: End
    scoring: Scoring
    options: dict[str, str]


# --------------------------------------------------------------------------- all content

FILES: dict[str, tuple[str, type[_File]]] = {
    "game": ("game.json", GameFile),
    "inn_tiles_file": ("inn_tiles.json", InnTilesFile),
    "basic_tiles_file": ("basic_tiles.json", BasicTilesFile),
    "resources": ("resources.json", ResourcesFile),
    "recipes_file": ("recipes.json", RecipesFile),
    "kingdom": ("kingdom_cards.json", KingdomFile),
    "die": ("die.json", DieFile),
    "boards": ("boards.json", BoardsFile),
}
"""Field of :class:`CrossroadsContent` -> (file name in the data directory, its model)."""


class CrossroadsContent(_Model):
    """All Crossroads Inn content, validated and cross-checked. Get it with load_content."""

    game: GameFile
    inn_tiles_file: InnTilesFile
    basic_tiles_file: BasicTilesFile
    resources: ResourcesFile
    recipes_file: RecipesFile
    kingdom: KingdomFile
    die: DieFile
    boards: BoardsFile

    # views -------------------------------------------------------------------------------

    @property
    def inn_tiles(self) -> tuple[InnTile, ...]:
        return self.inn_tiles_file.tiles

    @property
    def basic_tiles(self) -> tuple[BasicTile, ...]:
        return self.basic_tiles_file.tiles

    @property
    def recipes(self) -> tuple[Recipe, ...]:
        return self.recipes_file.recipes

    @property
    def kingdom_cards(self) -> tuple[KingdomCard, ...]:
        return self.kingdom.cards

    @property
    def ingredients(self) -> tuple[IngredientKind, ...]:
        return self.resources.ingredients

    @property
    def categories(self) -> tuple[Category, ...]:
        return self.inn_tiles_file.categories

    @property
    def worker_groups(self) -> tuple[WorkerGroup, ...]:
        return self.inn_tiles_file.worker_groups

    @property
    def groups(self) -> tuple[ReputationGroup, ...]:
        return self.boards.reputation.groups

    @cached_property
    def _index(self) -> dict[str, dict[Any, Any]]:
        return {
            "tile": {t.id: t for t in self.inn_tiles},
            "basic tile": {t.id: t for t in self.basic_tiles},
            "recipe": {r.id: r for r in self.recipes},
            "ingredient": {i.id: i for i in self.ingredients},
            "kingdom card": {k.number: k for k in self.kingdom_cards},
            "category": {c.id: c for c in self.categories},
            "worker group": {g.id: g for g in self.worker_groups},
            "group": {g.id: g for g in self.groups},
            "die face": {f.face: f for f in self.die.faces},
            "gossip action": {a.id: a for a in self.resources.gossip_actions},
            "pair": {frozenset((p.a, p.b)): p.kind for p in self.kingdom.chart.pairs},
        }

    def _get(self, table: str, key: Any) -> Any:
        try:
            return self._index[table][key]
        except KeyError:
            raise ContentError(f"no {table} {key!r}") from None

    def tile(self, tile_id: str) -> InnTile:
        return self._get("tile", tile_id)

    def basic_tile(self, tile_id: str) -> BasicTile:
        return self._get("basic tile", tile_id)

    def recipe(self, recipe_id: str) -> Recipe:
        return self._get("recipe", recipe_id)

    def ingredient(self, ingredient_id: str) -> IngredientKind:
        return self._get("ingredient", ingredient_id)

    def kingdom_card(self, number: int) -> KingdomCard:
        return self._get("kingdom card", number)

    def category(self, category_id: str) -> Category:
        return self._get("category", category_id)

    def worker_group(self, group_id: str) -> WorkerGroup:
        return self._get("worker group", group_id)

    def group(self, group_id: str) -> ReputationGroup:
        return self._get("group", group_id)

    def die_face(self, face: int) -> DieFace:
        return self._get("die face", face)

    def gossip_action(self, action_id: str) -> GossipAction:
        return self._get("gossip action", action_id)

    def combination(self, a: int, b: int) -> str:
        """The chart's kind for two different Kingdom Cards, in either order."""
        return self._get("pair", frozenset((a, b)))

    def colour(self, tile: InnTile) -> str:
        return self.category(tile.category).colour

    def tiles_in(self, category: str | None = None, tier: int | None = None) -> list[InnTile]:
        return [
            t
            for t in self.inn_tiles
            if (category is None or t.category == category) and (tier is None or t.tier == tier)
        ]

    def pouch(self, tier: int) -> list[str]:
        """The tile ids in the pouch of a tier at setup, one per physical tile."""
        return [t.id for t in self.tiles_in(tier=tier) for _ in range(t.copies)]

    def ingredient_tiles(self, ingredient_id: str) -> list[InnTile]:
        return [t for t in self.inn_tiles if t.ingredient == ingredient_id]


# --------------------------------------------------------------------------- checks


def _fail(message: str) -> None:
    raise ContentError(message)


def _unique(where: str, what: str, values: Iterable[Any]) -> None:
    seen: set[Any] = set()
    for v in values:
        if v in seen:
            _fail(f"{where}: duplicate {what} {v!r}")
        seen.add(v)


def _cross_check(c: CrossroadsContent) -> None:
    comp = c.game.components
    _check_inn_tiles(c, comp)
    _check_basic_tiles(c, comp)
    _check_resources(c, comp)
    _check_recipes(c, comp)
    _check_kingdom(c, comp)
    _check_die(c)
    _check_boards(c)


def _check_inn_tiles(c: CrossroadsContent, comp: Components) -> None:
    f = "inn_tiles.json"
    _unique(f, "category", (k.id for k in c.categories))
    if {k.id for k in c.categories} != set(CATEGORIES):
        _fail(f"{f}: categories must be exactly {', '.join(CATEGORIES)}")
    _unique(f, "tile id", (t.id for t in c.inn_tiles))
    _unique(f, "tile name", (t.name.lower() for t in c.inn_tiles))
    ingredients = {i.id for i in c.ingredients}
    for t in c.inn_tiles:
        if t.copies != comp.copies_per_design:
            _fail(f"{f}: tile {t.id!r} has {t.copies} copies, expected {comp.copies_per_design}")
        if t.ingredient is not None and t.ingredient not in ingredients:
            _fail(f"{f}: tile {t.id!r} offers unknown ingredient {t.ingredient!r}")
    if len(c.inn_tiles) != comp.inn_tile_designs:
        _fail(f"{f}: {len(c.inn_tiles)} tile designs, expected {comp.inn_tile_designs}")
    total = sum(t.copies for t in c.inn_tiles)
    if total != comp.inn_tiles:
        _fail(f"{f}: {total} Inn Tiles in all, expected {comp.inn_tiles}")
    per_tier = {1: comp.designs_per_category_tier_1, 2: comp.designs_per_category_tier_2}
    for cat in CATEGORIES:
        n = len(c.tiles_in(cat))
        if n != comp.designs_per_category:
            _fail(f"{f}: category {cat!r} has {n} designs, expected {comp.designs_per_category}")
        for tier, want in per_tier.items():
            n = len(c.tiles_in(cat, tier))
            if n != want:
                _fail(f"{f}: category {cat!r} tier {tier} has {n} designs, expected {want}")
    # Worker groups
    _unique(f, "worker group", (g.id for g in c.worker_groups))
    if len(c.worker_groups) != comp.worker_groups:
        _fail(f"{f}: {len(c.worker_groups)} worker groups, expected {comp.worker_groups}")
    members: Counter[str] = Counter()
    for g in c.worker_groups:
        if len(g.members) != comp.workers_per_group:
            _fail(f"{f}: worker group {g.id!r} has {len(g.members)} members, "
                  f"expected {comp.workers_per_group}")  # fmt: skip
        for m in g.members:
            members[m] += 1
            tile = c._index["tile"].get(m)
            if tile is None or tile.category != "workers":
                _fail(f"{f}: worker group {g.id!r} lists {m!r}, which is not a Workers tile")
            if tile.worker_group != g.id:
                _fail(f"{f}: tile {m!r} says worker_group {tile.worker_group!r}, "
                      f"but group {g.id!r} lists it")  # fmt: skip
    for t in c.tiles_in("workers"):
        if members[t.id] != 1:
            _fail(f"{f}: tile {t.id!r} is listed in {members[t.id]} worker groups, expected 1")


def _check_basic_tiles(c: CrossroadsContent, comp: Components) -> None:
    f = "basic_tiles.json"
    _unique(f, "basic tile id", (t.id for t in c.basic_tiles))
    _unique(f, "basic tile name", (t.name.lower() for t in c.basic_tiles))
    clash = {t.id for t in c.basic_tiles} & {t.id for t in c.inn_tiles}
    if clash:
        _fail(f"{f}: basic tile {sorted(clash)[0]!r} has the id of an Inn Tile")
    if len(c.basic_tiles) != comp.basic_inn_tiles:
        _fail(f"{f}: {len(c.basic_tiles)} Basic Inn Tiles, expected {comp.basic_inn_tiles}")
    if not any(t.cover_bonus for t in c.basic_tiles):
        _fail(f"{f}: no Basic Inn Tile has the Extra ingredient icon (the Garden Patch)")


def _check_resources(c: CrossroadsContent, comp: Components) -> None:
    f = "resources.json"
    r = c.resources
    _unique(f, "gossip type", (g.id for g in r.gossips))
    if {g.id for g in r.gossips} != set(GOSSIP_TYPES):
        _fail(f"{f}: gossips must be exactly {', '.join(GOSSIP_TYPES)}")
    if sum(g.tokens for g in r.gossips) != comp.gossip_tokens:
        _fail(f"{f}: {sum(g.tokens for g in r.gossips)} gossip tokens, "
              f"expected {comp.gossip_tokens}")  # fmt: skip
    _unique(f, "gossip action", (a.id for a in r.gossip_actions))
    for g in GOSSIP_TYPES:
        for players in (2, 3, 4):
            n = sum(1 for a in r.gossip_actions if a.gossip == g and players in a.players)
            if n == 0:
                _fail(f"{f}: no {g} gossip action for {players} players")
    _unique(f, "ingredient id", (i.id for i in r.ingredients))
    _unique(f, "ingredient name", (i.name.lower() for i in r.ingredients))
    if len(r.ingredients) != comp.ingredients:
        _fail(f"{f}: {len(r.ingredients)} ingredients, expected {comp.ingredients}")
    tokens = sum(i.tokens for i in r.ingredients)
    if tokens != comp.ingredient_tokens:
        _fail(f"{f}: {tokens} ingredient tokens, expected {comp.ingredient_tokens}")
    for i in r.ingredients:
        offered = sum(t.copies for t in c.ingredient_tiles(i.id))
        if offered != i.printed_rarity_count:
            _fail(f"{f}: ingredient {i.id!r} is offered by {offered} Inn Tiles, "
                  f"expected {i.printed_rarity_count}")  # fmt: skip
    money = sum(s.tokens for s in (*r.guldens.coins, *r.guldens.debts))
    if money != comp.gulden_and_debt_tokens:
        _fail(f"{f}: {money} gulden and debt tokens, expected {comp.gulden_and_debt_tokens}")
    for s in r.guldens.debts:
        if s.value >= 0:
            _fail(f"{f}: debt token value {s.value} must be negative")


def _check_recipes(c: CrossroadsContent, comp: Components) -> None:
    f = "recipes.json"
    _unique(f, "recipe id", (x.id for x in c.recipes))
    _unique(f, "recipe name", (x.name.lower() for x in c.recipes))
    known = {i.id for i in c.ingredients}
    for x in c.recipes:
        for ing in x.ingredients:
            if ing not in known:
                _fail(f"{f}: recipe {x.id!r} needs unknown ingredient {ing!r}")
    if len(c.recipes) != comp.recipes:
        _fail(f"{f}: {len(c.recipes)} recipes, expected {comp.recipes}")
    advanced = sum(1 for x in c.recipes if x.advanced)
    if advanced != comp.advanced_recipes:
        _fail(f"{f}: {advanced} advanced recipes, expected {comp.advanced_recipes}")


def _check_kingdom(c: CrossroadsContent, comp: Components) -> None:
    f = "kingdom_cards.json"
    n = comp.kingdom_cards
    for k in c.kingdom_cards:
        if not 1 <= k.number <= n:
            _fail(f"{f}: Kingdom Card #{k.number} ({k.title!r}): number must be 1..{n}")
    _unique(f, "Kingdom Card number", (k.number for k in c.kingdom_cards))
    missing = sorted(set(range(1, n + 1)) - {k.number for k in c.kingdom_cards})
    if missing:
        _fail(f"{f}: Kingdom Card #{missing[0]} is missing")
    if c.kingdom.per_game != c.game.setup.kingdom_cards_in_play:
        _fail(f"{f}: per_game disagrees with game.json setup.kingdom_cards_in_play")
    for k in c.kingdom_cards:
        if isinstance(k.rule, LineBonus):
            cats = [b.category for b in k.rule.bonuses]
            if sorted(cats) != sorted(CATEGORIES):
                _fail(f"{f}: Kingdom Card #{k.number}: line bonuses must cover each category once")
            for players in range(c.game.players.min, c.game.players.max + 1):
                if not any(players in s.players for s in k.rule.supply):
                    _fail(f"{f}: Kingdom Card #{k.number}: no supply for {players} players")
    seen: set[tuple[int, int]] = set()
    for p in c.kingdom.chart.pairs:
        name = f"chart pair {p.a}-{p.b}"
        if not (1 <= p.a <= n and 1 <= p.b <= n):
            _fail(f"{f}: {name}: Kingdom Card numbers must be 1..{n}")
        if p.a >= p.b:
            _fail(f"{f}: {name}: write each pair with the smaller number first, a < b")
        if (p.a, p.b) in seen:
            _fail(f"{f}: {name} is listed twice")
        seen.add((p.a, p.b))
    for a in range(1, n + 1):
        for b in range(a + 1, n + 1):
            if (a, b) not in seen:
                _fail(f"{f}: chart pair {a}-{b} is missing")


def _check_die(c: CrossroadsContent) -> None:
    faces = [x.face for x in c.die.faces]
    _unique("die.json", "face", faces)
    if sorted(faces) != list(range(1, 7)):
        _fail(f"die.json: faces must be 1..6, found {sorted(faces)}")


def _check_boards(c: CrossroadsContent) -> None:
    f = "boards.json"
    rep = c.boards.reputation
    _unique(f, "reputation group", (g.id for g in rep.groups))
    if {g.id for g in rep.groups} != set(GROUPS):
        _fail(f"{f}: reputation groups must be exactly {', '.join(GROUPS)}")
    spaces = list(range(rep.min, rep.max + 1))
    for g in rep.groups:
        if [s.space for s in g.track] != spaces:
            _fail(f"{f}: group {g.id!r}: track spaces must be {rep.min}..{rep.max} in order")
        prestige = [s.prestige for s in g.track]
        if prestige != sorted(prestige):
            _fail(f"{f}: group {g.id!r}: Prestige must not fall along the track")
        if not rep.min <= g.start <= rep.max:
            _fail(f"{f}: group {g.id!r}: start {g.start} is off the track")
        if not rep.min < g.special_action_space <= rep.max:
            _fail(f"{f}: group {g.id!r}: special action space {g.special_action_space} "
                  "is off the track")  # fmt: skip
    if c.game.scoring.tie_breaks and len(set(c.game.scoring.tie_breaks)) != len(
        c.game.scoring.tie_breaks
    ):
        _fail("game.json: a tie-break group is listed twice")
    tiers = sorted(t.tier for t in c.boards.investment_tracks)
    if tiers != [1, 2]:
        _fail(f"{f}: investment tracks must be one per tier (1 and 2), found {tiers}")
    board = c.boards.inn_board
    _unique(f, "inn space id", (s.id for s in board.spaces))
    _unique(f, "inn space position", ((s.column, s.row) for s in board.spaces))
    if len(board.spaces) != board.columns * board.rows:
        _fail(f"{f}: the inn board has {len(board.spaces)} spaces, "
              f"expected {board.columns * board.rows}")  # fmt: skip
    for s in board.spaces:
        if not (0 <= s.column < board.columns and 0 <= s.row < board.rows):
            _fail(f"{f}: inn space {s.id!r} is off the {board.columns}x{board.rows} grid")
        edge_c = s.column in (0, board.columns - 1)
        edge_r = s.row in (0, board.rows - 1)
        if s.basic != (edge_c and edge_r):
            _fail(f"{f}: inn space {s.id!r}: the Basic spaces are exactly the four corners")
        if s.ring != ("outer" if edge_c or edge_r else "inner"):
            _fail(f"{f}: inn space {s.id!r}: ring must be 'outer' on the edge, else 'inner'")
    inn_spaces = sum(1 for s in board.spaces if not s.basic)
    if inn_spaces != c.game.end.spaces_to_cover:
        _fail(f"{f}: {inn_spaces} non-corner spaces, game.json says "
              f"{c.game.end.spaces_to_cover} are covered to end the game")  # fmt: skip
    rev = board.revenue_track
    if not rev.min <= rev.start <= rev.max:
        _fail(f"{f}: Inn's Revenue start {rev.start} is off the track")
    pt = c.boards.prestige_track
    if not pt.min <= pt.start < pt.lap:
        _fail(f"{f}: Prestige start {pt.start} is off the track")
    if pt.lap_tiles != c.game.components.prestige_40_tiles:
        _fail(f"{f}: prestige_track.lap_tiles disagrees with game.json components")


# --------------------------------------------------------------------------- loading

_NAME_KEYS = ("id", "number", "face", "space")


def _entry_name(node: dict[str, Any]) -> str | None:
    if "a" in node and "b" in node and "kind" in node:
        return f"chart pair {node['a']}-{node['b']}"
    for key in _NAME_KEYS:
        if key in node and isinstance(node[key], str | int):
            label = {"id": "", "number": "#", "face": "face ", "space": "space "}[key]
            return f"{label}{node[key]}" if key != "id" else repr(node[key])
    return None


_LABELS = {
    ("inn_tiles.json", "tiles"): "tile",
    ("inn_tiles.json", "worker_groups"): "worker group",
    ("basic_tiles.json", "tiles"): "basic tile",
    ("recipes.json", "recipes"): "recipe",
    ("kingdom_cards.json", "cards"): "Kingdom Card",
    ("resources.json", "ingredients"): "ingredient",
    ("resources.json", "gossip_actions"): "gossip action",
    ("boards.json", "reputation"): "group",
}


def _describe(filename: str, raw: Any, err: ValidationError) -> str:
    """Turn a pydantic error into a message naming the file and the entry."""
    lines = []
    for e in err.errors()[:3]:
        node, path, names = raw, "", []
        for step in e["loc"]:
            if isinstance(step, int) and isinstance(node, list) and 0 <= step < len(node):
                node = node[step]
                path += f"[{step}]"
                if isinstance(node, dict) and (name := _entry_name(node)):
                    names.append(name)
            elif isinstance(step, str) and isinstance(node, dict) and step in node:
                node = node[step]
                path += f".{step}"
            else:
                node = None
                path += f".{step}"
        top = e["loc"][0] if e["loc"] else ""
        what = _LABELS.get((filename, str(top)), "")
        entry = f"{what} {names[0]}".strip() if names else "top level"
        inner = f" (in {', '.join(names[1:])})" if len(names) > 1 else ""
        msg = e["msg"].removeprefix("Value error, ")
        lines.append(f"{filename}: {entry}{inner} at {path.lstrip('.')}: {msg}")
    more = len(err.errors()) - 3
    return "; ".join(lines) + (f"; and {more} more" if more > 0 else "")


def _read(base: Path, filename: str) -> Any:
    path = base / filename
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ContentError(f"{filename}: missing from {base}") from None
    except json.JSONDecodeError as exc:
        raise ContentError(f"{filename}: not valid JSON (line {exc.lineno}): {exc.msg}") from None


def load_content_from(directory: Path | str) -> CrossroadsContent:
    """Load, validate and cross-check every data file in ``directory`` (not cached)."""
    base = Path(directory)
    parts: dict[str, _File] = {}
    for key, (filename, model) in FILES.items():
        raw = _read(base, filename)
        try:
            parts[key] = model.model_validate(raw)
        except ValidationError as err:
            raise ContentError(_describe(filename, raw, err)) from None
    content = CrossroadsContent(**parts)  # type: ignore[arg-type]
    _cross_check(content)
    return content


@lru_cache(maxsize=8)
def _load_cached(directory: str) -> CrossroadsContent:
    return load_content_from(directory)


def load_content(path: Path | str | None = None) -> CrossroadsContent:
    """The validated content of ``path`` (default ``data/crossroads_inn/``), cached per path.

    >>> load_content() is load_content(DATA_DIR)
    True
    """
    return _load_cached(str(Path(path).resolve() if path is not None else DATA_DIR))
