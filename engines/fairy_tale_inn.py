"""Fairy Tale Inn: two players drop fairy-tale characters into a 7x6 inn for gold.

Content (characters, Guest List costs, room layout, starting gold) lives in
``data/fairy_tale_inn.json``; this module only knows the rules. Coordinates in
actions, views and messages are 1-based ``(column, row)`` with row 1 at the
bottom, as in CONTENT.md; the state stores 0-based cells.

A turn is one :class:`Drop` (take a token from a Guest List slot, pay its cost,
drop it into a column), possibly followed by one :class:`Rat` (where a Pied
Piper's Rat goes) and one :class:`ExtraTurn` / :class:`EndTurn` decision.

>>> game = FairyTaleInn()
>>> state = game.setup(2, game.Options(), seed=1)
>>> state.gold, len(state.characters), game.view(state, None).bag_count
([1, 2], 5, 28)
>>> game.apply(state, 0, Drop(slot=4, column=1))[0].text(lambda s: "Ada")
'Ada took Little Pig from slot 4 (free) and dropped it in column 1, row 1.'

Interpretations where the rulebook leaves room (each one is tested):

* **Connected** (Little Pig) means the group of your Little Pigs linked room to
  room orthogonally, not only the direct neighbours: the rulebook says
  "connected" here but "next to" for Pinocchio and Red Riding Hood, and its
  example counts a Pig that touches the dropped one only through another Pig.
* **Next to** (Pinocchio, Red Riding Hood) means the orthogonal neighbours; the
  Princess counts the four diagonal rooms. Rats and Beanstalks belong to nobody,
  are not characters and so never count for any ability, but they fill a room
  and trigger special rooms for the player who dropped them.
* **No-ability rooms** silence the token in them for the whole game (its
  When Played, Ongoing and End of Game ability), but it still counts for other
  tokens' abilities. A Big Bad Wolf row scores only if the player's majority in
  it includes at least one Wolf that kept its ability (silenced Wolves still
  add to the count).
* **Order of resolution**: special room of the dropped token, then its own
  When Played ability (including its Rat or Beanstalk and that companion's
  room), then an opponent's Evil Queen below it (pay 1 gold if able), then the
  end-of-game check, then the extra-turn decision.
* **Extra turns**: entering one or more extra-turn rooms in a turn (with the
  character, its Rat or its Beanstalk) offers *one* extra turn for 1 gold
  ("spend 1 gold once"); triggers in the same turn do not stack. The offer is
  made after all abilities, only if the player then has the gold and the game
  has not ended (an empty Guest List ends it: nobody could take a token). The
  extra turn can itself trigger another offer.
* **Rats**: the Pied Piper's player chooses the column; if only one column can
  take the Rat it is placed there without asking. No Rat if none is left on the
  card or no other column has room; no Beanstalk if none is left or Jack is at
  the top of its column.
* **End**: when three columns are full after a whole turn, or when the player
  to act finds the Guest List empty. Seat 0 starts (gets 1 gold, seat 1 gets 2);
  a tie on gold goes to seat 1, the player who did not start.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engines.catalog import ConformanceCase, GameSpec, register
from engines.core import (
    Action,
    Event,
    Game,
    GameOver,
    GameState,
    IllegalAction,
    NotYourTurn,
    Options,
    Outcome,
    Rng,
    Seat,
    View,
)

DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "fairy_tale_inn.json"

# --------------------------------------------------------------------------- content models

AbilityKind = Literal["when_played", "ongoing", "end_of_game"]
EffectType = Literal[
    "toll_above",  # Evil Queen
    "neighbours_opponent",  # Pinocchio
    "neighbours_own",  # Little Red Riding Hood
    "companion_other_column",  # Pied Piper (Rat)
    "companion_above",  # Jack (Beanstalk)
    "diagonal_same",  # Princess
    "connected_same",  # Little Pig
    "row_majority",  # Big Bad Wolf
]
_EFFECT_ABILITY: dict[str, str] = {
    "toll_above": "ongoing",
    "neighbours_opponent": "end_of_game",
    "neighbours_own": "end_of_game",
    "companion_other_column": "when_played",
    "companion_above": "when_played",
    "diagonal_same": "when_played",
    "connected_same": "when_played",
    "row_majority": "end_of_game",
}


class Effect(BaseModel):
    """What a character's ability does, with its numbers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: EffectType
    base: int = Field(0, ge=0)
    per: int = Field(0, ge=0)
    amount: int = Field(0, ge=0)
    per_row: int = Field(0, ge=0)


class CharacterCard(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: str
    tokens: int = Field(ge=1)
    ability: AbilityKind
    effect: Effect
    text: str = Field(min_length=10)
    companion: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> CharacterCard:
        if _EFFECT_ABILITY[self.effect.type] != self.ability:
            raise ValueError(f"{self.id}: effect {self.effect.type} is not a {self.ability}")
        needs_companion = self.effect.type.startswith("companion_")
        if needs_companion != (self.companion is not None):
            raise ValueError(f"{self.id}: companion and effect disagree")
        return self


class CompanionToken(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: str
    tokens: int = Field(ge=0)


class RoomKind(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["gold", "no_ability", "extra_turn"]
    amount: int = Field(ge=0)
    """Gold gained (gold rooms) or the extra turn's price (extra-turn rooms)."""
    label: str
    cells: list[tuple[int, int]]


class StartingGold(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    starter: int = Field(ge=0)
    other: int = Field(ge=0)


class InnData(BaseModel):
    """The whole content file, validated."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    about: dict[str, Any] = Field(alias="_about")
    columns: int = Field(ge=4)
    rows: int = Field(ge=2)
    characters_per_game: int = Field(ge=1)
    guest_list_costs: list[int] = Field(min_length=1)
    starting_gold: StartingGold
    characters: list[CharacterCard]
    companions: list[CompanionToken]
    rooms: list[RoomKind]

    @model_validator(mode="after")
    def _consistent(self) -> InnData:
        ids = [c.id for c in self.characters] + [c.id for c in self.companions]
        if len(set(ids)) != len(ids):
            raise ValueError("token ids must be unique")
        if self.characters_per_game > len(self.characters):
            raise ValueError("more characters per game than cards")
        companions = {c.id for c in self.companions}
        for card in self.characters:
            if card.companion is not None and card.companion not in companions:
                raise ValueError(f"{card.id}: unknown companion {card.companion}")
        seen: set[tuple[int, int]] = set()
        for room in self.rooms:
            for col, row in room.cells:
                if not (1 <= col <= self.columns and 1 <= row <= self.rows):
                    raise ValueError(f"room ({col},{row}) is outside the inn")
                if (col, row) in seen:
                    raise ValueError(f"room ({col},{row}) is listed twice")
                seen.add((col, row))
        return self


@lru_cache(maxsize=4)
def load_data(path: str | None = None) -> InnData:
    """The validated content file (cached)."""
    raw = json.loads(Path(path or DATA_PATH).read_text(encoding="utf-8"))
    return InnData.model_validate(raw)


# --------------------------------------------------------------------------- actions


class Drop(Action):
    """Take the token in Guest List ``slot`` (1 = top) and drop it into ``column`` (1 = left)."""

    kind: Literal["drop"] = "drop"
    slot: int
    column: int


class Rat(Action):
    """Drop the Pied Piper's Rat into ``column``."""

    kind: Literal["rat"] = "rat"
    column: int


class ExtraTurn(Action):
    """Pay for the extra turn offered by an extra-turn room."""

    kind: Literal["extra_turn"] = "extra_turn"


class EndTurn(Action):
    """Decline the extra turn."""

    kind: Literal["end_turn"] = "end_turn"


InnAction = Annotated[Drop | Rat | ExtraTurn | EndTurn, Field(discriminator="kind")]

# --------------------------------------------------------------------------- state

Phase = Literal["drop", "rat", "extra_turn", "over"]
Cell = tuple[int, int]
Token = tuple[str, int]
"""(token id, owner seat); owner is -1 for Rats and Beanstalks."""

NOBODY = -1


class InnState(GameState):
    characters: list[str]
    """The ids of the 5 characters in this game, in content-file order."""
    columns: list[list[Token]]
    """One list per column, bottom to top."""
    bag: list[str]
    """Hidden: the order of the bag. Tokens are drawn from the end."""
    guest: list[str | None]
    """Guest List slots from top to bottom; None = empty (only once the bag ran out)."""
    gold: list[int]
    supply: dict[str, int]
    """Companion tokens left on their cards."""
    turn: int = 0
    starter: int = 0
    phase: Phase = "drop"
    drop_cell: Cell | None = None
    """0-based cell of the character dropped this turn."""
    placed: list[Cell] = Field(default_factory=list)
    """0-based cells filled during the current (or last) turn."""
    extra_offer: bool = False
    turns: int = 0
    end_reason: str | None = None
    end_bonus: list[int] = Field(default_factory=list)


# --------------------------------------------------------------------------- events


class InnEvent(Event):
    """A line of the game log. ``template`` names players as ``{0}``, ``{1}`` (from ``who``)."""

    template: str
    who: tuple[Seat, ...] = ()
    amount: int = 0
    token: str | None = None
    column: int | None = None
    row: int | None = None

    def text(self, name: Callable[[Seat], str]) -> str:
        return self.template.format(*(name(s) for s in self.who))


# --------------------------------------------------------------------------- views


class CellView(BaseModel):
    token: str
    name: str
    owner: Seat | None
    """None for Rats and Beanstalks (they belong to nobody)."""
    silenced: bool
    """True when the token sits in a no-ability room."""


class RoomView(BaseModel):
    column: int
    row: int
    kind: str
    amount: int
    label: str


class SlotView(BaseModel):
    slot: int
    cost: int
    token: str | None
    name: str | None


class CharacterView(BaseModel):
    id: str
    name: str
    ability: str
    text: str
    tokens: int
    companion: str | None


class InnView(View):
    columns: int
    rows: int
    grid: list[list[CellView]]
    """grid[c] is column c+1, bottom to top."""
    rooms: list[RoomView]
    guest_list: list[SlotView]
    gold: list[int]
    bag_count: int
    characters: list[CharacterView]
    companions_left: dict[str, int]
    to_act: Seat | None
    phase: str
    prompt: str
    """What the player to act must decide, in plain English."""
    rat_columns: list[int]
    """1-based columns the pending Rat may go to."""
    last_cells: list[tuple[int, int]]
    """1-based (column, row) cells filled in the latest turn; the first is the character."""
    starter: Seat
    end_preview: list[int]
    """End-of-Game gold each seat would add if the game ended now."""
    end_bonus: list[int]
    winners: list[Seat] | None
    reason: str | None


# --------------------------------------------------------------------------- the game


def _shuffle(items: list[Any], seed: int) -> None:
    """Fisher-Yates driven by a local splitmix64 on ``seed``: the same numbers as
    :class:`Rng` would give, without an attribute write per draw (determinize runs
    once per search iteration)."""
    mask = (1 << 64) - 1
    x = seed
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        limit = (mask + 1) - ((mask + 1) % n)
        while True:
            x = (x + 0x9E3779B97F4A7C15) & mask
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            z ^= z >> 31
            if z < limit:
                break
        j = z % n
        items[i], items[j] = items[j], items[i]



class FairyTaleInn(Game[InnState, Any]):
    """Fairy Tale Inn for two players. See the module docstring for interpretations."""

    id: ClassVar[str] = "fairy-tale-inn"
    name: ClassVar[str] = "Fairy Tale Inn"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    has_secrets: ClassVar[bool] = True  # the bag order
    Options: ClassVar[type[Options]] = Options
    State: ClassVar[type[GameState]] = InnState
    ViewType: ClassVar[type[View]] = InnView
    ActionType: ClassVar[Any] = InnAction

    def __init__(self, data: InnData | None = None) -> None:
        d = data or load_data()
        self.data = d
        self.ncols = d.columns
        self.nrows = d.rows
        self.costs = list(d.guest_list_costs)
        self.cards: dict[str, CharacterCard] = {c.id: c for c in d.characters}
        self.companions: dict[str, CompanionToken] = {c.id: c for c in d.companions}
        self.names: dict[str, str] = {c.id: c.name for c in d.characters}
        self.names.update({c.id: c.name for c in d.companions})
        # room index per 0-based cell, None for plain rooms
        self.room_at: list[list[RoomKind | None]] = [
            [None] * d.rows for _ in range(d.columns)
        ]
        for room in d.rooms:
            for col, row in room.cells:
                self.room_at[col - 1][row - 1] = room
        self.silent: list[list[bool]] = [
            [r is not None and r.kind == "no_ability" for r in col] for col in self.room_at
        ]
        self.effect_of: dict[str, Effect] = {c.id: c.effect for c in d.characters}
        self._etype: dict[str, str] = {c.id: c.effect.type for c in d.characters}
        # Frozen actions are shared, so legal_actions builds no new objects.
        self._drops = {
            (s, c): Drop(slot=s, column=c)
            for s in range(1, len(self.costs) + 1)
            for c in range(1, self.ncols + 1)
        }
        self._rats = {c: Rat(column=c) for c in range(1, self.ncols + 1)}
        extra = [room.amount for room in d.rooms if room.kind == "extra_turn"]
        self.extra_price = extra[0] if extra else 1
        """The price of an extra turn (the extra-turn rooms' amount)."""
        self._extra_action = ExtraTurn()
        self._end_action = EndTurn()

    # -- setup ----------------------------------------------------------------

    def setup(self, players: int, options: Options, seed: int) -> InnState:
        if players != 2:
            raise IllegalAction("Fairy Tale Inn is a game for exactly 2 players.")
        rng = Rng.from_seed(seed)
        order = [c.id for c in self.data.characters]
        chosen = set(rng.sample(order, self.data.characters_per_game))
        characters = [cid for cid in order if cid in chosen]
        bag = [cid for cid in characters for _ in range(self.cards[cid].tokens)]
        rng.shuffle(bag)
        guest: list[str | None] = [bag.pop() if bag else None for _ in self.costs]
        supply = {
            card.companion: self.companions[card.companion].tokens
            for cid in characters
            if (card := self.cards[cid]).companion is not None
        }
        sg = self.data.starting_gold
        return InnState(
            players=players,
            seed=seed,
            rng=rng,
            characters=characters,
            columns=[[] for _ in range(self.ncols)],
            bag=bag,
            guest=guest,
            gold=[sg.starter, sg.other],
            supply=supply,
            turn=0,
            starter=0,
        )

    # -- queries --------------------------------------------------------------

    def to_act(self, state: InnState) -> list[Seat]:
        return [] if state.phase == "over" else [state.turn]

    def open_columns(self, state: InnState) -> list[int]:
        """0-based columns that are not full."""
        n = self.nrows
        return [c for c, col in enumerate(state.columns) if len(col) < n]

    def rat_columns(self, state: InnState) -> list[int]:
        """0-based columns the pending Rat may go to (empty outside the Rat phase)."""
        if state.phase != "rat" or state.drop_cell is None:
            return []
        home = state.drop_cell[0]
        return [c for c in self.open_columns(state) if c != home]

    def legal_actions(self, state: InnState, seat: Seat) -> list[Any]:
        if state.phase == "over" or seat != state.turn:
            return []
        if state.phase == "rat":
            return [self._rats[c + 1] for c in self.rat_columns(state)]
        if state.phase == "extra_turn":
            return [self._extra_action, self._end_action]
        gold = state.gold[seat]
        cols = self.open_columns(state)
        out = []
        for i, tok in enumerate(state.guest):
            if tok is not None and self.costs[i] <= gold:
                out.extend(self._drops[(i + 1, c + 1)] for c in cols)
        return out

    # -- checks ---------------------------------------------------------------

    def check(self, state: InnState, seat: Seat, action: Any) -> None:
        if state.phase == "over":
            raise GameOver("The game is over.")
        if seat != state.turn:
            raise NotYourTurn("It is not your turn.")
        reason = self._why_illegal(state, seat, action)
        if reason is not None:
            raise IllegalAction(reason)

    def explain_illegal(self, state: InnState, seat: Seat, action: Any) -> str:
        if state.phase == "over":
            return "The game is over."
        if seat != state.turn:
            return "It is not your turn."
        return self._why_illegal(state, seat, action) or "That move is allowed."

    def _column_problem(self, state: InnState, column: Any) -> str | None:
        if not isinstance(column, int) or not 1 <= column <= self.ncols:
            return f"There is no column {column}: the inn has columns 1 to {self.ncols}."
        if len(state.columns[column - 1]) >= self.nrows:
            return f"Column {column} is full."
        return None

    def _why_illegal(self, state: InnState, seat: Seat, action: Any) -> str | None:
        """None when ``action`` is legal, else the plain-English reason."""
        phase = state.phase
        if isinstance(action, Drop):
            if phase == "rat":
                return "First choose the column for the Pied Piper's Rat."
            if phase == "extra_turn":
                return (f"First decide whether to pay {self.extra_price} gold for an extra turn, "
                        "or end your turn.")
            n = len(self.costs)
            if not isinstance(action.slot, int) or not 1 <= action.slot <= n:
                return f"There is no slot {action.slot}: the Guest List has slots 1 to {n}."
            if state.guest[action.slot - 1] is None:
                return f"Slot {action.slot} of the Guest List is empty."
            cost = self.costs[action.slot - 1]
            if cost > state.gold[seat]:
                return f"You have {state.gold[seat]} gold; slot {action.slot} costs {cost}."
            return self._column_problem(state, action.column)
        if isinstance(action, Rat):
            if phase != "rat":
                return "There is no Rat to place right now."
            problem = self._column_problem(state, action.column)
            if problem:
                return problem
            assert state.drop_cell is not None
            home = state.drop_cell[0] + 1
            if action.column == home:
                return f"The Rat must go into a column other than the Pied Piper's (column {home})."
            return None
        if isinstance(action, ExtraTurn | EndTurn):
            if phase != "extra_turn":
                return "No extra turn is on offer right now."
            if isinstance(action, ExtraTurn):
                price = self.extra_price
                if state.gold[seat] < price:
                    return f"You have {state.gold[seat]} gold; an extra turn costs {price}."
            return None
        return "That is not a Fairy Tale Inn move."

    # -- applying -------------------------------------------------------------

    def _apply(self, state: InnState, seat: Seat, action: Any) -> list[Event]:
        events: list[Event] = []
        self._step(state, seat, action, events)
        return events

    def fast_apply(self, state: InnState, seat: Seat, action: Any) -> None:
        """Apply a known-legal action without checks or events (for search AIs)."""
        self._step(state, seat, action, None)
        state.__dict__["ply"] += 1

    def _say(self, events: list[Event] | None, template: str, *who: Seat, **kw: Any) -> None:
        if events is not None:
            seat = who[0] if who else None
            events.append(InnEvent(kind=kw.pop("kind", "note"), seat=seat, template=template,
                                   who=who, **kw))

    def _step(self, state: InnState, seat: Seat, action: Any, ev: list[Event] | None) -> None:
        kind = action.kind
        if kind == "drop":
            self._drop(state, seat, action.slot - 1, action.column - 1, ev)
        elif kind == "rat":
            assert state.drop_cell is not None
            c, r = state.drop_cell
            piper = state.columns[c][r][0]
            state.__dict__["phase"] = "drop"
            comp = self.cards[piper].companion
            assert comp is not None
            self._place_companion(state, seat, comp, action.column - 1, ev)
            self._after_abilities(state, seat, ev)
        elif kind == "extra_turn":
            price = self.extra_price
            state.gold[seat] -= price
            self._say(ev, f"{{0}} pays {price} gold and takes another turn.", seat,
                      kind="extra_turn", amount=price)
            self._start_turn(state, seat, ev)
        else:  # end_turn
            self._say(ev, "{0} ends the turn without an extra turn.", seat, kind="end_turn")
            self._start_turn(state, 1 - seat, ev)

    def _drop(self, state: InnState, seat: Seat, i: int, c: int,
              ev: list[Event] | None) -> None:
        token = state.guest[i]
        assert token is not None
        cost = self.costs[i]
        state.gold[seat] -= cost
        del state.guest[i]
        refill = state.bag.pop() if state.bag else None
        state.guest.insert(0, refill)
        col = state.columns[c]
        r = len(col)
        col.append((token, seat))
        # Scalar fields are written through __dict__: pydantic's __setattr__ costs more
        # than the rest of a move, and search AIs make many moves (no validation is lost:
        # the state model does not validate assignments).
        d = state.__dict__
        d["drop_cell"] = (c, r)
        d["placed"] = [(c, r)]
        d["extra_offer"] = False
        if ev is not None:
            paid = f"paid {cost} gold" if cost else "free"
            self._say(ev, f"{{0}} took {self.names[token]} from slot {i + 1} ({paid}) and "
                      f"dropped it in column {c + 1}, row {r + 1}.", seat, kind="drop",
                      amount=cost, token=token, column=c + 1, row=r + 1)
            if refill is not None:
                self._say(ev, f"{self.names[refill]} arrives at the top of the Guest List.",
                          kind="refill", token=refill)
            else:
                self._say(ev, "The bag is empty: the Guest List is not refilled.",
                          kind="refill")
        self._room(state, seat, c, r, ev)
        # Step 4: the dropped character's own When Played ability.
        if self.silent[c][r]:
            self._say(ev, f"{self.names[token]} in the no-ability room loses its ability.",
                      kind="silenced", token=token, column=c + 1, row=r + 1)
            self._after_abilities(state, seat, ev)
            return
        eff = self.effect_of[token]
        et = eff.type
        if et == "diagonal_same":
            n = self._count_diagonal(state, c, r, token, seat)
            self._gain(state, seat, eff.base + eff.per * n, ev,
                       f"{self.names[token]}: {eff.base} + {n} diagonal")
        elif et == "connected_same":
            n = self._count_connected(state, c, r, token, seat)
            self._gain(state, seat, eff.base + eff.per * n, ev,
                       f"{self.names[token]}: {eff.base} + {n} connected")
        elif et == "companion_above":
            self._gain(state, seat, eff.base, ev, self.names[token])
            comp = self.cards[token].companion
            assert comp is not None
            cname = self.names[comp]
            if state.supply.get(comp, 0) <= 0:
                self._say(ev, f"No {cname} is left, so none is dropped.", kind="no_companion")
            elif r + 1 >= self.nrows:
                self._say(ev, f"{self.names[token]} is at the top of column {c + 1}: "
                          f"no room for a {cname}.", kind="no_companion")
            else:
                self._place_companion(state, seat, comp, c, ev)
        elif et == "companion_other_column":
            self._gain(state, seat, eff.base, ev, self.names[token])
            comp = self.cards[token].companion
            assert comp is not None
            cname = self.names[comp]
            choices = [x for x in self.open_columns(state) if x != c]
            if state.supply.get(comp, 0) <= 0:
                self._say(ev, f"No {cname} is left, so none is dropped.", kind="no_companion")
            elif not choices:
                self._say(ev, f"No other column has room for a {cname}.", kind="no_companion")
            elif len(choices) == 1:
                self._place_companion(state, seat, comp, choices[0], ev)
            else:
                d["phase"] = "rat"
                return
        self._after_abilities(state, seat, ev)

    def _place_companion(self, state: InnState, seat: Seat, comp: str, c: int,
                         ev: list[Event] | None) -> None:
        state.supply[comp] -= 1
        col = state.columns[c]
        r = len(col)
        col.append((comp, NOBODY))
        state.placed.append((c, r))
        self._say(ev, f"{{0}} drops a {self.names[comp]} in column {c + 1}, row {r + 1}.",
                  seat, kind="companion", token=comp, column=c + 1, row=r + 1)
        self._room(state, seat, c, r, ev)

    def _room(self, state: InnState, seat: Seat, c: int, r: int,
              ev: list[Event] | None) -> None:
        room = self.room_at[c][r]
        if room is None:
            return
        if room.kind == "gold":
            self._gain(state, seat, room.amount, ev, room.label)
        elif room.kind == "extra_turn":
            state.__dict__["extra_offer"] = True
            self._say(ev, f"{{0}} reached an {room.label} (column {c + 1}, row {r + 1}).",
                      seat, kind="extra_room", column=c + 1, row=r + 1)

    def _gain(self, state: InnState, seat: Seat, amount: int, ev: list[Event] | None,
              why: str) -> None:
        state.gold[seat] += amount
        self._say(ev, f"{{0}} gains {amount} gold ({why}).", seat, kind="gold", amount=amount)

    def _after_abilities(self, state: InnState, seat: Seat, ev: list[Event] | None) -> None:
        """Ongoing abilities triggered by the drop, then the end of the turn."""
        assert state.drop_cell is not None
        c, r = state.drop_cell
        if r > 0:
            below, owner = state.columns[c][r - 1]
            if owner == 1 - seat and not self.silent[c][r - 1]:
                eff = self.effect_of.get(below)
                if eff is not None and eff.type == "toll_above":
                    pay = min(eff.amount, state.gold[seat])
                    state.gold[seat] -= pay
                    state.gold[owner] += pay
                    if pay:
                        self._say(ev, f"{{0}} pays {{1}} {pay} gold ({{1}}'s "
                                  f"{self.names[below]} is right below).", seat, owner,
                                  kind="toll", amount=pay)
                    else:
                        self._say(ev, f"{{0}} has no gold to pay {{1}}'s "
                                  f"{self.names[below]}.", seat, owner, kind="toll")
        state.__dict__["turns"] += 1
        full = sum(1 for col in state.columns if len(col) >= self.nrows)
        if full >= 3:
            self._end(state, "three columns of the inn are full", ev)
            return
        if all(t is None for t in state.guest):
            # Whoever acts next has no token to take, so the game ends now; an extra
            # turn would only cost gold.
            self._end(state, "the Guest List is empty", ev)
            return
        if state.extra_offer:
            price = self.extra_price
            if state.gold[seat] >= price:
                state.__dict__["phase"] = "extra_turn"
                return
            self._say(ev, f"{{0}} has no gold left to pay for an extra turn ({price} gold).",
                      seat, kind="no_extra_turn")
        self._start_turn(state, 1 - seat, ev)

    def _start_turn(self, state: InnState, seat: Seat, ev: list[Event] | None) -> None:
        d = state.__dict__
        d["turn"] = seat
        d["phase"] = "drop"
        d["extra_offer"] = False
        if all(t is None for t in state.guest):
            self._end(state, "the Guest List is empty", ev)

    # -- abilities ------------------------------------------------------------

    def _at(self, state: InnState, c: int, r: int) -> Token | None:
        if 0 <= c < self.ncols and r >= 0:
            col = state.columns[c]
            if r < len(col):
                return col[r]
        return None

    def _count_diagonal(self, state: InnState, c: int, r: int, token: str, seat: Seat) -> int:
        me = (token, seat)
        return sum(
            1
            for dc, dr in ((-1, -1), (-1, 1), (1, -1), (1, 1))
            if self._at(state, c + dc, r + dr) == me
        )

    def _count_connected(self, state: InnState, c: int, r: int, token: str,
                         seat: Seat) -> int:
        me = (token, seat)
        seen = {(c, r)}
        stack = [(c, r)]
        while stack:
            x, y = stack.pop()
            for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                if (nx, ny) not in seen and self._at(state, nx, ny) == me:
                    seen.add((nx, ny))
                    stack.append((nx, ny))
        return len(seen) - 1

    def end_bonuses(self, state: InnState) -> list[tuple[Seat, str, int]]:
        """End-of-Game gold as (seat, character id, gold) per character kind with a bonus.

        Written for speed (search AIs call it at every leaf): a neighbour counts when
        its owner is the wanted seat, which already rules out Rats and Beanstalks
        (they belong to nobody).
        """
        out: dict[tuple[Seat, str], int] = {}
        wolves: dict[str, list[list[int]]] = {}
        columns = state.columns
        ncols = self.ncols
        etype = self._etype
        silent = self.silent
        for c, col in enumerate(columns):
            h = len(col)
            scol = silent[c]
            for r in range(h):
                tok, owner = col[r]
                if owner < 0:
                    continue
                et = etype[tok]
                if et == "row_majority":
                    rows = wolves.get(tok)
                    if rows is None:
                        rows = wolves[tok] = [[0, 0, 0, 0] for _ in range(self.nrows)]
                    rows[r][owner] += 1
                    if not scol[r]:
                        rows[r][2 + owner] += 1
                    continue
                if scol[r] or (et != "neighbours_opponent" and et != "neighbours_own"):
                    continue
                want = 1 - owner if et == "neighbours_opponent" else owner
                n = 0
                if r > 0 and col[r - 1][1] == want:
                    n += 1
                if r + 1 < h and col[r + 1][1] == want:
                    n += 1
                if c > 0:
                    side = columns[c - 1]
                    if r < len(side) and side[r][1] == want:
                        n += 1
                if c + 1 < ncols:
                    side = columns[c + 1]
                    if r < len(side) and side[r][1] == want:
                        n += 1
                if n:
                    key = (owner, tok)
                    out[key] = out.get(key, 0) + self.effect_of[tok].per * n
        for tok, rows in wolves.items():
            per = self.effect_of[tok].per_row
            for mine0, mine1, live0, live1 in rows:
                if mine0 > mine1 and live0:
                    out[(0, tok)] = out.get((0, tok), 0) + per
                elif mine1 > mine0 and live1:
                    out[(1, tok)] = out.get((1, tok), 0) + per
        return [(s, t, g) for (s, t), g in sorted(out.items())]

    def end_totals(self, state: InnState) -> list[int]:
        totals = [0] * state.players
        for s, _, g in self.end_bonuses(state):
            totals[s] += g
        return totals

    def _end(self, state: InnState, reason: str, ev: list[Event] | None) -> None:
        state.phase = "over"
        state.end_reason = reason
        self._say(ev, f"The game ends: {reason}.", kind="game_end")
        bonus = [0] * state.players
        for s, tok, g in self.end_bonuses(state):
            bonus[s] += g
            self._say(ev, f"{{0}} gains {g} gold at the end of the game ({self.names[tok]}).",
                      s, kind="end_gold", amount=g, token=tok)
        state.end_bonus = bonus
        for s in range(state.players):
            state.gold[s] += bonus[s]
        if ev is not None:
            out = self.outcome(state)
            assert out is not None
            w = out.winners[0]
            tie = " (a tie: the player who did not start wins)" if (
                state.gold[0] == state.gold[1]) else ""
            self._say(ev, f"{{0}} wins with {state.gold[w]} gold to "
                      f"{state.gold[1 - w]}{tie}.", w, 1 - w, kind="winner")

    # -- results and views ----------------------------------------------------

    def outcome(self, state: InnState) -> Outcome | None:
        if state.phase != "over":
            return None
        g = state.gold
        if g[0] == g[1]:
            winner = 1 - state.starter
            reason = f"{state.end_reason}; tied on gold, the player who did not start wins"
        else:
            winner = 0 if g[0] > g[1] else 1
            reason = state.end_reason or "game over"
        return Outcome(winners=[winner], scores={s: g[s] for s in range(state.players)},
                       reason=reason)

    def prompt(self, state: InnState) -> str:
        if state.phase == "over":
            return "The game is over."
        if state.phase == "rat":
            return "Choose another column for the Pied Piper's Rat."
        if state.phase == "extra_turn":
            return f"Pay {self.extra_price} gold for an extra turn, or end your turn."
        return "Take a token from the Guest List and drop it into a column."

    def view(self, state: InnState, seat: Seat | None) -> InnView:
        grid = [
            [
                CellView(token=tok, name=self.names[tok], owner=None if owner < 0 else owner,
                         silenced=self.silent[c][r])
                for r, (tok, owner) in enumerate(col)
            ]
            for c, col in enumerate(state.columns)
        ]
        rooms = [
            RoomView(column=col, row=row, kind=room.kind, amount=room.amount, label=room.label)
            for room in self.data.rooms
            for col, row in room.cells
        ]
        guest = [
            SlotView(slot=i + 1, cost=self.costs[i], token=tok,
                     name=None if tok is None else self.names[tok])
            for i, tok in enumerate(state.guest)
        ]
        chars = [
            CharacterView(id=card.id, name=card.name, ability=card.ability, text=card.text,
                          tokens=card.tokens, companion=card.companion)
            for card in (self.cards[cid] for cid in state.characters)
        ]
        out = self.outcome(state)
        return InnView(
            seat=seat,
            players=state.players,
            columns=self.ncols,
            rows=self.nrows,
            grid=grid,
            rooms=rooms,
            guest_list=guest,
            gold=list(state.gold),
            bag_count=len(state.bag),
            characters=chars,
            companions_left=dict(state.supply),
            to_act=None if state.phase == "over" else state.turn,
            phase=state.phase,
            prompt=self.prompt(state),
            rat_columns=[c + 1 for c in self.rat_columns(state)],
            last_cells=[(c + 1, r + 1) for c, r in state.placed],
            starter=state.starter,
            end_preview=[0] * state.players if out else self.end_totals(state),
            end_bonus=list(state.end_bonus),
            winners=None if out is None else out.winners,
            reason=None if out is None else out.reason,
        )

    # -- hidden information and copies -----------------------------------------

    def determinize(self, state: InnState, seat: Seat | None, rng: Rng) -> InnState:
        """Everyone sees everything but the bag's order, so reshuffle the bag.

        The bag is sorted before the shuffle, so the result depends only on what
        is in the bag, never on its real order (an AI cannot even peek by accident).
        """
        other = self.copy_state(state)
        other.bag.sort()
        _shuffle(other.bag, rng.next_u64())
        return other

    def copy_state(self, state: InnState) -> InnState:
        # Build the copy's __dict__ directly (what model_construct does, minus its
        # per-field bookkeeping): about 8x faster than a deep copy, and search AIs copy a lot.
        d = state.__dict__
        rng = Rng.__new__(Rng)
        object.__setattr__(rng, "__dict__", {"state": d["rng"].state})
        object.__setattr__(rng, "__pydantic_fields_set__", {"state"})
        object.__setattr__(rng, "__pydantic_extra__", None)
        object.__setattr__(rng, "__pydantic_private__", None)
        new = dict(d)
        new["rng"] = rng
        new["characters"] = list(d["characters"])
        new["columns"] = [list(col) for col in d["columns"]]
        new["bag"] = list(d["bag"])
        new["guest"] = list(d["guest"])
        new["gold"] = list(d["gold"])
        new["supply"] = dict(d["supply"])
        new["placed"] = list(d["placed"])
        new["end_bonus"] = list(d["end_bonus"])
        copy = InnState.__new__(InnState)
        object.__setattr__(copy, "__dict__", new)
        object.__setattr__(copy, "__pydantic_fields_set__", set(state.__pydantic_fields_set__))
        object.__setattr__(copy, "__pydantic_extra__", None)
        object.__setattr__(copy, "__pydantic_private__", None)
        return copy


# --------------------------------------------------------------------------- declaration

SECRET_RUN = 4
"""A leak of this many consecutive upcoming bag draws, in order, counts."""


def secret_fragments(game: FairyTaleInn, state: InnState) -> list[list[str]]:
    """Runs of the next bag draws (drawn from the end), as token ids and as names, that
    no public message may contain in order. A run that is also a public order (the
    characters in play, the Guest List) proves nothing, and neither does a run of one
    token repeated ("wolf wolf wolf wolf")."""
    draws = list(reversed(state.bag))
    public = [list(state.characters), [g for g in state.guest if g is not None]]

    def contains(seq: list[str], window: list[str]) -> bool:
        return any(seq[i:i + len(window)] == window for i in range(len(seq) - len(window) + 1))

    out: list[list[str]] = []
    for i in range(len(draws) - SECRET_RUN + 1):
        window = draws[i:i + SECRET_RUN]
        if len(set(window)) == 1 or any(contains(seq, window) for seq in public):
            continue
        out.append(window)
        out.append([game.names.get(t, t) for t in window])
    return out


register(GameSpec(
    engine=FairyTaleInn,
    agents="engines.agents.fairy_tale_inn",
    board="renderers.fairy_tale_inn:render",
    text_board="renderers.text:fairy_tale_inn_board",
    ui="bot.core.choices.fairy_tale_inn:FairyTaleInnUI",
    cog="bot.messages.cogs.inn",
    rules="rules/fairy_tale_inn.json",
    conformance=(ConformanceCase(2, seeds=25),),
    secret_fragments=secret_fragments,
))
