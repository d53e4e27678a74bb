"""A thread per table, end to end: the table opens in a thread named after the game and
the host, the channel keeps one starter line that links to it, the whole game is played
in the thread, and the thread is archived at the end. Without the permission the bot
says so and plays in the channel."""

from __future__ import annotations

import random

import pytest

from tests.e2e.harness import E2E
from tests.e2e.play import play_fti, table_row
from tests.emulator import Channel, Emulator
from tests.emulator.people import Person

pytestmark = pytest.mark.e2e

CREATE_PUBLIC_THREADS = 1 << 35


def threads_of(emu: Emulator, parent: Channel) -> list[Channel]:
    return [c for c in emu.channels.values() if c.is_thread and c.parent_id == parent.id]


async def test_a_table_in_its_own_thread_from_lobby_to_archive(e2e: E2E) -> None:
    emu, bot, (alice, bob, _carol) = e2e
    before = len(emu.channel.messages)
    opened = await alice.slash("/table new", game="fairy-tale-inn", thread=True)
    [thread] = threads_of(emu, emu.channel)
    assert thread.name.lower() == f"fairy tale inn · {alice.name}".lower()
    # The channel gets one line, the thread's starter (the thread has its id).
    starter = emu.channel.messages[before:]
    assert [m.id for m in starter] == [thread.id]
    assert "thread below" in starter[0].content
    assert opened.reply is not None and opened.reply.ephemeral
    assert f"<#{thread.id}>" in opened.reply.content
    # The lobby is in the thread, and the table belongs to it.
    assert any("Join" in str(m.components) for m in thread.messages)
    await bob.slash("/table join", channel=thread)
    await alice.slash("/table start", channel=thread)
    row = table_row(bot.db_path, thread.id)
    assert row is not None and row.status == "playing"
    assert table_row(bot.db_path, emu.channel.id) is None
    played = await play_fti(emu, bot.db_path, thread, random.Random(5))
    assert played.prompt is None
    row = table_row(bot.db_path, thread.id)
    assert row is not None and row.status == "finished"
    assert "wins" in thread.messages[-1].content
    # The game is over: the thread is archived, and the channel got nothing more.
    await emu.settle()
    assert thread.archived
    assert [m.id for m in emu.channel.messages[before:]] == [thread.id]
    # The channel is free for the next table.
    again = await alice.slash("/table new", game="treasure")
    assert again.reply is not None and "open" in again.reply.content


async def test_without_the_permission_the_table_plays_in_the_channel(e2e: E2E) -> None:
    emu, bot, (alice, _bob, _carol) = e2e
    emu.app_permissions &= ~CREATE_PUBLIC_THREADS
    opened = await alice.slash("/table new", game="fairy-tale-inn", thread=True)
    assert threads_of(emu, emu.channel) == []
    assert opened.reply is not None
    assert "Create Public Threads" in opened.reply.content
    assert "right here" in opened.reply.content
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None and row.status == "lobby"


async def test_the_servers_default_opens_threads(e2e: E2E) -> None:
    emu, bot, (alice, bob, _carol) = e2e
    # Members without Manage Server cannot change it; the owner can.
    refused = await bob.slash("/table threads", on=True)
    assert refused.reply is not None and "Manage Server" in refused.reply.content
    owner = Person(emu, emu.owner)
    await owner.slash("/table threads", on=True)
    shown = await alice.slash("/table threads")
    assert shown.reply is not None and "a thread of their channel" in shown.reply.content
    await alice.slash("/table new", game="treasure")
    [thread] = threads_of(emu, emu.channel)
    assert table_row(bot.db_path, thread.id) is not None
    # A table's own choice wins over the server's.
    other = emu.add_channel(emu.guild, "second")
    await bob.slash("/table new", game="treasure", thread=False, channel=other)
    assert threads_of(emu, other) == [] and table_row(bot.db_path, other.id) is not None
