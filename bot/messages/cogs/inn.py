"""``/inn ...``: Fairy Tale Inn helpers. Play itself is by buttons (see
:mod:`bot.core.choices.fairy_tale_inn`); these commands re-post the board and explain
the characters and rooms of the table in this channel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from discord import app_commands

from bot.core.tables import TableInfo
from bot.messages.cogs.common import GameCommands
from engines import get_game

if TYPE_CHECKING:
    from bot.messages.client import FabletopBot

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


@app_commands.guild_only()
class Inn(GameCommands, group_name="inn", group_description="Fairy Tale Inn"):
    game_id = GAME_ID
    game_name = "Fairy Tale Inn"

    def help_text(self, info: TableInfo | None, view: Any | None) -> str:
        return inn_help_text(view)


async def setup(bot: FabletopBot) -> None:
    await bot.add_cog(Inn(bot))
