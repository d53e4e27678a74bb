"""Two bot processes, one shard each, sharing one SQLite file (the scale-out setup)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e.harness import BotProcess, stop_quietly
from tests.e2e.play import play_fti, table_row
from tests.emulator import Channel, Emulator, Person

pytestmark = pytest.mark.e2e


@pytest.fixture
async def two_shards(tmp_path: Path) -> AsyncIterator[tuple[Emulator, BotProcess, BotProcess]]:
    async with Emulator(shard_count=2, guilds=2) as emu:
        first = BotProcess(emu, tmp_path, shards=(0,), SHARD_COUNT="2", SHARD_IDS="0")
        second = BotProcess(emu, tmp_path, shards=(1,), SHARD_COUNT="2", SHARD_IDS="1")
        second.log_path = tmp_path / "bot-shard1.log"
        try:
            await first.start()
            await second.start(sync=False)
            yield emu, first, second
            emu.assert_clean()
            first.assert_log_clean()
            second.assert_log_clean()
        finally:
            await stop_quietly(first)
            await stop_quietly(second)


async def start_table(channel: Channel, host: Person, guest: Person) -> None:
    await host.slash("/table new", game="fairy-tale-inn", channel=channel)
    await guest.slash("/table join", channel=channel)
    await host.slash("/table start", channel=channel)


async def test_each_process_serves_its_shard_and_dms_reach_shard_zero(
    two_shards: tuple[Emulator, BotProcess, BotProcess],
) -> None:
    emu, first, _second = two_shards
    g0, g1 = emu.guilds.values()
    assert (emu.gateway.shard_for(g0.id), emu.gateway.shard_for(g1.id)) == (0, 1)
    c0, c1 = emu.channel_named("general", g0), emu.channel_named("general", g1)
    alice, bob, carol, dave = (emu.user(n) for n in ("alice", "bob", "carol", "dave"))
    await asyncio.gather(start_table(c0, alice, bob), start_table(c1, carol, dave))
    await asyncio.gather(
        play_fti(emu, first.db_path, c0, random.Random(1), stop_after=3),
        play_fti(emu, first.db_path, c1, random.Random(2), stop_after=3),
    )
    rows = [table_row(first.db_path, c.id) for c in (c0, c1)]
    assert all(r is not None and r.version >= 3 for r in rows)
    # carol's table is run by the shard-1 process; her DM arrives on shard 0, in the other
    # process, which must find the table in the shared store, not in its own memory.
    dm = emu.dm_channel(carol.user)
    assert dm is not None
    hand = await carol.slash("/hand", channel=dm)
    assert hand.reply is not None and hand.reply.ephemeral
    # tables_of_user reads the store, so shard 0 finds the table shard 1 runs.
    assert "no seat" not in hand.reply.content, hand.reply.content
    assert "Fairy Tale Inn" in hand.reply.content
    assert emu.gateway.by_shard[0].conn is not None
