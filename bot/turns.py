"""What happens when someone clicks a game button or select.

Checks come first and answer privately without changing anything: an unknown or
ended table, a button from an older version (stale), a clicker without a seat or
whose turn it is not (foreign). Then the game's UI adapter turns the code into a
follow-up menu (sent ephemerally to the clicker) or an action, which is played with
``expected_version`` so two quick clicks can never make two moves: the service
commits the move before anything is sent, then delivery posts the news.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import discord

from bot.delivery import CANNOT_POST
from bot.tables import NoTable, TableInfo, TableService, TableStatus
from bot.ui.adapter import UnknownChoice
from bot.ui.items import build_view
from bot.ui.lobby import LOBBY_PREFIX, LobbyClicks

if TYPE_CHECKING:
    from bot.delivery import Delivery

__all__ = ["TurnController", "names_of"]

log = logging.getLogger(__name__)

ClickHook = Callable[[discord.Interaction, TableInfo, int, str], Awaitable[None]]
"""``hook(interaction, table info, version, code)`` for one game's clicks."""

ANNOUNCE_FAILED = (
    "It is saved, but I could not announce it in the channel; the game's `board` "
    "command shows the table as it is now."
)

STALE = (
    "This button is from an older turn; the table has moved on. "
    "Use the latest message in the channel."
)


def names_of(info: TableInfo, seats: tuple[int, ...]) -> str:
    names = [s.name for s in info.seats if s.index in seats]
    if not names:
        return "nobody"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class TurnController:
    """The click handler behind every :class:`~bot.ui.items.GameButton`."""

    def __init__(self, service: TableService, delivery: Delivery) -> None:
        self.service = service
        self.delivery = delivery
        self.lobby = LobbyClicks(service, delivery)
        self.hooks: dict[str, ClickHook] = {}
        """game id -> a click handler of its own (modals, DM hand messages); it gets the
        table info and does its own checks (:meth:`refusal` is there to reuse)."""

    async def _private(self, interaction: discord.Interaction, text: str) -> None:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)

    async def refusal(
        self, interaction: discord.Interaction, table_id: str, version: int
    ) -> str | TableInfo:
        """The reason this click cannot count, or the table info if it can."""
        try:
            info = await self.service.status(table_id)
        except NoTable:
            return "This table no longer exists."
        if info.status is TableStatus.FINISHED:
            return "This game is over."
        if info.status is TableStatus.ABORTED:
            return "This table was closed."
        if info.status is not TableStatus.PLAYING:
            return "This game has not started yet."
        if version != info.version:
            return STALE
        seat = info.seat_of(interaction.user.id)
        if seat is None:
            return (
                "These buttons are for the players at this table; you do not have a seat. "
                f"It is {names_of(info, info.to_act)}'s turn."
            )
        if seat.index not in info.to_act:
            return f"It is not your turn; it is {names_of(info, info.to_act)}'s turn."
        return info

    async def handle_click(
        self, interaction: discord.Interaction, table_id: str, version: int, code: str
    ) -> None:
        try:
            await self._handle(interaction, table_id, version, code)
        except Exception:
            # Never leave a click unanswered ("This interaction failed").
            log.exception("click %s on table %s failed", code, table_id)
            with contextlib.suppress(discord.HTTPException):
                await self._private(interaction, "Something went wrong; nothing was changed.")

    async def _handle(
        self, interaction: discord.Interaction, table_id: str, version: int, code: str
    ) -> None:
        if code.startswith(LOBBY_PREFIX):
            await self.lobby.handle(interaction, table_id, code)
            return
        if self.hooks:
            try:
                found = await self.service.status(table_id)
            except NoTable:
                found = None
            hook = self.hooks.get(found.game_id) if found is not None else None
            if hook is not None and found is not None:
                await hook(interaction, found, version, code)
                return
        checked = await self.refusal(interaction, table_id, version)
        if isinstance(checked, str):
            await self._private(interaction, checked)
            return
        info = checked
        user_id = interaction.user.id
        try:
            legal = await self.service.legal_actions(table_id, user_id)
            view = await self.service.private_view(table_id, user_id)
            resolution = self.delivery.ui_for(info.game_id).resolve(code, view, legal)
        except (UnknownChoice, ValueError) as exc:
            await self._private(interaction, str(exc))
            return

        if resolution.menu is not None:
            menu = resolution.menu
            components = build_view(menu, table_id, version)
            kwargs = {"view": components} if components is not None else {}
            await interaction.response.send_message(
                menu.prompt or "Your move:", ephemeral=True, **kwargs
            )
            return

        # Acknowledge now: the move, the store commit and the board picture may take
        # longer than the 3 seconds Discord allows before a first answer.
        await interaction.response.defer()
        try:
            outbox = await self.service.act(
                table_id, user_id, resolution.action, expected_version=version
            )
        except ValueError as exc:  # TableError and GameError: plain-English reasons
            await interaction.followup.send(str(exc), ephemeral=True)
            return
        # From here on the move is committed: a failure must not claim otherwise.
        problem = None
        try:
            snapshot = await self.delivery.capture(outbox)  # before any network wait
            await self._settle_clicked_message(interaction, resolution.done_text)
            posted = await self.delivery.deliver(
                outbox, interaction=interaction, snapshot=snapshot
            )
            problem = None if posted else CANNOT_POST
        except Exception:
            log.exception("announcing move %s of table %s failed", outbox.version, table_id)
            problem = ANNOUNCE_FAILED
        if problem is not None:
            with contextlib.suppress(discord.HTTPException):
                await interaction.followup.send(
                    f"{resolution.done_text or 'Your move was played.'} {problem}",
                    ephemeral=True,
                )

    async def _settle_clicked_message(
        self, interaction: discord.Interaction, done_text: str | None
    ) -> None:
        """The clicked message has served: an ephemeral menu becomes a confirmation;
        a public turn message loses its buttons."""
        message = interaction.message
        try:
            if message is not None and message.flags.ephemeral:
                await interaction.edit_original_response(content=done_text or "Done.", view=None)
            else:
                await interaction.edit_original_response(view=None)
                if message is not None:
                    self.delivery.forget_prompt_message(message.id)
        except discord.HTTPException:
            log.debug("could not tidy the clicked message")
