"""Private hands: ONE direct message per player per table, and the panel of the moment.

For every game whose seats see more than the public (its declaration names a private
picture: Winter Tales' Story cards, Crossroads Inn's Recipes, a toy game's stones), each
human seat has a **hand message** in their DMs: the private picture and the words of
their hand, the record of what only they may see. A DM can only be sent and edited on
the bot's token, which the whole application shares (50 requests a second for every
table), so the record is edited when the player could not have seen the change anywhere
else, never to follow the player's own moves or the turn going round:

* when it is first sent (the start), when someone else's move or a timer changes what
  only this seat sees, and at the end (the result, the hand as it ended);
* never for the seat's own move made on its panel (the panel shows it), and never just
  because the turn came to them: the turn message asks them in the channel.

The **panel** is where a player plays: the turn message's *Take your turn* (or ``/hand``)
opens it, only for them; it shows their hand with their choices of the moment, and each
choice made on it brings the same panel up to date in place, on that click's own token.
The hand message's **Refresh** button does the same for the DM itself: the DM then shows
the choices too and can be played from, each click keeping it current on its own token.

Lines that must be noticed (an X-card notice, a request to retell; the game's adapter
says which) come as a new DM, or as a nudge in the channel for closed DMs. Everything
here is built from the seat's own view and legal actions as the outbox carries them:
nothing of one seat ever reaches another. Seat names and the news lines (the service's
plain text) are made literal before a game's adapter puts its markup around them
(:func:`shown`).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections import OrderedDict
from dataclasses import replace
from typing import Any

import discord

from bot.core.choices import get_ui
from bot.core.choices.adapter import Choice, Menu
from bot.core.store import HandMessage, Store
from bot.core.tables import Outbox, SeatNews, TableInfo, TableStatus
from bot.messages.delivery.courier import ASK, RECORD, TIDY, Courier, Edit, digest
from bot.messages.delivery.dms import DirectMessages
from bot.messages.delivery.overtake import unless
from bot.messages.delivery.pictures import Pictures
from bot.messages.ui.items import build_panel
from bot.messages.ui.texts import clip, literal

__all__ = ["REFRESH", "HandMessages", "shown"]

log = logging.getLogger(__name__)

SECRET_CHANGED = "Your secret information has changed"

REFRESH = "refresh"
"""The code of the hand message's Refresh button: the hand as it is now, whatever the
version the button was made at."""


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
    """The hand messages and panels of every table (one per process, owned by the
    delivery)."""

    PANELS = 10_000
    """Panels whose picture is remembered (to leave an unchanged picture as it is)."""
    DRAWN_BYTES = 48 * 2**20
    """Private pictures kept once drawn, in bytes at most (the oldest go first)."""

    def __init__(self, client: discord.Client, store: Store, pictures: Pictures,
                 dms: DirectMessages, courier: Courier) -> None:
        self.client = client
        self.store = store
        self.pictures = pictures
        self.dms = dms
        self.courier = courier
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}
        self._panels: OrderedDict[int, str] = OrderedDict()
        """panel message id -> the picture signature it shows."""
        self._drawn: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        """(table, seat, names, picture key) -> the private picture drawn for it."""
        self._drawn_bytes = 0
        self._live_at: dict[tuple[str, int], int] = {}
        """(table, user) -> the version at which the player's Refresh made their DM live:
        a record of that version or older, still on its way, must not overwrite it."""

    # -- what a hand shows -------------------------------------------------------

    def payload(self, info: TableInfo, news: SeatNews, lines: list[str], *,
                live: bool = True) -> tuple[str, list[Menu], str, str]:
        """(text, menus, signature, picture signature) of one seat's hand: ``live``
        with its choices of the moment, else its record."""
        ui = get_ui(info.game_id)
        playing = info.status is TableStatus.PLAYING
        legal = list(news.legal) if playing and live else []
        text = clip(ui.hand_text(shown(info), news.view, legal,
                                 [literal(line) for line in lines], live=live))
        menus = ui.hand_menus(news.view, legal) if legal else []
        if playing and not menus:
            menus = [Menu(prompt="", choices=(Choice(REFRESH, "Refresh", emoji="🔄"),))]
        signature = digest([text, [repr(a) for a in legal],
                            info.version if legal else None, info.status.value])
        return text, menus, signature, digest(ui.hand_picture_key(news.view))

    async def _picture(self, info: TableInfo, view: Any) -> bytes | None:
        """The seat's private picture, drawn once for what it shows: a panel opened for
        every decision (Take your turn), a Refresh and the DM record of the same hand
        share one drawing. The key is what the hand's picture signature already trusts
        (``hand_picture_key``), with the table, the seat and the names it shows."""
        try:
            key = (info.id, getattr(view, "seat", None),
                   tuple(s.name for s in info.seats),
                   digest(get_ui(info.game_id).hand_picture_key(view)))
        except Exception:
            log.debug("no picture key for table %s", info.id, exc_info=True)
            return await self.pictures.render_png(info.game_id, view, info, private=True)
        png = self._drawn.get(key)
        if png is not None:
            self._drawn.move_to_end(key)
            return png
        png = await self.pictures.render_png(info.game_id, view, info, private=True)
        if png is not None:
            self._drawn[key] = png
            self._drawn_bytes += len(png)
            while self._drawn_bytes > self.DRAWN_BYTES and self._drawn:
                _old, dropped = self._drawn.popitem(last=False)
                self._drawn_bytes -= len(dropped)
        return png

    @staticmethod
    def _components(info: TableInfo, menus: list[Menu]) -> discord.ui.View | None:
        return build_panel(menus, info.id, info.version) if menus else None

    def _kwargs(self, info: TableInfo, text: str, menus: list[Menu],
                png: bytes | None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"content": text}
        components = self._components(info, menus)
        if components is not None:
            kwargs["view"] = components
        if png is not None:
            kwargs["file"] = discord.File(io.BytesIO(png), filename="hand.png")
        return kwargs

    def _remember_panel(self, message_id: int, image_sig: str) -> None:
        self._panels[message_id] = image_sig
        self._panels.move_to_end(message_id)
        while len(self._panels) > self.PANELS:
            self._panels.popitem(last=False)

    # -- the panel: the hand with its choices, only for its player -------------------

    async def send_ephemeral(self, interaction: discord.Interaction, outbox: Outbox,
                             lines: list[str] | None = None) -> None:
        """The caller's panel, only for them (``outbox``: a snapshot with their seat)."""
        news = outbox.seat_news(interaction.user.id)
        if news is None or news.view is None:
            raise ValueError("the snapshot has no view of the caller's seat")
        text, menus, _sig, image_sig = self.payload(outbox.table, news, lines or [])
        png = await self._picture(outbox.table, news.view)
        kwargs = self._kwargs(outbox.table, text, menus, png)
        with contextlib.suppress(discord.HTTPException):
            if interaction.response.is_done():
                sent = await interaction.followup.send(ephemeral=True, wait=True, **kwargs)
                self._remember_panel(sent.id, image_sig)
            else:
                await interaction.response.send_message(ephemeral=True, **kwargs)

    def is_panel(self, message_id: int) -> bool:
        """Whether this ephemeral message is a panel this process showed."""
        return message_id in self._panels

    async def update_panel(self, interaction: discord.Interaction, outbox: Outbox) -> bool:
        """After a move chosen on a panel: the same panel shows the hand and choices at
        the new version, in place, on the click's own token (its picture only when the
        hand's picture changed). False if the panel could not be brought up to date."""
        message = interaction.message
        news = outbox.seat_news(interaction.user.id)
        if message is None or news is None or news.view is None:
            return False
        mine = [x for p in outbox.private if p.user_id == interaction.user.id
                for x in p.lines if not x.startswith(SECRET_CHANGED)]
        text, menus, _sig, image_sig = self.payload(outbox.table, news, mine)
        png = None
        if self._panels.get(message.id) != image_sig:
            png = await self._picture(outbox.table, news.view)
        kwargs: dict[str, Any] = {"content": text,
                                  "view": self._components(outbox.table, menus)}
        if png is not None:
            kwargs["attachments"] = [discord.File(io.BytesIO(png), filename="hand.png")]
        try:
            await interaction.edit_original_response(**kwargs)
        except discord.HTTPException:
            log.debug("could not bring the panel of %s up to date", interaction.user.id)
            return False
        self._remember_panel(message.id, image_sig)
        return True

    async def show_in_place(self, interaction: discord.Interaction, snapshot: Outbox) -> None:
        """The Refresh button: the clicked message (the DM hand, a panel) shows the hand
        and choices as they are now, on the click's own token. The DM's record is
        stored: it is live from now on, and its player's clicks on it keep it so."""
        info = snapshot.table
        news = snapshot.seat_news(interaction.user.id)
        message = interaction.message
        if news is None or news.view is None or message is None:
            return
        # Choices now if there are any; if not, it says where they will be (it is not
        # edited when the turn comes round).
        text, menus, signature, image_sig = self.payload(info, news, [], live=bool(news.legal))
        # Under the hand's lock: a record of this moment that a delivery is sending at
        # the same instant goes first or not at all (see _show), never over the choices.
        key = (info.id, interaction.user.id)
        async with self._locks.setdefault(key, asyncio.Lock()):
            stored = next((h for h in await self.store.hand_messages(info.id)
                           if h.user_id == interaction.user.id), None)
            known = self._panels.get(message.id)
            if stored is not None and stored.message_id == message.id:
                known = stored.image_sig
            png = await self._picture(info, news.view) if known != image_sig else None
            kwargs: dict[str, Any] = {"content": text, "view": self._components(info, menus)}
            if png is not None:
                kwargs["attachments"] = [discord.File(io.BytesIO(png), filename="hand.png")]
            await interaction.edit_original_response(**kwargs)
            self.courier.forget(message.id)
            if stored is not None and stored.message_id == message.id:
                self._live_at[key] = info.version
                await self.store.save_hand_messages([replace(
                    stored, signature=signature, image_sig=image_sig,
                    shows_choices=_has_choices(menus))])
            else:
                self._remember_panel(message.id, image_sig)

    # -- the DM hand messages --------------------------------------------------------

    async def refresh(self, outbox: Outbox, interaction: discord.Interaction | None,
                      *, only_stale: bool = False, every: bool = False,
                      overtaken: asyncio.Event | None = None) -> list[HandMessage]:
        """Bring the hand messages of the outbox's seats up to date where the module's
        rules say so; returns the records to store. ``interaction``: the click that made
        the move (a click on its player's own DM hand keeps that DM live, on its token);
        ``only_stale``: only messages still showing choices (after a restart: they become
        records); ``every``: every record brought up to date (a snapshot, on request);
        ``overtaken``: set when a newer version's delivery begins, which brings
        the hands (a hand whose picture is still waiting to be drawn is then left
        alone)."""
        info = outbox.table
        if info.status is TableStatus.LOBBY or not outbox.seats:
            return []
        store = self.store
        stored = {h.user_id: h for h in await store.hand_messages(info.id)}
        closed_dms = await store.dm_closed_among([n.user_id for n in outbox.seats])
        lines = {p.user_id: list(p.lines) for p in outbox.private}
        ui = get_ui(info.game_id)
        ended = info.status is not TableStatus.PLAYING
        clicker = interaction.user.id if interaction is not None else None
        clicked = (interaction.message.id if interaction is not None
                   and interaction.message is not None else None)
        # A move made on a panel updates that panel in place; one finished on a follow-up
        # menu of it (an ephemeral message of its own, which becomes "Done") does not.
        on_panel = (interaction is not None and interaction.message is not None
                    and self.is_panel(interaction.message.id))

        async def one(news: SeatNews) -> HandMessage | None:
            mine = lines.get(news.user_id, [])
            alerts = [x for x in mine if ui.is_alert(x)]
            latest = [x for x in mine if x not in alerts and not x.startswith(SECRET_CHANGED)]
            rec = stored.get(news.user_id)
            closed = news.user_id in closed_dms
            own = clicker == news.user_id
            live_dm = own and rec is not None and clicked == rec.message_id
            if only_stale:
                show, live, priority = rec is not None and rec.shows_choices, False, TIDY
            elif live_dm:
                show, live, priority = True, True, TIDY  # on the click's own token
            elif ended:
                show, live, priority = rec is not None, False, TIDY  # the result
            elif every:
                show, live, priority = True, False, RECORD
            elif rec is None:
                show, live, priority = True, False, ASK  # the first hand
            elif rec.shows_choices:
                # A DM played from shows choices that are no longer these.
                show, live, priority = True, bool(news.legal), TIDY
            else:
                # Someone else changed what only this seat sees (the seat's own move
                # is on the panel it was made on). A seat that this very move asks to
                # act is pinged in the channel and sees its secrets on the panel the
                # ping brings it to (its record says which move it shows): only news in
                # words, or a change to a seat left waiting, which would learn it
                # nowhere else, earns the record an edit. (A draft's packs change for
                # the next picker on every pick: an edit each was a bot-token request
                # per pick.)
                told = bool(latest) or (news.changed and not news.legal)
                show, live, priority = told and not own, False, RECORD
            result = None
            # A repeat delivery of the same outbox (after a crash) finds its messages by
            # their nonces instead of sending them twice.
            nonce = f"ft{outbox.id}h{news.seat}" if outbox.id is not None else None
            # Without a view (a newer outbox is already waiting, and it brings the hand)
            # the hand is left alone, but what must be noticed still goes out.
            if show and not closed and news.view is not None:
                result = await self._show(info, news, latest, rec, nonce, overtaken,
                                          live=live, priority=priority)
            # With closed DMs only what must be noticed earns a nudge: the rest is in
            # /hand, and the player is pinged when it is their turn anyway.
            if alerts:
                await self._alert(info, news.user_id, alerts, closed,
                                  f"ft{outbox.id}a{news.seat}" if outbox.id is not None else None)
            if closed and own and not on_panel and news.legal and news.view is not None:
                # The player who just moved from a command or a follow-up menu and still
                # has a choice gets their panel back at once (with closed DMs it is their
                # only hand).
                assert interaction is not None
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
            done = await self.courier.edit(
                rec.channel_id, rec.message_id,
                content=f"**{info.game_name}** (table in <#{info.channel_id}>): your "
                        "seat was handed to someone else, so this hand is closed.",
                view=None, no_picture=True, priority=TIDY, private=True)
            if not done:
                log.debug("could not close the hand message of %s", user_id)
            await self.store.delete_hand_message(info.id, user_id)

    async def _show(self, info: TableInfo, news: SeatNews, lines: list[str],
                    rec: HandMessage | None, nonce: str | None = None,
                    overtaken: asyncio.Event | None = None, *, live: bool = False,
                    priority: int = RECORD) -> HandMessage | None:
        """Edit the seat's hand message (or send it the first time) if what it shows
        changed; the record to store, or ``None`` if nothing was sent."""
        key = (info.id, news.user_id)
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            if not live and self._live_at.get(key, -1) >= info.version:
                return None  # its player's Refresh already shows this moment, choices too
            text, menus, signature, image_sig = self.payload(info, news, lines, live=live)
            if rec is not None and rec.signature == signature:
                return None
            png = None
            if rec is None or rec.image_sig != image_sig:
                if rec is not None and await self.pictures.all_watching(info.channel_id,
                                                                        [news.user_id]):
                    # Its player has the board open in the Activity, which shows the
                    # hand: the record keeps its picture (and its key, so the first
                    # update after they leave draws it).
                    image_sig = rec.image_sig
                else:
                    png = await unless(overtaken, self._picture(info, news.view))
                    if overtaken is not None and overtaken.is_set():
                        return None  # the newer delivery, right behind, shows the hand
            shows = live and _has_choices(menus)
            if rec is not None:
                done = await self.courier.edit(
                    rec.channel_id, rec.message_id, content=text,
                    view=self._components(info, menus), png=png, filename="hand.png",
                    priority=priority, private=True)
                if done:
                    return HandMessage(info.id, news.user_id, rec.channel_id, rec.message_id,
                                       signature, image_sig, shows)
                if done is not Edit.GONE:
                    log.warning("editing the hand message of %s failed", news.user_id)
                    return None
                # Deleted by the player: send a new one, picture included.
                png = png or await self._picture(info, news.view)
            kwargs = self._kwargs(info, text, menus, png)
            sent = await self.dms.send(news.user_id, info.channel_id, kwargs, nonce=nonce,
                                       priority=priority)
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


def _has_choices(menus: list[Menu]) -> bool:
    """Whether the menus hold a choice of the game (not only Refresh)."""
    return any(c.code != REFRESH for m in menus for c in (*m.choices, *m.buttons))
