"""TableService: the discord-free application core.

One live table per channel (a thread is a channel too: the service only sees the
channel id it is given). The console, the Discord cogs and the tests all drive the
same service::

    service = await TableService.open_sqlite("data/fabletop.sqlite3")
    service.subscribe(on_outbox)              # AI moves and reminders arrive here
    info = await service.create(channel, guild, host_id, "Ann", "fairy-tale-inn")
    await service.join(channel, bob_id, "Bob")    # or: await service.add_ai(channel, host_id)
    outbox = await service.start(channel, host_id)
    outbox = await service.act(channel, bob_id, {"kind": ...}, expected_version=outbox.version)

Identity: users are plain ``int`` ids (Discord snowflakes) with a display name; the
service maps users to seats, the engine only knows seats. A seat whose ``user_id`` is
``None`` is played by an AI agent.

Lifecycle of a table: ``lobby`` -> ``playing`` -> ``finished``; ``lobby`` or
``playing`` -> ``aborted``. Only lobby and playing tables are "live" and hold their
channel; a finished or aborted table stays in the store for its history.

Versions: a table's ``version`` is the number of accepted game actions (0 when the game
starts). Buttons carry it; ``act(..., expected_version=v)`` refuses with
:class:`StaleVersion` if the table has moved on. Lobby changes do not bump it.

Host leaving the lobby: the host role passes to the longest-seated remaining human;
if no human remains (only AI seats or nobody), the lobby is closed (status
``aborted``) and the channel is free again. Leaving is a lobby-only operation: during
a game the host hands a gone player's seat to another member or an AI with
:meth:`TableService.replace_seat`.

Nothing but views and plain text leaves the service: raw game states go only to the
store and to AI agents (which run in a worker thread on a private copy).
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engines import core
from engines.core import Action, Outcome, View

__all__ = [
    "AlreadyHasTable",
    "AlreadySeated",
    "BadOptions",
    "BadSeat",
    "Listener",
    "NoTable",
    "NotEnoughPlayers",
    "NotHost",
    "NotInLobby",
    "NotPlaying",
    "NotSeated",
    "NotYourTurn",
    "Outbox",
    "PrivateUpdate",
    "PublicUpdate",
    "SeatInfo",
    "StaleVersion",
    "TableError",
    "TableFull",
    "TableInfo",
    "TableService",
    "TableStatus",
    "UnknownAILevel",
    "UnknownGame",
]


# --------------------------------------------------------------------------- errors


class TableError(ValueError):
    """Base of every service error; ``str(exc)`` is a plain-English message for the user.

    Engine errors (:class:`engines.core.GameError`: IllegalAction, GameOver, ...) raised
    by the game pass through unchanged; they are ValueErrors too, so a front end can
    catch ``ValueError`` and show ``str(exc)`` privately to the user who clicked.
    """

    default_message = "That cannot be done at this table."

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.default_message)


class NoTable(TableError):
    default_message = "There is no table in this channel. Start one with /table new."


class AlreadyHasTable(TableError):
    default_message = (
        "This channel already has a table. Join it with /table join, or ask the host "
        "to abort it first."
    )


class UnknownGame(TableError):
    default_message = "There is no game by that name."


class BadOptions(TableError):
    default_message = "Those table options are not valid."


class NotSeated(TableError):
    default_message = "You do not have a seat at this table."


class AlreadySeated(TableError):
    default_message = "You already have a seat at this table."


class NotHost(TableError):
    default_message = "Only the host of this table can do that."


class TableFull(TableError):
    default_message = "This table is full."


class NotInLobby(TableError):
    default_message = "The game at this table has already started."


class NotPlaying(TableError):
    default_message = "There is no game in progress at this table."


class NotEnoughPlayers(TableError):
    default_message = "There are not enough players to start."


class BadSeat(TableError):
    default_message = "There is no such seat at this table."


class UnknownAILevel(TableError):
    default_message = "There is no AI player of that level for this game."


class NotYourTurn(TableError, core.NotYourTurn):
    """Both a TableError and the engine's NotYourTurn (catch either)."""

    default_message = "It is not your turn."


class StaleVersion(TableError, core.StaleVersion):
    """Both a TableError and the engine's StaleVersion (catch either)."""

    default_message = (
        "This button is from an older turn; the table has moved on. "
        "Use the latest message in the channel."
    )


# --------------------------------------------------------------------------- value objects


class TableStatus(enum.StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    ABORTED = "aborted"

    @property
    def live(self) -> bool:
        """Lobby and playing tables hold their channel."""
        return self in (TableStatus.LOBBY, TableStatus.PLAYING)


@dataclass(frozen=True)
class SeatInfo:
    """One seat. Before the start ``index`` is the join order; after the start it is
    the engine seat number (seating is shuffled at the start)."""

    index: int
    name: str
    user_id: int | None = None
    """The human holding the seat; ``None`` for an AI seat."""
    ai_level: str | None = None

    @property
    def is_ai(self) -> bool:
        return self.user_id is None

    def __repr__(self) -> str:
        who = f"AI:{self.ai_level}" if self.is_ai else f"user={self.user_id}"
        return f"<Seat {self.index} {self.name!r} {who}>"


@dataclass(frozen=True)
class TableInfo:
    """A read-only snapshot of a table (no game state: use the views for that)."""

    id: str
    channel_id: int
    guild_id: int | None
    game_id: str
    game_name: str
    options: dict[str, Any]
    seed: int
    status: TableStatus
    host_id: int
    seats: tuple[SeatInfo, ...]
    version: int
    min_players: int
    max_players: int
    reminder_minutes: float
    to_act: tuple[int, ...] = ()
    """Seats that may act now (empty unless playing)."""
    outcome: Outcome | None = None
    outcome_text: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    text: str = ""
    """A plain-English status summary (what /table status shows)."""

    def seat_of(self, user_id: int) -> SeatInfo | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    @property
    def to_act_users(self) -> tuple[int, ...]:
        """Human user ids among the seats to act."""
        return tuple(
            s.user_id for s in self.seats if s.index in self.to_act and s.user_id is not None
        )

    def __repr__(self) -> str:
        return (
            f"<Table {self.id} {self.game_id} {self.status.value} v{self.version} "
            f"channel={self.channel_id} seats={len(self.seats)}>"
        )


@dataclass(frozen=True)
class PublicUpdate:
    """What the channel should see after something happened at a table."""

    table_id: str
    channel_id: int
    game_id: str
    version: int
    """The table version after the change: buttons built now must carry it."""
    kind: str
    """``created``, ``lobby``, ``start``, ``move``, ``reminder``, ``seat``, ``abort``."""
    lines: tuple[str, ...]
    """Plain-English lines (public events only, seats replaced by names)."""
    mentions: tuple[int, ...] = ()
    """User ids to mention (the humans whose turn it now is)."""
    render_board: bool = False
    """True when the board changed: render ``public_view`` (never a private one)."""
    to_act: tuple[int, ...] = ()
    finished: bool = False
    outcome_text: str | None = None

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True)
class PrivateUpdate:
    """Something only one seat may see (a private event, or its secret view changed)."""

    table_id: str
    channel_id: int
    user_id: int
    seat: int
    version: int
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True)
class Outbox:
    """Everything to deliver after one service operation. Delivery (DM or ephemeral,
    images) is the front end's job."""

    table: TableInfo
    public: PublicUpdate | None = None
    private: tuple[PrivateUpdate, ...] = field(default_factory=tuple)

    @property
    def version(self) -> int:
        return self.table.version

    @property
    def table_id(self) -> str:
        return self.table.id


Listener = Callable[[Outbox], Awaitable[None] | None]
"""A front-end callback for outboxes produced outside a request (AI moves, reminders)."""

Clock = Callable[[], datetime]
ChannelOrTable = int | str
"""An ``int`` is a channel id (the live table there); a ``str`` is a table id."""


# --------------------------------------------------------------------------- the service


class TableService:
    """Lobby, turns, persistence and who-sees-what for every table.

    All public coroutines raise :class:`TableError` subclasses (or the engine's
    GameErrors) with plain-English messages, and never change anything when they do.
    """

    def __init__(
        self,
        store: Any,
        *,
        clock: Clock | None = None,
        reminder_minutes: float = 10.0,
        ai_delay: float = 0.0,
    ) -> None:
        """``store`` is a :class:`bot.store.Store`; ``clock`` returns an aware UTC
        datetime (injectable for tests); ``reminder_minutes`` is the default reminder
        delay for new tables; ``ai_delay`` seconds are waited before each AI move so
        humans can follow (0 in tests)."""
        raise NotImplementedError

    @classmethod
    async def open_sqlite(cls, path: str, **kwargs: Any) -> TableService:
        """A service on a SQLite file (created if missing), opened and resumed."""
        raise NotImplementedError

    async def open(self) -> None:
        """Open the store, load every live table and resume pending AI turns."""
        raise NotImplementedError

    async def close(self) -> None:
        """Stop background work (AI tasks, reminder loop) and close the store."""
        raise NotImplementedError

    # -- listeners -------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Register a callback for outboxes produced outside a request (AI moves,
        reminders from :meth:`run_reminders`). Returns an unsubscribe function."""
        raise NotImplementedError

    async def wait_idle(self) -> None:
        """Wait until no AI turn is pending (tests and the console use this)."""
        raise NotImplementedError

    # -- catalogue -------------------------------------------------------------

    @staticmethod
    def games() -> list[tuple[str, str]]:
        """``(game_id, name)`` of every game that can be played."""
        raise NotImplementedError

    @staticmethod
    def ai_levels(game_id: str) -> list[str]:
        """AI levels available for a game, weakest first (empty if none)."""
        raise NotImplementedError

    # -- lobby -----------------------------------------------------------------

    async def create(
        self,
        channel_id: int,
        guild_id: int | None,
        host_id: int,
        host_name: str,
        game_id: str,
        options: dict[str, Any] | None = None,
        *,
        reminder_minutes: float | None = None,
        seed: int | None = None,
    ) -> TableInfo:
        """Open a lobby in ``channel_id`` with the host seated. Raises UnknownGame,
        BadOptions, AlreadyHasTable. ``seed`` (random if omitted) drives the seating
        shuffle and the game; it is recorded in the table."""
        raise NotImplementedError

    async def join(self, channel_id: int, user_id: int, name: str) -> TableInfo:
        """Take a seat in the lobby. Raises NoTable, NotInLobby, AlreadySeated, TableFull."""
        raise NotImplementedError

    async def leave(self, channel_id: int, user_id: int) -> TableInfo:
        """Leave the lobby. If the host leaves, the host role passes to the
        longest-seated remaining human; with no human left the lobby is closed
        (the returned info has status ``aborted``). Raises NoTable, NotInLobby, NotSeated."""
        raise NotImplementedError

    async def add_ai(self, channel_id: int, user_id: int, level: str | None = None) -> TableInfo:
        """Host adds an AI seat (``level`` from :meth:`ai_levels`, default the strongest).
        Raises NotHost, NotInLobby, TableFull, UnknownAILevel."""
        raise NotImplementedError

    async def remove_seat(self, channel_id: int, user_id: int, index: int) -> TableInfo:
        """Host removes a lobby seat (an AI, or a member) by its index. The host's own
        seat cannot be removed this way (use leave). Raises NotHost, NotInLobby, BadSeat."""
        raise NotImplementedError

    async def start(self, channel_id: int, user_id: int) -> Outbox:
        """Host starts the game: checks min/max players, shuffles the seating with the
        table's seeded RNG, sets the game up, commits, and mentions whoever acts first.
        If an AI acts first it plays in the background (outboxes go to listeners).
        Raises NotHost, NotInLobby, NotEnoughPlayers."""
        raise NotImplementedError

    async def abort(
        self, channel_id: int, user_id: int, *, can_manage_channel: bool = False
    ) -> Outbox:
        """End the live table in a channel without a result. Allowed for the host or a
        member with Manage Channels (the front end passes ``can_manage_channel``).
        Raises NoTable, NotHost."""
        raise NotImplementedError

    async def status(self, channel_or_table: ChannelOrTable) -> TableInfo:
        """The table in a channel (live only) or by id (any status). Raises NoTable."""
        raise NotImplementedError

    async def tables_of_user(self, user_id: int) -> list[TableInfo]:
        """Live tables where ``user_id`` holds a seat (for /hand and DMs)."""
        raise NotImplementedError

    # -- play ------------------------------------------------------------------

    async def act(
        self,
        channel_or_table: ChannelOrTable,
        user_id: int,
        action: Action | dict[str, Any] | str,
        expected_version: int | None = None,
    ) -> Outbox:
        """Play ``action`` for ``user_id``'s seat, under the table's lock.

        Checks, in order: the table exists (NoTable) and is playing (NotPlaying), the
        user has a seat (NotSeated) that is to act (NotYourTurn), ``expected_version``
        (when given) matches (StaleVersion), the action parses (IllegalAction) and is
        legal (the engine's GameErrors). Then applies it and commits the new state,
        the action and its events with version+1 in one transaction before returning.
        On any error nothing changes. AI seats that must act next play in the
        background; their outboxes go to the listeners.
        """
        raise NotImplementedError

    async def replace_seat(
        self,
        channel_id: int,
        user_id: int,
        seat: int,
        *,
        new_user_id: int | None = None,
        new_name: str | None = None,
        ai_level: str | None = None,
        can_manage_channel: bool = False,
    ) -> Outbox:
        """Host (or Manage Channels) hands ``seat`` of a running game to another member
        (``new_user_id`` + ``new_name``) or, with ``new_user_id=None``, to an AI of
        ``ai_level`` (default the strongest). Raises NotHost, NotPlaying, BadSeat,
        AlreadySeated, UnknownAILevel."""
        raise NotImplementedError

    # -- views -----------------------------------------------------------------

    async def public_view(self, channel_or_table: ChannelOrTable) -> View:
        """What everyone may see (render the channel board from this)."""
        raise NotImplementedError

    async def private_view(self, channel_or_table: ChannelOrTable, user_id: int) -> View:
        """What ``user_id``'s seat may see. Raises NotSeated."""
        raise NotImplementedError

    async def legal_actions(
        self, channel_or_table: ChannelOrTable, user_id: int
    ) -> list[Action]:
        """The user's legal actions now (empty if it is not their turn); for buttons."""
        raise NotImplementedError

    def describe_action(self, game_id: str, action: Action) -> str:
        """A short label for an action (button text, console menu)."""
        raise NotImplementedError

    async def history(self, channel_or_table: ChannelOrTable, user_id: int | None = None
                      ) -> list[str]:
        """The table's event log as text lines, filtered to what ``user_id`` may see
        (public lines only when ``None``)."""
        raise NotImplementedError

    # -- reminders -------------------------------------------------------------

    async def due_reminders(self, now: datetime | None = None) -> list[Outbox]:
        """Reminders due at ``now`` (default: the clock): one per table whose current
        turn has waited at least its reminder time since the turn began or since the
        last reminder. Each is recorded so it is not sent twice."""
        raise NotImplementedError

    async def run_reminders(self, poll_seconds: float = 30.0) -> None:
        """Background loop: every ``poll_seconds`` send :meth:`due_reminders` to the
        listeners. Start it with ``asyncio.create_task``; :meth:`close` stops it."""
        raise NotImplementedError
