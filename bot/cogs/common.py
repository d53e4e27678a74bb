"""Small helpers shared by the cogs (thin: parse, call the service, deliver)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord

from bot.delivery import CANNOT_POST
from bot.tables import NoTable, TableInfo, TableService

if TYPE_CHECKING:
    from bot.client import FabletopBot
    from bot.delivery import Delivery

__all__ = [
    "NOT_READY",
    "delivery_of",
    "display_name",
    "game_table",
    "parse_options",
    "repost_board",
    "service_of",
]

NOT_READY = "The bot is still starting up; try again in a few seconds."


class NotReady(ValueError):
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


async def game_table(interaction: discord.Interaction, game_id: str, game_name: str) -> TableInfo:
    """The table in the caller's channel, which must be playing ``game_id``."""
    if interaction.channel_id is None:  # pragma: no cover - Discord always sends it
        raise NoTable()
    info = await service_of(interaction).status(interaction.channel_id)
    if info.game_id != game_id:
        raise ValueError(f"The table in this channel plays {info.game_name}, not {game_name}.")
    return info


async def repost_board(interaction: discord.Interaction, info: TableInfo, *,
                       failed: str = CANNOT_POST) -> None:
    """Post ``info``'s board again with fresh buttons (a game's ``board`` command) and tell
    the caller privately whether it could be posted (``failed`` if not)."""
    await interaction.response.defer(ephemeral=True, thinking=True)
    sent = await delivery_of(interaction).post_board(info)
    await interaction.followup.send("Here it is." if sent is not None else failed,
                                    ephemeral=True)


def display_name(user: discord.abc.User) -> str:
    """A readable seat name (mentions and markdown stripped: names end up in images)."""
    name = getattr(user, "display_name", None) or user.name
    name = discord.utils.escape_mentions(discord.utils.remove_markdown(name)).strip()
    return name[:32] or f"Player {str(user.id)[-4:]}"


_OPTION = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s,;]+)")


def parse_options(text: str | None) -> dict[str, Any]:
    """``"variant=true players=3 name='Long Night'"`` -> a dict with ints/bools/floats.

    >>> parse_options("variant=yes size=5 ratio=0.5 name='a b'")
    {'variant': True, 'size': 5, 'ratio': 0.5, 'name': 'a b'}
    >>> parse_options("")
    {}
    """
    if not text or not text.strip():
        return {}
    out: dict[str, Any] = {}
    for m in _OPTION.finditer(text):
        key, raw = m.group(1), m.group(2)
        out[key] = _value(raw)
    leftover = _OPTION.sub("", text).replace(",", "").replace(";", "").strip()
    if leftover:
        raise ValueError(
            f"I could not read the options near '{leftover[:40]}'. "
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
