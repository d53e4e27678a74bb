"""What the cogs share (thin: parse, call the service, deliver): finding the service
and delivery, the table of a channel, the board re-post and its cooldown, option
parsing, and :class:`GameCommands`, the ``board`` and ``help`` commands every game's
group has."""

from __future__ import annotations

import math
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.tables import (
    NoTable,
    OptionGivenTwice,
    TableInfo,
    TableService,
    TableStatus,
    UnknownGame,
    UserError,
)
from bot.messages.delivery import CANNOT_POST
from bot.messages.replies import acknowledge, display_name, private
from bot.messages.ui.texts import quote

if TYPE_CHECKING:
    from bot.messages.client import FabletopBot
    from bot.messages.delivery import Delivery

__all__ = [
    "GAME_OVER",
    "NOT_READY",
    "Cooldown",
    "GameCommands",
    "delivery_of",
    "display_name",
    "game_table",
    "parse_options",
    "repost_board",
    "service_of",
]

NOT_READY = "The bot is still starting up; try again in a few seconds."
GAME_OVER = "This game is over. Start a new one with `/table new`."
"""A game's own command asked after its channel's last game ended."""


class NotReady(UserError):
    def __init__(self) -> None:
        super().__init__(NOT_READY)


def service_of(interaction: discord.Interaction) -> TableService:
    bot: FabletopBot = interaction.client  # type: ignore[assignment]
    service = getattr(bot, "service", None)
    if service is None:
        raise NotReady()
    return service


def delivery_of(interaction: discord.Interaction) -> Delivery:
    bot: FabletopBot = interaction.client  # type: ignore[assignment]
    delivery = getattr(bot, "delivery", None)
    if delivery is None:
        raise NotReady()
    return delivery


async def game_table(interaction: discord.Interaction, game_id: str, game_name: str, *,
                     finished: bool = False) -> TableInfo:
    """The table in the caller's channel, which must be playing ``game_id`` (with
    ``finished``: or the channel's last table, once its game is over)."""
    if interaction.channel_id is None:  # pragma: no cover - Discord always sends it
        raise NoTable()
    service = service_of(interaction)
    info = await (service.last_table(interaction.channel_id) if finished
                  else service.status(interaction.channel_id))
    if info.game_id != game_id:
        raise UserError(f"The table in this channel plays {info.game_name}, not {game_name}.")
    return info


DEFAULT_REPOST_COOLDOWN = 10.0
"""Seconds between two pictures one member has the bot post for one table, when the
bot has no settings (``REPOST_COOLDOWN``)."""


class Cooldown:
    """When each (member, table) last had the bot post a picture in the channel: a rate
    limit only, so it lives in memory (a restart forgets it) and holds at most ``size``
    entries, the oldest dropped first.

    >>> now = [100.0]
    >>> c = Cooldown(10, clock=lambda: now[0])
    >>> c.take(1, "t"), c.take(1, "t"), c.take(2, "t")
    (0.0, 10.0, 0.0)
    >>> now[0] += 9.5
    >>> c.take(1, "t")
    0.5
    >>> c.give_back(1, "t"); c.take(1, "t")
    0.0
    """

    def __init__(self, seconds: float, *, size: int = 4096,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = float(seconds)
        self.size = size
        self.clock = clock
        self._last: OrderedDict[tuple[int, str], float] = OrderedDict()

    def take(self, user_id: int, table_id: str) -> float:
        """0 if the member may post now (and the post is counted from now), else the
        seconds left. Checked and counted at once, so two quick commands cannot both
        pass while the first one is still drawing."""
        if self.seconds <= 0:
            return 0.0
        now = self.clock()
        key = (user_id, table_id)
        last = self._last.get(key)
        if last is not None and now - last < self.seconds:
            return self.seconds - (now - last)
        self._last[key] = now
        self._last.move_to_end(key)
        while len(self._last) > self.size:
            self._last.popitem(last=False)
        return 0.0

    def give_back(self, user_id: int, table_id: str) -> None:
        """Nothing was posted after all (the bot may not post there): the member may
        try again at once."""
        self._last.pop((user_id, table_id), None)


def cooldown_of(bot: Any) -> Cooldown:
    """A cog's own re-post cooldown, of the bot's ``REPOST_COOLDOWN`` setting."""
    seconds = getattr(getattr(bot, "settings", None), "repost_cooldown",
                      DEFAULT_REPOST_COOLDOWN)
    return Cooldown(seconds)


def check_cooldown(cooldown: Cooldown, interaction: discord.Interaction,
                   info: TableInfo) -> None:
    """Refuse a picture re-post within the cooldown (nothing is posted). Anyone may show
    the board, players or not (spectators follow the game too), once per cooldown."""
    left = cooldown.take(interaction.user.id, info.id)
    if left > 0:
        raise UserError(f"You can show the board again in {math.ceil(left)} s.")


async def repost_board(interaction: discord.Interaction, info: TableInfo, *,
                       failed: str = CANNOT_POST, cooldown: Cooldown | None = None) -> None:
    """Post ``info``'s board again with fresh buttons (a game's ``board`` command) and tell
    the caller privately whether it could be posted (``failed`` if not). ``cooldown``:
    at most one re-post per member and table in its time."""
    if cooldown is not None:
        check_cooldown(cooldown, interaction, info)
    await acknowledge(interaction)
    try:
        snapshot = await service_of(interaction).table_snapshot(info.id)
        sent = (await delivery_of(interaction).post_board(snapshot)
                if snapshot is not None else None)
    except BaseException:
        if cooldown is not None:
            cooldown.give_back(interaction.user.id, info.id)
        raise
    if sent is None and cooldown is not None:
        cooldown.give_back(interaction.user.id, info.id)
    await interaction.followup.send("Here it is." if sent is not None else failed,
                                    ephemeral=True)


class GameCommands(commands.GroupCog):
    """A game's slash command group with what every game has: ``board`` (the board
    again, with fresh buttons) and ``help`` (how to play here, with the table in this
    channel). A game's cog subclasses it, names its game and words its help."""

    game_id: ClassVar[str]
    game_name: ClassVar[str]

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.reposts = cooldown_of(bot)
        """Pictures this game's commands post in a channel (the board, an inn)."""
        super().__init__()

    def help_text(self, info: TableInfo | None, view: Any | None) -> str:
        """How to play here; ``view`` is this channel's table's public view, if any."""
        raise NotImplementedError

    async def table(self, interaction: discord.Interaction, *, finished: bool = False
                    ) -> TableInfo:
        return await game_table(interaction, self.game_id, self.game_name, finished=finished)

    @app_commands.command(name="board", description="Re-post the board with fresh turn buttons")
    async def board(self, interaction: discord.Interaction) -> None:
        # the channel's last table too: once its game is over, say so (not "no table")
        info = await self.table(interaction, finished=True)
        if info.status is TableStatus.FINISHED:
            raise UserError(GAME_OVER)
        if info.status is not TableStatus.PLAYING:
            raise UserError("The game at this table has not started yet.")
        await repost_board(interaction, info, cooldown=self.reposts)

    @app_commands.command(name="help", description="How to play this game here")
    async def help(self, interaction: discord.Interaction) -> None:
        info, view = None, None
        try:
            info = await self.table(interaction, finished=True)
            if info.status in (TableStatus.PLAYING, TableStatus.FINISHED):
                view = await service_of(interaction).public_view(info.id)
        except UserError:
            info, view = None, None
        await private(interaction, self.help_text(info, view))


_OPTION = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s,;]+)")


def parse_options(text: str | None) -> dict[str, Any]:
    """``"variant=true players=3 name='Long Night'"`` -> a dict with ints/bools/floats;
    an option named twice is refused (:class:`OptionGivenTwice`).

    >>> parse_options("variant=yes size=5 ratio=0.5 name='a b'")
    {'variant': True, 'size': 5, 'ratio': 0.5, 'name': 'a b'}
    >>> parse_options("")
    {}
    >>> parse_options("special=wand special=boots")
    Traceback (most recent call last):
    ...
    bot.core.tables.errors.OptionGivenTwice: The option 'special' is given twice: give it once.
    """
    if not text or not text.strip():
        return {}
    out: dict[str, Any] = {}
    seen: set[str] = set()
    for m in _OPTION.finditer(text):
        key, raw = m.group(1), m.group(2)
        # a second value would silently win over the first: say so instead (names are
        # compared without case, as a person reads them)
        if key.lower() in seen:
            raise OptionGivenTwice(quote(key, 30))
        seen.add(key.lower())
        out[key] = _value(raw)
    leftover = _OPTION.sub("", text).replace(",", "").replace(";", "").strip()
    if leftover:
        raise UserError(
            f"I could not read the options near '{quote(leftover, 40)}'. "
            "Write them as name=value pairs, e.g. `variant=true`."
        )
    return out


def _value(raw: str) -> Any:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    low = raw.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(raw)
    except ValueError:
        pass
    try:
        return float(raw)
    except ValueError:
        return raw


# -- choosing a game by name ---------------------------------------------------


def match_game(text: str) -> str:
    """A game id from an id or a (partial) name typed by hand."""
    games = TableService.games()
    low = text.strip().lower()
    for game_id, name in games:
        if low in (game_id, name.lower()):
            return game_id
    hits = [gid for gid, name in games if low and (low in gid or low in name.lower())]
    if len(hits) == 1:
        return hits[0]
    known = ", ".join(name for _, name in games)
    raise UnknownGame(f"There is no game called '{quote(text, 40)}'. Games: {known}.")


async def game_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    low = current.lower()
    return [
        app_commands.Choice(name=name, value=game_id)
        for game_id, name in TableService.games()
        if low in name.lower() or low in game_id
    ][:25]
