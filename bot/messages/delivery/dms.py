"""Direct messages: private news for a seat, the memory of closed DMs, and the channel
nudge that replaces a DM nobody can receive.

A user whose DMs are closed (Discord error 50007) is told once in the channel to use the
ephemeral ``/hand`` and remembered in the store, so every later private update becomes a
short channel nudge: nothing is ever silently dropped, and nothing private is ever put
in a channel message.
"""

from __future__ import annotations

import io
import logging
from typing import Any

import discord

from bot.core.store import Store
from bot.core.tables import PrivateUpdate, TableInfo
from bot.messages.delivery.courier import ASK, Courier
from bot.messages.delivery.pictures import Pictures
from bot.messages.ui.texts import clip, literal

__all__ = ["CANNOT_DM", "DirectMessages"]

log = logging.getLogger(__name__)

CANNOT_DM = 50007
"""Discord's error code for "Cannot send messages to this user" (closed DMs)."""


class DirectMessages:
    """DMs and nudges. One per bot process, owned by the delivery."""

    def __init__(self, client: discord.Client, store: Store, courier: Courier,
                 pictures: Pictures) -> None:
        self.client = client
        self.store = store
        self.courier = courier
        self.pictures = pictures

    # -- closed DMs ----------------------------------------------------------------

    async def closed(self, user_id: int) -> bool:
        # Read through every time: another process (shard) may have learnt it.
        return await self.store.dm_closed(user_id)

    async def mark_closed(self, user_id: int) -> None:
        await self.store.set_dm_closed(user_id, True)

    async def retry(self, user_id: int) -> None:
        """Try DMs again for this user (they opened their DMs)."""
        await self.store.set_dm_closed(user_id, False)

    # -- sending -------------------------------------------------------------------

    def _dm_channel(self, user_id: int) -> discord.DMChannel | None:
        """The DM channel discord.py already knows for ``user_id`` (``create_dm`` then
        costs no request)."""
        state = getattr(self.client, "_connection", None)
        lookup = getattr(state, "_get_private_channel_by_user", None)
        return lookup(user_id) if lookup is not None else None

    async def send(self, user_id: int, channel_id: int, payload: dict[str, Any], *,
                   nonce: str | None = None, priority: int = ASK) -> discord.Message | None:
        """A new DM (on the bot token: a DM has no interaction to ride on); on
        Discord's "closed DMs" refusal the user is remembered and told once in the
        table's channel. ``None`` if it could not be sent."""
        try:
            if self._dm_channel(user_id) is None:
                await self.courier.budget.take(priority)  # discord.py asks Discord once
            dm = await self.client.create_dm(discord.Object(user_id))
            await self.courier.budget.take(priority)
            self.courier.sent["bot dm"] += 1
            # A DM pings nobody: whatever it quotes, it is the reader's own news.
            payload = {"allowed_mentions": discord.AllowedMentions.none(), **payload}
            if nonce is not None:
                payload = {**payload, "nonce": nonce}
            return await dm.send(**payload)  # type: ignore[no-any-return]
        except discord.Forbidden as exc:
            if exc.code != CANNOT_DM:
                log.warning("DM to %s refused (%s); nudging in the channel", user_id, exc.code)
            await self.mark_closed(user_id)
            await self.nudge(user_id, channel_id, first=True)
        except discord.HTTPException:
            log.exception("DM to %s failed", user_id)
        return None

    async def nudge(self, user_id: int, channel_id: int, *, first: bool) -> None:
        """Tell a user with closed DMs, in the table's channel, that there is news for
        them in ``/hand`` (the first time: why)."""
        if first:
            text = (
                f"<@{user_id}>, I can't send you direct messages (your DMs are "
                "closed for this server). Use **/hand** here to see your private "
                "information: only you will see the answer."
            )
        else:
            text = f"<@{user_id}>, you have private news at this table: use **/hand**."
        sent = await self.courier.send(channel_id, content=text, pings=(user_id,))
        if sent is None:
            log.warning("could not nudge user %s in channel %s", user_id, channel_id)

    # -- private updates (games without a hand message) ------------------------------

    async def private_content(
        self, update: PrivateUpdate, game_id: str, info: TableInfo | None = None,
        view: Any | None = None,
    ) -> dict[str, Any]:
        """The DM (or ephemeral) message of a private update: its text and, when the
        game has a picture, the user's own view."""
        title = info.game_name if info is not None else game_id
        channel = f" (table in <#{update.channel_id}>)"
        text = "\n".join(literal(line) for line in update.lines)
        content = clip(f"**Private — {title}{channel}**\n{text}")
        out: dict[str, Any] = {"content": content}
        if view is not None:
            png = await self.pictures.render_png(game_id, view, info)
            if png is not None:
                out["file"] = discord.File(io.BytesIO(png), filename="private.png")
        return out

    async def post_private(
        self,
        update: PrivateUpdate,
        info: TableInfo,
        *,
        interaction: discord.Interaction | None = None,
        view: Any | None = None,
        nonce: str | None = None,
    ) -> str:
        """Deliver one private update; returns how: ``dm``, ``ephemeral`` or ``nudge``."""
        payload = await self.private_content(update, info.game_id, info, view)
        closed = await self.closed(update.user_id)
        if interaction is not None and interaction.user.id == update.user_id and closed:
            try:
                await interaction.followup.send(ephemeral=True, **payload)
                return "ephemeral"
            except discord.HTTPException:
                log.info("ephemeral private update to %s failed", update.user_id)
        if not closed:
            result = await self.send(update.user_id, update.channel_id, payload, nonce=nonce)
            if result is not None:
                return "dm"
            if await self.closed(update.user_id):
                return "nudge"  # the first refusal: told in the channel already
        await self.nudge(update.user_id, update.channel_id, first=False)
        return "nudge"
