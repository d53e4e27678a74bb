"""TableService: the discord-free application core, assembled from its parts.

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

Nothing but views and plain text leaves the service: raw game states go only to the
store and to AI agents (which run in a worker thread on a private copy).

The parts, one module each: :mod:`~bot.core.tables.lobby` (seats, start, abort, status),
:mod:`~bot.core.tables.play` (moves and their outboxes), :mod:`~bot.core.tables.ai` (the AI
runner), :mod:`~bot.core.tables.timers` (reminders, interrupt timeouts), on the shared
:mod:`~bot.core.tables.live` (cache, locks, store writes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from bot.core.tables.agents import EngineAgents
from bot.core.tables.ai import AIPart
from bot.core.tables.history import backfill_results
from bot.core.tables.live import Table
from bot.core.tables.lobby import LobbyPart
from bot.core.tables.stored import stored_state
from bot.core.tables.timers import TimersPart
from engines import get_game

__all__ = ["TableService"]

log = logging.getLogger("fabletop.tables")


class TableService(LobbyPart, AIPart, TimersPart):
    """Lobby, turns, persistence and who-sees-what for every table.

    All public coroutines raise :class:`~bot.core.tables.errors.TableError` subclasses (or
    the engine's GameErrors), both :class:`engines.core.UserError` s with
    plain-English messages, and never change anything when they do.
    """

    _opened = False

    def __repr__(self) -> str:
        return f"<TableService {self.store!r} live={len(self._live)}>"

    @classmethod
    async def open_sqlite(cls, path: str | Path, **kwargs: Any) -> TableService:
        """A service on a SQLite file (created if missing), opened and resumed."""
        from bot.core.store.sqlite import SqliteStore

        service = cls(SqliteStore(path), **kwargs)
        await service.open()
        return service

    @classmethod
    async def from_settings(cls, settings: Any, **kwargs: Any) -> TableService:
        """A service opened on ``settings.database`` (PostgreSQL or SQLite) with the
        reminder time, AI delay and AI budget of :class:`bot.core.settings.Settings`
        (``kwargs`` override)."""
        kwargs.setdefault("reminder_minutes", settings.reminder_minutes)
        kwargs.setdefault("ai_delay", settings.ai_delay)
        kwargs.setdefault("agents", EngineAgents(iterations=settings.ai_budget))
        kwargs.setdefault("idle_seconds", settings.idle_seconds)
        from bot.core.store.factory import store_for

        service = cls(store_for(settings.database), **kwargs)
        await service.open()
        return service

    async def open(self) -> None:
        """Open the store (running its migrations), load every live table and resume
        pending AI turns."""
        if self._opened:
            return
        await self.store.open()
        for rec in await self.store.load_all_active():
            try:
                game = get_game(rec.game_id)
                state, stored = await stored_state(self.store, game, rec)
            except Exception:
                # One unreadable table (its game removed, corrupt JSON) must not stop
                # every other table from resuming; it stays in the store untouched.
                log.exception("cannot resume table %s (%s)", rec.id, rec.game_id)
                continue
            t = Table(rec=rec, game=game, state=state, journal_stored=stored)
            self._live[rec.id] = t
            self._by_channel[rec.channel_id] = rec.id
            # Only a table whose AI is to act keeps its state (to resume the AI below);
            # the others read it again at their first use.
            self._shed(t)
        self._opened = True
        for t in list(self._live.values()):
            self._kick_ai(t)
        await backfill_results(self.store)

    async def close(self) -> None:
        """Stop background work (AI tasks, timer loops) and close the store."""
        self._closed = True
        tasks = [*self._ai_tasks, *self._timer_tasks]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        await self.presence.close()
        await self.store.close()

    async def wait_idle(self) -> None:
        """Wait until no AI turn is pending (tests and the console use this)."""
        while True:
            pending = [t for t in self._ai_tasks if not t.done()]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)
