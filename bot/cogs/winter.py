"""``/winter ...``: Winter Tales on Discord (hands, narration, exports, the Arbiter, safety).

How the pieces fit:

* **Hands.** Each player gets ONE DM "hand message" per table: the hand picture with
  captions, their Objective, and the choices that are theirs right now as buttons and
  selects. After every change it is EDITED, never re-sent (its message id is kept in a
  small table of the bot's SQLite file, :class:`WinterStore`). ``/winter hand`` shows
  the same, ephemerally; the public "Take your turn" button does too. A click in a DM
  finds its table from the custom_id (DM interactions carry no table channel).
* **Narration.** ``/winter tell`` (text, and optionally a Story card from your OWN hand
  by autocomplete, with the side when the rules let you choose) and the "Tell" button
  (a modal for long text). A button that plays a card asks for its sentence first.
* **Export.** ``/winter story`` attaches Markdown, the HTML storybook and JSON, made from
  the PUBLIC view only; the finished game's storybook is posted in the channel.
* **The Story Arbiter** (``/winter arbiter ...``) and the anonymous ``/winter xcard``.
* **Nobody waits forever.** A table option ``interrupt_timeout`` (seconds) after which
  an undecided optional decision passes (:meth:`TableService.due_auto_passes`).

Everything secret goes only to its seat (DM or ephemeral); the channel gets the public
board, public lines, and the two public buttons.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite
import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import repost_board, service_of
from bot.tables import NoTable, Outbox, TableInfo, TableService, TableStatus
from bot.ui.adapter import Menu, UnknownChoice
from bot.ui.games.winter_tales import TEXT_KINDS, WinterUI, action_label, decision_prompt
from bot.ui.items import GameButton, GameSelect, build_view

if TYPE_CHECKING:
    from bot.client import FabletopBot
    from bot.delivery import Delivery

__all__ = [
    "DEFAULT_INTERRUPT_TIMEOUT",
    "GAME_ID",
    "Winter",
    "WinterStore",
    "prepare_options",
    "setup",
]

log = logging.getLogger(__name__)

GAME_ID = "winter-tales"
DEFAULT_INTERRUPT_TIMEOUT = 300.0
"""Seconds an optional decision (an interrupt, stepping in...) waits before it passes."""
MAX_TIMEOUT = 24 * 3600.0
EXPORT_LIMIT = 8 * 1024 * 1024
MAX_DM_HANDS = 5
"""``/winter hand`` in a DM answers with the hand of each table, up to this many."""
STALE_DM = "These buttons are from an older moment of the game; your hand message is current."

_SIDE_WORD = {"spring": "🌸 Spring", "winter": "❄️ Winter"}


def _content() -> Any:
    from engines.winter_tales.content import load_content

    return load_content()


# --------------------------------------------------------------------------- storage


@dataclass
class HandRecord:
    table_id: str
    user_id: int
    channel_id: int
    message_id: int
    signature: str
    image_sig: str


class WinterStore:
    """The DM hand message of each (table, user), each table's interrupt timeout and the
    last Winter table of each channel (so ``/winter story`` works after the end).

    Three small tables in the bot's SQLite file (memory only without a path)."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = str(path) if path is not None else None
        self.hands: dict[tuple[str, int], HandRecord] = {}
        self.timeouts: dict[str, float] = {}
        self.channels: dict[int, str] = {}
        self._loaded = False

    async def _db(self, sql: str, params: tuple[Any, ...] = ()) -> None:
        if self.path is None:
            return
        async with aiosqlite.connect(self.path) as db:
            await db.execute(sql, params)
            await db.commit()

    async def load(self) -> None:
        if self._loaded or self.path is None:
            self._loaded = True
            return
        async with aiosqlite.connect(self.path) as db:
            await db.execute(
                "CREATE TABLE IF NOT EXISTS winter_hand_messages (table_id TEXT NOT NULL,"
                " user_id INTEGER NOT NULL, channel_id INTEGER NOT NULL,"
                " message_id INTEGER NOT NULL, signature TEXT NOT NULL,"
                " image_sig TEXT NOT NULL, PRIMARY KEY (table_id, user_id))")
            await db.execute(
                "CREATE TABLE IF NOT EXISTS winter_table_settings (table_id TEXT PRIMARY KEY,"
                " interrupt_timeout REAL NOT NULL)")
            await db.execute(
                "CREATE TABLE IF NOT EXISTS winter_channel_tables (channel_id INTEGER"
                " PRIMARY KEY, table_id TEXT NOT NULL)")
            await db.commit()
            async with db.execute("SELECT * FROM winter_hand_messages") as cur:
                async for row in cur:
                    rec = HandRecord(row[0], int(row[1]), int(row[2]), int(row[3]), row[4],
                                     row[5])
                    self.hands[(rec.table_id, rec.user_id)] = rec
            async with db.execute("SELECT * FROM winter_table_settings") as cur:
                self.timeouts = {row[0]: float(row[1]) async for row in cur}
            async with db.execute("SELECT * FROM winter_channel_tables") as cur:
                self.channels = {int(row[0]): row[1] async for row in cur}
        self._loaded = True

    async def save_hand(self, rec: HandRecord) -> None:
        self.hands[(rec.table_id, rec.user_id)] = rec
        await self._db("INSERT OR REPLACE INTO winter_hand_messages VALUES (?, ?, ?, ?, ?, ?)",
                       (rec.table_id, rec.user_id, rec.channel_id, rec.message_id,
                        rec.signature, rec.image_sig))

    async def set_timeout(self, table_id: str, seconds: float) -> None:
        self.timeouts[table_id] = seconds
        await self._db("INSERT OR REPLACE INTO winter_table_settings VALUES (?, ?)",
                       (table_id, seconds))

    async def remember_channel(self, channel_id: int, table_id: str) -> None:
        if self.channels.get(channel_id) == table_id:
            return
        self.channels[channel_id] = table_id
        await self._db("INSERT OR REPLACE INTO winter_channel_tables VALUES (?, ?)",
                       (channel_id, table_id))


# --------------------------------------------------------------------------- options


def _as_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    text = str(value).strip()
    if text.lower() in ("", "none", "no", "false"):
        return []
    parts = text.replace("|", ";").split(";")
    return [p.strip() for p in parts if p.strip()]


def prepare_options(options: dict[str, Any]) -> tuple[dict[str, Any], float]:
    """Table options typed at ``/table new`` -> (engine options, interrupt timeout).

    ``lines`` and ``veils`` may be written ``lines='no spiders; no gore'`` (``none`` for
    no list); when left out the table uses the house lines and veils of the rulebook's
    safety section. ``interrupt_timeout`` (seconds, 0 = wait for ever) is a table
    setting, not a rule, so it is taken out of the engine's options.

    >>> prepare_options({"power": True, "lines": "spiders; gore", "veils": "none",
    ...                  "interrupt_timeout": 60})
    ({'power': True, 'lines': ['spiders', 'gore'], 'veils': []}, 60.0)
    """
    opts = dict(options)
    raw = opts.pop("interrupt_timeout", opts.pop("timeout", DEFAULT_INTERRUPT_TIMEOUT))
    try:
        timeout = float(raw)
    except (TypeError, ValueError) as exc:
        raise ValueError("interrupt_timeout must be a number of seconds (0 = never).") from exc
    if not 0 <= timeout <= MAX_TIMEOUT:
        raise ValueError(f"interrupt_timeout must be between 0 and {int(MAX_TIMEOUT)} seconds.")
    safety = _content().setup.safety
    for key, default in (("lines", safety.lines), ("veils", safety.veils)):
        opts[key] = _as_list(opts[key]) if key in opts else list(default)
    return opts, timeout


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
    out.append("**Lines** (never in the story): " + ("; ".join(lines) if lines else "none") + ".")
    out.append("**Veils** (off the page only): " + ("; ".join(veils) if veils else "none") + ".")
    out.append("X-card: `/winter xcard` (anonymous). Your hand comes by DM and `/winter hand`.")
    return out


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def hand_text(info: TableInfo, view: Any, legal: list[Any], news: list[str]) -> str:
    """The words of a seat's hand message (its own view only)."""
    seat = view.seat
    name = next((s.name for s in info.seats if s.index == seat), f"Seat {seat + 1}")
    faction = str(view.factions[seat]).capitalize()
    head = f"**Winter Tales — {name}'s hand** (table in <#{info.channel_id}>) · {faction}"
    if view.arbiter == seat:
        head += " · Story Arbiter"
    lines = [head]
    hand = view.hand or []
    limit = _content().setup.hand_limit
    lines.append(f"**Story cards ({len(hand)}/{limit}):**" if hand else "**No Story cards.**")
    for card in hand:
        lines.append(f"• {card_number(card.id)}**{card.title}** — "
                     f"{_SIDE_WORD['spring']}: {card.spring} · "
                     f"{_SIDE_WORD['winter']}: {card.winter}")
    mine = [o for o in view.objectives if o.seat == seat]
    for o in mine:
        state = "completed" if o.completed else "revealed" if o.revealed else "secret"
        places = ", ".join(_place(p) for p in o.locations)
        lines.append(f"**Objective ({state}):** {o.title}" + (f" — {places}" if places else ""))
    if view.trap_hidden:
        hidden = ", ".join(f"{_card_title(c)} ({s})" for c, s in view.trap_hidden)
        lines.append(f"**Hidden under your character (Trap):** {hidden}")
    # What a DM alert said (the X-card notice, a retell asked) must also be here: with
    # closed DMs this message, shown by /winter hand, is the only place it can be read.
    mine_hidden = [f"#{e.n}" for e in view.transcript if e.hidden and e.seat == seat]
    if mine_hidden:
        lines.append(f"**To retell:** your passage {', '.join(mine_hidden)} is hidden until "
                     "you tell it another way with `/winter retell`.")
    if view.arbiter == seat:
        others_hidden = [f"#{e.n}" for e in view.transcript if e.hidden and e.seat != seat]
        if others_hidden:
            lines.append(f"**Story Arbiter:** passage {', '.join(others_hidden)} is hidden "
                         "(the X-card, or a retell you asked) until its teller retells it.")
    if news:
        lines.append("**Latest:** " + " ".join(news[-3:]))
    if info.status is TableStatus.FINISHED:
        lines.append(f"**The story is over.** {info.outcome_text or ''}")
    elif info.status is TableStatus.ABORTED:
        lines.append("**This table was closed.**")
    elif legal:
        lines.append(f"**Your move:** {decision_prompt(view, legal)}")
    else:
        lines.append("Not your move right now: your choices appear here when it is.")
    text = "\n".join(lines)
    return _clip(text, 2000)


def card_number(card_id: str) -> str:
    """``story_60`` -> ``#60 `` (the number printed on the hand picture), else empty."""
    tail = card_id.rsplit("_", 1)[-1]
    return f"#{int(tail)} " if tail.isdigit() else ""


def _place(space: str) -> str:
    try:
        return str(_content().map.space(space).name)
    except (KeyError, ValueError):
        return space


def _card_title(card: str) -> str:
    try:
        return str(_content().story_card(card).title)
    except (KeyError, ValueError):
        return card


def panel_view(menus: list[Menu], table_id: str, version: int) -> discord.ui.View | None:
    """Several menus as one message's components: one row each (buttons or a select)."""
    view = discord.ui.View(timeout=None)
    for row, menu in enumerate(menus[:5]):
        if not menu.choices:
            continue
        if menu.as_select:
            select = GameSelect.from_menu(menu, table_id, version)
            select.item.row = row
            view.add_item(select)
            continue
        for choice in menu.choices[:5]:
            button = GameButton.from_choice(choice, table_id, version)
            button.item.row = row
            view.add_item(button)
    return view if view.children else None


BOARD_FIELDS = ("figures", "quests", "ongoing", "memories", "bookmark", "powers", "chapter",
                "phase", "winner", "epilogue_count")


def board_key(view: Any) -> str:
    """What the board picture shows that matters (not the card counts or the story)."""
    data = view.model_dump(mode="json") if hasattr(view, "model_dump") else dict(view)
    return _digest([data.get(k) for k in BOARD_FIELDS])


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:24]


# --------------------------------------------------------------------------- the modal


class TellModal(discord.ui.Modal):
    """A long passage. ``code`` names the action it goes with (a card play), if any."""

    def __init__(self, cog: Winter, table_id: str, version: int, code: str | None,
                 title: str) -> None:
        super().__init__(title=_clip(title, 45), timeout=900,
                         custom_id=f"ft:{table_id}:{version}:m{secrets.token_hex(6)}")
        self.cog, self.table_id, self.version, self.code = cog, table_id, version, code
        self.text: discord.ui.TextInput[TellModal] = discord.ui.TextInput(
            label="Your passage", style=discord.TextStyle.paragraph, min_length=1,
            max_length=1800, custom_id="text",
            placeholder="Tell this moment of the story in your own words…")
        self.add_item(self.text)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await self.cog.submit_text(interaction, self.table_id, self.version, self.code,
                                   str(self.text.value))

    async def on_error(self, interaction: discord.Interaction, error: Exception) -> None:
        message = str(error) if isinstance(error, ValueError) else \
            "Something went wrong; nothing was changed."
        if not isinstance(error, ValueError):
            log.exception("tell modal failed", exc_info=error)
        await _private(interaction, message)


async def _private(interaction: discord.Interaction, text: str, **kwargs: Any) -> None:
    with contextlib.suppress(discord.HTTPException):
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, **kwargs)
        else:
            await interaction.response.send_message(text, ephemeral=True, **kwargs)


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
    except ValueError:
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
    except ValueError:
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


class Winter(commands.GroupCog, name="winter", group_name="winter",
             group_description="Winter Tales: your hand, telling the story, the storybook"):
    arbiter = app_commands.Group(name="arbiter",
                                 description="The Story Arbiter's rulings (Arbiter only)")

    def __init__(self, bot: FabletopBot) -> None:
        self.bot = bot
        self.ui = WinterUI(describe=lambda a: action_label(a))
        path = getattr(getattr(bot, "settings", None), "database_path", None)
        self.store = WinterStore(path)
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}
        self._timeout_task: asyncio.Task[None] | None = None
        self._active: set[tuple[str, int]] = set()
        """(table, user) whose DM hand message shows choices (to clear once they go)."""
        self._boards: dict[str, str] = {}
        """table id -> the board (:func:`board_key`) of its last picture."""
        super().__init__()

    # -- wiring ------------------------------------------------------------------

    async def cog_load(self) -> None:
        await self.store.load()
        # Which hand messages show choices is not stored: after a restart every stored one
        # may (a move made since must still take its buttons off), so each is looked at
        # once, at its table's next delivery; unchanged ones are not edited.
        self._active |= set(self.store.hands)
        delivery: Delivery | None = getattr(self.bot, "delivery", None)
        if delivery is not None:
            delivery.game_hooks[GAME_ID] = self.deliver_hook
        turns = getattr(self.bot, "turns", None)
        if turns is not None:
            turns.hooks[GAME_ID] = self.on_click
        hooks = getattr(self.bot, "table_option_hooks", None)
        if hooks is None:
            hooks = {}
            self.bot.table_option_hooks = hooks  # type: ignore[attr-defined]
        hooks[GAME_ID] = self.table_options
        hands = getattr(self.bot, "hand_hooks", None)
        if hands is None:
            hands = {}
            self.bot.hand_hooks = hands  # type: ignore[attr-defined]
        hands[GAME_ID] = self.send_hand_ephemeral
        service: TableService | None = getattr(self.bot, "service", None)
        if service is not None and getattr(self.bot, "_start_reminders", True):
            self._timeout_task = asyncio.create_task(
                service.run_auto_passes(self.timeout_of, poll_seconds=2.0),
                name="fabletop-interrupt-timeouts")

    async def cog_unload(self) -> None:
        if self._timeout_task is not None:
            self._timeout_task.cancel()
            with contextlib.suppress(BaseException):
                await self._timeout_task

    def timeout_of(self, info: TableInfo) -> float | None:
        if info.game_id != GAME_ID:
            return None
        seconds = self.store.timeouts.get(info.id, DEFAULT_INTERRUPT_TIMEOUT)
        return seconds or None

    def table_options(self, options: dict[str, Any]
                      ) -> tuple[dict[str, Any], Callable[[TableInfo], Awaitable[None]]]:
        """The lobby's hook: split the engine options from the table's timeout."""
        opts, timeout = prepare_options(options)

        async def after(info: TableInfo) -> None:
            await self.store.set_timeout(info.id, timeout)
            await self.store.remember_channel(info.channel_id, info.id)

        return opts, after

    # -- finding the table ---------------------------------------------------------

    async def table_for(self, interaction: discord.Interaction, *, need_seat: bool = True,
                        finished: bool = False) -> TableInfo:
        """The caller's Winter Tales table: this channel's, else their only one."""
        service = service_of(interaction)
        info: TableInfo | None = None
        if interaction.channel_id is not None:
            with contextlib.suppress(NoTable):
                info = await service.status(interaction.channel_id)
            if info is None and finished:
                last = self.store.channels.get(interaction.channel_id)
                if last is not None:
                    with contextlib.suppress(NoTable):
                        info = await service.status(last)
        if info is not None and info.game_id == GAME_ID and (
                not need_seat or info.seat_of(interaction.user.id) is not None):
            return info
        if info is not None and info.game_id != GAME_ID and interaction.guild_id is not None:
            raise ValueError(f"The table in this channel plays {info.game_name}, "
                             "not Winter Tales.")
        mine = [t for t in await service.tables_of_user(interaction.user.id)
                if t.game_id == GAME_ID]
        if len(mine) == 1:
            return mine[0]
        if not mine:
            if info is not None and not need_seat:
                return info
            if info is not None:
                raise ValueError("You do not have a seat at this table.")
            raise ValueError("There is no Winter Tales table here, and you have no seat at one.")
        where = ", ".join(f"<#{t.channel_id}>" for t in mine)
        raise ValueError(f"You sit at several Winter Tales tables: use this in its channel: "
                         f"{where}.")

    # -- the hand panel ------------------------------------------------------------

    async def hand_payload(self, info: TableInfo, user_id: int, news: list[str] | None = None
                           ) -> tuple[str, discord.ui.View | None, Any, str, str]:
        """(text, components, view, signature, image signature) of a seat's hand."""
        service: TableService = self.bot.service  # type: ignore[assignment]
        view = await service.private_view(info.id, user_id)
        legal = (await service.legal_actions(info.id, user_id)
                 if info.status is TableStatus.PLAYING else [])
        text = hand_text(info, view, legal, news or [])
        if legal:
            self._active.add((info.id, user_id))
        else:
            self._active.discard((info.id, user_id))
        components = None
        if info.status is TableStatus.PLAYING:
            components = panel_view(self.ui.panels(view, legal), info.id, info.version)
        image_sig = _digest([[c.id for c in view.hand or []],
                             [o.model_dump() for o in view.objectives if o.seat == view.seat]])
        signature = _digest([text, [repr(a) for a in legal],
                             info.version if legal else None, info.status.value])
        return text, components, view, signature, image_sig

    async def hand_png(self, info: TableInfo, view: Any) -> bytes | None:
        delivery: Delivery = self.bot.delivery  # type: ignore[assignment]
        if delivery.renderer is None:
            return None
        names = [s.name for s in sorted(info.seats, key=lambda s: s.index)]
        try:
            from renderers import winter_hand

            return await asyncio.to_thread(winter_hand.render, view, names)
        except Exception:
            log.exception("rendering the hand of table %s failed", info.id)
            return None

    async def send_hand_ephemeral(self, interaction: discord.Interaction, info: TableInfo,
                                  news: list[str] | None = None) -> None:
        text, components, view, _sig, _isig = await self.hand_payload(
            info, interaction.user.id, news)
        kwargs: dict[str, Any] = {}
        png = await self.hand_png(info, view)
        if png is not None:
            kwargs["file"] = discord.File(io.BytesIO(png), filename="hand.png")
        if components is not None:
            kwargs["view"] = components
        await _private(interaction, text, **kwargs)

    async def refresh_hand(self, info: TableInfo, user_id: int, news: list[str]) -> None:
        """Bring the user's DM hand message up to date: edit it, or send it the first time."""
        delivery: Delivery = self.bot.delivery  # type: ignore[assignment]
        if await delivery.dm_memory.is_closed(user_id):
            return
        lock = self._locks.setdefault((info.id, user_id), asyncio.Lock())
        async with lock:
            try:
                # The table as it is NOW: an older delivery finishing late must not put
                # older buttons back on the message.
                info = await self.bot.service.status(info.id)  # type: ignore[union-attr]
                text, components, view, signature, image_sig = await self.hand_payload(
                    info, user_id, news)
            except ValueError:
                return
            rec = self.store.hands.get((info.id, user_id))
            if rec is not None and rec.signature == signature:
                return
            kwargs: dict[str, Any] = {"content": text, "view": components}
            png = None
            if rec is None or rec.image_sig != image_sig:
                png = await self.hand_png(info, view)
            if rec is not None:
                if png is not None:
                    kwargs["attachments"] = [discord.File(io.BytesIO(png), filename="hand.png")]
                try:
                    partial = self.bot.get_partial_messageable(
                        rec.channel_id, type=discord.ChannelType.private)
                    await partial.get_partial_message(rec.message_id).edit(**kwargs)
                    await self.store.save_hand(replace(rec, signature=signature,
                                                       image_sig=image_sig))
                    return
                except discord.NotFound:
                    png = png or await self.hand_png(info, view)  # deleted: send a new one
                except discord.HTTPException:
                    log.exception("editing the hand message of %s failed", user_id)
                    return
            if png is not None:
                kwargs["file"] = discord.File(io.BytesIO(png), filename="hand.png")
            kwargs.pop("attachments", None)
            if kwargs.get("view") is None:
                kwargs.pop("view")
            try:
                dm = await self.bot.create_dm(discord.Object(user_id))
                sent = await dm.send(**kwargs)
            except discord.Forbidden:
                await delivery.dm_memory.mark_closed(user_id)
                await self._nudge(info, user_id, first=True)
                return
            except discord.HTTPException:
                log.exception("sending the hand message to %s failed", user_id)
                return
            await self.store.save_hand(HandRecord(info.id, user_id, dm.id, sent.id, signature,
                                                  image_sig))

    async def _nudge(self, info: TableInfo, user_id: int, *, first: bool) -> None:
        text = (f"<@{user_id}>, I can't send you direct messages: use **/winter hand** here to "
                "see your cards and choices (only you see the answer)." if first else
                f"<@{user_id}>, you have private news at this table: use **/winter hand**.")
        channel = self.bot.get_partial_messageable(info.channel_id)
        with contextlib.suppress(discord.HTTPException):
            await channel.send(text, allowed_mentions=discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(user_id)]))

    # -- delivery ------------------------------------------------------------------

    async def deliver(self, outbox: Outbox, interaction: discord.Interaction | None = None
                      ) -> None:
        """Deliver an outbox made here (the board is captured first, as delivery does)."""
        await self.bot.delivery.deliver(outbox, interaction=interaction)  # type: ignore[union-attr]

    async def deliver_hook(self, outbox: Outbox, interaction: discord.Interaction | None,
                           snapshot: Any) -> None:
        """Delivery of every Winter Tales outbox: the public news (with the table's lines
        and veils at the start), private alerts by DM, hand messages edited in place,
        and the storybook once the story is over."""
        delivery: Delivery = self.bot.delivery  # type: ignore[assignment]
        service: TableService = self.bot.service  # type: ignore[assignment]
        info = outbox.table
        await self.store.remember_channel(info.channel_id, info.id)
        public = outbox.public
        if public is not None and public.kind == "start":
            with contextlib.suppress(ValueError):
                view = await service.public_view(info.id)
                public = replace(public, lines=(*public.lines, *safety_lines(view)))
        if public is not None and public.render_board and snapshot is not None:
            # A new picture only when the board itself changed (figures, Quests, the
            # Memory Track, Powers): a told passage or a card played is news, not a board.
            key = board_key(snapshot)
            if self._boards.get(info.id) == key and public.kind == "move" \
                    and not public.finished:
                public = replace(public, render_board=False)
            self._boards[info.id] = key
        alert_marks = (_content().setup.safety.x_card_private_notice[:40],
                       "The Story Arbiter asks you to retell")
        news: dict[int, list[str]] = {}
        alerts: dict[int, list[str]] = {}
        for update in outbox.private:
            alerts[update.user_id] = [x for x in update.lines if x.startswith(alert_marks)]
            news[update.user_id] = [x for x in update.lines if x not in alerts[update.user_id]
                                    and not x.startswith("Your secret information")]

        async def public_news() -> None:
            if public is not None:
                await delivery.post_public(replace(outbox, public=public), snapshot)

        async def hands() -> None:
            if info.status is TableStatus.LOBBY:
                return
            # Only the hand messages that can have changed: a seat whose secrets changed
            # (the service sends it a private update), a seat to act now, a seat whose
            # message still shows choices, or every seat when the game starts or ends.
            try:
                now = await service.status(info.id)
            except ValueError:
                return
            users = [s.user_id for s in now.seats if s.user_id is not None]
            if now.status is TableStatus.PLAYING and (public is None or public.kind != "start"):
                wanted = {u.user_id for u in outbox.private} | set(now.to_act_users) | {
                    u for (t, u) in self._active if t == now.id}
                users = [u for u in users if u in wanted
                         or (now.id, u) not in self.store.hands]
            # The hands are independent: their pictures render side by side.
            await asyncio.gather(*(self.refresh_hand(now, u, news.get(u, [])) for u in users))
            # Closed DMs: the player who just moved and still has a choice to make (the
            # next discard, the next step of a Quest) gets the hand again, privately, as
            # the DM hand message would have shown it.
            if interaction is not None and now.status is TableStatus.PLAYING:
                uid = interaction.user.id
                if uid in now.to_act_users and await delivery.dm_memory.is_closed(uid):
                    await self.send_hand_ephemeral(interaction, now, news.get(uid, []))

        await asyncio.gather(public_news(), hands())
        for user_id, lines in alerts.items():
            if lines:
                await self._alert(info, user_id, lines)
        if public is not None and public.finished:
            await self.post_storybook(info)

    async def _alert(self, info: TableInfo, user_id: int, lines: list[str]) -> None:
        """A private message that must be noticed (the X-card notice to the Arbiter, a
        request to retell): a new DM, not an edit."""
        delivery: Delivery = self.bot.delivery  # type: ignore[assignment]
        if await delivery.dm_memory.is_closed(user_id):
            await self._nudge(info, user_id, first=False)
            return
        text = f"**Winter Tales** (table in <#{info.channel_id}>): " + "\n".join(lines)
        try:
            dm = await self.bot.create_dm(discord.Object(user_id))
            await dm.send(_clip(text, 2000))
        except discord.Forbidden:
            await delivery.dm_memory.mark_closed(user_id)
            await self._nudge(info, user_id, first=True)
        except discord.HTTPException:
            log.exception("private alert to %s failed", user_id)

    async def post_storybook(self, info: TableInfo) -> None:
        try:
            files = await self.export_files(info, "all")
        except ValueError:
            return
        if sum(len(data) for _name, data in files) > EXPORT_LIMIT:
            files = [f for f in files if not f[0].endswith(".html")]
        channel = self.bot.get_partial_messageable(info.channel_id)
        with contextlib.suppress(discord.HTTPException):
            await channel.send(
                "📖 **The storybook of this Winter Tale** (Markdown, HTML and JSON).",
                files=[discord.File(io.BytesIO(data), filename=name) for name, data in files])

    async def export_files(self, info: TableInfo, fmt: str) -> list[tuple[str, bytes]]:
        """The exports of the PUBLIC view (nothing private, whatever the moment)."""
        from renderers import storybook

        service: TableService = self.bot.service  # type: ignore[assignment]
        delivery: Delivery = self.bot.delivery  # type: ignore[assignment]
        view = await service.public_view(info.id)
        names = [s.name for s in sorted(info.seats, key=lambda s: s.index)]
        board = None
        if fmt in ("all", "html"):
            board = await delivery.render_png(GAME_ID, view, info)
        title = "A Winter Tale"
        exports = await asyncio.to_thread(storybook.export, view, names, title, board)
        wanted = ("md", "html", "json") if fmt == "all" else (fmt,)
        return [(f"winter-tale-{info.id}.{ext}", exports[ext].encode("utf-8"))
                for ext in wanted]

    # -- clicks --------------------------------------------------------------------

    async def on_click(self, interaction: discord.Interaction, info: TableInfo, version: int,
                       code: str) -> None:
        """Every click on a Winter Tales button or select (channel, DM or ephemeral)."""
        user_id = interaction.user.id
        if code == "tell":
            if info.seat_of(user_id) is None:
                await _private(interaction, "These buttons are for the players at this table; "
                               "you do not have a seat.")
                return
            if info.status is not TableStatus.PLAYING:
                await _private(interaction, "This game is over." if info.status is
                               TableStatus.FINISHED else "This table is not playing.")
                return
            await interaction.response.send_modal(
                TellModal(self, info.id, info.version, None, "Tell the story"))
            return
        turns = self.bot.turns  # type: ignore[attr-defined]
        checked = await turns.refusal(interaction, info.id, version)
        if isinstance(checked, str):
            if interaction.guild_id is None and checked.startswith("This button is from"):
                checked = STALE_DM
            await _private(interaction, checked)
            return
        info = checked
        if code == self.ui.turn_code:
            await interaction.response.defer(ephemeral=True, thinking=True)
            await self.send_hand_ephemeral(interaction, info)
            return
        service: TableService = self.bot.service  # type: ignore[assignment]
        try:
            legal = await service.legal_actions(info.id, user_id)
            view = await service.private_view(info.id, user_id)
            resolution = self.ui.resolve(code, view, legal)
        except (UnknownChoice, ValueError) as exc:
            await _private(interaction, str(exc))
            return
        if resolution.menu is not None:
            menu = resolution.menu
            components = build_view(menu, info.id, version)
            kwargs = {"view": components} if components is not None else {}
            await interaction.response.send_message(menu.prompt or "Your move:",
                                                    ephemeral=True, **kwargs)
            return
        action = resolution.action
        if getattr(action, "kind", "") in TEXT_KINDS:
            await interaction.response.send_modal(TellModal(
                self, info.id, version, code, action_label(action, view)))
            return
        await interaction.response.defer()
        try:
            outbox = await service.act(info.id, user_id, action, expected_version=version)
        except ValueError as exc:
            await interaction.followup.send(str(exc), ephemeral=True)
            return
        snapshot = await self.bot.delivery.capture(outbox)  # type: ignore[union-attr]
        await self._settle(interaction, resolution.done_text)
        await self.bot.delivery.deliver(  # type: ignore[union-attr]
            outbox, interaction=interaction, snapshot=snapshot)

    async def _settle(self, interaction: discord.Interaction, done_text: str | None) -> None:
        """An ephemeral menu becomes a confirmation; a public turn message loses its
        buttons; a DM hand message is edited by the delivery that follows."""
        message = interaction.message
        if message is None or (interaction.guild_id is None and not message.flags.ephemeral):
            return
        try:
            if message.flags.ephemeral:
                await interaction.edit_original_response(content=done_text or "Done.", view=None,
                                                         attachments=[])
            else:
                await interaction.edit_original_response(view=None)
                self.bot.delivery.forget_prompt_message(message.id)  # type: ignore[union-attr]
        except discord.HTTPException:
            log.debug("could not tidy the clicked message")

    async def submit_text(self, interaction: discord.Interaction, table_id: str, version: int,
                          code: str | None, text: str) -> None:
        """A passage from the modal: with the action it goes with, or on its own."""
        service: TableService = self.bot.service  # type: ignore[assignment]
        user_id = interaction.user.id
        await interaction.response.defer(ephemeral=True, thinking=True)
        if code is None:
            outbox = await self.tell(table_id, user_id, text)
        else:
            legal = await service.legal_actions(table_id, user_id)
            view = await service.private_view(table_id, user_id)
            resolution = self.ui.resolve(code, view, legal)
            if resolution.action is None:
                raise UnknownChoice()
            action = resolution.action.model_copy(update={"text": text})
            outbox = await service.act(table_id, user_id, action, expected_version=version)
        await self.deliver(outbox, interaction)
        await interaction.followup.send("Your passage is in the story.", ephemeral=True)

    async def tell(self, table_id: str, user_id: int, text: str, card: str | None = None,
                   side: str | None = None) -> Outbox:
        """Narration: a card play with its sentence, a Tell part when due, or words added
        to the story out of turn (Golden Rule 1)."""
        service: TableService = self.bot.service  # type: ignore[assignment]
        text = text.strip()
        if not text:
            raise ValueError("Write the passage to tell: it is empty.")
        legal = await service.legal_actions(table_id, user_id)
        if card is not None:
            view = await service.private_view(table_id, user_id)
            if card not in {c.id for c in view.hand or []}:
                raise ValueError("That Story card is not in your hand.")
            plays = [a for a in legal if getattr(a, "kind", "") == "play_card"
                     and a.card == card]
            if not plays:
                if not any(getattr(a, "kind", "") == "play_card" for a in legal):
                    raise ValueError("You cannot play a Story card right now: tell without "
                                     "`card`, or wait for your part.")
                raise ValueError("That card cannot be played here.")
            sides = sorted({a.side for a in plays})
            if side is None and len(sides) > 1:
                raise ValueError("The rules let you choose the side here: add `side:` "
                                 "(Spring or Winter).")
            chosen = side or sides[0]
            if chosen not in sides:
                raise ValueError(f"Here the rules fix the side: this card can only be played "
                                 f"on the {sides[0].capitalize()} side.")
            action = next(a for a in plays if a.side == chosen)
            return await service.act(table_id, user_id,
                                     action.model_copy(update={"text": text}))
        tell = next((a for a in legal if getattr(a, "kind", "") == "tell"), None)
        if tell is not None:
            return await service.act(table_id, user_id, tell.model_copy(update={"text": text}))
        return await service.act(table_id, user_id, {"kind": "narrate", "text": text})

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
                await interaction.response.defer(ephemeral=True, thinking=True)
                for info in mine[:MAX_DM_HANDS]:
                    await self.send_hand_ephemeral(interaction, info)
                return
        info = await self.table_for(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self.send_hand_ephemeral(interaction, info)

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
        await interaction.response.defer(ephemeral=True, thinking=True)
        outbox = await self.tell(info.id, interaction.user.id, text, card, side)
        await self.deliver(outbox, interaction)
        played = ""
        if card is not None:
            played = f" with **{_card_title(card)}**"
        await interaction.followup.send(f"Told{played}. The story goes on.", ephemeral=True)

    @app_commands.command(name="story", description="Export the story so far (Markdown, HTML "
                                                    "storybook, JSON)")
    @app_commands.describe(format="Which file(s)")
    @app_commands.choices(format=FORMATS)
    async def story(self, interaction: discord.Interaction, format: str = "all") -> None:
        info = await self.table_for(interaction, need_seat=False, finished=True)
        if info.status is TableStatus.LOBBY:
            raise ValueError("The story has not begun yet.")
        await interaction.response.defer(ephemeral=True, thinking=True)
        files = await self.export_files(info, format)
        size = sum(len(d) for _n, d in files)
        await interaction.followup.send(
            f"The story so far ({len(files)} file(s), {size // 1024} KB). Struck and X-carded "
            "passages are left out.", ephemeral=True,
            files=[discord.File(io.BytesIO(d), filename=n) for n, d in files])

    @app_commands.command(name="board", description="Re-post the board with fresh buttons")
    async def board(self, interaction: discord.Interaction) -> None:
        info = await self.table_for(interaction, need_seat=False)
        if info.status is not TableStatus.PLAYING:
            raise ValueError("The game at this table is not being played right now.")
        await repost_board(interaction, info)

    @app_commands.command(name="help", description="How to play Winter Tales here")
    async def help(self, interaction: discord.Interaction) -> None:
        text = HOW_TO
        with contextlib.suppress(ValueError):
            info = await self.table_for(interaction, need_seat=False, finished=True)
            view = await service_of(interaction).public_view(info.id)
            modules = [m for m in ("power", "objective", "skill") if info.options.get(m)]
            text += (f"\n\n**This table:** {view.length} Memories; modules: "
                     f"{', '.join(modules) or 'none'}; interrupts pass after "
                     f"{int(self.store.timeouts.get(info.id, DEFAULT_INTERRUPT_TIMEOUT))} s.\n"
                     + "\n".join(safety_lines(view)[1:3]))
        await interaction.response.send_message(_clip(text, 2000), ephemeral=True)

    @app_commands.command(name="xcard", description="Anonymously hide the last passage until "
                                                    "it is retold")
    async def xcard(self, interaction: discord.Interaction) -> None:
        info = await self.table_for(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        outbox = await service_of(interaction).act(info.id, interaction.user.id,
                                                   {"kind": "x_card"})
        await self.deliver(outbox, interaction)
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
        await interaction.response.defer(ephemeral=True, thinking=True)
        outbox = await service_of(interaction).act(info.id, interaction.user.id, action)
        await self.deliver(outbox, interaction)
        await interaction.followup.send(ack, ephemeral=True)

    async def _arbiter_table(self, interaction: discord.Interaction) -> TableInfo:
        info = await self.table_for(interaction)
        view = await service_of(interaction).public_view(info.id)
        seat = info.seat_of(interaction.user.id)
        if seat is None or seat.index != view.arbiter:
            who = next((s.name for s in info.seats if s.index == view.arbiter), "the Arbiter")
            raise ValueError(f"Only the Story Arbiter ({who}) can make that ruling.")
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
