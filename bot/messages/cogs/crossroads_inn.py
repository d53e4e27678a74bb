"""``/crossroads ...``: Crossroads Inn's own commands. Play itself is by buttons and
selects (see :mod:`bot.core.choices.crossroads_inn`): the turn message in the channel walks
the active innkeeper through the nine steps, and each player's Recipes (and Basic Inn
Tiles during the draft) come in their DM hand message and ``/hand``.

* ``/crossroads inn player:`` (or ``seat:``) shows one inn, large (only to you, or in
  the channel with ``public:``), drawn from the PUBLIC view: an inn is on the table.
* ``/crossroads kingdom`` the Kingdom Cards in play and the combinations chart.
* ``/crossroads board`` and ``/crossroads help`` as every game has.

The start message names the Kingdom Cards in play and their kind on the chart.
"""

from __future__ import annotations

import contextlib
import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.core.choices.crossroads_inn import (
    KIND_WORDS,
    OPTIONS_HELP,
    chart_text,
    kingdom_line,
    letter,
)
from bot.core.tables import TableInfo, TableStatus, UserError
from bot.messages.cogs.common import GameCommands, check_cooldown, delivery_of, service_of
from bot.messages.replies import acknowledge, display_name, private
from bot.messages.ui.texts import literal

if TYPE_CHECKING:
    from bot.messages.client import FabletopBot

__all__ = ["GAME_ID", "Crossroads", "kingdom_text", "setup", "start_lines"]

log = logging.getLogger(__name__)

GAME_ID = "crossroads-inn"

HOW_TO = (
    "**Playing Crossroads Inn here**\n"
    "• On your turn the turn message walks you through the nine steps: each step offers "
    "only what you may do, with its cost and effect; **Skip** goes on to the next step, "
    "**Take back** undoes your last step (not a draw or a roll), and **End my turn** "
    "confirms it. Everyone sees each step on the same message.\n"
    "• Your Recipes (and, during the draft, your Basic Inn Tiles) come by DM in ONE hand "
    "message kept current, with all your choices as buttons; `/hand` shows the same "
    "privately. Cooking a Recipe is chosen there.\n"
    "• `/crossroads inn` shows one inn large; `/crossroads kingdom` the Kingdom Cards and "
    "the combinations chart; `/crossroads board` re-posts the board.\n"
    f"• Options at `/table new`: {OPTIONS_HELP}."
)


def _content() -> Any:
    from engines.crossroads_inn.content import load_content

    return load_content()


def kingdom_text(numbers: list[int] | None) -> str:
    """The Kingdom Cards of a table (or all ten) and the chart of combinations."""
    c = _content()
    lines = []
    cards = [c.kingdom_card(n) for n in numbers] if numbers else list(c.kingdom_cards)
    if numbers:
        lines.append(f"**In play at this table:** {kingdom_line(numbers)}")
    elif numbers is not None:
        lines.append("**This table plays without Kingdom Cards.** The ten cards:")
    else:
        lines.append("**The ten Kingdom Cards** (two are used per game):")
    for card in cards:
        lines.append(f"• **#{card.number} {card.title}** — {card.rule_text}")
    lines.append("")
    lines.append("**Chart of combinations** (which pairs play well together)")
    lines.append(chart_text())
    lines.append(f"Kinds: {', '.join(KIND_WORDS.values())}. Choose two at `/table new` with "
                 "`kingdom=1+5` (or `kingdom=random`).")
    text = "\n".join(lines)
    if len(text) > 2000 and numbers:
        text = text[:1990] + "…"
    return text[:2000]


def start_lines(view: Any) -> list[str]:
    """Extra lines of the start message: the Kingdom Cards in play and the draft."""
    out = [f"**In play: {kingdom_line(list(view.kingdom))}** (`/crossroads kingdom`)."
           if view.kingdom else "No Kingdom Cards in this game."]
    if view.phase == "draft":
        out.append("First the Basic Inn Tile draft: pick in your hand message (DM or `/hand`).")
    return out


def crossroads_help_text(info: TableInfo | None, view: Any | None) -> str:
    lines = [HOW_TO]
    if info is not None and view is not None:
        lines.append("")
        lines.append(f"**This table:** {kingdom_line(list(view.kingdom))}; "
                     f"{view.deck} Recipes in the deck.")
    lines.append("")
    lines.append("**Kingdom Cards chart**")
    lines.append(chart_text())
    return "\n".join(lines)[:2000]


@app_commands.guild_only()
class Crossroads(GameCommands, name="crossroads", group_name="crossroads",
                 group_description="Crossroads Inn: the inns, the Kingdom Cards"):
    game_id = GAME_ID
    game_name = "Crossroads Inn"

    def help_text(self, info: TableInfo | None, view: Any | None) -> str:
        return crossroads_help_text(info, view)

    async def cog_load(self) -> None:
        delivery = getattr(self.bot, "delivery", None)
        if delivery is not None:
            delivery.turn_messages.start_lines[GAME_ID] = start_lines

    async def cog_unload(self) -> None:
        delivery = getattr(self.bot, "delivery", None)
        if delivery is not None:
            with contextlib.suppress(KeyError):
                del delivery.turn_messages.start_lines[GAME_ID]

    @app_commands.command(name="inn", description="One innkeeper's inn, large")
    @app_commands.describe(player="Whose inn (default: yours, else the active player's)",
                           seat="Or the seat number, as /table status shows it",
                           public="Post it in the channel for everyone (default: only you)")
    async def inn(self, interaction: discord.Interaction,
                  player: discord.Member | None = None,
                  seat: app_commands.Range[int, 1, 4] | None = None,
                  public: bool = False) -> None:
        info = await self.table(interaction, finished=True)
        if info.status not in (TableStatus.PLAYING, TableStatus.FINISHED):
            raise UserError("The game at this table has not started yet.")
        if player is not None and seat is not None:
            raise UserError("Name the inn by player or by seat, not both.")
        view = await service_of(interaction).public_view(info.id)
        index = self._seat_index(info, view, interaction.user.id, player, seat)
        if public:
            # A picture in the channel: the same cooldown as the board's re-post.
            check_cooldown(self.reposts, interaction, info)
        await acknowledge(interaction)
        names = [s.name for s in sorted(info.seats, key=lambda s: s.index)]
        held = info.seat_of(interaction.user.id)
        # Only a picture for its owner alone speaks to them; in the channel it is named.
        mine = not public and held is not None and held.index == index
        png = await self._render_inn(interaction, view, names, index, mine)
        owner = "Your inn" if mine else f"{literal(names[index])}'s inn"
        text = (f"**{owner}** (player {letter(index)}): "
                f"{view.seats[index].covered}/16 "
                f"spaces covered, Prestige {view.seats[index].prestige}.")
        if png is None:
            if public:
                self.reposts.give_back(interaction.user.id, info.id)  # nothing was posted
            await interaction.followup.send(text + " (The picture could not be drawn.)",
                                            ephemeral=True)
            return
        file = discord.File(io.BytesIO(png), filename="inn.png")
        if not public:
            await interaction.followup.send(text, file=file, ephemeral=True)
            return
        channel = self.bot.get_partial_messageable(info.channel_id)
        try:
            await channel.send(text, file=file, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException:
            self.reposts.give_back(interaction.user.id, info.id)  # nothing was posted
            await interaction.followup.send("I could not post in this channel.", ephemeral=True)
            return
        await interaction.followup.send("Here it is.", ephemeral=True)

    @staticmethod
    def _seat_index(info: TableInfo, view: Any, user_id: int, player: Any, seat: int | None
                    ) -> int:
        if seat is not None:
            if not 1 <= seat <= len(info.seats):
                raise UserError(f"This table has seats 1 to {len(info.seats)}.")
            return seat - 1
        if player is not None:
            held = info.seat_of(player.id)
            if held is None:
                raise UserError(f"{literal(display_name(player))} has no seat at this table.")
            return held.index
        mine = info.seat_of(user_id)
        if mine is not None:
            return mine.index
        return int(view.active) if view.active is not None else 0

    async def _render_inn(self, interaction: discord.Interaction, view: Any, names: list[str],
                          index: int, mine: bool) -> bytes | None:
        """One inn of the PUBLIC view (``part="inn:<seat>"``), off the event loop;
        ``mine``: titled for its owner, who alone sees it."""
        delivery = delivery_of(interaction)
        if delivery.pictures.renderer is None:
            return None
        try:
            return await delivery.pictures.draw(GAME_ID, view, names=names,
                                                part=f"inn:{index}",
                                                viewer=index if mine else None)
        except Exception:  # the text still goes out
            log.exception("drawing inn %s failed", index)
            return None

    @app_commands.command(name="kingdom",
                          description="The Kingdom Cards in play and the combinations chart")
    async def kingdom(self, interaction: discord.Interaction) -> None:
        numbers: list[int] | None = None
        with contextlib.suppress(UserError):
            info = await self.table(interaction, finished=True)
            if info.status in (TableStatus.PLAYING, TableStatus.FINISHED):
                numbers = list((await service_of(interaction).public_view(info.id)).kingdom)
            elif info.status is TableStatus.LOBBY:
                chosen = str(info.options.get("kingdom", "none"))
                if "+" in chosen:
                    numbers = [int(x) for x in chosen.split("+")]
        await private(interaction, kingdom_text(numbers))


async def setup(bot: FabletopBot) -> None:
    await bot.add_cog(Crossroads(bot))
