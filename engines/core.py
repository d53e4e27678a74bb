"""The engine contract every Fabletop game implements.

A game is a stateless object (subclass of :class:`Game`) whose methods take a
pydantic state model and act on it. Everything random flows from the
:class:`Rng` kept inside the state, so a game is reproducible from
``(players, options, seed)`` plus its action log:

>>> from engines import get_game
>>> game = get_game("fairy-tale-inn")
>>> state = game.setup(2, game.Options(), seed=7)
>>> seat = game.to_act(state)[0]
>>> action = game.legal_actions(state, seat)[0]
>>> events = game.apply(state, seat, action)
>>> replayed = game.replay(2, game.Options(), 7, [(seat, action)])
>>> replayed == state
True

Cross-cutting checks (game over, whose turn, legality) live in one place,
:meth:`Game.apply`, so no engine can forget them; engines implement
:meth:`Game._apply`, which may assume the action is legal.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter

Seat = int
"""A seat number, 0-based. The service maps Discord users to seats."""

_MASK64 = (1 << 64) - 1


# --------------------------------------------------------------------------- errors


class UserError(ValueError):
    """Base of every error meant for the person who caused it: its message is plain
    English, safe to show them (privately) as it is. Front ends show these and only
    these; anything else is a fault of ours, logged and answered with an apology.

    It lives here, in the lowest layer, so rule errors and the bot's own errors (a full
    table, a button from an older turn) share it."""


class GameError(UserError):
    """Base of every rule error; the message is plain English for the player."""


class IllegalAction(GameError):
    """The action breaks a rule of the game in the current state."""


class NotYourTurn(GameError):
    """The seat is not among those that may act now."""


class GameOver(GameError):
    """The game has ended; no more actions are accepted."""


class StaleVersion(GameError):
    """The action was chosen on an older version of the table than the current one."""


# --------------------------------------------------------------------------- RNG


class Rng(BaseModel):
    """A tiny splitmix64 generator whose whole state is one integer.

    It lives inside game states, so saving a state saves the generator too and
    a replay draws exactly the same numbers.

    >>> r = Rng.from_seed(1)
    >>> [r.randrange(6) for _ in range(5)]
    [1, 4, 3, 2, 4]
    >>> Rng.from_seed(1).randrange(6) == Rng.from_seed(1).randrange(6)
    True
    """

    model_config = ConfigDict(validate_assignment=False)

    state: int

    @classmethod
    def from_seed(cls, seed: int) -> Rng:
        return cls(state=(seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK64)

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def randrange(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("randrange needs a positive bound")
        limit = (_MASK64 + 1) - ((_MASK64 + 1) % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def random(self) -> float:
        return (self.next_u64() >> 11) / float(1 << 53)

    def choice(self, items: Sequence[Any]) -> Any:
        return items[self.randrange(len(items))]

    def weighted(self, items: Sequence[Any], weights: Sequence[float]) -> Any:
        """One of ``items`` (not empty), each as likely as its weight; one draw.

        >>> Rng.from_seed(1).weighted(["a", "b"], [0.0, 1.0])
        'b'
        """
        x = self.random() * sum(weights)
        for item, w in zip(items, weights, strict=True):
            x -= w
            if x <= 0:
                return item
        return items[-1]

    def shuffle(self, items: list[Any]) -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randrange(i + 1)
            items[i], items[j] = items[j], items[i]

    def sample(self, items: Sequence[Any], k: int) -> list[Any]:
        pool = list(items)
        self.shuffle(pool)
        return pool[:k]

    def spawn(self) -> Rng:
        """An independent generator derived from this one (advances this one)."""
        return Rng(state=self.next_u64())


# --------------------------------------------------------------------------- models


class Action(BaseModel):
    """Base of every game's actions. Subclasses add ``kind: Literal[...]``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def __repr__(self) -> str:
        fields = " ".join(f"{k}={v!r}" for k, v in self.model_dump().items() if k != "kind")
        return f"<{type(self).__name__} {fields}>".replace(" >", ">")


class Event(BaseModel):
    """A small typed fact that happened ("took Princess from slot 2, paid 1 gold").

    ``visible_to`` is ``None`` for public events, otherwise the seats allowed to
    see it: the service never shows a private event to anyone else.
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    seat: Seat | None = None
    visible_to: tuple[Seat, ...] | None = None

    def text(self, name: Callable[[Seat], str]) -> str:
        """Plain-English line for the game log; ``name`` turns seats into names."""
        return self.kind.replace("_", " ")

    def visible(self, seat: Seat | None) -> bool:
        return self.visible_to is None or (seat is not None and seat in self.visible_to)


class GameState(BaseModel):
    """Fields every state has. Games subclass it with their own fields."""

    model_config = ConfigDict(validate_assignment=False)

    players: int
    seed: int
    rng: Rng
    ply: int = 0


class View(BaseModel):
    """What one seat (or the public, ``seat=None``) may see. Games subclass it."""

    seat: Seat | None
    players: int


class Outcome(BaseModel):
    """How a finished game ended."""

    winners: list[Seat]
    scores: dict[Seat, int]
    reason: str


class Options(BaseModel):
    """Base of every game's table options (all fields need defaults)."""

    model_config = ConfigDict(extra="forbid")


S = TypeVar("S", bound=GameState)
A = TypeVar("A", bound=Action)


# --------------------------------------------------------------------------- the game


class Game(abc.ABC, Generic[S, A]):
    """One game's rules. Subclasses declare metadata up front and implement the
    abstract methods; they keep no per-game data on ``self``."""

    id: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    has_secrets: ClassVar[bool] = False
    cooperative: ClassVar[bool] = False
    """Every seat wins or loses together (one team against the game)."""
    Options: ClassVar[type[Options]] = Options
    State: ClassVar[type[GameState]]
    ViewType: ClassVar[type[View]] = View
    """The model :meth:`view` returns (views travel as JSON through the outbox)."""
    ActionType: ClassVar[Any]
    """The action type: usually an ``Annotated[Union[...], Field(discriminator="kind")]``."""

    _adapter: ClassVar[TypeAdapter[Any] | None] = None

    # -- to implement ---------------------------------------------------------

    @abc.abstractmethod
    def setup(self, players: int, options: Options, seed: int) -> S:
        """A fresh game for ``players`` seats."""

    @abc.abstractmethod
    def to_act(self, state: S) -> list[Seat]:
        """The seats that may act now; empty when the game is over."""

    @abc.abstractmethod
    def legal_actions(self, state: S, seat: Seat) -> list[A]:
        """Every legal action of ``seat`` (free-text parts are not enumerated)."""

    @abc.abstractmethod
    def _apply(self, state: S, seat: Seat, action: A) -> list[Event]:
        """Mutate ``state``; called only once :meth:`check` has passed."""

    @abc.abstractmethod
    def view(self, state: S, seat: Seat | None) -> View:
        """What ``seat`` (or the public) may see."""

    @abc.abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result once the game is over, else ``None``."""

    @abc.abstractmethod
    def determinize(self, state: S, seat: Seat | None, rng: Rng) -> S:
        """A copy of ``state`` in which everything ``seat`` cannot see is
        resampled consistently with what it can see (bag order, other hands).

        Used by search AIs (they must not peek) and by the conformance suite
        (a seat's view must not change when only others' secrets change).
        """

    # -- shared machinery -----------------------------------------------------

    def check(self, state: S, seat: Seat, action: A) -> None:
        """Raise a :class:`GameError` if ``seat`` may not play ``action`` now.

        Games whose actions are all enumerable keep this default; games with
        free-text parts override :meth:`explain_illegal` or this method.
        """
        if self.outcome(state) is not None:
            raise GameOver("The game is over.")
        if seat not in self.to_act(state):
            raise NotYourTurn("It is not your turn.")
        if action not in self.legal_actions(state, seat):
            raise IllegalAction(self.explain_illegal(state, seat, action))

    def meta_actions(self, state: S, seat: Seat) -> list[A]:
        """Actions a seat may take outside the turn order (table-safety tools,
        rulings of an arbiter). They are not part of :meth:`to_act` and a game
        that has them overrides :meth:`check` to accept them. Default: none."""
        return []

    def may_act_out_of_turn(self, state: S, seat: Seat) -> bool:
        """Whether ``seat`` has any of :meth:`meta_actions` now (games whose list is long
        answer without building it)."""
        return bool(self.meta_actions(state, seat))

    def out_of_turn(self, state: S, seat: Seat, action: A) -> bool:
        """Whether ``action``, accepted in ``state``, is taken outside the turn order: not
        the seat's turn, or a kind of action its turn does not offer (so one of the
        :meth:`meta_actions`). Asked through the turn's own actions, not through
        ``meta_actions``, which may list every ruling possible (Winter Tales: one per
        passage of the story)."""
        if seat not in self.to_act(state):
            return True
        kind = getattr(action, "kind", None)
        return kind not in {getattr(a, "kind", None) for a in self.legal_actions(state, seat)}

    def explain_illegal(self, state: S, seat: Seat, action: A) -> str:
        """Why ``action`` is not legal; games give specific reasons."""
        return "That move is not allowed right now."

    def apply(self, state: S, seat: Seat, action: A) -> list[Event]:
        """Check, then apply. On any :class:`GameError` the state is untouched."""
        self.check(state, seat, action)
        events = self._apply(state, seat, action)
        state.ply += 1
        return events

    def parse_action(self, data: Any) -> A:
        """An action from its JSON form (dict or str); raises IllegalAction if malformed."""
        adapter = type(self)._adapter
        if adapter is None:
            adapter = TypeAdapter(self.ActionType)
            type(self)._adapter = adapter
        try:
            if isinstance(data, (str, bytes)):
                return adapter.validate_json(data)
            if isinstance(data, BaseModel):
                data = data.model_dump()
            return adapter.validate_python(data)
        except Exception as exc:  # pydantic.ValidationError, JSON errors
            raise IllegalAction(f"That is not a valid {self.name} move.") from exc

    def dump_action(self, action: A) -> str:
        return action.model_dump_json()

    def parse_options(self, data: dict[str, Any] | None) -> Options:
        try:
            return self.Options.model_validate(data or {})
        except Exception as exc:
            raise IllegalAction(f"Invalid options for {self.name}: {exc}") from exc

    def parse_view(self, data: str | bytes | dict[str, Any]) -> View:
        """A view from its JSON form (as stored in a durable outbox)."""
        if isinstance(data, dict):
            return self.ViewType.model_validate(data)
        return self.ViewType.model_validate_json(data)

    def load_state(self, data: str | bytes) -> S:
        return self.State.model_validate_json(data)  # type: ignore[return-value]

    def dump_state(self, state: S) -> str:
        return state.model_dump_json()

    # -- the journal: what a state only appends to, stored beside it -----------

    journaled: ClassVar[bool] = False
    """The state keeps a journal (Winter Tales: its story) that the store keeps apart,
    appending only what each move adds: see :meth:`dump_body`, :meth:`journal_changes`
    and :meth:`load_stored`."""

    def dump_body(self, state: S) -> str:
        """The state as the table row stores it: all of it but the journal."""
        return self.dump_state(state)

    def journal_changes(self, before: S | None, after: S) -> list[tuple[int, str]]:
        """``(index, JSON)`` of the journal entries of ``after`` that ``before`` does not
        hold as they are (appended, or replaced by a new entry); all of them when
        ``before`` is ``None``. A journal's entries are never changed in place."""
        return []

    def load_stored(self, body: str | bytes, journal: Sequence[str] = ()) -> S:
        """A state from its stored body and journal (the newest form of each entry, in
        order). A body written before journals were kept holds its journal itself."""
        return self.load_state(body)

    def copy_state(self, state: S) -> S:
        return state.model_copy(deep=True)

    def replay(
        self,
        players: int,
        options: Options,
        seed: int,
        log: Iterable[tuple[Seat, A]],
    ) -> S:
        """Rebuild a state from its seed, options and action log."""
        state = self.setup(players, options, seed)
        for seat, action in log:
            self.apply(state, seat, action)
        return state

    def is_over(self, state: S) -> bool:
        return self.outcome(state) is not None

    def __repr__(self) -> str:
        return f"<Game {self.id} ({self.min_players}-{self.max_players} players)>"
