"""``/pocket ...``: Fairy Tale in My Pocket's own commands. Play itself is by buttons
(see :mod:`bot.core.choices.pocket`): the turn message carries every choice of the moment
for the player who leads the peasant this turn.

* ``/pocket hint`` a suggested move and why, only for the asker: the ``hint`` AI
  (:func:`engines.agents.pocket.hint`) on the table as it is now, in a worker thread. It
  plans over the worlds the players cannot tell apart, never the real deck or stacks, and
  plays nothing. The same question at the same moment gets the same answer (its
  generator is seeded from the table id and version).
* ``/pocket board`` and ``/pocket help`` as every game has.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.core.choices import get_ui
from bot.core.tables import TableInfo, TableStatus, UserError
from bot.messages.cogs.common import GAME_OVER, GameCommands, service_of
from bot.messages.replies import acknowledge
from bot.messages.ui.texts import literal
from engines.agents.pocket import hint as suggest_move
from engines.core import Rng

if TYPE_CHECKING:
    from bot.messages.client import FabletopBot

__all__ = ["GAME_ID", "Pocket", "hint_seed", "hint_text", "pocket_help_text", "setup"]

GAME_ID = "pocket"

HOW_TO = (
    "**Playing Fairy Tale in My Pocket here** (all together: one peasant, and you take "
    "turns leading it)\n"
    "1. Pick a rose in the Rose Garden, wake the princess at the Cottage with it, find the "
    "Forest Path into the Kingdom and bring her to the Castle before the sun sets.\n"
    "2. The turn message has a button for every choice of the moment (explore, go back, "
    "fight or run, help, shop, rest). Only the player leading the peasant can click; the "
    "next one leads after the rest. Every card drawn is time; the sun sets after three "
    "passes through the deck.\n"
    "`/pocket hint` suggests a move and why (only you see it); `/pocket board` re-posts "
    "the board. Option at `/table new`: `special=random|mirror|wand|boots`."
)

GIFT_WORDS = {"mirror": "see two tiles when you explore, keep one",
              "wand": "+2 Defense in a fight",
              "boots": "go to any tile on the map"}


def _content() -> Any:
    from engines.pocket.content import load_content

    return load_content()


def pocket_help_text(view: Any | None) -> str:
    """How to play, this table's peasant (if any), and what the items do."""
    c = _content()
    lines = [HOW_TO]
    if view is not None:
        goals = view.goals
        done = [word for word, ok in (("the rose", goals.rose),
                                      ("the princess awake", goals.princess),
                                      ("the Kingdom Path found", goals.kingdom_path))
                if ok]
        items = ", ".join(i.name for i in view.items) or "nothing"
        lines.append(
            f"**This table:** {view.time_name}, {view.deck} cards left in the deck. "
            f"Health {view.health}/{view.max_health}, "
            f"gold {view.gold}/{view.max_gold}, Defense {view.defense.total}. "
            f"Gift: the {view.special_name}. Carrying: {items}. "
            + (f"Done: {', '.join(done)}." if done else "No goal reached yet."))
    lines.append(f"**The gifts** (one per game, {c.rules.special_cost} gold a use): "
                 + ", ".join(f"{c.special(k).name} ({GIFT_WORDS[k]})" for k in GIFT_WORDS)
                 + ".")
    lines.append(f"**The items** (price in gold; carry up to {c.rules.item_limit})")
    lines += [f"• **{i.name}** ({i.price}): {i.text}" for i in c.items]
    return "\n".join(lines)[:2000]


def hint_seed(table_id: str, version: int) -> int:
    """The hint's seed: the same table at the same version gets the same hint (a
    process's ``hash`` differs from run to run, a digest does not).

    >>> hint_seed("t1", 4) == hint_seed("t1", 4) != hint_seed("t1", 5)
    True
    """
    digest = hashlib.sha256(f"pocket-hint:{table_id}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def hint_text(label: str, why: str, *, leader: str | None) -> str:
    """The hint's answer: the move, its reason, and whose move it is (``leader``: the
    player in control, when that is not the asker)."""
    head = "**Hint**" if leader is None else f"**Hint for {leader}** (the player in control)"
    return (f"{head}: **{label}**\n{why}\n"
            "(Only you see this; nothing was played.)")


@app_commands.guild_only()
class Pocket(GameCommands, group_name="pocket",
             group_description="Fairy Tale in My Pocket: hints, the board"):
    game_id = GAME_ID
    game_name = "Fairy Tale in My Pocket"

    def help_text(self, info: TableInfo | None, view: Any | None) -> str:
        return pocket_help_text(view)

    @app_commands.command(name="hint", description="A suggested move and why (only you see it)")
    async def hint(self, interaction: discord.Interaction) -> None:
        info = await self.table(interaction, finished=True)
        if info.status is TableStatus.FINISHED:
            raise UserError(f"{GAME_OVER} There is no move left to suggest.")
        if info.status is not TableStatus.PLAYING:
            raise UserError("The game at this table has not started yet.")
        mine = info.seat_of(interaction.user.id)
        if mine is None:
            raise UserError("Hints are for the players at this table, and you do not have a "
                            "seat. Ask the host to seat you next time!")
        leader = next((s for s in info.seats if s.index in info.to_act), None)
        if leader is None:
            raise UserError("Nobody is to move right now.")
        if leader.is_ai:
            raise UserError(f"{leader.name} (an AI) is leading the peasant now: ask again on "
                            "a person's turn.")
        await acknowledge(interaction)
        game, state, version = await self._state(interaction, info)
        acting = game.to_act(state)
        seat = acting[0] if acting else leader.index
        # a search of a few hundred playouts: off the event loop
        action, why = await asyncio.to_thread(
            suggest_move, game, state, seat, Rng.from_seed(hint_seed(info.id, version)))
        label = get_ui(GAME_ID).label(action, game.view(state, None))
        name = next((s.name for s in info.seats if s.index == seat), leader.name)
        text = hint_text(label, why, leader=None if seat == mine.index else literal(name))
        await interaction.followup.send(text[:2000], ephemeral=True)

    @staticmethod
    async def _state(interaction: discord.Interaction, info: TableInfo
                     ) -> tuple[Any, Any, int]:
        """The game, a copy of the table's state and its version: the service's views
        carry no hidden parts, and the search needs the whole state to reshuffle them
        itself (it never reads their real order)."""
        return await service_of(interaction).state_for_search(info.id)


async def setup(bot: FabletopBot) -> None:
    await bot.add_cog(Pocket(bot))
