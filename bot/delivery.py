"""Getting a table's news to the people at it.

Public updates go to the table's channel: the text lines, the board picture (the
PUBLIC view, rendered in a worker thread so the event loop never stalls), the turn
buttons for whoever acts next, and a mention of them. Private updates go by DM; a
user whose DMs are closed (Discord error 50007) is told in the channel to use the
ephemeral ``/hand`` instead and is remembered, so the bot stops trying, and every
later private update becomes a channel nudge: nothing is ever silently dropped.

Secrets: a private update's text and private picture only ever go to its user (DM
or ephemeral). The channel nudge says only that there is something to look at.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite
import discord

from bot.tables import (
    Outbox,
    PrivateUpdate,
    PublicUpdate,
    TableInfo,
    TableService,
    TableStatus,
)
from bot.ui.adapter import GameUI
from bot.ui.games import get_ui
from bot.ui.items import build_view

__all__ = ["CANNOT_DM", "CANNOT_POST", "Delivery", "DmMemory", "Renderer"]

log = logging.getLogger(__name__)

CANNOT_DM = 50007
"""Discord's error code for "Cannot send messages to this user" (closed DMs)."""

CANNOT_POST = (
    "I could not post in this channel, so nobody saw that. Please give me View Channel, "
    "Send Messages (in Threads too), Attach Files and Read Message History here, then "
    "use the game's `board` command to bring the board back."
)

MAX_CONTENT = 2000

GameDelivery = Callable[[Outbox, "discord.Interaction | None", Any], Awaitable[None]]
"""``hook(outbox, interaction, snapshot)``: a game's own delivery (see ``game_hooks``)."""

Renderer = Callable[..., bytes]
"""``render(game_id, view, names=[...]) -> PNG bytes`` (renderers.render)."""


def _default_renderer() -> Renderer | None:
    try:
        import renderers
    except ImportError:  # pragma: no cover - renderers is part of the package
        return None

    def render(game_id: str, view: Any, **options: Any) -> bytes:
        return renderers.render(game_id, view, **options)

    return render


def _has_renderer(game_id: str) -> bool:
    try:
        import renderers

        return renderers.has_renderer(game_id)
    except Exception:  # a broken registry must not stop text delivery
        return False


class DmMemory:
    """Users whose DMs are closed, remembered across restarts and shared by every bot
    process (a small table in the bot's SQLite file; in memory when no path is given)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self._path = str(path) if path is not None else None
        self._closed: set[int] = set()
        self._created = False

    async def _ensure(self, db: aiosqlite.Connection) -> None:
        if not self._created:
            await db.execute(
                "CREATE TABLE IF NOT EXISTS delivery_dm_closed"
                " (user_id INTEGER PRIMARY KEY, since TEXT NOT NULL)"
            )
            await db.commit()
            self._created = True

    async def is_closed(self, user_id: int) -> bool:
        if self._path is None:
            return user_id in self._closed
        # Read through every time: another process (shard) may have learnt it.
        async with aiosqlite.connect(self._path) as db:
            await self._ensure(db)
            async with db.execute(
                "SELECT 1 FROM delivery_dm_closed WHERE user_id = ?", (user_id,)
            ) as cur:
                return await cur.fetchone() is not None

    async def mark_closed(self, user_id: int) -> None:
        self._closed.add(user_id)
        if self._path is not None:
            async with aiosqlite.connect(self._path) as db:
                await self._ensure(db)
                await db.execute(
                    "INSERT OR REPLACE INTO delivery_dm_closed (user_id, since) VALUES (?, ?)",
                    (user_id, datetime.now(UTC).isoformat()),
                )
                await db.commit()

    async def forget(self, user_id: int) -> None:
        """Try DMs again for this user (they opened their DMs)."""
        self._closed.discard(user_id)
        if self._path is not None:
            async with aiosqlite.connect(self._path) as db:
                await self._ensure(db)
                await db.execute("DELETE FROM delivery_dm_closed WHERE user_id = ?", (user_id,))
                await db.commit()


@dataclass
class PublicMessage:
    """The pieces of a channel message (kept separate so tests can inspect them)."""

    content: str
    png: bytes | None
    view: discord.ui.View | None
    mentions: tuple[int, ...]

    def kwargs(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "content": self.content,
            "allowed_mentions": discord.AllowedMentions(
                everyone=False,
                roles=False,
                users=[discord.Object(u) for u in self.mentions],
            ),
        }
        if self.png is not None:
            out["file"] = discord.File(io.BytesIO(self.png), filename="board.png")
        if self.view is not None:
            out["view"] = self.view
        return out


class _Sequence:
    """Per-table ordering of public updates by version (within this process).

    An update is *in flight* from the moment the service hands it over (see
    :meth:`Delivery.capture`) until it is posted; a later version waits for every
    earlier one in flight, and for its predecessor once one has been posted here."""

    WAIT = 10.0
    """Seconds an update waits before going out anyway (the predecessor may never
    come: its delivery failed, or this process just restarted)."""

    def __init__(self) -> None:
        self.delivered: int | None = None
        self.in_flight: set[int] = set()
        self._changed = asyncio.Condition()

    def begin(self, version: int) -> None:
        self.in_flight.add(version)

    def _my_turn(self, version: int) -> bool:
        if any(v < version for v in self.in_flight):
            return False
        return self.delivered is None or self.delivered >= version - 1

    async def wait_for_turn(self, version: int) -> None:
        async with self._changed:
            try:
                await asyncio.wait_for(
                    self._changed.wait_for(lambda: self._my_turn(version)), self.WAIT
                )
            except TimeoutError:
                log.warning("update %s went out before its predecessor", version)
                # whatever it waited for is not coming: do not make the next one wait too
                self.in_flight = {v for v in self.in_flight if v >= version}

    async def done(self, version: int) -> None:
        async with self._changed:
            self.in_flight.discard(version)
            self.delivered = version if self.delivered is None else max(self.delivered, version)
            self._changed.notify_all()


def clip(text: str, limit: int = MAX_CONTENT) -> str:
    """Discord refuses messages past 2000 characters; keep the end (the newest news)."""
    if len(text) <= limit:
        return text
    return "…" + text[-(limit - 1):]


class Delivery:
    """Sends outboxes to Discord. One per bot process."""

    def __init__(
        self,
        client: discord.Client,
        service: TableService,
        *,
        renderer: Renderer | None = None,
        dm_memory: DmMemory | None = None,
    ) -> None:
        self.client = client
        self.service = service
        self.renderer = renderer if renderer is not None else _default_renderer()
        self.dm_memory = dm_memory or DmMemory()
        self._prompts: dict[str, tuple[int, int, int]] = {}
        """table id -> (channel id, message id, version) of the last message with buttons."""
        self._sequence: dict[str, _Sequence] = {}
        self._lobbies: dict[str, discord.Interaction] = {}
        """table id -> the /table new interaction whose reply carries the lobby buttons
        (its token can edit that reply for 15 minutes)."""
        self._lock = asyncio.Lock()
        self.game_hooks: dict[str, GameDelivery] = {}
        """game id -> a delivery of its own (a game whose private news is a message kept
        current rather than a new DM each time); it calls :meth:`post_public` itself."""

    # -- helpers -----------------------------------------------------------------

    def ui_for(self, game_id: str) -> GameUI:
        return get_ui(game_id, lambda action: self.service.describe_action(game_id, action))

    async def render_png(
        self, game_id: str, view: Any, info: TableInfo | None = None
    ) -> bytes | None:
        """The picture of ``view`` or ``None`` (no renderer, or it failed: the text
        still goes out). Runs in a worker thread. ``info`` gives the seat names."""
        if self.renderer is None or not _has_renderer(game_id):
            return None
        options: dict[str, Any] = {}
        if info is not None and info.seats:
            options["names"] = [s.name for s in sorted(info.seats, key=lambda s: s.index)]
        try:
            return await asyncio.to_thread(self.renderer, game_id, view, **options)
        except Exception:
            log.exception("rendering %s failed; sending text only", game_id)
            return None

    async def turn_view(self, outbox: Outbox) -> discord.ui.View | None:
        """Buttons for whoever must act now, built for the table's current version."""
        info = outbox.table
        if info.status is not TableStatus.PLAYING or not info.to_act:
            return None
        humans = info.to_act_users
        if not humans:
            return None  # an AI is thinking; its move will bring fresh buttons
        ui = self.ui_for(info.game_id)
        try:
            public_view = await self.service.public_view(info.id)
            if len(humans) == 1:
                legal = await self.service.legal_actions(info.id, humans[0])
                menu = ui.public_menu(public_view, legal)
            else:
                # Several seats may act (an interrupt window): each opens their own menu.
                menu = ui.turn_button_menu()
        except Exception:
            # A broken adapter must not cost the turn its buttons: everyone can still
            # open their own menu with the generic button.
            log.exception("could not build the turn buttons of table %s", info.id)
            menu = GameUI.turn_button_menu(ui)
        return build_view(menu, info.id, info.version)

    async def _current_version(self, table_id: str) -> int | None:
        try:
            return (await self.service.status(table_id)).version
        except ValueError:
            return None

    async def capture(self, outbox: Outbox) -> Any | None:
        """The public view as of ``outbox``'s version, or ``None`` if the table has
        already moved on. Call it right after the service returns the outbox, before
        any network wait, so an AI answering at once cannot slip its move in."""
        update = outbox.public
        if update is None:
            return None
        # Claim this version's place in the channel before the first await.
        self._sequence.setdefault(update.table_id, _Sequence()).begin(update.version)
        if not update.render_board:
            return None
        # Versions only grow: if the table is still at this version after the view was
        # read, the view was read at this version.
        try:
            view = await self.service.public_view(update.table_id)
        except ValueError:
            return None
        if await self._current_version(update.table_id) != update.version:
            return None
        return view

    async def public_message(
        self, outbox: Outbox, snapshot: Any | None = None
    ) -> PublicMessage | None:
        update = outbox.public
        if update is None:
            return None
        text = update.text
        if update.finished and update.outcome_text and update.outcome_text not in text:
            text = f"{text}\n{update.outcome_text}" if text else update.outcome_text
        mentions = tuple(dict.fromkeys(update.mentions))
        if mentions:
            who = ", ".join(f"<@{u}>" for u in mentions)
            verb = "it's your turn" if update.kind != "reminder" else "the table is waiting for you"
            text = f"{text}\n{who}: {verb}." if text else f"{who}: {verb}."
        # The board and the buttons must belong to this update's version. If the table
        # moved on meanwhile (an AI answered at once), this message carries the text
        # only: the newer update brings the newer board and the live buttons.
        before = await self._current_version(update.table_id)
        if snapshot is None:
            snapshot = getattr(update, "view", None)  # captured at commit time, if any
        view = snapshot
        if view is None and update.render_board and before == update.version:
            try:
                view = await self.service.public_view(update.table_id)
            except ValueError:
                view = None
        buttons = await self.turn_view(outbox) if before == update.version else None
        if await self._current_version(update.table_id) != update.version:
            buttons = None
            view = snapshot
        png = None
        if update.render_board and view is not None:
            png = await self.render_png(update.game_id, view, outbox.table)
        return PublicMessage(clip(text or "…"), png, buttons, mentions)

    # -- delivery ----------------------------------------------------------------

    async def deliver(
        self,
        outbox: Outbox,
        *,
        interaction: discord.Interaction | None = None,
        snapshot: Any | None = None,
    ) -> bool:
        """Send everything in ``outbox``. ``interaction`` (already responded to or
        deferred) lets private news for the clicking user go ephemerally when their
        DMs are closed; ``snapshot`` is the board as :meth:`capture` saw it.

        Returns False when the public update could not be posted (the bot may not
        send messages in that channel): the caller tells the user."""
        if snapshot is None:
            snapshot = await self.capture(outbox)
        hook = self.game_hooks.get(outbox.table.game_id)
        if hook is not None:
            await hook(outbox, interaction, snapshot)
            return True
        posted = True
        if outbox.public is not None:
            posted = await self.post_public(outbox, snapshot) is not None
        for private in outbox.private:
            await self.post_private(private, outbox.table, interaction=interaction)
        return posted

    async def post_public(
        self, outbox: Outbox, snapshot: Any | None = None
    ) -> discord.Message | None:
        """Post one public update, in version order: an update waits (a little) for
        the one before it, so an AI's instant answer never overtakes the move it
        answers, and an old update never strips newer buttons."""
        update: PublicUpdate | None = outbox.public
        if update is None:
            return None
        seq = self._sequence.setdefault(update.table_id, _Sequence())
        seq.begin(update.version)
        await seq.wait_for_turn(update.version)
        try:
            if outbox.table.status is not TableStatus.LOBBY:
                await self.close_lobby(update.table_id)
            return await self._post_public(outbox, update, snapshot)
        finally:
            await seq.done(update.version)
            if not outbox.table.status.live:  # the table is over: forget its bookkeeping
                self._sequence.pop(update.table_id, None)
                self._prompts.pop(update.table_id, None)

    async def _post_public(
        self, outbox: Outbox, update: PublicUpdate, snapshot: Any | None
    ) -> discord.Message | None:
        message = await self.public_message(outbox, snapshot)
        if message is None:
            return None
        channel = self.client.get_partial_messageable(update.channel_id)
        try:
            sent = await channel.send(**message.kwargs())
        except discord.HTTPException:
            log.exception("could not post to channel %s (table %s)",
                          update.channel_id, update.table_id)
            return None
        async with self._lock:
            previous = self._prompts.get(update.table_id)
            if previous is not None and previous[2] > update.version:
                previous = None  # newer buttons are up: leave them alone
            elif previous is not None:
                del self._prompts[update.table_id]
            if message.view is not None:
                self._prompts[update.table_id] = (update.channel_id, sent.id, update.version)
        if previous is not None:
            await self._strip_buttons(previous[0], previous[1])
        return sent

    async def _strip_buttons(self, channel_id: int, message_id: int) -> None:
        # Old buttons would only earn a "that is from an older turn" reply; removing
        # them keeps the channel tidy. Best effort: the version check is the real guard.
        try:
            partial = self.client.get_partial_messageable(channel_id)
            await partial.get_partial_message(message_id).edit(view=None)
        except discord.HTTPException:
            log.debug("could not strip the buttons of message %s", message_id)

    async def post_board(self, info: TableInfo) -> discord.Message | None:
        """Re-post a playing table's board with fresh turn buttons (when the last turn
        message has scrolled away). Names whose turn it is without pinging them."""
        view = await self.service.public_view(info.id)
        lines = [f"**{info.game_name}** — move {info.version}."]
        prompt = getattr(view, "prompt", None)
        if prompt:
            lines.append(str(prompt))
        waiting = [s.name for s in info.seats if s.index in info.to_act]
        if waiting:
            lines.append(f"Waiting for {', '.join(waiting)}.")
        update = PublicUpdate(
            table_id=info.id,
            channel_id=info.channel_id,
            game_id=info.game_id,
            version=info.version,
            kind="board",
            lines=tuple(lines),
            render_board=True,
            to_act=info.to_act,
        )
        outbox = Outbox(table=info, public=update)
        return await self.post_public(outbox, await self.capture(outbox))

    def remember_lobby(self, table_id: str, interaction: discord.Interaction) -> None:
        # An interaction token can edit its reply for 15 minutes: drop the expired ones.
        expired = [t for t, i in self._lobbies.items() if i.is_expired()]
        for t in expired:
            del self._lobbies[t]
        self._lobbies[table_id] = interaction

    def forget_lobby(self, table_id: str) -> None:
        self._lobbies.pop(table_id, None)

    async def close_lobby(self, table_id: str) -> None:
        """Take the Join/Start buttons off the lobby message once the lobby is over
        (best effort: after 15 minutes or a restart they stay, and only say so)."""
        interaction = self._lobbies.pop(table_id, None)
        if interaction is None or interaction.is_expired():
            return
        try:
            await interaction.edit_original_response(view=None)
        except (discord.HTTPException, ValueError):
            log.debug("could not take the buttons off the lobby of table %s", table_id)

    def forget_prompt(self, table_id: str) -> None:
        self._prompts.pop(table_id, None)

    def forget_prompt_message(self, message_id: int) -> None:
        """The message's buttons are already gone (the click removed them)."""
        for table_id, (_channel, mid, _version) in list(self._prompts.items()):
            if mid == message_id:
                del self._prompts[table_id]

    async def private_content(
        self, update: PrivateUpdate, game_id: str, info: TableInfo | None = None
    ) -> dict[str, Any]:
        """The DM (or ephemeral) message of a private update: its text and, when the
        game has a picture, the user's own private view."""
        title = info.game_name if info is not None else game_id
        channel = f" (table in <#{update.channel_id}>)"
        content = clip(f"**Private — {title}{channel}**\n{update.text}")
        out: dict[str, Any] = {"content": content}
        try:
            view = await self.service.private_view(update.table_id, update.user_id)
        except ValueError:
            view = None
        if view is not None:
            png = await self.render_png(game_id, view, info)
            if png is not None:
                out["file"] = discord.File(io.BytesIO(png), filename="private.png")
        return out

    async def post_private(
        self,
        update: PrivateUpdate,
        info: TableInfo,
        *,
        interaction: discord.Interaction | None = None,
    ) -> str:
        """Deliver one private update; returns how: ``dm``, ``ephemeral`` or ``nudge``."""
        payload = await self.private_content(update, info.game_id, info)
        if interaction is not None and interaction.user.id == update.user_id \
                and await self.dm_memory.is_closed(update.user_id):
            try:
                await interaction.followup.send(ephemeral=True, **payload)
                return "ephemeral"
            except discord.HTTPException:
                log.info("ephemeral private update to %s failed", update.user_id)
        if not await self.dm_memory.is_closed(update.user_id):
            try:
                dm = await self.client.create_dm(discord.Object(update.user_id))
                await dm.send(**payload)
                return "dm"
            except discord.Forbidden as exc:
                if exc.code != CANNOT_DM:
                    log.warning("DM to %s refused (%s); nudging in the channel",
                                update.user_id, exc.code)
                await self.dm_memory.mark_closed(update.user_id)
                await self._nudge(update, first=True)
                return "nudge"
            except discord.HTTPException:
                log.exception("DM to %s failed; nudging in the channel", update.user_id)
        await self._nudge(update, first=False)
        return "nudge"

    async def _nudge(self, update: PrivateUpdate, *, first: bool) -> None:
        if first:
            text = (
                f"<@{update.user_id}>, I can't send you direct messages (your DMs are "
                "closed for this server). Use **/hand** here to see your private "
                "information: only you will see the answer."
            )
        else:
            text = f"<@{update.user_id}>, you have private news at this table: use **/hand**."
        channel = self.client.get_partial_messageable(update.channel_id)
        try:
            await channel.send(
                text,
                allowed_mentions=discord.AllowedMentions(
                    everyone=False, roles=False, users=[discord.Object(update.user_id)]
                ),
            )
        except discord.HTTPException:
            log.exception("could not nudge user %s in channel %s",
                          update.user_id, update.channel_id)
