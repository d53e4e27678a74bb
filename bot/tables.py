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

import asyncio
import contextlib
import enum
import inspect
import json
import logging
import math
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from bot.store import (
    ActionRecord,
    ChannelTaken,
    EventRecord,
    Store,
    TableRecord,
    VersionConflict,
)
from engines import core, game_ids, get_game
from engines.core import Action, Event, Game, GameError, GameState, Outcome, Rng, Seat, View
from renderers.text import action_label

__all__ = [
    "AgentProvider",
    "AlreadyHasTable",
    "AlreadySeated",
    "BadOptions",
    "BadSeat",
    "EngineAgents",
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


# --------------------------------------------------------------------------- agents


class Agent(Protocol):
    def choose(self, game: Game, state: GameState, seat: Seat, rng: Rng) -> Action: ...


class AgentProvider(Protocol):
    """Where AI players come from (the default wraps :mod:`engines.agents`)."""

    def levels(self, game_id: str) -> list[str]:
        """Level names, weakest first."""
        ...

    def get(self, game_id: str, level: str) -> Agent: ...


class EngineAgents:
    """The real agents registry, :mod:`engines.agents` (imported lazily).

    ``agent_kwargs`` (e.g. ``iterations=400`` from the AI_BUDGET setting) are passed to
    every agent factory; an agent that does not take them is built without them."""

    def __init__(self, **agent_kwargs: Any) -> None:
        self.agent_kwargs = agent_kwargs

    def levels(self, game_id: str) -> list[str]:
        try:
            from engines.agents import agent_levels
        except ImportError:
            return []
        try:
            return [str(level) for level in agent_levels(game_id)]
        except (KeyError, ValueError):
            return []

    def get(self, game_id: str, level: str) -> Agent:
        from engines.agents import get_agent

        kwargs = getattr(self, "agent_kwargs", {})  # subclasses may skip __init__
        if kwargs:
            try:
                return get_agent(game_id, level, **kwargs)
            except TypeError:
                pass
        return get_agent(game_id, level)


# --------------------------------------------------------------------------- internals

log = logging.getLogger("fabletop.tables")

_SEATING_SALT = 0x5EA7_1B6_5EED
_AI_SALT = 0xA1_C0FFEE
_MASK63 = (1 << 63) - 1
_MAX_REMINDER_MINUTES = 7 * 24 * 60.0


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(eq=False)
class _Table:
    """A loaded table: its stored record, the game object and (when playing) the state.

    ``rec`` and ``state`` are replaced only after a successful store write, so a failed
    operation leaves both untouched."""

    rec: TableRecord
    game: Game
    state: GameState | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    ai_task: asyncio.Task[None] | None = None
    secrets_key: tuple[Any, ...] | None = None
    secrets_cache: dict[Seat, Any] = field(default_factory=dict)
    """The seats' secret view parts at ``secrets_key`` (version, seat holders): the
    "after" of one move is the "before" of the next, so views are built once per move."""

    @property
    def status(self) -> TableStatus:
        return TableStatus(self.rec.status)

    @property
    def seats(self) -> list[SeatInfo]:
        return [SeatInfo(**s) for s in self.rec.seats]

    def seat_of(self, user_id: int) -> SeatInfo | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    def name(self, seat: Seat) -> str:
        for s in self.rec.seats:
            if s["index"] == seat:
                return str(s["name"])
        return f"Seat {seat + 1}"

    def to_act(self) -> list[Seat]:
        if self.status is not TableStatus.PLAYING or self.state is None:
            return []
        return list(self.game.to_act(self.state))


def _seat_dict(index: int, name: str, user_id: int | None, ai_level: str | None) -> dict[str, Any]:
    return {"index": index, "name": name, "user_id": user_id, "ai_level": ai_level}


def _clean_name(name: str, fallback: str) -> str:
    name = " ".join(str(name or "").split())[:64]
    return name or fallback


def _options_error(game: Game, exc: Exception) -> str:
    """A plain-English message from a pydantic ValidationError (or anything else)."""
    cause = exc.__cause__ if exc.__cause__ is not None else exc
    if isinstance(cause, ValidationError):
        parts = []
        for err in cause.errors():
            where = ".".join(str(p) for p in err.get("loc", ())) or "options"
            if err.get("type") == "extra_forbidden":
                known = ", ".join(game.Options.model_fields) or "none"
                parts.append(f"unknown option '{where}' (options: {known})")
            else:
                parts.append(f"option '{where}': {err.get('msg', 'invalid')}")
        return f"Invalid options for {game.name}: " + "; ".join(parts) + "."
    return str(exc) or f"Invalid options for {game.name}."


def _check_id(value: Any, what: str) -> None:
    """Discord ids are positive integers; anything else is a front-end bug, refused."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise TableError(f"That is not a valid {what} id: {value!r}.")


def _join_names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


# --------------------------------------------------------------------------- the service


class TableService:
    """Lobby, turns, persistence and who-sees-what for every table.

    All public coroutines raise :class:`TableError` subclasses (or the engine's
    GameErrors) with plain-English messages, and never change anything when they do.
    """

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock | None = None,
        reminder_minutes: float = 10.0,
        ai_delay: float = 0.0,
        agents: AgentProvider | None = None,
    ) -> None:
        """``store`` is a :class:`bot.store.Store`; ``clock`` returns an aware UTC
        datetime (injectable for tests); ``reminder_minutes`` is the default reminder
        delay for new tables (0 = never); ``ai_delay`` seconds are waited before each
        AI move so humans can follow (0 in tests); ``agents`` supplies AI players
        (default :mod:`engines.agents`)."""
        self.store = store
        self.clock: Clock = clock or _utcnow
        self.default_reminder_minutes = float(reminder_minutes)
        self.ai_delay = float(ai_delay)
        self.agents: AgentProvider = agents or EngineAgents()
        self._live: dict[str, _Table] = {}
        self._by_channel: dict[int, str] = {}
        self._listeners: list[Listener] = []
        self._create_lock = asyncio.Lock()
        self._ai_tasks: set[asyncio.Task[None]] = set()
        self._reminder_task: asyncio.Task[None] | None = None
        self._closed = False
        self._opened = False

    def __repr__(self) -> str:
        return f"<TableService {self.store!r} live={len(self._live)}>"

    @classmethod
    async def open_sqlite(cls, path: str | Path, **kwargs: Any) -> TableService:
        """A service on a SQLite file (created if missing), opened and resumed."""
        from bot.store.sqlite import SqliteStore

        service = cls(SqliteStore(path), **kwargs)
        await service.open()
        return service

    @classmethod
    async def from_settings(cls, settings: Any, **kwargs: Any) -> TableService:
        """A service opened on ``settings.database_path`` with the reminder time, AI delay
        and AI budget of :class:`bot.settings.Settings` (``kwargs`` override)."""
        kwargs.setdefault("reminder_minutes", settings.reminder_minutes)
        kwargs.setdefault("ai_delay", settings.ai_delay)
        kwargs.setdefault("agents", EngineAgents(iterations=settings.ai_budget))
        return await cls.open_sqlite(settings.database_path, **kwargs)

    async def open(self) -> None:
        """Open the store, load every live table and resume pending AI turns."""
        if self._opened:
            return
        await self.store.open()
        for rec in await self.store.load_all_active():
            try:
                game = get_game(rec.game_id)
                state = game.load_state(rec.state) if rec.state is not None else None
            except Exception:
                # One unreadable table (its game removed, corrupt JSON) must not stop
                # every other table from resuming; it stays in the store untouched.
                log.exception("cannot resume table %s (%s)", rec.id, rec.game_id)
                continue
            t = _Table(rec=rec, game=game, state=state)
            self._live[rec.id] = t
            self._by_channel[rec.channel_id] = rec.id
        self._opened = True
        for t in list(self._live.values()):
            self._kick_ai(t)

    async def close(self) -> None:
        """Stop background work (AI tasks, reminder loop) and close the store."""
        self._closed = True
        tasks = [*self._ai_tasks]
        if self._reminder_task is not None:
            tasks.append(self._reminder_task)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        await self.store.close()

    # -- listeners -------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Register a callback for outboxes produced outside a request (AI moves,
        reminders from :meth:`run_reminders`). Returns an unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    async def _emit(self, outbox: Outbox) -> None:
        for listener in list(self._listeners):
            try:
                result = listener(outbox)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                # A broken front end must not stop the table: the move is committed.
                log.exception("listener failed for table %s", outbox.table_id)

    async def wait_idle(self) -> None:
        """Wait until no AI turn is pending (tests and the console use this)."""
        while True:
            pending = [t for t in self._ai_tasks if not t.done()]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    # -- catalogue -------------------------------------------------------------

    @staticmethod
    def games() -> list[tuple[str, str]]:
        """``(game_id, name)`` of every game that can be played (ones that load)."""
        out = []
        for game_id in game_ids():
            try:
                out.append((game_id, get_game(game_id).name))
            except Exception:
                log.exception("game %s does not load", game_id)
        return out

    def ai_levels(self, game_id: str) -> list[str]:
        """AI levels available for a game, weakest first (empty if none)."""
        return self.agents.levels(game_id)

    # -- lookup ----------------------------------------------------------------

    def _game(self, game_id: str) -> Game:
        try:
            return get_game(game_id)
        except Exception as exc:
            known = ", ".join(gid for gid, _ in self.games())
            raise UnknownGame(f"There is no game called '{game_id}'. Games: {known}.") from exc

    async def _resolve(self, ref: ChannelOrTable) -> _Table:
        """The live table in a channel (``int``) or a table by id (``str``, any status).
        Tables this process has not seen (made by another process sharing the store)
        are read from the store."""
        if isinstance(ref, bool) or not isinstance(ref, (int, str)):
            raise NoTable("That is not a channel or a table id.")
        if isinstance(ref, int):
            table_id = self._by_channel.get(ref)
            if table_id is not None:
                return self._live[table_id]
            rec = await self.store.live_table_in_channel(ref)
            if rec is None:
                raise NoTable()
            return self._adopt(rec)
        if ref in self._live:
            return self._live[ref]
        rec = await self.store.get_table(ref)
        if rec is None:
            raise NoTable(f"There is no table with id '{ref}'.")
        return self._adopt(rec)

    def _adopt(self, rec: TableRecord) -> _Table:
        """A table read from the store; a live one joins the live maps."""
        if rec.id in self._live:
            return self._live[rec.id]
        game = self._game(rec.game_id)
        state = game.load_state(rec.state) if rec.state is not None else None
        t = _Table(rec=rec, game=game, state=state)
        if t.status.live:
            old = self._by_channel.get(rec.channel_id)
            if old is not None and old != rec.id:
                self._live.pop(old, None)  # that one ended elsewhere
            self._live[rec.id] = t
            self._by_channel[rec.channel_id] = rec.id
        return t

    async def _refresh(self, t: _Table) -> None:
        """Catch up with writes made by other processes sharing the store (the design's
        scale-out: no table state may live only in one process's memory)."""
        fresh = await self.store.get_table(t.rec.id)
        if fresh is None:
            self._forget(t)
            raise NoTable(f"There is no table with id '{t.rec.id}'.")
        if fresh == t.rec:  # the usual case: nobody else wrote (a plain field compare)
            return
        if fresh.state != t.rec.state or t.state is None:
            t.state = t.game.load_state(fresh.state) if fresh.state is not None else None
        t.rec = fresh
        t.secrets_key = None
        if not t.status.live:
            self._forget(t)

    @contextlib.asynccontextmanager
    async def _locked(self, ref: ChannelOrTable) -> AsyncIterator[_Table]:
        """Resolve ``ref``, take the table's lock and bring it up to date."""
        for attempt in range(2):
            t = await self._resolve(ref)
            async with t.lock:
                await self._refresh(t)
                # A channel whose table ended in another process may hold a newer one.
                if isinstance(ref, int) and not t.status.live and attempt == 0:
                    continue
                yield t
                return
        raise NoTable()

    def _forget(self, t: _Table) -> None:
        """Drop a table that is no longer live from the live maps (frees its channel)."""
        self._live.pop(t.rec.id, None)
        if self._by_channel.get(t.rec.channel_id) == t.rec.id:
            del self._by_channel[t.rec.channel_id]

    # -- snapshots ---------------------------------------------------------------

    def _outcome_text(self, t: _Table, outcome: Outcome | None) -> str | None:
        if outcome is None:
            return None
        winners = _join_names([t.name(s) for s in outcome.winners]) or "Nobody"
        verb = "wins" if len(outcome.winners) == 1 else "win"
        scores = ", ".join(
            f"{t.name(int(s))} {v}" for s, v in sorted(outcome.scores.items(), key=lambda x: x[0])
        )
        text = f"Game over. {winners} {verb}!"
        if scores:
            text += f" Scores: {scores}."
        reason = outcome.reason.strip()
        if reason:
            reason = reason[0].upper() + reason[1:]
            text += f" {reason}" + ("" if reason[-1] in ".!?" else ".")
        return text

    def _info(self, t: _Table) -> TableInfo:
        rec, game = t.rec, t.game
        status = t.status
        outcome = game.outcome(t.state) if t.state is not None else None
        to_act = tuple(t.to_act())
        seats = tuple(t.seats)
        outcome_text = self._outcome_text(t, outcome) if status is TableStatus.FINISHED else None
        info = TableInfo(
            id=rec.id,
            channel_id=rec.channel_id,
            guild_id=rec.guild_id,
            game_id=rec.game_id,
            game_name=game.name,
            options=dict(rec.options),
            seed=rec.seed,
            status=status,
            host_id=rec.host_id,
            seats=seats,
            version=rec.version,
            min_players=game.min_players,
            max_players=game.max_players,
            reminder_minutes=rec.reminder_minutes,
            to_act=to_act,
            outcome=outcome if status is TableStatus.FINISHED else None,
            outcome_text=outcome_text,
            created_at=rec.created_at,
            updated_at=rec.updated_at,
        )
        return replace(info, text=self._status_text(t, info))

    def _status_text(self, t: _Table, info: TableInfo) -> str:
        host = t.seat_of(info.host_id)
        host_name = host.name if host else f"user {info.host_id}"
        lines = [f"{info.game_name} (table {info.id}) — {info.status.value}"]
        seat_lines = []
        for s in info.seats:
            tags = []
            if s.user_id == info.host_id:
                tags.append("host")
            if s.is_ai:
                tags.append(f"AI, {s.ai_level}")
            if s.index in info.to_act:
                tags.append("to play")
            seat_lines.append(
                f"  {s.index + 1}. {s.name}" + (f" ({', '.join(tags)})" if tags else "")
            )
        if info.status is TableStatus.LOBBY:
            lines.append(
                f"Seats: {len(info.seats)} of {info.min_players}-{info.max_players}; "
                f"host {host_name}."
            )
            lines += seat_lines
            if len(info.seats) < info.min_players:
                lines.append(
                    f"Waiting for {info.min_players - len(info.seats)} more player(s): "
                    "join with /table join (the host can add an AI with /table addbot)."
                )
            else:
                lines.append("Ready: the host can start with /table start.")
        elif info.status is TableStatus.PLAYING:
            lines.append(f"Move {info.version}; host {host_name}.")
            lines += seat_lines
            names = [t.name(s) for s in info.to_act]
            if names:
                lines.append(f"Waiting for {_join_names(names)}.")
        elif info.status is TableStatus.FINISHED:
            lines += seat_lines
            if info.outcome_text:
                lines.append(info.outcome_text)
        else:
            lines.append("This table was closed before the game ended.")
        return "\n".join(lines)

    # -- lobby -----------------------------------------------------------------

    def _check_reminder(self, minutes: float | None) -> float:
        if minutes is None:
            return self.default_reminder_minutes
        try:
            value = float(minutes)
        except (TypeError, ValueError) as exc:
            raise BadOptions("The reminder time must be a number of minutes.") from exc
        if not math.isfinite(value) or not 0 <= value <= _MAX_REMINDER_MINUTES:
            raise BadOptions(
                "The reminder time must be between 0 (never) and "
                f"{int(_MAX_REMINDER_MINUTES)} minutes."
            )
        return value

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
        _check_id(channel_id, "channel")
        _check_id(host_id, "user")
        if guild_id is not None:
            _check_id(guild_id, "server")
        game = self._game(game_id)
        parsed_options = self.check_options(game_id, options)
        minutes = self._check_reminder(reminder_minutes)
        if seed is None:
            seed = secrets.randbits(63)
        elif isinstance(seed, bool) or not isinstance(seed, int):
            raise BadOptions("The seed must be a whole number.")
        seed &= _MASK63
        now = self.clock()
        async with self._create_lock:
            if channel_id in self._by_channel:
                raise AlreadyHasTable()
            table_id = await self._new_table_id()
            rec = TableRecord(
                id=table_id,
                channel_id=channel_id,
                guild_id=guild_id,
                game_id=game.id,
                options=parsed_options,
                seed=seed,
                status=TableStatus.LOBBY.value,
                host_id=host_id,
                seats=[_seat_dict(0, _clean_name(host_name, f"Player {host_id}"), host_id, None)],
                reminder_minutes=minutes,
                created_at=now,
                updated_at=now,
            )
            try:
                await self.store.create_table(rec)
            except ChannelTaken as exc:
                raise AlreadyHasTable() from exc
            t = _Table(rec=rec, game=game)
            self._live[table_id] = t
            self._by_channel[channel_id] = table_id
        return self._info(t)

    async def _new_table_id(self) -> str:
        while True:
            table_id = secrets.token_hex(4)
            if table_id not in self._live and await self.store.get_table(table_id) is None:
                return table_id

    async def _save(self, t: _Table, rec: TableRecord) -> None:
        """Persist ``rec`` (checked against the stored version), then adopt it."""
        rec.updated_at = self.clock()
        try:
            await self.store.save_table(rec, expected_version=t.rec.version)
        except VersionConflict as exc:
            raise StaleVersion() from exc
        t.rec = rec
        if not TableStatus(rec.status).live:
            self._forget(t)

    def _copy_rec(self, t: _Table) -> TableRecord:
        rec = replace(t.rec)
        rec.seats = [dict(s) for s in t.rec.seats]
        rec.options = dict(t.rec.options)
        return rec

    def _require_lobby(self, t: _Table) -> None:
        if t.status is TableStatus.LOBBY:
            return
        if t.status is TableStatus.PLAYING:
            raise NotInLobby(
                "The game at this table has already started. The host can hand a seat "
                "to someone with /table handover."
            )
        raise NotInLobby("This table is closed.")

    def _require_host(self, t: _Table, user_id: int, can_manage: bool = False,
                      what: str = "do that") -> None:
        if user_id == t.rec.host_id or can_manage:
            return
        host = t.seat_of(t.rec.host_id)
        who = f"the host ({host.name})" if host else "the host"
        extra = " or a member with Manage Channels" if what in ("abort", "replace") else ""
        verb = {"abort": "close this table", "replace": "hand a seat to someone else"}.get(
            what, what
        )
        raise NotHost(f"Only {who}{extra} can {verb}.")

    async def join(self, channel_id: int, user_id: int, name: str) -> TableInfo:
        """Take a seat in the lobby. Raises NoTable, NotInLobby, AlreadySeated, TableFull."""
        _check_id(user_id, "user")
        async with self._locked(channel_id) as t:
            self._require_lobby(t)
            if t.seat_of(user_id) is not None:
                raise AlreadySeated("You already have a seat at this table.")
            if len(t.rec.seats) >= t.game.max_players:
                raise TableFull(
                    f"This table is full ({len(t.rec.seats)} of {t.game.max_players} seats "
                    "taken)."
                )
            rec = self._copy_rec(t)
            rec.seats.append(
                _seat_dict(len(rec.seats), _clean_name(name, f"Player {user_id}"), user_id, None)
            )
            await self._save(t, rec)
            return self._info(t)

    @staticmethod
    def _reindex(seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**s, "index": i} for i, s in enumerate(seats)]

    async def leave(self, channel_id: int, user_id: int) -> TableInfo:
        """Leave the lobby. If the host leaves, the host role passes to the
        longest-seated remaining human; with no human left the lobby is closed
        (the returned info has status ``aborted``). Raises NoTable, NotInLobby, NotSeated."""
        async with self._locked(channel_id) as t:
            self._require_lobby(t)
            if t.seat_of(user_id) is None:
                raise NotSeated("You do not have a seat at this table.")
            rec = self._copy_rec(t)
            rec.seats = self._reindex([s for s in rec.seats if s["user_id"] != user_id])
            if user_id == rec.host_id:
                humans = [s for s in rec.seats if s["user_id"] is not None]
                if humans:
                    rec.host_id = humans[0]["user_id"]
                else:
                    rec.status = TableStatus.ABORTED.value
            await self._save(t, rec)
            return self._info(t)

    def check_options(self, game_id: str, options: dict[str, Any] | None) -> dict[str, Any]:
        """The full options of a new table (defaults filled in) as JSON data, validated
        by the game. Raises UnknownGame, BadOptions (with a plain-English reason)."""
        game = self._game(game_id)
        if options is not None and not isinstance(options, dict):
            raise BadOptions(f"Options for {game.name} must be a set of name=value pairs.")
        try:
            parsed = game.parse_options(options)
        except (GameError, ValidationError, TypeError, ValueError) as exc:
            raise BadOptions(_options_error(game, exc)) from exc
        return parsed.model_dump(mode="json")

    def check_ai_level(self, game_id: str, level: str | None) -> str:
        """The AI level ``level`` names (case-insensitive; None = the strongest).
        Raises UnknownGame, UnknownAILevel."""
        self._game(game_id)
        return self._pick_level(game_id, level)

    def _pick_level(self, game_id: str, level: str | None) -> str:
        levels = self.ai_levels(game_id)
        if not levels:
            raise UnknownAILevel("This game has no AI players.")
        if level is None or str(level).strip() == "":
            return levels[-1]
        wanted = str(level).strip().lower()
        for known in levels:
            if known.lower() == wanted:
                return known
        raise UnknownAILevel(
            f"There is no AI level '{level}' for this game. Levels: {', '.join(levels)}."
        )

    def _ai_name(self, t: _Table, level: str, seats: list[dict[str, Any]]) -> str:
        taken = {s["name"] for s in seats}
        base = f"AI ({level})"
        name, n = base, 2
        while name in taken:
            name, n = f"{base} {n}", n + 1
        return name

    async def add_ai(self, channel_id: int, user_id: int, level: str | None = None) -> TableInfo:
        """Host adds an AI seat (``level`` from :meth:`ai_levels`, default the strongest).
        Raises NotHost, NotInLobby, TableFull, UnknownAILevel."""
        async with self._locked(channel_id) as t:
            self._require_lobby(t)
            self._require_host(t, user_id, what="add an AI player")
            if len(t.rec.seats) >= t.game.max_players:
                raise TableFull(
                    f"This table is full ({len(t.rec.seats)} of {t.game.max_players} seats "
                    "taken)."
                )
            chosen = self._pick_level(t.rec.game_id, level)
            rec = self._copy_rec(t)
            rec.seats.append(
                _seat_dict(len(rec.seats), self._ai_name(t, chosen, rec.seats), None, chosen)
            )
            await self._save(t, rec)
            return self._info(t)

    async def remove_seat(self, channel_id: int, user_id: int, index: int) -> TableInfo:
        """Host removes a lobby seat (an AI, or a member) by its index. The host's own
        seat cannot be removed this way (use leave). Raises NotHost, NotInLobby, BadSeat."""
        async with self._locked(channel_id) as t:
            self._require_lobby(t)
            self._require_host(t, user_id, what="remove a seat")
            if isinstance(index, bool) or not isinstance(index, int) or not (
                0 <= index < len(t.rec.seats)
            ):
                raise BadSeat(
                    f"There is no seat {index!r}; seats are numbered 0 to "
                    f"{len(t.rec.seats) - 1}."
                )
            if t.rec.seats[index]["user_id"] == t.rec.host_id:
                raise BadSeat("The host cannot remove their own seat; use /table leave.")
            rec = self._copy_rec(t)
            del rec.seats[index]
            rec.seats = self._reindex(rec.seats)
            await self._save(t, rec)
            return self._info(t)

    async def start(self, channel_id: int, user_id: int) -> Outbox:
        """Host starts the game: checks min/max players, shuffles the seating with the
        table's seeded RNG, sets the game up, commits, and mentions whoever acts first.
        If an AI acts first it plays in the background (outboxes go to listeners).
        Raises NotHost, NotInLobby, NotEnoughPlayers."""
        async with self._locked(channel_id) as t:
            self._require_lobby(t)
            self._require_host(t, user_id, what="start the game")
            game, n = t.game, len(t.rec.seats)
            if n < game.min_players:
                raise NotEnoughPlayers(
                    f"{game.name} needs at least {game.min_players} players and this table "
                    f"has {n}. Invite someone to /table join, or add an AI with /table addbot."
                )
            if n > game.max_players:  # only reachable if a game's limits changed
                raise TableFull(f"{game.name} takes at most {game.max_players} players.")
            options = game.parse_options(t.rec.options)
            seating = Rng.from_seed(t.rec.seed ^ _SEATING_SALT)
            order = list(t.rec.seats)
            seating.shuffle(order)
            state = game.setup(n, options, t.rec.seed)
            rec = self._copy_rec(t)
            rec.seats = self._reindex([dict(s) for s in order])
            rec.status = TableStatus.PLAYING.value
            rec.version = 0
            rec.state = game.dump_state(state)
            rec.turn_since = self.clock()
            rec.reminded_at = None
            await self._save(t, rec)
            t.state = state  # only once the store has it
            seat_line = "Seating: " + ", ".join(
                f"{s['index'] + 1}. {s['name']}" for s in rec.seats
            ) + "."
            outbox = self._outbox(
                t, "start", [f"{game.name} begins!", seat_line], events=[], before={},
            )
        self._kick_ai(t)
        return outbox

    async def abort(
        self, channel_id: int, user_id: int, *, can_manage_channel: bool = False
    ) -> Outbox:
        """End the live table in a channel without a result. Allowed for the host or a
        member with Manage Channels (the front end passes ``can_manage_channel``).
        Raises NoTable, NotHost."""
        async with self._locked(channel_id) as t:
            if not t.status.live:
                raise NotPlaying("This table is already closed.")
            self._require_host(t, user_id, bool(can_manage_channel), what="abort")
            rec = self._copy_rec(t)
            rec.status = TableStatus.ABORTED.value
            await self._save(t, rec)
            who = t.seat_of(user_id)
            by = who.name if who else "a moderator"
            info = self._info(t)
            public = PublicUpdate(
                table_id=rec.id, channel_id=rec.channel_id, game_id=rec.game_id,
                version=rec.version, kind="abort",
                lines=(f"The {t.game.name} table was closed by {by}.",),
            )
            return Outbox(table=info, public=public)

    async def status(self, channel_or_table: ChannelOrTable) -> TableInfo:
        """The table in a channel (live only) or by id (any status). Raises NoTable."""
        async with self._locked(channel_or_table) as t:
            return self._info(t)

    async def tables_of_user(self, user_id: int) -> list[TableInfo]:
        """Live tables where ``user_id`` holds a seat (for /hand and DMs).

        Read from the store, not from memory: DMs arrive on shard 0, whose process
        may not be the one running the user's table."""
        out: list[TableInfo] = []
        for rec in await self.store.load_all_active():
            if any(s.get("user_id") == user_id for s in rec.seats):
                async with self._locked(rec.id) as t:
                    if t.status.live and t.seat_of(user_id):
                        out.append(self._info(t))
        return out

    # -- play ------------------------------------------------------------------

    def _require_playing(self, t: _Table) -> None:
        status = t.status
        if status is TableStatus.PLAYING and t.state is not None:
            return
        if status is TableStatus.LOBBY:
            raise NotPlaying("The game has not started yet: the host starts it with /table start.")
        if status is TableStatus.FINISHED:
            raise NotPlaying("The game at this table is over.")
        raise NotPlaying("This table was closed; there is no game to play here.")

    def _not_your_turn(self, t: _Table) -> NotYourTurn:
        names = [t.name(s) for s in t.to_act()]
        if not names:
            return NotYourTurn("It is not your turn.")
        return NotYourTurn(f"It is not your turn: the table is waiting for {_join_names(names)}.")

    async def act(
        self,
        channel_or_table: ChannelOrTable,
        user_id: int,
        action: Action | dict[str, Any] | str,
        expected_version: int | None = None,
    ) -> Outbox:
        """Play ``action`` for ``user_id``'s seat, under the table's lock.

        Checks, in order: the table exists (NoTable) and is playing (NotPlaying), the
        user has a seat (NotSeated), ``expected_version`` (when given) matches
        (StaleVersion), the seat is to act (NotYourTurn), the action parses (IllegalAction) and is
        legal (the engine's GameErrors). Then applies it and commits the new state,
        the action and its events with version+1 in one transaction before returning.
        On any error nothing changes. AI seats that must act next play in the
        background; their outboxes go to the listeners.
        """
        async with self._locked(channel_or_table) as t:
            self._require_playing(t)
            seat_info = t.seat_of(user_id)
            if seat_info is None:
                raise NotSeated("You do not have a seat at this table.")
            seat = seat_info.index
            assert t.state is not None
            # A button from an older turn is explained as such, even when the turn has
            # since passed to someone else (the losing half of a double click).
            if expected_version is not None and expected_version != t.rec.version:
                raise StaleVersion()
            if seat not in t.to_act() and not t.game.meta_actions(t.state, seat):
                raise self._not_your_turn(t)
            parsed = t.game.parse_action(action)
            outbox = await self._apply(t, seat, user_id, parsed)
        self._kick_ai(t)
        return outbox

    def _secrets(self, t: _Table) -> dict[Seat, Any]:
        """Per human seat: the parts of its view that differ from the public view
        (cached per version and seat holders)."""
        if not t.game.has_secrets or t.state is None:
            return {}
        key = (t.rec.version, tuple(s["user_id"] for s in t.rec.seats))
        if t.secrets_key != key:
            t.secrets_cache = self._compute_secrets(t, t.state)
            t.secrets_key = key
        return t.secrets_cache

    def _compute_secrets(self, t: _Table, state: GameState) -> dict[Seat, Any]:
        public = t.game.view(state, None).model_dump(mode="json")
        out: dict[Seat, Any] = {}
        for s in t.seats:
            if s.user_id is None:
                continue
            mine = t.game.view(state, s.index).model_dump(mode="json")
            out[s.index] = {k: v for k, v in mine.items() if k != "seat" and public.get(k) != v}
        return out

    async def _apply(self, t: _Table, seat: Seat, user_id: int | None, action: Action) -> Outbox:
        """Apply on a copy, commit, then adopt. Caller holds ``t.lock``."""
        game = t.game
        assert t.state is not None
        before = self._secrets(t)
        state = game.copy_state(t.state)
        try:
            events = game.apply(state, seat, action)
        except core.NotYourTurn as exc:
            raise self._not_your_turn(t) from exc
        old_version = t.rec.version
        rec = self._copy_rec(t)
        rec.version = old_version + 1
        rec.state = game.dump_state(state)
        now = self.clock()
        rec.updated_at = now
        rec.turn_since = now
        rec.reminded_at = None
        if game.outcome(state) is not None:
            rec.status = TableStatus.FINISHED.value
        event_records = [
            EventRecord(
                table_id=rec.id,
                version=rec.version,
                idx=i,
                data=json.dumps({
                    "type": type(e).__name__,
                    "visible_to": list(e.visible_to) if e.visible_to is not None else None,
                    "text": e.text(t.name),
                    "event": e.model_dump(mode="json"),
                }),
            )
            for i, e in enumerate(events)
        ]
        action_record = ActionRecord(
            table_id=rec.id, version=rec.version, seat=seat, user_id=user_id,
            action=game.dump_action(action), created_at=now,
        )
        try:
            await self.store.commit_action(rec, old_version, action_record, event_records)
        except VersionConflict as exc:
            # Someone else (another process) committed first: reload and refuse.
            fresh = await self.store.get_table(rec.id)
            if fresh is not None:
                t.rec = fresh
                t.state = game.load_state(fresh.state) if fresh.state is not None else None
                if not t.status.live:
                    self._forget(t)
            raise StaleVersion() from exc
        t.rec = rec
        t.state = state
        if not t.status.live:
            self._forget(t)
        return self._outbox(t, "move", [], events=events, before=before)

    def _outbox(
        self,
        t: _Table,
        kind: str,
        head: list[str],
        *,
        events: list[Event],
        before: dict[Seat, Any],
    ) -> Outbox:
        info = self._info(t)
        lines = [*head, *(e.text(t.name) for e in events if e.visible_to is None)]
        finished = info.status is TableStatus.FINISHED
        mentions: tuple[int, ...] = ()
        if finished:
            if info.outcome_text:
                lines.append(info.outcome_text)
        elif info.to_act:
            mentions = info.to_act_users
            lines.append(f"It is {_join_names([t.name(s) for s in info.to_act])}'s turn.")
        public = PublicUpdate(
            table_id=info.id, channel_id=info.channel_id, game_id=info.game_id,
            version=info.version, kind=kind, lines=tuple(lines), mentions=mentions,
            render_board=True, to_act=info.to_act, finished=finished,
            outcome_text=info.outcome_text,
        )
        private: list[PrivateUpdate] = []
        after = self._secrets(t)
        for s in info.seats:
            if s.user_id is None:
                continue
            mine = [e.text(t.name) for e in events
                    if e.visible_to is not None and s.index in e.visible_to]
            secret = after.get(s.index) or {}
            # Only a secret worth showing (a non-empty hand, say) triggers an update.
            changed = secret != before.get(s.index) and any(secret.values())
            if changed and not mine:
                mine = ["Your secret information has changed: see /hand."]
            if mine:
                private.append(PrivateUpdate(
                    table_id=info.id, channel_id=info.channel_id, user_id=s.user_id,
                    seat=s.index, version=info.version, lines=tuple(mine),
                ))
        return Outbox(table=info, public=public, private=tuple(private))

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
        async with self._locked(channel_id) as t:
            self._require_playing(t)
            self._require_host(t, user_id, bool(can_manage_channel), what="replace")
            if isinstance(seat, bool) or not isinstance(seat, int) or not (
                0 <= seat < len(t.rec.seats)
            ):
                raise BadSeat(
                    f"There is no seat {seat!r}; seats are numbered 0 to "
                    f"{len(t.rec.seats) - 1}."
                )
            rec = self._copy_rec(t)
            old = dict(rec.seats[seat])
            if new_user_id is None:
                level = self._pick_level(t.rec.game_id, ai_level)
                new = _seat_dict(seat, self._ai_name(t, level, rec.seats), None, level)
            else:
                _check_id(new_user_id, "user")
                holder = t.seat_of(new_user_id)
                if holder is not None:
                    raise AlreadySeated(
                        f"{holder.name} already holds seat {holder.index + 1} at this table."
                    )
                new = _seat_dict(seat, _clean_name(new_name or "", f"Player {new_user_id}"),
                                 new_user_id, None)
            rec.seats[seat] = new
            if seat in t.to_act():
                rec.turn_since = self.clock()
                rec.reminded_at = None
            await self._save(t, rec)
            line = f"Seat {seat + 1} ({old['name']}) is now played by {new['name']}."
            outbox = self._outbox(t, "seat", [line], events=[], before={})
            outbox = replace(outbox, public=replace(outbox.public, render_board=False))  # type: ignore[arg-type]
        self._kick_ai(t)
        return outbox

    # -- AI --------------------------------------------------------------------

    def _kick_ai(self, t: _Table) -> None:
        """Start the AI loop of a table if an AI seat is to act and none is running."""
        if self._closed or t.status is not TableStatus.PLAYING:
            return
        if t.ai_task is not None and not t.ai_task.done():
            return
        if not any(t.seats[s].is_ai for s in t.to_act() if s < len(t.rec.seats)):
            return
        task = asyncio.get_running_loop().create_task(self._ai_loop(t), name=f"ai-{t.rec.id}")
        t.ai_task = task
        self._ai_tasks.add(task)
        task.add_done_callback(self._ai_tasks.discard)

    async def _ai_loop(self, t: _Table) -> None:
        while not self._closed:
            async with t.lock:
                try:
                    await self._refresh(t)
                except NoTable:
                    return
                if t.status is not TableStatus.PLAYING or t.state is None:
                    return
                ai_seats = [s for s in t.to_act() if t.seats[s].is_ai]
                if not ai_seats:
                    return
                seat = ai_seats[0]
                level = t.seats[seat].ai_level or ""
                version = t.rec.version
                snapshot = t.game.copy_state(t.state)
            if self.ai_delay:
                await asyncio.sleep(self.ai_delay)
            rng = Rng.from_seed((t.rec.seed ^ _AI_SALT) + version * 7919 + seat)
            try:
                agent = self.agents.get(t.rec.game_id, level)
                action = await asyncio.to_thread(agent.choose, t.game, snapshot, seat, rng)
            except Exception:
                log.exception("AI %s failed at table %s; playing a random legal move",
                              level, t.rec.id)
                action = None
            async with t.lock:
                try:
                    await self._refresh(t)
                except NoTable:
                    return
                # The table may have moved on while the agent thought (seat replaced, abort).
                if (t.rec.version != version or t.status is not TableStatus.PLAYING
                        or t.state is None or not t.seats[seat].is_ai
                        or seat not in t.to_act()):
                    continue
                legal = t.game.legal_actions(t.state, seat)
                if action is None or action not in legal:
                    if action is not None:
                        log.error("AI %s chose an illegal move at table %s", level, t.rec.id)
                    if not legal:
                        log.error("AI seat %d has no legal move at table %s", seat, t.rec.id)
                        return
                    action = rng.choice(legal)
                try:
                    outbox = await self._apply(t, seat, None, action)
                except (GameError, TableError):
                    log.exception("AI move refused at table %s", t.rec.id)
                    return
            await self._emit(outbox)

    # -- views -----------------------------------------------------------------

    async def _playing_or_finished(self, ref: ChannelOrTable) -> _Table:
        async with self._locked(ref) as t:
            pass
        if t.state is None:
            if t.status is TableStatus.LOBBY:
                raise NotPlaying("The game has not started yet.")
            raise NotPlaying("This table was closed before its game started.")
        return t

    async def public_view(self, channel_or_table: ChannelOrTable) -> View:
        """What everyone may see (render the channel board from this)."""
        t = await self._playing_or_finished(channel_or_table)
        assert t.state is not None
        return t.game.view(t.state, None)

    async def private_view(self, channel_or_table: ChannelOrTable, user_id: int) -> View:
        """What ``user_id``'s seat may see. Raises NotSeated."""
        t = await self._playing_or_finished(channel_or_table)
        seat = t.seat_of(user_id)
        if seat is None:
            raise NotSeated("You do not have a seat at this table.")
        assert t.state is not None
        return t.game.view(t.state, seat.index)

    async def legal_actions(
        self, channel_or_table: ChannelOrTable, user_id: int
    ) -> list[Action]:
        """The user's legal actions now (empty if it is not their turn); for buttons."""
        async with self._locked(channel_or_table) as t:
            pass
        seat = t.seat_of(user_id)
        if seat is None or t.status is not TableStatus.PLAYING or t.state is None:
            return []
        return list(t.game.legal_actions(t.state, seat.index))

    def describe_action(self, game_id: str, action: Action, view: View | None = None) -> str:
        """A short label for an action (button text, console menu). Pass the actor's
        view for a named label ("Take Jack (slot 3, free) -> column 2")."""
        game = self._game(game_id)
        describe = getattr(game, "describe_action", None)
        if callable(describe):
            return str(describe(action))
        if type(action).__str__ is not BaseModel.__str__:
            return str(action)
        return action_label(game.id, action, view)

    async def history(self, channel_or_table: ChannelOrTable, user_id: int | None = None
                      ) -> list[str]:
        """The table's event log as text lines, filtered to what ``user_id`` may see
        (public lines only when ``None``)."""
        t = await self._resolve(channel_or_table)
        seat = t.seat_of(user_id) if user_id is not None else None
        lines = []
        for record in await self.store.events(t.rec.id):
            data = json.loads(record.data)
            visible = data.get("visible_to")
            if visible is None or (seat is not None and seat.index in visible):
                lines.append(str(data.get("text", "")))
        return lines

    # -- reminders -------------------------------------------------------------

    async def due_reminders(self, now: datetime | None = None) -> list[Outbox]:
        """Reminders due at ``now`` (default: the clock): one per table whose current
        turn has waited at least its reminder time since the turn began or since the
        last reminder. Each is recorded so it is not sent twice."""
        now = now or self.clock()
        out = []
        for t in list(self._live.values()):
            rec = t.rec
            if t.status is not TableStatus.PLAYING or rec.reminder_minutes <= 0:
                continue
            since = rec.reminded_at or rec.turn_since
            if since is None or now - since < timedelta(minutes=rec.reminder_minutes):
                continue
            async with t.lock:
                try:
                    await self._refresh(t)
                except NoTable:
                    continue
                if t.status is not TableStatus.PLAYING or t.rec is not rec:
                    continue  # it moved while we waited for the lock (here or elsewhere)
                info = self._info(t)
                users = info.to_act_users
                if not users:
                    continue
                new = self._copy_rec(t)
                new.reminded_at = now
                try:
                    await self._save(t, new)
                except StaleVersion:
                    continue
                names = _join_names([t.name(s) for s in info.to_act if not t.seats[s].is_ai])
                waited = int((now - (rec.turn_since or now)).total_seconds() // 60)
                public = PublicUpdate(
                    table_id=info.id, channel_id=info.channel_id, game_id=info.game_id,
                    version=info.version, kind="reminder",
                    lines=(f"Reminder: {names}, it is your turn at {t.game.name} "
                           f"(waiting {waited} min).",),
                    mentions=users, to_act=info.to_act,
                )
                out.append(Outbox(table=self._info(t), public=public))
        return out

    async def due_auto_passes(
        self,
        timeout_of: Callable[[TableInfo], float | None],
        now: datetime | None = None,
    ) -> list[Outbox]:
        """Nobody waits forever: at each playing table whose current decision has waited
        ``timeout_of(table)`` seconds (``None``/0: never), every human seat the game marks
        as deciding something optional (its view's ``optional`` seats) and that may pass
        passes, one committed move each. AI seats decide on their own."""
        now = now or self.clock()
        out: list[Outbox] = []
        for t in list(self._live.values()):
            if t.status is not TableStatus.PLAYING or t.state is None:
                continue
            seconds = timeout_of(self._info(t))
            since = t.rec.turn_since
            if not seconds or since is None or now - since < timedelta(seconds=seconds):
                continue
            async with t.lock:
                try:
                    await self._refresh(t)
                except NoTable:
                    continue
                if t.status is not TableStatus.PLAYING or t.state is None:
                    continue
                optional = getattr(t.game.view(t.state, None), "optional", None) or []
                for seat in optional:
                    if t.state is None or t.status is not TableStatus.PLAYING:
                        break
                    if seat >= len(t.rec.seats) or t.seats[seat].is_ai or seat not in t.to_act():
                        continue
                    passes = [a for a in t.game.legal_actions(t.state, seat)
                              if getattr(a, "kind", None) == "pass"]
                    if not passes:
                        continue
                    try:
                        outbox = await self._apply(t, seat, None, passes[0])
                    except (GameError, TableError):
                        log.exception("auto-pass refused at table %s", t.rec.id)
                        break
                    name = t.name(seat)
                    public = outbox.public
                    if public is not None:
                        line = f"{name} did not decide in time and passes."
                        lines = (line, *public.lines)
                        outbox = replace(outbox, public=replace(public, lines=lines))
                    out.append(outbox)
            self._kick_ai(t)
        return out

    async def run_auto_passes(
        self, timeout_of: Callable[[TableInfo], float | None], poll_seconds: float = 5.0
    ) -> None:
        """Background loop: every ``poll_seconds`` send :meth:`due_auto_passes` to the
        listeners. Start it with ``asyncio.create_task``; cancel it to stop."""
        while not self._closed:
            try:
                for outbox in await self.due_auto_passes(timeout_of):
                    await self._emit(outbox)
            except Exception:
                log.exception("auto-pass check failed")
            await asyncio.sleep(poll_seconds)

    async def run_reminders(self, poll_seconds: float = 30.0) -> None:
        """Background loop: every ``poll_seconds`` send :meth:`due_reminders` to the
        listeners. Start it with ``asyncio.create_task``; :meth:`close` stops it."""
        self._reminder_task = asyncio.current_task()
        while not self._closed:
            try:
                for outbox in await self.due_reminders():
                    await self._emit(outbox)
            except Exception:
                log.exception("reminder pass failed")
            await asyncio.sleep(poll_seconds)
