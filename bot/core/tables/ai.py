"""The AI runner: AI seats play through :meth:`PlayPart.play`, like any client.

One background task per table runs while an AI seat is to act. The agent thinks in a
worker thread on a private copy of the state (it must not block the event loop, and it
sees only what its seat may see: search agents determinise first). Its choice is then
played with the version it thought about; if the table moved on meanwhile (a human
step, a handover, an abort) the choice is dropped and the loop looks again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.core.store import StoreUnwritable
from bot.core.tables.errors import NoTable, StaleVersion, StorageUnavailable, TableError
from bot.core.tables.live import Table
from bot.core.tables.models import Outbox, TableStatus
from bot.core.tables.play import PlayPart
from engines.core import Action, GameError, GameState, IllegalAction, Rng

__all__ = ["AIPart"]

log = logging.getLogger("fabletop.tables")

AI_SALT = 0xA1_C0FFEE

BACKLOG = 3
"""Deliveries of one table's AI moves that may be under way while its AI plays on."""

LEASE_SECONDS = 30.0
"""How long a process may play a table's AI seats before it must renew its lease: far
longer than one move's thinking. A process that dies holding it (or between a commit
that leaves an AI to act and its claim) delays the table's AI by at most this plus one
timer pass (:meth:`AIPart.take_over_ai`), whichever process has the table in memory."""

TAKEOVER_BATCH = 100
"""Ownerless AI turns one timer pass takes over at most (the rest at the next pass)."""


class AIPart(PlayPart):
    """AI seats of :class:`bot.core.tables.TableService`."""

    replaced_choices = 0
    """How many AI choices the engine refused and a random legal move replaced (a bug
    in an agent if ever above zero; tests assert it)."""

    def _kick_ai(self, t: Table) -> None:
        """Start the AI loop of a table if an AI seat is to act and none is running."""
        if self._closed or t.status is not TableStatus.PLAYING:
            return
        if not any(t.seats[s].is_ai for s in t.to_act() if s < len(t.rec.seats)):
            return
        self._start_ai(t)

    def _start_ai(self, t: Table) -> bool:
        """Start the table's AI loop unless one runs; the loop reads the row first and
        plays only if an AI is to act and the lease is this process's."""
        if self._closed or (t.ai_task is not None and not t.ai_task.done()):
            return False
        task = asyncio.get_running_loop().create_task(self._ai_loop(t), name=f"ai-{t.rec.id}")
        t.ai_task = task
        self._ai_tasks.add(task)
        task.add_done_callback(self._ai_tasks.discard)
        return True

    async def take_over_ai(self) -> int:
        """Start the AI of every table whose AI turn nobody plays: its lease expired (a
        dead holder), or its last writer never claimed one within ``LEASE_SECONDS`` (it
        died between the commit and the claim). The store lists them, so this holds for
        every table, whether this process ever loaded it or not; shard-independent (any
        process reaches any channel over REST), and the lease decides which process
        plays. Returns how many AI loops it started."""
        started = 0
        for table_id in await self.store.unclaimed_ai_turns(LEASE_SECONDS,
                                                            limit=TAKEOVER_BATCH):
            t = self._live.get(table_id)
            if t is None:
                try:
                    t, _ = await self._resolve(table_id)
                except Exception:
                    if table_id not in self._unreadable:
                        self._unreadable.add(table_id)
                        log.exception("cannot take over the AI of table %s", table_id)
                    continue
            if self._start_ai(t):
                log.info("taking over the AI turn of table %s", table_id)
                started += 1
        return started

    async def _ai_loop(self, t: Table) -> None:
        try:
            await self._ai_turns(t)
        finally:
            # At once, so another process may play the table's next AI turn without
            # waiting for the lease to run out (best effort: at shutdown it simply
            # expires).
            with contextlib.suppress(Exception):
                await self.store.release_lease(t.rec.id, self.owner)

    async def _ai_turns(self, t: Table) -> None:
        backlog: list[asyncio.Task[None]] = []
        while not self._closed:
            async with t.lock:
                if not await self._still_playing(t):
                    return
                assert t.state is not None
                ai_seats = [s for s in t.to_act() if t.seats[s].is_ai]
                if not ai_seats:
                    return
                # One process plays a table's AI seats: the lease holder, renewed
                # before each move (several processes share the store).
                try:
                    claimed = await self.store.claim_lease(t.rec.id, self.owner,
                                                           LEASE_SECONDS)
                except StoreUnwritable:
                    # The store told the operator; the timer pass starts this loop
                    # again, and the AI plays once the database can be written.
                    return
                if not claimed:
                    return
                seat = ai_seats[0]
                level = t.seats[seat].ai_level or ""
                version = t.rec.version
                snapshot = t.game.copy_state(t.state)
            if self.ai_delay:
                await asyncio.sleep(self.ai_delay)
            rng = Rng.from_seed((t.rec.seed ^ AI_SALT) + version * 7919 + seat)
            action: Action | None
            try:
                agent = self.agents.get(t.rec.game_id, level)
                action = await asyncio.to_thread(agent.choose, t.game, snapshot, seat, rng)
            except Exception:
                log.exception("AI %s failed at table %s; playing a random legal move",
                              level, t.rec.id)
                action = None
            try:
                outbox = await self._play_choice(t, seat, level, version, action, snapshot, rng)
            except (StaleVersion, NoTable):
                continue  # the table moved on while the agent thought: look again
            except StorageUnavailable:
                return  # not saved (a full disk): the timer pass starts the AI again
            except (GameError, TableError):
                log.exception("AI move refused at table %s", t.rec.id)
                return
            if outbox is None:
                return
            # The next AI move does not wait for this one's delivery: the delivery holds
            # its place in the table's order at once, and one that a newer move has
            # overtaken posts its lines without drawing a picture nobody would see. The
            # backlog is bounded so a table of AIs cannot run far ahead of Discord.
            backlog = [task for task in backlog if not task.done()]
            if len(backlog) >= BACKLOG:
                await asyncio.wait(backlog[:1])
            backlog.append(self._emit_soon(outbox))

    async def _play_choice(self, t: Table, seat: int, level: str, version: int,
                           action: Action | None, seen: GameState, rng: Rng) -> Outbox | None:
        """Play the agent's choice through :meth:`play`, like any client, at the version
        it thought about; a choice the engine refuses is replaced by a random legal move
        of the same moment (and counted: an agent bug)."""
        if action is not None:
            try:
                # The engine decides what is legal (a narrated choice is legal when the
                # same choice without its text is): never a list comparison.
                return await self.play(t.rec.id, seat, action, version, by_ai=True)
            except IllegalAction:
                self.replaced_choices += 1
                # The kind only: the move itself may name a card of a secret hand.
                log.error("AI %s chose an illegal %s at table %s", level,
                          getattr(action, "kind", "move"), t.rec.id)
        legal = t.game.legal_actions(seen, seat)
        if not legal:
            log.error("AI seat %d has no legal move at table %s", seat + 1, t.rec.id)
            return None
        return await self.play(t.rec.id, seat, rng.choice(legal), version, by_ai=True)
