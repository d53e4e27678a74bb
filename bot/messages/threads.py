"""A thread per table: a busy channel keeps one line per game, the game lives in its
thread, and the thread is archived when the game ends.

``/table new thread:true`` (or the server's default, ``/table threads``) posts a short
starter message in the channel, starts a public thread from it (so Discord shows the
thread under that message: the channel's link to the table) named after the game and
the host, and opens the table in the thread. Without the permissions to do so the bot
says which one is missing and plays in the channel.
"""

from __future__ import annotations

import logging

import discord

from bot.messages.ui.texts import literal

__all__ = ["NEEDED", "archive", "can_hold_threads", "close_starter", "missing_permissions",
           "open_thread", "thread_name"]

log = logging.getLogger("fabletop.threads")

NEEDED = ("create_public_threads", "send_messages_in_threads")
"""The bot's permissions a table thread needs, besides those of any table."""

_WORDS = {
    "create_public_threads": "Create Public Threads",
    "send_messages_in_threads": "Send Messages in Threads",
}

ARCHIVE_AFTER = 1440
"""Minutes of silence after which Discord hides the thread by itself (a day), should
archiving at the end fail."""


def thread_name(game_name: str, host_name: str) -> str:
    """``Fairy Tale Inn · Ann`` (Discord allows 100 characters).

    >>> thread_name("Fairy Tale Inn", "Ann")
    'Fairy Tale Inn · Ann'
    >>> len(thread_name("Winter Tales", "x" * 200))
    100
    """
    name = f"{game_name} · {' '.join(host_name.split())}"
    return name if len(name) <= 100 else name[:99] + "…"


def missing_permissions(interaction: discord.Interaction) -> list[str]:
    """The permissions the bot lacks here to open a table thread, by their names in
    Discord's settings (empty: it has them all)."""
    perms = interaction.app_permissions
    return [_WORDS[p] for p in NEEDED if not getattr(perms, p, False)]


def can_hold_threads(channel: object) -> bool:
    """A text channel (a thread cannot hold threads, and a forum's posts are threads)."""
    return isinstance(channel, discord.TextChannel)


async def open_thread(channel: discord.TextChannel, game_name: str, host_name: str
                      ) -> discord.Thread:
    """The starter message in ``channel`` and the public thread started from it. Raises
    :class:`discord.HTTPException` if Discord refuses (the caller plays in the channel)."""
    starter = await channel.send(
        f"{literal(host_name)} opened a **{game_name}** table in the thread below: "
        "join it there.",
        allowed_mentions=discord.AllowedMentions.none())
    try:
        return await starter.create_thread(name=thread_name(game_name, host_name),
                                           auto_archive_duration=ARCHIVE_AFTER)
    except discord.HTTPException:
        # No thread after all: the starter message would point at nothing.
        try:
            await starter.delete()
        except discord.HTTPException:
            log.info("could not delete the starter message %s", starter.id)
        raise


async def close_starter(thread: discord.Thread, why: str) -> None:
    """A table that could not be opened in ``thread``: the thread and its starter go
    (best effort: what stays says why)."""
    try:
        await thread.delete()
        starter = thread.parent.get_partial_message(thread.id) if thread.parent else None
        if starter is not None:
            await starter.delete()
    except discord.HTTPException:
        log.info("could not remove the thread %s of a table that did not open (%s)",
                 thread.id, why)


async def archive(client: discord.Client, channel_id: int) -> bool:
    """Archive ``channel_id`` if it is a thread (a table's, at its end): true if it was
    archived. A channel is left alone. Discord lets the thread's creator archive it;
    should it refuse, the thread hides itself after :data:`ARCHIVE_AFTER` minutes."""
    channel = client.get_channel(channel_id)
    if channel is None:  # not in the cache (yet): ask once
        try:
            channel = await client.fetch_channel(channel_id)
        except Exception as exc:  # best effort: the end of a game must still be told
            log.info("could not look up channel %s to archive it: %r", channel_id, exc)
            return False
    if not isinstance(channel, discord.Thread) or channel.archived:
        return False
    try:
        await channel.edit(archived=True)
    except discord.HTTPException as exc:
        log.info("could not archive the thread %s: %s", channel_id, exc)
        return False
    return True
