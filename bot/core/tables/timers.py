"""Timers: turn reminders and the interrupt timeout.

Both scan the live tables, re-check under the table's lock, and write through the
store like any client (an auto-pass is a move made with :meth:`PlayPart.play`; a
reminder is a table write conditional on the version read, with a durable outbox).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import datetime, timedelta

from bot.core.store import StoreUnwritable
from bot.core.tables.errors import StaleVersion, StorageUnavailable, TableError
from bot.core.tables.models import Outbox, PublicUpdate, TableInfo, TableStatus
from bot.core.tables.play import PlayPart
from bot.core.tables.texts import join_names
from engines.core import GameError

__all__ = ["TimersPart", "interrupt_timeout"]

log = logging.getLogger("fabletop.tables")


def interrupt_timeout(info: TableInfo) -> float | None:
    """The table's interrupt timeout in seconds (``None``: it waits for ever)."""
    return _seconds(info.settings)


def _seconds(settings: dict[str, object]) -> float | None:
    seconds = settings.get("interrupt_timeout")
    return float(seconds) if isinstance(seconds, int | float) and seconds > 0 else None


class TimersPart(PlayPart):
    """Reminders and timeouts of :class:`bot.core.tables.TableService`."""

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
                if not await self._still_playing(t) or t.rec.revision != rec.revision:
                    continue  # it moved while we waited for the lock (here or elsewhere)
                info = self._info(t)
                users = info.to_act_users
                if not users:
                    continue
                new = self._copy_rec(t)
                new.reminded_at = now
                names = join_names([t.name(s) for s in info.to_act if not t.seats[s].is_ai])
                waited = int((now - (rec.turn_since or now)).total_seconds() // 60)
                public = PublicUpdate(
                    table_id=info.id, channel_id=info.channel_id, game_id=info.game_id,
                    version=info.version, kind="reminder",
                    lines=(f"Reminder: {names}, it is your turn at {t.game.name} "
                           f"(waiting {waited} min).",),
                    mentions=users, to_act=info.to_act,
                )
                # With the table's views, so the reminder carries fresh buttons.
                now_table = self._snapshot(t)
                outbox = replace(now_table, public=public)
                try:
                    outbox_id = await self._save(t, new, outbox)
                except StaleVersion:
                    continue
                out.append(replace(outbox, id=outbox_id))
        return out

    async def due_auto_passes(self, now: datetime | None = None) -> list[Outbox]:
        """Nobody waits forever: at each playing table whose current decision has waited
        its interrupt timeout (a table setting; none: never), every human seat the game
        marks as deciding something optional (its view's ``optional`` seats) and that
        may pass passes, one committed move each. AI seats decide on their own."""
        now = now or self.clock()
        out: list[Outbox] = []
        # AI turns nobody plays, at tables in memory here or not (a dead process's).
        try:
            await self.take_over_ai()
        except Exception:  # the store failing: the timeouts below are tried all the same
            log.exception("looking for AI turns nobody plays failed")
        for t in list(self._live.values()):
            if t.status is not TableStatus.PLAYING:
                continue  # (a playing table that shed its state idle reloads it below)
            # An AI turn nobody here is playing: its lease holder (maybe another
            # process, maybe a dead one) may have let it go.
            self._kick_ai(t)
            seconds = _seconds(t.rec.settings)  # read every few seconds: no TableInfo built
            since = t.rec.turn_since
            if not seconds or since is None or now - since < timedelta(seconds=seconds):
                continue
            async with t.lock:
                if not await self._still_playing(t):
                    continue
                assert t.state is not None
                optional = getattr(self._views(t)[None], "optional", None) or []
                version = t.rec.version
                due = []
                for seat in optional:
                    if seat >= len(t.rec.seats) or t.seats[seat].is_ai or seat not in t.to_act():
                        continue
                    passes = [a for a in t.game.legal_actions(t.state, seat)
                              if getattr(a, "kind", None) == "pass"]
                    if passes:
                        due.append((seat, passes[0], t.name(seat)))
            # Each pass is a move like any client's, made at the version the timeout was
            # seen at, then at the version the previous pass left.
            for seat, action, name in due:
                try:
                    outbox = await self.play(t.rec.id, seat, action, version,
                                             note=f"{name} did not decide in time and passes.")
                except StorageUnavailable:
                    break  # not saved (the store said why, once): due at the next pass
                except (GameError, TableError):
                    log.info("auto-pass of seat %d no longer due at table %s", seat + 1,
                             t.rec.id)
                    break
                version = outbox.version
                out.append(outbox)
            self._kick_ai(t)
        return out

    async def run_auto_passes(self, poll_seconds: float = 5.0) -> None:
        """Background loop: every ``poll_seconds`` send :meth:`due_auto_passes` to the
        listeners. Start it with ``asyncio.create_task``; :meth:`close` stops it."""
        await self._run(self._auto_passes_and_shedding, poll_seconds, "auto-pass check")

    async def _auto_passes_and_shedding(self) -> list[Outbox]:
        self.shed_idle()
        return await self.due_auto_passes()

    async def run_reminders(self, poll_seconds: float = 30.0) -> None:
        """Background loop: every ``poll_seconds`` send :meth:`due_reminders` to the
        listeners. Start it with ``asyncio.create_task``; :meth:`close` stops it."""
        await self._run(self.due_reminders, poll_seconds, "reminder pass")

    async def _run(self, due, poll_seconds: float, what: str) -> None:  # type: ignore[no-untyped-def]
        task = asyncio.current_task()
        if task is not None:
            self._timer_tasks.add(task)
        while not self._closed:
            try:
                for outbox in await due():
                    await self._emit(outbox)
            except (StorageUnavailable, StoreUnwritable):
                pass  # the store logged it once; the next pass tries again
            except Exception:
                log.exception("%s failed", what)
            await asyncio.sleep(poll_seconds)
