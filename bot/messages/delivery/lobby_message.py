"""The lobby message of each table: its seats and its Join / Add AI / Start buttons,
posted by ``/table new`` as the bot's own message (a bot's message can be edited for as
long as it exists) and kept current until the game starts."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.core.tables import TableInfo
from bot.messages.delivery.courier import Courier
from bot.messages.ui.texts import clip

__all__ = ["LobbyMessages"]

log = logging.getLogger(__name__)


class LobbyMessages:
    """Which message carries each table's lobby buttons, and keeping it current."""

    def __init__(self, courier: Courier) -> None:
        self.courier = courier
        self.known: dict[str, tuple[int, int]] = {}
        """table id -> (channel id, message id) of the message carrying its lobby
        buttons (posted by ``/table new``, or learnt from a click on it)."""

    async def post(self, info: TableInfo, content: str,
                   view: discord.ui.View | None) -> discord.Message | None:
        """Post a table's lobby message in its channel. ``None`` if it could not post."""
        sent = await self.courier.send(info.channel_id, content=content, view=view)
        if sent is not None:
            self.known[info.id] = (info.channel_id, sent.id)
        return sent

    def remember(self, table_id: str, channel_id: int, message_id: int) -> None:
        """The message carrying a table's lobby buttons (a click on it names it)."""
        self.known[table_id] = (channel_id, message_id)

    def forget(self, table_id: str) -> None:
        self.known.pop(table_id, None)

    async def refresh(self, info: TableInfo, content: str,
                      view: discord.ui.View | None) -> bool:
        """Bring the lobby message up to date after a slash command changed the seats;
        if it is not known (a restart) or gone, post a new one. False if neither
        could be done."""
        known = self.known.get(info.id)
        if known is not None:
            try:
                await self.courier.message(*known).edit(
                    content=clip(content), view=view,
                    allowed_mentions=discord.AllowedMentions.none())
                return True
            except discord.HTTPException:
                log.info("could not edit the lobby of table %s; posting it again", info.id)
        return await self.post(info, content, view) is not None

    async def close(self, table_id: str, content: str | None = None) -> None:
        """Take the Join/Start buttons off the lobby message once the lobby is over
        (with ``content``: and say why). Best effort: after a restart the message is
        not known, and its buttons only say the table has moved on."""
        known = self.known.pop(table_id, None)
        if known is None:
            return
        kwargs: dict[str, Any] = {"view": None}
        if content is not None:
            kwargs.update(content=clip(content), allowed_mentions=discord.AllowedMentions.none())
        try:
            await self.courier.message(*known).edit(**kwargs)
        except discord.HTTPException:
            log.debug("could not take the buttons off the lobby of table %s", table_id)
