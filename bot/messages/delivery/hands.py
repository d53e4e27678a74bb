"""Private hands: ONE direct message per player per table, kept current.

For every game whose seats see more than the public (its declaration names a private
picture: Winter Tales' Story cards, a toy game's stones), each human seat has a hand
message in their DMs: the private picture, the words of their hand and the choices that
are theirs right now as buttons and selects. After a change it is EDITED, never sent
again, and only when what it shows changed (its words and choices, or its picture):
a seat whose view did not change is not touched. The message ids live in the store.

The same hand is shown ephemerally by ``/hand`` (and by a game's own hand command and
its "Take your turn" button), which is how a player with closed DMs plays: they are
told once in the channel, and the player who just moved and still has a choice gets
the hand back at once, privately. Lines that must be noticed (an X-card notice, a
request to retell; the game's adapter says which) come as a new DM, or as a nudge in
the channel for closed DMs.

Everything here is built from the seat's own view and legal actions as the outbox
carries them: nothing of one seat ever reaches another. Seat names and the news lines
(the service's plain text) are made literal before a game's adapter puts its markup
around them (:func:`shown`).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from dataclasses import replace
from typing import Any

import discord

from bot.core.choices import get_ui
from bot.core.store import HandMessage, Store
from bot.core.tables import Outbox, SeatNews, TableInfo, TableStatus
from bot.messages.delivery.channel import digest
from bot.messages.delivery.dms import DirectMessages
from bot.messages.delivery.overtake import unless
from bot.messages.delivery.pictures import Pictures
from bot.messages.ui.items import build_panel
from bot.messages.ui.texts import clip, literal

__all__ = ["HandMessages", "shown"]

log = logging.getLogger(__name__)

SECRET_CHANGED = "Your secret information has changed"


def shown(info: TableInfo) -> TableInfo:
    """``info`` as a hand's words may quote it: the seat names and the result (which
    names them) as Discord text, literal. Only for text: the adapter's buttons and
    pictures take their names from the views."""
    return replace(
        info,
        seats=tuple(replace(s, name=literal(s.name)) for s in info.seats),
        outcome_text=literal(info.outcome_text) if info.outcome_text else info.outcome_text,
    )


class HandMessages:
    """The hand messages of every table (one per process, owned by the delivery)."""

    def __init__(self, client: discord.Client, store: Store, pictures: Pictures,
                 dms: DirectMessages) -> None:
        self.client = client
        self.store = store
        self.pictures = pictures
        self.dms = dms
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}

    # -- what a hand shows -------------------------------------------------------

    def payload(self, info: TableInfo, news: SeatNews, lines: list[str]
                ) -> tuple[str, list[Any], str, str]:
        """(text, menus, signature, picture signature) of one seat's hand."""
        ui = get_ui(info.game_id)
        playing = info.status is TableStatus.PLAYING
        legal = list(news.legal) if playing else []
        text = clip(ui.hand_text(shown(info), news.view, legal,
                                 [literal(line) for line in lines]))
        menus = ui.hand_menus(news.view, legal) if playing else []
        signature = digest([text, [repr(a) for a in legal],
                            info.version if legal else None, info.status.value])
        return text, menus, signature, digest(ui.hand_picture_key(news.view))

    async def _picture(self, info: TableInfo, view: Any) -> bytes | None:
        return await self.pictures.render_png(info.game_id, view, info, private=True)

    async def _kwargs(self, info: TableInfo, news: SeatNews, text: str, menus: list[Any],
                      png: bytes | None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"content": text}
        components = build_panel(menus, info.id, info.version) if menus else None
        if components is not None:
            kwargs["view"] = components
        if png is not None:
            kwargs["file"] = discord.File(io.BytesIO(png), filename="hand.png")
        return kwargs

    # -- the ephemeral hand --------------------------------------------------------

    async def send_ephemeral(self, interaction: discord.Interaction, outbox: Outbox,
                             lines: list[str] | None = None) -> None:
        """The caller's hand, only for them (``outbox``: a snapshot with their seat)."""
        news = outbox.seat_news(interaction.user.id)
        if news is None or news.view is None:
            raise ValueError("the snapshot has no view of the caller's seat")
        text, menus, _sig, _isig = self.payload(outbox.table, news, lines or [])
        png = await self._picture(outbox.table, news.view)
        kwargs = await self._kwargs(outbox.table, news, text, menus, png)
        with contextlib.suppress(discord.HTTPException):
            if interaction.response.is_done():
                await interaction.followup.send(ephemeral=True, **kwargs)
            else:
                await interaction.response.send_message(ephemeral=True, **kwargs)

    # -- the DM hand messages --------------------------------------------------------

    async def refresh(self, outbox: Outbox, interaction: discord.Interaction | None,
                      *, only_stale: bool = False,
                      overtaken: asyncio.Event | None = None) -> list[HandMessage]:
        """Bring the hand messages of the outbox's seats up to date; returns the records
        to store. ``only_stale``: only messages still showing choices (after a restart);
        ``overtaken``: set when a newer version's delivery begins, which brings the
        hands (a hand whose picture is still waiting to be drawn is then left alone)."""
        info = outbox.table
        if info.status is TableStatus.LOBBY or not outbox.seats:
            return []
        store = self.store
        stored = {h.user_id: h for h in await store.hand_messages(info.id)}
        closed_dms = await store.dm_closed_among([n.user_id for n in outbox.seats])
        lines = {p.user_id: list(p.lines) for p in outbox.private}
        ui = get_ui(info.game_id)

        async def one(news: SeatNews) -> HandMessage | None:
            mine = lines.get(news.user_id, [])
            alerts = [x for x in mine if ui.is_alert(x)]
            latest = [x for x in mine if x not in alerts and not x.startswith(SECRET_CHANGED)]
            rec = stored.get(news.user_id)
            if only_stale and (rec is None or not rec.shows_choices):
                return None
            if (rec is not None and not news.changed and not news.legal and not mine
                    and not rec.shows_choices and not only_stale):
                return None  # nothing of this seat's own changed: its hand stays as it is
            closed = news.user_id in closed_dms
            result = None
            # A repeat delivery of the same outbox (after a crash) finds its messages by
            # their nonces instead of sending them twice.
            nonce = f"ft{outbox.id}h{news.seat}" if outbox.id is not None else None
            # Without a view (a newer outbox is already waiting, and it brings the hand)
            # the hand is left alone, but what must be noticed still goes out.
            if not closed and news.view is not None:
                result = await self._show(info, news, latest, rec, nonce, overtaken)
            # With closed DMs only what must be noticed earns a nudge: the rest is in
            # /hand, and the player is pinged when it is their turn anyway.
            if alerts:
                await self._alert(info, news.user_id, alerts, closed,
                                  f"ft{outbox.id}a{news.seat}" if outbox.id is not None else None)
            if closed and interaction is not None and interaction.user.id == news.user_id \
                    and news.legal and news.view is not None:
                # The player who just moved and still has a choice gets the hand back
                # at once, as the DM hand message would have shown it.
                await self.send_ephemeral(interaction, outbox, latest)
            return result

        # The hands are independent: their pictures render side by side.
        results = await asyncio.gather(*(one(n) for n in outbox.seats))
        await self._retire(info, stored, {n.user_id for n in outbox.seats}, outbox)
        return [r for r in results if r is not None]

    async def _retire(self, info: TableInfo, stored: dict[int, HandMessage],
                      seated: set[int], outbox: Outbox) -> None:
        """A hand message whose player no longer holds a seat (handed over) loses its
        hand and its buttons, and is forgotten."""
        if not outbox.seats:
            return
        holders = {s.user_id for s in info.seats if s.user_id is not None}
        for user_id, rec in stored.items():
            if user_id in seated or user_id in holders:
                continue
            try:
                partial = self.client.get_partial_messageable(
                    rec.channel_id, type=discord.ChannelType.private)
                await partial.get_partial_message(rec.message_id).edit(
                    content=f"**{info.game_name}** (table in <#{info.channel_id}>): your "
                            "seat was handed to someone else, so this hand is closed.",
                    view=None, attachments=[], allowed_mentions=discord.AllowedMentions.none())
            except discord.HTTPException:
                log.debug("could not close the hand message of %s", user_id)
            await self.store.delete_hand_message(info.id, user_id)

    async def _show(self, info: TableInfo, news: SeatNews, lines: list[str],
                    rec: HandMessage | None, nonce: str | None = None,
                    overtaken: asyncio.Event | None = None) -> HandMessage | None:
        """Edit the seat's hand message (or send it the first time) if what it shows
        changed; the record to store, or ``None`` if nothing was sent."""
        lock = self._locks.setdefault((info.id, news.user_id), asyncio.Lock())
        async with lock:
            text, menus, signature, image_sig = self.payload(info, news, lines)
            if rec is not None and rec.signature == signature:
                return None
            png = None
            if rec is None or rec.image_sig != image_sig:
                png = await unless(overtaken, self._picture(info, news.view))
                if overtaken is not None and overtaken.is_set():
                    return None  # the newer delivery, right behind, shows the hand
            kwargs = await self._kwargs(info, news, text, menus, png)
            shows = bool(menus) and info.status is TableStatus.PLAYING
            if rec is not None:
                edit = dict(kwargs)
                edit.setdefault("view", None)
                edit["allowed_mentions"] = discord.AllowedMentions.none()
                file = edit.pop("file", None)
                if file is not None:
                    edit["attachments"] = [file]
                try:
                    partial = self.client.get_partial_messageable(
                        rec.channel_id, type=discord.ChannelType.private)
                    await partial.get_partial_message(rec.message_id).edit(**edit)
                    return HandMessage(info.id, news.user_id, rec.channel_id, rec.message_id,
                                       signature, image_sig, shows)
                except discord.NotFound:
                    # Deleted by the player: send a new one, picture included.
                    png = png or await self._picture(info, news.view)
                    kwargs = await self._kwargs(info, news, text, menus, png)
                except discord.HTTPException:
                    log.exception("editing the hand message of %s failed", news.user_id)
                    return None
            sent = await self.dms.send(news.user_id, info.channel_id, kwargs,
                                               nonce=nonce)
            if sent is None:
                return None
            return HandMessage(info.id, news.user_id, sent.channel.id, sent.id, signature,
                               image_sig, shows)

    async def _alert(self, info: TableInfo, user_id: int, lines: list[str],
                     closed: bool, nonce: str | None = None) -> None:
        """A private message that must be noticed: a new DM, not an edit."""
        if closed:
            await self.dms.nudge(user_id, info.channel_id, first=False)
            return
        text = (f"**{info.game_name}** (table in <#{info.channel_id}>): "
                + "\n".join(literal(line) for line in lines))
        await self.dms.send(user_id, info.channel_id, {"content": clip(text)},
                                    nonce=nonce)
