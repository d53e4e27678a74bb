"""Winter Tales state, actions, events and views (pydantic models only, no rules).

The state is a plain record of the table: seats and Factions, the figures on the
Wintertown map, Quest counters, the Memory Track, hands, the deck, the transcript,
and a *stack of frames*. The frame on top is the decision being taken right now
(an activation, a Battle round, a Quest's stepping-in round...); frames below it
wait for it to finish. Rules modules push and pop frames; :mod:`.flow` dispatches.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engines.core import Action, Event, GameState, Options, Seat, View
from engines.winter_tales.story_memory import StoryMark, StoryMemory

Faction = Literal["spring", "winter"]
PlayerFaction = Literal["spring", "winter", "writer"]
MAX_TEXT = 1800
"""Longest narration accepted in one action (Discord modals allow 4000; messages 2000)."""


def other(faction: str) -> Faction:
    return "winter" if faction == "spring" else "spring"


# --------------------------------------------------------------------------- options


class WinterOptions(Options):
    """Table options chosen at creation.

    >>> WinterOptions().length
    3
    >>> WinterOptions(objective=True).length
    5
    """

    memories: int | None = Field(default=None, ge=3, le=7)
    """Game length in Memories (3 to 7; default 3, or 5 with the Objective Module)."""
    power: bool = False
    objective: bool = False
    skill: bool = False
    epilogue_bookmark: bool = False
    """Optional rule: every Epilogue part links to the bookmarked Memory, then moves it."""
    arbiter: int | None = Field(default=None, ge=0, le=6)
    """Seat of the Story Arbiter (default: seat 0, the table's host)."""
    lines: list[str] = Field(default_factory=list, max_length=20)
    """Content the table agreed to leave out of the story entirely."""
    veils: list[str] = Field(default_factory=list, max_length=20)
    """Content that may happen but only off-screen."""

    @field_validator("lines", "veils")
    @classmethod
    def _short(cls, v: list[str]) -> list[str]:
        return [s.strip()[:200] for s in v if s.strip()]

    def model_post_init(self, __context: Any) -> None:
        if self.objective and self.memories is not None and self.memories < 5:
            raise ValueError("with the Objective Module a game lasts at least 5 Memories")

    @property
    def length(self) -> int:
        if self.memories is not None:
            return self.memories
        return 5 if self.objective else 3


# --------------------------------------------------------------------------- pieces


class _M(BaseModel):
    model_config = ConfigDict(validate_assignment=False)


class Figure(_M):
    """A character: its card (ready/activated) and its figurine on the map."""

    id: str
    faction: Faction
    owner: Seat | None = None
    space: str | None = None
    ready: bool = True
    incapacitated: bool = False
    removed: bool = False

    @property
    def in_play(self) -> bool:
        return self.owner is not None and not self.removed and self.space is not None


class BoardQuest(_M):
    """A Quest counter on the board: in a Location, or under a figure (moving with it)."""

    counter: str
    quest: str
    faction: Faction
    space: str | None = None
    carrier: str | None = None
    placed_by: Seat | None = None


class Memory(_M):
    slot: int
    source: Literal["quest", "objective"]
    card: str
    """A Story card id, a neutral card id, or an Objective card id."""
    faction: Faction | None
    """The side the Memory favours (None: neutral, a drawn Quest)."""
    counter: str | None = None
    objective: str | None = None
    chapter: int = 1
    placed_by: Seat | None = None


class HeldPower(_M):
    counter: str
    quest: str
    holder: Seat
    memory_slot: int
    characters: list[str] = Field(default_factory=list)
    location: str | None = None
    used_chapter: int = 0


class HeldObjective(_M):
    card: str
    seat: Seat
    faction: Faction
    revealed: bool = False
    achieved: bool = False
    completed: bool = False
    seen: list[str] = Field(default_factory=list)
    """Spy: Fairy Tales spotted. Connection: Locations reached this activation."""


class Entry(_M):
    """One line of the story as told at the table (what `/winter story` exports)."""

    n: int
    kind: Literal[
        "narration", "card", "quest", "battle", "trap", "save", "memory", "ruling",
        "epilogue", "chapter", "setup", "objective", "power",
    ]
    seat: Seat | None = None
    character: str | None = None
    text: str | None = None
    card: str | None = None
    side: Faction | None = None
    chapter: int = 0
    hidden: bool = False
    """X-carded or asked to be retold: the text is withheld until retold."""
    struck: bool = False
    """Struck by the Arbiter: kept for the audit log, left out of every export."""
    storyteller: bool = False
    """Written by the AI storyteller (the engine retells it itself when sent back)."""

    @property
    def concept(self) -> str | None:
        """The image concept of the Story card played (looked up, not stored)."""
        if self.card is None:
            return None
        from engines.winter_tales.content import load_content

        c = load_content()
        if self.card in {sc.id for sc in c.story_cards}:
            return c.story_card(self.card).image
        return None

    @property
    def caption(self) -> str | None:
        """The caption printed on the side the card was played on."""
        if self.card is None or self.side is None:
            return None
        from engines.winter_tales.content import load_content

        c = load_content()
        if self.card in {sc.id for sc in c.story_cards}:
            return c.story_card(self.card).side(self.side).caption
        return None


# --------------------------------------------------------------------------- frames


class _F(_M):
    seat: Seat


class DraftFrame(_F):
    kind: Literal["draft"] = "draft"
    picks: list[Seat]
    index: int = 0


class PlaceQuestFrame(_F):
    kind: Literal["place_quest"] = "place_quest"
    counter: str
    setup: bool = True


class TellFrame(_F):
    """A part the rules ask a player to tell (no mechanical choice), then play goes on."""

    kind: Literal["tell"] = "tell"
    purpose: str
    entry_kind: str = "narration"
    character: str | None = None


class TurnFrame(_F):
    kind: Literal["turn"] = "turn"


class ActivationFrame(_F):
    kind: Literal["activation"] = "activation"
    character: str
    mode: Literal["turn", "join"]
    moves_left: int = 0
    start_space: str
    can_move: bool = True
    ended: bool = False
    action_done: bool = False
    swapped_objective: bool = False
    stage: Literal["main", "discard"] = "main"


class DiscardFrame(_F):
    kind: Literal["discard"] = "discard"


class PayFrame(_F):
    """Story cards owed for an effect (a Save, the Fairy Tale returning, the Attack)."""

    kind: Literal["pay"] = "pay"
    purpose: Literal["save", "return", "attack"]
    remaining: int
    side: Faction | None = None
    target: str | None = None
    savior: str | None = None
    space: str | None = None
    objective: str | None = None


class OfferFrame(_F):
    """An optional decision of one seat (take it or Pass)."""

    kind: Literal["offer"] = "offer"
    offer: Literal["new_hope", "objective", "relocate", "epilogue_bookmark"]
    character: str | None = None
    objective: str | None = None


class InterruptFrame(_M):
    """A figure entered a space: opponents there may start a Battle or spring a Trap."""

    kind: Literal["interrupt"] = "interrupt"
    seat: Seat
    """The seat whose character moves."""
    mover: str
    space: str
    offers: dict[int, list[str]]
    """seat -> its characters that may interrupt."""
    passed: list[Seat] = Field(default_factory=list)
    interrupt: Literal["battle", "trap"]


class BattleFrame(_M):
    kind: Literal["battle"] = "battle"
    seat: Seat
    """The seat whose Fairy Tale is attacked."""
    soldier: str
    fairy: str
    winter_seats: list[Seat]
    spring_seats: list[Seat]
    winter_cards: int = 0
    spring_cards: int = 0
    turn: Faction = "winter"
    passed: list[Seat] = Field(default_factory=list)
    last: Faction | None = None
    last_seat: Seat | None = None
    used: list[str] = Field(default_factory=list)
    """Once-per-Battle things already used (skills, artefacts)."""
    horror: bool = False


class TrapFrame(_M):
    kind: Literal["trap"] = "trap"
    seat: Seat
    """The seat that springs the Trap."""
    fairy: str
    soldier: str
    soldier_seat: Seat
    spring_seats: list[Seat]
    stage: Literal["card", "hide", "defend"] = "card"
    trap_card: str | None = None
    hidden: list[tuple[str, Faction, Seat]] = Field(default_factory=list)
    hiding_done: list[Seat] = Field(default_factory=list)
    winter_cards: list[str] = Field(default_factory=list)


class QuestFrame(_M):
    kind: Literal["quest"] = "quest"
    seat: Seat
    counter: str
    quest: str
    faction: Faction
    character: str
    space: str
    stage: Literal["intro", "join", "plot", "step_in", "step_play", "last", "end", "memory",
                   "power"] = "intro"
    cursor: int = 0
    """Index into the clockwise order of the other seats."""
    stepper: Seat | None = None
    stepper_character: str | None = None
    stepper_side: Faction | None = None
    cards: dict[str, int] = Field(default_factory=lambda: {"spring": 0, "winter": 0})
    by_seat: dict[int, dict[str, int]] = Field(default_factory=dict)
    played: list[str] = Field(default_factory=list)
    participants: list[str] = Field(default_factory=list)
    link_ok: bool | None = None
    adjust: dict[str, int] = Field(default_factory=lambda: {"spring": 0, "winter": 0})
    result: Faction | Literal["draw"] | None = None
    chooser: Seat | None = None
    slot: int | None = None
    artefact_used: list[str] = Field(default_factory=list)
    last_played: bool = False


class PowerFrame(_F):
    """The Faction that completed a Quest places its Power (Power Module)."""

    kind: Literal["power"] = "power"
    counter: str
    quest: str
    memory_slot: int
    first: str | None = None
    participants: list[str] = Field(default_factory=list)


class EpilogueFrame(_M):
    kind: Literal["epilogue"] = "epilogue"
    seat: Seat
    """The Epilogue player (placed the last Memory)."""
    order: list[Seat]
    cursor: int = 0
    cards: dict[str, int] = Field(default_factory=lambda: {"spring": 0, "winter": 0})
    adjust: dict[str, int] = Field(default_factory=lambda: {"spring": 0, "winter": 0})
    part_cards: int = 0
    writer_side: Faction | None = None
    writer_limit: int | None = None
    stage: Literal["parts", "bookmark", "conclusion"] = "parts"


Frame = Annotated[
    DraftFrame | PlaceQuestFrame | TellFrame | TurnFrame | ActivationFrame | DiscardFrame
    | PayFrame | OfferFrame | InterruptFrame | BattleFrame | TrapFrame | QuestFrame
    | PowerFrame | EpilogueFrame,
    Field(discriminator="kind"),
]


# --------------------------------------------------------------------------- the state


class WinterState(GameState):
    options: WinterOptions
    length: int
    factions: list[PlayerFaction]
    """Faction of each seat."""
    order: list[Seat]
    """Seats clockwise from the first Spring player (the 'youngest Spring player')."""
    arbiter: Seat
    chapter: int = 0
    acting: Seat | None = None
    figures: dict[str, Figure]
    quests: list[BoardQuest] = Field(default_factory=list)
    used_counters: list[str] = Field(default_factory=list)
    ongoing: str | None = None
    """Quest counter with the Ongoing Quest pawn."""
    memories: list[Memory] = Field(default_factory=list)
    bookmark: int | None = None
    powers: list[HeldPower] = Field(default_factory=list)
    objectives: list[HeldObjective] = Field(default_factory=list)
    objective_deck: list[str] = Field(default_factory=list)
    hands: list[list[str]]
    deck: list[str]
    discard: list[str] = Field(default_factory=list)
    stack: list[Frame] = Field(default_factory=list)
    transcript: list[Entry] = Field(default_factory=list)
    last_placer: Seat | None = None
    """Who placed the latest Memory (begins the Epilogue when the Track is full)."""
    epilogue_player: Seat | None = None
    final: dict[str, int] | None = None
    winner: PlayerFaction | Literal["none"] | None = None
    story: StoryMemory = Field(default_factory=StoryMemory)
    """What the AI storyteller has used so far (openers, frames, passages, deeds)."""


# --------------------------------------------------------------------------- actions


class _A(Action):
    pass


class _T(_A):
    text: str | None = None
    telling: StoryMark | None = None
    """An AI seat's passage: how the storyteller wrote ``text`` (the engine checks it)."""


class ChooseCharacter(_T):
    kind: Literal["choose_character"] = "choose_character"
    character: str
    space: str


class PlaceQuest(_T):
    """Place a Quest counter: ``target`` is a Location, or a Fairy Tale to put it under."""

    kind: Literal["place_quest"] = "place_quest"
    counter: str
    target: str


class Tell(_T):
    kind: Literal["tell"] = "tell"


class Activate(_T):
    kind: Literal["activate"] = "activate"
    character: str


class Move(_T):
    """One step to a neighbouring space; ``card`` is discarded when no step is left."""

    kind: Literal["move"] = "move"
    to: str
    card: str | None = None
    partner: bool = False


class GenerateQuest(_T):
    kind: Literal["generate_quest"] = "generate_quest"
    counter: str
    target: str


class StartQuest(_T):
    kind: Literal["start_quest"] = "start_quest"
    counter: str


class TakePart(_T):
    kind: Literal["take_part"] = "take_part"


class SaveCharacter(_T):
    kind: Literal["save"] = "save"
    target: str
    savior: str


class Done(_T):
    """End the current part (an activation, a plot, a Trap's preparation...)."""

    kind: Literal["done"] = "done"


class Pass(_T):
    """Decline an optional decision (an interrupt, stepping in, a last card...)."""

    kind: Literal["pass"] = "pass"


class Discard(_A):
    kind: Literal["discard"] = "discard"
    card: str


class PlayCard(_T):
    kind: Literal["play_card"] = "play_card"
    card: str
    side: Faction


class UseArtefact(_T):
    """Play the Great Artefact's Memory as a card (it stays on the Memory Track)."""

    kind: Literal["use_artefact"] = "use_artefact"
    character: str


class FreeRound(_T):
    """Battle skill: once per Battle, take a round without playing a Story card."""

    kind: Literal["free_round"] = "free_round"
    character: str


class InitiateBattle(_T):
    kind: Literal["battle"] = "battle"
    character: str


class SpringTrap(_T):
    kind: Literal["trap"] = "trap"
    character: str


class HideCard(_A):
    """Trap preparation: hide a card under the character card, Spring or Winter side up."""

    kind: Literal["hide_card"] = "hide_card"
    card: str
    side: Faction


class Relocate(_T):
    kind: Literal["relocate"] = "relocate"
    space: str


class StepIn(_T):
    kind: Literal["step_in"] = "step_in"
    character: str


class ChooseMemory(_T):
    kind: Literal["choose_memory"] = "choose_memory"
    card: str
    slot: int


class AssignPower(_T):
    kind: Literal["assign_power"] = "assign_power"
    target: str
    """A character id, or for Armed Retaliation a held Power's counter id."""


class UsePower(_T):
    """Use a held Power: New Hope (ready again), Propaganda, Freezing Horror."""

    kind: Literal["use_power"] = "use_power"
    counter: str
    target: str | None = None
    space: str | None = None


class PassArtefact(_T):
    kind: Literal["pass_artefact"] = "pass_artefact"
    character: str


class ReturnTale(_T):
    """The Fairy Tale returns: skip the turn, play 3 cards, place it in a Location."""

    kind: Literal["return_tale"] = "return_tale"
    character: str
    space: str


class CompleteObjective(_T):
    kind: Literal["complete_objective"] = "complete_objective"
    objective: str
    slot: int


class AttackObjective(_T):
    """The Attack: discard 2 Story cards with a character in the named Location."""

    kind: Literal["attack_objective"] = "attack_objective"
    objective: str


class SwapObjective(_T):
    """Objective skill: discard the current Objective and choose another of the Faction."""

    kind: Literal["swap_objective"] = "swap_objective"
    objective: str
    new: str


class MoveBookmark(_T):
    kind: Literal["move_bookmark"] = "move_bookmark"
    slot: int


# meta actions (outside the turn order) ------------------------------------------


class Narrate(_T):
    """Add to the story out of turn (Golden Rule 1: help one another)."""

    kind: Literal["narrate"] = "narrate"


class XCard(_A):
    """Raise the X-card against the last narration: it is hidden, the Arbiter is told."""

    kind: Literal["x_card"] = "x_card"


class Retell(_T):
    kind: Literal["retell"] = "retell"
    entry: int


class AskRetell(_T):
    kind: Literal["ask_retell"] = "ask_retell"
    entry: int


class Strike(_T):
    kind: Literal["strike"] = "strike"
    entry: int


class RuleBookmark(_T):
    """Arbiter: was the Ongoing Quest linked to the bookmarked Memory? No = failure."""

    kind: Literal["rule_bookmark"] = "rule_bookmark"
    made: bool


class CorrectFigure(_T):
    """Arbiter, Golden Rule 3 (the table agrees): put a figure right."""

    kind: Literal["correct_figure"] = "correct_figure"
    character: str
    space: str
    incapacitated: bool


class CorrectCount(_T):
    """Arbiter, Golden Rule 3 (the table agrees): correct the running count of a side."""

    kind: Literal["correct_count"] = "correct_count"
    faction: Faction
    delta: int = Field(ge=-3, le=3)


WinterAction = Annotated[
    ChooseCharacter | PlaceQuest | Tell | Activate | Move | GenerateQuest | StartQuest
    | TakePart | SaveCharacter | Done | Pass | Discard | PlayCard | UseArtefact | FreeRound
    | InitiateBattle | SpringTrap | HideCard | Relocate | StepIn | ChooseMemory | AssignPower
    | UsePower | PassArtefact | ReturnTale | CompleteObjective | AttackObjective
    | SwapObjective | MoveBookmark | Narrate | XCard | Retell | AskRetell | Strike
    | RuleBookmark | CorrectFigure | CorrectCount,
    Field(discriminator="kind"),
]

META_KINDS = frozenset(
    {"narrate", "x_card", "retell", "ask_retell", "strike", "rule_bookmark",
     "correct_figure", "correct_count"}
)


# --------------------------------------------------------------------------- events


class WinterEvent(Event):
    """A fact of the game. ``msg`` names seats as ``{0}``, ``{1}``... (``who``)."""

    kind: str
    msg: str = ""
    who: tuple[Seat, ...] = ()
    card: str | None = None
    character: str | None = None
    entry: int | None = None

    def text(self, name: Any) -> str:
        try:
            return self.msg.format(*(name(s) for s in self.who))
        except (IndexError, KeyError):
            return self.msg or self.kind.replace("_", " ")


# --------------------------------------------------------------------------- views


class CardFace(BaseModel):
    id: str
    title: str
    image: str
    spring: str
    winter: str


class ObjectiveView(BaseModel):
    card: str
    seat: Seat
    faction: Faction
    title: str
    kind: str
    locations: list[str]
    revealed: bool
    achieved: bool
    completed: bool


class WinterView(View):
    phase: str
    chapter: int
    length: int
    factions: list[PlayerFaction]
    order: list[Seat]
    arbiter: Seat
    acting: Seat | None
    to_act: list[Seat]
    optional: list[Seat]
    """Seats whose open decision is optional (the service may auto-pass them)."""
    decision: str
    figures: list[Figure]
    quests: list[BoardQuest]
    ongoing: str | None
    ongoing_count: dict[str, int] | None
    memories: list[Memory]
    bookmark: int | None
    epilogue_space: int
    powers: list[HeldPower]
    hand: list[CardFace] | None
    hand_counts: list[int]
    deck_count: int
    discard_count: int
    objectives: list[ObjectiveView]
    objective_counts: list[int]
    trap_hidden: list[tuple[str, Faction]] | None
    trap_hidden_count: int | None
    epilogue_count: dict[str, int] | None
    writer_limit: int | None
    lines: list[str]
    veils: list[str]
    transcript: list[Entry]
    """The story so far: struck passages left out, hidden ones without their text."""
    winner: str | None
    final: dict[str, int] | None
    stack: list[dict[str, Any]]
    """The open decisions, innermost last (the Quest, Battle or Trap under way), with
    what this seat may not see left out."""
