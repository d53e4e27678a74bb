"""Crossroads Inn: the state, the actions and the views, as typed value objects.

The state is everything on the table; the view is what one seat (or the public) may see.
Secrets are the Recipe hands, the Recipe deck and discard pile, the Basic Inn Tiles held
face down during the draft, and the generator that decides every future draw and roll.
The Investment pouches are multisets whose contents anyone could work out from the
table, so they are public (as counts in the view).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engines.core import Action, GameState, Options, View

Phase = Literal["draft", "place_basics", "turn", "over"]
Step = Literal["impression", "gossip", "invest", "reserve", "build", "recipes", "confirm"]
STEPS: tuple[str, ...] = ("impression", "gossip", "invest", "reserve", "build", "recipes",
                          "confirm")
BasicMode = Literal["draft", "random", "none"]


class CrossroadsOptions(Options):
    """Table options.

    ``basic_tiles``: ``draft`` (the rulebook's steps 1-4), ``random`` (first game: the four
    tiles placed at random) or ``none`` (first game: corners unavailable).
    ``kingdom``: ``none``, ``random`` (two at random) or two card numbers such as ``"1+5"``.
    ``advanced_recipes``: ``auto`` removes the four advanced Recipes with 2 players, as the
    rulebook recommends; ``include`` and ``remove`` decide it for any player count.
    """

    basic_tiles: BasicMode = "draft"
    kingdom: str = "none"
    advanced_recipes: Literal["auto", "include", "remove"] = "auto"


# --------------------------------------------------------------------------- state


class _Model(BaseModel):
    model_config = ConfigDict(validate_assignment=False)


class Built(_Model):
    """A tile on an inn space: an Inn Tile (or a Basic Inn Tile, ``basic``)."""

    tile: str
    basic: bool = False
    ingredients: list[str] = Field(default_factory=list)
    """Ingredient tokens lying on the tile."""
    covers: str | None = None
    """The Basic Inn Tile this tile was built over, if any."""
    turn: int = 0
    """The owner's turn number in which it was built (0: setup)."""
    in_line: bool = False
    """Kingdom Card #8: already part of a line that paid a bonus."""


class Player(_Model):
    prestige: int = 6
    revenue: int = 4
    chest: int = 0
    pouch: int = 0
    debts: int = 0
    gossips: dict[str, int] = Field(default_factory=dict)
    reputation: dict[str, int] = Field(default_factory=dict)
    closed_door: str | None = None
    open_door: str | None = None
    recipes: list[str] = Field(default_factory=list)
    completed: list[str] = Field(default_factory=list)
    reserved: list[str] = Field(default_factory=list)
    inn: dict[str, Built] = Field(default_factory=dict)
    turns: int = 0
    # The draft (face down, secret): tiles kept, and the pack in hand.
    kept: list[str] = Field(default_factory=list)
    pack: list[str] = Field(default_factory=list)
    picked: bool = False


class Job(_Model):
    """One effect waiting to be resolved for ``seat`` (an effect's JSON form, or a
    Special Action ``{"kind": "special", "group": ...}``)."""

    seat: int
    effect: dict[str, Any]
    source: str = ""
    space: str | None = None
    """The inn space of the tile that carries the effect (ingredients go on it)."""


class Pending(_Model):
    """A decision the rules wait for: who decides, what, and the options' data."""

    seat: int
    kind: str
    amount: int = 1
    options: list[str] = Field(default_factory=list)
    """Secret options (the two Recipes drawn) live here and only the seat sees them."""
    source: str = ""
    space: str | None = None
    other: int | None = None


class Turn(_Model):
    """The active player's progress through the nine steps."""

    seat: int = 0
    step: str = "impression"
    impression_done: bool = False
    gossips_used: list[str] = Field(default_factory=list)
    bought: list[str] = Field(default_factory=list)
    """Tiles bought and not yet built, in purchase order."""
    buys: int = 0
    reserved: bool = False
    built: list[str] = Field(default_factory=list)
    """Spaces built on this turn (Kingdom Card #6)."""
    set_aside: list[str] = Field(default_factory=list)
    """Bought tiles no space could take this turn (they went to their discard pile)."""


class Undo(_Model):
    """The take-back point: the state after the last step that revealed something, and
    the actions taken since (each can be taken back)."""

    checkpoint: str
    since: list[str] = Field(default_factory=list)


class CrossroadsState(GameState):
    options: CrossroadsOptions = Field(default_factory=CrossroadsOptions)
    phase: str = "draft"
    seats: list[Player]
    kingdom: list[int] = Field(default_factory=list)
    tracks: list[list[str | None]]
    """Tier I and tier II Investment Tracks; index 0 is the far left (new tiles)."""
    pouches: list[list[str]]
    discards: list[list[str]]
    """Tile discard piles per tier, the last item on top (face up)."""
    deck: list[str]
    """The Recipe deck as a sorted multiset: draws are random, so order is no secret."""
    recipe_discard: list[str] = Field(default_factory=list)
    unused_basics: list[str] = Field(default_factory=list)
    line_pool: dict[str, int] = Field(default_factory=dict)
    """Kingdom Card #8's supply: gossips per type and ``guldens``."""
    turn: Turn = Field(default_factory=Turn)
    jobs: list[Job] = Field(default_factory=list)
    pending: Pending | None = None
    draft_round: int = 0
    announced_by: int | None = None
    last_turns: list[int] = Field(default_factory=list)
    last_roll: int | None = None
    revealed: bool = False
    """Set while an action reveals something (draw, roll): it becomes final."""
    undo: Undo | None = None
    finished: bool = False


# --------------------------------------------------------------------------- actions


class DraftPick(Action):
    """Keep one Basic Inn Tile of the pack (face down) and pass the rest left."""

    kind: Literal["draft"] = "draft"
    tile: str


class PlaceBasic(Action):
    """Put one of your four Basic Inn Tiles on a corner space and gain its effects."""

    kind: Literal["place_basic"] = "place_basic"
    tile: str
    space: str


class Impression(Action):
    """Change the Guest Impression: one group behind the closed door (-3), one behind the
    open door (+1)."""

    kind: Literal["impression"] = "impression"
    closed: str
    open: str


class UseGossip(Action):
    """A gossip action (``economic_a`` ... ``travellers_b``) with its targets."""

    kind: Literal["gossip"] = "gossip"
    action: str
    players: tuple[int, ...] = ()
    groups: tuple[str, ...] = ()
    gossip: str | None = None
    tier: int | None = None
    mine: str | None = None
    theirs: str | None = None


class Buy(Action):
    """Buy a tile from an Investment Track (``tier`` and ``slot``) or a reserved one
    (``tier`` None, ``slot`` its index), paying guldens or the alternative gossips."""

    kind: Literal["buy"] = "buy"
    tier: int | None
    slot: int
    pay: Literal["guldens", "gossips"] = "guldens"


class Reserve(Action):
    kind: Literal["reserve"] = "reserve"
    tier: int
    slot: int


class Build(Action):
    """Place the next bought tile on an inn space."""

    kind: Literal["build"] = "build"
    space: str


class SetAside(Action):
    """No space can take the next bought tile: it goes to its discard pile."""

    kind: Literal["set_aside"] = "set_aside"


class Complete(Action):
    kind: Literal["complete"] = "complete"
    recipe: str


class Choose(Action):
    """Answer the pending decision with one of its options."""

    kind: Literal["choose"] = "choose"
    option: str


class Next(Action):
    """Done with this step (or skip it): go on to the next one."""

    kind: Literal["next"] = "next"


class TakeBack(Action):
    """Take back the last step of this turn (not a step that revealed something)."""

    kind: Literal["undo"] = "undo"


class EndTurn(Action):
    """Confirm the turn: update the tokens and pass to the next player. ``announce``:
    end the game (all 16 spaces covered)."""

    kind: Literal["end_turn"] = "end_turn"
    announce: bool = False


CrossroadsAction = Annotated[
    DraftPick | PlaceBasic | Impression | UseGossip | Buy | Reserve | Build | SetAside
    | Complete | Choose | Next | TakeBack | EndTurn,
    Field(discriminator="kind"),
]


# --------------------------------------------------------------------------- views


class BuiltView(BaseModel):
    tile: str
    basic: bool = False
    ingredients: list[str] = Field(default_factory=list)
    covers: str | None = None
    in_line: bool = False


class PlayerView(BaseModel):
    seat: int
    prestige: int
    revenue: int
    chest: int
    pouch: int
    debts: int
    gossips: dict[str, int]
    reputation: dict[str, int]
    closed_door: str | None
    open_door: str | None
    recipes: int
    """How many Recipes the player holds (the size is public, the cards are not)."""
    completed: list[str]
    reserved: list[str]
    inn: dict[str, BuiltView]
    covered: int
    """Spaces of the 16 (corners excepted) covered."""
    turns: int
    basics_face_down: int
    """Basic Inn Tiles held face down during the draft (kept and in the pack)."""
    basics_to_place: list[str] = Field(default_factory=list)
    """After the draft, the revealed Basic Inn Tiles still to be put on corners."""
    score: int | None = None
    """Final score, once the game is over."""
    score_parts: dict[str, int] | None = None
    """The final score by the rulebook's Scoring list (prestige, reputation, guldens,
    gossips, ingredients, debts, recipes, total), once the game is over."""
    picked: bool = False
    """During the draft: this round's tile is chosen (the tile itself is secret)."""


class PendingView(BaseModel):
    seat: int
    kind: str
    prompt: str
    amount: int = 1
    source: str = ""
    """What caused the decision (a tile's name, "Travellers Special Action")."""
    options: list[str] = Field(default_factory=list)
    """Only for the deciding seat, and only when the options are public knowledge or its
    own: never another seat's secret."""


class CrossroadsView(View):
    phase: str
    step: str | None
    active: int | None
    kingdom: list[int]
    seats: list[PlayerView]
    tracks: list[list[str | None]]
    pouches: list[int]
    discards: list[list[str]]
    deck: int
    recipe_discard: int
    line_pool: dict[str, int]
    bought: list[str]
    built: list[str]
    set_aside: list[str] = Field(default_factory=list)
    corners_available: bool = True
    """False in a game without Basic Inn Tiles: the corner spaces take no tile."""
    impression_done: bool
    gossips_used: list[str]
    buys_left: int
    reserved_this_turn: bool
    announced_by: int | None
    last_turns: list[int]
    last_roll: int | None
    draft_round: int
    pending: PendingView | None
    prompt: str
    winners: list[int] = Field(default_factory=list)
    # Only in a seat's own view:
    my_recipes: list[str] | None = None
    my_pack: list[str] | None = None
    my_kept: list[str] | None = None
