"""``/inn ...``: Fairy Tale Inn helpers. Play itself is by buttons (see
:mod:`bot.ui.games.fairy_tale_inn`); these commands re-post the board and explain
the characters and rooms of the table in this channel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import game_table, repost_board, service_of
from bot.tables import TableInfo, TableStatus
from engines import get_game

if TYPE_CHECKING:
    from bot.client import FabletopBot

__all__ = ["Inn", "inn_help_text", "setup"]

GAME_ID = "fairy-tale-inn"

HOW_TO = (
    "**Playing Fairy Tale Inn here**\n"
    "On your turn the board message has one button per Guest List slot (character and "
    "cost). Click one, then pick a column in the private menu that opens. If a room "
    "offers an extra turn, or the Pied Piper's Rat needs a column, the turn message asks "
    "with its own buttons. Only the player whose turn it is can click; an old message's "
    "buttons just tell you to use the newest one.\n"
    "`/inn board` re-posts the board with fresh buttons; `/table status` shows the seats."
)


def _rooms_text(rooms: list[Any]) -> str:
    by_label: dict[str, list[str]] = {}
    for room in rooms:
        by_label.setdefault(room.label, []).append(f"({room.column},{room.row})")
    return "\n".join(f"• {label}: {' '.join(cells)}" for label, cells in by_label.items())


def inn_help_text(view: Any | None) -> str:
    """How to play, the characters (of this table, or all) and the special rooms."""
    game = get_game(GAME_ID)
    lines = [HOW_TO, ""]
    if view is not None:
        lines.append("**Characters at this table**")
        for c in view.characters:
            lines.append(f"• **{c.name}** — {c.text}")
        lines.append("")
        lines.append("**Special rooms** (column, row; row 1 is the bottom)")
        lines.append(_rooms_text(view.rooms))
    else:
        data = game.data  # type: ignore[attr-defined]
        lines.append("**Characters** (5 of these 8 are used in each game)")
        for c in data.characters:
            lines.append(f"• **{c.name}** — {c.text}")
    return "\n".join(lines)[:2000]


async def _inn_table(interaction: discord.Interaction) -> TableInfo:
    return await game_table(interaction, GAME_ID, "Fairy Tale Inn")


@app_commands.guild_only()
class Inn(commands.GroupCog, group_name="inn", group_description="Fairy Tale Inn"):
    def __init__(self, bot: FabletopBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="board", description="Re-post the board with fresh turn buttons")
    async def board(self, interaction: discord.Interaction) -> None:
        info = await _inn_table(interaction)
        if info.status is not TableStatus.PLAYING:
            raise ValueError("The game at this table has not started yet.")
        await repost_board(interaction, info)

    @app_commands.command(name="help", description="How to play, the characters and the rooms")
    async def help(self, interaction: discord.Interaction) -> None:
        view = None
        try:
            info = await _inn_table(interaction)
            if info.status is TableStatus.PLAYING:
                view = await service_of(interaction).public_view(info.id)
        except ValueError:
            view = None
        await interaction.response.send_message(inn_help_text(view), ephemeral=True)


async def setup(bot: FabletopBot) -> None:
    await bot.add_cog(Inn(bot))
