"""The SQLite store on a real file: schema, atomic commits, one live table per channel."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.store import (
    ActionRecord,
    ChannelTaken,
    EventRecord,
    SqliteStore,
    StoreError,
    TableRecord,
    VersionConflict,
)


def _rec(table_id: str = "t1", channel: int = 10, status: str = "lobby") -> TableRecord:
    return TableRecord(
        id=table_id, channel_id=channel, guild_id=1, game_id="toy-nim", options={"pile": 5},
        seed=42, status=status, host_id=100,
        seats=[{"index": 0, "name": "Ann", "user_id": 100, "ai_level": None}],
    )


@pytest.fixture
async def store(tmp_path: Path):
    s = SqliteStore(tmp_path / "store.db")
    await s.open()
    yield s
    await s.close()


async def test_schema_pragmas_and_version(store: SqliteStore, tmp_path: Path) -> None:
    assert await store.schema_version() == 1
    async with store.db.execute("PRAGMA journal_mode") as cur:
        assert (await cur.fetchone())[0] == "wal"
    async with store.db.execute("PRAGMA foreign_keys") as cur:
        assert (await cur.fetchone())[0] == 1
    # Reopening does not duplicate the version row.
    again = SqliteStore(tmp_path / "store.db")
    await again.open()
    async with again.db.execute("SELECT COUNT(*) FROM schema_version") as cur:
        assert (await cur.fetchone())[0] == 1
    await again.close()


async def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    s = SqliteStore(path)
    await s.open()
    await s.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError, match="newer"):
        await SqliteStore(path).open()


def test_bad_synchronous_level() -> None:
    with pytest.raises(ValueError):
        SqliteStore("x.db", synchronous="SOMETIMES")


async def test_round_trip_and_live_lookup(store: SqliteStore) -> None:
    rec = _rec()
    await store.create_table(rec)
    got = await store.get_table("t1")
    assert got == rec
    assert await store.live_table_in_channel(10) == rec
    assert await store.live_table_in_channel(11) is None
    assert await store.get_table("nope") is None
    assert [r.id for r in await store.load_all_active()] == ["t1"]


async def test_one_live_table_per_channel(store: SqliteStore) -> None:
    await store.create_table(_rec("t1"))
    with pytest.raises(ChannelTaken):
        await store.create_table(_rec("t2"))
    # Once the first table is finished, the channel is free again.
    done = _rec("t1", status="finished")
    await store.save_table(done)
    await store.create_table(_rec("t2"))
    assert [r.id for r in await store.load_all_active()] == ["t2"]
    # ...and the finished one cannot be revived while t2 is live.
    with pytest.raises(ChannelTaken):
        await store.save_table(_rec("t1", status="playing"))


async def test_commit_action_is_atomic_and_versioned(store: SqliteStore) -> None:
    rec = _rec(status="playing")
    await store.create_table(rec)
    rec.version, rec.state = 1, '{"x": 1}'
    action = ActionRecord("t1", 1, 0, 100, '{"kind": "take", "n": 1}')
    events = [EventRecord("t1", 1, i, f'{{"i": {i}}}') for i in range(3)]
    await store.commit_action(rec, 0, action, events)
    assert (await store.get_table("t1")).version == 1  # type: ignore[union-attr]
    assert [a.version for a in await store.actions("t1")] == [1]
    assert [e.idx for e in await store.events("t1")] == [0, 1, 2]

    # A second commit based on version 0 is refused and writes nothing at all.
    stale = _rec(status="playing")
    stale.version, stale.state = 1, '{"x": 2}'
    with pytest.raises(VersionConflict):
        await store.commit_action(stale, 0, ActionRecord("t1", 1, 1, 200, "{}"), [])
    after = await store.get_table("t1")
    assert after is not None and after.state == '{"x": 1}' and after.version == 1
    assert len(await store.actions("t1")) == 1

    # An action must move the table exactly one version on.
    rec.version = 3
    with pytest.raises(VersionConflict):
        await store.commit_action(rec, 1, ActionRecord("t1", 3, 0, 100, "{}"), [])


async def test_duplicate_event_rolls_back_the_whole_commit(store: SqliteStore) -> None:
    rec = _rec(status="playing")
    await store.create_table(rec)
    rec.version = 1
    dup = [EventRecord("t1", 1, 0, "{}"), EventRecord("t1", 1, 0, "{}")]
    with pytest.raises(VersionConflict):
        await store.commit_action(rec, 0, ActionRecord("t1", 1, 0, 100, "{}"), dup)
    got = await store.get_table("t1")
    assert got is not None and got.version == 0
    assert await store.actions("t1") == [] and await store.events("t1") == []


async def test_save_table_checks_version(store: SqliteStore) -> None:
    rec = _rec()
    await store.create_table(rec)
    rec.host_id = 200
    await store.save_table(rec, expected_version=0)
    with pytest.raises(VersionConflict):
        await store.save_table(rec, expected_version=5)
    with pytest.raises(VersionConflict):
        await store.save_table(_rec("missing"))


async def test_data_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "persist.db"
    s = SqliteStore(path)
    await s.open()
    original = _rec()
    await s.create_table(original)
    await s.close()
    with pytest.raises(StoreError):
        await s.get_table("t1")  # closed
    s2 = SqliteStore(path)
    await s2.open()
    assert await s2.get_table("t1") == original
    await s2.close()
