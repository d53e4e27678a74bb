"""``/winter ...``: Winter Tales' own commands and texts (narration, exports, the Arbiter,
safety).

The hand message each player gets by DM, its buttons and the narration form are shared
by every game (:mod:`bot.messages.delivery.hands`, :mod:`bot.messages.ui.forms`), driven by
the game's adapter (:mod:`bot.core.choices.winter_tales`); this cog adds what only Winter Tales has:

* **Narration.** ``/winter tell`` (text, and optionally a Story card from your OWN hand
  by autocomplete, with the side when the rules let you choose).
* **Export.** ``/winter story`` attaches Markdown, the HTML storybook and JSON, made from
  the PUBLIC view only; the finished game's storybook is posted in the channel.
* **The Story Arbiter** (``/winter arbiter ...``) and the anonymous ``/winter xcard``.
* **Safety.** The table's lines and veils open the game (start lines).

Everything secret goes only to its seat (DM or ephemeral); the channel gets the public
board, public lines, and the two public buttons.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.core.choices.winter_tales import card_number, thing_name
from bot.core.tables import NoTable, Outbox, TableInfo, TableStatus, UserError
from bot.messages.cogs.common import GAME_OVER, GameCommands, delivery_of, service_of
from bot.messages.replies import acknowledge
from bot.messages.ui.texts import literal, quote
from engines.core import Action, View

if TYPE_CHECKING:
    from bot.messages.client import FabletopBot

__all__ = ["GAME_ID", "Winter", "safety_lines", "setup"]

log = logging.getLogger(__name__)

GAME_ID = "winter-tales"
EXPORT_LIMIT = 8 * 1024 * 1024
MAX_DM_HANDS = 5
"""``/winter hand`` in a DM answers with the hand of each table, up to this many."""
EXPORTS = ("all", "md", "html", "json")


def _content() -> Any:
    from engines.winter_tales.content import load_content

    return load_content()


# --------------------------------------------------------------------------- texts


HOW_TO = (
    "**Playing Winter Tales here**\n"
    "• Your Story cards and Objective come by DM in ONE hand message that is kept current, "
    "with your choices of the moment as buttons. `/winter hand` shows the same privately.\n"
    "• Tell the story in your own words: `/winter tell text:` (add `card:` to play a Story "
    "card from your hand with the sentence that uses it; `side:` when the rules let you "
    "choose), or the ✍️ **Tell** button for a long passage.\n"
    "• 🎲 **Take your turn** under the board opens your private choices.\n"
    "• `/winter story` exports the story so far (Markdown, HTML storybook, JSON); "
    "`/winter board` re-posts the board.\n"
    "• Safety: `/winter xcard` hides the last passage anonymously until it is retold.\n"
    "• The Story Arbiter rules with `/winter arbiter ...` (retell, strike, bookmark, figure, "
    "count); every ruling is announced and kept in the log.\n"
    "Table options at `/table new`: `power=yes objective=yes skill=yes memories=5 "
    "lines='…; …' veils='…; …' interrupt_timeout=300`."
)


def safety_lines(view: Any) -> list[str]:
    safety = _content().setup.safety
    out = [f"**Table safety.** {safety.lines_and_veils_intro}"]
    lines, veils = list(getattr(view, "lines", []) or []), list(getattr(view, "veils", []) or [])
    # Each list is cut to fit, so a long one never pushes the start of the game out of
    # its message; what the host typed is shown as text (quote makes it literal).
    out.append("**Lines** (never in the story): "
               + (quote("; ".join(lines), 400) if lines else "none") + ".")
    out.append("**Veils** (off the page only): "
               + (quote("; ".join(veils), 400) if veils else "none") + ".")
    out.append("X-card: `/winter xcard` (anonymous). Your hand comes by DM and `/winter hand`.")
    return out


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _card_title(card: str) -> str:
    return thing_name(card)


# --------------------------------------------------------------------------- autocomplete


async def card_autocomplete(interaction: discord.Interaction, current: str
                            ) -> list[app_commands.Choice[str]]:
    """The caller's OWN hand (from their own view), never anyone else's cards."""
    cog: Winter | None = interaction.client.get_cog("winter")  # type: ignore[attr-defined]
    if cog is None:
        return []
    try:
        info = await cog.table_for(interaction)
        view = await service_of(interaction).private_view(info.id, interaction.user.id)
    except UserError:
        return []
    low = current.lower().strip()
    out = []
    for card in view.hand or []:
        label = f"{card_number(card.id)}{card.title} — 🌸 {card.spring} · ❄️ {card.winter}"
        if low and low not in label.lower():
            continue
        out.append(app_commands.Choice(name=_clip(label, 100), value=card.id))
    return out[:25]


async def entry_autocomplete(interaction: discord.Interaction, current: str
                             ) -> list[app_commands.Choice[int]]:
    """Recent passages of the public story (numbers the Arbiter and authors refer to)."""
    cog: Winter | None = interaction.client.get_cog("winter")  # type: ignore[attr-defined]
    if cog is None:
        return []
    try:
        info = await cog.table_for(interaction, need_seat=False)
        view = await service_of(interaction).private_view(info.id, interaction.user.id)
    except UserError:
        return []
    names = {s.index: s.name for s in info.seats}
    out = []
    for e in reversed(view.transcript):
        if e.seat is None or e.kind in ("setup", "chapter", "ruling"):
            continue
        text = e.text if e.text is not None else "(hidden until retold)"
        label = f"#{e.n} {names.get(e.seat, '?')}: {text}"
        if current and current.lower() not in label.lower():
            continue
        out.append(app_commands.Choice(name=_clip(label, 100), value=e.n))
        if len(out) == 25:
            break
    return out


async def character_autocomplete(interaction: discord.Interaction, current: str
                                 ) -> list[app_commands.Choice[str]]:
    low = current.lower()
    return [app_commands.Choice(name=c.name, value=c.id) for c in _content().characters
            if low in c.name.lower()][:25]


async def space_autocomplete(interaction: discord.Interaction, current: str
                             ) -> list[app_commands.Choice[str]]:
    low = current.lower()
    return [app_commands.Choice(name=s.name, value=s.id) for s in _content().map.spaces
            if low in s.name.lower()][:25]


SIDES = [app_commands.Choice(name="Spring", value="spring"),
         app_commands.Choice(name="Winter", value="winter")]
COUNT_STEPS = [app_commands.Choice(name="+1", value=1), app_commands.Choice(name="-1", value=-1)]
"""The engine lists count corrections one point at a time (arbiter.meta_actions): offering
-3..3 here let the Arbiter pick values that were then refused."""
FORMATS = [app_commands.Choice(name="All three", value="all"),
           app_commands.Choice(name="Markdown", value="md"),
           app_commands.Choice(name="HTML storybook", value="html"),
           app_commands.Choice(name="JSON", value="json")]


# --------------------------------------------------------------------------- the cog


class Winter(GameCommands, name="winter", group_name="winter",
             group_description="Winter Tales: your hand, telling the story, the storybook"):
    game_id = GAME_ID
    game_name = "Winter Tales"
    arbiter = app_commands.Group(name="arbiter",
                                 description="The Story Arbiter's rulings (Arbiter only)")

    async def table(self, interaction: discord.Interaction, *, finished: bool = False
                    ) -> TableInfo:
        return await self.table_for(interaction, need_seat=False, finished=finished)

    def help_text(self, info: TableInfo | None, view: Any | None) -> str:
        text = HOW_TO
        if info is not None and view is not None:
            modules = [m for m in ("power", "objective", "skill") if info.options.get(m)]
            text += (f"\n\n**This table:** {view.length} Memories; modules: "
                     f"{', '.join(modules) or 'none'}; interrupts pass after "
                     f"{int(info.settings.get('interrupt_timeout') or 0)} s.\n"
                     + "\n".join(safety_lines(view)[1:3]))
        return _clip(text, 2000)

    async def cog_load(self) -> None:
        delivery = getattr(self.bot, "delivery", None)
        if delivery is not None:
            delivery.turn_messages.start_lines[GAME_ID] = safety_lines
            delivery.finished.append(self.post_storybook)

    async def cog_unload(self) -> None:
        delivery = getattr(self.bot, "delivery", None)
        if delivery is not None:
            delivery.turn_messages.start_lines.pop(GAME_ID, None)
            with contextlib.suppress(ValueError):
                delivery.finished.remove(self.post_storybook)

    # -- finding the table ---------------------------------------------------------

    async def table_for(self, interaction: discord.Interaction, *, need_seat: bool = True,
                        finished: bool = False) -> TableInfo:
        """The caller's Winter Tales table: this channel's, else their only one."""
        service = service_of(interaction)
        info: TableInfo | None = None
        if interaction.channel_id is not None:
            with contextlib.suppress(NoTable):
                info = await (service.last_table(interaction.channel_id) if finished
                              else service.status(interaction.channel_id))
        if info is not None and info.game_id == GAME_ID and (
                not need_seat or info.seat_of(interaction.user.id) is not None):
            return info
        if info is not None and info.game_id != GAME_ID and interaction.guild_id is not None:
            raise UserError(f"The table in this channel plays {info.game_name}, "
                            "not Winter Tales.")
        mine = [t for t in await service.tables_of_user(interaction.user.id)
                if t.game_id == GAME_ID]
        if len(mine) == 1:
            return mine[0]
        if not mine:
            if info is not None and not need_seat:
                return info
            if info is not None:
                raise UserError("You do not have a seat at this table.")
            if await self._ended_here(interaction):
                raise UserError(GAME_OVER)
            raise UserError("There is no Winter Tales table here, and you have no seat at one.")
        where = ", ".join(f"<#{t.channel_id}>" for t in mine)
        raise UserError(f"You sit at several Winter Tales tables: use this in its channel: "
                        f"{where}.")

    @staticmethod
    async def _ended_here(interaction: discord.Interaction) -> bool:
        """Whether this channel's last table was a Winter Tales game that has ended (so a
        command for a game in play is told so, not "no table")."""
        if interaction.channel_id is None:
            return False
        with contextlib.suppress(NoTable):
            last = await service_of(interaction).last_table(interaction.channel_id)
            return last.game_id == GAME_ID and last.status is TableStatus.FINISHED
        return False

    async def send_hand(self, interaction: discord.Interaction, info: TableInfo) -> None:
        snapshot = await service_of(interaction).seat_snapshot(info.id, interaction.user.id)
        await delivery_of(interaction).hands.send_ephemeral(interaction, snapshot)

    # -- narration -------------------------------------------------------------------

    async def tell(self, interaction: discord.Interaction, info: TableInfo, text: str,
                   card: str | None = None, side: str | None = None) -> Outbox:
        """Narration: a card play with its sentence, a Tell part when due, or words added
        to the story out of turn (Golden Rule 1)."""
        text = str(text).strip()
        if not text:
            raise UserError("Write the passage to tell: it is empty.")
        if side is not None and side not in ("spring", "winter"):
            raise UserError("The side is Spring or Winter.")
        if side is not None and card is None:
            raise UserError("A side goes with a Story card: add `card:`, or tell without "
                            "`side:`.")

        def decide(_info: TableInfo, view: View, legal: list[Action]) -> Action:
            if card is None:
                tell = next((a for a in legal if getattr(a, "kind", "") == "tell"), None)
                if tell is not None:
                    return tell.model_copy(update={"text": text})
                from engines.winter_tales.state import Narrate

                return Narrate(text=text)
            if card not in {c.id for c in getattr(view, "hand", None) or []}:
                raise UserError("That Story card is not in your hand.")
            plays = [a for a in legal if getattr(a, "kind", "") == "play_card"
                     and getattr(a, "card", None) == card]
            if not plays:
                if not any(getattr(a, "kind", "") == "play_card" for a in legal):
                    raise UserError("You cannot play a Story card right now: tell without "
                                    "`card`, or wait for your part.")
                raise UserError("That card cannot be played here.")
            sides = sorted({getattr(a, "side", "") for a in plays})
            if side is not None and side not in ("spring", "winter"):
                raise UserError("The side is Spring or Winter.")
            if side is None and len(sides) > 1:
                raise UserError("The rules let you choose the side here: add `side:` "
                                "(Spring or Winter).")
            chosen = side or sides[0]
            if chosen not in sides:
                raise UserError(f"Here the rules fix the side: this card can only be played "
                                f"on the {sides[0].capitalize()} side.")
            action = next(a for a in plays if getattr(a, "side", "") == chosen)
            return action.model_copy(update={"text": text})

        result = await service_of(interaction).choose(info.id, interaction.user.id, None,
                                                      decide, out_of_turn=card is None)
        assert isinstance(result, Outbox)
        return result

    # -- the storybook -----------------------------------------------------------------

    async def post_storybook(self, outbox: Outbox) -> None:
        """Once the story is over, its storybook goes to the channel."""
        info = outbox.table
        if info.game_id != GAME_ID or outbox.public_view is None:
            return
        files = await self.export_files(info, outbox.public_view, "all")
        if sum(len(data) for _name, data in files) > EXPORT_LIMIT:
            files = [f for f in files if not f[0].endswith(".html")]
        channel = self.bot.get_partial_messageable(info.channel_id)
        with contextlib.suppress(discord.HTTPException):
            await channel.send(
                "📖 **The storybook of this Winter Tale** (Markdown, HTML and JSON).",
                files=[discord.File(io.BytesIO(data), filename=name) for name, data in files],
                allowed_mentions=discord.AllowedMentions.none(),
                nonce=f"ft{outbox.id}sb"[:25] if outbox.id is not None else None)

    async def export_files(self, info: TableInfo, view: View, fmt: str
                           ) -> list[tuple[str, bytes]]:
        """The exports of the PUBLIC view (nothing private, whatever the moment)."""
        from renderers import storybook

        names = [s.name for s in sorted(info.seats, key=lambda s: s.index)]
        board = None
        if fmt in ("all", "html"):
            board = await self.bot.delivery.pictures.render_png(GAME_ID, view, info)  # type: ignore[union-attr]
        exports = await asyncio.to_thread(storybook.export, view, names, "A Winter Tale", board)
        wanted = ("md", "html", "json") if fmt == "all" else (fmt,)
        return [(f"winter-tale-{info.id}.{ext}", exports[ext].encode("utf-8"))
                for ext in wanted]

    # -- commands --------------------------------------------------------------------

    @app_commands.command(name="hand", description="Your Story cards, Objective and choices "
                                                   "(only you see it)")
    async def hand(self, interaction: discord.Interaction) -> None:
        if interaction.guild_id is None:
            # In a DM there is no table channel to choose by: every table being played
            # answers, each hand naming its channel (its buttons carry their table).
            mine = [t for t in await service_of(interaction).tables_of_user(
                interaction.user.id) if t.game_id == GAME_ID
                and t.status is TableStatus.PLAYING]
            if len(mine) > 1:
                await acknowledge(interaction)
                for info in mine[:MAX_DM_HANDS]:
                    await self.send_hand(interaction, info)
                return
        info = await self.table_for(interaction)
        await acknowledge(interaction)
        await self.send_hand(interaction, info)

    @app_commands.command(name="tell", description="Tell the story; play a Story card with "
                                                   "the sentence that uses it")
    @app_commands.describe(text="Your passage", card="A Story card from your hand",
                           side="The side, when the rules let you choose")
    @app_commands.autocomplete(card=card_autocomplete)
    @app_commands.choices(side=SIDES)
    async def tell_command(self, interaction: discord.Interaction,
                           text: app_commands.Range[str, 1, 1800], card: str | None = None,
                           side: str | None = None) -> None:
        info = await self.table_for(interaction)
        await acknowledge(interaction)
        outbox = await self.tell(interaction, info, text, card, side)
        await delivery_of(interaction).deliver(outbox, interaction=interaction)
        played = ""
        if card is not None:
            played = f" with **{literal(_card_title(card))}**"
        await interaction.followup.send(f"Told{played}. The story goes on.", ephemeral=True)

    @app_commands.command(name="story", description="Export the story so far (Markdown, HTML "
                                                    "storybook, JSON)")
    @app_commands.describe(format="Which file(s)")
    @app_commands.choices(format=FORMATS)
    async def story(self, interaction: discord.Interaction, format: str = "all") -> None:
        if format not in EXPORTS:
            raise UserError(f"There is no export format '{quote(format, 20)}': choose "
                            "all, md, html or json.")
        info = await self.table_for(interaction, need_seat=False, finished=True)
        if info.status is TableStatus.LOBBY:
            raise UserError("The story has not begun yet.")
        await acknowledge(interaction)
        view = await service_of(interaction).public_view(info.id)
        files = await self.export_files(info, view, format)
        size = sum(len(d) for _n, d in files)
        await interaction.followup.send(
            f"The story so far ({len(files)} file(s), {size // 1024} KB). Struck and X-carded "
            "passages are left out.", ephemeral=True,
            files=[discord.File(io.BytesIO(d), filename=n) for n, d in files])

    @app_commands.command(name="xcard", description="Anonymously hide the last passage until "
                                                    "it is retold")
    async def xcard(self, interaction: discord.Interaction) -> None:
        info = await self.table_for(interaction)
        await acknowledge(interaction)
        outbox = await service_of(interaction).act(info.id, interaction.user.id,
                                                   {"kind": "x_card"})
        await delivery_of(interaction).deliver(outbox, interaction=interaction)
        await interaction.followup.send(
            "You raised the X-card. The last passage is hidden until it is retold; the "
            "Story Arbiter is told privately, and nobody is told who raised it.", ephemeral=True)

    @app_commands.command(name="retell", description="Retell one of your passages that is "
                                                     "hidden")
    @app_commands.describe(entry="The passage number", text="The new telling")
    @app_commands.autocomplete(entry=entry_autocomplete)
    async def retell(self, interaction: discord.Interaction, entry: int,
                     text: app_commands.Range[str, 1, 1800]) -> None:
        info = await self.table_for(interaction)
        await self._act(interaction, info, {"kind": "retell", "entry": entry, "text": text},
                        "Your passage is retold.")

    async def _act(self, interaction: discord.Interaction, info: TableInfo,
                   action: dict[str, Any], ack: str) -> None:
        await acknowledge(interaction)
        outbox = await service_of(interaction).act(info.id, interaction.user.id, action)
        await delivery_of(interaction).deliver(outbox, interaction=interaction)
        await interaction.followup.send(ack, ephemeral=True)

    async def _arbiter_table(self, interaction: discord.Interaction) -> TableInfo:
        info = await self.table_for(interaction)
        view = await service_of(interaction).public_view(info.id)
        seat = info.seat_of(interaction.user.id)
        if seat is None or seat.index != view.arbiter:
            who = next((literal(s.name) for s in info.seats if s.index == view.arbiter),
                       "the Arbiter")
            raise UserError(f"Only the Story Arbiter ({who}) can make that ruling.")
        return info

    @arbiter.command(name="retell", description="Arbiter: ask for a passage to be retold")
    @app_commands.describe(entry="The passage number", note="Why (announced)")
    @app_commands.autocomplete(entry=entry_autocomplete)
    async def arbiter_retell(self, interaction: discord.Interaction, entry: int,
                             note: str | None = None) -> None:
        info = await self._arbiter_table(interaction)
        await self._act(interaction, info, {"kind": "ask_retell", "entry": entry, "text": note},
                        f"Passage #{entry} is to be retold.")

    @arbiter.command(name="strike", description="Arbiter: strike a passage from the story")
    @app_commands.describe(entry="The passage number", note="Why (announced)")
    @app_commands.autocomplete(entry=entry_autocomplete)
    async def arbiter_strike(self, interaction: discord.Interaction, entry: int,
                             note: str | None = None) -> None:
        info = await self._arbiter_table(interaction)
        await self._act(interaction, info, {"kind": "strike", "entry": entry, "text": note},
                        f"Passage #{entry} is struck (kept in the audit log only).")

    @arbiter.command(name="bookmark", description="Arbiter: was the Quest linked to the "
                                                  "bookmarked Memory?")
    @app_commands.describe(made="Was the link made?", note="Why (announced)")
    async def arbiter_bookmark(self, interaction: discord.Interaction, made: bool,
                               note: str | None = None) -> None:
        info = await self._arbiter_table(interaction)
        await self._act(interaction, info, {"kind": "rule_bookmark", "made": made, "text": note},
                        "Your ruling on the Bookmark is announced.")

    @arbiter.command(name="figure", description="Arbiter (the table agrees): put a figure right")
    @app_commands.describe(character="The character", space="Where it stands",
                           incapacitated="Lying down?", note="Why (announced)")
    @app_commands.autocomplete(character=character_autocomplete, space=space_autocomplete)
    async def arbiter_figure(self, interaction: discord.Interaction, character: str, space: str,
                             incapacitated: bool = False, note: str | None = None) -> None:
        info = await self._arbiter_table(interaction)
        await self._act(interaction, info,
                        {"kind": "correct_figure", "character": character, "space": space,
                         "incapacitated": incapacitated, "text": note},
                        "The figure is corrected; the ruling is announced.")

    @arbiter.command(name="count", description="Arbiter (the table agrees): correct a count")
    @app_commands.describe(faction="Which side's count",
                           delta="One point up or down (rule again for more)",
                           note="Why (announced)")
    @app_commands.choices(faction=SIDES, delta=COUNT_STEPS)
    async def arbiter_count(self, interaction: discord.Interaction, faction: str,
                            delta: int, note: str | None = None) -> None:
        info = await self._arbiter_table(interaction)
        await self._act(interaction, info,
                        {"kind": "correct_count", "faction": faction, "delta": delta,
                         "text": note},
                        "The count is corrected; the ruling is announced.")


async def setup(bot: FabletopBot) -> None:
    await bot.add_cog(Winter(bot))
