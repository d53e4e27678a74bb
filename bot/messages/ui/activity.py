"""The "Open the board" button: the table's Activity, launched from its turn message.

The button is one more :class:`~bot.messages.ui.items.GameButton` (``ft:<table>:<version>:
activity``): its custom_id says only which table and which turn message it sits on, both
public, and the click is answered with Discord's LAUNCH_ACTIVITY callback before
anything is read (:meth:`bot.messages.clicks.TurnController.handle_click`). The board
that opens finds the channel's table by itself. It is shown only when this process
serves the Activity (``WEB_PORT``, :func:`configure`).
"""

from __future__ import annotations

import logging

import discord

from bot.messages.ui.items import GameButton

__all__ = ["ENTRY_POINT_NAME", "OPEN_BOARD", "OPEN_BOARD_LABEL", "configure", "enabled",
           "entry_point_command", "with_board_button"]

log = logging.getLogger(__name__)

OPEN_BOARD = "activity"
"""The button's code: no game's adapter uses it (their codes are their own)."""
OPEN_BOARD_LABEL = "Open the board"

_enabled = False


def configure(on: bool) -> None:
    """Whether turn messages get the button (the client sets it from its settings)."""
    global _enabled
    _enabled = bool(on)


def enabled() -> bool:
    return _enabled


def with_board_button(view: discord.ui.View | None, table_id: str, version: int
                      ) -> discord.ui.View | None:
    """``view`` with the "Open the board" button added where there is room (a new view
    if there was none); ``view`` unchanged when the Activity is not served, or when its
    five rows are full (the game's choices come first)."""
    if not _enabled:
        return view
    out = view if view is not None else discord.ui.View(timeout=None)
    button = GameButton(table_id, version, OPEN_BOARD, label=OPEN_BOARD_LABEL,
                        style=discord.ButtonStyle.secondary, emoji="🗺️")
    try:
        out.add_item(button)
    except ValueError:
        log.debug("no room for the board button on table %s's turn message", table_id)
    return out if out.children else view


ENTRY_POINT_NAME = "launch"
"""The name Discord gives the default Entry Point command, kept so Discord's own and
ours are the same command (a bulk overwrite matches commands by name and type)."""


def entry_point_command() -> dict[str, object]:
    """The app's Entry Point command (type 4, PRIMARY_ENTRY_POINT): the Activity's
    button in Discord's App Launcher, handled by Discord itself (handler 2,
    DISCORD_LAUNCH_ACTIVITY: it opens the Activity with no interaction for the bot).
    discord.py's command tree does not model the type, so it joins the tree's commands
    in the same bulk overwrite (:meth:`bot.messages.client.FabletopBot.sync_commands`).
    Global only: Discord keeps Entry Points out of guild commands."""
    return {
        "name": ENTRY_POINT_NAME,
        "type": 4,
        "handler": 2,
        "description": "Open this channel's table as a board you play by touching it",
        "integration_types": [0],
        "contexts": [0],
    }
