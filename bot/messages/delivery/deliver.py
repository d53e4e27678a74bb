"""Getting a table's news to the people at it, from the outbox alone.

An :class:`~bot.core.tables.Outbox` is self-contained (the public view, each seat's view
and the legal actions of the seats to act, all read at commit), so delivery never asks
the service again. It posts in version order per table (:mod:`.order`), and once
everything is sent it marks the durable outbox delivered (with the hand and turn
messages it left) in one store write. A bot killed before that delivers the outbox again
at its next start; Discord's ``enforce_nonce`` makes the repeat of a message already sent
return that message instead of posting it twice.

What goes where, one part each: the channel's turn message (:mod:`.turn_message`), each
seat's hand message for a game whose seats see more than the public (:mod:`.hands`),
private updates as DMs or, for closed DMs, a channel nudge (:mod:`.dms`), the lobby
message (:mod:`.lobby_message`), and the pictures all of them carry (:mod:`.pictures`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import discord

from bot.core.loop_turns import LoopTurns
from bot.core.store import Store, StoreUnwritable, TurnMessage
from bot.core.tables import Outbox, PublicUpdate, TableStatus
from bot.messages.delivery.courier import Budget, Courier, Tokens, nonce_for
from bot.messages.delivery.dms import DirectMessages
from bot.messages.delivery.hands import HandMessages
from bot.messages.delivery.lobby_message import LobbyMessages
from bot.messages.delivery.order import TableOrder, without_choices
from bot.messages.delivery.pictures import Pictures, Renderer
from bot.messages.delivery.turn_message import TurnMessages
from bot.messages.render_pool import RenderPool
from bot.messages.threads import archive
from engines.catalog import has_hands

__all__ = ["Delivery", "Finished"]

log = logging.getLogger(__name__)

Finished = Callable[[Outbox], Awaitable[None]]

DEFAULT_REQUESTS_PER_SECOND = 40.0
"""Bot-token requests a second this process may make (Discord allows an application 50,
whatever the number of processes; the rest is headroom for discord.py's own requests)."""


class Delivery:
    """Sends outboxes to Discord. One per bot process."""

    def __init__(
        self,
        client: discord.Client,
        store: Store,
        *,
        renderer: Renderer | None = None,
        pool: RenderPool | None = None,
        turns: LoopTurns | None = None,
        requests_per_second: float = DEFAULT_REQUESTS_PER_SECOND,
    ) -> None:
        self.client = client
        self.store = store
        self.started = datetime.now(UTC)
        """When this process's delivery began: an outbox committed before it can be in
        no delivery of this process, nor, unless it died, of the one that made it."""
        self.turns = turns if turns is not None else LoopTurns()
        """Shared with the table service: a delivery's work (messages built, buttons,
        hands) takes its turn on the event loop like a move's (bot/core/loop_turns.py)."""
        self.pictures = Pictures(renderer, pool, self.turns)
        self.tokens = Tokens()
        self.courier = Courier(client, Budget(requests_per_second), self.tokens)
        self.dms = DirectMessages(client, store, self.courier, self.pictures)
        self.turn_messages = TurnMessages(store, self.courier, self.pictures)
        self.hands = HandMessages(client, store, self.pictures, self.dms, self.courier)
        self.lobbies = LobbyMessages(self.courier)
        self._order: dict[str, TableOrder] = {}
        self.finished: list[Finished] = []
        """Called with the outbox that ends a game, once it is delivered (a game's cog
        posts its storybook, say)."""

    def order_of(self, table_id: str) -> TableOrder:
        return self._order.setdefault(table_id, TableOrder())

    def expect(self, outbox: Outbox) -> None:
        """Hold the outbox's place in its table's order at once (call it right after
        the commit, before any wait): a later version delivered meanwhile (an AI's
        instant answer) then waits behind it."""
        self.order_of(outbox.table_id).begin(outbox.version)

    async def deliver(self, outbox: Outbox, *,
                      interaction: discord.Interaction | None = None,
                      repeat: bool = False) -> bool:
        """Send everything in ``outbox``, then mark it delivered. ``interaction``
        (already responded to or deferred) lets private news for the clicking user go
        ephemerally when their DMs are closed.

        Returns False when the public update could not be posted (the bot may not
        send messages in that channel): the caller tells the user. Raises when Discord
        itself fails (a 5xx): the outbox is then left undelivered, for the next sweep.
        ``repeat``: a stored outbox sent again (after a restart, by the sweep), which a
        killed process may already have posted: its messages go on the bot token with
        their nonces, which Discord answers with the message already made, never as a
        click's follow-up (a follow-up takes no nonce and would be posted twice)."""
        order = self.order_of(outbox.table_id)
        if outbox.id is not None and order.arrives_late(outbox.version):
            if order.newer_waiting(outbox.version):
                # A newer delivery is on its way here: it tells the moves the channel
                # has not seen before its own (:meth:`_tell_missed`), this one among them.
                log.info("outbox %s of table %s (v%d) came after v%d began: told before it",
                         outbox.id, outbox.table_id, outbox.version, order.highest)
                return True
            # Its table is already further on in the channel: shown now, it would end
            # below the newer turn and take its buttons away.
            log.info("outbox %s of table %s (v%d) came after v%d: not shown",
                     outbox.id, outbox.table_id, outbox.version, order.highest)
            await self._mark(outbox.id)
            return True
        self.expect(outbox)  # before any wait: a later version queues behind it
        try:
            await order.wait_for_turn(outbox.version)
            await self.turns.take()
            return await self._deliver(outbox, interaction, order.overtaken(outbox.version),
                                       repeat=repeat)
        finally:
            await order.done(outbox.version)
            if not outbox.table.status.live:  # the table is over: forget its bookkeeping
                self._order.pop(outbox.table_id, None)
                self.turn_messages.forget(outbox.table_id)

    async def _deliver(self, outbox: Outbox, interaction: discord.Interaction | None,
                       overtaken: asyncio.Event, *, missed: bool = True,
                       repeat: bool = False) -> bool:
        info = outbox.table
        # One read of the turn message serves the check below and the post.
        needed = outbox.id is not None or outbox.public is not None
        shown = await self.turn_messages.current(info.id) if needed else None
        if outbox.id is not None and shown is not None and shown.version > outbox.version:
            # Overtaken: a newer version is already in the channel (delivered before a
            # restart, or by another process, while this one failed). Posting it now
            # would take the buttons and the hands back to an older turn.
            log.info("outbox %s of table %s (v%d) was overtaken by v%d: not shown",
                     outbox.id, info.id, outbox.version, shown.version)
            await self._mark(outbox.id)
            return True
        if missed and outbox.id is not None and outbox.public is not None:
            shown = await self._tell_missed(outbox, shown)
        if overtaken.is_set():
            outbox = without_choices(outbox)
        posted, turn = True, None
        if outbox.public is not None:
            if info.status is not TableStatus.LOBBY:
                await self.lobbies.close(info.id)
            posted, turn = await self.turn_messages.post(outbox, prev=shown,
                                                         overtaken=overtaken, via=interaction,
                                                         tokens=not repeat)
        if overtaken.is_set():  # while its board was being drawn
            outbox = without_choices(outbox)
        hands = []
        if has_hands(info.game_id):
            hands = await self.hands.refresh(outbox, interaction, overtaken=overtaken)
        else:
            for private in outbox.private:
                await self.dms.post_private(private, info, interaction=interaction,
                                            nonce=nonce_for(outbox, f"d{private.seat}"))
        if outbox.id is not None:
            try:
                await self._mark(outbox.id, hands=hands, turn=turn)
            except Exception:
                log.exception("could not mark outbox %s delivered", outbox.id)
        elif hands or turn is not None:
            try:
                if hands:
                    await self.store.save_hand_messages(hands)
                if turn is not None:
                    await self.store.save_turn_message(turn)
            except StoreUnwritable:
                pass  # the messages are out; the store said once why it cannot keep them
        if outbox.public is not None and outbox.public.finished:
            for listener in self.finished:
                try:
                    await listener(outbox)
                except Exception:
                    log.exception("end-of-game hook failed for table %s", info.id)
        if outbox.public is not None and not info.status.live:
            # The game is over (or closed): a table's own thread is archived, after
            # everything the end posts in it (a channel is left alone).
            await archive(self.client, info.channel_id)
        return posted

    async def _mark(self, outbox_id: int, **messages: Any) -> None:
        """Mark an outbox delivered with the messages it left. When the database cannot
        be written (the store said so once), the outbox stays undelivered: the sweep
        sends it again once it can, and its messages' nonces keep that from doubling."""
        with contextlib.suppress(StoreUnwritable):
            await self.store.mark_delivered(outbox_id, **messages)

    async def _tell_missed(self, outbox: Outbox, shown: TurnMessage | None
                           ) -> TurnMessage | None:
        """Tell first, in order, the moves between the one the channel shows and
        ``outbox``'s that were committed but never told: a process killed between a
        commit and its announcement, whose successor delivered a newer move before its
        catch-up reached the older one (an AI answering at once after the restart).
        Each goes out as news alone (``outbox`` brings the board and the buttons), so
        every move is told once and in order, and ``outbox``'s turn message, following
        theirs, pings whoever they did not ask. Returns the turn message they leave.

        Costs nothing in the usual case: the channel shows the version just before."""
        last = shown.version if shown is not None else -1
        if outbox.version - last <= 1:
            return shown
        order = self.order_of(outbox.table_id)
        # Only what was committed before this process began: a newer one was made by a
        # live process (this one, or another on the same database), whose own delivery
        # is on its way, and telling it here too would post it twice.
        records = [r for r in await self.store.undelivered_outboxes(table_id=outbox.table_id)
                   if last < r.version < outbox.version and r.version not in order.in_flight
                   and _aware(r.created_at) < self.started]
        for record in sorted(records, key=lambda r: (r.version, r.id)):
            older = without_choices(Outbox.from_json(record.payload, record.id))
            if older.public is not None and older.public.kind == "reminder":
                continue  # an ask of a turn that is over: ``outbox`` asks anew
            log.info("outbox %s of table %s (v%d) was never told: told before v%d",
                     record.id, outbox.table_id, record.version, outbox.version)
            await self._deliver(older, None, asyncio.Event(), missed=False, repeat=True)
            shown = await self.turn_messages.current(outbox.table_id)
        return shown

    async def post_board(self, outbox: Outbox) -> discord.Message | None:
        """Re-post a playing table's board with fresh turn buttons (when the last turn
        message has scrolled away), from a snapshot outbox. Names whose turn it is
        without pinging them. The re-post becomes the turn message."""
        info = outbox.table
        # The bot's own bold title goes in as it is; the rest is plain text (literal).
        head = [f"**{info.game_name}** — move {info.version}."]
        lines: list[str] = []
        prompt = getattr(outbox.public_view, "prompt", None)
        if prompt:
            lines.append(str(prompt))
        waiting = [s.name for s in info.seats if s.index in info.to_act]
        if waiting:
            lines.append(f"Waiting for {', '.join(waiting)}.")
        update = PublicUpdate(
            table_id=info.id, channel_id=info.channel_id, game_id=info.game_id,
            version=info.version, kind="board", lines=tuple(lines), render_board=True,
            to_act=info.to_act,
        )
        order = self.order_of(info.id)
        order.begin(info.version)
        try:
            await order.wait_for_turn(info.version)
            _posted, turn = await self.turn_messages.post(replace(outbox, public=update),
                                                          head=tuple(head))
        finally:
            await order.done(info.version)
        if turn is not None:
            await self.store.save_turn_message(turn)
            return self.courier.message(turn.channel_id, turn.message_id)  # type: ignore[return-value]
        return None

    async def resync(self, outbox: Outbox) -> None:
        """After a restart: a turn message left with buttons of an older version (its
        move was delivered by a process that died) loses them, and the hand messages
        catch up with the table (a snapshot outbox, no news).

        It takes its place in the table's order just after the snapshot's version: a
        delivery of that version still in flight (a click answered during the catch-up)
        ends first, so its freshly posted buttons are never taken for stale ones; a
        later delivery waits for it."""
        info = outbox.table
        order = self.order_of(info.id)
        slot = info.version + 0.5
        order.begin(slot)
        try:
            await order.wait_for_turn(slot)
            await self._resync(outbox)
        finally:
            await order.done(slot)

    async def _resync(self, outbox: Outbox) -> None:
        info = outbox.table
        prev = await self.turn_messages.current(info.id)
        if prev is not None and prev.version > info.version:
            # A move was delivered since the snapshot was taken (a click during the
            # catch-up): it brought the current buttons and hands; nothing is stale.
            return
        if prev is not None and prev.has_buttons and prev.version < info.version:
            await self.store.save_turn_message(await self.turn_messages.strip(prev))
        if has_hands(info.game_id):
            hands = await self.hands.refresh(outbox, None, only_stale=True)
            if hands:
                await self.store.save_hand_messages(hands)

    async def refresh_hands(self, snapshot: Outbox) -> None:
        """Bring every hand message of a table up to date from a snapshot outbox (no
        news), and store them."""
        hands = await self.hands.refresh(snapshot, None, every=True)
        if hands:
            await self.store.save_hand_messages(hands)


def _aware(moment: datetime) -> datetime:
    """A stored time as an aware one (the stores write UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
