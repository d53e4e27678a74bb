"""Fairy Tale in My Pocket: the state, the actions, the events and the view.

The state is everything on the table, hidden parts included (the deck order, the three
set-aside cards, the order of the two tile stacks, the generator). The view is what any
seat sees: this is a co-operative game played open, so every seat sees the same thing.

>>> Explore(mirror=True)
<Explore mirror=True>
>>> Fight(wand=True).model_dump()
{'kind': 'fight', 'wand': True, 'item': None, 'lamp': False, 'spare': ()}
>>> Happened(kind="moved", seat=0, words="{who} walked to the Well.").text(lambda s: "Ann")
'Ann walked to the Well.'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engines.core import Action, Event, GameState, Options, Seat, View
from engines.pocket.content import ItemId, Side

Phase = Literal["move", "card", "second", "tile", "rest", "over"]
"""Where the turn is: choosing a move, resolving the turn's card, resolving the
second card at the Cottage or the Castle, the tile's instruction, the rest, or over."""
Stage = Literal["move", "mirror", "place", "kingdom_path", "villain", "good_deed", "peddler",
                "pay", "drop", "bird", "find", "rest", "busy", "over"]
"""The decision the rules wait for (``busy``: none, while the engine resolves)."""


class PocketOptions(Options):
    """Table options. ``special``: the fairy godmother's gift (the rulebook picks one at
    random; a table may choose)."""

    special: Literal["random", "mirror", "wand", "boots"] = "random"


# --------------------------------------------------------------------------- state


class _Model(BaseModel):
    model_config = ConfigDict(validate_assignment=False)


class Placed(_Model):
    """A tile on the map: grid square (x to the east, y to the south) and quarter turns
    clockwise from its printed orientation."""

    tile: str
    x: int
    y: int
    turns: int = 0


class Held(_Model):
    """A regular item carried: ``empty`` (the goblet, the bucket), ``coated`` (the Shield
    with Flame Repellant on it: one item)."""

    item: str
    empty: bool = False
    coated: bool = False


class PocketState(GameState):
    special: str
    health: int
    gold: int
    time: int = 0
    """0 high sun, 1 afternoon, 2 dusk (the index into the content's times)."""
    deck: list[str]
    """Development cards face down, top first (secret order)."""
    set_aside: list[str]
    """The three cards set aside face down (secret)."""
    known_in_deck: list[str] = Field(default_factory=list)
    """Cards everyone knows are in the deck, not set aside: the Messenger Bird put them
    back (until drawn, or until Time Passes)."""
    discard: list[str] = Field(default_factory=list)
    """Face up, bottom first: the last is on top."""
    current_card: str | None = None
    """The card resolved most recently this turn (for the picture)."""
    forest: list[str]
    """The Forest stack, top first (secret order)."""
    kingdom: list[str]
    """The Kingdom stack, top first (the Kingdom Path on top until the Forest Path is
    found)."""
    known_bottom: dict[str, int] = Field(default_factory=lambda: {"forest": 0, "kingdom": 0})
    """Per stack: how many tiles at its bottom everyone knows (the Mirror put them there)."""
    placed: list[Placed]
    pawn: str
    items: list[Held] = Field(default_factory=list)
    rose: bool = False
    princess: bool = False
    knight: bool = False
    used_once: list[str] = Field(default_factory=list)
    """Tiles whose once-only instruction has been used."""
    turn_seat: Seat = 0
    turn: int = 1
    phase: Phase = "move"
    stage: Stage = "move"
    card_tile: str | None = None
    """The tile where this turn's card was resolved (the Cottage and the Castle need it)."""
    mirror_tiles: list[str] = Field(default_factory=list)
    placing: str | None = None
    """A drawn tile waiting to be attached (or the Kingdom Path in stage kingdom_path)."""
    toll: int = 0
    """Dense-tree cards owed for the move in progress (while the Kingdom Path is placed)."""
    shop_item: str | None = None
    shop_source: Literal["card", "tile"] | None = None
    bird_sent: list[str] = Field(default_factory=list)
    find_item: str | None = None
    result: Literal["won", "lost"] | None = None
    reason: str = ""


# --------------------------------------------------------------------------- actions


class Explore(Action):
    """Draw the top tile of the stack in use, attach it and go there (``mirror``: pay 1
    gold to see the top two and choose)."""

    kind: Literal["explore"] = "explore"
    mirror: bool = False


class Go(Action):
    """Return to a tile on the map (walking through revealed tiles, or ``boots``)."""

    kind: Literal["go"] = "go"
    tile: str
    boots: bool = False


class Wish(Action):
    """The Magic Lamp's wish: go to any tile on the map without a card."""

    kind: Literal["wish"] = "wish"
    tile: str


class Stay(Action):
    """Nowhere to go: spend the turn here (only when no other move is possible)."""

    kind: Literal["stay"] = "stay"


class Drink(Action):
    """Drink the Elixir of Life (``lamp``: wish it full again, even an empty goblet)."""

    kind: Literal["drink"] = "drink"
    lamp: bool = False


class Coat(Action):
    """Put the Flame Repellant on the Shield: one item that stops every dragon."""

    kind: Literal["coat"] = "coat"


class PickTile(Action):
    """The Mirror: place this one of the two tiles; the other goes to the bottom."""

    kind: Literal["pick_tile"] = "pick_tile"
    tile: str


class Place(Action):
    """Attach the drawn tile (or the Kingdom Path) on this side."""

    kind: Literal["place"] = "place"
    side: Side


class Fight(Action):
    """Fight the villain, using the Wand and/or one helping item (``lamp``: the item
    is used by the Lamp's wish and kept). ``spare``: items that would add to the Defense
    (the Dagger; the Flame Repellant against a dragon) the player keeps out of this
    fight, in the order of ``FREE_FIGHT_ITEMS``; by default every one is used."""

    kind: Literal["fight"] = "fight"
    wand: bool = False
    item: ItemId | None = None
    lamp: bool = False
    spare: tuple[ItemId, ...] = ()


FREE_FIGHT_ITEMS: tuple[ItemId, ...] = ("dagger", "repellant")
"""Items that add to the Defense at no cost and are not used up (the order ``spare``
names them in)."""


class Run(Action):
    """Run away to a tile next to this one (or anywhere, with the ``boots``)."""

    kind: Literal["run"] = "run"
    tile: str
    boots: bool = False


class GoodDeed(Action):
    """Do the good deed (it costs the next card) or not."""

    kind: Literal["good_deed"] = "good_deed"
    help: bool


class Shop(Action):
    """At the peddler: look at getting this item."""

    kind: Literal["shop"] = "shop"
    item: ItemId


class Pay(Action):
    """Pay for the chosen item: these items (traded) plus this much gold."""

    kind: Literal["pay"] = "pay"
    items: tuple[ItemId, ...] = ()
    gold: int = 0


class Back(Action):
    """Back to the peddler's items."""

    kind: Literal["back"] = "back"


class Leave(Action):
    """Leave the peddler without getting anything."""

    kind: Literal["leave"] = "leave"


class Drop(Action):
    """Too many items: drop this one (it is gone for good)."""

    kind: Literal["drop"] = "drop"
    item: ItemId


class Send(Action):
    """The Messenger Bird: shuffle this card from the discard pile back into the deck."""

    kind: Literal["send"] = "send"
    card: str


class SendDone(Action):
    """The Messenger Bird flies off with the card(s) chosen so far."""

    kind: Literal["send_done"] = "send_done"


class Find(Action):
    """The Cave: take the item found, or leave it."""

    kind: Literal["find"] = "find"
    take: bool


class Rest(Action):
    """After the turn: rest (+2 health, refills here, one card of time) or go on."""

    kind: Literal["rest"] = "rest"
    rest: bool


PocketAction = Annotated[
    Explore | Go | Wish | Stay | Drink | Coat | PickTile | Place | Fight | Run | GoodDeed
    | Shop | Pay | Back | Leave | Drop | Send | SendDone | Find | Rest,
    Field(discriminator="kind"),
]

# --------------------------------------------------------------------------- events

EventKind = Literal[
    "explored", "placed", "moved", "wished", "stayed", "trees", "card", "time_passes",
    "knight", "fought", "ran", "stolen", "good_deed", "bought", "dropped", "bird",
    "item_used", "tile", "rose", "princess", "kingdom_path", "rested", "refilled", "health",
    "gold", "found", "won", "lost", "turn",
]


class Happened(Event):
    """One thing that happened, with its log line (``{who}`` stands for the player who
    controls the peasant this turn) and its facts in ``data``."""

    kind: EventKind  # type: ignore[assignment]
    words: str
    data: dict[str, Any] = Field(default_factory=dict)

    def text(self, name: Callable[[Seat], str]) -> str:
        who = name(self.seat) if self.seat is not None else "The peasant"
        return self.words.replace("{who}", who)


# --------------------------------------------------------------------------- views


class EdgesView(BaseModel):
    n: str
    e: str
    s: str
    w: str


class TileView(BaseModel):
    id: str
    name: str
    stack: str
    role: str | None
    x: int
    y: int
    turns: int
    edges: EdgesView
    """The edges as placed (after any turn)."""
    instruction: str
    used: bool
    """A once-only instruction already used."""


class CardView(BaseModel):
    id: str
    item: str
    item_name: str
    price: int


class LineView(BaseModel):
    card: str
    kind: str
    text: str
    villain: str | None = None
    strength: int | None = None
    gold: int | None = None


class ItemView(BaseModel):
    id: str
    name: str
    empty: bool = False
    coated: bool = False
    value: int
    """What the peddler counts it for in a trade."""


class DefenseView(BaseModel):
    base: int
    dagger: int
    princess: int
    total: int
    against_dragons: int
    """Extra Defense against dragons (Flame Repellant)."""
    wand: int
    """What the Wand would add in a fight (0 without it)."""


class GoalsView(BaseModel):
    rose: bool
    princess: bool
    forest_path: bool
    kingdom_path: bool
    castle: bool


class ChoiceView(BaseModel):
    action: dict[str, Any]
    label: str


class DecisionView(BaseModel):
    kind: str
    seat: Seat
    prompt: str
    """What to decide, in short words a child can follow."""
    choices: list[ChoiceView]
    mirror_tiles: list[str] = Field(default_factory=list)
    placing: str | None = None
    villain: LineView | None = None
    shop_item: str | None = None
    bird_sent: list[str] = Field(default_factory=list)
    find_item: str | None = None


class PocketView(View):
    map: list[TileView]
    pawn: str
    pawn_x: int
    pawn_y: int
    time: int
    time_name: str
    times: list[str]
    line: LineView | None
    """The line of the current card at the time it was read."""
    current_card: CardView | None
    health: int
    max_health: int
    defense: DefenseView
    gold: int
    max_gold: int
    special: str
    special_name: str
    items: list[ItemView]
    item_limit: int
    goals: GoalsView
    knight: bool
    deck: int
    set_aside: int
    discard: list[CardView]
    """Face up, bottom first."""
    forest_stack: int
    kingdom_stack: int
    kingdom_path_on_top: bool
    known_bottom: dict[str, list[str]]
    """Per stack: tiles known to lie at its bottom (the Mirror), bottom last."""
    known_in_deck: list[str]
    """Cards known to be somewhere in the deck (the Messenger Bird sent them back)."""
    turn: int
    turn_seat: Seat
    phase: str
    decision: DecisionView | None
    result: Literal["won", "lost"] | None
    reason: str
    prompt: str = ""
    """What the player in control decides now, in plain words (the decision's prompt;
    once the game is over, how it ended)."""
