"""What only the PostgreSQL store has to prove: many processes migrating one new schema
at once, the refusal of a newer database, real races between two pools, the exact round
trip of every record through PostgreSQL's types, and its connection handling.

Every test of the interface itself runs on both backends in ``tests/test_store.py``.
Each test here gets a private schema (``pg_schema`` in ``tests/conftest.py``).
"""

from __future__ import annotations

import asyncio
import doctest
from datetime import UTC, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

import pytest

from bot.core.store import (
    ActionRecord,
    EventRecord,
    HandMessage,
    OutboxRecord,
    StoreError,
    TableRecord,
    TurnMessage,
    VersionConflict,
)
from bot.core.store.factory import store_for
from bot.core.store.migrations import LATEST, MIGRATIONS

if TYPE_CHECKING:
    from bot.core.store.postgres import PostgresStore
    from tests.conftest import PgSchema


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _rec(table_id: str = "t1", channel: int = 10, status: str = "lobby") -> TableRecord:
    return TableRecord(
        id=table_id, channel_id=channel, guild_id=1, game_id="toy-nim", options={"pile": 5},
        seed=42, status=status, host_id=100,
        seats=[{"index": 0, "name": "Ann", "user_id": 100, "ai_level": None}],
    )


def _bump(rec: TableRecord) -> TableRecord:
    rec.revision += 1
    return rec


async def _opened(pg: PgSchema, **kwargs: Any) -> PostgresStore:
    store = pg.store(**kwargs)
    await store.open()
    return store  # type: ignore[return-value]


# -- migrations ---------------------------------------------------------------------


def test_the_pg_migrations_are_sqlites_under_the_same_numbers() -> None:
    from bot.core.store.pg_migrations import PG_MIGRATIONS

    assert [(m.version, m.name) for m in PG_MIGRATIONS] == [
        (m.version, m.name) for m in MIGRATIONS]
    assert all(isinstance(step, str) for m in PG_MIGRATIONS for step in m.statements)


async def test_four_concurrent_opens_of_a_new_schema_migrate_once(pg_schema: PgSchema) -> None:
    stores = [pg_schema.store() for _ in range(4)]
    await asyncio.gather(*(s.open() for s in stores))
    try:
        applied = sorted(v for s in stores for v in s.applied_at_open)  # type: ignore[attr-defined]
        assert applied == [1, 2, 3, 4, 5, 6, 7]  # each migration applied by exactly one opener
        for s in stores:
            assert await s.applied_migrations() == [1, 2, 3, 4, 5, 6, 7]
        rows = await stores[0].pool.fetch(  # type: ignore[attr-defined]
            "SELECT version, name, applied_at FROM migrations ORDER BY version")
        assert [(r["version"], r["name"]) for r in rows] == [
            (m.version, m.name) for m in MIGRATIONS]
        assert all(r["applied_at"].tzinfo is not None for r in rows)
        rec = _rec()
        await stores[1].create_table(rec)
        assert await stores[3].get_table("t1") == rec
    finally:
        for s in stores:
            await s.close()


async def test_the_schema_is_created_and_private(pg_schema: PgSchema) -> None:
    from bot.core.store.postgres import PostgresStore

    mine = await _opened(pg_schema)
    other_schema = pg_schema.schema + "_b"
    other = PostgresStore(pg_schema.url, schema=other_schema)
    try:
        await other.open()
        await mine.create_table(_rec())
        assert await other.get_table("t1") is None  # nothing crosses schemas
        where = await mine.pool.fetch(
            "SELECT table_schema, table_name FROM information_schema.tables"
            " WHERE table_name = 'tables' AND table_schema LIKE $1 ORDER BY 1",
            pg_schema.schema + "%")
        assert [tuple(r) for r in where] == [(pg_schema.schema, "tables"),
                                              (other_schema, "tables")]
    finally:
        await mine.close()
        await other.close()
        await pg_schema.execute(f'DROP SCHEMA IF EXISTS "{other_schema}" CASCADE')


async def test_column_types(pg_schema: PgSchema) -> None:
    store = await _opened(pg_schema)
    try:
        rows = await store.pool.fetch(
            "SELECT table_name, column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = $1", pg_schema.schema)
    finally:
        await store.close()
    types = {(r["table_name"], r["column_name"]): r["data_type"] for r in rows}
    for key in (("tables", "channel_id"), ("tables", "guild_id"), ("tables", "host_id"),
                ("tables", "seed"), ("hand_messages", "message_id"), ("dm_closed", "user_id"),
                ("outbox", "id")):
        assert types[key] == "bigint", key
    for key in (("tables", "created_at"), ("outbox", "claimed_until"),
                ("table_leases", "until"), ("migrations", "applied_at")):
        assert types[key] == "timestamp with time zone", key
    for key in (("tables", "state"), ("tables", "options"), ("outbox", "payload"),
                ("events", "data")):
        assert types[key] == "text", key  # not jsonb: the bytes given come back
    assert types[("tables", "reminder_minutes")] == "double precision"


async def test_newer_migrations_are_refused(pg_schema: PgSchema) -> None:
    store = await _opened(pg_schema)
    await store.close()
    await pg_schema.execute(
        "INSERT INTO migrations VALUES (99, 'from the future', '2099-01-01T00:00:00Z')")
    late = pg_schema.store()
    with pytest.raises(StoreError, match="newer Fabletop") as info:
        await late.open()
    assert f"migration 99; this one knows up to {LATEST}" in str(info.value)
    with pytest.raises(StoreError, match="not open"):
        late.pool  # type: ignore[attr-defined]  # noqa: B018  (a refused open leaves it closed)


# -- races between two processes ------------------------------------------------------


async def test_claim_races_have_exactly_one_winner(pg_schema: PgSchema) -> None:
    clock = Clock()
    a, b = await _opened(pg_schema, clock=clock), await _opened(pg_schema, clock=clock)
    try:
        rec = _rec()
        await a.create_table(rec)
        oids = [await a.save_table(_bump(rec), outbox=f'{{"n": {i}}}') for i in range(20)]
        for oid in oids:
            assert oid is not None
            won = await asyncio.gather(a.claim_outbox(oid, "proc-a", 30),
                                       b.claim_outbox(oid, "proc-b", 30))
            assert sorted(won) == [False, True], oid
        for n in range(20):  # a fresh lease each round, claimed by both at once
            tid = f"l{n}"
            await a.create_table(_rec(tid, channel=100 + n))
            won = await asyncio.gather(a.claim_lease(tid, "proc-a", 60),
                                       b.claim_lease(tid, "proc-b", 60))
            assert sorted(won) == [False, True], tid
        # The deliveries race as well: the row is marked by one of them only.
        marked = await asyncio.gather(a.mark_delivered(oids[0]), b.mark_delivered(oids[0]))
        assert sorted(marked) == [False, True]
    finally:
        await a.close()
        await b.close()


async def test_commit_races_have_exactly_one_winner(pg_schema: PgSchema) -> None:
    a, b = await _opened(pg_schema), await _opened(pg_schema)
    try:
        rec = _rec(status="playing")
        await a.create_table(rec)
        for version in range(1, 11):
            mine, theirs = _rec(status="playing"), _rec(status="playing")
            for r, state in ((mine, "a"), (theirs, "b")):
                r.version, r.revision, r.state = version, version, f'"{state}{version}"'
            results = await asyncio.gather(
                a.commit_action(mine, version - 1, ActionRecord("t1", version, 0, 1, "{}"),
                                [EventRecord("t1", version, 0, "{}")], outbox='"a"'),
                b.commit_action(theirs, version - 1, ActionRecord("t1", version, 1, 2, "{}"),
                                [EventRecord("t1", version, 0, "{}")], outbox='"b"'),
                return_exceptions=True,
            )
            assert sum(isinstance(r, int) for r in results) == 1, results
            assert sum(isinstance(r, VersionConflict) for r in results) == 1, results
        assert [x.version for x in await a.actions("t1")] == list(range(1, 11))
        assert len(await a.events("t1")) == 10
        assert len(await a.undelivered_outboxes()) == 10  # the losers wrote none
        got = await a.get_table("t1")
        assert got is not None and got.version == got.revision == 10
    finally:
        await a.close()
        await b.close()


# -- the exact round trip -------------------------------------------------------------


async def test_every_record_type_round_trips(pg_schema: PgSchema) -> None:
    clock = Clock()
    clock.now = datetime(2024, 5, 6, 7, 8, 9, 654321, tzinfo=UTC)
    store = await _opened(pg_schema, clock=clock)
    try:
        big = 2**63 - 1  # Discord ids are 64-bit (snowflakes need 63 bits)
        paris = timezone(timedelta(hours=2))
        rec = TableRecord(
            id="Zz-ü", channel_id=big, guild_id=None, game_id="winter-tales",
            options={"b": [1, 2.5, None], "a": "ü"}, seed=2**62 + 1, status="playing",
            host_id=big - 1,
            seats=[{"index": 0, "name": "Ann 🌲", "user_id": big, "ai_level": None},
                   {"index": 1, "name": "AI", "user_id": None, "ai_level": "greedy"}],
            version=3,
            state='{ "spaced":  "as given", "z": 1, "a": [1.50, 1e3] }',
            reminder_minutes=0.1 + 0.2,
            created_at=datetime(2024, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
            updated_at=datetime(2024, 1, 1, 14, 0, 0, 999999, tzinfo=paris),
            turn_since=datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
            reminded_at=datetime(2024, 1, 2, 3, 14, 5, tzinfo=UTC),
            settings={"interrupt_timeout": 30.0, "quiet": True},
            revision=9,
        )
        actions = [ActionRecord(rec.id, 1, 0, big, '{"kind": "take",  "n": 1}',
                                datetime(2024, 1, 1, 0, 1, 2, 345678, tzinfo=UTC)),
                   ActionRecord(rec.id, 2, 1, None, "{}",
                                datetime(2024, 1, 1, 0, 2, tzinfo=paris))]
        events = [EventRecord(rec.id, 1, 0, '{"text": "naïve \\u00e9"}'),
                  EventRecord(rec.id, 2, 0, "[]"), EventRecord(rec.id, 2, 1, '"x"')]
        await store.import_table(rec, actions, events)
        got = await store.get_table(rec.id)
        assert got == rec
        assert got is not None and got.state == rec.state  # byte for byte, not re-encoded
        assert got.reminder_minutes == 0.1 + 0.2  # a double, not a real
        for when in (got.created_at, got.updated_at, got.turn_since, got.reminded_at):
            assert when is not None and when.tzinfo is UTC  # aware UTC, the same instant
        assert got.updated_at == datetime(2024, 1, 1, 12, 0, 0, 999999, tzinfo=UTC)
        got_actions = await store.actions(rec.id)
        assert got_actions == actions and all(a.created_at.tzinfo is UTC for a in got_actions)
        assert await store.events(rec.id) == events

        rec.revision += 1
        oid = await store.save_table(rec, expected_version=3, outbox='{"payload":  1}')
        assert oid is not None
        assert await store.undelivered_outboxes() == [
            OutboxRecord(oid, rec.id, 3, '{"payload":  1}', clock.now)]
        hands = [HandMessage(rec.id, big, big - 2, big - 3, "sig ✓", "img", True),
                 HandMessage(rec.id, 5, 6, 7, "", "", False)]
        turn = TurnMessage(rec.id, big, big - 4, 3, (big, 5), ("Ann took 1.", "✓"), True,
                           None)
        clock.now += timedelta(seconds=1)
        assert await store.mark_delivered(oid, hands=hands, turn=turn) is True
        assert await store.undelivered_outboxes() == []
        row = await store.pool.fetchrow("SELECT created_at, delivered_at FROM outbox")
        assert row is not None and row["delivered_at"] == clock.now
        assert row["delivered_at"] - row["created_at"] == timedelta(seconds=1)
        assert await store.hand_messages(rec.id) == sorted(hands, key=lambda h: h.user_id)
        assert await store.all_hand_messages_showing_choices() == [hands[0]]
        assert await store.turn_message(rec.id) == turn
        await store.set_dm_closed(big, True)
        assert await store.dm_closed(big) and await store.dm_closed_among([big, 5]) == {big}
        # What the store dates comes from its clock, never from the server's.
        since = await store.pool.fetchval("SELECT since FROM dm_closed")
        assert since == clock.now
    finally:
        await store.close()


async def test_a_naive_time_is_taken_as_utc(pg_schema: PgSchema) -> None:
    store = await _opened(pg_schema)
    try:
        rec = _rec()
        rec.created_at = datetime(2024, 1, 1, 12, 0)  # no zone
        await store.create_table(rec)
        got = await store.get_table("t1")
        assert got is not None and got.created_at == datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
    finally:
        await store.close()


# -- errors and connections -----------------------------------------------------------


async def test_driver_errors_become_store_errors(pg_schema: PgSchema) -> None:
    import asyncpg

    store = await _opened(pg_schema)
    try:
        rec = _rec()
        await store.create_table(rec)
        rec.state = "a\x00b"  # PostgreSQL text cannot hold NUL
        with pytest.raises(StoreError) as info:
            await store.save_table(_bump(rec))
        assert type(info.value) is StoreError and "0x00" in str(info.value)
        assert isinstance(info.value.__cause__, asyncpg.PostgresError)
        too_big = _rec("t2", channel=11)
        too_big.seed = 2**64
        with pytest.raises(StoreError, match="int64"):
            await store.create_table(too_big)
        got = await store.get_table("t1")
        assert got is not None and got.revision == 0 and got.state is None
    finally:
        await store.close()
    with pytest.raises(StoreError, match="not open"):
        await store.get_table("t1")


async def test_a_refused_connection_names_the_server() -> None:
    from bot.core.store.postgres import PostgresStore

    store = PostgresStore("postgresql://fabletop:s3cret@127.0.0.1:1/fabletop")
    with pytest.raises(StoreError) as info:
        await store.open()
    assert str(info.value) == "Cannot connect to PostgreSQL at 127.0.0.1:1: connection refused."
    assert "s3cret" not in str(info.value)


async def test_a_malformed_url_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="Cannot open postgresql://u@db:port/x") as info:
        await store_for("postgresql://u:s3cret@db:port/x").open()
    assert "s3cret" not in str(info.value)


async def test_a_missing_database_is_a_store_error(pg_schema: PgSchema) -> None:
    url = pg_schema.url.rsplit("/", 1)[0] + "/fabletop_no_such_database"
    with pytest.raises(StoreError, match="fabletop_no_such_database"):
        await store_for(url).open()


def test_repr_never_shows_a_password() -> None:
    from bot.core.store.postgres import PostgresStore

    store = store_for("postgresql://postgres:hunter2@127.0.0.1:5432/test?password=x&a=b")
    assert repr(store) == "<PostgresStore postgresql://postgres@127.0.0.1:5432/test?a=b>"
    assert repr(PostgresStore("postgres://db/fabletop", schema="s1")) == (
        "<PostgresStore postgres://db/fabletop schema='s1'>")
    with pytest.raises(ValueError):
        PostgresStore("postgresql://db/x", schema="x" * 64)
    with pytest.raises(ValueError):
        PostgresStore("postgresql://db/x", min_size=3, max_size=2)


def test_docstring_examples() -> None:
    import bot.core.store.postgres

    result = doctest.testmod(bot.core.store.postgres)
    assert result.failed == 0 and result.attempted > 0
