"""``/admin ...``: owner-only maintenance (publishing the slash commands)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.tables import UserError
from bot.messages.replies import acknowledge

if TYPE_CHECKING:
    from bot.messages.client import FabletopBot

__all__ = ["Admin", "setup"]

NOT_OWNER = "Only the bot's owner can use /admin commands."


async def is_owner(interaction: discord.Interaction) -> bool:
    bot: FabletopBot = interaction.client  # type: ignore[assignment]
    if await bot.is_owner(interaction.user):
        return True
    raise app_commands.CheckFailure(NOT_OWNER)


@app_commands.default_permissions(administrator=True)
class Admin(commands.GroupCog, group_name="admin", group_description="Bot owner tools"):
    def __init__(self, bot: FabletopBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="sync", description="Owner: publish the slash commands")
    @app_commands.describe(scope="here: this server (instant); global: every server (slow)")
    @app_commands.check(is_owner)
    async def sync(
        self, interaction: discord.Interaction, scope: Literal["here", "global"] = "here"
    ) -> None:
        if scope not in ("here", "global"):  # an old or forged registration
            raise UserError("The scope is here (this server) or global (every server).")
        await acknowledge(interaction)
        guild_id = interaction.guild_id if scope == "here" else None
        if scope == "here" and guild_id is None:
            raise UserError("There is no server here; use scope:global.")
        synced = await self.bot.sync_commands(guild_id)
        where = "this server" if guild_id else "every server (may take up to an hour)"
        await interaction.followup.send(
            f"Published {len(synced)} commands to {where}.", ephemeral=True
        )


async def setup(bot: FabletopBot) -> None:
    await bot.add_cog(Admin(bot))
