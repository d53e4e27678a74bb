"""Buttons on a lobby message: Join, Leave, Add AI, Start.

They are ordinary :class:`~bot.messages.ui.items.GameButton` s with ``lobby.*`` codes (the
table version is 0 until the game starts), so they survive restarts like every
other button. A click refreshes the lobby message in place; Start turns it into a
short note and posts the board.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING

import discord

from bot.core.choices.adapter import Choice, Menu
from bot.core.tables import NoTable, TableInfo, TableService, TableStatus, UserError
from bot.messages.replies import display_name, private
from bot.messages.ui.items import OTHER_CHANNEL, build_view, from_elsewhere
from bot.messages.ui.texts import literal

if TYPE_CHECKING:
    from bot.messages.delivery import Delivery

__all__ = ["LOBBY_PREFIX", "LobbyClicks", "lobby_text", "lobby_view"]

log = logging.getLogger(__name__)

LOBBY_PREFIX = "lobby."
JOIN, LEAVE, ADD_AI, START = "lobby.join", "lobby.leave", "lobby.ai", "lobby.start"


def lobby_text(info: TableInfo, headline: str | None = None) -> str:
    """The lobby message: ``headline`` (already Discord text: its names made literal by
    whoever wrote it), then the table's status, which names the seats as typed."""
    status = literal(info.text)
    return f"{headline}\n{status}" if headline else status


def lobby_view(info: TableInfo, ai_levels: list[str] | None = None) -> discord.ui.View | None:
    """The lobby buttons while the table is open (``None`` once it is not)."""
    if info.status is not TableStatus.LOBBY:
        return None
    full = len(info.seats) >= info.max_players
    ready = len(info.seats) >= info.min_players
    choices = [
        Choice(JOIN, "Join", style="success", disabled=full),
        Choice(LEAVE, "Leave", style="secondary"),
    ]
    if ai_levels is None or ai_levels:
        choices.append(Choice(ADD_AI, "Add AI player", style="secondary", disabled=full))
    choices.append(Choice(START, "Start", style="primary", disabled=not ready))
    return build_view(Menu(prompt="", choices=tuple(choices)), info.id, info.version)


def _name(user: discord.abc.User) -> str:
    """The clicker's seat name, for the service (as typed, cleaned)."""
    return display_name(user)


def _shown(user: discord.abc.User) -> str:
    """The clicker's name inside a lobby headline (shown as text)."""
    return literal(display_name(user))


class LobbyClicks:
    """Handles ``lobby.*`` codes for the turn controller."""

    def __init__(self, service: TableService, delivery: Delivery) -> None:
        self.service = service
        self.delivery = delivery

    def view_for(self, info: TableInfo) -> discord.ui.View | None:
        return lobby_view(info, self.service.ai_levels(info.game_id))

    async def handle(
        self, interaction: discord.Interaction, table_id: str, code: str
    ) -> None:
        # Acknowledged before the table is read: a busy table's lock or a slow store
        # read must not eat Discord's 3 seconds. Refusals follow privately; a change
        # edits the lobby message itself (the deferred update's original).
        await interaction.response.defer()
        try:
            info = await self.service.status(table_id)
        except NoTable:
            await private(interaction, "This table no longer exists.")
            return
        # Lobby buttons live on the table's channel message only: a copy anywhere else
        # (another channel, a DM) changes nothing, not even which message is the lobby.
        if from_elsewhere(interaction, info.channel_id, private_ok=False):
            await private(interaction, OTHER_CHANNEL)
            return
        if interaction.message is not None and interaction.channel_id is not None:
            # The clicked message is the lobby message: slash commands edit it too.
            self.delivery.lobbies.remember(table_id, interaction.channel_id,
                                         interaction.message.id)
        if info.status is not TableStatus.LOBBY:
            text = {
                TableStatus.PLAYING: "The game at this table has already started.",
                TableStatus.FINISHED: "This game is over.",
            }.get(info.status, "This table was closed.")
            await private(interaction, text)
            return
        user = interaction.user
        channel = info.channel_id
        try:
            if code == JOIN:
                info = await self.service.join(channel, user.id, _name(user))
                headline = f"{_shown(user)} sat down."
            elif code == LEAVE:
                info = await self.service.leave(channel, user.id)
                headline = f"{_shown(user)} left the table."
            elif code == ADD_AI:
                info = await self.service.add_ai(channel, user.id)
                headline = "An AI player joined."
            elif code == START:
                await self._start(interaction, info)
                return
            else:
                await private(interaction, "That button is not known any more.")
                return
        except UserError as exc:  # TableError: who may do what, full tables...
            await private(interaction, str(exc))
            return
        if info.status is TableStatus.ABORTED:
            headline += " Nobody is left, so the table is closed."
            self.delivery.lobbies.forget(table_id)
        with contextlib.suppress(discord.HTTPException):
            await interaction.edit_original_response(
                content=lobby_text(info, headline),
                view=self.view_for(info),
                allowed_mentions=discord.AllowedMentions.none(),
            )

    async def _start(self, interaction: discord.Interaction, info: TableInfo) -> None:
        from bot.messages.delivery import CANNOT_POST

        # Checks first (host, enough players): a refusal is private and changes nothing.
        if info.host_id != interaction.user.id:
            await private(interaction, "Only the host of this table can start it.")
            return
        try:
            outbox = await self.service.start(info.channel_id, interaction.user.id)
        except UserError as exc:
            await private(interaction, str(exc))
            return
        self.delivery.expect(outbox)
        self.delivery.lobbies.forget(info.id)  # this very message is being closed here
        with contextlib.suppress(discord.HTTPException):
            await interaction.edit_original_response(
                content=f"{info.game_name}: the game has started.", view=None
            )
        posted = await self.delivery.deliver(outbox, interaction=interaction)
        if not posted:
            await private(interaction, CANNOT_POST)
