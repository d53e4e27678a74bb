"""The stores on real databases: migrations, atomic commits, one live table per channel,
the durable outbox, and the hand/turn/closed-DM records.

Every test of the interface runs on both backends (the ``backend`` and ``store``
fixtures of ``tests/conftest.py``: a SQLite file, a private PostgreSQL schema); the
tests of SQLite itself (pragmas, adopting files from before numbered migrations, rows
written with :mod:`sqlite3`) use ``sqlite_store``. PostgreSQL-only tests are in
``tests/test_store_pg.py``."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bot.core.store import (
    ActionRecord,
    ChannelTaken,
    EventRecord,
    HandMessage,
    OutboxRecord,
    ResultRecord,
    SqliteStore,
    Store,
    StoreError,
    TableRecord,
    TurnMessage,
    VersionConflict,
)
from bot.core.store.migrations import LATEST, MIGRATIONS

if TYPE_CHECKING:
    from tests.conftest import Backend


def _rec(table_id: str = "t1", channel: int = 10, status: str = "lobby") -> TableRecord:
    return TableRecord(
        id=table_id, channel_id=channel, guild_id=1, game_id="toy-nim", options={"pile": 5},
        seed=42, status=status, host_id=100,
        seats=[{"index": 0, "name": "Ann", "user_id": 100, "ai_level": None}],
    )


def _bump(rec: TableRecord) -> TableRecord:
    """``rec`` made the next write of its row (every write names the revision it
    follows)."""
    rec.revision += 1
    return rec


def _hand(table_id: str = "t1", user: int = 100, message: int = 500,
          choices: bool = True) -> HandMessage:
    return HandMessage(table_id=table_id, user_id=user, channel_id=900 + user,
                       message_id=message, signature=f"sig{message}", image_sig=f"img{message}",
                       shows_choices=choices)


def _turn(table_id: str = "t1", version: int = 1, message: int = 700) -> TurnMessage:
    return TurnMessage(table_id=table_id, channel_id=10, message_id=message, version=version,
                       pinged=(100, 200), lines=("Ann takes 1.", "Bob to play."),
                       has_buttons=True, board_key="board-v1")


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
async def sqlite_store(tmp_path: Path):
    s = SqliteStore(tmp_path / "store.db")
    await s.open()
    yield s
    await s.close()


def _rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


# -- migrations -------------------------------------------------------------------


async def test_pragmas_and_migrations(sqlite_store: SqliteStore, tmp_path: Path) -> None:
    store = sqlite_store
    assert LATEST == 7 and [m.version for m in MIGRATIONS] == [1, 2, 3, 4, 5, 6, 7]
    assert await store.applied_migrations() == [1, 2, 3, 4, 5, 6, 7]
    assert store.applied_at_open == (1, 2, 3, 4, 5, 6, 7)
    async with store.db.execute("PRAGMA journal_mode") as cur:
        assert (await cur.fetchone())[0] == "wal"
    async with store.db.execute("PRAGMA foreign_keys") as cur:
        assert (await cur.fetchone())[0] == 1
    recorded = _rows(tmp_path / "store.db", "SELECT version, name FROM migrations")
    assert recorded == [(m.version, m.name) for m in MIGRATIONS]
    names = {r[0] for r in _rows(tmp_path / "store.db",
                                 "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"tables", "actions", "events", "outbox", "hand_messages", "turn_messages",
            "dm_closed", "migrations", "journal"} <= names
    assert "schema_version" not in names  # the unnumbered scheme is gone for new files


async def test_migrations_are_recorded(store: Store, backend: Backend) -> None:
    assert await store.applied_migrations() == [1, 2, 3, 4, 5, 6, 7]
    assert store.applied_at_open == (1, 2, 3, 4, 5, 6, 7)  # type: ignore[attr-defined]
    recorded = await backend.rows(store, "SELECT version, name FROM migrations ORDER BY version")
    assert recorded == [(m.version, m.name) for m in MIGRATIONS]
    for table in ("tables", "actions", "events", "outbox", "hand_messages", "turn_messages",
                  "dm_closed", "table_leases"):
        assert await backend.rows(store, f"SELECT COUNT(*) FROM {table}") == [(0,)]


async def test_second_open_applies_nothing(store: Store, backend: Backend) -> None:
    before = await backend.rows(store, "SELECT * FROM migrations ORDER BY version")
    again = backend.store()
    await again.open()
    try:
        assert again.applied_at_open == ()  # type: ignore[attr-defined]
        assert await again.applied_migrations() == [1, 2, 3, 4, 5, 6, 7]
    finally:
        await again.close()
    assert await backend.rows(store, "SELECT * FROM migrations ORDER BY version") == before


async def test_concurrent_opens_of_a_new_database_migrate_once(backend: Backend) -> None:
    stores = [backend.store() for _ in range(3)]
    await asyncio.gather(*(s.open() for s in stores))
    try:
        applied = [v for s in stores for v in s.applied_at_open]  # type: ignore[attr-defined]
        assert sorted(applied) == [1, 2, 3, 4, 5, 6, 7]  # each applied by exactly one opener
        for s in stores:
            assert await s.applied_migrations() == [1, 2, 3, 4, 5, 6, 7]
        # All of them work on the one schema.
        await stores[0].create_table(_rec())
        got = await stores[2].get_table("t1")
        assert got is not None and got.settings == {}
    finally:
        for s in stores:
            await s.close()


async def test_newer_migrations_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    s = SqliteStore(path)
    await s.open()
    await s.close()
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO migrations VALUES (99, 'from the future', '2099-01-01')")
    with pytest.raises(StoreError, match="newer"):
        await SqliteStore(path).open()


async def test_newer_unnumbered_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old-future.db"
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
        db.execute("INSERT INTO schema_version (version) VALUES (7)")
    s = SqliteStore(path)
    with pytest.raises(StoreError, match="newer"):
        await s.open()
    with pytest.raises(StoreError):
        s.db  # noqa: B018  (a refused open leaves the store closed)


# The schema of the store before numbered migrations, and the tables the cogs kept.
OLD_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY, channel_id INTEGER NOT NULL, guild_id INTEGER,
    game_id TEXT NOT NULL, options TEXT NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('lobby', 'playing', 'finished', 'aborted')),
    host_id INTEGER NOT NULL, seats TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0,
    state TEXT, reminder_minutes REAL NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL, turn_since TEXT, reminded_at TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS tables_live_channel
    ON tables (channel_id) WHERE status IN ('lobby', 'playing');
CREATE INDEX IF NOT EXISTS tables_status ON tables (status);
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    version INTEGER NOT NULL, seat INTEGER NOT NULL, user_id INTEGER,
    action TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (table_id, version)
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    version INTEGER NOT NULL, idx INTEGER NOT NULL, data TEXT NOT NULL,
    UNIQUE (table_id, version, idx)
);
"""

OLD_SIDE_TABLES = """
CREATE TABLE winter_hand_messages (table_id TEXT NOT NULL, user_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL, message_id INTEGER NOT NULL, signature TEXT NOT NULL,
    image_sig TEXT NOT NULL, PRIMARY KEY (table_id, user_id));
CREATE TABLE winter_table_settings (table_id TEXT PRIMARY KEY,
    interrupt_timeout REAL NOT NULL);
CREATE TABLE winter_channel_tables (channel_id INTEGER PRIMARY KEY, table_id TEXT NOT NULL);
CREATE TABLE delivery_dm_closed (user_id INTEGER PRIMARY KEY, since TEXT NOT NULL);
"""


def _old_database(path: Path, *, side_tables: bool) -> None:
    """A database as the code before numbered migrations left it."""
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
        db.execute("INSERT INTO schema_version (version) VALUES (1)")
        for tid, channel, status in (("w1", 10, "playing"), ("w2", 11, "finished")):
            db.execute(
                "INSERT INTO tables VALUES (?, ?, 1, 'winter-tales', '{\"x\": 1}', 7, ?, 100,"
                " '[]', 3, '{\"s\": 1}', 10.0, '2023-05-01T10:00:00+00:00',"
                " '2023-05-01T11:00:00+00:00', NULL, NULL)",
                (tid, channel, status),
            )
        db.execute("INSERT INTO actions VALUES ('w1', 1, 0, 100, '{}',"
                   " '2023-05-01T10:30:00+00:00')")
        db.execute("INSERT INTO events VALUES ('w1', 1, 0, '{\"e\": 1}')")
        if side_tables:
            db.executescript(OLD_SIDE_TABLES)
            db.execute("INSERT INTO winter_hand_messages VALUES ('w1', 100, 9100, 5001,"
                       " 'sigA', 'imgA')")
            db.execute("INSERT INTO winter_hand_messages VALUES ('w1', 200, 9200, 5002,"
                       " 'sigB', 'imgB')")
            db.execute("INSERT INTO winter_table_settings VALUES ('w1', 45.0)")
            db.execute("INSERT INTO winter_table_settings VALUES ('gone', 5.0)")
            db.execute("INSERT INTO winter_channel_tables VALUES (10, 'w1')")
            db.execute("INSERT INTO delivery_dm_closed VALUES (300,"
                       " '2023-04-01T00:00:00+00:00')")


async def test_old_database_is_adopted_with_its_side_tables(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _old_database(path, side_tables=True)
    s = SqliteStore(path)
    await s.open()
    try:
        assert s.applied_at_open == (1, 2, 3, 4, 5, 6, 7)
        assert await s.applied_migrations() == [1, 2, 3, 4, 5, 6, 7]
        w1 = await s.get_table("w1")
        assert w1 is not None
        assert (w1.status, w1.version, w1.options, w1.state) == ("playing", 3, {"x": 1},
                                                                  '{"s": 1}')
        assert w1.settings == {"interrupt_timeout": 45.0}
        w2 = await s.get_table("w2")
        assert w2 is not None and w2.settings == {}
        assert [a.version for a in await s.actions("w1")] == [1]
        assert [e.data for e in await s.events("w1")] == ['{"e": 1}']
        # Copied hands show choices, so they are looked at once after the upgrade.
        assert await s.hand_messages("w1") == [
            HandMessage("w1", 100, 9100, 5001, "sigA", "imgA", True),
            HandMessage("w1", 200, 9200, 5002, "sigB", "imgB", True),
        ]
        assert len(await s.all_hand_messages_showing_choices()) == 2
        assert await s.dm_closed(300) and not await s.dm_closed(100)
        assert (await s.last_table_in_channel(11)) == w2
        # The unique live-table index still holds on the adopted table.
        with pytest.raises(ChannelTaken):
            await s.create_table(_rec("n1", channel=10))
    finally:
        await s.close()
    names = {r[0] for r in _rows(path, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"schema_version", "winter_hand_messages", "winter_table_settings",
            "winter_channel_tables", "delivery_dm_closed"} <= names  # left in place
    assert _rows(path, "SELECT COUNT(*) FROM winter_hand_messages") == [(2,)]
    assert _rows(path, "SELECT since FROM dm_closed") == [("2023-04-01T00:00:00+00:00",)]


async def test_old_database_without_side_tables_is_adopted(tmp_path: Path) -> None:
    path = tmp_path / "old-plain.db"
    _old_database(path, side_tables=False)
    s = SqliteStore(path)
    await s.open()
    try:
        assert await s.applied_migrations() == [1, 2, 3, 4, 5, 6, 7]
        w1 = await s.get_table("w1")
        assert w1 is not None and w1.settings == {} and w1.version == 3
        assert await s.all_hand_messages_showing_choices() == []
        assert not await s.dm_closed(300)
    finally:
        await s.close()
    # Reopening the adopted file applies nothing more.
    s2 = SqliteStore(path)
    await s2.open()
    assert s2.applied_at_open == ()
    await s2.close()


async def test_driver_errors_become_store_errors(store: Store) -> None:
    await store.create_table(_rec())
    bad = HandMessage("t1", 1, 2, 3, None, "img", True)  # type: ignore[arg-type]
    with pytest.raises(StoreError) as info:
        await store.save_hand_messages([_hand(user=5), bad])
    assert type(info.value) is StoreError
    assert "signature" in str(info.value)  # the real cause is in the message
    assert await store.hand_messages("t1") == []  # the whole batch rolled back


def test_bad_synchronous_level() -> None:
    with pytest.raises(ValueError):
        SqliteStore("x.db", synchronous="SOMETIMES")


async def test_round_trip_and_live_lookup(store: Store) -> None:
    rec = _rec()
    await store.create_table(rec)
    got = await store.get_table("t1")
    assert got == rec
    assert await store.live_table_in_channel(10) == rec
    assert await store.live_table_in_channel(11) is None
    assert await store.get_table("nope") is None
    assert [r.id for r in await store.load_all_active()] == ["t1"]


async def test_one_live_table_per_channel(store: Store) -> None:
    await store.create_table(_rec("t1"))
    with pytest.raises(ChannelTaken):
        await store.create_table(_rec("t2"))
    # Once the first table is finished, the channel is free again.
    done = _rec("t1", status="finished")
    await store.save_table(_bump(done))
    await store.create_table(_rec("t2"))
    assert [r.id for r in await store.load_all_active()] == ["t2"]
    # ...and the finished one cannot be revived while t2 is live.
    with pytest.raises(ChannelTaken):
        await store.save_table(_bump(_bump(_rec("t1", status="playing"))))


async def test_commit_action_is_atomic_and_versioned(store: Store) -> None:
    rec = _rec(status="playing")
    await store.create_table(rec)
    rec.version, rec.state = 1, '{"x": 1}'
    action = ActionRecord("t1", 1, 0, 100, '{"kind": "take", "n": 1}')
    events = [EventRecord("t1", 1, i, f'{{"i": {i}}}') for i in range(3)]
    await store.commit_action(_bump(rec), 0, action, events)
    assert (await store.get_table("t1")).version == 1  # type: ignore[union-attr]
    assert [a.version for a in await store.actions("t1")] == [1]
    assert [e.idx for e in await store.events("t1")] == [0, 1, 2]

    # A second commit based on version 0 is refused and writes nothing at all.
    stale = _rec(status="playing")
    stale.version, stale.state = 1, '{"x": 2}'
    with pytest.raises(VersionConflict):
        await store.commit_action(_bump(stale), 0, ActionRecord("t1", 1, 1, 200, "{}"), [])
    after = await store.get_table("t1")
    assert after is not None and after.state == '{"x": 1}' and after.version == 1
    assert len(await store.actions("t1")) == 1

    # An action must move the table exactly one version on.
    rec.version = 3
    with pytest.raises(VersionConflict):
        await store.commit_action(_bump(rec), 1, ActionRecord("t1", 3, 0, 100, "{}"), [])


async def test_duplicate_event_rolls_back_the_whole_commit(store: Store) -> None:
    rec = _rec(status="playing")
    await store.create_table(rec)
    rec.version = 1
    dup = [EventRecord("t1", 1, 0, "{}"), EventRecord("t1", 1, 0, "{}")]
    with pytest.raises(VersionConflict):
        await store.commit_action(_bump(rec), 0, ActionRecord("t1", 1, 0, 100, "{}"), dup)
    got = await store.get_table("t1")
    assert got is not None and got.version == 0
    assert await store.actions("t1") == [] and await store.events("t1") == []


async def test_save_table_checks_version(store: Store) -> None:
    rec = _rec()
    await store.create_table(rec)
    rec.host_id = 200
    await store.save_table(_bump(rec), expected_version=0)
    with pytest.raises(VersionConflict):
        await store.save_table(_bump(rec), expected_version=5)
    with pytest.raises(VersionConflict):
        await store.save_table(_bump(_rec("missing")))


async def test_data_survives_reopen(backend: Backend) -> None:
    s = backend.store()
    await s.open()
    original = _rec()
    await s.create_table(original)
    await s.close()
    with pytest.raises(StoreError):
        await s.get_table("t1")  # closed
    s2 = backend.store()
    await s2.open()
    assert await s2.get_table("t1") == original
    await s2.close()


async def test_settings_round_trip(store: Store) -> None:
    rec = _rec()
    rec.settings = {"interrupt_timeout": 30.0, "quiet": True}
    await store.create_table(rec)
    got = await store.get_table("t1")
    assert got is not None and got.settings == {"interrupt_timeout": 30.0, "quiet": True}
    rec.settings = {"interrupt_timeout": 12.5}
    await store.save_table(_bump(rec), expected_version=0)
    got = await store.get_table("t1")
    assert got is not None and got.settings == {"interrupt_timeout": 12.5}
    assert got.options == {"pile": 5}  # options are a separate column


async def test_last_table_in_channel(store: Store) -> None:
    assert await store.last_table_in_channel(10) is None
    base = datetime(2024, 1, 1, tzinfo=UTC)
    old = _rec("a", status="finished")
    old.updated_at = base + timedelta(hours=1)
    newer = _rec("b", status="aborted")
    newer.updated_at = base + timedelta(hours=2)
    other = _rec("c", channel=99, status="finished")
    other.updated_at = base + timedelta(hours=5)
    for r in (old, newer, other):
        await store.create_table(r)
    got = await store.last_table_in_channel(10)
    assert got is not None and got.id == "b"
    # A live table wins even when a finished one was updated later.
    live = _rec("d", status="playing")
    live.updated_at = base
    await store.create_table(live)
    got = await store.last_table_in_channel(10)
    assert got is not None and got.id == "d" and got.status == "playing"
    got = await store.last_table_in_channel(99)
    assert got is not None and got.id == "c"


async def test_count_live_tables_and_all_ids(store: Store) -> None:
    base = datetime(2024, 1, 1, tzinfo=UTC)
    specs = [  # id, channel, guild, host, status, created (minutes after base)
        ("b", 1, 1, 100, "lobby", 0), ("a", 2, 1, 100, "playing", 0),
        ("c", 3, 1, 200, "finished", 1), ("d", 4, 2, 100, "playing", 2),
        ("e", 5, None, 100, "lobby", 3), ("f", 6, 2, 300, "aborted", -1),
    ]
    for tid, channel, guild, host, status, minutes in specs:
        rec = _rec(tid, channel=channel, status=status)
        rec.guild_id, rec.host_id = guild, host
        rec.created_at = rec.updated_at = base + timedelta(minutes=minutes)
        await store.create_table(rec)
    assert await store.count_live_tables() == 4
    assert await store.count_live_tables(guild_id=1) == 2
    assert await store.count_live_tables(guild_id=2) == 1
    assert await store.count_live_tables(host_id=100) == 4
    assert await store.count_live_tables(host_id=200) == 0  # only a finished one
    assert await store.count_live_tables(guild_id=2, host_id=100) == 1
    assert await store.count_live_tables(guild_id=9, host_id=100) == 0
    # Oldest first, whatever the status; ties by id.
    assert await store.all_table_ids() == ["f", "a", "b", "c", "d", "e"]


async def test_import_table_writes_exactly_what_it_is_given(store: Store) -> None:
    rec = _rec("imp", status="playing")
    rec.version, rec.revision, rec.state = 2, 7, '{"pile": 3}'
    rec.turn_since = datetime(2024, 2, 1, 10, 30, 15, 123456, tzinfo=UTC)
    actions = [ActionRecord("imp", v, v % 2, 100 + v, f'{{"n": {v}}}',
                            datetime(2024, 2, 1, 10, v, tzinfo=UTC)) for v in (1, 2)]
    events = [EventRecord("imp", v, i, f'{{"v": {v}, "i": {i}}}') for v in (1, 2)
              for i in range(2)]
    await store.import_table(rec, actions, events)
    assert await store.get_table("imp") == rec  # its revision included
    assert await store.actions("imp") == actions
    assert await store.events("imp") == events
    # A second table of that id is refused as such, not as a taken channel.
    again = _rec("imp", channel=77)
    with pytest.raises(StoreError, match="already exists") as info:
        await store.import_table(again, [], [])
    assert not isinstance(info.value, ChannelTaken)
    # A live table in a channel that has one is a taken channel.
    with pytest.raises(ChannelTaken):
        await store.import_table(_rec("other", channel=10), [], [])
    # A clash inside the logs writes nothing at all, the table row included.
    dup = [ActionRecord("new", 1, 0, 100, "{}"), ActionRecord("new", 1, 1, 200, "{}")]
    with pytest.raises(StoreError):
        await store.import_table(_rec("new", channel=11), dup, [])
    assert await store.get_table("new") is None and await store.actions("new") == []
    assert await store.all_table_ids() == ["imp"]


async def test_leases_have_one_holder_renew_expire_and_release(backend: Backend) -> None:
    clock = Clock()
    a, b = backend.store(clock=clock), backend.store(clock=clock)
    await asyncio.gather(a.open(), b.open())
    try:
        await a.create_table(_rec())
        won = await asyncio.gather(a.claim_lease("t1", "proc-a", 60),
                                   b.claim_lease("t1", "proc-b", 60))
        assert sorted(won) == [False, True]
        holder, other = ("proc-a", "proc-b") if won[0] else ("proc-b", "proc-a")
        assert await a.claim_lease("t1", holder, 60) is True  # renewal
        clock.now += timedelta(seconds=59)
        assert await b.claim_lease("t1", other, 60) is False  # renewed: held till +60
        clock.now += timedelta(seconds=1)
        assert await b.claim_lease("t1", other, 60) is True  # expired: taken over
        assert await a.claim_lease("t1", holder, 60) is False
        await a.release_lease("t1", holder)  # not the holder any more: nothing happens
        assert await a.claim_lease("t1", holder, 60) is False
        await b.release_lease("t1", other)  # given back: free at once
        assert await a.claim_lease("t1", holder, 60) is True
        await a.release_lease("t1", holder)
        await a.release_lease("t1", holder)  # twice is fine
        # A lease belongs to a table: there is none to take on a missing one.
        with pytest.raises(StoreError):
            await a.claim_lease("nope", holder, 60)
    finally:
        await a.close()
        await b.close()


# -- the outbox -------------------------------------------------------------------


async def test_outbox_is_written_with_the_table(backend: Backend) -> None:
    clock = Clock()
    s = backend.store(clock=clock)
    await s.open()
    try:
        rec = _rec()
        await s.create_table(rec)
        assert await s.save_table(_bump(rec), expected_version=0) is None  # no payload, no row
        assert await s.undelivered_outboxes() == []
        rec.status = "playing"
        oid = await s.save_table(_bump(rec), expected_version=0, outbox='{"kind": "start"}')
        assert isinstance(oid, int)
        rec.version, rec.state = 1, '{"x": 1}'
        oid2 = await s.commit_action(_bump(rec), 0, ActionRecord("t1", 1, 0, 100, "{}"), [],
                                     outbox='{"kind": "move"}')
        assert oid2 == oid + 1
        assert await s.undelivered_outboxes() == [
            OutboxRecord(oid, "t1", 0, '{"kind": "start"}', clock.now),
            OutboxRecord(oid2, "t1", 1, '{"kind": "move"}', clock.now),
        ]
        assert [o.id for o in await s.undelivered_outboxes(limit=1)] == [oid]
        assert await s.undelivered_outboxes(limit=0) == []
        assert [o.id for o in await s.undelivered_outboxes(limit=-1)] == [oid, oid2]  # no limit
    finally:
        await s.close()


async def test_refused_writes_leave_no_outbox_row(store: Store) -> None:
    rec = _rec(status="playing")
    await store.create_table(rec)
    rec.version = 1
    await store.commit_action(_bump(rec), 0, ActionRecord("t1", 1, 0, 100, "{}"), [], outbox="{}")
    # A stale commit (based on version 0 again) writes nothing: no action, no outbox.
    stale = _rec(status="playing")
    stale.version = 1
    with pytest.raises(VersionConflict):
        await store.commit_action(_bump(stale), 0, ActionRecord("t1", 1, 1, 200, "{}"), [],
                                  outbox='{"stale": true}')
    # A duplicate event rolls back the outbox row too.
    rec2 = _rec(status="playing")
    rec2.version = 2
    dup = [EventRecord("t1", 2, 0, "{}"), EventRecord("t1", 2, 0, "{}")]
    with pytest.raises(VersionConflict):
        await store.commit_action(_bump(rec2), 1, ActionRecord("t1", 2, 0, 100, "{}"), dup,
                                  outbox='{"dup": true}')
    # A stale or channel-taking save_table writes none either.
    with pytest.raises(VersionConflict):
        await store.save_table(_bump(_rec(status="playing")), expected_version=0,
                               outbox='{"save": true}')
    await store.create_table(_rec("t2", channel=20))
    with pytest.raises(ChannelTaken):
        await store.save_table(_bump(_rec("t2", channel=10)), outbox='{"taken": true}')
    assert [o.payload for o in await store.undelivered_outboxes()] == ["{}"]
    assert len(await store.actions("t1")) == 1


async def test_mark_delivered_once_with_its_messages(backend: Backend) -> None:
    clock = Clock()
    s = backend.store(clock=clock)
    await s.open()
    try:
        rec = _rec()
        await s.create_table(rec)
        first = await s.save_table(_bump(rec), outbox='{"n": 1}')
        second = await s.save_table(_bump(rec), outbox='{"n": 2}')
        assert first is not None and second is not None
        hands = [_hand(user=100, message=1), _hand(user=200, message=2, choices=False)]
        assert await s.mark_delivered(first, hands=hands, turn=_turn(message=70)) is True
        assert await s.hand_messages("t1") == hands
        assert await s.turn_message("t1") == _turn(message=70)
        assert [o.id for o in await s.undelivered_outboxes()] == [second]
        when = f"SELECT delivered_at FROM outbox WHERE id = {first}"
        delivered_at = await backend.rows(s, when)
        # A second mark (another process delivered it too) says so and keeps the time.
        clock.now += timedelta(minutes=5)
        assert await s.mark_delivered(first, hands=[_hand(user=100, message=3)]) is False
        assert await backend.rows(s, when) == delivered_at
        assert backend.when(delivered_at[0][0]) == datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
        # ...and still records the messages it posted.
        assert (await s.hand_messages("t1"))[0].message_id == 3
        assert await s.mark_delivered(12345) is False  # no such row
        # A failed delivery record writes nothing: the row stays undelivered.
        bad = HandMessage("t1", 9, 9, 9, None, "i", True)  # type: ignore[arg-type]
        with pytest.raises(StoreError):
            await s.mark_delivered(second, hands=[bad])
        assert [o.id for o in await s.undelivered_outboxes()] == [second]
        assert await s.mark_delivered(second) is True
        assert await s.undelivered_outboxes() == []
    finally:
        await s.close()


async def test_claims_have_one_winner_and_expire(backend: Backend) -> None:
    clock = Clock()
    a, b = backend.store(clock=clock), backend.store(clock=clock)
    await asyncio.gather(a.open(), b.open())
    try:
        await a.create_table(_rec())
        oid = await a.save_table(_bump(_rec()), outbox="{}")
        assert oid is not None
        won = await asyncio.gather(a.claim_outbox(oid, "proc-a", 30),
                                   b.claim_outbox(oid, "proc-b", 30))
        assert sorted(won) == [False, True]
        winner = "proc-a" if won[0] else "proc-b"
        claimed_by = f"SELECT claimed_by FROM outbox WHERE id = {oid}"
        assert await backend.rows(a, claimed_by) == [(winner,)]
        # Held: nobody else (nor the holder) claims it before the lease ends.
        clock.now += timedelta(seconds=29)
        assert await b.claim_outbox(oid, "proc-c", 30) is False
        # Expired: someone else may take it over.
        clock.now += timedelta(seconds=2)
        assert await b.claim_outbox(oid, "proc-c", 30) is True
        assert await backend.rows(a, claimed_by) == [("proc-c",)]
        # Delivered rows and missing rows cannot be claimed.
        assert await b.mark_delivered(oid) is True
        clock.now += timedelta(hours=1)
        assert await a.claim_outbox(oid, "proc-a", 30) is False
        assert await a.claim_outbox(999, "proc-a", 30) is False
    finally:
        await a.close()
        await b.close()


# -- hand and turn messages, closed DMs -----------------------------------------------


async def test_hand_messages_round_trip(store: Store) -> None:
    assert await store.hand_messages("t1") == []
    await store.save_hand_messages([_hand(user=200, message=2), _hand(user=100, message=1),
                                    _hand("t2", user=100, message=3, choices=False)])
    assert [h.user_id for h in await store.hand_messages("t1")] == [100, 200]
    # Upsert: the same (table, user) is replaced, not duplicated.
    changed = HandMessage("t1", 100, 42, 9, "new", "newimg", False)
    await store.save_hand_messages([changed])
    assert await store.hand_messages("t1") == [changed, _hand(user=200, message=2)]
    showing = await store.all_hand_messages_showing_choices()
    assert showing == [_hand(user=200, message=2)]
    await store.delete_hand_message("t1", 200)
    await store.delete_hand_message("t1", 12345)  # absent: nothing happens
    assert await store.hand_messages("t1") == [changed]
    assert [h.message_id for h in await store.hand_messages("t2")] == [3]
    await store.save_hand_messages([])  # nothing to write is fine


async def test_turn_message_round_trip(store: Store) -> None:
    assert await store.turn_message("t1") is None
    tm = _turn()
    await store.save_turn_message(tm)
    got = await store.turn_message("t1")
    assert got == tm and isinstance(got.pinged, tuple) and isinstance(got.lines, tuple)
    # Lists in come back as the same tuples; the upsert replaces the row.
    plain = TurnMessage("t1", 11, 800, 2, [300], [], False, None)  # type: ignore[arg-type]
    await store.save_turn_message(plain)
    got = await store.turn_message("t1")
    assert got == plain and got.pinged == (300,) and got.lines == ()
    assert got.board_key is None and got.has_buttons is False
    assert await store.turn_message("t2") is None


async def test_dm_closed_round_trip(backend: Backend) -> None:
    clock = Clock()
    s = backend.store(clock=clock)
    await s.open()
    try:
        assert await s.dm_closed(7) is False
        await s.set_dm_closed(7, True)
        assert await s.dm_closed(7) is True and await s.dm_closed(8) is False
        assert await s.dm_closed_among([8, 7, 7, 9]) == {7}
        assert await s.dm_closed_among([]) == set()
        clock.now += timedelta(days=1)
        await s.set_dm_closed(7, True)  # already known: the first date stays
        since = await backend.rows(s, "SELECT since FROM dm_closed")
        assert backend.when(since[0][0]) == datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
        await s.set_dm_closed(7, False)
        assert await s.dm_closed(7) is False
        await s.set_dm_closed(7, False)  # forgetting twice is fine
        assert await backend.rows(s, "SELECT COUNT(*) FROM dm_closed") == [(0,)]
    finally:
        await s.close()


def test_record_reprs() -> None:
    out = OutboxRecord(3, "t1", 5, json.dumps({"text": "x" * 200}),
                       datetime(2024, 1, 1, tzinfo=UTC))
    text = repr(out)
    assert text.startswith("OutboxRecord(#3 table=t1 v5 undelivered")
    assert "2024-01-01T00:00:00+00:00" in text and len(text) < 160
    done = OutboxRecord(3, "t1", 5, "{}", datetime(2024, 1, 1, tzinfo=UTC),
                        datetime(2024, 1, 2, tzinfo=UTC))
    assert "delivered 2024-01-02" in repr(done)
    assert repr(_turn()) == (
        "TurnMessage(table=t1 v1 message=10/700 pinged=[100, 200] lines=2 buttons=yes"
        " board='board-v1')"
    )
    assert repr(_hand()).startswith("HandMessage(table_id='t1', user_id=100")


async def test_guild_settings_and_results(store: Store) -> None:
    assert await store.guild_settings(5) == {}
    await store.save_guild_settings(5, {"threads": True})
    await store.save_guild_settings(5, {"threads": False, "x": 1})
    assert await store.guild_settings(5) == {"threads": False, "x": 1}
    assert await store.guild_settings(6) == {}
    base = datetime(2024, 2, 1, tzinfo=UTC)
    games = [("r1", 5, 10, "toy-nim"), ("r2", 5, 11, "other"), ("r3", 6, 12, "toy-nim")]
    for tid, guild, channel, _game in games:
        rec = _rec(tid, channel=channel, status="finished")
        rec.guild_id = guild
        await store.create_table(rec)
    assert [t.id for t in await store.finished_without_result()] == ["r1", "r2", "r3"]
    made = []
    for i, (tid, guild, channel, game) in enumerate(games):
        result = ResultRecord(
            table_id=tid, guild_id=guild, channel_id=channel, game_id=game,
            options={"pile": 5}, seats=[{"index": 0, "name": "Ann", "user_id": 100,
                                         "ai_level": None}],
            winners=[0], scores={0: 3.5, 1: 2}, reason="The pile is empty.",
            cooperative=i == 1, moves=7 + i, started_at=base,
            finished_at=base + timedelta(hours=i))
        assert await store.record_result(result) is True
        assert await store.record_result(result) is False  # once per table
        made.append(result)
    assert await store.finished_without_result() == []
    assert await store.results(guild_id=5) == [made[1], made[0]]  # newest first
    assert await store.results(game_id="toy-nim") == [made[2], made[0]]
    assert await store.results(channel_id=12) == [made[2]]
    assert await store.results(guild_id=5, limit=1) == [made[1]]
    assert await store.results(guild_id=99) == []


async def test_a_restarted_instance_takes_back_its_claims(backend: Backend) -> None:
    clock = Clock()
    s = backend.store(clock=clock)
    await s.open()
    try:
        await s.create_table(_rec())
        await s.create_table(_rec("t2", channel=11))
        oid = await s.save_table(_bump(_rec()), outbox="{}")
        other = await s.save_table(_bump(_rec("t2", channel=11)), outbox="{}")
        assert oid is not None and other is not None
        assert await s.claim_outbox(oid, "host/all:run1", 30)
        assert await s.claim_outbox(other, "host/allx:run1", 30)  # another instance
        assert await s.claim_lease("t1", "host/all:run1:ai", 30)
        # The next run of instance "host/all" takes back its own, not the other's.
        assert await s.release_claims("host/all:") == 2
        assert await s.claim_outbox(oid, "host/all:run2", 30)
        assert not await s.claim_outbox(other, "host/all:run2", 30)
        assert await s.claim_lease("t1", "host/all:run2:ai", 30)
        assert await s.release_claims("%") == 0  # a pattern character is a character
    finally:
        await s.close()


async def test_unclaimed_ai_turns_are_found_without_reading_states(backend: Backend) -> None:
    """Issue 23: a process must find the AI turns a dead one left at tables it never
    loaded. The row says whether an AI is to act; a turn is nobody's once its lease
    expired, or when no lease was ever claimed and the row has been quiet that long."""
    clock = Clock()
    s = backend.store(clock=clock)
    await s.open()
    start = clock.now
    try:
        def playing(table_id: str, channel: int, ai: bool, status: str = "playing"
                    ) -> TableRecord:
            rec = _rec(table_id, channel=channel, status=status)
            rec.ai_to_act, rec.updated_at = ai, start
            return rec

        await s.create_table(playing("quiet", 1, True))  # no lease: its writer died
        await s.create_table(playing("held", 2, True))
        await s.create_table(playing("expired", 3, True))
        await s.create_table(playing("human", 4, False))  # a person is to act
        await s.create_table(playing("over", 5, True, status="finished"))
        assert await s.claim_lease("held", "alive", 120)
        assert await s.claim_lease("expired", "dead", 10)
        got = await s.get_table("quiet")
        assert got is not None and got.ai_to_act is True
        assert (await s.get_table("human")).ai_to_act is False  # type: ignore[union-attr]
        # At once: the expired lease only (a quiet row's writer may be about to claim).
        clock.now = start + timedelta(seconds=11)
        assert await s.unclaimed_ai_turns(30) == ["expired"]
        # Once the row has been quiet for 30 s, its turn is nobody's too.
        clock.now = start + timedelta(seconds=30)
        assert sorted(await s.unclaimed_ai_turns(30)) == ["expired", "quiet"]
        assert len(await s.unclaimed_ai_turns(30, limit=1)) == 1
        # A claim takes it off the list; a flag cleared by a write does too.
        assert await s.claim_lease("quiet", "taker", 30)
        moved = _bump(playing("expired", 3, False))
        await s.save_table(moved)
        assert await s.unclaimed_ai_turns(30) == []
        clock.now = start + timedelta(seconds=121)
        assert sorted(await s.unclaimed_ai_turns(30)) == ["held", "quiet"]
    finally:
        await s.close()
