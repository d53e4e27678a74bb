"""``/treasure ...``: Save the Treasure of Fairy Tales helpers. Play itself is by buttons
(see :mod:`bot.core.choices.treasure`); these commands re-post the board and explain how
to play, with the king's walk and the pages of the table in this channel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from discord import app_commands

from bot.core.tables import TableInfo
from bot.messages.cogs.common import GameCommands
from engines.treasure import load_data

if TYPE_CHECKING:
    from bot.messages.client import FabletopBot

__all__ = ["Treasure", "setup", "treasure_help_text"]

GAME_ID = "treasure"

HOW_TO = (
    "**Playing Save the Treasure here** (everyone plays together against the king)\n"
    "1. On your turn, click a meadow tile on the turn message, then pick a direction in "
    "the private menu. The tile (and any tiles in front of it) slides until it bumps into "
    "something, or until two halves of the same fairy tale show.\n"
    "2. No pair? You may slide a second time, or press **Stop sliding**.\n"
    "3. Found a pair? You win a page! Pick a grey tile to turn green, then step your "
    "figure onto a green tile next to it.\n"
    "4. No pair after your slides: you may step, and the king walks one space (once the "
    "first page is found).\n"
    "5. After the 12th page the whole garden turns green: slide up to twice, step, and "
    "walk out through the gate (bottom-right) before the king is back at his crown!\n"
    "Remember where the halves are: once a tile covers them, nobody can see them.\n"
    "Squares are named like a map: rows A-E from the top, columns 1-5 from the left.\n"
    "`/treasure board` re-posts the board with fresh buttons."
)


def treasure_help_text(view: Any | None) -> str:
    """How to play, this table's progress (if any), and the tales in the box."""
    lines = [HOW_TO, ""]
    if view is not None:
        if view.king_walking:
            king = (f"The king has walked {view.king} of {view.path_length} spaces "
                    f"({view.path_length - view.king} to go).")
        else:
            king = "The king waits on his crown until the first page is found."
        lines.append(f"**This table:** {len(view.pages)}/{view.total_pages} pages. {king}"
                     + (" Variant: the king walks from the start." if view.variant else ""))
        if view.page_names:
            lines.append("Pages found: " + ", ".join(view.page_names) + ".")
        lines.append("")
    lines.append("**The twelve fairy tales in the box**")
    for tale in load_data().tales:
        lines.append(f"• **{tale.name}**: {tale.caption}")
    return "\n".join(lines)[:2000]


@app_commands.guild_only()
class Treasure(GameCommands, group_name="treasure",
               group_description="Save the Treasure of Fairy Tales"):
    game_id = GAME_ID
    game_name = "Save the Treasure"

    def help_text(self, info: TableInfo | None, view: Any | None) -> str:
        return treasure_help_text(view)


async def setup(bot: FabletopBot) -> None:
    await bot.add_cog(Treasure(bot))
