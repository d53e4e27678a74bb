"""Sending, editing and tidying the bot's own messages in a channel: the few Discord
calls every part of the delivery shares, with one policy for what a failure means."""

from __future__ import annotations

import hashlib
import io
import json
import logging
from typing import Any

import discord

from bot.core.tables import Outbox
from bot.messages.ui.texts import clip

__all__ = ["CANNOT_POST", "Channel", "digest", "mentions_allowed", "nonce_for"]

log = logging.getLogger(__name__)

CANNOT_POST = (
    "I could not post in this channel, so nobody saw that. Please give me View Channel, "
    "Send Messages (in Threads too), Attach Files and Read Message History here, then "
    "use the game's `board` command to bring the board back."
)


def digest(data: Any) -> str:
    """A short stable fingerprint of JSON-able data (what a message shows), to tell
    whether an edit would change anything."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:24]


def nonce_for(outbox: Outbox, part: str) -> str | None:
    """A message's nonce (at most 25 characters): the same for a repeat delivery of the
    same durable outbox, so Discord returns the first message instead of a second."""
    if outbox.id is None:
        return None
    return f"ft{outbox.id}{part}"[:25]


def mentions_allowed(users: tuple[int, ...] | list[int]) -> discord.AllowedMentions:
    """Only these users may be pinged by a message; never everyone or a role."""
    return discord.AllowedMentions(everyone=False, roles=False,
                                   users=[discord.Object(u) for u in users])


class Channel:
    """The bot's messages by their ids: posted, edited and stripped of buttons."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    def message(self, channel_id: int, message_id: int) -> discord.PartialMessage:
        """A message of ours by its ids, to edit without fetching it."""
        return self.client.get_partial_messageable(channel_id).get_partial_message(message_id)

    async def send(self, channel_id: int, *, content: str, pings: tuple[int, ...] = (),
                   png: bytes | None = None, view: discord.ui.View | None = None,
                   nonce: str | None = None) -> discord.Message | None:
        """A new message (``None`` if Discord refused it: no permission, say). A 5xx is
        raised: the outbox stays undelivered and goes out at the next sweep or start
        (its nonce makes a repeat harmless)."""
        channel = self.client.get_partial_messageable(channel_id)
        kwargs: dict[str, Any] = {"content": clip(content or "…"),
                                  "allowed_mentions": mentions_allowed(pings)}
        if png is not None:
            kwargs["file"] = discord.File(io.BytesIO(png), filename="board.png")
        if view is not None:
            kwargs["view"] = view
        if nonce is not None:
            kwargs["nonce"] = nonce
        try:
            return await channel.send(**kwargs)  # type: ignore[no-any-return]
        except discord.DiscordServerError:
            raise  # Discord's trouble, not ours
        except discord.HTTPException:
            log.exception("could not post to channel %s", channel_id)
            return None

    async def edit(self, channel_id: int, message_id: int, content: str,
                   view: discord.ui.View | None, png: bytes | None) -> bool:
        """Edit a message in place (an edit pings nobody). False if it could not be
        edited (deleted, say): the caller posts a new one."""
        kwargs: dict[str, Any] = {"content": clip(content), "view": view,
                                  "allowed_mentions": discord.AllowedMentions.none()}
        if png is not None:
            kwargs["attachments"] = [discord.File(io.BytesIO(png), filename="board.png")]
        try:
            await self.message(channel_id, message_id).edit(**kwargs)
            return True
        except discord.HTTPException:
            log.info("could not edit message %s; posting a new one", message_id)
            return False

    async def strip_buttons(self, channel_id: int, message_id: int) -> None:
        """Old buttons would only earn a "that is from an older turn" reply; removing
        them keeps the channel tidy. Best effort: the version check is the real guard."""
        try:
            await self.message(channel_id, message_id).edit(view=None)
        except discord.HTTPException:
            log.debug("could not strip the buttons of message %s", message_id)
