"""The live tables: the in-process cache, each table's lock, and the store writes.

Every operation of the service goes through :meth:`ServiceBase._locked`: it finds the
table (in the cache, else in the store: another process may have made it), takes the
table's lock and reads the table's row once, so a process never acts on a state
another process has moved on from. Writes are conditional on the version that was
read (:meth:`ServiceBase._save`); the store refuses a second commit of one version.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from bot.core.loop_turns import LoopTurns
from bot.core.store import Store, StoreUnwritable, TableRecord, VersionConflict
from bot.core.tables.agents import AgentProvider, EngineAgents
from bot.core.tables.errors import (
    ConcurrentChange,
    NoTable,
    StaleVersion,
    StorageUnavailable,
    TableChanged,
    TableError,
    UnknownGame,
)
from bot.core.tables.models import (
    ChannelOrTable,
    Clock,
    Listener,
    Outbox,
    SeatInfo,
    TableInfo,
    TableStatus,
    Watcher,
)
from bot.core.tables.presence import Presence
from bot.core.tables.stored import stored_state
from bot.core.tables.texts import outcome_text, status_text
from engines import game_ids, get_game
from engines.core import Game, GameState, Seat, View

__all__ = ["IDLE_SECONDS", "ServiceBase", "Table", "ai_to_act"]

log = logging.getLogger("fabletop.tables")

IDLE_SECONDS = 600.0
"""A live table unused for this long sheds its state from memory (reloaded on use)."""


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(eq=False)
class Table:
    """A loaded table: its stored record, the game object and (when playing) the state.

    ``rec`` and ``state`` are replaced only after a successful store write, so a failed
    operation leaves both untouched."""

    rec: TableRecord
    game: Game
    state: GameState | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    ai_task: asyncio.Task[None] | None = None
    views_key: tuple[Any, ...] | None = None
    views: dict[Seat | None, View] = field(default_factory=dict)
    """The public view (key ``None``) and each human seat's view at ``views_key``
    (version, seat holders): the "after" of one move is the "before" of the next, so
    views are built once per move."""
    touched: float = field(default_factory=time.monotonic)
    """When an operation last took the table's lock (idle tables shed their state)."""
    journal_stored: bool = True
    """The store holds the journal of ``state`` as it is, so a commit stores only what
    a move changed in it (false for a row written before journals were kept: its next
    commit stores the whole journal)."""

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


def ai_to_act(game: Game, rec: TableRecord, state: GameState | None) -> bool:
    """Whether an AI seat is to act in ``state`` at the table ``rec`` describes: stored
    with the row (``TableRecord.ai_to_act``), so any process finds the AI turns nobody
    plays without reading states."""
    if rec.status != TableStatus.PLAYING.value or state is None:
        return False
    ai_seats = {s["index"] for s in rec.seats if s["user_id"] is None}
    return any(seat in ai_seats for seat in game.to_act(state))


def seat_dict(index: int, name: str, user_id: int | None, ai_level: str | None) -> dict[str, Any]:
    return {"index": index, "name": name, "user_id": user_id, "ai_level": ai_level}


def clean_name(name: str, fallback: str) -> str:
    name = " ".join(str(name or "").split())[:64]
    return name or fallback


def options_error(game: Game, exc: Exception) -> str:
    """A plain-English message from a pydantic ValidationError (or anything else)."""
    cause = exc.__cause__ if exc.__cause__ is not None else exc
    if isinstance(cause, ValidationError):
        parts = []
        for err in cause.errors():
            where = ".".join(str(p) for p in err.get("loc", ())) or "options"
            if err.get("type") == "extra_forbidden":
                known = ", ".join(game.Options.model_fields) or "none"
                parts.append(f"unknown option '{where[:40]}' (options: {known})")
            else:
                parts.append(f"option '{where[:40]}': {str(err.get('msg', 'invalid'))[:200]}")
        return f"Invalid options for {game.name}: " + "; ".join(parts[:5]) + "."
    return str(exc)[:500] or f"Invalid options for {game.name}."


def check_id(value: Any, what: str) -> None:
    """Discord ids are positive integers; anything else is a front-end bug, refused."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise TableError(f"That is not a valid {what} id.")


class ServiceBase:
    """State and plumbing shared by the service's parts (lobby, play, AI, timers)."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock | None = None,
        reminder_minutes: float = 10.0,
        ai_delay: float = 0.0,
        agents: AgentProvider | None = None,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        """``store`` is a :class:`bot.core.store.Store`; ``clock`` returns an aware UTC
        datetime (injectable for tests); ``reminder_minutes`` is the default reminder
        delay for new tables (0 = never); ``ai_delay`` seconds are waited before each
        AI move so humans can follow (0 in tests); ``agents`` supplies AI players
        (default :mod:`engines.agents`); a live table unused for ``idle_seconds``
        sheds its state from memory (:meth:`shed_idle`)."""
        self.store = store
        self.clock: Clock = clock or utcnow
        self.default_reminder_minutes = float(reminder_minutes)
        self.ai_delay = float(ai_delay)
        self.agents: AgentProvider = agents or EngineAgents()
        self.idle_seconds = float(idle_seconds)
        self._live: dict[str, Table] = {}
        self._by_channel: dict[int, str] = {}
        self._listeners: list[Listener] = []
        self._watchers: list[Watcher] = []
        self._create_lock = asyncio.Lock()
        self._ai_tasks: set[asyncio.Task[None]] = set()
        self._timer_tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self._unreadable: set[str] = set()
        """Tables the AI takeover could not load (logged once each, not every pass)."""
        self.turns = LoopTurns()
        """Each operation's work on its table waits for its turn on the event loop, so
        a burst of clicks never holds up the acknowledgements (bot/core/loop_turns.py)."""
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        """This service's name in the store's leases (unique per process and start)."""
        self.presence = Presence(store, self.owner, self.clock)
        """Who has which channel's board open in the Activity, in every process."""

    # -- listeners -------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Register a callback for outboxes produced outside a request (AI moves,
        reminders, timeouts). Returns an unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        """Register a callback for EVERY commit of every table: a move by anyone (the
        outbox a call returns to its caller too, which :meth:`subscribe` never sees), an
        AI's or a timer's move, a lobby change (an outbox with the table and no news), a
        new table. It is called under the table's lock, so each table's commits arrive
        in the order they were committed, and it must not wait for anything: a
        front-end that shows every commit live (the web front-end) queues its work.
        Returns an unwatch function."""
        self._watchers.append(watcher)

        def unwatch() -> None:
            if watcher in self._watchers:
                self._watchers.remove(watcher)

        return unwatch

    def _tell_watchers(self, outbox: Outbox) -> None:
        for watcher in list(self._watchers):
            try:
                watcher(outbox)
            except Exception:
                # A watcher's fault must not undo or hold up a committed change.
                log.exception("watcher failed for table %s", outbox.table_id)

    async def _emit(self, outbox: Outbox) -> None:
        for result in self._notify(outbox):
            await self._finish(outbox, result)

    def publish(self, outbox: Outbox) -> None:
        """Tell the listeners of a commit a front-end made without a delivery of its own
        (a move on the Activity's board): the Discord front-end then tells the channel,
        as it tells an AI's move. Call it as soon as the call that committed returns."""
        self._emit_soon(outbox)

    def _emit_soon(self, outbox: Outbox) -> asyncio.Task[None]:
        """Hand ``outbox`` to the listeners now and finish their work in a task: each
        listener's synchronous part runs before this returns (the delivery holds the
        outbox's place in its table's order there), the rest later. Counted with the AI
        tasks: close() stops it (an undelivered outbox goes out at the next start) and
        wait_idle() waits for it."""
        pending = self._notify(outbox)

        async def finish() -> None:
            for result in pending:
                await self._finish(outbox, result)

        task = asyncio.get_running_loop().create_task(
            finish(), name=f"emit-{outbox.table_id}-{outbox.version}")
        self._ai_tasks.add(task)
        task.add_done_callback(self._ai_tasks.discard)
        return task

    def _notify(self, outbox: Outbox) -> list[Awaitable[None]]:
        """Call every listener; returns what is left to await."""
        out: list[Awaitable[None]] = []
        for listener in list(self._listeners):
            try:
                result = listener(outbox)
            except Exception:
                log.exception("listener failed for table %s", outbox.table_id)
                continue
            if inspect.isawaitable(result):
                out.append(result)
        return out

    @staticmethod
    async def _finish(outbox: Outbox, result: Awaitable[None]) -> None:
        try:
            await result
        except Exception:
            # A broken front end must not stop the table: the move is committed,
            # and its durable outbox is delivered at the next start.
            log.exception("listener failed for table %s", outbox.table_id)

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

    def _game(self, game_id: str) -> Game:
        try:
            return get_game(game_id)
        except Exception as exc:
            known = ", ".join(name for _gid, name in self.games())
            shown = str(game_id)[:40]
            raise UnknownGame(f"There is no game called '{shown}'. Games: {known}.") from exc

    # -- the cache and the locks ------------------------------------------------

    async def _resolve(self, ref: ChannelOrTable) -> tuple[Table, bool]:
        """The live table in a channel (``int``) or a table by id (``str``, any status),
        and whether it was just read from the store. Tables this process has not seen
        (made by another process sharing the store) are read from the store."""
        if isinstance(ref, bool) or not isinstance(ref, (int, str)):
            raise NoTable("That is not a channel or a table id.")
        if isinstance(ref, int):
            table_id = self._by_channel.get(ref)
            if table_id is not None:
                return self._live[table_id], False
            rec = await self.store.live_table_in_channel(ref)
            if rec is None:
                raise NoTable()
            return await self._adopt(rec), True
        if ref in self._live:
            return self._live[ref], False
        rec = await self.store.get_table(ref)
        if rec is None:
            raise NoTable(f"There is no table with id '{ref[:40]}'.")
        return await self._adopt(rec), True

    async def _adopt(self, rec: TableRecord) -> Table:
        """A table read from the store; a live one joins the live maps."""
        if rec.id in self._live:
            return self._live[rec.id]
        game = self._game(rec.game_id)
        state, stored = await stored_state(self.store, game, rec)
        if rec.id in self._live:  # adopted by another task while the journal was read
            return self._live[rec.id]
        t = Table(rec=rec, game=game, state=state, journal_stored=stored)
        if t.status.live:
            old = self._by_channel.get(rec.channel_id)
            if old is not None and old != rec.id:
                self._live.pop(old, None)  # that one ended elsewhere
            self._live[rec.id] = t
            self._by_channel[rec.channel_id] = rec.id
        return t

    async def _refresh(self, t: Table) -> None:
        """Catch up with writes made by other processes sharing the store (no table
        state may live only in one process's memory)."""
        fresh = await self.store.get_table(t.rec.id)
        if fresh is None:
            self._forget(t)
            raise NoTable(f"There is no table with id '{t.rec.id}'.")
        await self._absorb(t, fresh)

    async def _still_playing(self, t: Table) -> bool:
        """Caller holds the lock: catch up with the store, and say whether the table is
        still being played (background work stops quietly when it is not)."""
        try:
            await self._refresh(t)
        except NoTable:
            return False
        return t.status is TableStatus.PLAYING and t.state is not None

    async def _absorb(self, t: Table, fresh: TableRecord) -> None:
        """Take a row just read from the store as the table's truth (the caller holds
        the lock)."""
        if fresh == t.rec:  # the usual case: nobody else wrote (a plain field compare)
            return
        if fresh.state != t.rec.state or t.state is None:
            t.state, t.journal_stored = await stored_state(self.store, t.game, fresh)
        t.rec = fresh
        t.views_key = None
        if not t.status.live:
            self._forget(t)

    @contextlib.asynccontextmanager
    async def _locked(self, ref: ChannelOrTable) -> AsyncIterator[Table]:
        """Resolve ``ref``, take the table's lock and bring it up to date: one read of
        the table's row per operation."""
        for attempt in range(2):
            t, just_read = await self._resolve(ref)
            async with t.lock:
                t.touched = time.monotonic()
                if not just_read:
                    await self._refresh(t)
                # A channel whose table ended in another process may hold a newer one.
                if isinstance(ref, int) and not t.status.live and attempt == 0:
                    continue
                await self.turns.take()
                try:
                    yield t
                except StoreUnwritable as exc:
                    # Every write of an operation is its last step, and the table in
                    # memory changes only after it succeeds: nothing was done.
                    raise StorageUnavailable() from exc
                return
        raise NoTable()

    def shed_idle(self, idle_seconds: float | None = None) -> int:
        """Free the game state, views and stored JSON of every live table nobody has
        used for ``idle_seconds`` (default: the service's; not locked, no AI playing);
        returns how many. The
        table stays known (its channel, seats, timers' fields), and its next operation,
        which reads the row anyway, loads the state again (:meth:`_absorb`). Most
        tables of a big bot wait for somebody most of the time: this keeps memory per
        waiting table to its small record."""
        if idle_seconds is None:
            idle_seconds = self.idle_seconds
        now, shed = time.monotonic(), 0
        for t in self._live.values():
            if now - t.touched >= idle_seconds and self._shed(t):
                shed += 1
        if shed:
            log.info("shed %d idle tables (their state is read again at their next use)", shed)
        return shed

    def shed_table(self, table_id: str) -> bool:
        """Shed one table's state now if nobody is using it (see :meth:`shed_idle`): the
        catch-up after a start sheds each table as soon as it has looked at it, so the
        process never holds every table's state and views at once (what it held once,
        the allocator keeps)."""
        t = self._live.get(table_id)
        return t is not None and self._shed(t)

    def _shed(self, t: Table) -> bool:
        if t.rec.state is None or t.lock.locked():
            return False
        if t.ai_task is not None and not t.ai_task.done():
            return False
        if any(t.seats[s].is_ai for s in t.to_act() if s < len(t.rec.seats)):
            return False  # an AI is to act (its lease held elsewhere, maybe by a dead
            # process): the timer pass must still see it to pick the turn up
        t.state, t.views, t.views_key = None, {}, None
        t.rec = replace(t.rec, state=None)
        return True

    def _forget(self, t: Table) -> None:
        """Drop a table that is no longer live from the live maps (frees its channel)."""
        self._live.pop(t.rec.id, None)
        if self._by_channel.get(t.rec.channel_id) == t.rec.id:
            del self._by_channel[t.rec.channel_id]

    # -- writes ------------------------------------------------------------------

    def _copy_rec(self, t: Table) -> TableRecord:
        """A copy of the table's row to change and save: its revision is the next one,
        so the save succeeds only if nobody wrote the row since it was read."""
        rec = replace(t.rec, revision=t.rec.revision + 1)
        rec.seats = [dict(s) for s in t.rec.seats]
        rec.options = dict(t.rec.options)
        rec.settings = dict(t.rec.settings)
        return rec

    async def _lost_race(self, t: Table) -> TableError:
        """Another writer (another process) changed the table between our read and our
        write: catch up, and say what happened instead of what we meant to do."""
        read = t.rec
        fresh = await self.store.get_table(read.id)
        if fresh is None:
            self._forget(t)
            return NoTable("This table was removed at the same moment; nothing was done.")
        await self._absorb(t, fresh)
        if fresh.status == TableStatus.ABORTED.value:
            return TableChanged("The table was aborted at the same moment, so nothing was "
                                "done.")
        if fresh.status == TableStatus.FINISHED.value:
            return TableChanged("The game ended at the same moment, so nothing was done.")
        if fresh.version != read.version:
            return StaleVersion()
        if fresh.status != read.status:
            return TableChanged("The game started at the same moment, so nothing was done. "
                                "Use the table's latest message.")
        return ConcurrentChange()

    async def _save(self, t: Table, rec: TableRecord, outbox: Outbox | None = None) -> int | None:
        """Persist ``rec`` (checked against the stored revision), with ``outbox`` made
        durable in the same transaction; then adopt it. Returns the outbox id."""
        rec.updated_at = self.clock()
        rec.ai_to_act = ai_to_act(t.game, rec, t.state)  # the same state, maybe new seats
        try:
            outbox_id = await self.store.save_table(
                rec, expected_version=t.rec.version,
                outbox=outbox.to_json() if outbox is not None else None)
        except VersionConflict as exc:
            raise await self._lost_race(t) from exc
        except StoreUnwritable as exc:
            raise StorageUnavailable() from exc
        t.rec = rec
        if not TableStatus(rec.status).live:
            self._forget(t)
        if self._watchers:
            told = (replace(outbox, id=outbox_id) if outbox is not None
                    else Outbox(table=self._info(t)))
            self._tell_watchers(told)
        return outbox_id

    # -- snapshots ---------------------------------------------------------------

    def _info(self, t: Table) -> TableInfo:
        rec, game = t.rec, t.game
        status = t.status
        finished = status is TableStatus.FINISHED
        outcome = game.outcome(t.state) if t.state is not None and finished else None
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
            seats=tuple(t.seats),
            version=rec.version,
            min_players=game.min_players,
            max_players=game.max_players,
            reminder_minutes=rec.reminder_minutes,
            to_act=tuple(t.to_act()),
            outcome=outcome,
            outcome_text=outcome_text(outcome, t.name),
            created_at=rec.created_at,
            updated_at=rec.updated_at,
            settings=dict(rec.settings),
        )
        return replace(info, text=status_text(info))
